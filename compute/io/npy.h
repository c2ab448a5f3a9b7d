// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cs::io {

/// Writes a C-order NumPy `.npy` (format 1.0) array of the given shape; throws cs::Error
/// naming the file when it cannot be written or the shape does not match the data.
/// @code cs::io::writeNpy("features.npy", values, {n, 2 * k}); @endcode
void writeNpy(const std::filesystem::path& file, std::span<const float> data,
              const std::vector<std::size_t>& shape);
void writeNpy(const std::filesystem::path& file, std::span<const double> data,
              const std::vector<std::size_t>& shape);
void writeNpy(const std::filesystem::path& file, std::span<const std::int32_t> data,
              const std::vector<std::size_t>& shape);
void writeNpy(const std::filesystem::path& file, std::span<const std::int64_t> data,
              const std::vector<std::size_t>& shape);

/// The bytes writeNpy puts before the values of a C-order array of this shape, descr the
/// dtype ("<f4", "<i4"): a writer that writes the values itself (each MPI rank its rows) makes
/// the same file. Throws cs::Error naming the file when the header would be too long.
std::string npyHeader(const std::filesystem::path& file, std::string_view descr,
                      const std::vector<std::size_t>& shape);

/// A `.npy` array read as float32 values, C order (Fortran-order files are transposed).
struct NpyArray {
    std::vector<std::size_t> shape;  ///< 1 or 2 dimensions
    std::vector<float> values;       ///< product(shape) values, C order
};
/// Reads float32/float64/int32/int64 (either byte order) arrays of 1 or 2 dimensions.
NpyArray readNpy(const std::filesystem::path& file);
/// What a `.npy` header declares (read from the header only, the size checked against the
/// file's): the shape and NumPy's name of the dtype ("int32", "float32", "uint8" ...).
struct NpyInfo {
    std::vector<std::size_t> shape;
    std::string dtype;
};
NpyInfo npyInfo(const std::filesystem::path& file);
/// An int32 `.npy` array, values exact (readNpy's floats hold integers up to 2^24 only).
struct NpyInt32Array {
    std::vector<std::size_t> shape;    ///< 1 or 2 dimensions
    std::vector<std::int32_t> values;  ///< product(shape) values, C order
};
/// Reads an int32 array (either byte order, C or Fortran order) of 1 or 2 dimensions; throws
/// cs::Error naming the file for any other dtype.
NpyInt32Array readNpyInt32(const std::filesystem::path& file);
/// Rows [first, first + count) of a 1-D or 2-D `.npy` file, read by range (never the whole
/// file): the distributed kNN graph's ranks each read their slice this way.
NpyArray readNpyRows(const std::filesystem::path& file, std::size_t first, std::size_t count);

}  // namespace cs::io
