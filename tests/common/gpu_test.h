// SPDX-License-Identifier: MIT
#pragma once

// A tiny Qt-free test harness for the GPU suites, which must build and run on the GPU machine
// (no Qt there). Output follows Qt Test's lines so that ctest, CI logs and people read both
// alike:
//   PASS   : tst_x::name()
//   FAIL!  : tst_x::name() <message> (file:line)
//   SKIP   : tst_x::name() <why>
//   Totals: N passed, N failed, N skipped
// Exit code: 0 all passed (or skipped), 1 any failure, 77 no usable CUDA device
// (cs_add_gpu_test sets SKIP_RETURN_CODE 77).
//
// @code
// CS_TEST(roundTrip) { CS_CHECK_EQ(back.size(), 16u); CS_CHECK_NEAR(x, 1.0, 1e-6); }
// int main(int argc, char** argv) {
//     cs::test::skipWithoutCudaDevice("tst_cuda_smoke");
//     return cs::test::runTests("tst_cuda_smoke", argc, argv);
// }
// @endcode

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <iostream>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cs::test {

/// One registered test function.
struct TestCase {
    std::string name;  ///< function name as printed: tst_x::name()
    std::function<void()> body;
};

/// Every test of the executable, in definition order.
inline std::vector<TestCase>& testCases() {
    static std::vector<TestCase> cases;
    return cases;
}

/// Registers a test; CS_TEST does this at static-initialisation time.
inline bool registerTest(std::string name, std::function<void()> body) {
    testCases().push_back({std::move(name), std::move(body)});
    return true;
}

/// Thrown by a failed check: ends the test function, like QVERIFY.
struct TestFailure {
    std::string message;
    const char* file;
    int line;
};

/// Thrown by CS_SKIP: ends the test function as skipped, like QSKIP.
struct TestSkipped {
    std::string reason;
};

namespace detail {

template <typename T>
concept Streamable = requires(std::ostream& os, const T& v) {
    os << v;
};

template <typename T>
std::string show(const T& value) {
    if constexpr (Streamable<T>) {
        std::ostringstream out;
        out.precision(9);
        out << value;
        return out.str();
    } else {
        return "<value>";
    }
}

inline std::string& currentSuite() {
    static std::string suite = "tst";
    return suite;
}

inline std::string& currentTest() {
    static std::string test = "initTestCase";
    return test;
}

}  // namespace detail

/// Prints an informational line for the running test: "INFO   : tst_x::name() text".
inline void info(std::string_view text) {
    std::printf("INFO   : %s::%s() %.*s\n", detail::currentSuite().c_str(),
                detail::currentTest().c_str(), static_cast<int>(text.size()), text.data());
    std::fflush(stdout);
}

/// Runs the registered tests (all, or those named on the command line) and returns the exit
/// code: 0 when none failed, 1 otherwise. "-functions" lists the test names.
inline int runTests(const char* suite, int argc, char** argv) {
    detail::currentSuite() = suite;
    std::vector<std::string> only;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "-functions") {
            for (const auto& t : testCases())
                std::printf("%s()\n", t.name.c_str());
            return 0;
        }
        only.push_back(arg.ends_with("()") ? arg.substr(0, arg.size() - 2) : arg);
    }

    std::printf("********* Start testing of %s *********\n", suite);
    int passed = 0;
    int failed = 0;
    int skipped = 0;
    const auto started = std::chrono::steady_clock::now();
    for (const auto& test : testCases()) {
        if (!only.empty() && std::find(only.begin(), only.end(), test.name) == only.end()) continue;
        detail::currentTest() = test.name;
        const std::string id = std::string(suite) + "::" + test.name + "()";
        try {
            test.body();
            std::printf("PASS   : %s\n", id.c_str());
            ++passed;
        } catch (const TestFailure& f) {
            std::printf("FAIL!  : %s %s (%s:%d)\n", id.c_str(), f.message.c_str(), f.file, f.line);
            ++failed;
        } catch (const TestSkipped& s) {
            std::printf("SKIP   : %s %s\n", id.c_str(), s.reason.c_str());
            ++skipped;
        } catch (const std::exception& e) {
            std::printf("FAIL!  : %s unexpected exception: %s\n", id.c_str(), e.what());
            ++failed;
        } catch (...) {
            std::printf("FAIL!  : %s unexpected exception of unknown type\n", id.c_str());
            ++failed;
        }
        std::fflush(stdout);
    }
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                        std::chrono::steady_clock::now() - started)
                        .count();
    std::printf("Totals: %d passed, %d failed, %d skipped, %lldms\n", passed, failed, skipped,
                static_cast<long long>(ms));
    std::printf("********* Finished testing of %s *********\n", suite);
    std::fflush(stdout);
    return failed == 0 ? 0 : 1;
}

