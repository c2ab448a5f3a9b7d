// SPDX-License-Identifier: MIT
// io::readKnnNpy: a graph written by writeKnnNpy (what clusterscope-cli knn --out writes, also
// under mpirun) reads back onto its cloud, NaN rows included, with or without its distances
// file; every malformed file is refused with a message naming it and the problem.
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "compute/core/error.h"
#include "compute/core/geometry.h"
#include "compute/core/job_control.h"
#include "compute/io/knn_npy_reader.h"
#include "compute/io/npy.h"
#include "compute/io/point_readers.h"
#include "compute/io/writers.h"
#include "compute/knn/knn_cpu.h"
#include "tests/common/error_of.h"

using cs::test::errorOf;

namespace {

constexpr std::size_t kRows = 300;
constexpr std::size_t kK = 6;
const std::vector<std::size_t> kNanRows = {0, 17, 150, 299};

bool bitwiseEqual(const std::vector<float>& a, const std::vector<float>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

}  // namespace

class TestKnnNpyReader : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    int m_files = 0;

    std::filesystem::path path(const std::string& name) {
        return m_dir.filePath(QString::fromStdString(name)).toStdString();
    }
    // A fresh name each time: a file read as an input may not be written over.
    std::filesystem::path fresh(const std::string& stem) {
        return path(stem + "_" + std::to_string(++m_files) + ".npy");
    }

    // A cloud of kRows 3-D rows, kNanRows holding a NaN or an Inf, written as .npy and read
    // back as the GUI reads it (those rows dropped, fileRows kept); scale multiplies the
    // coordinates (1e10 makes the geometry scale them down, 2^-k, before measuring).
    cs::PointSet cloud(double scale, std::uint32_t seed) {
        std::mt19937 rng(seed);
        std::uniform_real_distribution<float> u(-1.0f, 1.0f);
        std::vector<float> coords(kRows * 3);
        for (float& c : coords)
            c = float(double(u(rng)) * scale + 1000.0 * scale);
        for (std::size_t r : kNanRows)
            coords[r * 3 + r % 3] = r % 2 ? std::numeric_limits<float>::infinity()
                                          : std::numeric_limits<float>::quiet_NaN();
        const auto file = fresh("cloud");
        cs::io::writeNpy(file, std::span<const float>(coords), {kRows, 3});
        return cs::io::readNpyPoints(file);
    }

    struct Written {
        cs::KnnGraph graph;
        std::filesystem::path indices, distances;
    };
    Written written(const cs::PointSet& points) {
        cs::JobControl job;
        Written w;
        w.graph = cs::knnGraphCpu(points, {.k = int(kK), .trees = 3, .leafSize = 32}, job);
        w.indices = fresh("graph");
        w.distances = cs::io::knnDistancesPath(w.indices);
        cs::io::writeKnnNpy(w.indices, w.distances, w.graph.n, kK, w.graph.indices,
                            w.graph.distances, cs::io::fileRowsOf(points));
        return w;
    }

    // The written graph's files as arrays, to spoil one thing at a time.
    std::vector<std::int32_t> indicesOf(const Written& w) {
        return cs::io::readNpyInt32(w.indices).values;
    }
    std::vector<float> distancesOf(const Written& w) { return cs::io::readNpy(w.distances).values; }
    std::filesystem::path writeIndices(const std::vector<std::int32_t>& v,
                                       const std::vector<std::size_t>& shape) {
        const auto file = fresh("bad");
        cs::io::writeNpy(file, std::span<const std::int32_t>(v), shape);
        return file;
    }
    std::filesystem::path writeDistances(const std::vector<float>& v,
                                         const std::vector<std::size_t>& shape) {
        const auto file = fresh("bad_distances");
        cs::io::writeNpy(file, std::span<const float>(v), shape);
        return file;
    }

    static void expectError(const std::string& message, const std::filesystem::path& file,
                            const std::string& problem) {
        QVERIFY2(message.find(file.string()) != std::string::npos, message.c_str());
        QVERIFY2(message.find(problem) != std::string::npos,
                 (message + "  [expected: " + problem + "]").c_str());
    }

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void distancesPath() {
        QCOMPARE(cs::io::knnDistancesPath("/x/graph.npy"),
                 std::filesystem::path("/x/graph_distances.npy"));
        QCOMPARE(cs::io::knnDistancesPath("g"), std::filesystem::path("g_distances.npy"));
    }

