// SPDX-License-Identifier: MIT
// Sparse matrices: SciPy's save_npz (a zip of .npy members, read with minizip) and libsvm text.
#include "compute/io/sparse_readers.h"

#include <unzip.h>  // minizip
#include <zip.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <system_error>

#include "compute/backend/backend.h"
#include "compute/core/error.h"
#include "compute/core/job_control.h"
#include "compute/core/sparse_pca.h"
#include "compute/core/sparse_set.h"
#include "compute/io/atomic_output.h"
#include "compute/io/point_common.h"
#include "compute/io/text_input.h"

namespace cs::io {
namespace {

using Unit = InputError::Unit;

std::string lowerExtension(const std::filesystem::path& file) {
    std::string ext = file.extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(),
                   [](unsigned char c) { return char(std::tolower(c)); });
    return ext;
}

// ---- .npz ------------------------------------------------------------------------------------

struct ZipReader {
    unzFile zip = nullptr;
    ~ZipReader() {
        if (zip) unzClose(zip);
    }
};

// One member's bytes, or nothing when the archive has no such member.
std::optional<std::string> readMember(unzFile zip, const std::string& file,
                                      const std::string& member) {
    if (unzLocateFile(zip, member.c_str(), 1) != UNZ_OK) return std::nullopt;
    unz_file_info64 info{};
    if (unzGetCurrentFileInfo64(zip, &info, nullptr, 0, nullptr, 0, nullptr, 0) != UNZ_OK ||
        unzOpenCurrentFile(zip) != UNZ_OK)
        throw InputError(file, "member " + member + " cannot be opened (corrupt or truncated zip)");
    std::string bytes;
    // The size is the archive's claim: reserve a bounded amount and let the data prove the rest.
    bytes.reserve(std::size_t(std::min<ZPOS64_T>(info.uncompressed_size, ZPOS64_T(64) << 20)));
    char buffer[1 << 16];
    int got = 0;
    while ((got = unzReadCurrentFile(zip, buffer, sizeof buffer)) > 0)
        bytes.append(buffer, std::size_t(got));
    const int closed = unzCloseCurrentFile(zip);
    if (got < 0)
        throw InputError(file, "member " + member + " is truncated or corrupt (zip error " +
                                   std::to_string(got) + ")");
    if (closed == UNZ_CRCERROR)
        throw InputError(file, "member " + member + " fails its CRC check (corrupt)");
    if (bytes.size() != info.uncompressed_size)
        throw InputError(file, "member " + member +
                                   " is truncated: " + std::to_string(bytes.size()) + " of " +
                                   std::to_string(info.uncompressed_size) + " bytes");
    return bytes;
}

// A member's numbers as doubles, with its shape; text members (format) go through memberText.
struct Member {
    std::string name;
    detail::NpyRawHeader header;
    detail::NumType type = detail::NumType::F32;
    bool swap = false;
    std::string bytes;
    std::size_t count = 0;

