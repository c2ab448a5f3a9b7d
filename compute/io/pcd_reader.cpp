// SPDX-License-Identifier: MIT
// PCD (Point Cloud Library) v0.5-0.7: ascii, binary and binary_compressed (LZF) bodies.

#include <lzf.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <optional>
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

// LZF turns 3 input bytes into at most 264 output bytes (a back reference of maximal length),
// so no honest stream expands more than 88 times; anything claiming more is corrupt, and is
// rejected before the output buffer is allocated.
constexpr std::uint64_t kMaxLzfExpansion = 88;

enum class PcdData { Ascii, Binary, Compressed };

struct PcdField {
    std::string name;
    std::size_t size = 4;
    char type = 'F';
    std::uint64_t count = 1;
    NumType num = NumType::F32;
    std::size_t offset = 0;      // byte offset inside an (array-of-structs) point record
    std::size_t tokenIndex = 0;  // ascii: index of its first value on a line
};

struct PcdHeader {
    std::vector<PcdField> fields;
    std::uint64_t points = 0;
    std::size_t pointSize = 0;  // bytes per point
    std::size_t valuesPerPoint = 0;
    PcdData data = PcdData::Ascii;
    std::size_t bodyOffset = 0;
    std::size_t headerLines = 0;
    std::size_t fieldsLine = 0;
    std::optional<SensorPose> viewpoint;
};

// A unit quaternion may be written with a few digits ("0.7071 0.7071 0 0"): lengths this close
// to 1 are normalised, anything further is an error rather than a silently scaled rotation.
constexpr double kQuaternionTolerance = 1e-3;

SensorPose parseViewpoint(const std::string& file, std::size_t lineNo,
                          const std::vector<std::string_view>& t) {
    const std::string form = "VIEWPOINT must be followed by 7 numbers: tx ty tz qw qx qy qz";
    if (t.size() != 8)
        throw InputError(file, InputError::Unit::Line, lineNo,
                         form + " (found " + std::to_string(t.size() - 1) + ")");
    double v[7];
    for (std::size_t i = 0; i < 7; ++i)
        if (!parseDouble(t[i + 1], v[i]) || !std::isfinite(v[i]))
            throw InputError(file, InputError::Unit::Line, lineNo,
                             form + "; " + io::quoted(t[i + 1]) + " is not a finite number");
    const double norm = std::sqrt(v[3] * v[3] + v[4] * v[4] + v[5] * v[5] + v[6] * v[6]);
    if (!(std::abs(norm - 1.0) <= kQuaternionTolerance)) {
        char length[32];
        std::snprintf(length, sizeof length, "%.6g", norm);
        throw InputError(file, InputError::Unit::Line, lineNo,
                         "VIEWPOINT's orientation quaternion (qw qx qy qz) has length " +
                             std::string(length) + "; a rotation needs a unit quaternion");
    }
    SensorPose pose;
    pose.origin = {v[0], v[1], v[2]};
    pose.orientation = {v[3] / norm, v[4] / norm, v[5] / norm, v[6] / norm};
    return pose;
}

bool pcdType(char type, std::size_t size, NumType& t) {
    if (type == 'F' && size == 4)
        t = NumType::F32;
    else if (type == 'F' && size == 8)
        t = NumType::F64;
    else if (type == 'U' && size == 1)
        t = NumType::U8;
    else if (type == 'U' && size == 2)
        t = NumType::U16;
    else if (type == 'U' && size == 4)
        t = NumType::U32;
    else if (type == 'U' && size == 8)
        t = NumType::U64;
    else if (type == 'I' && size == 1)
        t = NumType::I8;
    else if (type == 'I' && size == 2)
        t = NumType::I16;
    else if (type == 'I' && size == 4)
        t = NumType::I32;
    else if (type == 'I' && size == 8)
        t = NumType::I64;
    else
        return false;
    return true;
}

