// SPDX-License-Identifier: MIT
// CPU DBSCAN and k-distance against an independent O(N^2) oracle written straight from the
// definition in compute/dbscan/dbscan.h, on many random sets, every path and thread count;
// and against scikit-learn on the real clouds in ../shared/data/points (reference files made
// by tests/compute/data/make_dbscan_reference.py).
#include <QTest>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>
#include <map>
#include <numbers>
#include <numeric>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "compute/backend/cpu_backend.h"
#include "compute/core/error.h"
#include "compute/core/random.h"
#include "compute/dbscan/cluster_overlap.h"
#include "compute/dbscan/dbscan.h"
#include "compute/dbscan/dbscan_cpu.h"
#include "compute/dbscan/dbscan_datasets.h"
#include "compute/dbscan/dbscan_sweep.h"
#include "compute/dbscan/eps_suggestion.h"
#include "compute/demo/demo_data.h"
#include "compute/io/point_readers.h"
#include "tests/common/dbscan_oracle.h"
#include "tests/common/test_paths.h"

namespace {

using cs::test::oracleDbscan;
using Oracle = cs::test::DbscanOracle;

std::vector<float> oracleKDistance(const cs::PointSet& points, int k) {
    const std::size_t n = points.n, d = points.dims;
    const cs::RecentredCoords frame = cs::recentredCoords(points);
    const std::vector<float>& x = frame.coords;
    std::vector<float> out(n), all(n);
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = 0; j < n; ++j)
            all[j] = cs::canonicalDist2(&x[i * d], &x[j * d], d);
        std::nth_element(all.begin(), all.begin() + (k - 1), all.end());
        out[i] = std::sqrt(all[std::size_t(k - 1)]);
    }
    cs::fromRecentred(out, frame.scale);
    return out;
}

// Test data. Kinds:
//  blobs      Gaussian blobs in [0, 10]^d plus 10 % uniform noise;
//  quantized  blobs rounded to multiples of 1/4: many exactly equal distances (border ties);
//  lattice    integer points of {0..m-1}^d (d <= 3) or a random subset of {0,1,2}^d, with
//             some holes: pairs exactly at eps = 1;
//  duplicates n copies of one point;
//  far        blobs moved by 10^4 (a georeferenced scan: recentring matters);
//  outlier    blobs plus one point 10^7 away: a huge extent against eps (grid coarsening) and
//             re-centred coordinates rounded to 1/2 (many exact ties);
//  pairs      n / 2 blob points, each twice, shuffled;
//  repeated   blob points each 1 to 12 times, shuffled;
//  clump      blobs, a tenth of them copies of one point.
cs::PointSet makeTestPoints(const QString& kind, std::size_t n, std::size_t d, std::uint64_t seed) {
    cs::Random rng(seed);
    std::vector<float> c(n * d);
    if (kind == "pairs" || kind == "repeated" || kind == "clump") {
        const cs::PointSet blobs = makeTestPoints("blobs", n, d, seed + 1);
        std::vector<std::size_t> source(n);
        for (std::size_t i = 0, point = 0; i < n; ++point) {
            const std::size_t times = kind == "pairs"      ? 2
                                      : kind == "repeated" ? 1 + rng.below(12)
                                                           : 1;
            for (std::size_t t = 0; t < times && i < n; ++t)
                source[i++] = point;
        }
        if (kind == "clump")
            for (std::size_t i = 0; i < n / 10; ++i)
                source[i] = 0;
        for (std::size_t i = n; i > 1; --i)
            std::swap(source[i - 1], source[rng.below(i)]);
        for (std::size_t i = 0; i < n; ++i)
            std::copy_n(blobs.coords.begin() + std::ptrdiff_t(source[i] * d), d,
                        c.begin() + std::ptrdiff_t(i * d));
    } else if (kind == "duplicates") {
        std::vector<float> p(d);
        for (auto& v : p)
            v = float(rng.uniform(-5, 5));
        for (std::size_t i = 0; i < n; ++i)
            std::copy(p.begin(), p.end(), c.begin() + i * d);
    } else if (kind == "lattice") {
        if (d <= 3) {
            const auto m = std::size_t(std::ceil(std::pow(double(n) * 1.25, 1.0 / double(d))));
            std::vector<std::vector<float>> all;
            std::vector<std::size_t> idx(d, 0);
            for (;;) {
                std::vector<float> p(d);
                for (std::size_t j = 0; j < d; ++j)
                    p[j] = float(idx[j]);
                all.push_back(p);
                std::size_t j = 0;
                while (j < d && ++idx[j] == m)
                    idx[j++] = 0;
                if (j == d) break;
            }
            // Shuffle (Fisher-Yates), keep n: holes at random places.
            for (std::size_t i = all.size(); i > 1; --i)
                std::swap(all[i - 1], all[rng.below(i)]);
            for (std::size_t i = 0; i < n; ++i)
                std::copy(all[i].begin(), all[i].end(), c.begin() + i * d);
        } else {
            for (auto& v : c)
                v = float(rng.below(3));
        }
    } else {
        const std::size_t blobs = 4;
        std::vector<double> centres(blobs * d);
        for (auto& v : centres)
            v = rng.uniform(0, 10);
        for (std::size_t i = 0; i < n; ++i) {
            const bool noise = rng.uniform() < 0.1;
            const std::size_t b = rng.below(blobs);
            for (std::size_t j = 0; j < d; ++j) {
                double v = noise ? rng.uniform(-1, 11) : centres[b * d + j] + 0.6 * rng.normal();
                if (kind == "quantized") v = std::round(v * 4.0) / 4.0;
                if (kind == "far") v += 1e4;
                c[i * d + j] = float(v);
            }
        }
        if (kind == "outlier" && n > 0)
            for (std::size_t j = 0; j < d; ++j)
                c[j] = 1e7f;
    }
    cs::PointSet s;
    s.n = n;
    s.dims = d;
    s.coords = std::move(c);
    return s;
}

// An eps at which about half the points are core: the median k-distance (k = minPts).
float medianKDistance(const cs::PointSet& points, int minPts) {
    if (points.n < std::size_t(minPts) || points.n == 0) return 1.0f;
    auto k = oracleKDistance(points, minPts);
    std::nth_element(k.begin(), k.begin() + std::ptrdiff_t(k.size() / 2), k.end());
    return k[k.size() / 2];
}

QString firstDifference(const cs::DbscanResult& r, const Oracle& o) {
    if (r.labels.size() != o.labels.size())
        return QString("size %1 vs %2").arg(r.labels.size()).arg(o.labels.size());
    for (std::size_t i = 0; i < o.labels.size(); ++i)
        if (r.labels[i] != o.labels[i] || r.isCore[i] != o.isCore[i])
            return QString("point %1: label %2 core %3, oracle label %4 core %5")
                .arg(i)
                .arg(r.labels[i])
                .arg(r.isCore[i])
                .arg(o.labels[i])
                .arg(o.isCore[i]);
    return {};
}

std::vector<cs::DbscanPath> pathsFor(std::size_t d) {
    std::vector<cs::DbscanPath> paths{cs::DbscanPath::Auto, cs::DbscanPath::Brute,
                                      cs::DbscanPath::KdTree};
    if (d <= 3) paths.push_back(cs::DbscanPath::Grid);
    return paths;
}

// Reference files: "# key=value ..." lines, then "count,label,core" runs (run-length encoded
// per point in file order; label is scikit-learn's, -1 noise).
struct Reference {
    std::map<std::string, std::string> meta;
    std::vector<std::int32_t> labels;
    std::vector<std::uint8_t> isCore;
};

Reference readReference(const std::filesystem::path& file) {
    std::ifstream in(file);
    if (!in) throw cs::Error(file.string() + ": cannot be opened");
    Reference r;
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty()) continue;
        if (line[0] == '#') {
            std::istringstream words(line.substr(1));
            std::string word;
            while (words >> word) {
                const auto eq = word.find('=');
                if (eq != std::string::npos) r.meta[word.substr(0, eq)] = word.substr(eq + 1);
            }
            continue;
        }
        long long count = 0, label = 0, core = 0;
        char c1 = 0, c2 = 0;
        std::istringstream row(line);
        if (!(row >> count >> c1 >> label >> c2 >> core) || c1 != ',' || c2 != ',')
            throw cs::Error(file.string() + ": bad run '" + line + "'");
        r.labels.insert(r.labels.end(), std::size_t(count), std::int32_t(label));
        r.isCore.insert(r.isCore.end(), std::size_t(count), std::uint8_t(core));
    }
    return r;
}

}  // namespace

