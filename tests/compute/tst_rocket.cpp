// SPDX-License-Identifier: MIT
// ROCKET on the CPU against compute/rocket/rocket.h and an independent oracle
// (tests/common/rocket_oracle.h): the kernels' properties, features bit for bit on univariate,
// multivariate and variable-length UCR/UEA data (../shared/data/ucr), thread-count
// independence, the normalisation, the feature map; the ridge classifier against a brute-force
// leave-one-out and a direct solve; test accuracies near the published ones; bad input and
// cancellation.
#include <QTest>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <numeric>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "compute/backend/cpu_backend.h"
#include "compute/core/error.h"
#include "compute/core/random.h"
#include "compute/demo/shape_series.h"
#include "compute/io/series_readers.h"
#include "compute/rocket/ridge.h"
#include "compute/rocket/rocket.h"
#include "compute/rocket/rocket_cpu.h"
#include "compute/rocket/rocket_quantities.h"
#include "tests/common/error_of.h"
#include "tests/common/rocket_oracle.h"
#include "tests/common/test_paths.h"

#ifdef __linux__
#include <sys/resource.h>
#endif

namespace {

using cs::test::errorOf;

// Every n-th series of a set (all of it for every = 1).
cs::SeriesSet everyNth(const cs::SeriesSet& s, std::size_t every) {
    cs::SeriesSet out = s;
    out.values.clear();
    out.lengths.clear();
    out.labels.clear();
    out.isTest.clear();
    out.n = 0;
    const std::size_t stride = s.channels * s.length;
    for (std::size_t i = 0; i < s.n; i += every) {
        out.values.insert(out.values.end(), s.values.begin() + std::ptrdiff_t(i * stride),
                          s.values.begin() + std::ptrdiff_t((i + 1) * stride));
        out.lengths.push_back(s.lengths[i]);
        if (!s.labels.empty()) out.labels.push_back(s.labels[i]);
        if (!s.isTest.empty()) out.isTest.push_back(s.isTest[i]);
        ++out.n;
    }
    return out;
}

cs::SeriesSet ucr(const char* name) {
    return cs::io::readSeriesWithSplit(
        cs::test::sharedData(std::string("ucr/") + name + "/" + name + "_TRAIN.ts"));
}

// Test data. Kinds: a UCR/UEA name (TRAIN + TEST) with every `every`-th series; "short": 40
// series of length 3 over 2 channels (every kernel is longer than the series), some constant;
// "generated": demo::makeShapeSeries(60, 64, 3).
cs::SeriesSet makeSeries(const QString& kind, std::size_t every) {
    if (kind == "generated") return cs::demo::makeShapeSeries(60, 64, 3, 5);
    if (kind == "short") {
        cs::SeriesSet s;
        s.n = 40;
        s.channels = 2;
        s.length = 3;
        s.lengths.assign(s.n, 3);
        cs::Random rng(17);
        for (std::size_t i = 0; i < s.n * 6; ++i)
            s.values.push_back(i / 6 % 5 == 0 ? 2.5f : float(rng.normal()));
        return s;
    }
    return everyNth(ucr(kind.toUtf8().constData()), every);
}

// The first differing feature, or empty.
QString featureDifference(std::span<const float> a, std::span<const float> b, std::size_t cols) {
    if (a.size() != b.size()) return QString("sizes %1 vs %2").arg(a.size()).arg(b.size());
    for (std::size_t i = 0; i < a.size(); ++i)
        if (std::bit_cast<std::uint32_t>(a[i]) != std::bit_cast<std::uint32_t>(b[i]))
            return QString("series %1 kernel %2 %3: %4 vs %5")
                .arg(i / cols)
                .arg(i % cols / 2)
                .arg(i % 2 ? "MAX" : "PPV")
                .arg(double(a[i]), 0, 'g', 9)
                .arg(double(b[i]), 0, 'g', 9);
    return {};
}

cs::RocketFeatures transform(const cs::SeriesSet& s, const cs::RocketKernels& k, int threads = 2) {
    cs::JobControl job;
    return cs::rocketTransformCpu(s, k, job, threads);
}

// ---- ridge helpers ------------------------------------------------------------------------------

using Mat = std::vector<std::vector<double>>;

// Solves A x = b (A square) by Gaussian elimination with partial pivoting.
std::vector<double> solve(Mat a, std::vector<double> b) {
    const std::size_t n = b.size();
    for (std::size_t col = 0; col < n; ++col) {
        std::size_t piv = col;
        for (std::size_t r = col + 1; r < n; ++r)
            if (std::abs(a[r][col]) > std::abs(a[piv][col])) piv = r;
        std::swap(a[col], a[piv]);
        std::swap(b[col], b[piv]);
        for (std::size_t r = col + 1; r < n; ++r) {
            const double f = a[r][col] / a[col][col];
            for (std::size_t c = col; c < n; ++c)
                a[r][c] -= f * a[col][c];
            b[r] -= f * b[col];
        }
    }
    std::vector<double> x(n);
    for (std::size_t r = n; r-- > 0;) {
        double s = b[r];
        for (std::size_t c = r + 1; c < n; ++c)
            s -= a[r][c] * x[c];
        x[r] = s / a[r][r];
    }
    return x;
}

// Ridge with an unpenalised intercept on the rows `use` of z (standardised features) and y
// (one target column): w from (Zc^T Zc + alpha I) w = Zc^T yc on the rows' own centring, and
// the intercept b = mean(y) - mean(z) . w.
std::pair<std::vector<double>, double> ridgeFit(const Mat& z, const std::vector<double>& y,
                                                const std::vector<std::size_t>& use, double alpha) {
    const std::size_t p = z[0].size();
    std::vector<double> zm(p, 0.0);
    double ym = 0.0;
    for (auto r : use) {
        for (std::size_t j = 0; j < p; ++j)
            zm[j] += z[r][j] / double(use.size());
        ym += y[r] / double(use.size());
    }
    Mat a(p, std::vector<double>(p, 0.0));
    std::vector<double> rhs(p, 0.0);
    for (auto r : use)
        for (std::size_t j = 0; j < p; ++j) {
            const double zj = z[r][j] - zm[j];
            rhs[j] += zj * (y[r] - ym);
            for (std::size_t l = 0; l < p; ++l)
                a[j][l] += zj * (z[r][l] - zm[l]);
        }
    for (std::size_t j = 0; j < p; ++j)
        a[j][j] += alpha;
    const auto w = solve(a, rhs);
    double b = ym;
    for (std::size_t j = 0; j < p; ++j)
        b -= zm[j] * w[j];
    return {w, b};
}

std::vector<std::string> stageNames(const cs::JobControl& job) {
    std::vector<std::string> names;
    for (const auto& t : job.timings())
        names.push_back(t.name);
    return names;
}

// The first way two ridge models of the same data differ beyond rounding (the two paths are
// equal in exact arithmetic), or empty.
QString ridgeDifference(const cs::RidgeModel& a, const cs::RidgeModel& b) {
    if (a.alpha != b.alpha) return QString("alpha %1 vs %2").arg(a.alpha).arg(b.alpha);
    if (a.looError.size() != b.looError.size()) return "looError sizes differ";
    for (std::size_t i = 0; i < a.looError.size(); ++i)
        if (!(std::abs(a.looError[i] - b.looError[i]) <= 1e-9 * a.looError[i]))
            return QString("alpha %1: LOO error %2 vs %3")
                .arg(a.alphas[i])
                .arg(a.looError[i], 0, 'g', 17)
                .arg(b.looError[i], 0, 'g', 17);
    if (a.looAccuracy != b.looAccuracy)
        return QString("LOO accuracy %1 vs %2").arg(a.looAccuracy).arg(b.looAccuracy);
    if (a.intercept != b.intercept || a.mean != b.mean || a.scale != b.scale)
        return "intercepts or standardisation differ";
    if (a.weights.size() != b.weights.size()) return "weight counts differ";
    double largest = 0.0, worst = 0.0;
    for (std::size_t e = 0; e < a.weights.size(); ++e) {
        largest = std::max(largest, std::abs(a.weights[e]));
        worst = std::max(worst, std::abs(a.weights[e] - b.weights[e]));
    }
    if (!(worst <= 1e-8 * largest))
        return QString("weights differ by %1 (largest %2)").arg(worst).arg(largest);
    return {};
}

#ifdef __linux__
// The process's peak resident memory so far.
std::size_t peakResidentBytes() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return std::size_t(usage.ru_maxrss) * 1024;
}
#endif

