// SPDX-License-Identifier: MIT
#include "compute/backend/gl_interop.h"
#include "kernels/common/cuda_error.h"
#include "kernels/common/device_buffer.h"
#include "kernels/interop/interop_launch.h"

namespace cs::kernels {
namespace {

constexpr int kThreads = 256;

unsigned blocksFor(std::size_t n) {
    // Grid-stride loops: a bounded grid covers any n.
    const std::size_t blocks = (n + kThreads - 1) / kThreads;
    return unsigned(blocks < 65'535 * 32 ? blocks : 65'535 * 32);
}

__global__ void paintCategoriesKernel(const std::int32_t* __restrict__ labels,
                                      const std::uint8_t* __restrict__ isCore, std::size_t n,
                                      const std::uint32_t* __restrict__ categoryRgba,
                                      std::size_t clusterCount, CategoryPaintRule rule,
                                      std::uint32_t* __restrict__ out) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x) {
        const std::int32_t label = labels[i];
        std::uint32_t colour;
        if (label < 0 || std::size_t(label) >= clusterCount)
            colour = rule.showNone ? rule.noneRgba : 0u;
        else if (!((!isCore || isCore[i]) ? rule.showPrimary : rule.showSecondary))
            colour = 0u;
        else
            colour = categoryRgba[label];
        out[i] = colour;
    }
}

__global__ void packPositionsKernel(const float* __restrict__ coords, std::size_t n,
                                    std::size_t dims, double rescale, float* __restrict__ out) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x)
        for (std::size_t j = 0; j < 3; ++j)
            out[3 * i + j] =
                j < dims ? __double2float_rn(__dmul_rn(double(coords[i * dims + j]), rescale))
                         : 0.0f;
}

// Word 2 (i k + c) = i, the next word = neighbour c of i: GL_LINES pairs.
__global__ void edgeIndicesKernel(const std::int32_t* __restrict__ indices, std::size_t n, int k,
                                  std::uint32_t* __restrict__ out) {
    const std::size_t slots = n * std::size_t(k);
    for (std::size_t s = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; s < slots;
         s += std::size_t(gridDim.x) * blockDim.x) {
        out[2 * s] = std::uint32_t(s / std::size_t(k));
        out[2 * s + 1] = std::uint32_t(indices[s]);
    }
}

// A point a thread: the pixels it covers take the minimum of their key and its. A plain read
// first skips the atomic where a nearer point already won (keys only fall, so a stale read can
// only cost an atomic, never skip a needed one): in a dense cloud most points are hidden.
__global__ void splatKernel(const float* __restrict__ positions,
                            const std::uint32_t* __restrict__ rgba,
                            const std::uint8_t* __restrict__ mask, std::size_t n,
                            cs::PointSplatView view, unsigned long long* __restrict__ image) {
    const float radius2 = cs::splatRadius2(view);
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x) {
        cs::SplatPoint p;
        if (!cs::projectSplatPoint(view, positions + 3 * i, rgba[i], mask ? mask[i] : 0, p))
            continue;
        const unsigned long long key = cs::splatKey(p.depth, std::uint32_t(i));
        const cs::SplatPixelRange r = cs::splatPixelRange(view, p);
        for (int y = r.y0; y <= r.y1; ++y)
            for (int x = r.x0; x <= r.x1; ++x) {
                if (!(cs::splatDistance2(p, x, y) <= radius2)) continue;
                unsigned long long* pixel = image + std::size_t(y) * view.width + std::size_t(x);
                if (key < *pixel) atomicMin(pixel, key);
            }
    }
}

__global__ void resolveSplatKernel(const float* __restrict__ positions,
                                   const std::uint32_t* __restrict__ rgba,
                                   const std::uint8_t* __restrict__ mask, cs::PointSplatView view,
                                   unsigned long long* __restrict__ image) {
    const std::size_t pixels = std::size_t(view.width) * view.height;
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < pixels;
         i += std::size_t(gridDim.x) * blockDim.x)
        image[i] = cs::resolveSplatPixel(view, image[i], int(i % view.width), int(i / view.width),
                                         positions, rgba, mask);
}

// One block per row: the mean and the standard deviation by block-wide sums in double (a fixed
// tree, so every run gives the same values), then the normalised row.
constexpr int kRowThreads = 256;

__device__ double blockSum(double value, double* scratch) {
    scratch[threadIdx.x] = value;
    __syncthreads();
    for (int stride = kRowThreads / 2; stride > 0; stride /= 2) {
        if (int(threadIdx.x) < stride) scratch[threadIdx.x] += scratch[threadIdx.x + stride];
        __syncthreads();
    }
    const double total = scratch[0];
    __syncthreads();
    return total;
}

