// SPDX-License-Identifier: MIT
// The kNN graph of sparse rows (compute/knn/knn_sparse_cpu.h) against a referee written from
// the definitions on the rows made dense: the same projections and trees, each point's list
// exactly the k nearest among the points it shared a leaf with, a recall near 1 against brute
// force, one graph for any thread count, the backend taking the sparse path, bad input refused.
#include <QTest>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "compute/backend/cpu_backend.h"
#include "compute/core/error.h"
#include "compute/core/geometry.h"
#include "compute/core/item_subset.h"
#include "compute/core/random.h"
#include "compute/core/sparse_pca.h"
#include "compute/core/sparse_set.h"
#include "compute/knn/knn_cpu.h"
#include "compute/knn/knn_sparse_cpu.h"
#include "compute/knn/knn_subset.h"
#include "tests/common/error_of.h"

namespace {

using cs::KnnGraph;
using cs::KnnParams;
using cs::SparseSet;

// Rows in `clusters` groups: each group has its own handful of columns (plus shared noise
// columns), so neighbours are mostly within a group; some rows empty, some explicit zeros.
SparseSet clusteredRows(std::size_t n, std::size_t dims, int clusters, std::uint64_t seed) {
    cs::Random random(seed);
    std::vector<std::vector<std::int32_t>> columns(static_cast<std::size_t>(clusters));
    for (auto& c : columns) {
        std::set<std::int32_t> picked;
        while (picked.size() < 12)
            picked.insert(std::int32_t(random.below(dims)));
        c.assign(picked.begin(), picked.end());
    }
    SparseSet s;
    s.n = n;
    s.dims = dims;
    s.indptr.push_back(0);
    for (std::size_t i = 0; i < n; ++i) {
        if (i % 97 == 5) {  // an empty row: the zero vector
            s.indptr.push_back(std::int64_t(s.indices.size()));
            continue;
        }
        std::set<std::int32_t> cols;
        const auto& own = columns[i % std::size_t(clusters)];
        for (int e = 0; e < 6; ++e)
            cols.insert(own[random.below(own.size())]);
        for (int e = 0; e < 2; ++e)
            cols.insert(std::int32_t(random.below(dims)));
        for (std::int32_t c : cols) {
            s.indices.push_back(c);
            s.values.push_back(i % 53 == 7 ? 0.0f : float(random.uniform(0.5, 2.0)));
        }
        s.indptr.push_back(std::int64_t(s.indices.size()));
    }
    s.validate();
    return s;
}

std::vector<float> densify(const SparseSet& s) {
    std::vector<float> x(s.n * s.dims, 0.0f);
    for (std::size_t i = 0; i < s.n; ++i)
        for (std::int64_t e = s.indptr[i]; e < s.indptr[i + 1]; ++e)
            x[i * s.dims + std::size_t(s.indices[std::size_t(e)])] = s.values[std::size_t(e)];
    return x;
}

// The k smallest (canonicalDist2 on the dense rows, index) among candidates, self excluded.
std::vector<std::pair<float, std::int32_t>> nearest(const std::vector<float>& x, std::size_t dims,
                                                    std::size_t i,
                                                    const std::vector<std::int32_t>& candidates,
                                                    int k) {
    std::vector<std::pair<float, std::int32_t>> all;
    for (std::int32_t j : candidates)
        if (std::size_t(j) != i)
            all.emplace_back(cs::canonicalDist2(&x[i * dims], &x[std::size_t(j) * dims], dims), j);
    std::sort(all.begin(), all.end());
    all.erase(std::unique(all.begin(), all.end()), all.end());
    all.resize(std::min(all.size(), std::size_t(k)));
    return all;
}

}  // namespace

class TestKnnSparse : public QObject {
    Q_OBJECT

private slots:
    void distanceIsTheDenseCanonicalOne() {
        const SparseSet s = clusteredRows(150, 300, 4, 11);
        const std::vector<float> x = densify(s);
        for (std::size_t i = 0; i < s.n; ++i)
            for (std::size_t j = 0; j < s.n; j += 3) {
                // Bit for bit (QCOMPARE on floats is fuzzy).
                const float d = cs::sparseDist2(s, i, j);
                QVERIFY(d == cs::canonicalDist2(&x[i * s.dims], &x[j * s.dims], s.dims));
                QVERIFY(d == cs::sparseDist2(s, j, i));
            }
    }

