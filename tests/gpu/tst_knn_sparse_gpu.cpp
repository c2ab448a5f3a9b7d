// SPDX-License-Identifier: MIT
// The GPU kNN graph of sparse rows (kernels/knn/knn_sparse_gpu.h) against the CPU's
// (knnGraphSparseCpu): indices, distances, recall after every tree and the trees built must be
// identical, since both add in the same order without FMA.
#include <cuda_runtime.h>

#include <cstring>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "compute/core/job_control.h"
#include "compute/core/point_set.h"
#include "compute/core/random.h"
#include "compute/core/sparse_set.h"
#include "compute/knn/knn_sparse_cpu.h"
#include "kernels/common/stream_handles.h"
#include "kernels/cuda_backend.h"
#include "kernels/knn/knn_gpu.h"
#include "kernels/knn/knn_sparse_gpu.h"
#include "tests/common/gpu_cases.h"
#include "tests/common/gpu_test.h"

using cs::KnnGraph;
using cs::KnnParams;
using cs::SparseSet;

namespace {

using cs::test::firstDifference;
using cs::test::noisySeries;

std::unique_ptr<cs::kernels::StreamHandles> g_context;

// Rows in groups over their own columns, some long (past the kernel's shared-memory entries),
// some empty, some with explicit zeros.
SparseSet groupedRows(std::size_t n, std::size_t dims, std::uint64_t seed, int longEvery) {
    cs::Random random(seed);
    SparseSet s;
    s.n = n;
    s.dims = dims;
    s.indptr.push_back(0);
    for (std::size_t i = 0; i < n; ++i) {
        std::set<std::int32_t> cols;
        const std::size_t want = i % 101 == 3                      ? 0
                                 : longEvery && i % longEvery == 1 ? 1500
                                                                   : 4 + random.below(20);
        const std::int32_t base = std::int32_t((i % 7) * (dims / 8));
        while (cols.size() < std::min(want, dims))
            cols.insert(random.below(4) ? base + std::int32_t(random.below(dims / 8))
                                        : std::int32_t(random.below(dims)));
        for (std::int32_t c : cols) {
            s.indices.push_back(c);
            s.values.push_back(i % 37 == 2 ? 0.0f : float(random.normal()));
        }
        s.indptr.push_back(std::int64_t(s.indices.size()));
    }
    s.validate();
    return s;
}

}  // namespace