PcdHeader parseHeader(const std::string& file, std::string_view bytes) {
    PcdHeader h;
    LineCursor cursor(bytes);
    std::string_view line;
    std::vector<std::string_view> t;
    std::vector<std::string_view> names, sizes, types, counts;
    std::size_t sizeLine = 0, typeLine = 0, countLine = 0;
    std::uint64_t width = 0, height = 1;
    bool haveWidth = false, havePoints = false, haveData = false;
    std::size_t widthLine = 0, pointsLine = 0;
    // Splits into t; a line with more tokens than a sane header would have still gets counted.
    const auto tokens = [&](std::string_view l) {
        t.assign(16, {});
        std::size_t n = splitBlanks(l, t.data(), t.size());
        if (n > t.size()) {
            t.assign(n, {});
            n = splitBlanks(l, t.data(), t.size());
        }
        t.resize(n);
    };
    while (!haveData) {
        if (!cursor.next(line))
            throw InputError(file, Unit::Line, cursor.lineNumber(),
                             "ends inside the header (no DATA line)");
        const std::size_t lineNo = cursor.lineNumber();
        const std::string_view trimmed = trim(line);
        if (trimmed.empty() || trimmed.front() == '#') continue;
        // A FIELDS line lists one name per field; the header can hold as many as the file has
        // bytes, so no fixed limit here.
        tokens(trimmed);
        const std::string key = lowerAscii(t[0]);
        const auto number = [&](std::size_t i, std::uint64_t& v) {
            if (t.size() != 2 || !parseUnsigned(t[i], v))
                throw InputError(file, Unit::Line, lineNo,
                                 key + " must be followed by one non-negative integer");
        };
        if (key == "version") {
            static constexpr std::string_view kVersions[] = {".5", "0.5", ".6", "0.6", ".7", "0.7"};
            if (t.size() != 2 ||
                std::find(std::begin(kVersions), std::end(kVersions), t[1]) == std::end(kVersions))
                throw InputError(file, Unit::Line, lineNo,
                                 "unsupported PCD version" +
                                     (t.size() > 1 ? " " + io::quoted(t[1]) : std::string()) +
                                     " (expected 0.5, 0.6 or 0.7)");
        } else if (key == "fields" || key == "columns") {
            names.assign(t.begin() + 1, t.end());
            h.fieldsLine = lineNo;
        } else if (key == "size") {
            sizes.assign(t.begin() + 1, t.end());
            sizeLine = lineNo;
        } else if (key == "type") {
            types.assign(t.begin() + 1, t.end());
            typeLine = lineNo;
        } else if (key == "count") {
            counts.assign(t.begin() + 1, t.end());
            countLine = lineNo;
        } else if (key == "width") {
            number(1, width);
            haveWidth = true;
            widthLine = lineNo;
        } else if (key == "height") {
            number(1, height);
        } else if (key == "viewpoint") {
            // Kept beside the points, which stay in the sensor frame as in the file (PCL's own
            // semantics: its viewer draws them through this pose and looks from the sensor).
            h.viewpoint = parseViewpoint(file, lineNo, t);
        } else if (key == "points") {
            number(1, h.points);
            havePoints = true;
            pointsLine = lineNo;
        } else if (key == "data") {
            if (t.size() != 2)
                throw InputError(file, Unit::Line, lineNo, "DATA must be followed by one type");
            if (t[1] == "ascii")
                h.data = PcdData::Ascii;
            else if (t[1] == "binary")
                h.data = PcdData::Binary;
            else if (t[1] == "binary_compressed")
                h.data = PcdData::Compressed;
            else
                throw InputError(file, Unit::Line, lineNo,
                                 "unsupported DATA type " + io::quoted(t[1]) +
                                     " (expected ascii, binary or binary_compressed)");
            haveData = true;
        } else {
            throw InputError(file, Unit::Line, lineNo,
                             "unknown header keyword " + io::quoted(t[0]));
        }
    }
    h.bodyOffset = cursor.offset();
    h.headerLines = cursor.lineNumber();
    const std::size_t dataLine = cursor.lineNumber();

    if (names.empty()) throw InputError(file, Unit::Line, dataLine, "has no FIELDS line");
    if (sizes.size() != names.size())
        throw InputError(file, Unit::Line, sizeLine ? sizeLine : dataLine,
                         "SIZE lists " + std::to_string(sizes.size()) + " values for " +
                             std::to_string(names.size()) + " fields");
    if (types.size() != names.size())
        throw InputError(file, Unit::Line, typeLine ? typeLine : dataLine,
                         "TYPE lists " + std::to_string(types.size()) + " values for " +
                             std::to_string(names.size()) + " fields");
    if (countLine && counts.size() != names.size())
        throw InputError(file, Unit::Line, countLine,
                         "COUNT lists " + std::to_string(counts.size()) + " values for " +
                             std::to_string(names.size()) + " fields");

    std::uint64_t pointSize = 0, values = 0;
    for (std::size_t f = 0; f < names.size(); ++f) {
        PcdField field;
        field.name = std::string(names[f]);
        std::uint64_t size = 0;
        if (!parseUnsigned(sizes[f], size) || size > 8)
            throw InputError(
                file, Unit::Line, sizeLine,
                "field " + io::quoted(field.name) + " has an invalid SIZE " + io::quoted(sizes[f]));
        field.size = std::size_t(size);
        if (types[f].size() != 1 || !pcdType(types[f][0], field.size, field.num))
            throw InputError(file, Unit::Line, typeLine,
                             "field " + io::quoted(field.name) + " has an unsupported TYPE " +
                                 io::quoted(types[f]) + " with SIZE " + std::to_string(size) +
                                 " (expected F 4/8, U 1/2/4/8 or I 1/2/4/8)");
        field.type = types[f][0];
        if (countLine && (!parseUnsigned(counts[f], field.count) || field.count == 0))
            throw InputError(file, Unit::Line, countLine,
                             "field " + io::quoted(field.name) + " has an invalid COUNT " +
                                 io::quoted(counts[f]));
        std::uint64_t bytes;
        if (mulOverflows(field.count, field.size, bytes) ||
            addOverflows(pointSize, bytes, pointSize) || addOverflows(values, field.count, values))
            throw InputError(file, Unit::Line, countLine, "COUNT values are too large");
        field.offset = std::size_t(pointSize - bytes);
        field.tokenIndex = std::size_t(values - field.count);
        h.fields.push_back(std::move(field));
    }
    h.pointSize = std::size_t(pointSize);
    h.valuesPerPoint = std::size_t(values);

    // As PCL: a missing or zero HEIGHT means unorganised (1), and old files may give WIDTH 0.
    if (height == 0) height = 1;
    haveWidth = haveWidth && width > 0;
    std::uint64_t organised = 0;
    if (haveWidth && mulOverflows(width, height, organised))
        throw InputError(file, Unit::Line, widthLine, "WIDTH x HEIGHT overflows");
    if (!havePoints) {
        if (!haveWidth)
            throw InputError(file, Unit::Line, dataLine, "has neither POINTS nor WIDTH");
        h.points = organised;
    } else if (haveWidth && organised != h.points) {
        throw InputError(file, Unit::Line, pointsLine,
                         "POINTS " + std::to_string(h.points) + " differs from WIDTH x HEIGHT " +
                             std::to_string(organised));
    }
    return h;
}