    void treesAreTheDenseTrees() {
        // Sparse x dense projections give the dense path's projections bit for bit, so the
        // trees are the same.
        const SparseSet s = clusteredRows(700, 250, 5, 2);
        const int levels = cs::knnLevels(s.n, 64);
        for (int tree = 0; tree < 3; ++tree) {
            const auto directions = cs::knnTreeDirections(9, tree, levels, s.dims);
            QCOMPARE(cs::knnSparseTreeOrder(s, directions, levels, 2),
                     cs::knnTreeOrderCpu(densify(s), s.n, s.dims, directions, levels, 1));
        }
    }

    void exactWithinLeaves_data() {
        QTest::addColumn<int>("k");
        QTest::addColumn<int>("leafSize");
        QTest::addColumn<int>("trees");
        QTest::newRow("k 8, leaves of 64, 3 trees") << 8 << 64 << 3;
        QTest::newRow("k 1, leaves of 16, 2 trees") << 1 << 16 << 2;
        QTest::newRow("k 20, one leaf") << 20 << 1024 << 1;
    }
    void exactWithinLeaves() {
        QFETCH(int, k);
        QFETCH(int, leafSize);
        QFETCH(int, trees);
        const SparseSet s = clusteredRows(600, 200, 6, 5);
        const KnnParams params{
            .k = k, .trees = trees, .leafSize = leafSize, .targetRecall = 0.0, .seed = 4};
        cs::JobControl job;
        const KnnGraph g = cs::knnGraphSparseCpu(s, params, job, 3);
        QCOMPARE(g.n, s.n);
        QCOMPARE(g.treesBuilt, trees);

        // The referee: the leaves of every tree from the dense rows, then each point's k
        // nearest among all points it met.
        const std::vector<float> x = densify(s);
        const int levels = cs::knnLevels(s.n, leafSize);
        const auto leaves = cs::knnNodeOffsets(s.n, levels);
        std::vector<std::vector<std::int32_t>> met(s.n);
        for (int t = 0; t < trees; ++t) {
            const auto order = cs::knnTreeOrderCpu(
                x, s.n, s.dims, cs::knnTreeDirections(params.seed, t, levels, s.dims), levels, 1);
            for (std::size_t leaf = 0; leaf + 1 < leaves.size(); ++leaf)
                for (std::uint32_t a = leaves[leaf]; a < leaves[leaf + 1]; ++a)
                    for (std::uint32_t b = leaves[leaf]; b < leaves[leaf + 1]; ++b)
                        met[order[a]].push_back(std::int32_t(order[b]));
        }
        const std::size_t kk = std::size_t(k);
        for (std::size_t i = 0; i < s.n; ++i) {
            const auto want = nearest(x, s.dims, i, met[i], k);
            for (std::size_t q = 0; q < kk; ++q) {
                const std::int32_t got = g.indices[i * kk + q];
                if (q >= want.size()) {
                    QCOMPARE(got, std::numeric_limits<std::int32_t>::max());
                    continue;
                }
                QVERIFY2(got == want[q].second,
                         qPrintable(QString("point %1, place %2: got %3, want %4 (seed 5)")
                                        .arg(i)
                                        .arg(q)
                                        .arg(got)
                                        .arg(want[q].second)));
                QVERIFY(g.distances[i * kk + q] == std::sqrt(want[q].first));
            }
        }
    }

    void recallAgainstBruteForce() {
        const SparseSet s = clusteredRows(1500, 400, 8, 21);
        const int k = 10;
        cs::JobControl job;
        const KnnGraph g = cs::knnGraphSparseCpu(
            s, {.k = k, .trees = 12, .leafSize = 128, .targetRecall = 0.0, .seed = 3}, job, 2);
        std::vector<std::int32_t> all(s.n);
        for (std::size_t i = 0; i < s.n; ++i)
            all[i] = std::int32_t(i);
        std::vector<float> exact;
        cs::knnExactRowsSparse(s, all, k, 2, &exact);
        std::vector<float> got(g.distances.size());
        for (std::size_t e = 0; e < got.size(); ++e)
            got[e] = g.distances[e] * g.distances[e];
        // Recomputed squares can differ from the lists' in the last bit: compare with the lists'
        // own squared distances instead, from the rows.
        for (std::size_t i = 0; i < s.n; ++i)
            for (std::size_t q = 0; q < std::size_t(k); ++q)
                got[i * k + q] = cs::sparseDist2(s, i, std::size_t(g.indices[i * k + q]));
        const double recall = cs::knnRecallOfRows(got, exact, k);
        QVERIFY2(recall >= 0.9, qPrintable(QString("recall %1 over all points").arg(recall)));
        // The sampled recall the build reports is that of its sample.
        QVERIFY(std::fabs(g.recall() - recall) < 0.1);
        for (std::size_t t = 1; t < g.recallByTree.size(); ++t)
            QVERIFY(g.recallByTree[t] >= g.recallByTree[t - 1]);
    }

