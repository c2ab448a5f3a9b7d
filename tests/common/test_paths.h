// SPDX-License-Identifier: MIT
#pragma once

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

}  // namespace cs::test