class TestDbscan : public QObject {
    Q_OBJECT

private slots:
    void clusterOverlapMatchesCounting() {
        // Against a plain map count: noise and out-of-range labels left out, cells sorted, and
        // enough points for several threads.
        for (const std::size_t n : {std::size_t(0), std::size_t(7), std::size_t(1'500'000)}) {
            std::vector<std::int32_t> a(n), b(n);
            std::uint64_t state = 99 + n;
            for (std::size_t i = 0; i < n; ++i) {
                state = state * 6364136223846793005ull + 1442695040888963407ull;
                const auto r = std::uint32_t(state >> 33);
                a[i] = std::int32_t(r % 23) - 2;  // -2 and -1: noise; 0 .. 20 clusters
                b[i] = i % 5 == 0 ? std::int32_t(r % 41) : a[i] < 0 ? -1 : (a[i] * 3) % 17;
            }
            std::map<std::pair<std::int32_t, std::int32_t>, std::uint64_t> expected;
            for (std::size_t i = 0; i < n; ++i)
                if (a[i] >= 0 && a[i] < 21 && b[i] >= 0 && b[i] < 40) ++expected[{a[i], b[i]}];
            const auto got = cs::clusterOverlap(a, 21, b, 40);
            QCOMPARE(got.size(), expected.size());
            std::size_t k = 0;
            for (const auto& [pair, count] : expected) {
                QCOMPARE(got[k].a, pair.first);
                QCOMPARE(got[k].b, pair.second);
                QCOMPARE(got[k].points, count);
                ++k;
            }
            // Sizes, the other count the colour matching needs.
            std::vector<std::size_t> sizes(40, 0);
            for (const auto l : b)
                if (l >= 0 && l < 40) ++sizes[std::size_t(l)];
            QCOMPARE(cs::clusterSizes(b, 40), sizes);
        }
        QVERIFY_THROWS_EXCEPTION(
            std::invalid_argument,
            cs::clusterOverlap(std::vector<std::int32_t>(3), 1, std::vector<std::int32_t>(4), 1));
    }

    // A re-run with the overlap of its clusters with the previous run's (the default of every
    // backend without a faster way): the run dbscan() makes and the table clusterOverlap counts,
    // handed once to the caller's use with the members per cluster.
    void rerunCarriesItsOverlap() {
        const auto points = cs::makeBlobPoints(20000, 3, 8);
        cs::CpuBackend backend(2);
        cs::JobControl job;
        const cs::DbscanResult before = backend.dbscan(points, {.eps = 0.8f, .minPts = 8}, job);
        const cs::DbscanParams p{.eps = 1.0f, .minPts = 10};
        int uses = 0;
        std::vector<cs::ClusterOverlap> usedOverlap;
        std::vector<std::size_t> usedSizes;
        const auto use = [&](std::span<const cs::ClusterOverlap> overlap,
                             std::span<const std::size_t> sizes) {
            ++uses;
            usedOverlap.assign(overlap.begin(), overlap.end());
            usedSizes.assign(sizes.begin(), sizes.end());
        };
        const cs::DbscanRematch rerun = backend.dbscanMatched(points, p, &before, job, use);
        const cs::DbscanResult alone = backend.dbscan(points, p, job);
        QCOMPARE(rerun.result.labels, alone.labels);
        QCOMPARE(rerun.result.isCore, alone.isCore);
        QVERIFY(before.clusterCount > 1 && alone.clusterCount > 1);
        const auto want = cs::clusterOverlap(before.labels, before.clusterCount, alone.labels,
                                             alone.clusterCount);
        QVERIFY(!want.empty());
        QVERIFY(rerun.overlap == want);
        QCOMPARE(uses, 1);
        QVERIFY(usedOverlap == want);
        QCOMPARE(usedSizes, cs::clusterSizes(alone.labels, alone.clusterCount));
        uses = 0;
        QVERIFY(backend.dbscanMatched(points, p, nullptr, job, use).overlap.empty());
        QCOMPARE(uses, 1);
        QVERIFY(usedOverlap.empty());
        QCOMPARE(usedSizes, cs::clusterSizes(alone.labels, alone.clusterCount));
        QVERIFY(backend.dbscanMatched(points, p, nullptr, job, {}).overlap.empty());
    }

    // A result without its cluster sizes gets them from its labels; one with them keeps them.
    void clusterSizesFilledWhenMissing() {
        cs::DbscanResult r;
        r.labels = {0, -1, 1, 1, 0, 1};
        r.clusterCount = 2;
        cs::fillClusterSizes(r);
        QCOMPARE(r.stats.clusterSizes, (std::vector<std::size_t>{2, 3}));
        r.stats.clusterSizes = {7, 9};  // as a backend counted them: left alone
        cs::fillClusterSizes(r);
        QCOMPARE(r.stats.clusterSizes, (std::vector<std::size_t>{7, 9}));
    }

    void matchesOracle_data() {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<qulonglong>("n");
        QTest::addColumn<qulonglong>("d");
        QTest::addColumn<int>("minPts");
        QTest::addColumn<float>("eps");  // < 0: the median k-distance
        QTest::addColumn<bool>("star");
        QTest::addColumn<qulonglong>("seed");
        std::uint64_t seed = 1000;
        // The sizes x dimensions grid; large N only where the O(N^2) oracle stays quick.
        for (std::size_t d : {1, 2, 3, 16, 64})
            for (std::size_t n : {0, 1, 2, 500, 3000}) {
                if (n == 3000 && d == 64) continue;  // 1500 at d = 64 below
                const bool star = (n + d) % 2 == 1;
                QTest::addRow("blobs n=%zu d=%zu", n, d)
                    << "blobs" << qulonglong(n) << qulonglong(d) << 5 << -1.0f << star
                    << qulonglong(++seed);
            }
        QTest::addRow("blobs n=1500 d=64")
            << "blobs" << 1500ull << 64ull << 5 << -1.0f << false << 77ull;
        QTest::addRow("blobs n=1 minPts=1")
            << "blobs" << 1ull << 3ull << 1 << 0.5f << false << 5ull;
        QTest::addRow("blobs n=2 minPts=2")
            << "blobs" << 2ull << 2ull << 2 << 100.0f << false << 6ull;
        for (std::size_t d : {2, 3}) {
            QTest::addRow("quantized d=%zu", d) << "quantized" << 3000ull << qulonglong(d) << 6
                                                << -1.0f << false << qulonglong(++seed);
            QTest::addRow("quantized star d=%zu", d) << "quantized" << 2000ull << qulonglong(d) << 6
                                                     << -1.0f << true << qulonglong(++seed);
            QTest::addRow("quantized eps=0 d=%zu", d) << "quantized" << 3000ull << qulonglong(d)
                                                      << 3 << 0.0f << false << qulonglong(++seed);
            QTest::addRow("far d=%zu", d)
                << "far" << 3000ull << qulonglong(d) << 8 << -1.0f << false << qulonglong(++seed);
        }
        QTest::addRow("quantized eps=0 d=1")
            << "quantized" << 2000ull << 1ull << 2 << 0.0f << false << 32ull;
        QTest::addRow("outlier d=1") << "outlier" << 3000ull << 1ull << 5 << 0.5f << false << 33ull;
        QTest::addRow("outlier d=3") << "outlier" << 3000ull << 3ull << 5 << 1.0f << false << 34ull;
        QTest::addRow("outlier d=3 tiny eps")
            << "outlier" << 3000ull << 3ull << 2 << 1e-3f << false << 35ull;
        QTest::addRow("outlier d=16")
            << "outlier" << 1500ull << 16ull << 5 << 2.0f << false << 36ull;
        QTest::addRow("quantized d=16")
            << "quantized" << 1500ull << 16ull << 6 << -1.0f << false << 31ull;
        // Integer lattices with holes at eps = 1: neighbours exactly on the boundary.
        for (std::size_t d : {1, 2, 3}) {
            const int full = int(2 * d + 1);  // an interior lattice point and its 2d neighbours
            QTest::addRow("lattice d=%zu minPts=full", d)
                << "lattice" << 2000ull << qulonglong(d) << full << 1.0f << false
                << qulonglong(++seed);
            QTest::addRow("lattice d=%zu minPts=full-2", d)
                << "lattice" << 2000ull << qulonglong(d) << full - 2 << 1.0f << false
                << qulonglong(++seed);
            QTest::addRow("lattice d=%zu star", d)
                << "lattice" << 2000ull << qulonglong(d) << full - 1 << 1.0f << true
                << qulonglong(++seed);
        }
        QTest::addRow("lattice d=16")
            << "lattice" << 2000ull << 16ull << 3 << 1.0f << false << 41ull;
        QTest::addRow("lattice d=16 sqrt2")
            << "lattice" << 2500ull << 16ull << 4 << std::sqrt(2.0f) << false << 42ull;
        // Everything identical.
        for (int minPts : {1, 10, 500, 501})
            QTest::addRow("duplicates minPts=%d", minPts)
                << "duplicates" << 500ull << 3ull << minPts << 0.5f << false << 51ull;
        QTest::addRow("duplicates eps=0")
            << "duplicates" << 500ull << 2ull << 10 << 0.0f << false << 52ull;
        QTest::addRow("duplicates d=16 eps=0")
            << "duplicates" << 300ull << 16ull << 10 << 0.0f << false << 53ull;
        // Limits: minPts = 1 (all core), huge eps (one cluster), minPts above N (all noise).
        QTest::addRow("minPts=1 d=3") << "blobs" << 2000ull << 3ull << 1 << 0.3f << false << 61ull;
        QTest::addRow("minPts=1 d=16")
            << "blobs" << 1000ull << 16ull << 1 << 0.3f << false << 62ull;
        QTest::addRow("huge eps d=3") << "blobs" << 2000ull << 3ull << 50 << 1e6f << false << 63ull;
        QTest::addRow("huge eps d=16")
            << "blobs" << 1000ull << 16ull << 50 << 1e6f << false << 64ull;
        QTest::addRow("eps=3e19 d=2") << "blobs" << 500ull << 2ull << 20 << 3e19f << false << 65ull;
        QTest::addRow("minPts>N") << "blobs" << 300ull << 3ull << 301 << 1e6f << false << 66ull;
        QTest::addRow("tiny eps d=3") << "blobs" << 3000ull << 3ull << 2 << 1e-6f << false << 67ull;
    }