// Where each field goes in the point set.
struct FieldPlan {
    enum class Kind { Skip, Coord, Colour, Scalar };
    Kind kind = Kind::Skip;
    std::size_t slot = 0;  // coordinate 0..2, or index into scalars
};

struct Plan {
    std::vector<FieldPlan> fields;  // one per PCD field
    std::size_t colourField = SIZE_MAX;
    std::vector<std::size_t> order;  // attribute order: field indices of colour/scalars
};

Plan planFields(const std::string& file, const PcdHeader& h, PointSet& set) {
    Plan plan;
    plan.fields.resize(h.fields.size());
    std::array<bool, 3> haveAxis{};
    std::size_t scalars = 0;
    for (std::size_t f = 0; f < h.fields.size(); ++f) {
        const PcdField& field = h.fields[f];
        FieldPlan& p = plan.fields[f];
        const std::string& name = field.name;
        const auto duplicate = [&] {
            for (std::size_t g = 0; g < f; ++g)
                if (h.fields[g].name == name) return true;
            return false;
        };
        if (name == "x" || name == "y" || name == "z") {
            const std::size_t axis = std::size_t(name[0] - 'x');
            if (field.count != 1)
                throw InputError(file, Unit::Line, h.fieldsLine,
                                 "coordinate field " + io::quoted(name) + " has COUNT " +
                                     std::to_string(field.count) + ", expected 1");
            if (haveAxis[axis])
                throw InputError(file, Unit::Line, h.fieldsLine,
                                 "duplicate field " + io::quoted(name));
            haveAxis[axis] = true;
            p.kind = FieldPlan::Kind::Coord;
            p.slot = axis;
        } else if (name == "_" || field.count != 1) {
            // Padding and multi-valued fields (histograms, descriptors) are not point quantities.
            p.kind = FieldPlan::Kind::Skip;
        } else if ((name == "rgb" || name == "rgba") && plan.colourField == SIZE_MAX) {
            if (field.size != 4)
                throw InputError(file, Unit::Line, h.fieldsLine,
                                 "colour field " + io::quoted(name) + " has SIZE " +
                                     std::to_string(field.size) + ", expected 4 (packed)");
            p.kind = FieldPlan::Kind::Colour;
            plan.colourField = f;
            plan.order.push_back(f);
        } else {
            if (duplicate())
                throw InputError(file, Unit::Line, h.fieldsLine,
                                 "duplicate field " + io::quoted(name));
            p.kind = FieldPlan::Kind::Scalar;
            p.slot = scalars++;
            plan.order.push_back(f);
        }
    }
    for (std::size_t axis = 0; axis < 3; ++axis)
        if (!haveAxis[axis])
            throw InputError(file, Unit::Line, h.fieldsLine,
                             std::string("has no '") + char('x' + axis) + "' field");
    for (std::size_t f : plan.order) {
        PointAttribute a;
        a.name = h.fields[f].name;
        a.kind = plan.fields[f].kind == FieldPlan::Kind::Colour ? PointAttribute::Kind::Colour
                                                                : PointAttribute::Kind::Scalar;
        set.attributes.push_back(std::move(a));
    }
    return plan;
}

