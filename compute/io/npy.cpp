// SPDX-License-Identifier: MIT
// NumPy .npy: https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html

#include "compute/io/npy.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <fstream>
#include <string>
#include <string_view>

#include "compute/core/error.h"
#include "compute/io/atomic_output.h"
#include "compute/io/point_common.h"
#include "compute/io/text_input.h"

namespace cs::io {
namespace detail {
namespace {

using Unit = InputError::Unit;

constexpr std::string_view kMagic = "\x93NUMPY";

struct NpyHeader {
    NumType type = NumType::F32;
    bool bigEndian = false;
    bool fortran = false;
    std::vector<std::uint64_t> shape;
    std::string descr;
};

// A parser for the one Python literal .npy headers hold:
// {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }
class HeaderParser {
public:
    HeaderParser(const std::string& file, std::string_view text, std::size_t base)
        : m_file(file), m_text(text), m_base(base) {}

    NpyHeader parse() {
        NpyHeader h;
        bool haveDescr = false, haveOrder = false, haveShape = false;
        expect('{');
        while (true) {
            skipBlanks();
            if (peek() == '}') break;
            const std::size_t keyAt = m_pos;
            const std::string key = string();
            skipBlanks();
            expect(':');
            skipBlanks();
            if (key == "descr") {
                if (peek() == '[')
                    fail(m_pos, "structured dtypes are not supported, only plain numbers");
                h.descr = string();
                haveDescr = true;
            } else if (key == "fortran_order") {
                h.fortran = boolean();
                haveOrder = true;
            } else if (key == "shape") {
                h.shape = tuple();
                haveShape = true;
            } else {
                fail(keyAt, "unexpected header key " + io::quoted(key));
            }
            skipBlanks();
            if (peek() == ',') {
                ++m_pos;
                continue;
            }
            skipBlanks();
            if (peek() != '}') fail(m_pos, "expected ',' or '}' in the header");
        }
        if (!haveDescr || !haveOrder || !haveShape)
            fail(m_pos, std::string("header lacks '") +
                            (!haveDescr   ? "descr"
                             : !haveOrder ? "fortran_order"
                                          : "shape") +
                            "'");
        return h;
    }

    [[noreturn]] void fail(std::size_t at, const std::string& problem) const {
        throw InputError(m_file, Unit::Byte, m_base + at, problem);
    }

private:
    char peek() const { return m_pos < m_text.size() ? m_text[m_pos] : '\0'; }
    void skipBlanks() {
        while (m_pos < m_text.size() && (m_text[m_pos] == ' ' || m_text[m_pos] == '\t' ||
                                         m_text[m_pos] == '\n' || m_text[m_pos] == '\r'))
            ++m_pos;
    }
    void expect(char c) {
        skipBlanks();
        if (peek() != c) fail(m_pos, std::string("expected '") + c + "' in the header");
        ++m_pos;
    }
    std::string string() {
        const char quote = peek();
        if (quote != '\'' && quote != '"') fail(m_pos, "expected a quoted string in the header");
        const std::size_t end = m_text.find(quote, m_pos + 1);
        if (end == std::string_view::npos) fail(m_pos, "unterminated string in the header");
        std::string s(m_text.substr(m_pos + 1, end - m_pos - 1));
        m_pos = end + 1;
        return s;
    }
    bool boolean() {
        if (m_text.substr(m_pos, 4) == "True") {
            m_pos += 4;
            return true;
        }
        if (m_text.substr(m_pos, 5) == "False") {
            m_pos += 5;
            return false;
        }
        fail(m_pos, "fortran_order must be True or False");
    }
    std::vector<std::uint64_t> tuple() {
        std::vector<std::uint64_t> values;
        expect('(');
        while (true) {
            skipBlanks();
            if (peek() == ')') break;
            if (values.size() == 32) fail(m_pos, "shape has too many dimensions");
            std::uint64_t v = 0;
            const char* first = m_text.data() + m_pos;
            const char* last = m_text.data() + m_text.size();
            auto [ptr, ec] = std::from_chars(first, last, v);
            if (ec != std::errc() || ptr == first)
                fail(m_pos, "shape must be a tuple of non-negative integers");
            m_pos += std::size_t(ptr - first);
            if (peek() == 'L') ++m_pos;  // Python 2 long literal
            values.push_back(v);
            skipBlanks();
            if (peek() == ',') {
                ++m_pos;
                continue;
            }
            skipBlanks();
            if (peek() != ')') fail(m_pos, "expected ',' or ')' in the shape");
        }
        ++m_pos;
        return values;
    }