    void matchesOracle() {
        QFETCH(QString, kind);
        QFETCH(qulonglong, n);
        QFETCH(qulonglong, d);
        QFETCH(int, minPts);
        QFETCH(float, eps);
        QFETCH(bool, star);
        QFETCH(qulonglong, seed);
        const cs::PointSet points = makeTestPoints(kind, n, d, seed);
        if (eps < 0.0f) eps = medianKDistance(points, minPts);
        const Oracle oracle = oracleDbscan(points, eps, minPts, star);
        for (const auto path : pathsFor(d))
            for (int threads : {1, 4}) {
                cs::JobControl job;
                const cs::DbscanParams params{eps, minPts, star, path};
                const cs::DbscanResult r = cs::dbscanCpu(points, params, job, threads);
                const QString diff = firstDifference(r, oracle);
                if (!diff.isEmpty())
                    QFAIL(qPrintable(QString("seed %1 eps %2 path %3 threads %4: %5")
                                         .arg(seed)
                                         .arg(double(eps), 0, 'g', 9)
                                         .arg(QString::fromUtf8(cs::toString(path).data()))
                                         .arg(threads)
                                         .arg(diff)));
                QCOMPARE(std::size_t(r.stats.corePoints),
                         std::size_t(std::count(oracle.isCore.begin(), oracle.isCore.end(), 1)));
                // The sizes per cluster the statistics keep (the GUI's colour matching reads
                // them instead of counting the labels again).
                QCOMPARE(r.stats.clusterSizes, cs::clusterSizes(r.labels, r.clusterCount));
                QCOMPARE(r.stats.largestCluster,
                         r.clusterCount ? *std::max_element(r.stats.clusterSizes.begin(),
                                                            r.stats.clusterSizes.end())
                                        : std::size_t(0));
                // eps^2 overflowing float sends KdTree to Brute (see dbscanCpu).
                if (path != cs::DbscanPath::Auto && std::isfinite(cs::epsSquared(eps)))
                    QCOMPARE(int(r.pathUsed), int(path));
            }
    }

    // Every cell of a sweep against a plain DBSCAN run with that cell's eps and MinPts.
    void sweepMatchesPlainRuns_data() {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<qulonglong>("n");
        QTest::addColumn<qulonglong>("d");
        QTest::addColumn<bool>("star");
        QTest::addColumn<int>("path");
        QTest::addColumn<qulonglong>("seed");
        const int autoPath = int(cs::DbscanPath::Auto), brute = int(cs::DbscanPath::Brute),
                  kdtree = int(cs::DbscanPath::KdTree);
        QTest::addRow("blobs d=2") << "blobs" << 2000ull << 2ull << false << autoPath << 301ull;
        QTest::addRow("blobs d=3") << "blobs" << 3000ull << 3ull << false << autoPath << 302ull;
        QTest::addRow("blobs d=3 star") << "blobs" << 2000ull << 3ull << true << autoPath << 303ull;
        QTest::addRow("blobs d=3 brute") << "blobs" << 1500ull << 3ull << false << brute << 304ull;
        QTest::addRow("blobs d=3 kdtree")
            << "blobs" << 2000ull << 3ull << false << kdtree << 315ull;
        QTest::addRow("blobs d=2 kdtree star")
            << "blobs" << 2000ull << 2ull << true << kdtree << 316ull;
        QTest::addRow("quantized d=3 kdtree ties")
            << "quantized" << 2000ull << 3ull << false << kdtree << 317ull;
        QTest::addRow("blobs d=1") << "blobs" << 1000ull << 1ull << false << autoPath << 305ull;
        QTest::addRow("blobs d=16") << "blobs" << 2500ull << 16ull << false << autoPath << 306ull;
        QTest::addRow("quantized d=3 ties")
            << "quantized" << 2000ull << 3ull << false << autoPath << 307ull;
        QTest::addRow("quantized d=2 star")
            << "quantized" << 2000ull << 2ull << true << autoPath << 308ull;
        QTest::addRow("lattice d=2") << "lattice" << 1500ull << 2ull << false << autoPath << 309ull;
        QTest::addRow("repeated d=3")
            << "repeated" << 2000ull << 3ull << false << autoPath << 310ull;
        QTest::addRow("far d=3") << "far" << 2000ull << 3ull << false << autoPath << 311ull;
        QTest::addRow("duplicates")
            << "duplicates" << 300ull << 3ull << false << autoPath << 312ull;
        QTest::addRow("one point") << "blobs" << 1ull << 3ull << false << autoPath << 313ull;
        QTest::addRow("two points") << "blobs" << 2ull << 2ull << false << autoPath << 314ull;
    }

    void sweepMatchesPlainRuns() {
        QFETCH(QString, kind);
        QFETCH(qulonglong, n);
        QFETCH(qulonglong, d);
        QFETCH(bool, star);
        QFETCH(int, path);
        QFETCH(qulonglong, seed);
        const cs::PointSet points = makeTestPoints(kind, n, d, seed);
        const float centre = std::max(medianKDistance(points, 5), 1e-3f);
        cs::DbscanSweepParams params;
        params.eps = cs::logSpacedEps(centre / 8.0f, centre * 8.0f, 9);
        params.eps.insert(params.eps.begin(), 0.0f);
        params.minPts = {1, 2, 3, 5, 8, 13, 40};
        params.star = star;
        params.path = cs::DbscanPath(path);
        for (int threads : {1, 3}) {
            cs::JobControl job;
            const cs::DbscanSweepResult sweep = cs::dbscanSweepCpu(points, params, job, threads);
            QCOMPARE(sweep.cells.size(), params.eps.size() * params.minPts.size());
            for (std::size_t e = 0; e < params.eps.size(); ++e)
                for (std::size_t m = 0; m < params.minPts.size(); ++m) {
                    cs::JobControl plainJob;
                    const cs::DbscanParams plain{params.eps[e], params.minPts[m], star};
                    const cs::DbscanSweepCell want = cs::dbscanSweepCell(
                        cs::dbscanCpu(points, plain, plainJob, 2), plain.eps, plain.minPts);
                    const cs::DbscanSweepCell& got = sweep.at(e, m);
                    const QString where = QString("seed %1 threads %2 eps %3 minPts %4")
                                              .arg(seed)
                                              .arg(threads)
                                              .arg(double(plain.eps), 0, 'g', 9)
                                              .arg(plain.minPts);
                    QVERIFY2(got.eps == want.eps && got.minPts == want.minPts, qPrintable(where));
                    QVERIFY2(got.clusters == want.clusters,
                             qPrintable(where + QString(": %1 clusters, plain DBSCAN %2")
                                                    .arg(got.clusters)
                                                    .arg(want.clusters)));
                    QVERIFY2(
                        got.noiseShare == want.noiseShare,
                        qPrintable(
                            where +
                            QString(": noise %1 vs %2").arg(got.noiseShare).arg(want.noiseShare)));
                    QVERIFY2(got.largestShare == want.largestShare,
                             qPrintable(where + QString(": largest %1 vs %2")
                                                    .arg(got.largestShare)
                                                    .arg(want.largestShare)));
                }
        }
    }

