// SPDX-License-Identifier: MIT
// PLY (Stanford polygon file format): the vertex element as a point cloud.

#include <algorithm>
#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "compute/core/error.h"
#include "compute/io/point_common.h"
#include "compute/io/point_readers.h"
#include "compute/io/text_input.h"

namespace cs::io {
namespace detail {
namespace {

using Unit = InputError::Unit;

enum class PlyFormat { Ascii, BinaryLittle, BinaryBig };

struct PlyProperty {
    std::string name;
    NumType type = NumType::F32;  // item type for lists
    bool list = false;
    NumType countType = NumType::U8;
};

struct PlyElement {
    std::string name;
    std::uint64_t count = 0;
    std::size_t line = 0;
    std::vector<PlyProperty> properties;
};

bool parsePlyType(std::string_view s, NumType& t) {
    struct Entry {
        std::string_view name;
        NumType type;
    };
    static constexpr Entry kTypes[] = {
        {"char", NumType::I8},     {"int8", NumType::I8},     {"uchar", NumType::U8},
        {"uint8", NumType::U8},    {"short", NumType::I16},   {"int16", NumType::I16},
        {"ushort", NumType::U16},  {"uint16", NumType::U16},  {"int", NumType::I32},
        {"int32", NumType::I32},   {"uint", NumType::U32},    {"uint32", NumType::U32},
        {"float", NumType::F32},   {"float32", NumType::F32}, {"double", NumType::F64},
        {"float64", NumType::F64},
    };
    for (const auto& e : kTypes)
        if (e.name == s) {
            t = e.type;
            return true;
        }
    return false;
}

struct PlyHeader {
    PlyFormat format = PlyFormat::Ascii;
    std::vector<PlyElement> elements;
    std::size_t bodyOffset = 0;  // first byte after the end_header line
    std::size_t headerLines = 0;
};

PlyHeader parseHeader(const std::string& file, std::string_view bytes) {
    PlyHeader h;
    LineCursor cursor(bytes);
    std::string_view line;
    if (!cursor.next(line) || trim(line) != "ply")
        throw InputError(file, Unit::Line, 1, "is not a PLY file (the first line is not 'ply')");
    bool haveFormat = false;
    std::array<std::string_view, 8> t;
    while (true) {
        if (!cursor.next(line))
            throw InputError(file, Unit::Line, cursor.lineNumber(),
                             "ends inside the header (no 'end_header' line)");
        const std::size_t lineNo = cursor.lineNumber();
        const std::size_t count = splitBlanks(line, t.data(), t.size());
        if (count == 0) continue;
        const std::string_view key = t[0];
        if (key == "comment" || key == "obj_info") continue;
        if (key == "end_header") break;
        if (key == "format") {
            if (count != 3)
                throw InputError(file, Unit::Line, lineNo,
                                 "format line must be 'format <type> <version>'");
            if (t[1] == "ascii")
                h.format = PlyFormat::Ascii;
            else if (t[1] == "binary_little_endian")
                h.format = PlyFormat::BinaryLittle;
            else if (t[1] == "binary_big_endian")
                h.format = PlyFormat::BinaryBig;
            else
                throw InputError(file, Unit::Line, lineNo,
                                 "unsupported PLY format " + io::quoted(t[1]) +
                                     " (expected ascii, binary_little_endian or "
                                     "binary_big_endian)");
            if (t[2] != "1.0" && t[2] != "1")
                throw InputError(file, Unit::Line, lineNo,
                                 "unsupported PLY version " + io::quoted(t[2]) + " (expected 1.0)");
            haveFormat = true;
        } else if (key == "element") {
            PlyElement e;
            if (count != 3 || !parseUnsigned(t[2], e.count))
                throw InputError(file, Unit::Line, lineNo,
                                 "element line must be 'element <name> <count>'");
            e.name = std::string(t[1]);
            e.line = lineNo;
            h.elements.push_back(std::move(e));
        } else if (key == "property") {
            if (h.elements.empty())
                throw InputError(file, Unit::Line, lineNo, "property before any element");
            PlyProperty p;
            if (count == 5 && t[1] == "list") {
                p.list = true;
                if (!parsePlyType(t[2], p.countType) || !parsePlyType(t[3], p.type))
                    throw InputError(file, Unit::Line, lineNo,
                                     "unknown property type in " + io::quoted(trim(line)));
                if (!isInteger(p.countType))
                    throw InputError(file, Unit::Line, lineNo,
                                     "list count type must be an integer type");
                p.name = std::string(t[4]);
            } else if (count == 3) {
                if (!parsePlyType(t[1], p.type))
                    throw InputError(file, Unit::Line, lineNo,
                                     "unknown property type " + io::quoted(t[1]));
                p.name = std::string(t[2]);
            } else {
                throw InputError(file, Unit::Line, lineNo,
                                 "property line must be 'property <type> <name>' or "
                                 "'property list <count type> <item type> <name>'");
            }
            for (const auto& other : h.elements.back().properties)
                if (other.name == p.name)
                    throw InputError(file, Unit::Line, lineNo,
                                     "duplicate property " + io::quoted(p.name));
            h.elements.back().properties.push_back(std::move(p));
        } else {
            throw InputError(file, Unit::Line, lineNo, "unknown header keyword " + io::quoted(key));
        }
    }
    if (!haveFormat) throw InputError(file, Unit::Line, 2, "has no 'format' line");
    h.bodyOffset = cursor.offset();
    h.headerLines = cursor.lineNumber();
    return h;
}

// Where each vertex property goes.
struct Target {
    enum class Kind { Coord, Colour, Scalar };
    Kind kind = Kind::Scalar;
    std::size_t slot = 0;    // coordinate 0..2, colour channel 0..2, or scalar attribute index
    std::size_t offset = 0;  // binary: byte offset inside the vertex record
    NumType type = NumType::F32;
};

struct VertexLayout {
    std::vector<Target> targets;  // one per property
    std::size_t stride = 0;
    std::vector<std::string> scalarNames;
    bool colour = false;
    std::size_t colourAttribute = 0;  // position of "rgb" among the attributes
};

VertexLayout planVertex(const std::string& file, const PlyElement& vertex) {
    VertexLayout v;
    const auto find = [&](std::string_view name) -> const PlyProperty* {
        for (const auto& p : vertex.properties)
            if (p.name == name) return &p;
        return nullptr;
    };
    for (const auto& p : vertex.properties)
        if (p.list)
            throw InputError(file, Unit::Line, vertex.line,
                             "vertex property " + io::quoted(p.name) +
                                 " is a list; lists are only supported in other elements");
    for (const char* axis : {"x", "y", "z"})
        if (!find(axis))
            throw InputError(file, Unit::Line, vertex.line,
                             std::string("vertex element has no '") + axis + "' property");
    const PlyProperty* r = find("red");
    const PlyProperty* g = find("green");
    const PlyProperty* b = find("blue");
    // Only 8-bit channels are unambiguous 0..255 colours; others (float 0..1, 16-bit) stay
    // scalars so that no value is silently rescaled.
    v.colour =
        r && g && b && r->type == NumType::U8 && g->type == NumType::U8 && b->type == NumType::U8;
    std::size_t attributes = 0;
    for (const auto& p : vertex.properties) {
        Target t;
        t.type = p.type;
        t.offset = v.stride;
        v.stride += sizeOf(p.type);
        if (p.name == "x" || p.name == "y" || p.name == "z") {
            t.kind = Target::Kind::Coord;
            t.slot = std::size_t(p.name[0] - 'x');
        } else if (v.colour && (p.name == "red" || p.name == "green" || p.name == "blue")) {
            t.kind = Target::Kind::Colour;
            t.slot = p.name == "red" ? 0 : p.name == "green" ? 1 : 2;
            if (p.name == "red") v.colourAttribute = attributes++;
        } else {
            t.kind = Target::Kind::Scalar;
            t.slot = v.scalarNames.size();
            v.scalarNames.push_back(p.name);
            ++attributes;
        }
        v.targets.push_back(t);
    }
    return v;
}

// Fills the point set's vectors for n vertices; store() is called per property.
struct VertexSink {
    PointSet& set;
    std::vector<std::vector<float>> scalars;
    std::vector<std::uint32_t> colours;
    std::array<std::uint8_t, 3> rgb{};
    float xyz[3]{};

