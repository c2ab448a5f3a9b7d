// SPDX-License-Identifier: MIT
#pragma once

// Point files written by tiny test-side encoders (PLY, PCD incl. binary_compressed via
// lzf_compress, NumPy, text), each with the PointSet a reader must return. Independent of the
// readers, so that a reader and its writer cannot share a misreading of a format.

#include <lzf.h>

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "compute/core/point_set.h"

namespace cs::test {

/// A file to write (name and bytes) and what reading it must give.
struct PointFile {
    std::string name;   ///< file name, its extension picks the reader
    std::string bytes;  ///< contents
    PointSet expected;  ///< source left empty: the test sets it to the written path
};

/// Appends numbers in a chosen byte order.
class ByteWriter {
public:
    explicit ByteWriter(bool bigEndian = false) : m_big(bigEndian) {}
    template <typename T>
    void put(T v) {
        char b[sizeof(T)];
        std::memcpy(b, &v, sizeof(T));
        if (m_big != (std::endian::native == std::endian::big))
            for (std::size_t i = 0; i < sizeof(T) / 2; ++i)
                std::swap(b[i], b[sizeof(T) - 1 - i]);
        m_out.append(b, sizeof(T));
    }
    void text(std::string_view s) { m_out += s; }
    std::string& bytes() { return m_out; }

private:
    bool m_big;
    std::string m_out;
};

/// Shortest text that reads back as exactly v (std::to_chars round-trips).
template <typename T>
std::string exact(T v) {
    char buf[64];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, end);
}

inline PointAttribute scalarAttribute(std::string name, std::vector<float> values) {
    PointAttribute a;
    a.name = std::move(name);
    a.scalars = std::move(values);
    return a;
}

inline PointAttribute colourAttribute(std::string name, std::vector<std::uint32_t> values) {
    PointAttribute a;
    a.name = std::move(name);
    a.kind = PointAttribute::Kind::Colour;
    a.colours = std::move(values);
    return a;
}

inline PointAttribute labelAttribute(std::string name, std::vector<std::int32_t> labels,
                                     std::vector<std::string> categories) {
    PointAttribute a;
    a.name = std::move(name);
    a.kind = PointAttribute::Kind::Label;
    a.labels = std::move(labels);
    a.categories = std::move(categories);
    return a;
}

/// Adds the next point of the reference data to an expected set (coordinates given), with its
/// file row, unless one coordinate is non-finite, in which case it counts as dropped.
/// (fileRows lists every kept row; compareSets expects it empty when none was dropped.)
inline bool keepPoint(PointSet& s, std::initializer_list<float> coords) {
    for (float c : coords)
        if (!std::isfinite(c)) {
            ++s.droppedNonFinite;
            return false;
        }
    s.fileRows.push_back(s.n + s.droppedNonFinite);
    s.coords.insert(s.coords.end(), coords.begin(), coords.end());
    ++s.n;
    return true;
}

constexpr std::size_t kPoints = 23;   ///< points in every generated cloud
constexpr std::size_t kNanPoint = 5;  ///< index of the point with a NaN x where NaN exists

inline float refX(std::size_t i) {
    return i == kNanPoint ? std::numeric_limits<float>::quiet_NaN() : float(i) * 0.25f - 2.0f;
}
inline float refY(std::size_t i) {
    return float(i * i) / 7.0f + 1e-3f;
}
inline float refZ(std::size_t i) {
    return -123.456f + float(i) * 1.0e-2f;
}

// ---- PLY ----------------------------------------------------------------------------------------

