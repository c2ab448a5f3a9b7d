// SPDX-License-Identifier: MIT
// Mutation tests of the point readers: damaged variants of valid files must either read as a
// consistent PointSet or throw cs::InputError; any other exception, a crash, a hang or a huge
// allocation is a failure. Seeds are fixed; the failing base file and seed are printed (also
// on a crash or a sanitizer report), and CS_FUZZ_SEED=<seed> re-runs that seed alone;
// CS_FUZZ_SCALE=<k> runs k times as many variants.

#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>
#include <typeinfo>
#include <vector>

#include <unzip.h>  // minizip
#include <zip.h>

#include <sys/resource.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
// A reader that trusts a count from the file asks for gigabytes; make that fatal here.
extern "C" const char* __asan_default_options() {
    return "max_allocation_size_mb=1024";
}
#endif

#include "compute/core/error.h"
#include "compute/core/point_set.h"
#include "compute/core/random.h"
#include "compute/core/sparse_set.h"
#include "compute/io/point_readers.h"
#include "compute/io/sparse_readers.h"
#include "compute/io/text_input.h"
#include "point_test_files.h"
#include "tests/common/mutate.h"
#include "tests/common/test_paths.h"

namespace {

namespace fs = std::filesystem;

// What is being read right now, for the crash handlers (which may only write(2)).
char g_current[512] = "";

void printCurrent() {
    if (g_current[0] == '\0') return;
    const char prefix[] = "\nfuzz case at the time of the crash: ";
    [[maybe_unused]] auto a = ::write(2, prefix, sizeof prefix - 1);
    [[maybe_unused]] auto b = ::write(2, g_current, std::strlen(g_current));
    [[maybe_unused]] auto c = ::write(2, "\n", 1);
}

struct sigaction g_previous[32];

void onFatalSignal(int sig) {
    printCurrent();
    sigaction(sig, &g_previous[sig], nullptr);  // then let Qt Test's handler report and abort
    std::raise(sig);
}

void installCrashReporting() {
#if defined(__SANITIZE_ADDRESS__)
    __sanitizer_set_death_callback(printCurrent);
#endif
    struct sigaction action = {};
    action.sa_handler = onFatalSignal;
    sigemptyset(&action.sa_mask);
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT})
        sigaction(sig, &action, &g_previous[sig]);
}

// A base file and how many variants of it to read.
struct Base {
    std::string format;  // "text", "xyz", "ply", "pcd", "npy", "npz", "svm"
    std::string name;    // file name (its extension chooses the reader)
    std::string bytes;
    int variants = 0;
};

std::string slurp(const fs::path& p) {
    return cs::io::readFileBytes(p);
}

// The invariants a PointSet from a reader must hold beyond PointSet::validate().
QString inconsistency(const cs::PointSet& s, const std::string& path) {
    try {
        s.validate();
    } catch (const cs::Error& e) {
        return QString("validate(): ") + e.what();
    }
    if (s.n == 0) return "an empty point set was returned instead of an InputError";
    if (s.dimNames.size() != s.dims) return "dimNames do not match dims";
    if (s.source != path) return "source is not the path";
    for (const auto& a : s.attributes) {
        if (a.kind == cs::PointAttribute::Kind::Label)
            for (std::int32_t l : a.labels)
                if (l < -1 || l >= std::int32_t(a.categories.size()))
                    return QString("label %1 outside the %2 categories of '%3'")
                        .arg(l)
                        .arg(a.categories.size())
                        .arg(QString::fromStdString(a.name));
        if (a.kind == cs::PointAttribute::Kind::Colour)
            for (std::uint32_t c : a.colours)
                if (c > 0xFFFFFFu) return "colour with bits above 0xFFFFFF";
    }
    return {};
}

// Where a file's header ends: after PLY's end_header or PCD's DATA line, or .npy's header
// dict; for text, somewhere past the first rows.
std::size_t headerEnd(const std::string& b) {
    for (const char* mark : {"end_header", "\nDATA "}) {
        const std::size_t at = b.find(mark);
        if (at == std::string::npos) continue;
        const std::size_t eol = b.find('\n', at + 1);
        return eol == std::string::npos ? b.size() : eol;
    }
    if (b.rfind("\x93NUMPY", 0) == 0 && b.size() >= 10)
        return std::min(b.size(), 10 + (std::uint8_t(b[8]) | std::size_t(std::uint8_t(b[9])) << 8));
    return std::min<std::size_t>(b.size(), 640);
}