struct Accuracy {
    double test = 0.0, loo = 0.0, alpha = 0.0, seconds = 0.0;
};

// ROCKET + ridge on a TRAIN/TEST set: fit on the train rows, the accuracy on the test rows.
Accuracy rocketAccuracy(const cs::SeriesSet& s, int kernels, std::uint64_t seed) {
    const auto start = std::chrono::steady_clock::now();
    const auto k = cs::makeRocketKernels({.kernels = kernels, .seed = seed}, s.length, s.channels);
    cs::CpuBackend backend;
    cs::JobControl job;
    const auto f = backend.rocketTransform(s, k, job);
    std::vector<std::int32_t> train(s.n, -1);
    for (std::size_t i = 0; i < s.n; ++i)
        if (!s.isTest[i]) train[i] = s.labels[i];
    const auto model = backend.ridgeFit(f, train, int(s.classCount()), {}, job);
    const auto predicted = cs::ridgePredict(model, f.values, f.n);
    std::size_t tests = 0, correct = 0;
    for (std::size_t i = 0; i < s.n; ++i)
        if (s.isTest[i] && s.labels[i] >= 0) {
            ++tests;
            correct += predicted[i] == s.labels[i];
        }
    Accuracy a;
    a.test = double(correct) / double(tests);
    a.loo = model.looAccuracy;
    a.alpha = model.alpha;
    a.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return a;
}

}  // namespace

class TestRocket : public QObject {
    Q_OBJECT

private slots:
    // ---- kernels ----------------------------------------------------------------------------

    void kernelProperties_data() {
        QTest::addColumn<qulonglong>("length");
        QTest::addColumn<qulonglong>("channels");
        QTest::addColumn<int>("kernels");
        QTest::newRow("GunPoint-like") << 150ull << 1ull << 4000;
        QTest::newRow("BasicMotions-like") << 100ull << 6ull << 2000;
        QTest::newRow("many channels") << 29ull << 12ull << 2000;
        QTest::newRow("shorter than the kernels") << 5ull << 3ull << 1000;
        QTest::newRow("length 2") << 2ull << 1ull << 300;
        QTest::newRow("long") << 5000ull << 1ull << 2000;
    }
    void kernelProperties() {
        QFETCH(qulonglong, length);
        QFETCH(qulonglong, channels);
        QFETCH(int, kernels);
        const auto k = cs::makeRocketKernels({.kernels = kernels, .seed = 7}, length, channels);
        QCOMPARE(k.count(), std::size_t(kernels));
        QCOMPARE(k.length, std::size_t(length));
        QCOMPARE(k.channels, std::size_t(channels));
        std::set<int> lengths, counts;
        std::size_t padded = 0, maxDilation = 1;
        std::size_t channelAt = 0, weightAt = 0;
        for (std::size_t w = 0; w < k.count(); ++w) {
            const int m = k.lengths[w], d = k.dilations[w], p = k.paddings[w];
            const auto ctx = qPrintable(QString("kernel %1: m %2 d %3 p %4 channels %5")
                                            .arg(w)
                                            .arg(m)
                                            .arg(d)
                                            .arg(p)
                                            .arg(k.channelCounts[w]));
            lengths.insert(m);
            QVERIFY2(m == 7 || m == 9 || m == 11, ctx);
            QVERIFY2(k.biases[w] >= -1.0f && k.biases[w] < 1.0f, ctx);
            // d = floor(2^u) with u < log2((L - 1) / (m - 1)), the range clamped at 0.
            QVERIFY2(d >= 1, ctx);
            QVERIFY2(d == 1 || double(d) < double(length - 1) / double(m - 1), ctx);
            maxDilation = std::max(maxDilation, std::size_t(d));
            QVERIFY2(p == 0 || p == (m - 1) * d / 2, ctx);
            padded += p > 0;
            // Unpadded only when the kernel fits; at least one output always.
            QVERIFY2(p > 0 || std::size_t((m - 1) * d + 1) <= length, ctx);
            QVERIFY2(std::int64_t(length) + 2 * p - std::int64_t(m - 1) * d >= 1, ctx);
            // Channels: 1 .. min(C, m), ascending and distinct, in range.
            const int cc = k.channelCounts[w];
            counts.insert(cc);
            QVERIFY2(cc >= 1 && std::size_t(cc) <= std::min<std::size_t>(channels, m), ctx);
            QCOMPARE(std::size_t(k.channelStart[w]), channelAt);
            QCOMPARE(std::size_t(k.weightStart[w]), weightAt);
            for (int c = 0; c < cc; ++c) {
                const int ch = k.channelIndex[channelAt + c];
                QVERIFY2(ch >= 0 && std::size_t(ch) < channels, ctx);
                if (c > 0) QVERIFY2(ch > k.channelIndex[channelAt + c - 1], ctx);
                // Weights centred per channel (in double before rounding: tiny mean).
                double mean = 0.0, sq = 0.0;
                for (int j = 0; j < m; ++j) {
                    const double v = k.weights[weightAt + std::size_t(c * m + j)];
                    mean += v / m;
                    sq += v * v / m;
                }
                QVERIFY2(std::abs(mean) < 1e-6, ctx);
                QVERIFY2(sq > 0.0, ctx);
            }
            channelAt += std::size_t(cc);
            weightAt += std::size_t(cc * m);
        }
        QCOMPARE(k.channelIndex.size(), channelAt);
        QCOMPARE(k.weights.size(), weightAt);
        QCOMPARE(lengths, (std::set<int>{7, 9, 11}));
        // About half the kernels padded (plus every one that does not fit).
        if (length > 20) {
            QVERIFY2(padded > k.count() * 4 / 10 && padded < k.count() * 6 / 10,
                     qPrintable(QString("%1 of %2 padded").arg(padded).arg(k.count())));
            QVERIFY2(maxDilation >= (length - 1) / 10 / 2,
                     qPrintable(QString("largest dilation %1").arg(maxDilation)));
        } else if (length < 7) {
            QCOMPARE(padded, k.count());
            QCOMPARE(maxDilation, std::size_t(1));
        }
        if (channels > 2) QVERIFY(counts.size() >= 3);
        if (channels == 1) QCOMPARE(counts, (std::set<int>{1}));
        // Normal weights: overall variance about (m - 1) / m of 1.
        double sq = 0.0;
        for (float v : k.weights)
            sq += double(v) * v;
        const double var = sq / double(k.weights.size());
        QVERIFY2(var > 0.75 && var < 1.0, qPrintable(QString("weight variance %1").arg(var)));
    }