CS_TEST(forestsMatchCpu) {
    struct Case {
        std::size_t n, dims;
        int k, leafSize, trees, longEvery;
    };
    for (const Case& c : {Case{3'000, 500, 10, 128, 4, 0}, Case{20'000, 20'000, 16, 512, 3, 997},
                          Case{5'001, 64, 1, 16, 6, 0}, Case{9'000, 2'000, 64, 2048, 2, 301}}) {
        const SparseSet rows = groupedRows(c.n, c.dims, c.n, c.longEvery);
        const KnnParams p{.k = c.k, .trees = c.trees, .leafSize = c.leafSize, .targetRecall = 0.0};
        cs::JobControl cpuJob, gpuJob;
        const KnnGraph cpu = cs::knnGraphSparseCpu(rows, p, cpuJob);
        const KnnGraph gpu = cs::kernels::knnGraphSparseCuda(*g_context, rows, p, gpuJob);
        const std::string diff = firstDifference(cpu, gpu);
        CS_CHECK_MSG(diff.empty(),
                     "n=" + std::to_string(c.n) + " k=" + std::to_string(c.k) + ": " + diff);
    }
}

CS_TEST(stopsWhereCpuStops) {
    const SparseSet rows = groupedRows(8'000, 1'000, 5, 0);
    const KnnParams p{.k = 8, .trees = 20, .leafSize = 256, .targetRecall = 0.9};
    cs::JobControl cpuJob, gpuJob;
    const KnnGraph cpu = cs::knnGraphSparseCpu(rows, p, cpuJob);
    const KnnGraph gpu = cs::kernels::knnGraphSparseCuda(*g_context, rows, p, gpuJob);
    CS_CHECK_EQ(gpu.treesBuilt, cpu.treesBuilt);
    CS_CHECK_MSG(firstDifference(cpu, gpu).empty(), firstDifference(cpu, gpu));
}

// The recall sample's exact lists on the device are the host brute force's, bit for bit: ties
// among copies of rows (a list's order then rests on the index), empty rows, rows longer than
// the kernel keeps in shared memory, a last block of rows that is not full, and k = 1 and 64.
CS_TEST(exactRowsMatchCpu) {
    SparseSet rows = groupedRows(5'000, 2'000, 17, 251);
    // Rows 4000.. copy rows 0..: duplicates at distance 0 (and empty rows copied too).
    SparseSet copies = rows;
    copies.indices.resize(std::size_t(rows.indptr[4'000]));
    copies.values.resize(copies.indices.size());
    copies.indptr.resize(4'001);
    for (std::size_t i = 0; i < 1'000; ++i) {
        const auto c = rows.rowIndices(i);
        const auto v = rows.rowValues(i);
        copies.indices.insert(copies.indices.end(), c.begin(), c.end());
        copies.values.insert(copies.values.end(), v.begin(), v.end());
        copies.indptr.push_back(std::int64_t(copies.indices.size()));
    }
    copies.validate();
    const std::vector<std::int32_t> listed = {0, 1, 3, 104, 252, 999, 2'047, 2'048, 4'000, 4'999};
    for (int k : {1, 10, 64}) {
        std::vector<float> cpuDist2, gpuDist2;
        cs::JobControl job;
        const auto cpu = cs::knnExactRowsSparse(copies, listed, k, 0, &cpuDist2);
        const auto gpu =
            cs::kernels::knnExactRowsSparseCuda(*g_context, copies, listed, k, gpuDist2, job);
        CS_CHECK_MSG(gpu == cpu, "k=" + std::to_string(k) + ": the indices differ");
        CS_CHECK_MSG(gpuDist2 == cpuDist2, "k=" + std::to_string(k) + ": the distances differ");
        CS_CHECK(cpuDist2.front() == 0.0f);  // row 0's copy, row 4000
    }
}

// What the GUI and the CLI call: the CUDA backend on a sparse file's points takes the sparse
// rows, not their 3-D view, and leaves the same indices on the device for the view's edges.
CS_TEST(backendRunsSparseRowsOnTheGpu) {
    auto rows = std::make_shared<SparseSet>(groupedRows(6'000, 3'000, 11, 499));
    cs::PointSet points;
    points.n = rows->n;
    points.dims = 3;
    points.coords.assign(points.n * 3, 0.0f);  // a flat view: a graph of it would be ties only
    points.sparse = rows;
    const KnnParams p{.k = 12, .trees = 3, .leafSize = 256, .targetRecall = 0.0};
    cs::JobControl cpuJob, gpuJob;
    const KnnGraph cpu = cs::knnGraphSparseCpu(*rows, p, cpuJob);
    const KnnGraph gpu = cs::kernels::createCudaBackend()->knnGraph(points, p, gpuJob);
    CS_CHECK_MSG(firstDifference(cpu, gpu).empty(), firstDifference(cpu, gpu));
    const auto* kept = dynamic_cast<const cs::kernels::KnnDeviceGraph*>(gpu.device.get());
    CS_CHECK(kept != nullptr);
    CS_CHECK_EQ(kept->points(), gpu.n);
    std::vector<std::int32_t> onDevice(gpu.indices.size());
    CS_CHECK(cudaMemcpy(onDevice.data(), kept->targets(), onDevice.size() * sizeof(std::int32_t),
                        cudaMemcpyDeviceToHost) == cudaSuccess);
    CS_CHECK(onDevice == gpu.indices);
}

int main(int argc, char** argv) {
    cs::test::skipWithoutCudaDevice("tst_knn_sparse_gpu");
    g_context = std::make_unique<cs::kernels::StreamHandles>(0);
    const int rc = cs::test::runTests("tst_knn_sparse_gpu", argc, argv);
    g_context.reset();
    return rc;
}