// A packed colour: PCL stores 0x00RRGGBB (or 0xAARRGGBB) in a float's or an uint32's bits.
std::uint32_t packedColour(std::uint32_t bits) {
    return bits & 0xFFFFFFu;
}

// Reads n points whose field f value of point i lives at base + fieldStart(f) + i * step(f);
// this covers array-of-structs (binary) and structure-of-arrays (decompressed) alike.
template <typename Address>
void readRecords(const PcdHeader& h, const Plan& plan, std::size_t n, PointSet& set,
                 Address address) {
    set.coords.resize(n * 3);
    for (auto& a : set.attributes) {
        if (a.kind == PointAttribute::Kind::Colour)
            a.colours.resize(n);
        else
            a.scalars.resize(n);
    }
    std::size_t attribute = 0;
    std::vector<PointAttribute*> attributeOf(h.fields.size(), nullptr);
    for (std::size_t f : plan.order)
        attributeOf[f] = &set.attributes[attribute++];
    const bool swap = needsSwap(false);  // PCD binary data is little-endian
    for (std::size_t f = 0; f < h.fields.size(); ++f) {
        const FieldPlan& p = plan.fields[f];
        const NumType type = h.fields[f].num;
        switch (p.kind) {
            case FieldPlan::Kind::Skip:
                break;
            case FieldPlan::Kind::Coord:
                for (std::size_t i = 0; i < n; ++i)
                    set.coords[i * 3 + p.slot] = loadFloat(address(f, i), type, swap);
                break;
            case FieldPlan::Kind::Colour: {
                auto& colours = attributeOf[f]->colours;
                for (std::size_t i = 0; i < n; ++i)
                    colours[i] = packedColour(loadRaw<std::uint32_t>(address(f, i), swap));
                break;
            }
            case FieldPlan::Kind::Scalar: {
                auto& scalars = attributeOf[f]->scalars;
                for (std::size_t i = 0; i < n; ++i)
                    scalars[i] = loadFloat(address(f, i), type, swap);
                break;
            }
        }
    }
    set.n = n;
}

void checkBodySize(const std::string& file, const PcdHeader& h, std::uint64_t available,
                   std::size_t at, const char* what) {
    std::uint64_t need;
    if (mulOverflows(h.points, h.pointSize, need) || need > available) {
        const std::uint64_t complete = h.pointSize ? available / h.pointSize : 0;
        throw InputError(file, Unit::Byte, at + (h.pointSize ? complete * h.pointSize : 0),
                         std::string("truncated ") + what + ": the header promises " +
                             std::to_string(h.points) + " points of " +
                             std::to_string(h.pointSize) + " bytes, the data holds " +
                             std::to_string(complete));
    }
}

void readBinary(const std::string& file, std::string_view bytes, const PcdHeader& h,
                const Plan& plan, PointSet& set) {
    const std::size_t at = h.bodyOffset;
    checkBodySize(file, h, bytes.size() - at, at, "binary data");
    const char* base = bytes.data() + at;
    readRecords(h, plan, std::size_t(h.points), set, [&](std::size_t f, std::size_t i) {
        return base + i * h.pointSize + h.fields[f].offset;
    });
}