    void kernelsDeterministic() {
        const auto a = cs::makeRocketKernels({.kernels = 500, .seed = 3}, 120, 4);
        const auto b = cs::makeRocketKernels({.kernels = 500, .seed = 3}, 120, 4);
        const auto c = cs::makeRocketKernels({.kernels = 500, .seed = 4}, 120, 4);
        QVERIFY(a.weights == b.weights && a.biases == b.biases && a.dilations == b.dilations &&
                a.paddings == b.paddings && a.channelIndex == b.channelIndex &&
                a.lengths == b.lengths);
        QVERIFY(a.weights != c.weights && a.biases != c.biases);
        // The first kernels do not depend on how many follow.
        const auto d = cs::makeRocketKernels({.kernels = 100, .seed = 3}, 120, 4);
        QVERIFY(std::equal(d.biases.begin(), d.biases.end(), a.biases.begin()));
        QVERIFY(std::equal(d.weights.begin(), d.weights.end(), a.weights.begin()));
    }

    // ---- transform against the oracle --------------------------------------------------------

    void transformMatchesOracle_data() {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<qulonglong>("every");
        QTest::addColumn<int>("kernels");
        QTest::addColumn<bool>("normalise");
        QTest::newRow("GunPoint (univariate)") << "GunPoint" << 1ull << 400 << true;
        QTest::newRow("ItalyPowerDemand (length 24)") << "ItalyPowerDemand" << 4ull << 500 << true;
        QTest::newRow("BasicMotions (6 channels)") << "BasicMotions" << 1ull << 400 << true;
        QTest::newRow("JapaneseVowels (12 channels, variable)")
            << "JapaneseVowels" << 2ull << 400 << true;
        QTest::newRow("JapaneseVowels, not normalised") << "JapaneseVowels" << 3ull << 300 << false;
        QTest::newRow("PLAID subset (variable, up to 1344)") << "PLAID" << 25ull << 150 << true;
        QTest::newRow("short series, constant ones") << "short" << 1ull << 500 << true;
        QTest::newRow("generated, 3 channels") << "generated" << 1ull << 600 << true;
        QTest::newRow("generated, not normalised") << "generated" << 1ull << 200 << false;
    }
    void transformMatchesOracle() {
        QFETCH(QString, kind);
        QFETCH(qulonglong, every);
        QFETCH(int, kernels);
        QFETCH(bool, normalise);
        const auto s = makeSeries(kind, every);
        const auto k = cs::makeRocketKernels(
            {.kernels = kernels, .seed = 11, .normalise = normalise}, s.length, s.channels);
        QCOMPARE(k.normalise, normalise);
        const auto f = transform(s, k, 2);
        QCOMPARE(f.n, s.n);
        QCOMPARE(f.kernels, std::size_t(kernels));
        QCOMPARE(f.values.size(), s.n * 2 * std::size_t(kernels));
        QVERIFY(!f.device);
        const auto oracle = cs::test::oracleRocketFeatures(s, k);
        const QString diff = featureDifference(f.values, oracle, f.columns());
        QVERIFY2(diff.isEmpty(), qPrintable(kind + ": " + diff));
        // Sanity: PPV in [0, 1], and the features vary.
        std::set<float> ppvs;
        for (std::size_t i = 0; i < s.n; ++i)
            for (std::size_t w = 0; w < f.kernels; ++w) {
                QVERIFY(f.ppv(i, w) >= 0.0f && f.ppv(i, w) <= 1.0f);
                ppvs.insert(f.ppv(i, w));
            }
        QVERIFY(ppvs.size() > 2);
    }

    void threadsAgree() {
        const auto s = makeSeries("JapaneseVowels", 3);
        const auto k = cs::makeRocketKernels({.kernels = 700, .seed = 2}, s.length, s.channels);
        const auto one = transform(s, k, 1);
        const auto three = transform(s, k, 3);
        QVERIFY2(featureDifference(one.values, three.values, one.columns()).isEmpty(),
                 qPrintable(featureDifference(one.values, three.values, one.columns())));
        cs::CpuBackend backend(0);
        cs::JobControl job;
        const auto viaBackend = backend.rocketTransform(s, k, job);
        QVERIFY(featureDifference(one.values, viaBackend.values, one.columns()).isEmpty());
        // One series, more threads than work items.
        const auto single = everyNth(s, s.n);
        const auto k1 = cs::makeRocketKernels({.kernels = 5, .seed = 2}, s.length, s.channels);
        QVERIFY(featureDifference(transform(single, k1, 8).values,
                                  cs::test::oracleRocketFeatures(single, k1), 10)
                    .isEmpty());
    }

    // Each series is convolved over its own length: more padding after every series (a longer
    // set, the same kernels) changes no feature; zero-padded convolution would change the PPVs.
    // A series too short for a kernel's span gets PPV 0 and MAX 0.
    void unequalLengthsAreNative() {
        const auto s = makeSeries("JapaneseVowels", 4);
        const auto k = cs::makeRocketKernels({.kernels = 300, .seed = 5}, s.length, s.channels);
        auto longer = s;
        longer.length = s.length + 40;
        longer.values.assign(longer.n * longer.channels * longer.length, 0.0f);
        for (std::size_t i = 0; i < s.n; ++i)
            for (std::size_t c = 0; c < s.channels; ++c)
                std::copy_n(
                    s.values.begin() + std::ptrdiff_t((i * s.channels + c) * s.length), s.length,
                    longer.values.begin() + std::ptrdiff_t((i * s.channels + c) * longer.length));
        auto kLonger = k;
        kLonger.length = longer.length;
        const auto a = transform(s, k, 2), b = transform(longer, kLonger, 2);
        QVERIFY2(featureDifference(a.values, b.values, a.columns()).isEmpty(),
                 qPrintable(featureDifference(a.values, b.values, a.columns())));

        cs::SeriesSet tiny;
        tiny.n = 2;
        tiny.channels = 1;
        tiny.length = 200;
        tiny.values.assign(400, 0.0f);
        tiny.lengths = {200, 3};
        for (std::size_t t = 0; t < 200; ++t) {
            tiny.values[t] = float(std::sin(0.1 * double(t)));
            if (t < 3) tiny.values[200 + t] = float(t);
        }
        const auto kt = cs::makeRocketKernels({.kernels = 200, .seed = 3}, 200, 1);
        const auto f = transform(tiny, kt, 1);
        int empty = 0;
        for (std::size_t w = 0; w < kt.count(); ++w) {
            const long long outputs =
                3 + 2LL * kt.paddings[w] - (kt.lengths[w] - 1LL) * kt.dilations[w];
            if (outputs > 0) continue;
            ++empty;
            QCOMPARE(f.ppv(1, w), 0.0f);
            QCOMPARE(f.values[f.columns() + 2 * w + 1], 0.0f);
        }
        QVERIFY(empty > 0);
        QVERIFY(featureDifference(f.values, cs::test::oracleRocketFeatures(tiny, kt), f.columns())
                    .isEmpty());
    }

    // ---- normalisation ------------------------------------------------------------------------