    void stopsAtTargetRecall() {
        const SparseSet s = clusteredRows(800, 300, 4, 8);
        cs::JobControl job;
        const KnnGraph g = cs::knnGraphSparseCpu(
            s, {.k = 5, .trees = 30, .leafSize = 64, .targetRecall = 0.9}, job, 2);
        QVERIFY(g.recall() >= 0.9);
        QVERIFY(g.treesBuilt < 30);
    }

    void sameGraphForAnyThreadCount() {
        const SparseSet s = clusteredRows(900, 300, 5, 13);
        const KnnParams params{.k = 6, .trees = 3, .leafSize = 50, .targetRecall = 0.0};
        cs::JobControl a, b;
        const KnnGraph one = cs::knnGraphSparseCpu(s, params, a, 1);
        const KnnGraph four = cs::knnGraphSparseCpu(s, params, b, 4);
        QCOMPARE(one.indices, four.indices);
        QCOMPARE(one.distances, four.distances);
        QCOMPARE(one.recallByTree, four.recallByTree);
    }

    void backendTakesTheSparsePath() {
        auto rows = std::make_shared<SparseSet>(clusteredRows(400, 120, 4, 17));
        cs::PointSet points;
        points.n = rows->n;
        points.dims = 3;
        points.coords = cs::sparsePcaCoords(*rows);
        points.sparse = rows;
        points.validate();
        const KnnParams params{.k = 7, .trees = 2, .leafSize = 64, .targetRecall = 0.0};
        cs::CpuBackend backend(2);
        cs::JobControl a, b;
        const KnnGraph viaBackend = backend.knnGraph(points, params, a);
        const KnnGraph direct = cs::knnGraphSparseCpu(*rows, params, b, 1);
        QCOMPARE(viaBackend.indices, direct.indices);
        QCOMPARE(viaBackend.distances, direct.distances);
        // Not the graph of the 3-D view.
        cs::PointSet view = points;
        view.sparse = nullptr;
        cs::JobControl c;
        QVERIFY(backend.knnGraph(view, params, c).indices != direct.indices);

        // A run on some rows is the graph of those rows.
        const auto subset =
            cs::ItemSubset::of({0, 5, 9, 10, 11, 40, 41, 42, 100, 200, 201, 300}, points.n);
        cs::JobControl d, e;
        const KnnParams small{.k = 3, .trees = 1, .leafSize = 64, .targetRecall = 0.0};
        const KnnGraph part = backend.knnGraph(cs::subsetOf(points, subset), small, d);
        const KnnGraph partDirect = cs::knnGraphSparseCpu(cs::subsetOf(*rows, subset), small, e);
        QCOMPARE(part.indices, partDirect.indices);
        QCOMPARE(cs::expandKnnGraph(part, subset).n, points.n);
    }

    void refusals() {
        const SparseSet s = clusteredRows(10, 20, 2, 1);
        cs::JobControl job;
        QVERIFY(cs::test::errorOf([&] {
                    cs::knnGraphSparseCpu(s, {.k = 10, .leafSize = 64}, job);
                }).find("at least k + 1 = 11 points") != std::string::npos);
        SparseSet bad = s;
        bad.indices[1] = bad.indices[0];
        QVERIFY(cs::test::errorOf([&] {
                    cs::knnGraphSparseCpu(bad, {.k = 2}, job);
                }).find("sorted and distinct") != std::string::npos);
        QVERIFY(cs::test::errorOf([&] { cs::knnGraphSparseCpu(s, {.k = 0}, job); }).find("k") !=
                std::string::npos);
    }

    void cancellation() {
        const SparseSet s = clusteredRows(2000, 300, 5, 3);
        bool sawLeaves = false;
        cs::JobControl before([&](double, std::string_view stage) {
            if (stage == "leaf search") sawLeaves = true;
        });
        before.cancel();
        QVERIFY_THROWS_EXCEPTION(cs::Cancelled, cs::knnGraphSparseCpu(s, {.k = 5}, before, 2));
        QVERIFY(!sawLeaves);
        // Cancelled in the middle (once the first tree is split): no graph either.
        cs::JobControl* self = nullptr;
        cs::JobControl middle([&](double, std::string_view stage) {
            if (stage == "tree" && self) self->cancel();
        });
        self = &middle;
        QVERIFY_THROWS_EXCEPTION(cs::Cancelled,
                                 cs::knnGraphSparseCpu(s, {.k = 5, .targetRecall = 0.0}, middle));
    }
};

QTEST_GUILESS_MAIN(TestKnnSparse)
#include "tst_knn_sparse.moc"