// The members of a zip archive, in order (name, bytes).
std::vector<std::pair<std::string, std::string>> zipMembers(const fs::path& file) {
    std::vector<std::pair<std::string, std::string>> members;
    unzFile zip = unzOpen64(file.c_str());
    if (!zip) return members;
    for (int at = unzGoToFirstFile(zip); at == UNZ_OK; at = unzGoToNextFile(zip)) {
        char name[256];
        unz_file_info64 info{};
        if (unzGetCurrentFileInfo64(zip, &info, name, sizeof name, nullptr, 0, nullptr, 0) !=
                UNZ_OK ||
            unzOpenCurrentFile(zip) != UNZ_OK)
            break;
        std::string bytes(std::size_t(info.uncompressed_size), '\0');
        const int got = unzReadCurrentFile(zip, bytes.data(), unsigned(bytes.size()));
        unzCloseCurrentFile(zip);
        if (got != int(bytes.size())) break;
        members.emplace_back(name, std::move(bytes));
    }
    unzClose(zip);
    return members;
}

// A stored zip of these members with valid checksums: damage inside a member then reaches the
// reader's array parsing instead of stopping at the archive's CRC check.
std::string storedZip(const std::vector<std::pair<std::string, std::string>>& members,
                      const fs::path& scratch) {
    zipFile zip = zipOpen64(scratch.c_str(), APPEND_STATUS_CREATE);
    for (const auto& [name, bytes] : members) {
        zip_fileinfo info{};
        zipOpenNewFileInZip64(zip, name.c_str(), &info, nullptr, 0, nullptr, 0, nullptr, 0, 0, 1);
        zipWriteInFileInZip(zip, bytes.data(), unsigned(bytes.size()));
        zipCloseFileInZip(zip);
    }
    zipClose(zip, nullptr);
    return slurp(scratch);
}

// Sparse rows with empty rows, a long row and negative values, as the sparse readers' bases.
cs::SparseSet sparseRows() {
    cs::Random random(3);
    cs::SparseSet s;
    s.n = 60;
    s.dims = 500;
    s.indptr.push_back(0);
    for (std::size_t i = 0; i < s.n; ++i) {
        const int count = i % 13 == 4 ? 0 : i == 7 ? 120 : 1 + int(random.below(9));
        std::int32_t c = std::int32_t(random.below(4));
        for (int e = 0; e < count && c < std::int32_t(s.dims); ++e) {
            s.indices.push_back(c);
            s.values.push_back(float(random.normal()));
            c += 1 + std::int32_t(random.below(i == 7 ? 3 : 60));
        }
        s.indptr.push_back(std::int64_t(s.indices.size()));
    }
    s.validate();
    return s;
}

}  // namespace

class TestPointReaderFuzz : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::vector<Base> m_bases;

    // Writes bytes to file and reads them; false (after QFAIL) on anything but a consistent
    // PointSet or a cs::InputError naming the file.
    bool check(const std::string& bytes, const fs::path& file, int& read, int& rejected) {
        {
            // Unlink, not truncate: ext4 flushes a file truncated over old data
            // (auto_da_alloc), which made the suite disk-bound.
            std::error_code ec;
            fs::remove(file, ec);
            std::ofstream out(file, std::ios::binary);
            out.write(bytes.data(), std::streamsize(bytes.size()));
        }
        try {
            // Sparse files by their extension only, as the application opens them.
            const cs::PointSet s = cs::io::isSparseFile(file) ? cs::io::readSparsePoints(file)
                                                              : cs::io::readPoints(file);
            const QString bad = inconsistency(s, file.string());
            if (!bad.isEmpty()) {
                QTest::qFail(qPrintable(QString(g_current) + ": " + bad), __FILE__, __LINE__);
                return false;
            }
            ++read;
        } catch (const cs::InputError& e) {
            if (e.file() != file.string() || std::string(e.what()).find(file.string()) != 0) {
                QTest::qFail(
                    qPrintable(QString(g_current) + ": error does not name the file: " + e.what()),
                    __FILE__, __LINE__);
                return false;
            }
            ++rejected;
        } catch (const std::exception& e) {
            QTest::qFail(qPrintable(QString(g_current) + ": threw " + typeid(e).name() + " " +
                                    e.what() + " instead of cs::InputError"),
                         __FILE__, __LINE__);
            return false;
        } catch (...) {
            QTest::qFail(qPrintable(QString(g_current) + ": threw a non-standard exception"),
                         __FILE__, __LINE__);
            return false;
        }
        return true;
    }

