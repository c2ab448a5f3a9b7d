// SPDX-License-Identifier: MIT
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <csignal>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <sys/resource.h>

#include "compute/core/error.h"
#include "compute/io/atomic_output.h"
#include "compute/io/npy.h"
#include "compute/io/text_input.h"
#include "compute/io/writers.h"

namespace {

// Read outside the readers: they remember what they read as an input, which no output may
// then replace.
std::string contents(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

std::vector<std::string> lines(const std::filesystem::path& file) {
    const std::string text = contents(file);
    std::vector<std::string> out;
    cs::io::LineCursor cursor(text);
    std::string_view line;
    while (cursor.next(line))
        out.emplace_back(line);
    return out;
}

std::vector<std::string_view> fields(std::string_view line) {
    std::vector<std::string_view> out;
    for (std::size_t at = 0;;) {
        const std::size_t comma = line.find(',', at);
        out.push_back(line.substr(at, comma - at));
        if (comma == std::string_view::npos) return out;
        at = comma + 1;
    }
}

// An RFC 4180 reader, written from the RFC alone: records of fields separated by commas and
// ended by a line break; a quoted field may hold commas, line breaks and doubled quotes.
std::vector<std::vector<std::string>> readRfc4180(std::string_view text) {
    std::vector<std::vector<std::string>> records(1);
    std::string field;
    bool quoted = false, fieldStarted = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (quoted) {
            if (c != '"')
                field += c;
            else if (i + 1 < text.size() && text[i + 1] == '"')
                field += text[++i];
            else
                quoted = false;
        } else if (c == '"' && !fieldStarted) {
            quoted = fieldStarted = true;
        } else if (c == ',') {
            records.back().push_back(std::exchange(field, {}));
            fieldStarted = false;
        } else if (c == '\n') {
            records.back().push_back(std::exchange(field, {}));
            records.emplace_back();
            fieldStarted = false;
        } else {
            field += c;
            fieldStarted = true;
        }
    }
    if (quoted) qFatal("an unclosed quote");
    if (fieldStarted || !records.back().empty()) records.back().push_back(field);
    if (records.back().empty()) records.pop_back();
    return records;
}

template <typename T>
T parse(std::string_view text) {
    T value{};
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size())
        qFatal("not a number: %s", std::string(text).c_str());
    return value;
}

}  // namespace