    void normalisation() {
        cs::SeriesSet s;
        s.n = 3;
        s.channels = 2;
        s.length = 5;
        s.values = {
            5,    5, 5, 5, 5,  // series 0 channel 0: constant -> zeros
            1,    2, 3, 4, 6,  // series 0 channel 1
            1,    2, 3, 0, 0,  // series 1 channel 0: true length 3
            7,    7, 7, 0, 0,  // series 1 channel 1: constant over its true length
            0.1f, 0, 0, 0, 0,  // series 2 channel 0: true length 1 -> zero
            -3,   0, 0, 0, 0,
        };
        s.lengths = {5, 3, 1};
        const auto x = cs::rocketNormalised(s);
        QCOMPARE(x.size(), s.values.size());
        for (std::size_t t = 0; t < 5; ++t)
            QCOMPARE(x[t], 0.0f);
        // Series 0 channel 1 by hand in double.
        const double mean = 16.0 / 5.0;
        double var = 0.0;
        for (double v : {1.0, 2.0, 3.0, 4.0, 6.0})
            var += (v - mean) * (v - mean) / 5.0;
        for (std::size_t t = 0; t < 5; ++t)
            QCOMPARE(x[5 + t], float((double(s.values[5 + t]) - mean) / std::sqrt(var)));
        // True length 3: (x - 2) / sqrt(2 / 3), zeros after.
        const double sd = std::sqrt(2.0 / 3.0);
        QCOMPARE(x[10], float(-1.0 / sd));
        QCOMPARE(x[11], 0.0f);
        QCOMPARE(x[12], float(1.0 / sd));
        QCOMPARE(x[13], 0.0f);
        QCOMPARE(x[14], 0.0f);
        for (std::size_t t = 15; t < 30; ++t)
            QCOMPARE(x[t], 0.0f);
        // Mean 0 and sd 1 over the true length on real variable-length data, zeros after, and
        // the oracle's normalisation bit for bit.
        const auto vowels = makeSeries("JapaneseVowels", 1);
        const auto xv = cs::rocketNormalised(vowels);
        QVERIFY(featureDifference(xv, cs::test::oracleRocketInput(vowels), 2).isEmpty());
        bool sawShort = false;
        for (std::size_t i = 0; i < vowels.n; ++i)
            for (std::size_t c = 0; c < vowels.channels; ++c) {
                const float* v = xv.data() + (i * vowels.channels + c) * vowels.length;
                const std::size_t len = vowels.lengths[i];
                sawShort = sawShort || len < vowels.length;
                double m = 0.0, q = 0.0;
                for (std::size_t t = 0; t < len; ++t) {
                    m += v[t] / double(len);
                    q += double(v[t]) * v[t] / double(len);
                }
                QVERIFY(std::abs(m) < 1e-5 && std::abs(q - 1.0) < 1e-4);
                for (std::size_t t = len; t < vowels.length; ++t)
                    QCOMPARE(v[t], 0.0f);
            }
        QVERIFY(sawShort);
        // Scale and shift invariance of the features: the input is normalised first.
        auto shifted = vowels;
        for (auto& v : shifted.values)
            v = v * 4.0f + 0.0f;
        const auto k = cs::makeRocketKernels({.kernels = 50, .seed = 1}, vowels.length, 12);
        const auto a = transform(vowels, k), b = transform(shifted, k);
        for (std::size_t i = 0; i < a.values.size(); i += 2)
            QCOMPARE(a.values[i], b.values[i]);  // PPV (exact: x 4 is exact in float)
    }

    // ---- feature map --------------------------------------------------------------------------

    void featureMap() {
        // ROCKET's features as a feature matrix (layers PPV, MAX) and its column z-scores.
        auto f = std::make_shared<cs::RocketFeatures>();
        f->n = 3;
        f->kernels = 3;
        // [PPV, MAX] x 3 kernels per series; kernel 1's MAX is constant.
        f->values = {0.5f,  1.0f, 0.2f, 4.0f, 0.0f, -1.0f,  //
                     0.25f, 3.0f, 0.2f, 4.0f, 1.0f, 2.0f,   //
                     0.75f, 8.0f, 0.2f, 4.0f, 0.5f, 0.5f};
        const auto kernels = std::make_shared<const cs::RocketKernels>(
            cs::makeRocketKernels({.kernels = 3, .seed = 2}, 40, 1));
        const cs::FeatureMatrix m = cs::rocketFeatureMatrix(f, kernels);
        QVERIFY(bool(m));
        QCOMPARE(m.rows, std::size_t(3));
        QCOMPARE(m.columns, std::size_t(3));
        QCOMPARE(m.layers, std::size_t(2));
        QCOMPARE(m.layerNames, (std::vector<std::string>{"PPV", "MAX"}));
        QCOMPARE(m.values.data(), f->values.data());  // no copy
        QCOMPARE(m.value(1, 2, 1), 2.0f);
        QCOMPARE(m.value(2, 0, 0), 0.75f);
        char bias[32];
        std::snprintf(bias, sizeof bias, ", bias %.4g", double(kernels->biases[1]));
        QCOMPARE(m.describeColumn(1), "length " + std::to_string(kernels->lengths[1]) +
                                          ", dilation " + std::to_string(kernels->dilations[1]) +
                                          ", padding " + std::to_string(kernels->paddings[1]) +
                                          bias);
        const std::vector<std::uint32_t> order{2, 0};
        const auto map = cs::columnZScores(m, order, 1, 2);
        QCOMPARE(map.size(), std::size_t(4));
        const double mean = 4.0, sd = std::sqrt(((1 - 4.0) * (1 - 4.0) + 1 + 16) / 3.0);
        QCOMPARE(map[0], float((8.0 - mean) / sd));
        QCOMPARE(map[1], 0.0f);  // constant column
        QCOMPARE(map[2], float((1.0 - mean) / sd));
        QCOMPARE(map[3], 0.0f);
        const auto stats = cs::columnStatistics(m, 0, 1);
        QCOMPARE(stats.mean, mean);
        QCOMPARE(stats.deviation, sd);
        const auto ppv = cs::columnZScores(m, std::vector<std::uint32_t>{0, 1, 2}, 0, 3);
        QCOMPARE(ppv.size(), std::size_t(9));
        const double sd0 = std::sqrt((0.0625 + 0.0625) / 3.0);
        QCOMPARE(ppv[0], 0.0f);
        QCOMPARE(ppv[3], float(-0.25 / sd0));
        QCOMPARE(ppv[1], 0.0f);  // kernel 1's PPV is constant too
        double colMean = 0.0;
        for (std::size_t r = 0; r < 3; ++r)
            colMean += ppv[r * 3 + 2];
        QVERIFY(std::abs(colMean) < 1e-6);
        QVERIFY(cs::columnZScores(m, {}, 1, 3).empty());
        const std::string tooWide = errorOf([&] { cs::columnZScores(m, order, 1, 4); });
        QVERIFY2(tooWide.find("4 columns") != std::string::npos, tooWide.c_str());
        const std::string noLayer = errorOf([&] { cs::columnZScores(m, order, 2, 1); });
        QVERIFY2(noLayer.find("no layer 2") != std::string::npos, noLayer.c_str());
        const std::vector<std::uint32_t> bad{0, 3};
        const std::string badRow = errorOf([&] { cs::columnZScores(m, bad, 0, 1); });
        QVERIFY2(badRow.find("series 3 of 3") != std::string::npos, badRow.c_str());
        // Values that do not match the shape are refused, not read past their end.
        cs::FeatureMatrix short_ = m;
        short_.values = short_.values.first(17);
        const std::string shape = errorOf([&] { cs::columnZScores(short_, order, 0, 1); });
        QVERIFY2(shape.find("hold 17 values") != std::string::npos, shape.c_str());
        QVERIFY(!cs::rocketFeatureMatrix(nullptr));
    }

    // ---- ridge --------------------------------------------------------------------------------