/// Binary PLY with every scalar type, two elements with list properties before the vertex
/// element and one after it. x is float (one NaN), y double, z int.
inline PointFile plyBinary(bool bigEndian) {
    PointFile f;
    f.name = bigEndian ? "gen_be.ply" : "gen_le.ply";
    ByteWriter w(bigEndian);
    w.text("ply\nformat ");
    w.text(bigEndian ? "binary_big_endian" : "binary_little_endian");
    w.text(
        " 1.0\ncomment written by point_test_files.h\nobj_info nothing\n"
        "element material 2\nproperty list uchar float ambient\nproperty int8 flag\n"
        "element face 3\nproperty list uint32 int vertex_indices\n");
    w.text("element vertex " + std::to_string(kPoints) + "\n");
    w.text(
        "property float x\nproperty double y\nproperty int z\n"
        "property uchar red\nproperty uint8 green\nproperty uchar blue\n"
        "property ushort intensity\nproperty char c8\nproperty short s16\nproperty uint u32\n"
        "property float32 f32\nproperty float64 f64\nproperty int16 i16\n"
        "property uint16 u16\nproperty int32 i32\nproperty uint32 u32b\n"
        "property int8 i8\n"
        "element edge 1\nproperty int vertex1\nproperty int vertex2\nend_header\n");
    // material: lists of 0 and 3 items
    w.put<std::uint8_t>(0);
    w.put<std::int8_t>(-1);
    w.put<std::uint8_t>(3);
    for (float v : {0.1f, 0.2f, 0.3f})
        w.put(v);
    w.put<std::int8_t>(7);
    // faces: lists of 3, 4 and 1 indices
    for (std::uint32_t len : {3u, 4u, 1u}) {
        w.put(len);
        for (std::uint32_t k = 0; k < len; ++k)
            w.put<std::int32_t>(std::int32_t(k));
    }
    PointSet& e = f.expected;
    e.dims = 3;
    e.dimNames = {"x", "y", "z"};
    std::vector<std::uint32_t> rgb;
    std::vector<std::vector<float>> sc(11);
    for (std::size_t i = 0; i < kPoints; ++i) {
        const float x = refX(i);
        const double y = double(i) / 3.0 - 1e-7;
        const std::int32_t z = std::int32_t(i) * 3 - 10;
        const std::uint8_t r = std::uint8_t(i * 10), g = std::uint8_t(255 - i),
                           b = std::uint8_t(i * 7);
        const std::uint16_t intensity = std::uint16_t(i * 1000);
        const std::int8_t c8 = std::int8_t(int(i) - 12);
        const std::int16_t s16 = std::int16_t(-1000 * int(i));
        const std::uint32_t u32 = 4000000000u - std::uint32_t(i);
        const float f32 = float(i) * -1.5e30f;
        const double f64 = 1e-300 * double(i);
        const std::int16_t i16 = std::int16_t(int(i) - 32768 + 5);
        const std::uint16_t u16 = std::uint16_t(65535 - i);
        const std::int32_t i32 = std::int32_t(-2147483647 + int(i));
        const std::uint32_t u32b = std::uint32_t(i) << 20;
        const std::int8_t i8 = std::int8_t(-128 + int(i));
        w.put(x);
        w.put(y);
        w.put(z);
        w.put(r);
        w.put(g);
        w.put(b);
        w.put(intensity);
        w.put(c8);
        w.put(s16);
        w.put(u32);
        w.put(f32);
        w.put(f64);
        w.put(i16);
        w.put(u16);
        w.put(i32);
        w.put(u32b);
        w.put(i8);
        if (!keepPoint(e, {x, float(y), float(z)})) continue;
        rgb.push_back(std::uint32_t(r) << 16 | std::uint32_t(g) << 8 | b);
        const float values[] = {float(intensity),   float(c8),  float(s16),
                                float(double(u32)), f32,        float(f64),
                                float(i16),         float(u16), float(double(i32)),
                                float(u32b),        float(i8)};
        for (std::size_t k = 0; k < 11; ++k)
            sc[k].push_back(values[k]);
    }
    for (std::int32_t v : {1, 2})
        w.put(v);  // the edge after the vertices
    e.attributes.push_back(colourAttribute("rgb", rgb));
    const char* names[] = {"intensity", "c8",  "s16", "u32",  "f32", "f64",
                           "i16",       "u16", "i32", "u32b", "i8"};
    for (std::size_t k = 0; k < 11; ++k)
        e.attributes.push_back(scalarAttribute(names[k], sc[k]));
    f.bytes = std::move(w.bytes());
    return f;
}