class TestWriters : public QObject {
    Q_OBJECT

private slots:
    void labelsRoundTrip() {
        QTemporaryDir dir;
        const std::filesystem::path file = dir.filePath("labels.csv").toStdString();
        std::mt19937 rng(3);
        std::vector<std::int32_t> labels(100'000);
        std::vector<std::uint8_t> core(labels.size());
        for (std::size_t i = 0; i < labels.size(); ++i) {
            labels[i] = std::int32_t(rng() % 50) - 1;
            core[i] = std::uint8_t(rng() % 2);
        }
        labels[7] = std::numeric_limits<std::int32_t>::max();
        cs::io::writeLabelsCsv(file, labels, core, "dbscan eps=0.5 minPts=10 backend=cpu");

        const auto rows = lines(file);
        QCOMPARE(rows.size(), labels.size() + 2);
        QCOMPARE(rows[0], std::string("# dbscan eps=0.5 minPts=10 backend=cpu"));
        QCOMPARE(rows[1], std::string("index,label,core"));
        for (std::size_t i = 0; i < labels.size(); ++i) {
            const auto f = fields(rows[i + 2]);
            QCOMPARE(f.size(), std::size_t(3));
            QCOMPARE(parse<std::size_t>(f[0]), i);
            QCOMPARE(parse<std::int32_t>(f[1]), labels[i]);
            QCOMPARE(parse<int>(f[2]), int(core[i]));
        }
    }

    void labelsWithoutCoreFlags() {
        QTemporaryDir dir;
        const std::filesystem::path file = dir.filePath("labels.csv").toStdString();
        const std::vector<std::int32_t> labels = {0, -1, 2};
        cs::io::writeLabelsCsv(file, labels, {}, "two\nlines");
        const auto rows = lines(file);
        QCOMPARE(rows, (std::vector<std::string>{"# two lines", "index,label,core", "0,0,0",
                                                 "1,-1,0", "2,2,0"}));
    }

    void labelsEmpty() {
        QTemporaryDir dir;
        const std::filesystem::path file = dir.filePath("empty.csv").toStdString();
        cs::io::writeLabelsCsv(file, {}, {}, "nothing");
        QCOMPARE(lines(file), (std::vector<std::string>{"# nothing", "index,label,core"}));
    }

    void knnRoundTrip() {
        QTemporaryDir dir;
        const std::filesystem::path file = dir.filePath("knn.csv").toStdString();
        const std::size_t n = 20'000, k = 7;
        std::mt19937 rng(5);
        std::uniform_real_distribution<float> dist(0.0f, 10.0f);
        std::vector<std::int32_t> indices(n * k);
        std::vector<float> distances(n * k);
        for (std::size_t e = 0; e < n * k; ++e) {
            indices[e] = (rng() % 10 == 0) ? -1 : std::int32_t(rng() % n);
            distances[e] = dist(rng);
        }
        // Values that need all their digits, or none.
        distances[0] = 0.1f;
        distances[1] = std::numeric_limits<float>::denorm_min();
        distances[2] = std::numeric_limits<float>::max();
        distances[3] = 0.0f;
        distances[4] = 1.0f / 3.0f;
        for (int e = 0; e < 5; ++e)
            indices[std::size_t(e)] = e + 1;
        cs::io::writeKnnEdgesCsv(file, n, k, indices, distances, "knn k=7 trees=8");

        const auto rows = lines(file);
        QCOMPARE(rows[0], std::string("# knn k=7 trees=8"));
        QCOMPARE(rows[1], std::string("source,target,distance"));
        std::size_t row = 2;
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j < k; ++j) {
                if (indices[i * k + j] < 0) continue;
                QVERIFY(row < rows.size());
                const auto f = fields(rows[row++]);
                QCOMPARE(f.size(), std::size_t(3));
                QCOMPARE(parse<std::size_t>(f[0]), i);
                QCOMPARE(parse<std::int32_t>(f[1]), indices[i * k + j]);
                const float d = parse<float>(f[2]);
                QVERIFY(std::memcmp(&d, &distances[i * k + j], sizeof d) == 0);  // bit-exact
            }
        QCOMPARE(row, rows.size());
        QCOMPARE(rows[2], std::string("0,1,0.1"));
    }

    void kDistanceRows() {
        QTemporaryDir dir;
        const std::filesystem::path file = dir.filePath("kdist.csv").toStdString();
        const std::vector<float> perPoint = {0.25f, 0.0f, 0.1f};
        cs::io::writeKDistanceCsv(file, perPoint, "kdist k=4");
        QCOMPARE(lines(file), (std::vector<std::string>{"# kdist k=4", "rank,index,distance",
                                                        "1,1,0", "2,2,0.1", "3,0,0.25"}));
    }

    void kshapeRows() {
        QTemporaryDir dir;
        const std::filesystem::path file = dir.filePath("kshape.csv").toStdString();
        const std::vector<std::int32_t> labels = {1, 0}, shifts = {-3, 0};
        const std::vector<float> distances = {0.125f, 1.0f / 3.0f};
        cs::io::writeKShapeCsv(file, labels, distances, shifts, "kshape k=2");
        QCOMPARE(lines(file),
                 (std::vector<std::string>{"# kshape k=2", "index,label,distance,shift",
                                           "0,1,0.125,-3", "1,0,0.33333334,0"}));
    }

    void predictionRows() {
        QTemporaryDir dir;
        const std::filesystem::path file = dir.filePath("predictions.csv").toStdString();
        const std::vector<std::uint8_t> isTest = {0, 1, 1};
        const std::vector<std::int32_t> labels = {0, -1, 1}, predicted = {0, 1, 0};
        const std::vector<std::string> names = {"up", "down"};
        cs::io::writePredictionsCsv(file, isTest, labels, predicted, names, "rocket");
        QCOMPARE(lines(file),
                 (std::vector<std::string>{"# rocket", "index,split,label,predicted",
                                           "0,train,up,up", "1,test,,down", "2,test,down,up"}));
        cs::io::writePredictionsCsv(file, {}, {}, predicted, names, "rocket");
        QCOMPARE(lines(file),
                 (std::vector<std::string>{"# rocket", "index,split,label,predicted", "0,train,,up",
                                           "1,train,,down", "2,train,,up"}));
    }