    double at(std::size_t i) const {
        return detail::loadNumber(bytes.data() + header.dataOffset + i * detail::sizeOf(type), type,
                                  swap);
    }
};

// A member's .npy header; its errors name the file itself, the member and the byte within it in
// the problem (InputError::file() stays the path the user opened).
detail::NpyRawHeader memberHeader(const std::string& file, const std::string& name,
                                  const std::string& bytes) {
    try {
        return detail::readNpyHeader(file, bytes);
    } catch (const InputError& e) {
        const std::string where =
            e.unit() == InputError::Unit::Byte ? ", byte " + std::to_string(e.where()) : "";
        throw InputError(file, "member " + name + where + ": " + e.problem());
    }
}

Member numericMember(unzFile zip, const std::string& file, const std::string& key) {
    const std::string name = key + ".npy";
    auto bytes = readMember(zip, file, name);
    if (!bytes)
        throw InputError(file, "has no '" + key +
                                   "' member: not a scipy.sparse.save_npz file (np.savez of a "
                                   "dense array is read as points from .npy)");
    Member m;
    m.name = name;
    m.bytes = std::move(*bytes);
    m.header = memberHeader(file, name, m.bytes);
    bool big = false;
    if (!detail::parseNpyDescr(m.header.descr, m.type, big))
        throw InputError(file, "member " + name + " has dtype " + io::quoted(m.header.descr) +
                                   ", expected integers or floats");
    m.swap = detail::needsSwap(big);
    if (m.header.shape.size() != 1)
        throw InputError(file, "member " + name + " has " + std::to_string(m.header.shape.size()) +
                                   " dimensions, expected a 1-D array");
    m.count = std::size_t(m.header.shape[0]);
    const std::uint64_t available = m.bytes.size() - m.header.dataOffset;
    if (m.header.shape[0] > available / detail::sizeOf(m.type) ||
        m.count * detail::sizeOf(m.type) != available)
        throw InputError(file, "member " + name + " is truncated or has extra bytes: " +
                                   std::to_string(m.header.shape[0]) + " values of " +
                                   m.header.descr + " in " + std::to_string(available) + " bytes");
    return m;
}

// The format member: a 0-d bytes (|S3, what save_npz writes) or unicode (<U3) array.
std::string formatText(unzFile zip, const std::string& file) {
    auto bytes = readMember(zip, file, "format.npy");
    if (!bytes) throw InputError(file, "has no 'format' member: not a scipy.sparse.save_npz file");
    const auto h = memberHeader(file, "format.npy", *bytes);
    const std::string_view data = std::string_view(*bytes).substr(h.dataOffset);
    const std::string& d = h.descr;
    std::string text;
    if (d.size() >= 3 && d[1] == 'S') {
        text = std::string(data.substr(0, std::size_t(std::atoi(d.c_str() + 2))));
    } else if (d.size() >= 3 && d[1] == 'U') {
        const bool big = d[0] == '>';
        for (std::size_t i = 0; i + 4 <= data.size(); i += 4)
            text += char(std::uint8_t(big ? data[i + 3] : data[i]));
    } else {
        throw InputError(file, "member format.npy has dtype " + io::quoted(d) + ", expected text");
    }
    while (!text.empty() && text.back() == '\0')
        text.pop_back();
    return text;
}

std::int64_t integerAt(const Member& m, std::size_t i, const std::string& file) {
    const double v = m.at(i);
    if (v != std::floor(v) || !std::isfinite(v))
        throw InputError(file, "member " + m.name + " holds " + std::to_string(v) +
                                   " at position " + std::to_string(i) + ", not an integer");
    return std::int64_t(v);
}

// ---- .npz writing ------------------------------------------------------------------------------

template <class T>
std::string npyBytes(const std::string& descr, const std::string& shape, const T* data,
                     std::size_t count) {
    std::string header =
        "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
    // Version 1.0: magic (6) + version (2) + length (2) + header, padded to 64 with a newline.
    const std::size_t total = (10 + header.size() + 1 + 63) / 64 * 64;
    header.append(total - 10 - header.size() - 1, ' ');
    header += '\n';
    std::string out = "\x93NUMPY";
    out += char(1);
    out += char(0);
    out += char(header.size() & 0xff);
    out += char(header.size() >> 8);
    out += header;
    out.append(reinterpret_cast<const char*>(data), count * sizeof(T));  // little-endian host
    return out;
}

template <class T>
std::string vectorNpy(const std::string& descr, const std::vector<T>& v) {
    return npyBytes(descr, "(" + std::to_string(v.size()) + ",)", v.data(), v.size());
}

}  // namespace