/// ASCII PLY, CRLF line ends, with list elements before the vertex element and a face list after.
inline PointFile plyAscii() {
    PointFile f;
    f.name = "gen_ascii.ply";
    std::string t =
        "ply\r\nformat ascii 1.0\r\ncomment hello\r\nelement material 2\r\n"
        "property list uchar float ambient\r\nelement vertex " +
        std::to_string(kPoints) +
        "\r\nproperty float x\r\nproperty float y\r\nproperty double z\r\n"
        "property float confidence\r\nelement face 1\r\n"
        "property list uchar int vertex_indices\r\nend_header\r\n"
        "3 0.5 0.25 1\r\n0\r\n";
    PointSet& e = f.expected;
    e.dims = 3;
    e.dimNames = {"x", "y", "z"};
    std::vector<float> confidence;
    for (std::size_t i = 0; i < kPoints; ++i) {
        const double z = double(refZ(i)) + 1e-9;
        const float c = float(i) / 9.0f;
        t += exact(refX(i)) + " " + exact(refY(i)) + "  " + exact(z) + "\t" + exact(c) + "\r\n";
        if (keepPoint(e, {refX(i), refY(i), float(z)})) confidence.push_back(c);
    }
    t += "3 0 1 2\r\n";
    e.attributes.push_back(scalarAttribute("confidence", confidence));
    f.bytes = std::move(t);
    return f;
}

// ---- PCD ----------------------------------------------------------------------------------------

enum class PcdKind { Ascii, Binary, Compressed, CompressedPadded };