    void sweepOfNoPoints() {
        cs::JobControl job;
        const cs::DbscanSweepResult r =
            cs::dbscanSweepCpu(cs::PointSet{}, cs::defaultDbscanSweep(1.0f), job);
        QCOMPARE(r.cells.size(), std::size_t(16 * 18));
        for (const auto& c : r.cells)
            QVERIFY(c.clusters == 0 && c.noiseShare == 0.0 && c.largestShare == 0.0);
    }

    void sweepBadGrids() {
        const auto points = makeTestPoints("blobs", 50, 3, 1);
        auto refuses = [&](cs::DbscanSweepParams p) {
            cs::JobControl job;
            QVERIFY_THROWS_EXCEPTION(cs::Error, cs::dbscanSweepCpu(points, p, job));
        };
        refuses({.eps = {}, .minPts = {5}});
        refuses({.eps = {1.0f}, .minPts = {}});
        refuses({.eps = {2.0f, 1.0f}, .minPts = {5}});
        refuses({.eps = {1.0f, 1.0f}, .minPts = {5}});
        refuses({.eps = {-1.0f}, .minPts = {5}});
        refuses({.eps = {std::numeric_limits<float>::quiet_NaN()}, .minPts = {5}});
        refuses({.eps = {1.0f}, .minPts = {0, 5}});
        refuses({.eps = {1.0f}, .minPts = {5, 3}});
        const auto wide = makeTestPoints("blobs", 50, 5, 1);
        cs::JobControl job;
        QVERIFY_THROWS_EXCEPTION(
            cs::Error,
            cs::dbscanSweepCpu(wide, {.eps = {1.0f}, .minPts = {5}, .path = cs::DbscanPath::Grid},
                               job));
        QVERIFY_THROWS_EXCEPTION(cs::Error, cs::defaultDbscanSweep(0.0f));
        QVERIFY_THROWS_EXCEPTION(cs::Error, cs::logSpacedEps(1.0f, 0.5f, 4));
    }

    void sweepCancels_data() {
        QTest::addColumn<int>("path");
        QTest::addColumn<QString>("atStage");
        for (const char* stage : {"", "count", "cells"})
            QTest::addRow("grid %s", stage) << int(cs::DbscanPath::Grid) << QString(stage);
        for (const char* stage : {"", "count", "border", "union"})
            QTest::addRow("kdtree %s", stage) << int(cs::DbscanPath::KdTree) << QString(stage);
    }
    void sweepCancels() {
        QFETCH(int, path);
        QFETCH(QString, atStage);
        const auto points = cs::makeBlobPoints(20000, 3, 4);
        cs::JobControl* self = nullptr;
        double lastProgress = 0.0;
        bool monotonic = true;
        cs::JobControl job([&](double f, std::string_view stage) {
            monotonic = monotonic && f >= lastProgress;
            lastProgress = f;
            if (!atStage.isEmpty() && stage == atStage.toStdString()) self->cancel();
        });
        self = &job;
        if (atStage.isEmpty()) job.cancel();
        cs::DbscanSweepParams params = cs::defaultDbscanSweep(1.0f);
        params.path = cs::DbscanPath(path);
        QVERIFY_THROWS_EXCEPTION(cs::Cancelled, cs::dbscanSweepCpu(points, params, job, 2));
        QVERIFY(monotonic);
    }

    void sweepTables() {
        cs::DbscanSweepResult r;
        r.eps = {0.5f, 1.25f};
        r.minPts = {3, 4};
        r.cells = {{0.5f, 3, 2, 0.25, 0.5},
                   {0.5f, 4, 1, 0.5, 0.5},
                   {1.25f, 3, 1, 0.0, 1.0},
                   {1.25f, 4, 0, 1.0, 0.0}};
        QCOMPARE(QString::fromStdString(cs::dbscanSweepCsv(r)),
                 QString("eps,minPts,clusters,noise_share,largest_share\n"
                         "0.5,3,2,0.25,0.5\n0.5,4,1,0.5,0.5\n1.25,3,1,0,1\n1.25,4,0,1,0\n"));
        const QString json = QString::fromStdString(cs::dbscanSweepJson(r));
        QVERIFY(json.startsWith(R"({"eps":[0.5,1.25],"minPts":[3,4],"cells":[{"eps":0.5,)"));
        QVERIFY(json.contains(R"({"eps":1.25,"minPts":4,"clusters":0,"noise_share":1,)"));
    }

    void sweepGridAndPlateau() {
        const auto p = cs::defaultDbscanSweep(2.0f);
        QCOMPARE(p.eps.size(), std::size_t(16));
        QCOMPARE(p.eps.front(), 0.5f);
        QCOMPARE(p.eps.back(), 8.0f);
        QCOMPARE(p.minPts.front(), 3);
        QCOMPARE(p.minPts.back(), 20);
        for (std::size_t i = 1; i < p.eps.size(); ++i)
            QVERIFY(std::abs(p.eps[i] / p.eps[i - 1] - std::pow(16.0f, 1.0f / 15.0f)) < 1e-4f);

        // Counts along eps: fragments, a run of 7 (the longest with >= 2), merges, one cluster.
        cs::DbscanSweepResult r;
        const std::vector<int> counts{15, 12, 9, 7, 7, 7, 7, 5, 3, 3, 3, 1, 1, 1, 1, 1};
        r.minPts = {10};
        for (std::size_t e = 0; e < counts.size(); ++e) {
            r.eps.push_back(float(e + 1));
            r.cells.push_back({float(e + 1), 10, counts[e], 0.0, 0.0});
        }
        const auto plateau = cs::dbscanPlateau(r, 0);
        QVERIFY(plateau.has_value());
        QCOMPARE(plateau->first, std::size_t(3));
        QCOMPARE(plateau->last, std::size_t(6));
        QCOMPARE(plateau->clusters, 7);
        QCOMPARE(plateau->eps, 5.0f);  // eps[(3 + 6) / 2]
        // Ties go to the smaller eps; no count >= 2 means no plateau.
        for (auto& c : r.cells)
            c.clusters = c.eps <= 2.0f ? 4 : c.eps <= 4.0f ? 3 : 1;
        QCOMPARE(cs::dbscanPlateau(r, 0)->clusters, 4);
        for (auto& c : r.cells)
            c.clusters = 1;
        QVERIFY(!cs::dbscanPlateau(r, 0).has_value());
    }

