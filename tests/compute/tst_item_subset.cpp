// SPDX-License-Identifier: MIT
// Runs on a subset of the items (compute/core/item_subset.h and each algorithm's expand): the
// index ranges, the extracted points and series (file rows kept), the results mapped back to
// the whole set, and the writers that leave the items not run out.
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include "compute/backend/cpu_backend.h"
#include "compute/core/error.h"
#include "compute/core/item_subset.h"
#include "compute/core/point_quantities.h"
#include "compute/dbscan/dbscan_subset.h"
#include "compute/demo/demo_data.h"
#include "compute/io/writers.h"
#include "compute/knn/knn_quantities.h"
#include "compute/knn/knn_subset.h"
#include "compute/kshape/kshape_subset.h"
#include "compute/rocket/rocket_subset.h"

class TestItemSubset : public QObject {
    Q_OBJECT

private slots:
    void rangesRoundTrip_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("canonical");
        QTest::addColumn<int>("count");
        QTest::newRow("one") << "7"
                             << "7" << 1;
        QTest::newRow("range") << "0-4"
                               << "0-4" << 5;
        QTest::newRow("mixed, unordered, repeats") << " 9, 0-2 ,1,4-5,3"
                                                   << "0-5,9" << 7;
        QTest::newRow("trailing comma") << "2,3,"
                                        << "2-3" << 2;
    }
    void rangesRoundTrip() {
        QFETCH(QString, text);
        QFETCH(QString, canonical);
        QFETCH(int, count);
        const auto indices = cs::parseIndexRanges(text.toStdString());
        QCOMPARE(int(indices.size()), count);
        QCOMPARE(QString::fromStdString(cs::indexRangesText(indices)), canonical);
        QCOMPARE(cs::parseIndexRanges(canonical.toStdString()), indices);
    }

    void badRangesSayWhy_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("words");
        QTest::newRow("word") << "a"
                              << "'a' is not an index";
        QTest::newRow("negative") << "-3"
                                  << "not an index";
        QTest::newRow("backwards") << "5-2"
                                   << "ends before it starts";
        QTest::newRow("empty entry") << "1,,2"
                                     << "empty entry";
        QTest::newRow("too large") << "99999999999"
                                   << "not an index";
    }
    void badRangesSayWhy() {
        QFETCH(QString, text);
        QFETCH(QString, words);
        try {
            cs::parseIndexRanges(text.toStdString());
            QFAIL("no error");
        } catch (const cs::Error& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(words), e.what());
        }
    }

    void subsetChecksItsBounds() {
        QVERIFY_THROWS_EXCEPTION(cs::Error, cs::ItemSubset::of({}, 10));
        try {
            cs::ItemSubset::parse("3,10", 10);
            QFAIL("no error");
        } catch (const cs::Error& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("10 does not exist")),
                     e.what());
        }
        const auto s = cs::ItemSubset::of({4, 1, 4}, 6);
        QCOMPARE(s.indices, (std::vector<std::uint32_t>{1, 4}));
        QCOMPARE(s.positions(), (std::vector<std::int64_t>{-1, 0, -1, -1, 1, -1}));
    }

    void pointsKeepTheirFileRows() {
        cs::PointSet p = cs::PointSet::fromCoords(2, {0, 0, 1, 1, 2, 2, 3, 3});
        p.fileRows = {0, 2, 3, 5};  // rows 1 and 4 were dropped for NaN
        p.droppedNonFinite = 2;
        cs::PointAttribute truth{.name = "label", .kind = cs::PointAttribute::Kind::Label};
        truth.labels = {0, 1, 0, 1};
        truth.categories = {"a", "b"};
        p.attributes.push_back(truth);
        const cs::PointSet s = cs::subsetOf(p, cs::ItemSubset::of({1, 3}, 4));
        QCOMPARE(s.n, std::size_t(2));
        QCOMPARE(s.coords, (std::vector<float>{1, 1, 3, 3}));
        QCOMPARE(s.fileRow(0), std::size_t(2));
        QCOMPARE(s.fileRow(1), std::size_t(5));
        QCOMPARE(s.fileRowCount(), p.fileRowCount());
        QCOMPARE(s.groundTruth()->labels, (std::vector<std::int32_t>{1, 1}));
        s.validate();
    }

    void seriesKeepLabelsAndSplit() {
        const cs::SeriesSet all = cs::demo::makeDemoSeries();
        const auto subset = cs::ItemSubset::of({0, 5, 17}, all.n);
        const cs::SeriesSet s = cs::subsetOf(all, subset);
        QCOMPARE(s.n, std::size_t(3));
        QCOMPARE(s.classNames, all.classNames);
        for (std::size_t j = 0; j < 3; ++j) {
            const std::size_t i = subset.indices[j];
            QCOMPARE(s.labels[j], all.labels[i]);
            if (!all.isTest.empty()) QCOMPARE(s.isTest[j], all.isTest[i]);
            QVERIFY(std::equal(s.channel(j, 0).begin(), s.channel(j, 0).end(),
                               all.channel(i, 0).begin()));
        }
        s.validate();
    }

    void dbscanOnASubsetMapsBack() {
        cs::PointSet p = cs::demo::makeDemoPoints(2000, 3);
        const auto subset = cs::ItemSubset::parse("0-499,1000-1999", p.n);
        cs::CpuBackend cpu;
        cs::JobControl job;
        cs::DbscanParams params;
        params.eps = 1.5f;
        params.minPts = 5;
        const cs::DbscanResult part = cpu.dbscan(cs::subsetOf(p, subset), params, job);
        const cs::DbscanResult r = cs::expandDbscanResult(part, subset);
        QCOMPARE(r.labels.size(), p.n);
        for (std::size_t i = 0; i < p.n; ++i) {
            const bool in = i < 500 || i >= 1000;
            const std::size_t j = i < 500 ? i : i - 500;
            QCOMPARE(r.labels[i], in ? part.labels[j] : cs::kNotRun);
            QCOMPARE(r.isCore[i], in ? part.isCore[j] : std::uint8_t(0));
        }
        QCOMPARE(r.clusterCount, part.clusterCount);
        QVERIFY(!r.device);

        // The labels CSV leaves the points not run out and names file rows.
        QTemporaryDir dir;
        const QString csv = dir.filePath(QStringLiteral("l.csv"));
        cs::io::writeLabelsCsv(csv.toStdString(), r.labels, r.isCore, "test",
                               cs::io::fileRowsOf(p));
        QFile file(csv);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const auto lines = file.readAll().trimmed().split('\n');
        QCOMPARE(lines.size(), qsizetype(2 + subset.size()));
        QVERIFY(lines[2].startsWith("0,"));
        QVERIFY(lines[2 + 500].startsWith("1000,"));
    }

    void knnOnASubsetNamesTheSetsPoints() {
        const cs::PointSet p = cs::demo::makeDemoPoints(600, 3);
        const auto subset = cs::ItemSubset::parse("10-309", p.n);
        cs::CpuBackend cpu;
        cs::JobControl job;
        cs::KnnParams params;
        params.k = 4;
        const cs::KnnGraph part = cpu.knnGraph(cs::subsetOf(p, subset), params, job);
        const cs::KnnGraph g = cs::expandKnnGraph(part, subset);
        QCOMPARE(g.n, p.n);
        for (std::size_t i = 0; i < p.n; ++i)
            for (std::size_t c = 0; c < 4; ++c) {
                const std::int32_t t = g.indices[i * 4 + c];
                if (i < 10 || i >= 310) {
                    QCOMPARE(t, -1);
                    QVERIFY(std::isnan(g.distances[i * 4 + c]));
                } else {
                    QCOMPARE(t, part.indices[(i - 10) * 4 + c] + 10);
                }
            }
        // Drawn: no line for the points without neighbours (a pair from the point to itself).
        const auto pairs =
            cs::edgeIndexPairs(cs::knnEdges(std::make_shared<const cs::KnnGraph>(g)));
        QCOMPARE(pairs[0], 0u);
        QCOMPARE(pairs[1], 0u);
        QCOMPARE(pairs[2 * 40 + 1], std::uint32_t(g.indices[40]));
    }

    void seriesResultsMapBack() {
        const auto subset = cs::ItemSubset::of({1, 3}, 5);
        cs::KShapeResult k;
        k.labels = {0, 1};
        k.distances = {0.1f, 0.2f};
        k.shifts = {3, -2};
        k.k = 2;
        const cs::KShapeResult ks = cs::expandKShapeResult(k, subset);
        QCOMPARE(ks.labels,
                 (std::vector<std::int32_t>{cs::kNotRun, 0, cs::kNotRun, 1, cs::kNotRun}));
        QCOMPARE(ks.shifts, (std::vector<std::int32_t>{0, 3, 0, -2, 0}));
        QVERIFY(std::isnan(ks.distances[0]));
        cs::RocketFeatures f;
        f.n = 2;
        f.kernels = 1;
        f.layers = 2;
        f.values = {1, 2, 3, 4};
        const cs::RocketFeatures fs = cs::expandRocketFeatures(f, subset);
        QCOMPARE(fs.n, std::size_t(5));
        QCOMPARE(std::vector<float>(fs.values.begin(), fs.values.end()),
                 (std::vector<float>{0, 0, 1, 2, 0, 0, 3, 4, 0, 0}));
    }
};

QTEST_APPLESS_MAIN(TestItemSubset)
#include "tst_item_subset.moc"