SparseSet readSparseNpz(const std::filesystem::path& path) {
    const std::string file = path.string();
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec))
        throw InputError(file, std::filesystem::exists(path, ec)
                                   ? "is not a regular file"
                                   : "cannot be opened: no such file");
    if (std::filesystem::file_size(path, ec) == 0) throw InputError(file, "is empty");
    rememberInput(path);
    ZipReader reader;
    reader.zip = unzOpen64(file.c_str());
    if (!reader.zip)
        throw InputError(file,
                         "is not a zip archive or is truncated (no readable central directory); "
                         "expected a .npz from scipy.sparse.save_npz");

    const std::string format = formatText(reader.zip, file);
    if (format != "csr")
        throw InputError(file, "holds a sparse matrix of format " + io::quoted(format) +
                                   "; only CSR is read (save matrix.tocsr())");
    const Member shape = numericMember(reader.zip, file, "shape");
    if (shape.count != 2)
        throw InputError(file, "member shape.npy holds " + std::to_string(shape.count) +
                                   " values, expected 2 (rows, columns)");
    const std::int64_t rows = integerAt(shape, 0, file), cols = integerAt(shape, 1, file);
    if (rows <= 0 || cols <= 0)
        throw InputError(file, "holds an empty matrix (shape " + std::to_string(rows) + " x " +
                                   std::to_string(cols) + ")");
    if (cols > std::numeric_limits<std::int32_t>::max())
        throw InputError(file, std::to_string(cols) + " columns are more than the " +
                                   std::to_string(std::numeric_limits<std::int32_t>::max()) +
                                   " supported");
    const Member indptr = numericMember(reader.zip, file, "indptr");
    const Member indices = numericMember(reader.zip, file, "indices");
    const Member data = numericMember(reader.zip, file, "data");
    if (indptr.count != std::size_t(rows) + 1)
        throw InputError(file, "member indptr.npy holds " + std::to_string(indptr.count) +
                                   " offsets for " + std::to_string(rows) + " rows (expected " +
                                   std::to_string(rows + 1) + ")");
    if (indices.count != data.count)
        throw InputError(file, "members indices.npy and data.npy differ in length (" +
                                   std::to_string(indices.count) + " and " +
                                   std::to_string(data.count) + ")");
    if (detail::isInteger(indices.type) == false || detail::isInteger(indptr.type) == false)
        throw InputError(file, "indices.npy and indptr.npy must hold integers");

    SparseSet s;
    s.n = std::size_t(rows);
    s.dims = std::size_t(cols);
    s.source = file;
    s.indptr.resize(indptr.count);
    for (std::size_t i = 0; i < indptr.count; ++i)
        s.indptr[i] = integerAt(indptr, i, file);
    s.indices.resize(indices.count);
    s.values.resize(data.count);
    for (std::size_t e = 0; e < indices.count; ++e) {
        const std::int64_t c = integerAt(indices, e, file);
        if (c < 0 || c >= cols)
            throw InputError(file, "column index " + std::to_string(c) + " (entry " +
                                       std::to_string(e) + ") is outside the " +
                                       std::to_string(cols) + " columns");
        s.indices[e] = std::int32_t(c);
        const double v = data.at(e);
        s.values[e] = detail::toFloat(v);
        if (!std::isfinite(s.values[e]))
            throw InputError(file, "value " + std::to_string(v) + " (entry " + std::to_string(e) +
                                       ") is not a finite float32");
    }
    try {
        s.validate();
    } catch (const InputError&) {
        throw;
    } catch (const Error& e) {
        const std::string why = e.what();
        throw InputError(file, why + (why.find("sorted") != std::string::npos
                                          ? "; call matrix.sum_duplicates() before save_npz"
                                          : ""));
    }
    return s;
}

SparseSet readSvmLight(const std::filesystem::path& path) {
    const std::string file = path.string();
    const std::string bytes = readFileBytes(path);
    if (trim(bytes).empty()) throw InputError(file, "is empty");
    SparseSet s;
    s.source = file;
    s.indptr.push_back(0);
    std::int64_t largest = 0;
    LineCursor lines(bytes);
    std::string_view line;
    while (lines.next(line)) {
        const std::size_t hash = line.find('#');
        if (hash != std::string_view::npos) line = line.substr(0, hash);
        line = trim(line);
        if (line.empty()) continue;
        const std::uint64_t at = lines.lineNumber();
        auto fail = [&](const std::string& problem) {
            throw InputError(file, Unit::Line, at, problem);
        };
        std::size_t pos = 0;
        auto token = [&]() {
            while (pos < line.size() && (line[pos] == ' ' || line[pos] == '\t'))
                ++pos;
            const std::size_t start = pos;
            while (pos < line.size() && line[pos] != ' ' && line[pos] != '\t')
                ++pos;
            return line.substr(start, pos - start);
        };
        const std::string_view labelText = token();
        float label = 0.0f;
        if (labelText.find(':') != std::string_view::npos || !parseFloat(labelText, label) ||
            !std::isfinite(label))
            fail("a row starts with its label (a number), got " + io::quoted(labelText));
        std::int64_t previous = 0;
        for (std::string_view t = token(); !t.empty(); t = token()) {
            const std::size_t colon = t.find(':');
            if (colon == std::string_view::npos) fail("expected index:value, got " + io::quoted(t));
            const std::string_view key = t.substr(0, colon), value = t.substr(colon + 1);
            if (key == "qid") continue;
            std::int64_t index = 0;
            const auto [end, err] = std::from_chars(key.data(), key.data() + key.size(), index);
            if (err != std::errc() || end != key.data() + key.size())
                fail("the index of " + io::quoted(t) + " is not an integer");
            if (index < 1)
                fail("index " + std::to_string(index) + " in " + io::quoted(t) +
                     ": libsvm indices start at 1");
            if (index > std::numeric_limits<std::int32_t>::max())
                fail("index " + std::to_string(index) + " is larger than supported");
            if (index <= previous)
                fail(index == previous ? "index " + std::to_string(index) + " appears twice"
                                       : "index " + std::to_string(index) + " after " +
                                             std::to_string(previous) + " (indices must ascend)");
            float v = 0.0f;
            if (!parseFloat(value, v)) fail("the value of " + io::quoted(t) + " is not a number");
            if (!std::isfinite(v)) fail("the value of " + io::quoted(t) + " is not finite");
            previous = index;
            largest = std::max(largest, index);
            s.indices.push_back(std::int32_t(index - 1));
            s.values.push_back(v);
        }
        s.labels.push_back(label);
        s.indptr.push_back(std::int64_t(s.indices.size()));
    }
    s.n = s.labels.size();
    if (s.n == 0) throw InputError(file, "holds no rows (only comments and blank lines)");
    if (largest == 0) throw InputError(file, "holds rows without a single index:value entry");
    s.dims = std::size_t(largest);
    try {
        s.validate();  // the checks above cover it; this names the file should one slip
    } catch (const Error& e) {
        throw InputError(file, e.what());
    }
    return s;
}

