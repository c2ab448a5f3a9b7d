// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace cs::io {

/// A fast 64-bit hash of bytes, 8 at a time (xor, multiply, rotate, then a final mix): it tells
/// whether a data file is still the one a session was saved with, not a cryptographic digest.
std::uint64_t contentHash(std::string_view bytes);

/// contentHash of a file's bytes, read in large chunks, as text: "cs64:" and 16 hex digits.
/// Throws cs::InputError naming the file when it cannot be read.
/// @code std::string h = cs::io::fileContentHash("bunny.pcd");  // "cs64:3f0c…" @endcode
std::string fileContentHash(const std::filesystem::path& file);

}  // namespace cs::io