    const std::string& m_file;
    std::string_view m_text;
    std::size_t m_base;  // file offset of m_text, for error positions
    std::size_t m_pos = 0;
};

bool parseDescr(const std::string& descr, NpyHeader& h) {
    if (descr.size() < 3) return false;
    const char order = descr[0];
    const std::string_view kind = std::string_view(descr).substr(1);
    if (order != '<' && order != '>' && order != '=' && order != '|') return false;
    struct Entry {
        std::string_view code;
        NumType type;
    };
    static constexpr Entry kTypes[] = {
        {"f4", NumType::F32}, {"f8", NumType::F64}, {"i1", NumType::I8},  {"u1", NumType::U8},
        {"i2", NumType::I16}, {"u2", NumType::U16}, {"i4", NumType::I32}, {"u4", NumType::U32},
        {"i8", NumType::I64}, {"u8", NumType::U64},
    };
    for (const auto& e : kTypes) {
        if (e.code != kind) continue;
        // '|' (not applicable) is only right for single bytes; '=' is the writer's native
        // order, which NumPy never writes to files, so little-endian is the best guess.
        if (order == '|' && sizeOf(e.type) != 1) return false;
        h.type = e.type;
        h.bigEndian = order == '>';
        return true;
    }
    return false;
}

std::string shapeText(const std::vector<std::uint64_t>& shape) {
    std::string s = "(";
    for (std::size_t i = 0; i < shape.size(); ++i)
        s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + (shape.size() == 1 ? ",)" : ")");
}

// The magic, version and header of a .npy whose first bytes are `bytes`, checked against the
// file's size (the whole file may not be in memory).
NpyRawHeader rawHeader(const std::string& file, std::string_view bytes, std::uint64_t fileSize) {
    if (bytes.empty()) throw InputError(file, "is empty");
    if (bytes.substr(0, kMagic.size()) != kMagic)
        throw InputError(file, Unit::Byte, 0, "is not a NumPy .npy file (no \\x93NUMPY magic)");
    if (bytes.size() < 10) throw InputError(file, Unit::Byte, bytes.size(), "truncated header");
    const unsigned major = std::uint8_t(bytes[6]);
    std::size_t headerLength = 0, preamble = 0;
    if (major == 1) {
        headerLength = loadRaw<std::uint16_t>(bytes.data() + 8, needsSwap(false));
        preamble = 10;
    } else if (major == 2 || major == 3) {
        if (bytes.size() < 12) throw InputError(file, Unit::Byte, bytes.size(), "truncated header");
        headerLength = loadRaw<std::uint32_t>(bytes.data() + 8, needsSwap(false));
        preamble = 12;
    } else {
        throw InputError(file, Unit::Byte, 6,
                         "unsupported .npy format version " + std::to_string(major) + "." +
                             std::to_string(std::uint8_t(bytes[7])) +
                             " (expected 1.0, 2.0 or 3.0)");
    }
    if (headerLength > fileSize - preamble)
        throw InputError(file, Unit::Byte, preamble,
                         "truncated: the header claims " + std::to_string(headerLength) +
                             " bytes, the file holds " + std::to_string(fileSize - preamble));
    if (headerLength > bytes.size() - preamble)
        throw InputError(file, Unit::Byte, preamble,
                         "the header of " + std::to_string(headerLength) + " bytes is too long");
    HeaderParser parser(file, bytes.substr(preamble, headerLength), preamble);
    const NpyHeader h = parser.parse();
    return {h.descr, h.fortran, h.shape, preamble, preamble + headerLength};
}

}  // namespace

NpyRawHeader readNpyHeader(const std::string& file, std::string_view bytes) {
    return rawHeader(file, bytes, bytes.size());
}

bool parseNpyDescr(const std::string& descr, NumType& type, bool& bigEndian) {
    NpyHeader h;
    if (!parseDescr(descr, h)) return false;
    type = h.type;
    bigEndian = h.bigEndian;
    return true;
}

// The header of a .npy whose first bytes are `bytes`, checked against the file's size: the
// shape, the type and where the data start.
struct NpyLayout {
    NpyHeader header;
    std::size_t body = 0;   // offset of the data
    std::size_t count = 0;  // values
};

NpyLayout npyLayout(const std::string& file, std::string_view bytes, std::uint64_t fileSize) {
    const NpyRawHeader raw = rawHeader(file, bytes, fileSize);
    const std::size_t preamble = raw.headerOffset;
    NpyHeader h;
    h.descr = raw.descr;
    h.fortran = raw.fortran;
    h.shape = raw.shape;
    if (!parseDescr(h.descr, h))
        throw InputError(file, Unit::Byte, preamble,
                         "unsupported dtype " + io::quoted(h.descr) +
                             " (expected float32/float64 or an integer type)");
    if (h.shape.empty() || h.shape.size() > 2)
        throw InputError(file, Unit::Byte, preamble,
                         "shape " + shapeText(h.shape) + " has " + std::to_string(h.shape.size()) +
                             " dimensions; only 1-D and 2-D arrays are supported");

    const std::size_t body = raw.dataOffset;
    const std::size_t itemSize = sizeOf(h.type);
    std::uint64_t count = 1, need = 0;
    bool overflow = false;
    for (std::uint64_t d : h.shape)
        overflow = overflow || mulOverflows(count, d, count);
    overflow = overflow || mulOverflows(count, itemSize, need);
    const std::uint64_t available = fileSize - body;
    if (overflow || need > available)
        throw InputError(file, Unit::Byte, body,
                         "truncated: shape " + shapeText(h.shape) + " of " + h.descr + " needs " +
                             (overflow ? std::string("more") : std::to_string(need)) +
                             " bytes, the file holds " + std::to_string(available));
    if (need < available)
        throw InputError(file, Unit::Byte, body + need,
                         std::to_string(available - need) +
                             " unexpected bytes after the array data (shape " + shapeText(h.shape) +
                             ")");
    return {std::move(h), body, std::size_t(count)};
}

NpyArray readNpyBytes(const std::string& file, std::string_view bytes) {
    const auto [h, body, count] = npyLayout(file, bytes, bytes.size());
    const std::size_t itemSize = sizeOf(h.type);
    NpyArray array;
    for (std::uint64_t d : h.shape)
        array.shape.push_back(std::size_t(d));
    array.values.resize(count);
    const bool swap = needsSwap(h.bigEndian);
    const char* data = bytes.data() + body;
    if (h.fortran && h.shape.size() == 2) {
        // Column-major on disk: element (i, j) sits at j * rows + i.
        const std::size_t rows = array.shape[0], cols = array.shape[1];
        for (std::size_t j = 0; j < cols; ++j)
            for (std::size_t i = 0; i < rows; ++i)
                array.values[i * cols + j] =
                    loadFloat(data + (j * rows + i) * itemSize, h.type, swap);
    } else {
        for (std::size_t k = 0; k < array.values.size(); ++k)
            array.values[k] = loadFloat(data + k * itemSize, h.type, swap);
    }
    return array;
}

PointSet readNpyPointsBytes(const std::string& file, std::string_view bytes) {
    NpyArray array = readNpyBytes(file, bytes);
    const std::size_t n = array.shape[0];
    const std::size_t d = array.shape.size() == 2 ? array.shape[1] : 1;
    if (n > 0 && d == 0)
        throw InputError(file,
                         "has shape (" + std::to_string(n) + ", 0): points without coordinates");
    PointSet set = PointSet::fromCoords(d, std::move(array.values));
    set.source = file;
    dropNonFinite(set);
    requirePoints(set, file);
    return set;
}

}  // namespace detail

NpyArray readNpy(const std::filesystem::path& file) {
    const std::string name = file.string();
    return detail::readNpyBytes(name, readFileBytes(file));
}

namespace {

// The first bytes of a .npy (the header, and no more than 1 MiB) and the file's size; only
// regular files, so a FIFO or a device never blocks or streams for ever.
std::pair<std::string, std::uint64_t> npyPrefix(const std::filesystem::path& file,
                                                std::ifstream& in) {
    std::error_code ec;
    const auto status = std::filesystem::status(file, ec);
    // The same words as readFileBytes, which the one-process readers go through.
    switch (status.type()) {
        case std::filesystem::file_type::regular:
            break;
        case std::filesystem::file_type::directory:
            throw InputError(file.string(), "is a directory, not a data file");
        case std::filesystem::file_type::fifo:
            throw InputError(file.string(),
                             "is a FIFO (named pipe), not a regular file; save "
                             "the data to a file first");
        case std::filesystem::file_type::not_found:
        case std::filesystem::file_type::none:
            throw InputError(file.string(), "cannot be opened (missing or not readable)");
        default:
            throw InputError(file.string(),
                             "is not a regular file (a device, socket or other "
                             "special file); give a data file");
    }
    const std::uint64_t size = std::filesystem::file_size(file, ec);
    in.open(file, std::ios::binary);
    if (ec || !in) throw InputError(file.string(), "cannot be opened (missing or not readable)");
    std::string prefix(std::size_t(std::min<std::uint64_t>(size, 1u << 20)), '\0');
    in.read(prefix.data(), std::streamsize(prefix.size()));
    if (!in) throw InputError(file.string(), "could not be read");
    return {std::move(prefix), size};
}

// NumPy's name of a dtype, for messages and NpyInfo.
std::string_view dtypeName(detail::NumType type) {
    using detail::NumType;
    switch (type) {
        case NumType::I8:
            return "int8";
        case NumType::U8:
            return "uint8";
        case NumType::I16:
            return "int16";
        case NumType::U16:
            return "uint16";
        case NumType::I32:
            return "int32";
        case NumType::U32:
            return "uint32";
        case NumType::I64:
            return "int64";
        case NumType::U64:
            return "uint64";
        case NumType::F32:
            return "float32";
        case NumType::F64:
            return "float64";
    }
    return "unknown";
}

}  // namespace

NpyInfo npyInfo(const std::filesystem::path& file) {
    std::ifstream in;
    const auto [prefix, size] = npyPrefix(file, in);
    const auto layout = detail::npyLayout(file.string(), prefix, size);
    return {{layout.header.shape.begin(), layout.header.shape.end()},
            std::string(dtypeName(layout.header.type))};
}

NpyInt32Array readNpyInt32(const std::filesystem::path& file) {
    const std::string name = file.string();
    const std::string bytes = readFileBytes(file);
    const auto [h, body, count] = detail::npyLayout(name, bytes, bytes.size());
    if (h.type != detail::NumType::I32)
        throw InputError(
            name, "holds " + std::string(dtypeName(h.type)) + " (" + h.descr + "), not int32");
    NpyInt32Array array;
    for (std::uint64_t d : h.shape)
        array.shape.push_back(std::size_t(d));
    array.values.resize(count);
    const bool swap = detail::needsSwap(h.bigEndian);
    const char* data = bytes.data() + body;
    const bool fortran = h.fortran && h.shape.size() == 2;
    const std::size_t rows = array.shape[0], cols = h.shape.size() == 2 ? array.shape[1] : 1;
    for (std::size_t i = 0; i < rows; ++i)
        for (std::size_t j = 0; j < cols; ++j)
            array.values[i * cols + j] = detail::loadRaw<std::int32_t>(
                data + (fortran ? j * rows + i : i * cols + j) * 4, swap);
    return array;
}

NpyArray readNpyRows(const std::filesystem::path& file, std::size_t first, std::size_t count) {
    std::ifstream in;
    const auto [prefix, size] = npyPrefix(file, in);
    const std::string name = file.string();
    const auto layout = detail::npyLayout(name, prefix, size);
    const auto& h = layout.header;
    const std::size_t rows = std::size_t(h.shape[0]);
    const std::size_t cols = h.shape.size() == 2 ? std::size_t(h.shape[1]) : 1;
    if (first > rows || count > rows - first)
        throw Error(name + ": rows " + std::to_string(first) + " to " +
                    std::to_string(first + count) + " are past its " + std::to_string(rows) +
                    " rows");
    const std::size_t item = detail::sizeOf(h.type);
    const bool swap = detail::needsSwap(h.bigEndian);
    NpyArray array;
    array.shape = h.shape.size() == 2 ? std::vector<std::size_t>{count, cols}
                                      : std::vector<std::size_t>{count};
    array.values.resize(count * cols);
    std::string bytes;
    // C order: the rows are one range; Fortran order: one range per column.
    const bool fortran = h.fortran && h.shape.size() == 2;
    const std::size_t ranges = fortran ? cols : 1;
    const std::size_t span = fortran ? count : count * cols;
    bytes.resize(span * item);
    for (std::size_t c = 0; c < ranges; ++c) {
        const std::size_t at = fortran ? c * rows + first : first * cols;
        in.seekg(std::streamoff(layout.body + at * item));
        in.read(bytes.data(), std::streamsize(bytes.size()));
        if (!in)
            throw InputError(name, "could not be read (rows " + std::to_string(first) + " to " +
                                       std::to_string(first + count) + ")");
        for (std::size_t v = 0; v < span; ++v) {
            const float value = detail::loadFloat(bytes.data() + v * item, h.type, swap);
            array.values[fortran ? v * cols + c : v] = value;
        }
    }
    return array;
}

std::string npyHeader(const std::filesystem::path& file, std::string_view descr,
                      const std::vector<std::size_t>& shape) {
    std::string dict = "{'descr': '" + std::string(descr) + "', 'fortran_order': False, 'shape': (";
    for (std::size_t i = 0; i < shape.size(); ++i)
        dict += (i ? ", " : "") + std::to_string(shape[i]);
    dict += shape.size() == 1 ? ",), }" : "), }";
    // NumPy aligns the data to 64 bytes: magic (6) + version (2) + length (2) + header.
    const std::size_t unpadded = 10 + dict.size() + 1;
    dict.append((64 - unpadded % 64) % 64, ' ');
    dict += '\n';
    if (dict.size() > 0xFFFF)
        throw Error(file.string() + ": cannot write .npy: the shape makes the header too long");

    std::string out;
    out.reserve(10 + dict.size());
    out += "\x93NUMPY";
    out += char(1);
    out += char(0);
    out += char(dict.size() & 0xFF);
    out += char(dict.size() >> 8);
    out += dict;
    return out;
}

namespace {

template <typename T>
void writeNpyImpl(const std::filesystem::path& file, std::span<const T> data,
                  const std::vector<std::size_t>& shape, std::string_view descr) {
    std::uint64_t count = 1;
    bool overflow = false;
    for (std::size_t d : shape)
        overflow = overflow || detail::mulOverflows(count, d, count);
    if (overflow || count != data.size()) {
        std::string s;
        for (std::size_t i = 0; i < shape.size(); ++i)
            s += (i ? " x " : "") + std::to_string(shape[i]);
        throw Error(file.string() + ": cannot write .npy: shape " + (s.empty() ? "()" : s) +
                    " does not hold the " + std::to_string(data.size()) + " values given");
    }
    std::string out = npyHeader(file, descr, shape);
    if constexpr (std::endian::native != std::endian::little) {
        for (T v : data) {
            char bytes[sizeof(T)];
            std::memcpy(bytes, &v, sizeof(T));
            std::reverse(bytes, bytes + sizeof(T));
            out.append(bytes, sizeof(T));
        }
    }
    AtomicOutput output(file);
    output.write(out);
    if constexpr (std::endian::native == std::endian::little)
        output.write({reinterpret_cast<const char*>(data.data()), data.size_bytes()});
    output.commit();
}

}  // namespace

void writeNpy(const std::filesystem::path& file, std::span<const float> data,
              const std::vector<std::size_t>& shape) {
    writeNpyImpl(file, data, shape, "<f4");
}
void writeNpy(const std::filesystem::path& file, std::span<const double> data,
              const std::vector<std::size_t>& shape) {
    writeNpyImpl(file, data, shape, "<f8");
}
void writeNpy(const std::filesystem::path& file, std::span<const std::int32_t> data,
              const std::vector<std::size_t>& shape) {
    writeNpyImpl(file, data, shape, "<i4");
}
void writeNpy(const std::filesystem::path& file, std::span<const std::int64_t> data,
              const std::vector<std::size_t>& shape) {
    writeNpyImpl(file, data, shape, "<i8");
}

}  // namespace cs::io