/// PCD with x y z (float), rgb (float-packed 0xAARRGGBB), intensity (U2), a '_' padding field
/// of 3 bytes, normal (F4 x 3, skipped), label (I4) and d (F8).
inline PointFile pcd(PcdKind kind) {
    static const char* kNames[] = {"gen_ascii.pcd", "gen_binary.pcd", "gen_compressed.pcd",
                                   "gen_compressed_padded.pcd"};
    static const char* kData[] = {"ascii", "binary", "binary_compressed", "binary_compressed"};
    PointFile f;
    f.name = kNames[int(kind)];
    std::string head =
        "# .PCD v0.7 - Point Cloud Data file format\nVERSION 0.7\n"
        "FIELDS x y z rgb intensity _ normal label d\n"
        "SIZE 4 4 4 4 2 1 4 4 8\nTYPE F F F F U U F I F\n"
        "COUNT 1 1 1 1 1 3 3 1 1\nWIDTH " +
        std::to_string(kPoints) + "\nHEIGHT 1\nVIEWPOINT 0 0 0 1 0 0 0\nPOINTS " +
        std::to_string(kPoints) + "\nDATA " + kData[int(kind)] + "\n";
    PointSet& e = f.expected;
    e.dims = 3;
    e.dimNames = {"x", "y", "z"};
    std::vector<std::uint32_t> rgb;
    std::vector<float> intensity, label, d;
    // Columns of the reference data, reused by every encoding below.
    struct Row {
        float x, y, z;
        std::uint32_t rgba;
        std::uint16_t intensity;
        std::uint8_t pad[3];
        float normal[3];
        std::int32_t label;
        double d;
    };
    std::vector<Row> rows;
    for (std::size_t i = 0; i < kPoints; ++i) {
        Row r{refX(i),
              refY(i),
              refZ(i),
              0xFF000000u | std::uint32_t(i * 0x010203u),
              std::uint16_t(i * 2000),
              {0xAA, 0xBB, 0xCC},
              {0.f, 1.f, float(i)},
              std::int32_t(i % 4) - 1,
              double(i) * 1e10};
        rows.push_back(r);
        if (!keepPoint(e, {r.x, r.y, r.z})) continue;
        rgb.push_back(r.rgba & 0xFFFFFFu);
        intensity.push_back(float(r.intensity));
        label.push_back(float(r.label));
        d.push_back(float(r.d));
    }
    e.attributes = {colourAttribute("rgb", rgb), scalarAttribute("intensity", intensity),
                    scalarAttribute("label", label), scalarAttribute("d", d)};
    ByteWriter w;
    w.text(head);
    if (kind == PcdKind::Ascii) {
        for (const Row& r : rows) {
            // PCL writes a packed colour as its uint32 even when the field's TYPE is F.
            w.text(exact(r.x) + " " + exact(r.y) + " " + exact(r.z) + " " + std::to_string(r.rgba) +
                   " " + std::to_string(r.intensity) + " 170 187 204 " + exact(r.normal[0]) + " " +
                   exact(r.normal[1]) + " " + exact(r.normal[2]) + " " + std::to_string(r.label) +
                   " " + exact(r.d) + "\n");
        }
    } else if (kind == PcdKind::Binary) {
        for (const Row& r : rows) {
            w.put(r.x);
            w.put(r.y);
            w.put(r.z);
            w.put(r.rgba);
            w.put(r.intensity);
            for (auto p : r.pad)
                w.put(p);
            for (float v : r.normal)
                w.put(v);
            w.put(r.label);
            w.put(r.d);
        }
    } else {
        // Structure of arrays, field after field; PCL omits the '_' padding.
        ByteWriter soa;
        for (const Row& r : rows)
            soa.put(r.x);
        for (const Row& r : rows)
            soa.put(r.y);
        for (const Row& r : rows)
            soa.put(r.z);
        for (const Row& r : rows)
            soa.put(r.rgba);
        for (const Row& r : rows)
            soa.put(r.intensity);
        if (kind == PcdKind::CompressedPadded)
            for (const Row& r : rows)
                for (auto p : r.pad)
                    soa.put(p);
        for (const Row& r : rows)
            for (float v : r.normal)
                soa.put(v);
        for (const Row& r : rows)
            soa.put(r.label);
        for (const Row& r : rows)
            soa.put(r.d);
        const std::string& raw = soa.bytes();
        std::string packed(raw.size() + 64, '\0');
        const unsigned size =
            lzf_compress(raw.data(), unsigned(raw.size()), packed.data(), unsigned(packed.size()));
        packed.resize(size);
        w.put<std::uint32_t>(size);
        w.put<std::uint32_t>(std::uint32_t(raw.size()));
        w.text(packed);
    }
    f.bytes = std::move(w.bytes());
    return f;
}

// ---- NumPy --------------------------------------------------------------------------------------

/// A .npy file: header dict text as given (padded here), data from a callback per element.
inline std::string npyBytes(int major, const std::string& dict,
                            const std::function<void(ByteWriter&)>& body) {
    std::string header = dict;
    const std::size_t preamble = major == 1 ? 10 : 12;
    while ((preamble + header.size() + 1) % 64 != 0)
        header += ' ';
    header += '\n';
    ByteWriter w;
    w.text("\x93NUMPY");
    w.put<std::uint8_t>(std::uint8_t(major));
    w.put<std::uint8_t>(0);
    if (major == 1)
        w.put<std::uint16_t>(std::uint16_t(header.size()));
    else
        w.put<std::uint32_t>(std::uint32_t(header.size()));
    w.text(header);
    body(w);
    return std::move(w.bytes());
}

enum class NpyKind { F4, F8, F4Fortran, F8BigFortran, F4Big, OneD, I4, I8Big, V2, V3 };