    void outputsNameFileRows() {
        // Points 0..3 were rows 1, 2, 5 and 6 of a file of 8 (the others had a NaN): every
        // output per point names those rows, and a .npy has a row for each row of the file.
        QTemporaryDir dir;
        auto file = [&](const char* name) { return dir.filePath(name).toStdString(); };
        const std::vector<std::size_t> fileRows = {1, 2, 5, 6};
        const cs::io::FileRows rows{fileRows, 8};
        const std::vector<std::int32_t> labels = {0, -1, 1, 0};
        cs::io::writeLabelsCsv(file("labels.csv"), labels, {}, "p", rows);
        QCOMPARE(lines(file("labels.csv")),
                 (std::vector<std::string>{"# p", "index,original_index,label,core", "0,1,0,0",
                                           "1,2,-1,0", "2,5,1,0", "3,6,0,0"}));
        cs::io::writeLabelsNpy(file("labels.npy"), labels, rows);
        const cs::io::NpyArray npyLabels = cs::io::readNpy(file("labels.npy"));
        QCOMPARE(npyLabels.shape, std::vector<std::size_t>{8});
        QCOMPARE(npyLabels.values, (std::vector<float>{-2, 0, -1, -2, -2, 1, 0, -2}));

        const std::vector<std::int32_t> neighbours = {1, 0, 3, 2};
        const std::vector<float> distances = {0.5f, 0.5f, 0.25f, 0.25f};
        cs::io::writeKnnEdgesCsv(file("knn.csv"), 4, 1, neighbours, distances, "p", rows);
        QCOMPARE(lines(file("knn.csv")),
                 (std::vector<std::string>{"# p", "source,target,distance", "1,2,0.5", "2,1,0.5",
                                           "5,6,0.25", "6,5,0.25"}));
        cs::io::writeKnnNpy(file("knn.npy"), file("knn_distances.npy"), 4, 1, neighbours, distances,
                            rows);
        const cs::io::NpyArray npyIndices = cs::io::readNpy(file("knn.npy"));
        QCOMPARE(npyIndices.shape, (std::vector<std::size_t>{8, 1}));
        QCOMPARE(npyIndices.values, (std::vector<float>{-1, 2, 1, -1, -1, 6, 5, -1}));
        const cs::io::NpyArray npyDistances = cs::io::readNpy(file("knn_distances.npy"));
        QCOMPARE(npyDistances.shape, (std::vector<std::size_t>{8, 1}));
        for (std::size_t r = 0; r < 8; ++r) {
            const auto point = std::find(fileRows.begin(), fileRows.end(), r);
            if (point == fileRows.end())
                QVERIFY(std::isnan(npyDistances.values[r]));
            else
                QCOMPARE(npyDistances.values[r], distances[std::size_t(point - fileRows.begin())]);
        }

        const std::vector<float> kDistances = {0.3f, 0.1f, 0.2f, 0.1f};
        cs::io::writeKDistanceCsv(file("kdist.csv"), kDistances, "p", rows);
        QCOMPARE(lines(file("kdist.csv")),
                 (std::vector<std::string>{"# p", "rank,index,distance", "1,2,0.1", "2,6,0.1",
                                           "3,5,0.2", "4,1,0.3"}));
        // Without file rows, point i is row i.
        cs::io::writeKDistanceCsv(file("kdist.csv"), kDistances, "p");
        QCOMPARE(lines(file("kdist.csv"))[2], std::string("1,1,0.1"));
        QVERIFY_THROWS_EXCEPTION(
            cs::Error,
            cs::io::writeLabelsCsv(file("bad.csv"), std::vector<std::int32_t>(3), {}, "p", rows));
    }

    void predictionsQuoteClassNames() {
        // Class names with commas, quotes, line breaks and blanks at an end come back whole
        // through an RFC 4180 reader, one record per series.
        QTemporaryDir dir;
        const std::filesystem::path file = dir.filePath("predictions.csv").toStdString();
        const std::vector<std::string> names = {"a,b",      "say \"hi\"", "two\nlines", "cr\r\nlf",
                                                " padded ", "plain",      "\"",         ","};
        std::vector<std::int32_t> labels, predicted;
        for (std::size_t c = 0; c < names.size(); ++c) {
            labels.push_back(std::int32_t(c));
            predicted.push_back(std::int32_t((c + 1) % names.size()));
        }
        cs::io::writePredictionsCsv(file, {}, labels, predicted, names, "rocket file=x,y.ts");
        std::string text = contents(file);
        const std::size_t comment = text.find('\n');
        QCOMPARE(text.substr(0, comment), std::string("# rocket file=x,y.ts"));
        const auto records = readRfc4180(std::string_view(text).substr(comment + 1));
        QCOMPARE(records.size(), names.size() + 1);
        QCOMPARE(records[0], (std::vector<std::string>{"index", "split", "label", "predicted"}));
        for (std::size_t c = 0; c < names.size(); ++c)
            QCOMPARE(records[c + 1], (std::vector<std::string>{std::to_string(c), "train", names[c],
                                                               names[(c + 1) % names.size()]}));
        // Plain names are not quoted.
        QVERIFY(text.find("\n5,train,plain,\"\"\"\"\n") != std::string::npos);
    }

