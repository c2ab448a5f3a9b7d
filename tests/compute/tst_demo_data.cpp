// SPDX-License-Identifier: MIT
#include <QTest>

#include <cmath>
#include <cstring>
#include <numeric>
#include <vector>

#include "compute/core/error.h"
#include "compute/demo/demo_data.h"

namespace {

bool samePoints(const cs::PointSet& a, const cs::PointSet& b) {
    return a.n == b.n && a.coords.size() == b.coords.size() &&
           std::memcmp(a.coords.data(), b.coords.data(), a.coords.size() * sizeof(float)) == 0 &&
           a.attributes.size() == b.attributes.size() &&
           a.attributes[0].labels == b.attributes[0].labels;
}

double correlation(std::span<const float> x, std::span<const float> y) {
    const double n = double(x.size());
    const double mx = std::accumulate(x.begin(), x.end(), 0.0) / n;
    const double my = std::accumulate(y.begin(), y.end(), 0.0) / n;
    double sxy = 0, sxx = 0, syy = 0;
    for (std::size_t t = 0; t < x.size(); ++t) {
        sxy += (x[t] - mx) * (y[t] - my);
        sxx += (x[t] - mx) * (x[t] - mx);
        syy += (y[t] - my) * (y[t] - my);
    }
    return sxy / std::sqrt(sxx * syy);
}

}  // namespace