/// n × 3 (n × 2 for integer kinds, n for OneD) arrays; floats carry the NaN point.
inline PointFile npy(NpyKind kind) {
    static const char* kNames[] = {
        "gen_f4.npy",    "gen_f8.npy", "gen_f4_fortran.npy", "gen_f8_be_fortran.npy",
        "gen_f4_be.npy", "gen_1d.npy", "gen_i4.npy",         "gen_i8_be.npy",
        "gen_v2.npy",    "gen_v3.npy"};
    PointFile f;
    f.name = kNames[int(kind)];
    const std::size_t n = kPoints;
    const bool integer = kind == NpyKind::I4 || kind == NpyKind::I8Big;
    const std::size_t d = kind == NpyKind::OneD ? 1 : integer ? 2 : 3;
    const auto value = [&](std::size_t i, std::size_t j) -> double {
        if (integer) return double(std::int64_t(i) * (j ? -100000 : 3) - 7);
        if (kind == NpyKind::F8 || kind == NpyKind::F8BigFortran) {
            if (j == 0 && i == kNanPoint) return std::numeric_limits<double>::quiet_NaN();
            return double(i) / 7.0 + double(j) * 1e5;
        }
        return j == 0 ? refX(i) : j == 1 ? refY(i) : refZ(i);
    };
    std::string descr = "<f4";
    if (kind == NpyKind::F8) descr = "<f8";
    if (kind == NpyKind::F8BigFortran) descr = ">f8";
    if (kind == NpyKind::F4Big) descr = ">f4";
    if (kind == NpyKind::I4) descr = "<i4";
    if (kind == NpyKind::I8Big) descr = ">i8";
    const bool fortran = kind == NpyKind::F4Fortran || kind == NpyKind::F8BigFortran;
    const std::string shape = d == 1 && kind == NpyKind::OneD
                                  ? "(" + std::to_string(n) + ",)"
                                  : "(" + std::to_string(n) + ", " + std::to_string(d) + ")";
    const std::string dict = "{'descr': '" + descr +
                             "', 'fortran_order': " + (fortran ? "True" : "False") +
                             ", 'shape': " + shape + ", }";
    const int major = kind == NpyKind::V2 ? 2 : kind == NpyKind::V3 ? 3 : 1;
    const bool big = descr[0] == '>';
    f.bytes = npyBytes(major, dict, [&](ByteWriter& w) {
        ByteWriter data(big);
        const auto put = [&](std::size_t i, std::size_t j) {
            const double v = value(i, j);
            if (descr[1] == 'f' && descr[2] == '4') data.put(float(v));
            if (descr[1] == 'f' && descr[2] == '8') data.put(v);
            if (descr[1] == 'i' && descr[2] == '4') data.put(std::int32_t(v));
            if (descr[1] == 'i' && descr[2] == '8') data.put(std::int64_t(v));
        };
        if (fortran) {
            for (std::size_t j = 0; j < d; ++j)
                for (std::size_t i = 0; i < n; ++i)
                    put(i, j);
        } else {
            for (std::size_t i = 0; i < n; ++i)
                for (std::size_t j = 0; j < d; ++j)
                    put(i, j);
        }
        w.text(data.bytes());
    });
    PointSet& e = f.expected;
    e.dims = d;
    static const char* kAxes[] = {"x", "y", "z"};
    for (std::size_t j = 0; j < d; ++j)
        e.dimNames.push_back(kAxes[j]);
    for (std::size_t i = 0; i < n; ++i) {
        float row[3];
        bool finite = true;
        for (std::size_t j = 0; j < d; ++j) {
            row[j] = float(value(i, j));
            finite = finite && std::isfinite(row[j]);
        }
        if (!finite) {
            ++e.droppedNonFinite;
            continue;
        }
        e.fileRows.push_back(i);
        e.coords.insert(e.coords.end(), row, row + d);
        ++e.n;
    }
    return f;
}

// ---- text ---------------------------------------------------------------------------------------

