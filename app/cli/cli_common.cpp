// SPDX-License-Identifier: MIT
#include "app/cli/cli_common.h"

#include <exception>
#include <iostream>

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

void printJson(const nlohmann::json& object) {
    // Replace invalid UTF-8 (names from a damaged file) instead of throwing while printing.
    std::cout << object.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << std::endl;
}

double millisecondsSince(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
        .count();
}

std::string fileName(const std::string& path) {
    const auto slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace cs::cli