    void ridgeMatchesBruteForce_data() {
        QTest::addColumn<qulonglong>("n");
        QTest::addColumn<qulonglong>("p");
        QTest::addColumn<int>("classes");
        QTest::addColumn<int>("solver");
        const int automatic = int(cs::RidgeSolver::Automatic), gram = int(cs::RidgeSolver::Gram),
                  covariance = int(cs::RidgeSolver::Covariance);
        QTest::newRow("p < n, 3 classes") << 18ull << 5ull << 3 << automatic;
        QTest::newRow("p < n, 3 classes, Gram") << 18ull << 5ull << 3 << gram;
        QTest::newRow("p > n, 3 classes") << 15ull << 40ull << 3 << automatic;
        QTest::newRow("p > n, 3 classes, covariance") << 15ull << 40ull << 3 << covariance;
        QTest::newRow("p > n, 2 classes") << 12ull << 30ull << 2 << automatic;
        QTest::newRow("n = p + 1, 2 classes") << 13ull << 12ull << 2 << automatic;
        QTest::newRow("n = p + 1, 2 classes, Gram") << 13ull << 12ull << 2 << gram;
        QTest::newRow("p = 1") << 10ull << 1ull << 2 << automatic;
        QTest::newRow("p = 1, Gram") << 10ull << 1ull << 2 << gram;
    }
    void ridgeMatchesBruteForce() {
        QFETCH(qulonglong, n);
        QFETCH(qulonglong, p);
        QFETCH(int, classes);
        QFETCH(int, solver);
        cs::Random rng(n * 131 + p);
        std::vector<float> x(n * p);
        std::vector<std::int32_t> labels(n + 2);
        for (std::size_t i = 0; i < n; ++i) {
            labels[i] = std::int32_t(i % std::size_t(classes));
            for (std::size_t j = 0; j < p; ++j)
                x[i * p + j] = float(rng.normal() + (j % 3 == 0 ? 0.8 * labels[i] : 0.0));
        }
        if (p > 1)  // a constant column
            for (std::size_t i = 0; i < n; ++i)
                x[i * p + p - 1] = 3.0f;
        // Two unlabelled rows with wild values: skipped.
        x.resize((n + 2) * p);
        for (std::size_t j = 0; j < p; ++j) {
            x[n * p + j] = 1e6f;
            x[(n + 1) * p + j] = -1e6f;
        }
        labels[n] = labels[n + 1] = -1;
        const std::vector<float>& all = x;
        const std::vector<double> alphas{1e-3, 0.1, 1.0, 10.0, 1e3};
        cs::JobControl job;
        const auto model =
            cs::fitRidgeClassifier(all, n + 2, p, labels, classes,
                                   {.alphas = alphas, .solver = cs::RidgeSolver(solver)}, job);
        const bool viaGram =
            cs::ridgeSolverFor(n, p, cs::RidgeSolver(solver)) == cs::RidgeSolver::Gram;
        QCOMPARE(stageNames(job)[1], std::string(viaGram ? "gram" : "covariance"));
        QCOMPARE(model.features, std::size_t(p));
        QCOMPARE(model.alphas, alphas);
        QCOMPARE(model.looError.size(), alphas.size());

        // Standardised training features and targets, by hand.
        Mat z(n, std::vector<double>(p));
        for (std::size_t j = 0; j < p; ++j) {
            double mean = 0.0, sq = 0.0;
            for (std::size_t i = 0; i < n; ++i)
                mean += x[i * p + j];
            mean /= double(n);
            for (std::size_t i = 0; i < n; ++i)
                sq += (x[i * p + j] - mean) * (x[i * p + j] - mean) / double(n);
            QVERIFY(std::abs(model.mean[j] - mean) <= 1e-12 * (1 + std::abs(mean)));
            const double scale = sq > 0 ? 1.0 / std::sqrt(sq) : 0.0;
            QVERIFY(std::abs(model.scale[j] - scale) <= 1e-9 * scale);
            for (std::size_t i = 0; i < n; ++i)
                z[i][j] = (x[i * p + j] - mean) * scale;
        }
        if (p > 1) QCOMPARE(model.scale[p - 1], 0.0);
        std::vector<std::vector<double>> y(std::size_t(classes), std::vector<double>(n, -1.0));
        for (std::size_t i = 0; i < n; ++i)
            y[std::size_t(labels[i])][i] = 1.0;

        // Leave-one-out by refitting without each row.
        std::vector<double> errors;
        std::vector<std::vector<std::vector<double>>> loo;  // alpha, row, class
        for (double alpha : alphas) {
            double err = 0.0;
            std::vector<std::vector<double>> pred(n, std::vector<double>(classes));
            for (std::size_t i = 0; i < n; ++i) {
                std::vector<std::size_t> use;
                for (std::size_t r = 0; r < n; ++r)
                    if (r != i) use.push_back(r);
                for (int c = 0; c < classes; ++c) {
                    const auto [w, b] = ridgeFit(z, y[std::size_t(c)], use, alpha);
                    double s = b;
                    for (std::size_t j = 0; j < p; ++j)
                        s += z[i][j] * w[j];
                    pred[i][std::size_t(c)] = s;
                    err += (y[std::size_t(c)][i] - s) * (y[std::size_t(c)][i] - s);
                }
            }
            errors.push_back(err / double(n * std::size_t(classes)));
            loo.push_back(pred);
        }
        for (std::size_t a = 0; a < alphas.size(); ++a)
            QVERIFY2(std::abs(model.looError[a] - errors[a]) <= 1e-7 * errors[a],
                     qPrintable(QString("alpha %1: LOO error %2 vs brute force %3")
                                    .arg(alphas[a])
                                    .arg(model.looError[a], 0, 'g', 12)
                                    .arg(errors[a], 0, 'g', 12)));
        const std::size_t best =
            std::size_t(std::min_element(errors.begin(), errors.end()) - errors.begin());
        QCOMPARE(model.alpha, alphas[best]);
        std::size_t correct = 0;
        for (std::size_t i = 0; i < n; ++i) {
            const auto& row = loo[best][i];
            correct += std::size_t(std::max_element(row.begin(), row.end()) - row.begin()) ==
                       std::size_t(labels[i]);
        }
        QCOMPARE(model.looAccuracy, double(correct) / double(n));

        // The weights: the direct primal solve (Z^T Z + alpha I) w = Z^T y_c, intercept mean(y).
        std::vector<std::size_t> everyone(n);
        std::iota(everyone.begin(), everyone.end(), 0);
        for (int c = 0; c < classes; ++c) {
            const auto [w, b] = ridgeFit(z, y[std::size_t(c)], everyone, model.alpha);
            double largest = 0.0;
            for (double v : w)
                largest = std::max(largest, std::abs(v));
            for (std::size_t j = 0; j < p; ++j)
                QVERIFY2(std::abs(model.weights[j * std::size_t(classes) + std::size_t(c)] -
                                  w[j]) <= 1e-8 * (largest + 1e-12),
                         qPrintable(QString("class %1 weight %2: %3 vs %4")
                                        .arg(c)
                                        .arg(j)
                                        .arg(model.weights[j * std::size_t(classes) + c])
                                        .arg(w[j])));
            QVERIFY(std::abs(model.intercept[std::size_t(c)] - b) <= 1e-9);
        }
        // Scores of the training rows: Z w + b.
        const auto scores = cs::ridgeScores(model, all, n + 2);
        QCOMPARE(scores.size(), (n + 2) * std::size_t(classes));
        const auto predicted = cs::ridgePredict(model, std::span(all).first(n * p), n);
        for (std::size_t i = 0; i < n; ++i) {
            const auto* row = scores.data() + i * std::size_t(classes);
            QCOMPARE(predicted[i], std::int32_t(std::max_element(row, row + classes) - row));
        }
    }