__global__ void seriesMatrixKernel(const float* __restrict__ values,
                                   const std::uint32_t* __restrict__ lengths, std::size_t channels,
                                   std::size_t length, std::size_t channel,
                                   const std::uint32_t* __restrict__ order,
                                   float* __restrict__ out) {
    __shared__ double scratch[kRowThreads];
    const std::size_t row = blockIdx.x;
    const std::size_t series = order[row];
    const float* x = values + (series * channels + channel) * length;
    const std::size_t len = lengths[series] < length ? lengths[series] : length;
    double sum = 0.0;
    for (std::size_t t = threadIdx.x; t < len; t += kRowThreads)
        sum += x[t];
    const double mean = len ? blockSum(sum, scratch) / double(len) : 0.0;
    double squares = 0.0;
    for (std::size_t t = threadIdx.x; t < len; t += kRowThreads)
        squares += (x[t] - mean) * (x[t] - mean);
    const double total = blockSum(squares, scratch);
    const double sd = len ? sqrt(total / double(len)) : 0.0;
    const double scale = sd > 0.0 ? 1.0 / sd : 0.0;
    float* o = out + row * length;
    for (std::size_t t = threadIdx.x; t < length; t += kRowThreads)
        o[t] = t < len ? float((x[t] - mean) * scale) : __int_as_float(0x7fc00000);  // NaN
}

__global__ void testPatternKernel(std::uint32_t* __restrict__ out, std::size_t words,
                                  std::uint32_t seed) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < words;
         i += std::size_t(gridDim.x) * blockDim.x)
        out[i] = cs::interopTestPattern(seed, i);
}

// Each column's mean and population standard deviation over the rows, in double, rows in order
// (cs::columnStatistics' sequence).
// columnOrder: the matrix column of map column c (null: c itself).
__global__ void columnStatsKernel(const float* values, std::size_t rows, std::size_t columns,
                                  std::size_t layers, std::size_t layer, std::size_t shown,
                                  const std::uint32_t* columnOrder, double* stats) {
    const std::size_t c = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (c >= shown) return;
    const std::size_t stride = columns * layers;
    const std::size_t column = columnOrder ? std::size_t(columnOrder[c]) : c;
    const float* v = values + column * layers + layer;
    double sum = 0.0;
    for (std::size_t i = 0; i < rows; ++i)
        sum = __dadd_rn(sum, double(v[i * stride]));
    const double mean = __ddiv_rn(sum, double(rows));
    double squares = 0.0;
    for (std::size_t i = 0; i < rows; ++i) {
        const double diff = __dsub_rn(double(v[i * stride]), mean);
        squares = __dadd_rn(squares, __dmul_rn(diff, diff));
    }
    stats[2 * c] = mean;
    stats[2 * c + 1] = __dsqrt_rn(__ddiv_rn(squares, double(rows)));
}

__global__ void columnZScoresKernel(const float* values, std::size_t columns, std::size_t layers,
                                    std::size_t layer, const std::uint32_t* order,
                                    std::size_t orderRows, std::size_t shown,
                                    const std::uint32_t* columnOrder, const double* stats,
                                    float* out) {
    const std::size_t e = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (e >= orderRows * shown) return;
    const std::size_t r = e / shown, c = e % shown;
    const std::size_t column = columnOrder ? std::size_t(columnOrder[c]) : c;
    const double value =
        double(values[(std::size_t(order[r]) * columns + column) * layers + layer]);
    const double sd = stats[2 * c + 1];
    out[e] = sd > 0.0 ? __double2float_rn(__ddiv_rn(__dsub_rn(value, stats[2 * c]), sd)) : 0.0f;
}

}  // namespace

void launchPaintCategories(const std::int32_t* labels, const std::uint8_t* isCore, std::size_t n,
                           const std::uint32_t* categoryRgba, std::size_t clusterCount,
                           CategoryPaintRule rule, std::uint32_t* out, cudaStream_t stream) {
    if (n == 0) return;
    paintCategoriesKernel<<<blocksFor(n), kThreads, 0, stream>>>(labels, isCore, n, categoryRgba,
                                                                 clusterCount, rule, out);
    CS_CUDA_CHECK_LAUNCH();
}

void launchPackPositions(const float* coords, std::size_t n, std::size_t dims, double rescale,
                         float* out, cudaStream_t stream) {
    if (n == 0) return;
    packPositionsKernel<<<blocksFor(n), kThreads, 0, stream>>>(coords, n, dims, rescale, out);
    CS_CUDA_CHECK_LAUNCH();
}

void launchEdgeIndices(const std::int32_t* indices, std::size_t n, int k, std::uint32_t* out,
                       cudaStream_t stream) {
    if (n == 0 || k <= 0) return;
    edgeIndicesKernel<<<blocksFor(n * std::size_t(k)), kThreads, 0, stream>>>(indices, n, k, out);
    CS_CUDA_CHECK_LAUNCH();
}