/// CSV with a UTF-8 BOM, CRLF line ends, a quoted header, comments, and a class column of names.
inline PointFile csvWithLabels() {
    PointFile f;
    f.name = "gen_labels.csv";
    std::string t = "\xEF\xBB\xBF# exported\r\n\"px\",\"py\",\"Class\"\r\n";
    PointSet& e = f.expected;
    e.dims = 2;
    e.dimNames = {"px", "py"};
    static const char* kClasses[] = {"beta", "alpha", "gamma"};
    std::vector<std::int32_t> labels;
    for (std::size_t i = 0; i < kPoints; ++i) {
        t += exact(refX(i)) + "," + exact(refY(i)) + "," + kClasses[(i * 2) % 3] + "\r\n";
        if (i % 7 == 3) t += "# a comment between rows\r\n\r\n";
        // categories in order of first appearance: beta (k 0), gamma (k 2), alpha (k 1)
        const std::size_t k = (i * 2) % 3;
        if (keepPoint(e, {refX(i), refY(i)})) labels.push_back(k == 0 ? 0 : k == 2 ? 1 : 2);
    }
    e.attributes.push_back(labelAttribute("Class", labels, {"beta", "gamma", "alpha"}));
    f.bytes = std::move(t);
    return f;
}

/// Tab-separated, no header, four dimensions, numeric label-free.
inline PointFile tsvNoHeader() {
    PointFile f;
    f.name = "gen_noheader.tsv";
    std::string t;
    PointSet& e = f.expected;
    e.dims = 4;
    e.dimNames = {"c0", "c1", "c2", "c3"};
    for (std::size_t i = 0; i < kPoints; ++i) {
        const float w = float(i) * 1e-20f;
        t +=
            exact(refX(i)) + "\t" + exact(refY(i)) + "\t" + exact(refZ(i)) + "\t" + exact(w) + "\n";
        keepPoint(e, {refX(i), refY(i), refZ(i), w});
    }
    f.bytes = std::move(t);
    return f;
}

/// .xyz: whitespace, x y z plus two more columns (scalar attributes), numeric `label` header.
inline PointFile xyzWithExtras() {
    PointFile f;
    f.name = "gen_extras.xyz";
    std::string t = "# x y z then two scalars\nx y z label nx ny\n";
    PointSet& e = f.expected;
    e.dims = 3;
    e.dimNames = {"x", "y", "z"};
    std::vector<float> nx, ny;
    std::vector<std::int32_t> labels;
    static const char* kLabels[] = {"10", "2", "-1", "2.0"};
    for (std::size_t i = 0; i < kPoints; ++i) {
        t += "  " + exact(refX(i)) + "   " + exact(refY(i)) + " " + exact(refZ(i)) + " " +
             kLabels[i % 4] + " " + exact(float(i)) + " " + exact(-float(i)) + "   \n";
        if (!keepPoint(e, {refX(i), refY(i), refZ(i)})) continue;
        nx.push_back(float(i));
        ny.push_back(-float(i));
        // categories sorted numerically: -1, 2 (also "2.0"), 10
        static const std::int32_t kIndex[] = {2, 1, 0, 1};
        labels.push_back(kIndex[i % 4]);
    }
    e.attributes = {labelAttribute("label", labels, {"-1", "2", "10"}), scalarAttribute("nx", nx),
                    scalarAttribute("ny", ny)};
    f.bytes = std::move(t);
    return f;
}

/// Every generated file.
inline std::vector<PointFile> generatedPointFiles() {
    std::vector<PointFile> files = {plyBinary(false), plyBinary(true), plyAscii()};
    for (PcdKind k :
         {PcdKind::Ascii, PcdKind::Binary, PcdKind::Compressed, PcdKind::CompressedPadded})
        files.push_back(pcd(k));
    for (int k = 0; k <= int(NpyKind::V3); ++k)
        files.push_back(npy(NpyKind(k)));
    files.push_back(csvWithLabels());
    files.push_back(tsvNoHeader());
    files.push_back(xyzWithExtras());
    return files;
}

}  // namespace cs::test