    void ridgeDefaultsAndTies() {
        std::vector<float> x{0, 1, 2, 3, 10, 11, 12, 13};
        std::vector<std::int32_t> labels{0, 0, 0, 0, 1, 1, 1, 1};
        cs::JobControl job;
        const auto model = cs::fitRidgeClassifier(x, 8, 1, labels, 2, {}, job);
        QCOMPARE(model.alphas.size(), std::size_t(10));
        QCOMPARE(model.alphas.front(), 1e-3);
        QCOMPARE(model.alphas.back(), 1e3);
        QVERIFY(std::abs(model.alphas[1] - std::pow(10.0, -3.0 + 6.0 / 9.0)) < 1e-15);
        QCOMPARE(model.looAccuracy, 1.0);
        QCOMPARE(cs::ridgePredict(model, x, 8), labels);
        // 8 rows of 1 feature: the covariance path; the Gram path when asked.
        QCOMPARE(stageNames(job), (std::vector<std::string>{"standardise", "covariance", "eigen",
                                                            "alpha", "weights"}));
        cs::JobControl gramJob;
        cs::fitRidgeClassifier(x, 8, 1, labels, 2, {.solver = cs::RidgeSolver::Gram}, gramJob);
        QCOMPARE(stageNames(gramJob),
                 (std::vector<std::string>{"standardise", "gram", "eigen", "alpha", "weights"}));
        QCOMPARE(cs::ridgeSolverFor(8, 8, cs::RidgeSolver::Automatic), cs::RidgeSolver::Gram);
        QCOMPARE(cs::ridgeSolverFor(9, 8, cs::RidgeSolver::Automatic), cs::RidgeSolver::Covariance);
        QCOMPARE(cs::ridgeSolverFor(9, 8, cs::RidgeSolver::Gram), cs::RidgeSolver::Gram);
        QCOMPARE(cs::ridgeSolverFor(2, 8, cs::RidgeSolver::Covariance),
                 cs::RidgeSolver::Covariance);
        // Ties go to the lower class.
        cs::RidgeModel tie;
        tie.features = 1;
        tie.classes = 3;
        tie.mean = {0.0};
        tie.scale = {1.0};
        tie.weights = {0.0, 0.0, 0.0};
        tie.intercept = {0.5, 1.0, 1.0};
        QCOMPARE(cs::ridgePredict(tie, std::vector<float>{7.0f}, 1), std::vector<std::int32_t>{1});
    }

    void ridgeBadInput_data() {
        QTest::addColumn<int>("kase");
        QTest::addColumn<QString>("message");
        QTest::newRow("one labelled row") << 0 << "at least two labelled rows, got 1";
        QTest::newRow("one class") << 1 << "at least two classes among the labelled rows";
        QTest::newRow("size mismatch") << 2 << "got 7 feature values for 4 rows x 2 features";
        QTest::newRow("labels mismatch") << 3 << "got 3 labels for 4 rows";
        QTest::newRow("NaN feature") << 4 << "row 2 has a non-finite feature (column 1)";
        QTest::newRow("label out of range") << 5 << "row 1 has label 2 but there are 2 classes";
        QTest::newRow("bad alpha") << 6 << "alphas must be finite and > 0";
        QTest::newRow("one class declared") << 7 << "at least two classes, got 1";
    }
    void ridgeBadInput() {
        QFETCH(int, kase);
        QFETCH(QString, message);
        std::vector<float> x{0, 1, 2, 3, 4, 5, 6, 7};
        std::vector<std::int32_t> labels{0, 1, 0, 1};
        cs::RidgeParams params;
        int classes = 2;
        std::size_t n = 4;
        switch (kase) {
            case 0:
                labels = {0, -1, -1, -1};
                break;
            case 1:
                labels = {1, 1, -1, 1};
                break;
            case 2:
                x.pop_back();
                break;
            case 3:
                labels.pop_back();
                break;
            case 4:
                x[5] = std::numeric_limits<float>::quiet_NaN();
                break;
            case 5:
                labels[1] = 2;
                break;
            case 6:
                params.alphas = {1.0, 0.0};
                break;
            default:
                classes = 1;
                break;
        }
        cs::JobControl job;
        const std::string what =
            errorOf([&] { cs::fitRidgeClassifier(x, n, 2, labels, classes, params, job); });
        QVERIFY2(what.find(message.toStdString()) != std::string::npos, what.c_str());
    }

    // The Gram and the covariance paths on the same data, around n = p where either applies:
    // rows forced down each path give the same model up to rounding, and the automatic choice
    // is the forced path of the smaller side, bit for bit.
    void ridgePathsAgree_data() {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<int>("kernels");
        // Generated: 160 training rows of 4 classes (and 80 test rows).
        QTest::newRow("generated, p = n - 20") << "generated" << 70;
        QTest::newRow("generated, p = n - 2") << "generated" << 79;
        QTest::newRow("generated, p = n") << "generated" << 80;
        QTest::newRow("generated, p = n + 20") << "generated" << 90;
        // GunPoint: 50 training rows of 2 classes; BasicMotions: 40 of 4, 6 channels.
        QTest::newRow("GunPoint, p = n - 2") << "GunPoint" << 24;
        QTest::newRow("GunPoint, p = n + 10") << "GunPoint" << 30;
        QTest::newRow("BasicMotions, p = n - 10") << "BasicMotions" << 15;
        QTest::newRow("BasicMotions, p = n + 2") << "BasicMotions" << 21;
    }
    void ridgePathsAgree() {
        QFETCH(QString, kind);
        QFETCH(int, kernels);
        cs::SeriesSet s;
        std::vector<std::int32_t> train;
        if (kind == "generated") {
            s = cs::demo::makeShapeSeries(240, 64, 1, 13);
            train.assign(s.labels.begin(), s.labels.end());
            std::fill(train.begin() + 160, train.end(), -1);
        } else {
            s = ucr(kind.toUtf8().constData());
            for (std::size_t i = 0; i < s.n; ++i)
                train.push_back(s.isTest[i] ? -1 : s.labels[i]);
        }
        const std::size_t nt =
            std::size_t(std::count_if(train.begin(), train.end(), [](int l) { return l >= 0; }));
        const auto k = cs::makeRocketKernels({.kernels = kernels, .seed = 5}, s.length, s.channels);
        const auto f = transform(s, k);
        const int classes = int(s.classCount());
        auto fit = [&](cs::RidgeSolver solver, std::vector<std::string>* stages) {
            cs::JobControl job;
            auto m = cs::fitRidgeClassifier(f.values, f.n, f.columns(), train, classes,
                                            {.solver = solver}, job);
            if (stages) *stages = stageNames(job);
            return m;
        };
        std::vector<std::string> gramStages, covarianceStages, automaticStages;
        const auto gram = fit(cs::RidgeSolver::Gram, &gramStages);
        const auto covariance = fit(cs::RidgeSolver::Covariance, &covarianceStages);
        const auto automatic = fit(cs::RidgeSolver::Automatic, &automaticStages);
        QCOMPARE(gramStages[1], std::string("gram"));
        QCOMPARE(covarianceStages[1], std::string("covariance"));
        const QString diff = ridgeDifference(gram, covariance);
        QVERIFY2(
            diff.isEmpty(),
            qPrintable(
                QString("n %1, p %2: Gram vs covariance: %3").arg(nt).arg(f.columns()).arg(diff)));
        QCOMPARE(cs::ridgePredict(gram, f.values, f.n),
                 cs::ridgePredict(covariance, f.values, f.n));
        const auto& expected = nt <= f.columns() ? gram : covariance;
        QCOMPARE(automaticStages, nt <= f.columns() ? gramStages : covarianceStages);
        QCOMPARE(automatic.looError, expected.looError);
        QCOMPARE(automatic.weights, expected.weights);
        QCOMPARE(automatic.alpha, expected.alpha);
    }