void launchSeriesMatrix(const float* values, const std::uint32_t* lengths, std::size_t channels,
                        std::size_t length, std::size_t channel, const std::uint32_t* order,
                        std::size_t rows, float* out, cudaStream_t stream) {
    if (rows == 0 || length == 0) return;
    seriesMatrixKernel<<<unsigned(rows), kRowThreads, 0, stream>>>(values, lengths, channels,
                                                                   length, channel, order, out);
    CS_CUDA_CHECK_LAUNCH();
}

void launchColumnZScores(const float* values, std::size_t rows, std::size_t columns,
                         std::size_t layers, std::size_t layer, const std::uint32_t* order,
                         std::size_t orderRows, std::size_t shown, const std::uint32_t* columnOrder,
                         double* scratch, float* out, cudaStream_t stream) {
    if (orderRows == 0 || shown == 0) return;
    columnStatsKernel<<<blocksFor(shown), kThreads, 0, stream>>>(
        values, rows, columns, layers, layer, shown, columnOrder, scratch);
    CS_CUDA_CHECK_LAUNCH();
    columnZScoresKernel<<<blocksFor(orderRows * shown), kThreads, 0, stream>>>(
        values, columns, layers, layer, order, orderRows, shown, columnOrder, scratch, out);
    CS_CUDA_CHECK_LAUNCH();
}

void launchSplatKeys(const float* positions, const std::uint32_t* rgba, const std::uint8_t* mask,
                     std::size_t n, const cs::PointSplatView& view, cs::SplatPixel* image,
                     cudaStream_t stream) {
    static_assert(sizeof(cs::SplatPixel) == sizeof(unsigned long long));
    const std::size_t pixels = std::size_t(view.width) * view.height;
    if (pixels == 0) return;
    auto* words = reinterpret_cast<unsigned long long*>(image);
    CS_CUDA_CHECK(cudaMemsetAsync(words, 0xFF, pixels * sizeof(cs::SplatPixel), stream));
    if (n == 0) return;
    splatKernel<<<blocksFor(n), kThreads, 0, stream>>>(positions, rgba, mask, n, view, words);
    CS_CUDA_CHECK(cudaGetLastError());
}

void launchSplatPoints(const float* positions, const std::uint32_t* rgba, const std::uint8_t* mask,
                       std::size_t n, const cs::PointSplatView& view, cs::SplatPixel* image,
                       cudaStream_t stream) {
    const std::size_t pixels = std::size_t(view.width) * view.height;
    if (pixels == 0) return;
    launchSplatKeys(positions, rgba, mask, n, view, image, stream);
    resolveSplatKernel<<<blocksFor(pixels), kThreads, 0, stream>>>(
        positions, rgba, mask, view, reinterpret_cast<unsigned long long*>(image));
    CS_CUDA_CHECK(cudaGetLastError());
}

