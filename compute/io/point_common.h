// SPDX-License-Identifier: MIT
#pragma once

// Internal to the point readers (compute/io): byte-level helpers shared by the PLY, PCD and
// NumPy readers, and the readers' in-memory entry points, which readPoints() uses so that a
// file sniffed by content is read from disk only once.

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>

#include "compute/core/point_set.h"
#include "compute/io/npy.h"

namespace cs::io::detail {

/// A binary scalar type, as PLY, PCD and NumPy describe them.
enum class NumType : std::uint8_t { I8, U8, I16, U16, I32, U32, I64, U64, F32, F64 };

/// Bytes one value of t takes.
constexpr std::size_t sizeOf(NumType t) {
    switch (t) {
        case NumType::I8:
        case NumType::U8:
            return 1;
        case NumType::I16:
        case NumType::U16:
            return 2;
        case NumType::I32:
        case NumType::U32:
        case NumType::F32:
            return 4;
        case NumType::I64:
        case NumType::U64:
        case NumType::F64:
            return 8;
    }
    return 1;
}

constexpr bool isInteger(NumType t) {
    return t != NumType::F32 && t != NumType::F64;
}

/// Whether a file of this byte order needs swapping on this host.
constexpr bool needsSwap(bool bigEndianFile) {
    return bigEndianFile != (std::endian::native == std::endian::big);
}

/// Reads a T at an unaligned address, swapping its bytes when asked.
template <typename T>
inline T loadRaw(const char* p, bool swap) {
    using U = std::conditional_t<
        sizeof(T) == 1, std::uint8_t,
        std::conditional_t<sizeof(T) == 2, std::uint16_t,
                           std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>>;
    U bits;
    std::memcpy(&bits, p, sizeof bits);
    if (swap) {
        if constexpr (sizeof(U) == 2) bits = __builtin_bswap16(bits);
        if constexpr (sizeof(U) == 4) bits = __builtin_bswap32(bits);
        if constexpr (sizeof(U) == 8) bits = __builtin_bswap64(bits);
    }
    return std::bit_cast<T>(bits);
}

/// One value of type t at p, as a double (64-bit integers may round).
inline double loadNumber(const char* p, NumType t, bool swap) {
    switch (t) {
        case NumType::I8:
            return loadRaw<std::int8_t>(p, swap);
        case NumType::U8:
            return loadRaw<std::uint8_t>(p, swap);
        case NumType::I16:
            return loadRaw<std::int16_t>(p, swap);
        case NumType::U16:
            return loadRaw<std::uint16_t>(p, swap);
        case NumType::I32:
            return loadRaw<std::int32_t>(p, swap);
        case NumType::U32:
            return loadRaw<std::uint32_t>(p, swap);
        case NumType::I64:
            return double(loadRaw<std::int64_t>(p, swap));
        case NumType::U64:
            return double(loadRaw<std::uint64_t>(p, swap));
        case NumType::F32:
            return loadRaw<float>(p, swap);
        case NumType::F64:
            return loadRaw<double>(p, swap);
    }
    return 0;
}

/// double → float with IEEE overflow to ±inf; a plain cast of an out-of-range double is UB.
inline float toFloat(double v) {
    constexpr double kMax = std::numeric_limits<float>::max();
    constexpr float kInf = std::numeric_limits<float>::infinity();
    if (std::fabs(v) > kMax) return v > 0 ? kInf : -kInf;
    return static_cast<float>(v);
}

/// One value of type t at p as float.
inline float loadFloat(const char* p, NumType t, bool swap) {
    if (t == NumType::F32) return loadRaw<float>(p, swap);
    return toFloat(loadNumber(p, t, swap));
}

/// out = a * b; true when it overflowed.
inline bool mulOverflows(std::uint64_t a, std::uint64_t b, std::uint64_t& out) {
    return __builtin_mul_overflow(a, b, &out);
}
/// out = a + b; true when it overflowed.
inline bool addOverflows(std::uint64_t a, std::uint64_t b, std::uint64_t& out) {
    return __builtin_add_overflow(a, b, &out);
}

/// Strict unsigned integer token ("123"); false for signs, blanks, overflow or trailing text.
bool parseUnsigned(std::string_view token, std::uint64_t& value);

/// ASCII lower-case copy.
std::string lowerAscii(std::string_view s);

/// Splits on runs of spaces and tabs; returns the number of tokens, at most maxTokens are
/// stored (the count keeps going so that callers can report "has 9 values, expected 4").
std::size_t splitBlanks(std::string_view line, std::string_view* tokens, std::size_t maxTokens);

/// Counts one row of a file, read in order, as kept or dropped: dropped rows add to
/// droppedNonFinite, and from the first one on, the kept rows' numbers go to fileRows. kept is
/// the number of rows kept before this one.
void countRow(PointSet& set, std::size_t kept, bool keep);

/// Removes points with a non-finite coordinate together with their attribute values, and
/// counts them (countRow).
void dropNonFinite(PointSet& set);

/// Throws cs::InputError when the set holds no points (saying so when all were non-finite).
void requirePoints(const PointSet& set, const std::string& file);

/// Which columns of a text table are coordinates.
enum class TextLayout {
    Table,  ///< every numeric column is a coordinate (CSV/TSV/whitespace)
    Xyz,    ///< the first three numeric columns are x y z, the others scalar attributes
};

// The readers on a file already in memory; file names the file in errors and in source.
PointSet readTextPointsBytes(const std::string& file, std::string_view bytes, TextLayout layout);
PointSet readPlyBytes(const std::string& file, std::string_view bytes);
PointSet readPcdBytes(const std::string& file, std::string_view bytes);
/// A .npy header as written: any dtype text and shape (0-d too), for readers of their own.
struct NpyRawHeader {
    std::string descr;                 ///< "<f4", "|S3" ...
    bool fortran = false;              ///< fortran_order
    std::vector<std::uint64_t> shape;  ///< () for a 0-d array
    std::size_t headerOffset = 0;      ///< where the header text starts
    std::size_t dataOffset = 0;        ///< where the array data starts
};
/// The number type of a plain .npy dtype ("<f4", ">i8", "|u1" ...); false for others.
bool parseNpyDescr(const std::string& descr, NumType& type, bool& bigEndian);
/// Parses the magic, version and header; throws cs::InputError naming file and byte offset.
NpyRawHeader readNpyHeader(const std::string& file, std::string_view bytes);
NpyArray readNpyBytes(const std::string& file, std::string_view bytes);
PointSet readNpyPointsBytes(const std::string& file, std::string_view bytes);

}  // namespace cs::io::detail