bool isSparseFile(const std::filesystem::path& file) {
    const std::string ext = lowerExtension(file);
    return ext == ".npz" || ext == ".svm" || ext == ".libsvm" || ext == ".svmlight";
}

SparseSet readSparse(const std::filesystem::path& file) {
    return lowerExtension(file) == ".npz" ? readSparseNpz(file) : readSvmLight(file);
}

PointSet readSparsePoints(const std::filesystem::path& file) {
    auto rows = std::make_shared<SparseSet>(readSparse(file));
    PointSet p;
    p.n = rows->n;
    p.dims = 3;
    // The loader's job (ReadScope) can cancel the products, seconds on millions of rows on the
    // host; the loader's backend computes them where it runs (on the GPU for CUDA).
    if (Backend* backend = ReadScope::backend()) {
        JobControl unwatched;
        JobControl* job = ReadScope::current();
        p.coords = backend->sparseView(*rows, job ? *job : unwatched);
    } else {
        p.coords = sparsePcaCoords(*rows, 1, ReadScope::current());
    }
    p.dimNames = {"pc1", "pc2", "pc3"};
    p.source = file.string();
    if (!rows->labels.empty()) {
        PointAttribute a;
        a.name = "label";
        const bool integers = std::all_of(rows->labels.begin(), rows->labels.end(), [](float v) {
            return v == std::floor(v) && std::fabs(v) < 1e9f;
        });
        if (integers) {
            a.kind = PointAttribute::Kind::Label;
            const std::set<float> distinct(rows->labels.begin(), rows->labels.end());
            std::map<float, std::int32_t> category;
            for (float v : distinct) {
                category[v] = std::int32_t(a.categories.size());
                a.categories.push_back(std::to_string(std::int64_t(v)));
            }
            for (float v : rows->labels)
                a.labels.push_back(category[v]);
        } else {
            a.kind = PointAttribute::Kind::Scalar;
            a.scalars = rows->labels;
        }
        p.attributes.push_back(std::move(a));
    }
    p.sparse = std::move(rows);
    return p;
}

void writeSparseNpz(const std::filesystem::path& path, const SparseSet& s,
                    const NpzLayout& layout) {
    const std::string file = path.string();
    zipFile zip = zipOpen64(file.c_str(), APPEND_STATUS_CREATE);
    if (!zip) throw Error("cannot write " + file);
    bool ok = true;
    auto add = [&](const char* name, const std::string& bytes) {
        zip_fileinfo info{};
        ok = ok &&
             zipOpenNewFileInZip64(zip, name, &info, nullptr, 0, nullptr, 0, nullptr,
                                   layout.compressed ? Z_DEFLATED : 0,
                                   layout.compressed ? Z_DEFAULT_COMPRESSION : 0, 1) == ZIP_OK &&
             zipWriteInFileInZip(zip, bytes.data(), unsigned(bytes.size())) == ZIP_OK &&
             zipCloseFileInZip(zip) == ZIP_OK;
    };
    if (layout.wideIndices) {
        const std::vector<std::int64_t> indices(s.indices.begin(), s.indices.end());
        add("indices.npy", vectorNpy("<i8", indices));
        add("indptr.npy", vectorNpy("<i8", s.indptr));
    } else {
        const std::vector<std::int32_t> indptr(s.indptr.begin(), s.indptr.end());
        add("indices.npy", vectorNpy("<i4", s.indices));
        add("indptr.npy", vectorNpy("<i4", indptr));
    }
    const std::string format = layout.format;
    add("format.npy",
        npyBytes("|S" + std::to_string(format.size()), "()", format.data(), format.size()));
    const std::vector<std::int64_t> shape{std::int64_t(s.n), std::int64_t(s.dims)};
    add("shape.npy", vectorNpy("<i8", shape));
    if (layout.doubleValues)
        add("data.npy", vectorNpy("<f8", std::vector<double>(s.values.begin(), s.values.end())));
    else
        add("data.npy", vectorNpy("<f4", s.values));
    ok = zipClose(zip, nullptr) == ZIP_OK && ok;
    if (!ok) throw Error("cannot write " + file);
}

}  // namespace cs::io