void readCompressed(const std::string& file, std::string_view bytes, const PcdHeader& h,
                    const Plan& plan, PointSet& set) {
    std::size_t at = h.bodyOffset;
    if (bytes.size() - at < 8)
        throw InputError(file, Unit::Byte, at,
                         "truncated: binary_compressed data needs two 32-bit sizes");
    const std::uint32_t compressed = loadRaw<std::uint32_t>(bytes.data() + at, needsSwap(false));
    const std::uint32_t uncompressed =
        loadRaw<std::uint32_t>(bytes.data() + at + 4, needsSwap(false));
    // PCL leaves '_' padding fields out of the compressed arrays; accept files with and without.
    std::uint64_t unpadded = 0;
    for (const PcdField& f : h.fields)
        if (f.name != "_") unpadded += f.size * f.count;  // <= pointSize, cannot overflow
    std::uint64_t expected = 0, expectedPadded = 0;
    const bool overflow = mulOverflows(h.points, h.pointSize, expectedPadded);
    mulOverflows(h.points, unpadded, expected);
    if (overflow || (expected != uncompressed && expectedPadded != uncompressed))
        throw InputError(file, Unit::Byte, at + 4,
                         "uncompressed size " + std::to_string(uncompressed) +
                             " does not match POINTS x point size = " + std::to_string(h.points) +
                             " x " + std::to_string(unpadded));
    const bool padded = expected != uncompressed;
    at += 8;
    if (compressed > bytes.size() - at)
        throw InputError(file, Unit::Byte, at - 8,
                         "truncated: compressed size " + std::to_string(compressed) + " but only " +
                             std::to_string(bytes.size() - at) + " bytes follow");
    if (std::uint64_t(uncompressed) > std::uint64_t(compressed) * kMaxLzfExpansion)
        throw InputError(file, Unit::Byte, at - 4,
                         "uncompressed size " + std::to_string(uncompressed) +
                             " is impossible for " + std::to_string(compressed) +
                             " bytes of LZF data");
    if (uncompressed == 0) return;
    std::vector<char> buffer(uncompressed);
    const unsigned int produced =
        lzf_decompress(bytes.data() + at, compressed, buffer.data(), uncompressed);
    if (produced != uncompressed)
        throw InputError(file, Unit::Byte, at,
                         produced == 0 ? "corrupt LZF data (decompression failed)"
                                       : "LZF data decompresses to " + std::to_string(produced) +
                                             " bytes, expected " + std::to_string(uncompressed));
    // Structure of arrays: each field's values for all points, one field after the other.
    const std::size_t n = std::size_t(h.points);
    std::vector<std::size_t> blockStart(h.fields.size(), 0);
    std::size_t perPoint = 0;
    for (std::size_t f = 0; f < h.fields.size(); ++f) {
        if (!padded && h.fields[f].name == "_") continue;
        blockStart[f] = perPoint;
        perPoint += h.fields[f].size * std::size_t(h.fields[f].count);
    }
    const char* base = buffer.data();
    readRecords(h, plan, n, set, [&](std::size_t f, std::size_t i) {
        const PcdField& field = h.fields[f];
        return base + blockStart[f] * n + i * field.size * field.count;
    });
}

// PCL writes packed colours in ascii as the uint32 integer even for TYPE F; older writers
// printed the float whose bits hold the colour. An integer token can only be the former, since
// a packed colour read as a float is never a whole number below 2^32 (its exponent is 0 or
// huge).
bool parseColourToken(std::string_view token, std::uint32_t& bits) {
    token = trim(token);
    std::uint64_t u;
    if (parseUnsigned(token, u)) {
        if (u > 0xFFFFFFFFu) return false;
        bits = std::uint32_t(u);
        return true;
    }
    std::int64_t s;
    const char* last = token.data() + token.size();
    if (auto [p, ec] = std::from_chars(token.data(), last, s); ec == std::errc() && p == last) {
        if (s < INT32_MIN) return false;
        bits = std::uint32_t(std::int32_t(s));
        return true;
    }
    float f;
    if (!parseFloat(token, f)) return false;
    bits = std::bit_cast<std::uint32_t>(f);
    return true;
}