class TestDemoData : public QObject {
    Q_OBJECT

private slots:
    void pointsDeterministic() {
        const auto a = cs::demo::makeDemoPoints(100'000, 42);
        const auto b = cs::demo::makeDemoPoints(100'000, 42);
        const auto c = cs::demo::makeDemoPoints(100'000, 43);
        QVERIFY(samePoints(a, b));
        QVERIFY(!samePoints(a, c));
        QCOMPARE(a.source, std::string("demo:points n=100000 seed=42"));
    }

    void pointsPrefix() {
        // Chunks have their own generators: a smaller scene is the start of a larger one.
        const auto small = cs::demo::makeDemoPoints(70'000, 5);
        const auto large = cs::demo::makeDemoPoints(300'000, 5);
        QVERIFY(std::equal(small.coords.begin(), small.coords.end(), large.coords.begin()));
    }

    void pointsShapes_data() {
        QTest::addColumn<qulonglong>("n");
        QTest::addColumn<qulonglong>("seed");
        QTest::newRow("10k") << 10'000ull << 1ull;
        QTest::newRow("200k") << 200'000ull << 7ull;
        QTest::newRow("1M") << 1'000'000ull << 99ull;
        QTest::newRow("2M") << 2'000'000ull << 12345ull;
    }
    void pointsShapes() {
        QFETCH(qulonglong, n);
        QFETCH(qulonglong, seed);
        const auto s = cs::demo::makeDemoPoints(n, seed);
        s.validate();  // sizes, all finite
        QCOMPARE(s.n, std::size_t(n));
        QCOMPARE(s.dims, std::size_t(3));
        QCOMPARE(s.dimNames, (std::vector<std::string>{"x", "y", "z"}));
        const cs::PointAttribute* truth = s.attribute("truth");
        QVERIFY(truth);
        QCOMPARE(truth->kind, cs::PointAttribute::Kind::Label);
        QCOMPARE(truth->categories,
                 (std::vector<std::string>{"blob 1", "blob 2", "blob 3", "blob 4", "ring", "spiral",
                                           "plane"}));

        std::vector<std::size_t> counts(truth->categories.size() + 1);
        for (auto l : truth->labels) {
            QVERIFY(l >= -1 && l < std::int32_t(truth->categories.size()));
            ++counts[std::size_t(l + 1)];
        }
        const double noise = double(counts[0]) / double(n);
        QVERIFY2(noise > 0.04 && noise < 0.06, qPrintable(QString::number(noise)));
        for (std::size_t k = 1; k < counts.size(); ++k)
            QVERIFY2(double(counts[k]) > 0.03 * double(n),
                     qPrintable(QString::fromStdString(truth->categories[k - 1])));

        // Within the documented box, with the shapes inside it.
        for (float v : s.coords)
            QVERIFY(std::abs(v) < 130);
    }

    void pointsBadParameters() {
        QVERIFY_THROWS_EXCEPTION(cs::Error, cs::demo::makeDemoPoints(0, 1));
        QVERIFY_THROWS_EXCEPTION(cs::Error, cs::demo::makeDemoPoints(std::size_t(1) << 40, 1));
        QCOMPARE(cs::demo::makeDemoPoints(1, 1).n, std::size_t(1));
    }

    void seriesBasics() {
        const auto s = cs::demo::makeDemoSeries(600, 256, 5, 3);
        s.validate();
        QCOMPARE(s.n, std::size_t(600));
        QCOMPARE(s.channels, std::size_t(1));
        QCOMPARE(s.length, std::size_t(256));
        QVERIFY(s.equalLength());
        QCOMPARE(s.classNames,
                 (std::vector<std::string>{"sine", "square", "sawtooth", "bump", "chirp"}));
        QCOMPARE(s.isTest.size(), std::size_t(600));
        QCOMPARE(std::accumulate(s.isTest.begin(), s.isTest.end(), 0), 300);
        std::vector<int> perClassTest(5), perClass(5);
        for (std::size_t i = 0; i < s.n; ++i) {
            ++perClass[std::size_t(s.labels[i])];
            perClassTest[std::size_t(s.labels[i])] += s.isTest[i];
        }
        for (int c = 0; c < 5; ++c) {
            QCOMPARE(perClass[std::size_t(c)], 120);
            QCOMPARE(perClassTest[std::size_t(c)], 60);
        }
        QCOMPARE(s.source, std::string("demo:series n=600 length=256 classes=5 seed=3"));
    }

    void seriesDeterministic() {
        const auto a = cs::demo::makeDemoSeries(100, 64, 4, 9);
        const auto b = cs::demo::makeDemoSeries(100, 64, 4, 9);
        const auto c = cs::demo::makeDemoSeries(100, 64, 4, 10);
        QVERIFY(a.values == b.values);
        QVERIFY(a.values != c.values);
        QVERIFY(a.labels == c.labels);
    }

    void seriesClassesDiffer_data() {
        QTest::addColumn<int>("classes");
        QTest::addColumn<int>("length");
        QTest::newRow("2 classes") << 2 << 128;
        QTest::newRow("5 classes") << 5 << 256;
        QTest::newRow("8 classes") << 8 << 300;
        QTest::newRow("12 classes, repeats") << 12 << 512;
    }
    void seriesClassesDiffer() {
        QFETCH(int, classes);
        QFETCH(int, length);
        const auto s = cs::demo::makeDemoSeries(std::size_t(classes) * 20, std::size_t(length),
                                                std::size_t(classes), 11);
        s.validate();
        QCOMPARE(s.classCount(), std::size_t(classes));
        // Classes with distinct names, and each class more alike inside than across.
        for (int c = 0; c < classes; ++c)
            for (int d = c + 1; d < classes; ++d)
                QVERIFY(s.classNames[c] != s.classNames[d]);
        const auto k = std::size_t(classes);
        std::vector<double> within(k), across(k);
        std::vector<int> nWithin(k), nAcross(k);
        for (std::size_t i = 0; i < s.n; ++i)
            for (std::size_t j = i + 1; j < s.n; ++j) {
                const double r = correlation(s.channel(i, 0), s.channel(j, 0));
                const auto c = std::size_t(s.labels[i]);
                if (s.labels[i] == s.labels[j]) {
                    within[c] += r;
                    ++nWithin[c];
                } else {
                    across[c] += r;
                    ++nAcross[c];
                    across[std::size_t(s.labels[j])] += r;
                    ++nAcross[std::size_t(s.labels[j])];
                }
            }
        for (std::size_t c = 0; c < std::size_t(classes); ++c) {
            const double w = within[c] / nWithin[c], a = across[c] / nAcross[c];
            QVERIFY2(w > a + 0.2, qPrintable(QString("class %1 (%2): within %3, across %4")
                                                 .arg(c)
                                                 .arg(QString::fromStdString(s.classNames[c]))
                                                 .arg(w)
                                                 .arg(a)));
        }
    }

    void seriesBadParameters() {
        QVERIFY_THROWS_EXCEPTION(cs::Error, cs::demo::makeDemoSeries(0, 256, 5, 1));
        QVERIFY_THROWS_EXCEPTION(cs::Error, cs::demo::makeDemoSeries(100, 7, 5, 1));
        QVERIFY_THROWS_EXCEPTION(cs::Error, cs::demo::makeDemoSeries(100, 256, 0, 1));
        QVERIFY_THROWS_EXCEPTION(cs::Error, cs::demo::makeDemoSeries(3, 256, 5, 1));
        QVERIFY_THROWS_EXCEPTION(cs::Error,
                                 cs::demo::makeDemoSeries(std::size_t(1) << 30, 1 << 20, 5, 1));
        const auto tiny = cs::demo::makeDemoSeries(1, 8, 1, 1);
        tiny.validate();
        QCOMPARE(tiny.n, std::size_t(1));
    }
};

QTEST_GUILESS_MAIN(TestDemoData)
#include "tst_demo_data.moc"