    // Many short series, few kernels: the covariance path, in little time and memory (the Gram
    // matrix alone would be 18,000^2 doubles, 2.6 GB), against a direct solve of the normal
    // equations and the leave-one-out formula evaluated with an explicit inverse.
    void ridgeManySeries() {
        const auto s = cs::demo::makeShapeSeries(20'000, 64, 1, 21);
        const auto k = cs::makeRocketKernels({.kernels = 50, .seed = 3}, 64, 1);
        const auto f = transform(s, k);
        const std::size_t n = 18'000, p = f.columns();  // the rest are test rows
        const int classes = int(s.classCount());
        std::vector<std::int32_t> train(s.labels.begin(), s.labels.end());
        std::fill(train.begin() + std::ptrdiff_t(n), train.end(), -1);
#ifdef __linux__
        const std::size_t peakBefore = peakResidentBytes();
#endif
        const auto start = std::chrono::steady_clock::now();
        // Stopped as soon as a Gram stage starts: it would run for hours, if memory allowed.
        bool tookGram = false;
        cs::JobControl* self = nullptr;
        cs::JobControl job([&](double, std::string_view stage) {
            if (stage == "gram") {
                tookGram = true;
                self->cancel();
            }
        });
        self = &job;
        cs::RidgeModel model;
        try {
            model = cs::fitRidgeClassifier(f.values, f.n, p, train, classes, {}, job);
        } catch (const cs::Cancelled&) {
        }
        QVERIFY2(!tookGram, "18,000 rows of 100 features took the Gram path");
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
#ifdef __linux__
        const std::size_t grown = peakResidentBytes() - peakBefore;
        qInfo("20,000 series, 50 kernels: fitted in %.2f s, peak memory grew by %zu MiB", seconds,
              grown >> 20);
        QVERIFY2(grown < (std::size_t(512) << 20), qPrintable(QString("grew by %1").arg(grown)));
#else
        qInfo("20,000 series, 50 kernels: fitted in %.2f s", seconds);
#endif
        QCOMPARE(stageNames(job)[1], std::string("covariance"));

        // Standardised training rows and centred targets, by hand.
        std::vector<std::vector<double>> z(n, std::vector<double>(p));
        for (std::size_t j = 0; j < p; ++j) {
            double mean = 0.0, sq = 0.0;
            for (std::size_t i = 0; i < n; ++i)
                mean += f.values[i * p + j];
            mean /= double(n);
            for (std::size_t i = 0; i < n; ++i)
                sq += (f.values[i * p + j] - mean) * (f.values[i * p + j] - mean);
            const double scale = sq > 0 ? 1.0 / std::sqrt(sq / double(n)) : 0.0;
            for (std::size_t i = 0; i < n; ++i)
                z[i][j] = (f.values[i * p + j] - mean) * scale;
        }
        std::vector<std::vector<double>> yc(std::size_t(classes), std::vector<double>(n, 0.0));
        for (int c = 0; c < classes; ++c) {
            double mean = 0.0;
            for (std::size_t i = 0; i < n; ++i)
                mean += (train[i] == c ? 1.0 : -1.0) / double(n);
            for (std::size_t i = 0; i < n; ++i)
                yc[std::size_t(c)][i] = (train[i] == c ? 1.0 : -1.0) - mean;
        }
        Mat gram(p, std::vector<double>(p, 0.0));
        for (const auto& row : z)
            for (std::size_t j = 0; j < p; ++j)
                for (std::size_t l = 0; l <= j; ++l)
                    gram[j][l] += row[j] * row[l];
        for (std::size_t j = 0; j < p; ++j)
            for (std::size_t l = 0; l < j; ++l)
                gram[l][j] = gram[j][l];
        // At the chosen alpha and at the smallest (where rounding bites most).
        for (const std::size_t a :
             {std::size_t(std::find(model.alphas.begin(), model.alphas.end(), model.alpha) -
                          model.alphas.begin()),
              std::size_t(0)}) {
            const double alpha = model.alphas[a];
            Mat system = gram;
            for (std::size_t j = 0; j < p; ++j)
                system[j][j] += alpha;
            Mat inverse(p);
            for (std::size_t j = 0; j < p; ++j) {
                std::vector<double> e(p, 0.0);
                e[j] = 1.0;
                inverse[j] = solve(system, e);  // column j; the inverse is symmetric
            }
            std::vector<std::vector<double>> w;  // per class
            for (int c = 0; c < classes; ++c) {
                std::vector<double> rhs(p, 0.0);
                for (std::size_t i = 0; i < n; ++i)
                    for (std::size_t j = 0; j < p; ++j)
                        rhs[j] += z[i][j] * yc[std::size_t(c)][i];
                w.push_back(solve(system, rhs));
            }
            if (alpha == model.alpha) {
                double largest = 0.0, worst = 0.0;
                for (std::size_t j = 0; j < p; ++j)
                    for (int c = 0; c < classes; ++c) {
                        const double v = w[std::size_t(c)][j];
                        largest = std::max(largest, std::abs(v));
                        worst = std::max(worst,
                                         std::abs(v - model.weights[j * std::size_t(classes) + c]));
                    }
                QVERIFY2(worst <= 1e-8 * largest,
                         qPrintable(QString("weights differ by %1").arg(worst)));
            }
            double squares = 0.0;
            for (std::size_t i = 0; i < n; ++i) {
                double hat = 0.0;
                for (std::size_t j = 0; j < p; ++j) {
                    double mz = 0.0;
                    for (std::size_t l = 0; l < p; ++l)
                        mz += inverse[j][l] * z[i][l];
                    hat += z[i][j] * mz;
                }
                for (int c = 0; c < classes; ++c) {
                    double fit = 0.0;
                    for (std::size_t j = 0; j < p; ++j)
                        fit += z[i][j] * w[std::size_t(c)][j];
                    const double e = (yc[std::size_t(c)][i] - fit) / (1.0 - 1.0 / double(n) - hat);
                    squares += e * e;
                }
            }
            const double expected = squares / double(n * std::size_t(classes));
            QVERIFY2(std::abs(model.looError[a] - expected) <= 1e-9 * expected,
                     qPrintable(QString("alpha %1: LOO error %2 vs %3")
                                    .arg(alpha)
                                    .arg(model.looError[a], 0, 'g', 17)
                                    .arg(expected, 0, 'g', 17)));
        }
        // And it classifies the held-out series.
        const auto predicted = cs::ridgePredict(model, f.values, f.n);
        std::size_t right = 0;
        for (std::size_t i = n; i < f.n; ++i)
            right += predicted[i] == s.labels[i];
        const double accuracy = double(right) / double(f.n - n);
        qInfo("test accuracy %.4f, LOO accuracy %.4f, alpha %g", accuracy, model.looAccuracy,
              model.alpha);
        QVERIFY2(accuracy >= 0.9, qPrintable(QString("accuracy %1").arg(accuracy)));
    }

    // ---- published accuracies -----------------------------------------------------------------

    void ucrAccuracy_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("kernels");
        QTest::addColumn<double>("minAccuracy");
        // Published ROCKET (10,000 kernels, mean of 10 runs; SOURCES.md): GunPoint 1.000,
        // ItalyPowerDemand 0.9696, ArrowHead 0.8143; BasicMotions: MiniRocket 1.0.
        QTest::newRow("GunPoint") << "GunPoint" << 10'000 << 0.97;
        QTest::newRow("ItalyPowerDemand") << "ItalyPowerDemand" << 10'000 << 0.95;
        QTest::newRow("ArrowHead") << "ArrowHead" << 10'000 << 0.76;
        QTest::newRow("BasicMotions") << "BasicMotions" << 10'000 << 0.95;
    }
    void ucrAccuracy() {
        QFETCH(QString, name);
        QFETCH(int, kernels);
        QFETCH(double, minAccuracy);
        const auto s = ucr(name.toUtf8().constData());
        const auto a = rocketAccuracy(s, kernels, 1);
        qInfo("%s: %d kernels, seed 1: test accuracy %.4f, LOO accuracy %.4f, alpha %g (%.2f s)",
              qPrintable(name), kernels, a.test, a.loo, a.alpha, a.seconds);
        QVERIFY2(a.test >= minAccuracy,
                 qPrintable(
                     QString("%1: test accuracy %2 < %3").arg(name).arg(a.test).arg(minAccuracy)));
    }