private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        installCrashReporting();
#if !defined(__SANITIZE_ADDRESS__)
        // Without ASan, a capped address space turns a trusted huge count into bad_alloc, which
        // the test reports as a wrong exception type instead of swapping the machine to death.
        rlimit limit{rlim_t(4) << 30, rlim_t(4) << 30};
        setrlimit(RLIMIT_AS, &limit);
#endif
        // Budgets per format sum to a few thousand variants; the big real clouds get fewer,
        // since each of their variants decompresses megabytes.
        for (auto& f : cs::test::generatedPointFiles()) {
            const std::string ext = fs::path(f.name).extension().string();
            const std::string format = ext == ".csv" || ext == ".tsv" ? "text" : ext.substr(1);
            m_bases.push_back({format, f.name, f.bytes, 0});
        }
        // Sparse rows: SciPy's .npz, stored (whose arrays the mutations reach) and deflated, and
        // libsvm text.
        const cs::SparseSet rows = sparseRows();
        int layoutIndex = 0;
        for (const cs::io::NpzLayout layout :
             {cs::io::NpzLayout{.compressed = false},
              cs::io::NpzLayout{.compressed = false, .wideIndices = true, .doubleValues = true},
              cs::io::NpzLayout{.compressed = true}}) {
            const std::string name = "rows" + std::to_string(layoutIndex++) + ".npz";
            const fs::path file =
                m_dir.filePath(QString::fromStdString("base_" + name)).toStdString();
            cs::io::writeSparseNpz(file, rows, layout);
            m_bases.push_back({"npz", name, slurp(file), 0});
        }
        std::string svm = "# rows with labels\n";
        for (std::size_t i = 0; i < rows.n; ++i) {
            svm += std::to_string(int(i % 3) - 1);
            if (i % 5 == 0) svm += " qid:" + std::to_string(i / 5);
            for (auto e = rows.indptr[i]; e < rows.indptr[i + 1]; ++e)
                svm += " " + std::to_string(rows.indices[std::size_t(e)] + 1) + ":" +
                       std::to_string(rows.values[std::size_t(e)]);
            svm += "\n";
        }
        m_bases.push_back({"svm", "rows.svm", svm, 0});
        const std::pair<const char*, const char*> handMade[] = {
            {"text", "points_iris.csv"},       {"text", "points_semicolon.txt"},
            {"text", "points_whitespace.txt"}, {"text", "points_quoted.csv"},
            {"xyz", "points_extras.xyz"},      {"ply", "points_ascii.ply"},
            {"pcd", "points_v6.pcd"}};
        for (auto [format, name] : handMade)
            m_bases.push_back(
                {format, name, slurp(cs::test::testSource(std::string("io/data/") + name)), 0});
        const std::pair<const char*, int> real[] = {
            {"points/bunny.pcd", 600},
            {"points/cturtle.pcd", 120},
            {"points/table_scene_mug_stereo_textured.pcd", 60}};
        for (auto [name, variants] : real) {
            const fs::path p = cs::test::sharedData(name);
            if (fs::exists(p))
                m_bases.push_back({"pcd", p.filename().string(), slurp(p), variants});
            else if (cs::test::dataRequired())  // else fuzz the hand-made files only
                QFAIL(qPrintable("missing " + QString::fromStdString(p.string()) +
                                 " (CS_REQUIRE_DATA=1)"));
        }
        const std::pair<const char*, int> perFormat[] = {
            {"text", 3000}, {"xyz", 2000}, {"ply", 3000}, {"pcd", 2400},
            {"npy", 3000},  {"npz", 2400}, {"svm", 1500}};
        // CS_FUZZ_SCALE=<k> multiplies every budget, for a longer campaign by hand.
        const char* scaleText = std::getenv("CS_FUZZ_SCALE");
        const int scale = scaleText ? std::max(1, std::atoi(scaleText)) : 1;
        for (Base& b : m_bases)
            b.variants *= scale;
        for (auto [format, total] : perFormat) {
            int small = 0;
            for (const Base& b : m_bases)
                small += b.format == format && b.variants == 0;
            for (Base& b : m_bases)
                if (b.format == format && b.variants == 0) b.variants = scale * total / small;
        }
    }

    void mutants_data() {
        QTest::addColumn<QString>("format");
        for (const char* format : {"text", "xyz", "ply", "pcd", "npy", "npz", "svm"})
            QTest::newRow(format) << format;
    }
    void mutants() {
        QFETCH(QString, format);
        const char* only = std::getenv("CS_FUZZ_SEED");
        int read = 0, rejected = 0;
        for (const Base& base : m_bases) {
            if (QString::fromStdString(base.format) != format) continue;
            // Both the extension's reader and, for every fourth variant, content sniffing.
            const fs::path named = m_dir.filePath(QString::fromStdString(base.name)).toStdString();
            const fs::path sniffed = m_dir.filePath("sniffed.bin").toStdString();
            for (int v = 0; v < base.variants; ++v) {
                const std::uint64_t seed = std::uint64_t(v) + 1;
                if (only && std::strtoull(only, nullptr, 10) != seed) continue;
                std::snprintf(g_current, sizeof g_current, "format %s, base %s, seed %llu",
                              base.format.c_str(), base.name.c_str(), (unsigned long long)seed);
                std::string bytes;
                if (base.format == "npz" && seed % 2 == 0) {
                    // Every other .npz variant damages one member inside a valid archive.
                    auto members = zipMembers(
                        m_dir.filePath("base_" + QString::fromStdString(base.name)).toStdString());
                    auto& [name, member] = members.at(seed / 2 % members.size());
                    member = cs::test::mutate(member, seed);
                    bytes = storedZip(members, m_dir.filePath("scratch.zip").toStdString());
                } else {
                    bytes = cs::test::mutate(base.bytes, seed);
                }
                const bool sniff = seed % 4 == 0 && !cs::io::isSparseFile(named);
                if (!check(bytes, sniff ? sniffed : named, read, rejected)) return;
            }
        }
        g_current[0] = '\0';
        qInfo("%s: %d variants read, %d rejected with cs::InputError", qPrintable(format), read,
              rejected);
        QVERIFY(only || read + rejected > 1000);
    }

    // Every number in the headers (counts, sizes, shapes, lengths) swapped for a boundary value:
    // the places where a reader is tempted to trust the file.
    void hostileHeaderNumbers() {
        static const char* kValues[] = {"0",
                                        "1",
                                        "2",
                                        "3",
                                        "255",
                                        "65535",
                                        "2147483647",
                                        "2147483648",
                                        "4294967295",
                                        "4294967296",
                                        "357913941",
                                        "9223372036854775807",
                                        "18446744073709551615",
                                        "18446744073709551616",
                                        "-1"};
        int read = 0, rejected = 0;
        for (const Base& base : m_bases) {
            if (base.bytes.size() > 64 * 1024) continue;  // the real clouds: headers as bunny's
            const fs::path file =
                m_dir.filePath(QString::fromStdString("h_" + base.name)).toStdString();
            const std::size_t header = headerEnd(base.bytes);
            for (std::size_t at = 0; at < header; ++at) {
                const auto digit = [&](std::size_t i) {
                    return base.bytes[i] >= '0' && base.bytes[i] <= '9';
                };
                if (!digit(at) || (at > 0 && digit(at - 1))) continue;
                std::size_t end = at;
                while (end < base.bytes.size() && digit(end))
                    ++end;
                for (const char* value : kValues) {
                    std::string bytes = base.bytes;
                    bytes.replace(at, end - at, value);
                    std::snprintf(g_current, sizeof g_current, "base %s, number at byte %zu -> %s",
                                  base.name.c_str(), at, value);
                    if (!check(bytes, file, read, rejected)) return;
                }
            }
        }
        g_current[0] = '\0';
        qInfo("%d variants read, %d rejected with cs::InputError", read, rejected);
    }
};

QTEST_GUILESS_MAIN(TestPointReaderFuzz)
#include "tst_point_reader_fuzz.moc"