/// Exits the whole executable with 77 (ctest: skipped) when reason is not empty, printing
/// "SKIP   : tst_x::initTestCase() no CUDA device: <reason>".
inline void skipWholeSuite(const char* suite, const std::string& reason) {
    if (reason.empty()) return;
    std::printf("********* Start testing of %s *********\n", suite);
    std::printf("SKIP   : %s::initTestCase() no CUDA device: %s\n", suite, reason.c_str());
    std::printf("Totals: 0 passed, 0 failed, 1 skipped\n");
    std::printf("********* Finished testing of %s *********\n", suite);
    std::fflush(stdout);
    std::exit(77);
}

}  // namespace cs::test

// Declares cs::kernels::probeCudaDevice() only (no CUDA header); linking cs_kernels is needed
// only by executables that call skipWithoutCudaDevice().
#include "kernels/cuda_backend.h"

namespace cs::test {

/// Exits with 77 (skipped) unless a usable CUDA device is present.
inline void skipWithoutCudaDevice(const char* suite) {
    skipWholeSuite(suite, cs::kernels::probeCudaDevice().reason);
}

}  // namespace cs::test

#define CS_TEST_CONCAT_INNER(a, b) a##b
#define CS_TEST_CONCAT(a, b) CS_TEST_CONCAT_INNER(a, b)

/// Defines and registers a test function: CS_TEST(name) { ... }
#define CS_TEST(name)                                                      \
    static void name();                                                    \
    [[maybe_unused]] static const bool CS_TEST_CONCAT(name, _registered) = \
        ::cs::test::registerTest(#name, &name);                            \
    static void name()

/// Fails the test unless cond holds.
#define CS_CHECK(cond)                                                                        \
    do {                                                                                      \
        if (!(cond))                                                                          \
            throw ::cs::test::TestFailure{"'" #cond "' returned FALSE.", __FILE__, __LINE__}; \
    } while (0)

/// Fails the test, with a message, unless cond holds.
#define CS_CHECK_MSG(cond, msg)                                                                \
    do {                                                                                       \
        if (!(cond))                                                                           \
            throw ::cs::test::TestFailure{std::string("'" #cond "' returned FALSE. ") + (msg), \
                                          __FILE__, __LINE__};                                 \
    } while (0)

/// Fails the test unless a == b; prints both values.
#define CS_CHECK_EQ(a, b)                                                                          \
    do {                                                                                           \
        const auto cs_test_a = (a);                                                                \
        const auto cs_test_b = (b);                                                                \
        if (!(cs_test_a == cs_test_b))                                                             \
            throw ::cs::test::TestFailure{"Compared values are not the same: " #a " = " +          \
                                              ::cs::test::detail::show(cs_test_a) +                \
                                              ", " #b " = " + ::cs::test::detail::show(cs_test_b), \
                                          __FILE__, __LINE__};                                     \
    } while (0)

/// Fails the test unless |a - b| <= tol (NaN fails); prints both values.
#define CS_CHECK_NEAR(a, b, tol)                                                                   \
    do {                                                                                           \
        const double cs_test_a = static_cast<double>(a);                                           \
        const double cs_test_b = static_cast<double>(b);                                           \
        if (!(std::abs(cs_test_a - cs_test_b) <= static_cast<double>(tol)))                        \
            throw ::cs::test::TestFailure{"Values differ by more than " #tol ": " #a " = " +       \
                                              ::cs::test::detail::show(cs_test_a) +                \
                                              ", " #b " = " + ::cs::test::detail::show(cs_test_b), \
                                          __FILE__, __LINE__};                                     \
    } while (0)

/// Fails the test unless expr throws an exception of type Type (or derived).
#define CS_CHECK_THROWS(expr, Type)                                                                \
    do {                                                                                           \
        bool cs_test_thrown = false;                                                               \
        try {                                                                                      \
            (void)(expr);                                                                          \
        } catch (const Type&) {                                                                    \
            cs_test_thrown = true;                                                                 \
        }                                                                                          \
        if (!cs_test_thrown)                                                                       \
            throw ::cs::test::TestFailure{"'" #expr "' did not throw " #Type, __FILE__, __LINE__}; \
    } while (0)

/// Fails the test with a message.
#define CS_FAIL(msg)                         \
    throw ::cs::test::TestFailure {          \
        std::string(msg), __FILE__, __LINE__ \
    }

/// Ends the test as skipped with a reason.
#define CS_SKIP(msg)                \
    throw ::cs::test::TestSkipped { \
        std::string(msg)            \
    }
