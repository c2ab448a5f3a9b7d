// SPDX-License-Identifier: MIT
// nearestNeighbours (compute/knn/point_neighbours.h), the inspector's exact neighbours of one
// point, against the brute-force kNN oracle (tests/common/knn_oracle.h): the same indices and
// the same distances, bit for bit, on sets with ties, far from the origin, at tiny scales and in
// one and many dimensions; the limits (count above n - 1, one point, a bad index) and cancel.
#include <QTest>

#include <cmath>
#include <string>
#include <vector>

#include "compute/core/error.h"
#include "compute/core/geometry.h"
#include "compute/core/job_control.h"
#include "compute/core/random.h"
#include "compute/knn/point_neighbours.h"
#include "tests/common/error_of.h"
#include "tests/common/knn_oracle.h"

namespace {

constexpr std::uint64_t kSeed = 20261201;

cs::PointSet makeSet(const std::string& kind, std::size_t n, std::size_t d) {
    cs::Random random(kSeed);
    std::vector<float> coords(n * d);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < d; ++j) {
            const double u = double(random.next() >> 11) * 0x1p-53;  // [0, 1)
            float& c = coords[i * d + j];
            if (kind == "uniform")
                c = float(u * 2.0 - 1.0);
            else if (kind == "grid")  // many equal distances: ties go to the lower index
                c = float(int(u * 4.0));
            else if (kind == "duplicates")
                c = 1.5f;
            else if (kind == "far")  // georeferenced: only recentring keeps the digits
                c = float(4.0e6 + u * 10.0);
            else if (kind == "tiny")  // squared differences underflow without the scale
                c = float(u * 1e-30);
        }
    return cs::PointSet::fromCoords(d, std::move(coords));
}

}  // namespace

class TestPointNeighbours : public QObject {
    Q_OBJECT

private slots:
    void matchesTheOracle_data() {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<int>("n");
        QTest::addColumn<int>("dims");
        QTest::addColumn<int>("count");
        QTest::newRow("uniform 3-D") << "uniform" << 3000 << 3 << 10;
        QTest::newRow("uniform 1-D") << "uniform" << 500 << 1 << 7;
        QTest::newRow("uniform 40-D") << "uniform" << 400 << 40 << 12;
        QTest::newRow("grid ties") << "grid" << 600 << 3 << 20;
        QTest::newRow("duplicates") << "duplicates" << 50 << 3 << 10;
        QTest::newRow("far from origin") << "far" << 800 << 3 << 10;
        QTest::newRow("tiny scale") << "tiny" << 800 << 2 << 10;
        // More than one chunk of the parallel scan: the merge keeps the order.
        QTest::newRow("several chunks") << "uniform" << 140000 << 2 << 15;
    }
    void matchesTheOracle() {
        QFETCH(QString, kind);
        QFETCH(int, n);
        QFETCH(int, dims);
        QFETCH(int, count);
        const cs::PointSet points = makeSet(kind.toStdString(), std::size_t(n), std::size_t(dims));
        const cs::RecentredCoords frame = cs::recentredCoords(points);
        // The oracle is O(n^2): its graph over a small prefix would be another set, so the
        // large case compares one row, computed the oracle's way here.
        for (std::size_t query : {std::size_t(0), std::size_t(n / 2), std::size_t(n - 1)}) {
            const auto got = cs::nearestNeighbours(points, query, std::size_t(count));
            QCOMPARE(got.size(), std::size_t(count));
            std::vector<std::pair<float, std::size_t>> all;
            for (std::size_t j = 0; j < std::size_t(n); ++j)
                if (j != query)
                    all.push_back({cs::canonicalDist2(&frame.coords[query * dims],
                                                      &frame.coords[j * dims], std::size_t(dims)),
                                   j});
            std::sort(all.begin(), all.end());
            std::vector<float> want(static_cast<std::size_t>(count));
            for (int q = 0; q < count; ++q)
                want[std::size_t(q)] = std::sqrt(all[std::size_t(q)].first);
            cs::fromRecentred(want, frame.scale);
            for (int q = 0; q < count; ++q) {
                const auto s = std::size_t(q);
                QVERIFY2(got[s].index == all[s].second && got[s].distance == want[s],
                         qPrintable(QStringLiteral("seed %1, point %2, neighbour %3: %4 at %5, "
                                                   "expected %6 at %7")
                                        .arg(kSeed)
                                        .arg(query)
                                        .arg(q)
                                        .arg(got[s].index)
                                        .arg(double(got[s].distance))
                                        .arg(all[s].second)
                                        .arg(double(want[s]))));
            }
        }
        if (n <= 3000) {
            // And the whole row agrees with the kNN graph oracle's.
            const cs::KnnGraph g =
                cs::test::oracleKnnGraph(frame, std::size_t(n), std::size_t(dims), count);
            const std::size_t query = std::size_t(n / 3);
            const auto got = cs::nearestNeighbours(points, query, std::size_t(count));
            for (std::size_t q = 0; q < std::size_t(count); ++q) {
                QCOMPARE(std::int64_t(got[q].index),
                         std::int64_t(g.indices[query * std::size_t(count) + q]));
                QCOMPARE(got[q].distance, g.distances[query * std::size_t(count) + q]);
            }
        }
    }

    void limits() {
        const cs::PointSet points = makeSet("uniform", 5, 3);
        // count beyond the other points: all of them.
        QCOMPARE(cs::nearestNeighbours(points, 2, 100).size(), std::size_t(4));
        QVERIFY(cs::nearestNeighbours(points, 2, 0).empty());
        const cs::PointSet one = makeSet("uniform", 1, 3);
        QVERIFY(cs::nearestNeighbours(one, 0, 10).empty());
        const std::string error = cs::test::errorOf([&] { cs::nearestNeighbours(points, 5, 3); });
        QVERIFY2(error.find("point 5 does not exist") != std::string::npos, error.c_str());
        QVERIFY2(error.find("5 points") != std::string::npos, error.c_str());
        const cs::PointSet empty;
        QVERIFY(!cs::test::errorOf([&] { cs::nearestNeighbours(empty, 0, 3); }).empty());
    }

    void cancels() {
        const cs::PointSet points = makeSet("uniform", 200000, 3);
        cs::JobControl job;
        job.cancel();
        QVERIFY_THROWS_EXCEPTION(cs::Cancelled, cs::nearestNeighbours(points, 0, 10, &job));
    }
};

QTEST_APPLESS_MAIN(TestPointNeighbours)
#include "tst_point_neighbours.moc"
