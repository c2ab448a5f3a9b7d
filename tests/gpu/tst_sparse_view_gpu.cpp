// SPDX-License-Identifier: MIT
// The sparse view on the GPU (kernels/sparse/sparse_view_gpu.h) against the host's
// (sparsePcaCoords): the same iteration over products in double, so the coordinates agree to
// rounding wherever the principal axes are well separated.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "compute/core/error.h"
#include "compute/core/job_control.h"
#include "compute/core/random.h"
#include "compute/core/sparse_pca.h"
#include "compute/core/sparse_set.h"
#include "kernels/common/stream_handles.h"
#include "kernels/cuda_backend.h"
#include "kernels/sparse/sparse_view_gpu.h"
#include "tests/common/gpu_test.h"

using cs::SparseSet;

namespace {

std::unique_ptr<cs::kernels::StreamHandles> g_context;

// Rows of a few patterns (each on up to six columns of its own, at scales 6, 3, 1.5 ... so that the
// principal axes stand apart) plus noise entries anywhere among `dims` columns (spread by
// `stride`, as hashed features are); every 97th row empty. Without noise the rows have the rank
// of their patterns (below three for one or two).
SparseSet patternRows(std::size_t n, std::size_t dims, std::uint64_t seed, int patterns,
                      std::size_t stride = 1, bool noise = true) {
    cs::Random random(seed);
    SparseSet s;
    s.n = n;
    s.dims = dims * stride;
    s.indptr.push_back(0);
    const std::size_t width = std::clamp<std::size_t>(dims / std::size_t(2 * patterns), 1, 6);
    for (std::size_t i = 0; i < n; ++i) {
        std::vector<std::pair<std::int32_t, float>> entries;
        if (i % 97 != 5) {
            double scale = 6.0;
            for (int k = 0; k < patterns; ++k, scale /= 2.0) {
                const double a = random.normal() * scale;
                for (std::size_t c = 0; c < width; ++c)
                    entries.emplace_back(std::int32_t((std::size_t(k) * width + c) * stride),
                                         float(a * (1.0 + 0.1 * double(c % 5))));
            }
            for (int extra = 0; noise && extra < 5; ++extra)
                entries.emplace_back(std::int32_t(random.below(dims) * stride),
                                     float(random.normal() * 0.2));
        }
        std::sort(entries.begin(), entries.end(),
                  [](const auto& a, const auto& b) { return a.first < b.first; });
        std::set<std::int32_t> seen;
        for (const auto& [c, v] : entries)
            if (seen.insert(c).second) {
                s.indices.push_back(c);
                s.values.push_back(v);
            }
        s.indptr.push_back(std::int64_t(s.indices.size()));
    }
    s.validate();
    return s;
}

// Largest |gpu - cpu| over the coordinates, relative to the largest |cpu|.
double relativeDifference(const std::vector<float>& cpu, const std::vector<float>& gpu) {
    double largest = 0.0, diff = 0.0;
    for (std::size_t i = 0; i < cpu.size(); ++i) {
        largest = std::max(largest, double(std::fabs(cpu[i])));
        diff = std::max(diff, double(std::fabs(cpu[i] - gpu[i])));
    }
    return largest > 0.0 ? diff / largest : diff;
}

}  // namespace

CS_TEST(viewMatchesHost) {
    struct Case {
        const char* name;
        std::size_t n, dims;
        int patterns;
        std::size_t stride;
        bool noise;
    };
    for (const Case& c :
         {Case{"plain", 20'000, 3'000, 4, 1, true},
          Case{"hashed columns", 5'000, 800, 3, 1'000'003, true},
          Case{"one pattern: rank 1", 3'000, 100, 1, 1, false},
          Case{"four used columns", 2'000, 8, 2, 1, false}, Case{"five rows", 5, 60, 3, 1, true},
          Case{"large", 300'000, 40'000, 5, 1, true}}) {
        const SparseSet rows =
            patternRows(c.n, c.dims, c.n + c.dims, c.patterns, c.stride, c.noise);
        const std::vector<float> cpu = cs::sparsePcaCoords(rows, 1);
        cs::JobControl job;
        const std::vector<float> gpu = cs::kernels::sparseViewCuda(*g_context, rows, job);
        CS_CHECK_EQ(gpu.size(), cpu.size());
        const double diff = relativeDifference(cpu, gpu);
        CS_CHECK_MSG(diff < 1e-5, std::string(c.name) + ": coordinates differ by " +
                                      std::to_string(diff) + " of the largest");
        // Axes the data does not have stay 0 on both.
        for (std::size_t a = std::size_t(std::min(c.patterns, 3)); a < 3 && !c.noise; ++a)
            for (std::size_t i = 0; i < rows.n; ++i)
                CS_CHECK_MSG(gpu[i * 3 + a] == 0.0f && cpu[i * 3 + a] == 0.0f,
                             std::string(c.name) + ": axis " + std::to_string(a) + " not 0");
    }
}

CS_TEST(viewIsDeterministic) {
    const SparseSet rows = patternRows(50'000, 5'000, 7, 4);
    cs::JobControl job;
    const std::vector<float> first = cs::kernels::sparseViewCuda(*g_context, rows, job);
    CS_CHECK(first == cs::kernels::sparseViewCuda(*g_context, rows, job));
}

CS_TEST(emptyMatrixGivesZeros) {
    SparseSet rows;
    rows.n = 4;
    rows.dims = 10;
    rows.indptr.assign(5, 0);
    cs::JobControl job;
    CS_CHECK(cs::kernels::sparseViewCuda(*g_context, rows, job) == std::vector<float>(12, 0.0f));
}

// What the loaders call (Backend::sparseView), here from a thread of its own while the backend
// is idle: the host's view to rounding.
CS_TEST(backendViewMatchesHost) {
    const SparseSet rows = patternRows(10'000, 2'000, 3, 4);
    cs::JobControl job;
    const auto backend = cs::kernels::createCudaBackend();
    std::vector<float> gpu;
    std::thread([&] { gpu = backend->sparseView(rows, job); }).join();
    CS_CHECK_MSG(relativeDifference(cs::sparsePcaCoords(rows, 1), gpu) < 1e-5,
                 "the backend's view is not the host's");
}

CS_TEST(cancelledJobStops) {
    const SparseSet rows = patternRows(20'000, 2'000, 5, 3);
    cs::JobControl job;
    job.cancel();
    CS_CHECK_THROWS(cs::kernels::sparseViewCuda(*g_context, rows, job), cs::Cancelled);
}

int main(int argc, char** argv) {
    cs::test::skipWithoutCudaDevice("tst_sparse_view_gpu");
    g_context = std::make_unique<cs::kernels::StreamHandles>(0);
    const int rc = cs::test::runTests("tst_sparse_view_gpu", argc, argv);
    g_context.reset();
    return rc;
}