namespace {

struct EdgeLogTable {
    std::uint32_t logTransmittance[256];
};
struct EdgeTransmittanceTable {
    double coarse[256];
    float fine[256];
};

// An edge a thread, the counting pass: the pixels it would cover, and whether the rule keeps
// it, summed per block and added once.
__global__ void edgeFragmentsKernel(const float* __restrict__ positions,
                                    const std::uint32_t* __restrict__ rgba,
                                    const std::uint8_t* __restrict__ mask, std::size_t n,
                                    const std::uint32_t* __restrict__ indices, std::size_t edges,
                                    cs::EdgeSplatView view,
                                    unsigned long long* __restrict__ counts) {
    unsigned long long fragments = 0, kept = 0;
    for (std::size_t e = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; e < edges;
         e += std::size_t(gridDim.x) * blockDim.x) {
        const std::uint32_t i = indices[2 * e], j = indices[2 * e + 1];
        if (i >= n || j >= n) continue;
        kept +=
            cs::walkSplatEdge(view, positions + 3 * std::size_t(i), positions + 3 * std::size_t(j),
                              rgba[i], rgba[j], mask ? mask[i] : 0, mask ? mask[j] : 0,
                              [&](int, int, std::uint32_t) { ++fragments; })
                ? 1
                : 0;
    }
    for (int offset = 16; offset > 0; offset /= 2) {
        fragments += __shfl_down_sync(0xFFFFFFFFu, fragments, offset);
        kept += __shfl_down_sync(0xFFFFFFFFu, kept, offset);
    }
    if ((threadIdx.x & 31) == 0 && (fragments || kept)) {
        atomicAdd(counts, fragments);
        atomicAdd(counts + 1, kept);
    }
}

// An edge a thread: each pixel it covers adds its alpha, alpha-weighted colour and log
// transmittance to that pixel's sums (planes of `pixels` words each).
__global__ void edgeSplatKernel(const float* __restrict__ positions,
                                const std::uint32_t* __restrict__ rgba,
                                const std::uint8_t* __restrict__ mask, std::size_t n,
                                const std::uint32_t* __restrict__ indices, std::size_t edges,
                                cs::EdgeSplatView view, EdgeLogTable table, std::size_t pixels,
                                unsigned long long* __restrict__ sums) {
    for (std::size_t e = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; e < edges;
         e += std::size_t(gridDim.x) * blockDim.x) {
        const std::uint32_t i = indices[2 * e], j = indices[2 * e + 1];
        if (i >= n || j >= n) continue;
        cs::walkSplatEdge(
            view, positions + 3 * std::size_t(i), positions + 3 * std::size_t(j), rgba[i], rgba[j],
            mask ? mask[i] : 0, mask ? mask[j] : 0, [&](int x, int y, std::uint32_t c) {
                const std::uint32_t a = c >> 24;
                if (a == 0) return;
                const std::size_t p = std::size_t(y) * view.width + std::size_t(x);
                atomicAdd(sums + p, (unsigned long long)a);
                for (int channel = 0; channel < 3; ++channel)
                    atomicAdd(sums + (1 + channel) * pixels + p,
                              (unsigned long long)(a * ((c >> (8 * channel)) & 0xFFu)));
                atomicAdd(sums + 4 * pixels + p, (unsigned long long)table.logTransmittance[a]);
            });
    }
}

__global__ void resolveEdgeSplatKernel(const unsigned long long* __restrict__ sums,
                                       std::size_t pixels, EdgeTransmittanceTable tables,
                                       std::uint32_t* __restrict__ image) {
    for (std::size_t p = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; p < pixels;
         p += std::size_t(gridDim.x) * blockDim.x) {
        const std::uint64_t colour[3] = {sums[pixels + p], sums[2 * pixels + p],
                                         sums[3 * pixels + p]};
        image[p] = cs::resolveEdgeSplatPixel(tables.coarse, tables.fine, sums[p], colour,
                                             sums[4 * pixels + p]);
    }
}

}  // namespace

EdgeSplatCounts launchSplatEdges(const float* positions, const std::uint32_t* rgba,
                                 const std::uint8_t* mask, std::size_t n,
                                 const std::uint32_t* indices, std::size_t edges,
                                 const cs::EdgeSplatView& view, std::uint64_t maxFragments,
                                 std::uint32_t* image, cudaStream_t stream) {
    const std::size_t pixels = std::size_t(view.width) * view.height;
    EdgeSplatCounts out;
    if (pixels == 0) return out;
    {
        DeviceBuffer<unsigned long long> counts(2, stream);
        CS_CUDA_CHECK(cudaMemsetAsync(counts.data(), 0, 2 * sizeof(unsigned long long), stream));
        if (edges > 0) {
            edgeFragmentsKernel<<<blocksFor(edges), kThreads, 0, stream>>>(
                positions, rgba, mask, n, indices, edges, view, counts.data());
            CS_CUDA_CHECK(cudaGetLastError());
        }
        const std::vector<unsigned long long> host = counts.toHost();
        out.fragments = host[0];
        out.edges = host[1];
    }
    if (out.fragments > maxFragments) return out;
    DeviceBuffer<unsigned long long> sums(5 * pixels, stream);
    CS_CUDA_CHECK(cudaMemsetAsync(sums.data(), 0, 5 * pixels * sizeof(unsigned long long), stream));
    const cs::EdgeSplatTables& tables = cs::edgeSplatTables();
    if (out.fragments > 0) {
        EdgeLogTable table;
        for (int a = 0; a < 256; ++a)
            table.logTransmittance[a] = tables.logTransmittance[a];
        edgeSplatKernel<<<blocksFor(edges), kThreads, 0, stream>>>(
            positions, rgba, mask, n, indices, edges, view, table, pixels, sums.data());
        CS_CUDA_CHECK(cudaGetLastError());
    }
    EdgeTransmittanceTable transmittance;
    for (int i = 0; i < 256; ++i) {
        transmittance.coarse[i] = tables.coarse[i];
        transmittance.fine[i] = tables.fine[i];
    }
    resolveEdgeSplatKernel<<<blocksFor(pixels), kThreads, 0, stream>>>(sums.data(), pixels,
                                                                       transmittance, image);
    CS_CUDA_CHECK(cudaGetLastError());
    return out;
}

void launchInteropTestPattern(std::uint32_t* out, std::size_t words, std::uint32_t seed,
                              cudaStream_t stream) {
    if (words == 0) return;
    testPatternKernel<<<blocksFor(words), kThreads, 0, stream>>>(out, words, seed);
    CS_CUDA_CHECK_LAUNCH();
}

}  // namespace cs::kernels