    void generatedClassesSeparate() {
        auto s = cs::demo::makeShapeSeries(160, 96, 2, 9);
        s.isTest.assign(s.n, 0);
        for (std::size_t i = 80; i < s.n; ++i)
            s.isTest[i] = 1;
        const auto a = rocketAccuracy(s, 500, 2);
        QVERIFY2(a.test >= 0.9, qPrintable(QString("accuracy %1").arg(a.test)));
        // Deterministic data.
        const auto b = cs::demo::makeShapeSeries(160, 96, 2, 9);
        QVERIFY(b.values == s.values && b.labels == s.labels);
        QCOMPARE(b.classCount(), cs::demo::kShapeSeriesClasses);
        b.validate();
    }

    // ---- bad input, stages, cancellation ------------------------------------------------------

    void badInput_data() {
        QTest::addColumn<int>("kase");
        QTest::addColumn<QString>("message");
        QTest::newRow("empty") << 0 << "ROCKET needs at least one series, the set is empty";
        QTest::newRow("channel mismatch")
            << 1 << "the series have 2 channel(s) but the kernels were drawn for 3";
        QTest::newRow("length mismatch")
            << 2 << "the series have length 20 but the kernels were drawn for length 30";
        QTest::newRow("NaN") << 3 << "series 4 has a non-finite value";
        QTest::newRow("kernels 0") << 4 << "kernels must be in [1, 100000], got 0";
        QTest::newRow("kernels too many") << 5 << "kernels must be in [1, 100000], got 100001";
        QTest::newRow("length 1") << 6 << "ROCKET needs series of at least 2 samples, got length 1";
        QTest::newRow("no channels") << 7 << "ROCKET needs series of at least 1 channel, got 0";
    }
    void badInput() {
        QFETCH(int, kase);
        QFETCH(QString, message);
        auto s = cs::demo::makeShapeSeries(10, 20, 2, 1);
        auto kernels = [](int count, std::size_t length, std::size_t channels) {
            return cs::makeRocketKernels({.kernels = count, .seed = 1}, length, channels);
        };
        std::function<void()> run;
        switch (kase) {
            case 0:
                s = cs::demo::makeShapeSeries(0, 20, 2, 1);
                run = [&] { transform(s, kernels(10, 20, 2)); };
                break;
            case 1:
                run = [&] { transform(s, kernels(10, 20, 3)); };
                break;
            case 2:
                run = [&] { transform(s, kernels(10, 30, 2)); };
                break;
            case 3:
                s.values[4 * 40 + 7] = std::numeric_limits<float>::quiet_NaN();
                run = [&] { transform(s, kernels(10, 20, 2)); };
                break;
            case 4:
                run = [&] { kernels(0, 20, 2); };
                break;
            case 5:
                run = [&] { kernels(100'001, 20, 2); };
                break;
            case 6:
                run = [&] { kernels(10, 1, 2); };
                break;
            default:
                run = [&] { kernels(10, 20, 0); };
                break;
        }
        const std::string what = errorOf(run);
        QVERIFY2(what.find(message.toStdString()) != std::string::npos, what.c_str());
        cs::RocketParams params;
        params.kernels = 0;
        QVERIFY_THROWS_EXCEPTION(cs::Error, cs::validateRocketParams(params));
    }

    void stagesAndProgress() {
        const auto s = cs::demo::makeShapeSeries(300, 64, 1, 3);
        const auto k = cs::makeRocketKernels({.kernels = 2000, .seed = 1}, 64, 1);
        double last = 0.0;
        bool monotone = true;
        int reports = 0;
        cs::JobControl job([&](double f, std::string_view) {
            monotone = monotone && f >= last - 1e-12;
            last = f;
            ++reports;
        });
        cs::rocketTransformCpu(s, k, job, 2);
        QVERIFY(monotone);
        QCOMPARE(last, 1.0);
        QVERIFY(reports > 5);
        std::vector<std::string> stages;
        for (const auto& t : job.timings())
            stages.push_back(t.name);
        QCOMPARE(stages, (std::vector<std::string>{"normalise", "transform"}));
    }

    void cancellation_data() {
        QTest::addColumn<QString>("atStage");
        QTest::addColumn<int>("kernels");  // 200 series: > 100 kernels take the Gram path
        QTest::newRow("before") << "" << 3000;
        QTest::newRow("normalise") << "normalise" << 3000;
        QTest::newRow("transform") << "transform" << 3000;
        QTest::newRow("ridge gram") << "gram" << 3000;
        QTest::newRow("ridge alpha") << "alpha" << 3000;
        QTest::newRow("ridge covariance") << "covariance" << 60;
        QTest::newRow("ridge eigen, covariance path") << "eigen" << 60;
        QTest::newRow("ridge alpha, covariance path") << "alpha" << 60;
    }
    void cancellation() {
        QFETCH(QString, atStage);
        QFETCH(int, kernels);
        const auto s = cs::demo::makeShapeSeries(200, 100, 2, 3);
        const auto k = cs::makeRocketKernels({.kernels = kernels, .seed = 1}, 100, 2);
        cs::JobControl* self = nullptr;
        cs::JobControl job([&](double, std::string_view stage) {
            if (!atStage.isEmpty() && stage == atStage.toStdString()) self->cancel();
        });
        self = &job;
        if (atStage.isEmpty()) job.cancel();
        const bool ridge = atStage == "gram" || atStage == "covariance" || atStage == "eigen" ||
                           atStage == "alpha";
        if (!ridge) {
            QVERIFY_THROWS_EXCEPTION(cs::Cancelled, cs::rocketTransformCpu(s, k, job, 2));
            return;
        }
        cs::JobControl plain;
        const auto f = cs::rocketTransformCpu(s, k, plain, 2);
        QVERIFY_THROWS_EXCEPTION(cs::Cancelled, cs::fitRidgeClassifier(f.values, f.n, f.columns(),
                                                                       s.labels, 4, {}, job));
    }
};

QTEST_GUILESS_MAIN(TestRocket)
#include "tst_rocket.moc"