    VertexSink(PointSet& s, const VertexLayout& layout, std::size_t reserve) : set(s) {
        set.coords.reserve(reserve * 3);
        scalars.resize(layout.scalarNames.size());
        for (auto& v : scalars)
            v.reserve(reserve);
        if (layout.colour) colours.reserve(reserve);
    }
    void store(const Target& t, double value, float asFloat) {
        switch (t.kind) {
            case Target::Kind::Coord:
                xyz[t.slot] = asFloat;
                break;
            case Target::Kind::Colour:
                rgb[t.slot] = std::uint8_t(value >= 0 ? (value <= 255 ? value : 255) : 0);
                break;
            case Target::Kind::Scalar:
                scalars[t.slot].push_back(asFloat);
                break;
        }
    }
    void endVertex(bool colour) {
        set.coords.insert(set.coords.end(), xyz, xyz + 3);
        if (colour)
            colours.push_back(std::uint32_t(rgb[0]) << 16 | std::uint32_t(rgb[1]) << 8 | rgb[2]);
        ++set.n;
    }
    void finish(const VertexLayout& layout) {
        for (std::size_t s = 0; s < scalars.size(); ++s) {
            PointAttribute a;
            a.name = layout.scalarNames[s];
            a.scalars = std::move(scalars[s]);
            set.attributes.push_back(std::move(a));
        }
        if (layout.colour) {
            PointAttribute a;
            a.name = "rgb";
            a.kind = PointAttribute::Kind::Colour;
            a.colours = std::move(colours);
            set.attributes.insert(set.attributes.begin() + std::ptrdiff_t(layout.colourAttribute),
                                  std::move(a));
        }
    }
};

// Skips one binary element; every list count takes at least a byte, so the loop is bounded by
// the file size whatever the header's instance count says.
std::size_t skipBinaryElement(const std::string& file, std::string_view bytes, std::size_t pos,
                              const PlyElement& e, bool swap) {
    bool hasList = false;
    std::uint64_t fixed = 0;
    for (const auto& p : e.properties) {
        hasList = hasList || p.list;
        fixed += p.list ? 0 : sizeOf(p.type);
    }
    const std::uint64_t remaining = bytes.size() - pos;
    if (!hasList) {
        std::uint64_t need;
        if (mulOverflows(e.count, fixed, need) || need > remaining)
            throw InputError(file, Unit::Byte, pos,
                             "truncated: element " + io::quoted(e.name) + " needs " +
                                 std::to_string(e.count) + " x " + std::to_string(fixed) +
                                 " bytes, only " + std::to_string(remaining) + " remain");
        return pos + std::size_t(need);
    }
    for (std::uint64_t i = 0; i < e.count; ++i) {
        for (const auto& p : e.properties) {
            const std::size_t countSize = sizeOf(p.list ? p.countType : p.type);
            if (bytes.size() - pos < countSize)
                throw InputError(file, Unit::Byte, pos,
                                 "truncated: element " + io::quoted(e.name) + " " +
                                     std::to_string(i) + " of " + std::to_string(e.count) +
                                     " ends early");
            if (!p.list) {
                pos += countSize;
                continue;
            }
            const double items = loadNumber(bytes.data() + pos, p.countType, swap);
            if (items < 0)
                throw InputError(file, Unit::Byte, pos,
                                 "negative list length in element " + io::quoted(e.name));
            pos += countSize;
            const double need = items * double(sizeOf(p.type));
            if (need > double(bytes.size() - pos))
                throw InputError(file, Unit::Byte, pos,
                                 "truncated: list of " + std::to_string(std::uint64_t(items)) +
                                     " items in element " + io::quoted(e.name) +
                                     " runs past the end of the file");
            pos += std::size_t(need);
        }
    }
    return pos;
}

void readBinary(const std::string& file, std::string_view bytes, const PlyHeader& h,
                std::size_t vertexIndex, PointSet& set) {
    const bool swap = needsSwap(h.format == PlyFormat::BinaryBig);
    std::size_t pos = h.bodyOffset;
    for (std::size_t e = 0; e < vertexIndex; ++e)
        pos = skipBinaryElement(file, bytes, pos, h.elements[e], swap);

    const PlyElement& vertex = h.elements[vertexIndex];
    const VertexLayout layout = planVertex(file, vertex);
    const std::uint64_t remaining = bytes.size() - pos;
    std::uint64_t need;
    if (mulOverflows(vertex.count, layout.stride, need) || need > remaining) {
        const std::uint64_t complete = remaining / layout.stride;
        throw InputError(file, Unit::Byte, pos + complete * layout.stride,
                         "truncated vertex data: the header promises " +
                             std::to_string(vertex.count) + " vertices of " +
                             std::to_string(layout.stride) + " bytes, the file holds " +
                             std::to_string(complete));
    }
    const std::size_t n = std::size_t(vertex.count);
    VertexSink sink(set, layout, n);
    const char* p = bytes.data() + pos;
    for (std::size_t i = 0; i < n; ++i, p += layout.stride) {
        for (const Target& t : layout.targets) {
            const char* at = p + t.offset;
            if (t.kind == Target::Kind::Colour)
                sink.store(t, loadNumber(at, t.type, swap), 0);
            else
                sink.store(t, 0, loadFloat(at, t.type, swap));
        }
        sink.endVertex(layout.colour);
    }
    sink.finish(layout);
}

void readAscii(const std::string& file, std::string_view bytes, const PlyHeader& h,
               std::size_t vertexIndex, PointSet& set) {
    const std::string_view body = bytes.substr(h.bodyOffset);
    LineCursor cursor(body);
    std::string_view line;
    const auto nextLine = [&]() {
        while (cursor.next(line))
            if (!trim(line).empty()) return true;
        return false;
    };
    const auto lineNo = [&]() { return h.headerLines + cursor.lineNumber(); };
    // ASCII PLY writes one element instance per line, lists included, so skipping is by line.
    for (std::size_t e = 0; e < vertexIndex; ++e) {
        const PlyElement& el = h.elements[e];
        for (std::uint64_t i = 0; i < el.count; ++i)
            if (!nextLine())
                throw InputError(file, Unit::Line, lineNo(),
                                 "truncated: element " + io::quoted(el.name) + " has " +
                                     std::to_string(i) + " of its " + std::to_string(el.count) +
                                     " lines");
    }
    const PlyElement& vertex = h.elements[vertexIndex];
    const VertexLayout layout = planVertex(file, vertex);
    const std::size_t props = layout.targets.size();
    // Each vertex line needs at least two bytes per value, which bounds the reservation.
    const std::size_t reserve =
        std::size_t(std::min<std::uint64_t>(vertex.count, body.size() / (2 * props) + 1));
    VertexSink sink(set, layout, reserve);
    std::vector<std::string_view> tokens(props + 1);
    for (std::uint64_t i = 0; i < vertex.count; ++i) {
        if (!nextLine())
            throw InputError(file, Unit::Line, lineNo(),
                             "truncated: the header promises " + std::to_string(vertex.count) +
                                 " vertices, the file holds " + std::to_string(i));
        const std::size_t count = splitBlanks(line, tokens.data(), tokens.size());
        if (count != props)
            throw InputError(file, Unit::Line, lineNo(),
                             "vertex line has " + std::to_string(count) + " values, expected " +
                                 std::to_string(props));
        for (std::size_t k = 0; k < props; ++k) {
            const Target& t = layout.targets[k];
            double value = 0;
            float asFloat = 0;
            bool ok;
            if (t.type == NumType::F32) {
                ok = parseFloat(tokens[k], asFloat);
                value = asFloat;
            } else {
                ok = parseDouble(tokens[k], value);
                asFloat = toFloat(value);
            }
            if (!ok)
                throw InputError(file, Unit::Line, lineNo(),
                                 "property " + io::quoted(vertex.properties[k].name) + ": " +
                                     io::quoted(tokens[k]) + " is not a number");
            sink.store(t, value, asFloat);
        }
        sink.endVertex(layout.colour);
    }
    sink.finish(layout);
}

}  // namespace

PointSet readPlyBytes(const std::string& file, std::string_view bytes) {
    if (bytes.empty()) throw InputError(file, "is empty");
    const PlyHeader h = parseHeader(file, bytes);
    std::size_t vertexIndex = h.elements.size();
    for (std::size_t e = 0; e < h.elements.size() && vertexIndex == h.elements.size(); ++e)
        if (h.elements[e].name == "vertex") vertexIndex = e;
    if (vertexIndex == h.elements.size())
        throw InputError(file, Unit::Line, h.headerLines, "has no vertex element");

    PointSet set;
    set.source = file;
    set.dims = 3;
    set.dimNames = {"x", "y", "z"};
    if (h.format == PlyFormat::Ascii)
        readAscii(file, bytes, h, vertexIndex, set);
    else
        readBinary(file, bytes, h, vertexIndex, set);
    dropNonFinite(set);
    requirePoints(set, file);
    return set;
}

}  // namespace detail

PointSet readPly(const std::filesystem::path& file) {
    const std::string name = file.string();
    return detail::readPlyBytes(name, readFileBytes(file));
}

}  // namespace cs::io