    void sizeMismatch() {
        QTemporaryDir dir;
        const std::filesystem::path file = dir.filePath("bad.csv").toStdString();
        const std::vector<std::int32_t> labels = {0, 1, 2};
        const std::vector<std::uint8_t> core = {1};
        QVERIFY_THROWS_EXCEPTION(cs::Error, cs::io::writeLabelsCsv(file, labels, core, ""));
        const std::vector<float> distances = {1, 2};
        QVERIFY_THROWS_EXCEPTION(cs::Error,
                                 cs::io::writeKnnEdgesCsv(file, 2, 2, labels, distances, ""));
        QVERIFY_THROWS_EXCEPTION(cs::Error, cs::io::writeKnnEdgesCsv(file, std::size_t(1) << 62, 8,
                                                                     labels, distances, ""));
        QVERIFY_THROWS_EXCEPTION(cs::Error,
                                 cs::io::writeKShapeCsv(file, labels, distances, labels, ""));
        QVERIFY_THROWS_EXCEPTION(cs::Error,
                                 cs::io::writePredictionsCsv(file, core, labels, labels, {}, ""));
        QVERIFY(!std::filesystem::exists(file));
    }

    void neverOverAnInput() {
        // The same file by another path, a symlink or a hard link is still the input; every
        // writer refuses it, naming both paths, and the input is left as it was.
        QTemporaryDir dir;
        const std::filesystem::path input = dir.filePath("points.csv").toStdString();
        {
            std::ofstream out(input);
            out << "x,y\n0,0\n1,1\n";
        }
        const std::string before = contents(input);
        cs::io::readFileBytes(input);
        const std::filesystem::path symlink = dir.filePath("symlink.csv").toStdString();
        const std::filesystem::path hardlink = dir.filePath("hardlink.csv").toStdString();
        std::filesystem::create_symlink(input, symlink);
        std::filesystem::create_hard_link(input, hardlink);
        const std::vector<std::int32_t> labels = {0, 1};
        const std::vector<float> values = {0.5f, 0.25f};
        const std::vector<std::string> names = {"a", "b"};
        for (const auto& target :
             {input, std::filesystem::path(dir.filePath("./points.csv").toStdString()), symlink,
              hardlink}) {
            auto refused = [&](const std::function<void()>& write) {
                try {
                    write();
                } catch (const cs::Error& e) {
                    const std::string what = e.what();
                    return what.find(target.string() + ": not written: it is the input file " +
                                     input.string()) != std::string::npos;
                }
                return false;
            };
            QVERIFY2(refused([&] { cs::io::writeLabelsCsv(target, labels, {}, "p"); }),
                     target.c_str());
            QVERIFY(refused([&] { cs::io::writeKnnEdgesCsv(target, 2, 1, labels, values, "p"); }));
            QVERIFY(refused([&] { cs::io::writeKDistanceCsv(target, values, "p"); }));
            QVERIFY(refused([&] { cs::io::writeKShapeCsv(target, labels, values, labels, "p"); }));
            QVERIFY(refused(
                [&] { cs::io::writePredictionsCsv(target, {}, labels, labels, names, "p"); }));
            QVERIFY(refused([&] {
                cs::io::writeNpy(target, std::span<const float>(values), {values.size()});
            }));
            QVERIFY(refused([&] { cs::io::checkOutputTarget(target); }));
        }
        QCOMPARE(contents(input), before);
        QVERIFY(std::filesystem::is_symlink(symlink));
        // Another file in the same folder is an output like any other.
        cs::io::writeLabelsCsv(dir.filePath("labels.csv").toStdString(), labels, {}, "p");
    }