    // The demo scene as the GUI opens it (200k points, seed 42), MinPts 10: the knee of the
    // k-distance curve splits the sparse shapes into fragments; the suggestion (the middle of
    // the sweep's plateau) finds the seven shapes, each one cluster.
    void suggestionFindsTheDemoShapes() {
        const cs::PointSet points = cs::demo::makeDemoPoints(200'000, 42);
        cs::CpuBackend backend;
        cs::JobControl job;
        const auto kd = backend.kDistance(points, 10, job);
        const cs::EpsSuggestion s =
            cs::suggestDbscanEps(backend, points, kd.sorted, {.eps = 1.0f, .minPts = 10}, job);
        QVERIFY(s.plateau.has_value());
        QCOMPARE(s.plateau->clusters, 7);
        QCOMPARE(s.eps, s.plateau->eps);
        const cs::DbscanResult atKnee = backend.dbscan(points, {.eps = s.knee, .minPts = 10}, job);
        QVERIFY2(atKnee.clusterCount != 7, qPrintable(QString::number(atKnee.clusterCount)));
        const cs::DbscanResult r = backend.dbscan(points, {.eps = s.eps, .minPts = 10}, job);
        qInfo("knee eps %g: %d clusters; plateau eps %g to %g: %d clusters; suggested eps %g",
              double(s.knee), atKnee.clusterCount, double(s.sweep.eps[s.plateau->first]),
              double(s.sweep.eps[s.plateau->last]), s.plateau->clusters, double(s.eps));
        QCOMPARE(r.clusterCount, 7);
        // Each shape is mostly one cluster, a different one for each shape.
        const cs::PointAttribute* truth = points.attribute("truth");
        QVERIFY(truth);
        const std::size_t shapes = truth->categories.size();
        std::vector<std::size_t> table(shapes * 7, 0), members(shapes, 0);
        for (std::size_t i = 0; i < points.n; ++i)
            if (truth->labels[i] >= 0 && r.labels[i] >= 0) {
                ++table[std::size_t(truth->labels[i]) * 7 + std::size_t(r.labels[i])];
                ++members[std::size_t(truth->labels[i])];
            }
        std::vector<bool> taken(7, false);
        for (std::size_t t = 0; t < shapes; ++t) {
            const auto row = table.begin() + std::ptrdiff_t(t * 7);
            const auto best = std::size_t(std::max_element(row, row + 7) - row);
            QVERIFY2(!taken[best], truth->categories[t].c_str());
            taken[best] = true;
            QVERIFY2(double(row[std::ptrdiff_t(best)]) > 0.9 * double(members[t]),
                     truth->categories[t].c_str());
        }
    }

    void autoPath() {
        QCOMPARE(int(cs::resolveDbscanPathCpu(cs::DbscanPath::Auto, 100, 3)),
                 int(cs::DbscanPath::Grid));
        QCOMPARE(int(cs::resolveDbscanPathCpu(cs::DbscanPath::Auto, 100, 16)),
                 int(cs::DbscanPath::Brute));
        QCOMPARE(int(cs::resolveDbscanPathCpu(cs::DbscanPath::Auto, 100'000, 16)),
                 int(cs::DbscanPath::KdTree));
        QVERIFY_THROWS_EXCEPTION(cs::Error, cs::resolveDbscanPathCpu(cs::DbscanPath::Grid, 10, 4));
    }

    void denseCellsNeverChangeTheAnswer_data() {
        QTest::addColumn<qulonglong>("d");
        QTest::addColumn<int>("minPts");
        for (std::size_t d : {1, 2, 3})
            for (int minPts : {5, 40, 200})
                QTest::addRow("d=%zu minPts=%d", d, minPts) << qulonglong(d) << minPts;
    }
    void denseCellsNeverChangeTheAnswer() {
        // A ball of radius 2 eps: almost every grid cell is a dense clique.
        QFETCH(qulonglong, d);
        QFETCH(int, minPts);
        const float eps = 0.7f;
        const auto points = cs::makeDenseBall(2500, d, eps, 9 + d);
        const Oracle oracle = oracleDbscan(points, eps, minPts, false);
        for (int threads : {1, 3}) {
            cs::JobControl job;
            const auto r =
                cs::dbscanCpu(points, {eps, minPts, false, cs::DbscanPath::Grid}, job, threads);
            QVERIFY2(firstDifference(r, oracle).isEmpty(), qPrintable(firstDifference(r, oracle)));
        }
    }

    void stagesAndProgress() {
        const auto points = cs::makeBlobPoints(5000, 3, 3);
        std::vector<std::string> stages;
        double last = 0.0;
        bool monotone = true;
        cs::JobControl job([&](double f, std::string_view stage) {
            monotone = monotone && f >= last - 1e-12;
            last = f;
            if (stages.empty() || stages.back() != stage) stages.emplace_back(stage);
        });
        cs::CpuBackend backend(2);
        const auto r = backend.dbscan(points, {2.5f, 10}, job);
        QCOMPARE(int(r.pathUsed), int(cs::DbscanPath::Grid));
        QVERIFY(monotone);
        QCOMPARE(last, 1.0);
        std::vector<std::string> names;
        for (const auto& t : job.timings())
            names.push_back(t.name);
        const std::vector<std::string> expected{"recentre", "grid",   "core",
                                                "union",    "border", "labels"};
        QCOMPARE(names, expected);
        QVERIFY(r.clusterCount > 0);
    }

    void cancellation_data() {
        QTest::addColumn<int>("path");
        QTest::addColumn<QString>("atStage");
        for (auto p : {cs::DbscanPath::Grid, cs::DbscanPath::KdTree, cs::DbscanPath::Brute})
            for (const char* stage : {"", "core", "union", "border"})
                QTest::addRow("%s %s", cs::toString(p).data(), stage) << int(p) << QString(stage);
    }
    void cancellation() {
        QFETCH(int, path);
        QFETCH(QString, atStage);
        const auto points =
            cs::makeBlobPoints(path == int(cs::DbscanPath::Brute) ? 3000 : 20000, 3, 4);
        cs::JobControl* self = nullptr;
        cs::JobControl job([&](double, std::string_view stage) {
            if (!atStage.isEmpty() && stage == atStage.toStdString()) self->cancel();
        });
        self = &job;
        if (atStage.isEmpty()) job.cancel();
        const cs::DbscanParams params{1.0f, 10, false, cs::DbscanPath(path)};
        QVERIFY_THROWS_EXCEPTION(cs::Cancelled, cs::dbscanCpu(points, params, job, 2));
        cs::JobControl kjob;
        kjob.cancel();
        QVERIFY_THROWS_EXCEPTION(cs::Cancelled, cs::kDistanceCpu(points, 5, kjob, 2));
    }

    void badParameters() {
        const auto points = makeTestPoints("blobs", 50, 3, 1);
        cs::JobControl job;
        for (float eps : {-1.0f, std::nanf(""), std::numeric_limits<float>::infinity()})
            QVERIFY_THROWS_EXCEPTION(cs::Error, cs::dbscanCpu(points, {eps, 5}, job));
        QVERIFY_THROWS_EXCEPTION(cs::Error, cs::dbscanCpu(points, {1.0f, 0}, job));
        const auto high = makeTestPoints("blobs", 50, 16, 1);
        QVERIFY_THROWS_EXCEPTION(cs::Error,
                                 cs::dbscanCpu(high, {1.0f, 5, false, cs::DbscanPath::Grid}, job));
        auto nan = points;
        nan.coords[7] = std::nanf("");
        QVERIFY_THROWS_EXCEPTION(cs::Error, cs::dbscanCpu(nan, {1.0f, 5}, job));
        QVERIFY_THROWS_EXCEPTION(cs::Error, cs::kDistanceCpu(nan, 2, job));
        QVERIFY_THROWS_EXCEPTION(cs::Error, cs::kDistanceCpu(points, 0, job));
        QVERIFY_THROWS_EXCEPTION(cs::Error, cs::kDistanceCpu(points, 51, job));
        QVERIFY_THROWS_EXCEPTION(cs::Error, cs::kDistanceCpu(cs::PointSet{}, 1, job));
        try {
            cs::kDistanceCpu(points, 51, job);
        } catch (const cs::Error& e) {
            QVERIFY2(std::string(e.what()).find("exceeds the number of points (50)") !=
                         std::string::npos,
                     e.what());
        }
    }

    void kDistanceMatchesOracle_data() {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<qulonglong>("n");
        QTest::addColumn<qulonglong>("d");
        QTest::addColumn<int>("k");
        QTest::addColumn<qulonglong>("seed");
        for (std::size_t d : {1, 2, 3, 16, 64})
            for (int k : {1, 2, 7, 30})
                QTest::addRow("blobs d=%zu k=%d", d, k)
                    << "blobs" << 1500ull << qulonglong(d) << k << qulonglong(d * 100 + k);
        QTest::addRow("quantized d=3 k=10") << "quantized" << 2000ull << 3ull << 10 << 7ull;
        QTest::addRow("lattice d=2 k=5") << "lattice" << 2000ull << 2ull << 5 << 8ull;
        QTest::addRow("lattice d=16 k=3") << "lattice" << 1000ull << 16ull << 3 << 9ull;
        QTest::addRow("duplicates k=20") << "duplicates" << 300ull << 3ull << 20 << 10ull;
        // Radius search (k >= kKDistanceRadiusFromK, k * kKDistanceScanShare <= n).
        for (std::size_t d : {1, 2, 3, 16, 64})
            for (int k : {64, 93, 700})
                QTest::addRow("blobs d=%zu k=%d", d, k)
                    << "blobs" << 1500ull << qulonglong(d) << k << qulonglong(d * 100 + k);
        QTest::addRow("quantized d=3 k=80") << "quantized" << 2000ull << 3ull << 80 << 14ull;
        QTest::addRow("lattice d=2 k=100") << "lattice" << 2000ull << 2ull << 100 << 15ull;
        QTest::addRow("far d=3 k=70") << "far" << 2000ull << 3ull << 70 << 16ull;
        // Repeated points: counted, not searched one by one (every search, k below and above
        // the multiplicities).
        for (std::size_t d : {1, 3, 16})
            for (int k : {1, 2, 3, 10, 70, 200})
                QTest::addRow("pairs d=%zu k=%d", d, k)
                    << "pairs" << 2000ull << qulonglong(d) << k << qulonglong(d * 10 + k);
        for (std::size_t d : {2, 3, 64})
            for (int k : {1, 5, 12, 13, 70, 1200})
                QTest::addRow("repeated d=%zu k=%d", d, k)
                    << "repeated" << 2000ull << qulonglong(d) << k << qulonglong(d * 20 + k);
        for (int k : {10, 200, 400, 401, 2500, 4000})
            QTest::addRow("clump k=%d", k) << "clump" << 4000ull << 3ull << k << 17ull;
        QTest::addRow("duplicates k=1") << "duplicates" << 300ull << 3ull << 1 << 18ull;
        QTest::addRow("duplicates k=N") << "duplicates" << 300ull << 3ull << 300 << 19ull;
        QTest::addRow("duplicates d=64 k=7") << "duplicates" << 1000ull << 64ull << 7 << 20ull;
        QTest::addRow("far d=3 k=8") << "far" << 2000ull << 3ull << 8 << 11ull;
        QTest::addRow("k=N") << "blobs" << 200ull << 3ull << 200 << 12ull;
        QTest::addRow("n=1 k=1") << "blobs" << 1ull << 3ull << 1 << 13ull;
    }
    void kDistanceMatchesOracle() {
        QFETCH(QString, kind);
        QFETCH(qulonglong, n);
        QFETCH(qulonglong, d);
        QFETCH(int, k);
        QFETCH(qulonglong, seed);
        const auto points = makeTestPoints(kind, n, d, seed);
        const auto expected = oracleKDistance(points, k);
        for (int threads : {1, 4}) {
            cs::JobControl job;
            const auto r = cs::kDistanceCpu(points, k, job, threads);
            QCOMPARE(r.perPoint.size(), expected.size());
            for (std::size_t i = 0; i < expected.size(); ++i)
                if (r.perPoint[i] != expected[i])
                    QFAIL(qPrintable(QString("seed %1 threads %2 point %3: %4 vs oracle %5")
                                         .arg(seed)
                                         .arg(threads)
                                         .arg(i)
                                         .arg(double(r.perPoint[i]), 0, 'g', 9)
                                         .arg(double(expected[i]), 0, 'g', 9)));
            QVERIFY(std::is_sorted(r.sorted.begin(), r.sorted.end()));
            auto sorted = expected;
            std::sort(sorted.begin(), sorted.end());
            QCOMPARE(r.sorted, sorted);
        }
        if (k == 1)
            for (float v : expected)
                QCOMPARE(v, 0.0f);
    }

    // The same cloud at any scale gives the same answer (issue: squared distances overflowed
    // float at 1e30 and underflowed at 1e-30, giving one cluster of everything). A random
    // subset of the integer lattice: pair distances are near square roots of integers, so
    // eps = 1.5 is far from every one of them and rounding the scaled coordinates cannot move a
    // pair across it; jittered by up to 0.02, so that no two distances to a border point's core
    // neighbours tie (rounding could break such a tie either way). Powers of two scale floats
    // exactly: there the k-distances scale exactly too.
    void sameAnswerAtAnyScale_data() {
        QTest::addColumn<int>("path");
        for (auto [name, path] : {std::pair{"auto", cs::DbscanPath::Auto},
                                  {"grid", cs::DbscanPath::Grid},
                                  {"brute", cs::DbscanPath::Brute},
                                  {"kdtree", cs::DbscanPath::KdTree}})
            QTest::newRow(name) << int(path);
    }
    void sameAnswerAtAnyScale() {
        QFETCH(int, path);
        cs::Random rng(5);
        std::vector<float> lattice;
        for (int x = 0; x < 14; ++x)
            for (int y = 0; y < 14; ++y)
                for (int z = 0; z < 6; ++z)
                    if (rng.uniform(0, 1) < 0.25)
                        for (int c : {x, y, z})
                            lattice.push_back(float(c + rng.uniform(-0.02, 0.02)));
        const cs::PointSet unit = cs::PointSet::fromCoords(3, lattice);
        const cs::DbscanParams params{1.5f, 4, false, cs::DbscanPath(path)};
        cs::JobControl job;
        const cs::DbscanResult want = cs::dbscanCpu(unit, params, job, 2);
        const cs::KDistanceResult wantK = cs::kDistanceCpu(unit, 4, job, 2);
        QVERIFY2(want.clusterCount > 3, qPrintable(QString::number(want.clusterCount)));
        QVERIFY(std::count(want.labels.begin(), want.labels.end(), -1) > 0);
        for (double scale :
             {1e-30, 1e-20, 1e-12, 1e12, 1e20, 1e30, 0x1p-100, 0x1p-60, 0x1p60, 0x1p100, 0x1p120}) {
            cs::PointSet scaled = unit;
            for (float& v : scaled.coords)
                v = float(double(v) * scale);
            cs::DbscanParams p = params;
            p.eps = float(double(params.eps) * scale);
            const cs::DbscanResult got = cs::dbscanCpu(scaled, p, job, 2);
            QVERIFY2(got.labels == want.labels && got.isCore == want.isCore,
                     qPrintable(QString("scale %1: %2 clusters, %3 at scale 1")
                                    .arg(scale)
                                    .arg(got.clusterCount)
                                    .arg(want.clusterCount)));
            const cs::KDistanceResult k = cs::kDistanceCpu(scaled, 4, job, 2);
            int exponent = 0;
            const bool exact = std::frexp(scale, &exponent) == 0.5;  // a power of two
            for (std::size_t i = 0; i < unit.n; ++i) {
                const double expected = double(wantK.perPoint[i]) * scale;
                const double error = std::abs(double(k.perPoint[i]) - expected);
                if (exact ? error != 0.0 : !(error <= 1e-5 * expected))
                    QFAIL(qPrintable(QString("scale %1 point %2: k-distance %3, expected %4")
                                         .arg(scale)
                                         .arg(i)
                                         .arg(double(k.perPoint[i]))
                                         .arg(expected)));
            }
        }
    }

    void distinctRows() {
        // d = 2: rows 0, 2 and 4 are equal (-0 equals +0), so are 1 and 3; row 5 is alone.
        const std::vector<float> rows = {1, 0, 2, 3, 1, -0.0f, 2, 3, 1, 0, 5, 0};
        const cs::DistinctRows u = cs::distinctRows(rows, 6, 2);
        QCOMPARE(u.coords, (std::vector<float>{1, 0, 2, 3, 5, 0}));
        QCOMPARE(u.count, (std::vector<std::uint32_t>{3, 2, 1}));
        QCOMPARE(u.of, (std::vector<std::uint32_t>{0, 1, 0, 1, 0, 2}));
        // Nothing repeats: the rows as they were, and no map.
        const std::vector<float> plain = {1, 2, 3, 4, 1, 2.0000002f};
        const cs::DistinctRows v = cs::distinctRows(plain, 3, 2);
        QCOMPARE(v.coords, plain);
        QCOMPARE(v.count, (std::vector<std::uint32_t>{1, 1, 1}));
        QVERIFY(v.of.empty());
        QVERIFY(cs::distinctRows({}, 0, 3).count.empty());
        QVERIFY_THROWS_EXCEPTION(cs::Error, cs::distinctRows(plain, 4, 2));
        // Many rows, a few values each: every row lands with its equals, first appearance first.
        cs::Random rng(40);
        const std::size_t n = 20000, d = 3;
        std::vector<float> many(n * d);
        for (auto& v : many)
            v = float(rng.below(4)) * 0.5f;
        const cs::DistinctRows w = cs::distinctRows(many, n, d);
        QCOMPARE(w.count.size(), std::size_t(64));
        QCOMPARE(std::accumulate(w.count.begin(), w.count.end(), std::size_t(0)), n);
        QCOMPARE(w.of.size(), n);
        std::uint32_t next = 0;
        for (std::size_t i = 0; i < n; ++i) {
            QVERIFY(std::equal(&many[i * d], &many[i * d] + d, &w.coords[w.of[i] * d]));
            QVERIFY(w.of[i] <= next);
            if (w.of[i] == next) ++next;
        }
    }

    // Repeated points are searched once and counted (issue 15: 30,000 copies of one point cost
    // 5.6 s at k = 10, each copy visiting all the others): checked by the work done, not time.
    void kDistanceSearchesRepeatsOnce() {
        cs::JobControl job;
        cs::KDistanceCpuStats stats;
        const auto same = makeTestPoints("duplicates", 20000, 3, 30);
        auto r = cs::kDistanceCpu(same, 10, job, 2, &stats);
        QCOMPARE(stats.distinct, std::size_t(1));
        QCOMPARE(stats.searched, std::size_t(0));
        QCOMPARE(stats.evaluations, std::uint64_t(0));
        QVERIFY(std::all_of(r.perPoint.begin(), r.perPoint.end(), [](float v) { return v == 0; }));

        // A clump of 2,000 copies amid 18,000 other points costs what those points cost with
        // one copy (the same distinct points, so the same tree).
        const auto clump = makeTestPoints("clump", 20000, 3, 31);
        const cs::DistinctRows u = cs::distinctRows(clump.coords, clump.n, clump.dims);
        const auto alone = cs::PointSet::fromCoords(clump.dims, u.coords);
        QCOMPARE(alone.n, std::size_t(18001));
        for (int k : {10, 100}) {
            cs::KDistanceCpuStats withClump, withOne;
            r = cs::kDistanceCpu(clump, k, job, 2, &withClump);
            cs::kDistanceCpu(alone, k, job, 2, &withOne);
            QCOMPARE(withClump.distinct, alone.n);
            QCOMPARE(withClump.searched, alone.n - 1);
            QCOMPARE(withClump.search, withOne.search);
            QVERIFY2(withClump.evaluations <= withOne.evaluations + withOne.evaluations / 10,
                     qPrintable(QString("k=%1: %2 distances with the clump, %3 with one copy")
                                    .arg(k)
                                    .arg(withClump.evaluations)
                                    .arg(withOne.evaluations)));
            QCOMPARE(r.perPoint, oracleKDistance(clump, k));
        }

        // Pairs: half the points searched, none for k <= 2.
        const auto pairs = makeTestPoints("pairs", 4000, 3, 32);
        cs::kDistanceCpu(pairs, 3, job, 2, &stats);
        QCOMPARE(stats.distinct, std::size_t(2000));
        QCOMPARE(stats.searched, std::size_t(2000));
        cs::kDistanceCpu(pairs, 2, job, 2, &stats);
        QCOMPARE(stats.searched, std::size_t(0));

        // -0 and +0 survive recentring when the box is centred on 0; they are one point.
        const auto zeros = cs::PointSet::fromCoords(1, {-1.0f, 0.0f, -0.0f, 1.0f, 0.0f});
        r = cs::kDistanceCpu(zeros, 3, job, 1, &stats);
        QCOMPARE(stats.distinct, std::size_t(3));
        QCOMPARE(r.perPoint, oracleKDistance(zeros, 3));
        QCOMPARE(r.perPoint, (std::vector<float>{1, 0, 0, 1, 0}));
    }

    void kDistanceSearchChoice() {
        using cs::KDistanceSearch;
        QCOMPARE(cs::kDistanceSearchCpu(100000, 1), KDistanceSearch::Knn);
        QCOMPARE(cs::kDistanceSearchCpu(100000, cs::kKDistanceRadiusFromK - 1),
                 KDistanceSearch::Knn);
        QCOMPARE(cs::kDistanceSearchCpu(100000, cs::kKDistanceRadiusFromK),
                 KDistanceSearch::Radius);
        QCOMPARE(cs::kDistanceSearchCpu(100 * cs::kKDistanceScanShare, 100),
                 KDistanceSearch::Radius);
        QCOMPARE(cs::kDistanceSearchCpu(100 * cs::kKDistanceScanShare - 1, 100),
                 KDistanceSearch::Scan);
        QCOMPARE(cs::kDistanceSearchCpu(3, 2), KDistanceSearch::Scan);
        // The rows of kDistanceMatchesOracle reach every search.
        QCOMPARE(cs::kDistanceSearchCpu(1500, 93), KDistanceSearch::Radius);
        QCOMPARE(cs::kDistanceSearchCpu(4000, 401), KDistanceSearch::Radius);
        QCOMPARE(cs::kDistanceSearchCpu(4000, 2500), KDistanceSearch::Scan);
        QCOMPARE(cs::kDistanceSearchCpu(2000, 1200), KDistanceSearch::Scan);
    }

    // The estimate the CLI warns with and the GUI asks with, against the work counted.
    void kDistanceCost() {
        cs::JobCost cost = cs::kDistanceCostCpu(100'000, 3, 5000);
        QCOMPARE(cost.formula, std::string("N (3k + 150)"));
        QCOMPARE(cost.evaluations, 1e5 * 15'150);
        QVERIFY(!cost.costly());
        QCOMPARE(cost.text(),
                 std::string("about N (3k + 150) = 1.5e+09 distance evaluations, this may take "
                             "minutes"));
        cost = cs::kDistanceCostCpu(167'198, 3, 167'198);
        QCOMPARE(cost.formula, std::string("N^2 (every point scanned for each query)"));
        QVERIFY(cost.costly());
        QVERIFY(cs::kDistanceCostCpu(167'198, 3, 60'000).costly());
        QCOMPARE(cs::kDistanceCostCpu(50'000, 16, 10).formula, std::string("N (3k + 150) d"));
        cost = cs::kDistanceCostCpu(20'000, 64, 1250);
        QCOMPARE(cost.evaluations, 4e8);
        QVERIFY(cost.formula.starts_with("N^2"));
        // In 3-D within a factor 2 of what the searches count (deterministic: the chunks are
        // fixed); above, never under by more than that.
        struct Case {
            const char* kind;
            std::size_t n, d;
            int k;
        };
        for (const Case c : {Case{"blobs", 20'000, 3, 10}, Case{"blobs", 20'000, 3, 100},
                             Case{"blobs", 20'000, 3, 2'000}, Case{"blobs", 4'000, 3, 3'000},
                             Case{"clump", 20'000, 3, 100}, Case{"blobs", 20'000, 2, 300},
                             Case{"blobs", 5'000, 16, 10}, Case{"blobs", 5'000, 16, 500}}) {
            const auto points = makeTestPoints(c.kind, c.n, c.d, 50);
            cs::JobControl job;
            cs::KDistanceCpuStats stats;
            cs::kDistanceCpu(points, c.k, job, 2, &stats);
            const double estimate = cs::kDistanceCostCpu(c.n, c.d, c.k).evaluations;
            const double ratio = estimate / double(stats.evaluations);
            qInfo("%s n=%zu d=%zu k=%d: estimate / counted = %.2f", c.kind, c.n, c.d, c.k, ratio);
            QVERIFY2(ratio > 0.5 && (c.d > 3 || c.kind != QString("blobs") || ratio < 2.0),
                     qPrintable(QString("%1 n=%2 d=%3 k=%4: estimate %5, counted %6")
                                    .arg(c.kind)
                                    .arg(c.n)
                                    .arg(c.d)
                                    .arg(c.k)
                                    .arg(estimate)
                                    .arg(double(stats.evaluations))));
        }
    }

    void kDistanceAgreesWithCore() {
        // With k = minPts a point is core exactly when its k-distance is <= eps.
        const auto points = makeTestPoints("quantized", 3000, 3, 21);
        const int minPts = 8;
        cs::JobControl job;
        const auto kd = cs::kDistanceCpu(points, minPts, job);
        const float eps = kd.sorted[kd.sorted.size() / 3];
        const auto r = cs::dbscanCpu(points, {eps, minPts}, job);
        // sqrt rounds, so a k-distance equal to eps can go either way; strict ones cannot.
        for (std::size_t i = 0; i < points.n; ++i) {
            if (r.isCore[i]) QVERIFY(kd.perPoint[i] <= eps);
            if (!r.isCore[i]) QVERIFY(kd.perPoint[i] >= eps);
        }
    }

    void knee() {
        // Flat, then steep from 80 % on: the knee is where the steep part starts.
        std::vector<float> curve(1000);
        for (std::size_t i = 0; i < curve.size(); ++i)
            curve[i] = i < 800 ? 0.1f + 0.0001f * float(i) : 0.18f + 0.05f * float(i - 800);
        const auto k = cs::kDistanceKnee(curve);
        QVERIFY2(k.index >= 795 && k.index <= 805, qPrintable(QString::number(k.index)));
        QCOMPARE(k.distance, curve[k.index]);
        const std::vector<float> flat(10, 2.0f);
        QCOMPARE(cs::kDistanceKnee(flat).index, std::size_t(9));
        QCOMPARE(cs::kDistanceKnee(std::vector<float>{}).distance, 0.0f);
        QCOMPARE(cs::kDistanceKnee(std::vector<float>{1.0f, 3.0f}).distance, 3.0f);
        // On blobs + noise the knee sits at the noise's k-distances, above the blobs' ones.
        const auto blobs = cs::makeBlobPoints(20000, 3, 5);
        cs::JobControl job;
        const auto kd = cs::kDistanceCpu(blobs, 10, job);
        const float eps = cs::kDistanceKnee(kd.sorted).distance;
        QVERIFY2(eps > 0.5f && eps < 10.0f, qPrintable(QString::number(double(eps))));
    }

    void datasets() {
        for (auto dist : {cs::DbscanDistribution::Uniform, cs::DbscanDistribution::Blobs,
                          cs::DbscanDistribution::Dense, cs::DbscanDistribution::SeedSpreader}) {
            QCOMPARE(int(cs::parseDbscanDistribution(cs::toString(dist))), int(dist));
            const auto a = cs::makeDbscanDataset(dist, 5000, 3, 1.0f, 7);
            const auto b = cs::makeDbscanDataset(dist, 5000, 3, 1.0f, 7);
            const auto c = cs::makeDbscanDataset(dist, 5000, 3, 1.0f, 8);
            QCOMPARE(a.n, std::size_t(5000));
            QVERIFY(a.coords == b.coords);
            QVERIFY(a.coords != c.coords);
        }
        QVERIFY_THROWS_EXCEPTION(cs::Error, cs::parseDbscanDistribution("gauss"));
        // Pinned values: the generators must not drift (benchmarks and sklearn dumps rely on it).
        cs::Random rng(1);
        QCOMPARE(rng.next(), 0xb3f2af6d0fc710c5ull);  // xoshiro256** seeded by SplitMix64(1)
        const auto blobs = cs::makeBlobPoints(1000, 3, 1);
        for (std::size_t i = 0; i < 50 * 3; ++i)
            QVERIFY(std::abs(blobs.coords[i]) <= 110.0f);
        const auto dense = cs::makeDenseBall(1000, 3, 0.5f, 1);
        for (std::size_t i = 0; i < dense.n; ++i) {
            const float* p = &dense.coords[i * 3];
            QVERIFY(std::sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]) <= 1.0f + 1e-6f);
        }
        // Uniform: about 20 points within distance 1 away from the faces.
        const auto uniform = cs::makeUniformPoints(200'000, 3, 3);
        const double side = std::cbrt(200'000 * 4.0 / 3.0 * std::numbers::pi / 20.0);
        cs::JobControl job;
        const auto kd = cs::kDistanceCpu(uniform, 20, job);
        std::size_t inside = 0, within = 0;
        for (std::size_t i = 0; i < uniform.n; ++i) {
            const float* p = &uniform.coords[i * 3];
            if (std::min({p[0], p[1], p[2]}) < 2 || std::max({p[0], p[1], p[2]}) > side - 2)
                continue;
            ++inside;
            within += kd.perPoint[i] <= 1.0f;
        }
        // Core at minPts = 20 needs 19 others: P(Poisson(20) >= 19) = 0.62.
        const double fraction = double(within) / double(inside);
        QVERIFY2(fraction > 0.57 && fraction < 0.67, qPrintable(QString::number(fraction)));
        const auto spread = cs::makeSeedSpreaderPoints(20000, 3, 2);
        cs::JobControl sjob;
        const auto r = cs::dbscanCpu(spread, {5000.0f, 100}, sjob);
        QVERIFY(r.clusterCount >= 1 && r.clusterCount <= 30);
        QCOMPARE(cs::paperSizes()[0], std::size_t(23'040));
        QCOMPARE(cs::paperSizes()[1], std::size_t(60'032));
    }

    void matchesScikitLearn_data() {
        QTest::addColumn<QString>("reference");
        const auto dir = cs::test::testSource("compute/data");
        std::vector<std::string> files;
        std::error_code ec;
        for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
            const auto name = e.path().filename().string();
            if (name.rfind("dbscan_", 0) == 0 && e.path().extension() == ".csv")
                files.push_back(name);
        }
        std::sort(files.begin(), files.end());
        for (const auto& f : files)
            QTest::newRow(f.c_str()) << QString::fromStdString(f);
        if (files.empty()) QTest::newRow("no reference files") << QString();
    }
    void matchesScikitLearn() {
        // Core flags must agree exactly and the partition of the core points up to renaming.
        // Border points may differ legitimately: scikit-learn gives a border point to the first
        // cluster that reaches it in its expansion order, we to its nearest core point.
        QFETCH(QString, reference);
        if (reference.isEmpty()) QFAIL("no tests/compute/data/dbscan_*.csv reference files");
        const auto ref =
            readReference(cs::test::testSource("compute/data/" + reference.toStdString()));
        const auto cloud = cs::io::readPcd(cs::test::sharedData("points/" + ref.meta.at("cloud")));
        QCOMPARE(cloud.n, std::size_t(std::stoull(ref.meta.at("n"))));
        double sum = 0.0;
        for (float v : cloud.coords)
            sum += double(v);
        QVERIFY2(std::abs(sum - std::stod(ref.meta.at("coord_sum"))) <=
                     1e-6 * std::max(1.0, std::abs(sum)),
                 "the cloud read differs from the one scikit-learn saw");
        QCOMPARE(ref.labels.size(), cloud.n);
        const float eps = std::stof(ref.meta.at("eps"));
        const int minPts = std::stoi(ref.meta.at("min_samples"));
        cs::JobControl job;
        const auto r = cs::dbscanCpu(cloud, {eps, minPts}, job);
        std::map<std::int32_t, std::int32_t> ours2theirs, theirs2ours;
        std::size_t cores = 0;
        for (std::size_t i = 0; i < cloud.n; ++i) {
            if (r.isCore[i] != ref.isCore[i])
                QFAIL(qPrintable(QString("point %1: core %2, scikit-learn %3")
                                     .arg(i)
                                     .arg(r.isCore[i])
                                     .arg(ref.isCore[i])));
            if (!r.isCore[i]) continue;
            ++cores;
            const auto [a, newA] = ours2theirs.emplace(r.labels[i], ref.labels[i]);
            const auto [b, newB] = theirs2ours.emplace(ref.labels[i], r.labels[i]);
            if (a->second != ref.labels[i] || b->second != r.labels[i])
                QFAIL(qPrintable(
                    QString("point %1: cluster %2 vs scikit-learn %3 is not a relabelling")
                        .arg(i)
                        .arg(r.labels[i])
                        .arg(ref.labels[i])));
        }
        QCOMPARE(cores, std::size_t(std::stoull(ref.meta.at("core"))));
        QCOMPARE(std::size_t(r.clusterCount), std::size_t(std::stoull(ref.meta.at("clusters"))));
        // Grid and kd-tree agree on the real cloud too.
        const auto kd = cs::dbscanCpu(cloud, {eps, minPts, false, cs::DbscanPath::KdTree}, job);
        QVERIFY(kd.labels == r.labels && kd.isCore == r.isCore);
    }
};

QTEST_GUILESS_MAIN(TestDbscan)
#include "tst_dbscan.moc"
