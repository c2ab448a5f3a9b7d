// SPDX-License-Identifier: MIT
#include "app/cli/cli_common.h"

#include <cstdio>
#include <exception>
#include <iostream>

#include "compute/io/atomic_output.h"

namespace cs::cli {

int runReportingErrors(const std::function<int()>& body) {
    try {
        return body();
    } catch (const std::exception& e) {
        std::cerr << "clusterscope-cli: " << e.what() << '\n';
    } catch (...) {
        std::cerr << "clusterscope-cli: unknown error\n";
    }
    return kExitError;
}

void checkOutputs(std::initializer_list<std::string> paths) {
    for (const auto& path : paths)
        if (!path.empty()) io::checkOutputTarget(path);
}

void printJson(const nlohmann::json& object) {
    // Replace invalid UTF-8 (names from a damaged file) instead of throwing while printing.
    std::cout << object.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << std::endl;
}

double millisecondsSince(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
        .count();
}

bool warnIfCostly(const std::string& what, const std::string& formula, double evaluations) {
    if (!(evaluations >= kCostWarnEvaluations)) return false;
    char amount[32];
    std::snprintf(amount, sizeof amount, "%.1e", evaluations);
    std::cerr << "clusterscope-cli: " << what << ": about " << formula << " = " << amount
              << " distance evaluations, this may take minutes" << std::endl;
    return true;
}

std::string groupedCount(std::size_t n) {
    std::string digits = std::to_string(n), out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

std::string fileName(const std::string& path) {
    const auto slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace cs::cli