    void unwritablePath_data() {
        QTest::addColumn<QString>("relative");
        QTest::newRow("a directory") << QString(".");
        QTest::newRow("missing directory") << QString("no/such/dir/out.csv");
    }
    void unwritablePath() {
        QFETCH(QString, relative);
        QTemporaryDir dir;
        const std::filesystem::path file = dir.filePath(relative).toStdString();
        const std::vector<std::int32_t> labels = {0, 1};
        const std::vector<float> distances = {0.5f, 0.25f};
        try {
            cs::io::writeLabelsCsv(file, labels, {}, "p");
            QFAIL("no error for an unwritable path");
        } catch (const cs::Error& e) {
            QVERIFY2(std::string(e.what()).find(file.string()) != std::string::npos, e.what());
        }
        try {
            cs::io::writeKnnEdgesCsv(file, 2, 1, labels, distances, "p");
            QFAIL("no error for an unwritable path");
        } catch (const cs::Error& e) {
            QVERIFY2(std::string(e.what()).find(file.string()) != std::string::npos, e.what());
        }
    }

    void fullDevice() {
        // A write error after opening (not only at open) must surface too, with its reason.
        if (!std::filesystem::exists("/dev/full")) QSKIP("no /dev/full here");
        std::vector<std::int32_t> labels(300'000, 1);
        try {
            cs::io::writeLabelsCsv("/dev/full", labels, {}, "p");
            QFAIL("a write to /dev/full succeeded");
        } catch (const cs::Error& e) {
            QVERIFY2(
                std::string(e.what()) == "/dev/full: could not be written: No space left on device",
                e.what());
        }
        QVERIFY(std::filesystem::exists("/dev/full"));
    }

    void fileSizeLimit() {
        // A disk that fills up mid-file, as a size limit does: the error says why, the file
        // that was there is untouched and no temporary is left beside it.
        QTemporaryDir dir;
        const std::filesystem::path file = dir.filePath("labels.csv").toStdString();
        const std::vector<std::int32_t> old = {1, 2, 3};
        cs::io::writeLabelsCsv(file, old, {}, "old");
        const std::string before = contents(file);
        const std::vector<std::int32_t> labels(1'000'000, 7);
        rlimit saved{};
        QVERIFY(::getrlimit(RLIMIT_FSIZE, &saved) == 0);
        const auto previous = std::signal(SIGXFSZ, SIG_IGN);  // else the signal ends the test
        rlimit limit = saved;
        limit.rlim_cur = 64 * 1024;
        QVERIFY(::setrlimit(RLIMIT_FSIZE, &limit) == 0);
        std::string message;
        try {
            cs::io::writeLabelsCsv(file, labels, {}, "new");
        } catch (const cs::Error& e) {
            message = e.what();
        }
        ::setrlimit(RLIMIT_FSIZE, &saved);
        std::signal(SIGXFSZ, previous);
        QCOMPARE(message, file.string() + ": could not be written: File too large");
        QCOMPARE(contents(file), before);
        QCOMPARE(std::distance(std::filesystem::directory_iterator(dir.path().toStdString()),
                               std::filesystem::directory_iterator()),
                 std::ptrdiff_t(1));
    }

    void noNewFileAmongDevices_data() {
        QTest::addColumn<QString>("path");
        QTest::addColumn<bool>("refused");
        QTest::newRow("/dev") << QString("/dev/clusterscope-test.npy") << true;
        QTest::newRow("/dev/../dev") << QString("/dev/../dev/clusterscope-test.npy") << true;
        QTest::newRow("/proc") << QString("/proc/clusterscope-test.csv") << true;
        QTest::newRow("/sys") << QString("/sys/clusterscope-test.csv") << true;
        QTest::newRow("an existing device") << QString("/dev/null") << false;
        QTest::newRow("/dev/shm") << QString("/dev/shm/clusterscope-test.csv") << false;
        QTest::newRow("/tmp") << QString("/tmp/clusterscope-test.csv") << false;
        QTest::newRow("a folder named dev") << QString("dev/clusterscope-test.csv") << false;
    }
    void noNewFileAmongDevices() {
        QFETCH(QString, path);
        QFETCH(bool, refused);
        const std::filesystem::path target = path.toStdString();
        try {
            cs::io::checkOutputTarget(target);
            QVERIFY2(!refused, "no error for a new file among the devices");
        } catch (const cs::Error& e) {
            QVERIFY2(refused, e.what());
            QVERIFY2(std::string(e.what()).starts_with(target.string() + ": not created: "),
                     e.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestWriters)
#include "tst_writers.moc"