    void roundTrip_data() {
        QTest::addColumn<double>("scale");
        QTest::addColumn<uint>("seed");
        QTest::newRow("ordinary units") << 1.0 << 11u;
        QTest::newRow("scaled geometry (extent > 2^32)") << 1e10 << 12u;
    }
    void roundTrip() {
        QFETCH(double, scale);
        QFETCH(uint, seed);
        const cs::PointSet points = cloud(scale, seed);
        QCOMPARE(points.n, kRows - kNanRows.size());
        QCOMPARE(points.fileRowCount(), kRows);
        // The second row measures in a scaled frame, as the graph does for such clouds.
        QCOMPARE(cs::recentredCoords(points).scale != 1.0, scale != 1.0);
        const Written w = written(points);

        const cs::KnnGraph read = cs::io::readKnnNpy(w.indices, w.distances, points);
        QCOMPARE(read.n, w.graph.n);
        QCOMPARE(read.k, w.graph.k);
        QCOMPARE(read.indices, w.graph.indices);
        QVERIFY(bitwiseEqual(read.distances, w.graph.distances));
        QCOMPARE(read.treesBuilt, 0);
        QVERIFY(read.recallByTree.empty());

        // Without the distances file they are measured as the graph measured them: the same
        // canonical float distance on the same recentred coordinates, so bit for bit.
        const cs::KnnGraph measured = cs::io::readKnnNpy(w.indices, {}, points);
        QCOMPARE(measured.indices, w.graph.indices);
        QVERIFY(bitwiseEqual(measured.distances, w.graph.distances));
    }

    void refusals() {
        const cs::PointSet points = cloud(1.0, 21);
        const Written w = written(points);
        const std::vector<std::int32_t> good = indicesOf(w);
        const std::vector<float> dist = distancesOf(w);
        const std::vector<std::size_t> shape = {kRows, kK};
        const auto read = [&](const std::filesystem::path& i, const std::filesystem::path& d) {
            return errorOf([&] { cs::io::readKnnNpy(i, d, points); });
        };
        const std::size_t kept = 1, dropped = 17;  // rows of the file
        QVERIFY(errorOf([&] { cs::io::readKnnNpy(w.indices, w.distances, points); }) ==
                "(no error)");

        {  // float32 indices
            const auto f = fresh("float_indices");
            std::vector<float> v(good.begin(), good.end());
            cs::io::writeNpy(f, std::span<const float>(v), shape);
            expectError(read(f, {}), f, "not int32");
        }
        {  // 1-D
            const auto f = writeIndices(good, {good.size()});
            expectError(read(f, {}), f, "not 2-D");
        }
        {  // another cloud's row count
            std::vector<std::int32_t> v(good.begin(), good.end() - kK);
            const auto f = writeIndices(v, {kRows - 1, kK});
            expectError(read(f, {}), f,
                        "has 299 rows, " + points.source + " has 300: the graph is not of these");
        }
        {  // k outside 1..64
            const auto f = writeIndices({}, {kRows, 0});
            expectError(read(f, {}), f, "k = 0 columns, outside 1..64");
            std::vector<std::int32_t> wide(kRows * 65, 1);
            const auto g = writeIndices(wide, {kRows, 65});
            expectError(read(g, {}), g, "k = 65 columns, outside 1..64");
        }
        const auto spoiled = [&](std::size_t at, std::int32_t value) {
            auto v = good;
            v[at] = value;
            return writeIndices(v, shape);
        };
        {  // a neighbour past the rows, or -1, in a kept row
            const auto f = spoiled(kept * kK + 2, std::int32_t(kRows));
            expectError(read(f, {}), f, "row 1, column 2: neighbour 300 is outside [0, 300)");
            const auto g = spoiled(kept * kK, -1);
            expectError(read(g, {}), g, "row 1, column 0: neighbour -1 is outside [0, 300)");
        }
        {  // a neighbour at a dropped row
            const auto f = spoiled(kept * kK + 3, std::int32_t(dropped));
            expectError(read(f, {}), f, "neighbour 17 is a row the cloud dropped");
        }
        {  // a row listing itself
            const auto f = spoiled(kept * kK + 4, std::int32_t(kept));
            expectError(read(f, {}), f, "row 1, column 4: the row lists itself");
        }
        {  // a dropped row that lists a neighbour
            const auto f = spoiled(dropped * kK, 3);
            expectError(read(f, {}), f, "row 17 was dropped from the cloud (NaN/Inf) but lists");
        }
        {  // float64 distances
            const auto f = fresh("double_distances");
            std::vector<double> v(dist.begin(), dist.end());
            cs::io::writeNpy(f, std::span<const double>(v), shape);
            expectError(read(w.indices, f), f, "holds float64, not float32");
        }
        {  // distances of another shape
            std::vector<float> v(dist.begin(), dist.begin() + std::ptrdiff_t(kRows * (kK - 1)));
            const auto f = writeDistances(v, {kRows, kK - 1});
            expectError(read(w.indices, f), f,
                        "has shape (300, 5), " + w.indices.string() +
                            " (300, 6): the distances must match");
        }
        {  // NaN in a kept row (NaN in the dropped rows is what the writer puts there)
            auto v = dist;
            QVERIFY(std::isnan(v[dropped * kK]));
            v[kept * kK + 5] = std::numeric_limits<float>::quiet_NaN();
            const auto f = writeDistances(v, shape);
            expectError(read(w.indices, f), f, "row 1, column 5: NaN distance in a row the cloud");
        }
        {  // no such file
            const auto f = path("missing.npy");
            expectError(read(f, {}), f, "cannot be opened");
            expectError(read(w.indices, f), f, "cannot be opened");
        }
    }
};

QTEST_GUILESS_MAIN(TestKnnNpyReader)
#include "tst_knn_npy_reader.moc"
