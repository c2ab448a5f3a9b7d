// SPDX-License-Identifier: MIT
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string_view>

namespace cs::test {

/// A file under ../shared/data (UCR/UEA series, real point clouds), e.g. "points/bunny.pcd".
inline std::filesystem::path sharedData(std::string_view relative) {
    return std::filesystem::path(CS_SHARED_DATA_DIR) / relative;
}

/// A file under tests/ in the source tree (hand-made test files), e.g. "io/data/tiny.ply".
inline std::filesystem::path testSource(std::string_view relative) {
    return std::filesystem::path(CS_TEST_SOURCE_DIR) / relative;
}

/// True when a missing shared data set is a failure, not a skip: CS_REQUIRE_DATA=1 in the
/// environment (CI sets it, since its checkout has ../shared/data: a missing file there means a
/// broken set-up, which must not turn into a green run of skipped tests).
inline bool dataRequired() {
    const char* v = std::getenv("CS_REQUIRE_DATA");
    return v != nullptr && std::string_view(v) == "1";
}

}  // namespace cs::test

// The one way a test reacts to missing shared data, in both harnesses. Macros, so that this
// header needs neither Qt nor tests/common/gpu_test.h until one of them is used.

/// In a Qt Test function: QSKIP(why), or QFAIL under CS_REQUIRE_DATA=1. why: a QString.
#define CS_QSKIP_MISSING_DATA(why)                                                      \
    do {                                                                                \
        const QString cs_missing_why = (why);                                           \
        if (::cs::test::dataRequired())                                                 \
            QFAIL(qPrintable(cs_missing_why + QStringLiteral(" (CS_REQUIRE_DATA=1)"))); \
        QSKIP(qPrintable(cs_missing_why));                                              \
    } while (false)

/// In a CS_TEST function (tests/common/gpu_test.h): CS_SKIP(why), or CS_FAIL under
/// CS_REQUIRE_DATA=1. why: a std::string.
#define CS_SKIP_MISSING_DATA(why)                                                         \
    do {                                                                                  \
        const std::string cs_missing_why = (why);                                         \
        if (::cs::test::dataRequired()) CS_FAIL(cs_missing_why + " (CS_REQUIRE_DATA=1)"); \
        CS_SKIP(cs_missing_why);                                                          \
    } while (false)