void readAscii(const std::string& file, std::string_view bytes, const PcdHeader& h,
               const Plan& plan, PointSet& set) {
    const std::string_view body = bytes.substr(h.bodyOffset);
    // A point line holds at least two bytes per value: COUNTs promising more values than the
    // body has bytes are rejected before the per-line token buffer is sized from them.
    if (h.valuesPerPoint > body.size() / 2 + 1)
        throw InputError(file, Unit::Line, h.headerLines,
                         "COUNT promises " + std::to_string(h.valuesPerPoint) +
                             " values per point, more than the " + std::to_string(body.size()) +
                             " bytes of data can hold");
    const std::size_t n =
        std::size_t(std::min<std::uint64_t>(h.points, body.size() / (2 * h.valuesPerPoint) + 1));
    set.coords.reserve(n * 3);
    for (auto& a : set.attributes) {
        if (a.kind == PointAttribute::Kind::Colour)
            a.colours.reserve(n);
        else
            a.scalars.reserve(n);
    }
    std::vector<PointAttribute*> attributeOf(h.fields.size(), nullptr);
    std::size_t attribute = 0;
    for (std::size_t f : plan.order)
        attributeOf[f] = &set.attributes[attribute++];

    LineCursor cursor(body);
    std::string_view line;
    std::vector<std::string_view> tokens(h.valuesPerPoint + 1);
    std::uint64_t read = 0;
    const auto lineNo = [&] { return h.headerLines + cursor.lineNumber(); };
    while (cursor.next(line)) {
        if (trim(line).empty()) continue;
        if (read == h.points)
            throw InputError(file, Unit::Line, lineNo(),
                             "more point lines than POINTS " + std::to_string(h.points));
        const std::size_t count = splitBlanks(line, tokens.data(), tokens.size());
        if (count != h.valuesPerPoint)
            throw InputError(file, Unit::Line, lineNo(),
                             "point line has " + std::to_string(count) + " values, expected " +
                                 std::to_string(h.valuesPerPoint));
        float xyz[3] = {};
        for (std::size_t f = 0; f < h.fields.size(); ++f) {
            const FieldPlan& p = plan.fields[f];
            if (p.kind == FieldPlan::Kind::Skip) continue;
            const PcdField& field = h.fields[f];
            const std::string_view token = tokens[field.tokenIndex];
            const auto bad = [&] {
                return InputError(file, Unit::Line, lineNo(),
                                  "field " + io::quoted(field.name) + ": " + io::quoted(token) +
                                      " is not a number");
            };
            if (p.kind == FieldPlan::Kind::Colour) {
                std::uint32_t bits;
                if (!parseColourToken(token, bits)) throw bad();
                attributeOf[f]->colours.push_back(packedColour(bits));
                continue;
            }
            float v;
            if (field.num == NumType::F32) {
                if (!parseFloat(token, v)) throw bad();
            } else {
                double d;
                if (!parseDouble(token, d)) throw bad();
                v = toFloat(d);
            }
            if (p.kind == FieldPlan::Kind::Coord)
                xyz[p.slot] = v;
            else
                attributeOf[f]->scalars.push_back(v);
        }
        set.coords.insert(set.coords.end(), xyz, xyz + 3);
        ++read;
    }
    if (read != h.points)
        throw InputError(file, Unit::Line, lineNo(),
                         "truncated: the header promises " + std::to_string(h.points) +
                             " points, the file holds " + std::to_string(read));
    set.n = std::size_t(read);
}

}  // namespace

PointSet readPcdBytes(const std::string& file, std::string_view bytes) {
    if (bytes.empty()) throw InputError(file, "is empty");
    const PcdHeader h = parseHeader(file, bytes);
    PointSet set;
    set.source = file;
    set.dims = 3;
    set.dimNames = {"x", "y", "z"};
    set.sensorPose = h.viewpoint;
    const Plan plan = planFields(file, h, set);
    switch (h.data) {
        case PcdData::Ascii:
            readAscii(file, bytes, h, plan, set);
            break;
        case PcdData::Binary:
            readBinary(file, bytes, h, plan, set);
            break;
        case PcdData::Compressed:
            readCompressed(file, bytes, h, plan, set);
            break;
    }
    dropNonFinite(set);
    requirePoints(set, file);
    return set;
}

}  // namespace detail

PointSet readPcd(const std::filesystem::path& file) {
    const std::string name = file.string();
    return detail::readPcdBytes(name, readFileBytes(file));
}

}  // namespace cs::io
