// SPDX-License-Identifier: MIT
// The exact all-points kNN graph on tensor cores (launchKnnTensorExact, knn_exact_launch.h).
//
// Every query row meets every candidate in tiles of kKnnTensorTile x kKnnTensorTile. Tensor
// cores (mma.sync m16n8k16, FP16 in, FP32 accumulation) give each pair an approximate squared
// distance a = N_q + N_j - 2 G with a proven error bound B(q, j) (see knnTensorBound below), so
// lb = a - B <= s^2 D(q, j) <= ub = a + B, where D is the exact canonicalDist2 of the pair and s
// the power-of-two scale of the FP16 copy. A query keeps, in a buffer of kCapacity, every
// candidate whose lb is at most U, the k-th smallest ub met so far: the k points behind those
// ub values are each at most U away, so the true k-th distance s^2 D_k <= U, and a true
// neighbour j* has lb(j*) <= s^2 D(j*) <= s^2 D_k <= U: no true neighbour, nor any tie with the
// k-th, is ever dropped. The candidates left at the end are re-ranked by canonicalDist2 itself
// (float, dimension order, no FMA), so the lists are the CPU's, bit for bit. The bound is tested
// in two steps per pair: a fast test in registers against a per-row threshold that allows for
// the largest norm, then the exact bounds for the pairs it queued. A query whose
// candidates overflow the buffer (many points at nearly the same distance: duplicates) is
// flagged and searched again on the host's request by the CUDA-core exact search.

#include <cuda_fp16.h>

#include <cfloat>
#include <climits>

#include "kernels/common/cuda_error.h"
#include "kernels/knn/knn_exact_launch.h"

namespace cs::kernels {
namespace {

constexpr int kTile = kKnnTensorTile;  // query rows and candidates per block tile
constexpr int kThreads = 256;          // 8 warps: 4 along the rows x 2 along the candidates
constexpr int kWarpRows = 32;
constexpr int kWarpCols = 64;
constexpr int kChunk = 64;  // halves of the candidates' rows per pipeline step
constexpr int kStages = 3;
constexpr int kPitchB = kChunk + 8;  // + 16 bytes: ldmatrix rows fall in distinct banks
constexpr int kCapacity = 1024;      // buffered candidates per query
constexpr int kPerLane = kCapacity / 32;
constexpr int kReRankPerLane = (kCapacity - kTile) / 32;  // a pruned buffer holds <= 896

struct Candidate {
    std::int32_t j;
    float lb;
    float ub;
};

// A pair that passed the fast test: row and column in the block tile, and its dot product.
struct Passed {
    std::uint32_t rowCol;  // row << 16 | column
    float dot;
};

__host__ __device__ constexpr int pitchA(int dH) {
    return dH + 8;
}

// Shared memory: the query rows (resident), the candidate chunks, and per query row its
// threshold state and buffer fill.
struct Shared {
    __half* a;
    __half* b;
    float* u;    // U: k-th smallest ub met so far (+inf until k are met)
    float* t;    // the fast test's threshold on N_j - 2 G (see epilogue)
    float* nq;   // N_q, the FP32 squared norm of the scaled query
    float* rq;   // upper bound of the query's scaled norm
    float* bq;   // B(q, j) with the largest candidate norm
    int* count;  // buffered candidates
    int* flag;   // [0]: a buffer is close to full; [1]: pairs queued by the fast test
};

__device__ __forceinline__ Shared carve(unsigned char* base, int dH) {
    Shared s;
    s.a = reinterpret_cast<__half*>(base);
    s.b = s.a + std::size_t(kTile) * pitchA(dH);
    auto* f = reinterpret_cast<float*>(s.b + std::size_t(kStages) * kTile * kPitchB);
    s.u = f;
    s.t = f + kTile;
    s.nq = f + 2 * kTile;
    s.rq = f + 3 * kTile;
    s.bq = f + 4 * kTile;
    s.count = reinterpret_cast<int*>(f + 5 * kTile);
    s.flag = s.count + kTile;
    return s;
}

std::size_t sharedBytes(int dH) {
    return std::size_t(kTile) * pitchA(dH) * 2 + std::size_t(kStages) * kTile * kPitchB * 2 +
           std::size_t(5 * kTile) * 4 + std::size_t(kTile + 4) * 4;
}

__device__ __forceinline__ unsigned smemAddress(const void* p) {
    return unsigned(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void copyAsync16(void* dst, const void* src) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(smemAddress(dst)), "l"(src));
}
__device__ __forceinline__ void commitAsync() {
    asm volatile("cp.async.commit_group;\n" ::);
}
template <int Pending>
__device__ __forceinline__ void waitAsync() {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(Pending));
}

__device__ __forceinline__ void loadMatrixX4(unsigned& r0, unsigned& r1, unsigned& r2, unsigned& r3,
                                             const __half* p) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
                 : "r"(smemAddress(p)));
}

__device__ __forceinline__ void mma16816(float (&c)[4], const unsigned (&a)[4], unsigned b0,
                                         unsigned b1) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
        "{%8, %9}, {%0, %1, %2, %3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// B(q, j) for scaled norms rq, rj (upper bounds), rounded up at every step.
__device__ __forceinline__ float pairBound(const cs::KnnTensorBound& c, float rq, float rj) {
    const float sum = __fadd_ru(rq, rj);
    float b = __fmul_ru(__fmul_ru(c.c1, rq), rj);
    b = __fadd_ru(b, __fmul_ru(__fmul_ru(c.c2, sum), sum));
    b = __fadd_ru(b, __fmul_ru(c.c3, sum));
    return __fadd_ru(b, c.c4);
}

// The fast test admits (N_j - 2 G rounded) <= t, a superset of lb <= U: t = U + B(q, any j) -
// N_q plus a slack far above the few float roundings between the two tests (2^-16 of the
// magnitudes involved, against their 2^-24 each).
__device__ __forceinline__ float fastThreshold(float u, float nq, float bq, float rq, float rMax) {
    if (u == -INFINITY) return -INFINITY;
    if (u == INFINITY) return INFINITY;
    const float sum = __fadd_ru(rq, rMax);
    const float slack =
        __fmul_ru(0x1p-16f, __fadd_ru(__fadd_ru(__fmul_ru(sum, sum), fabsf(u)), bq));
    return __fadd_ru(__fsub_ru(__fadd_ru(u, bq), nq), slack);
}

// The warp's k-th smallest of the values its lanes hold (+inf where none), each lane's PerLane
// values in registers: k rounds of taking the warp's smallest out.
template <int PerLane>
__device__ __forceinline__ float warpKth(float (&v)[PerLane], int k, int lane) {
    float kth = INFINITY;
    for (int round = 0; round < k; ++round) {
        float m = v[0];
#pragma unroll
        for (int e = 1; e < PerLane; ++e)
            m = fminf(m, v[e]);
        float w = m;
#pragma unroll
        for (int off = 16; off > 0; off >>= 1)
            w = fminf(w, __shfl_xor_sync(0xffffffffu, w, off));
        kth = w;
        if (w == INFINITY) break;
        // The lowest lane holding it gives one copy up.
        const unsigned holders = __ballot_sync(0xffffffffu, m == w);
        if (lane == __ffs(holders) - 1) {
            bool taken = false;
#pragma unroll
            for (int e = 0; e < PerLane; ++e)
                if (!taken && v[e] == w) {
                    v[e] = INFINITY;
                    taken = true;
                }
        }
    }
    return kth;
}

// One row's buffer pruned (warp-wide): U becomes the k-th smallest ub buffered (when smaller),
// the entries with lb > U are dropped, and a buffer that stays too full to take another tile is
// given up (the row is searched again on the CUDA cores).
__device__ void pruneRow(const Shared& sh, Candidate* buffer, int row, int k, float rMax,
                         int lane) {
    int count = sh.count[row];
    float u = sh.u[row];
    if (u == -INFINITY) return;  // given up already
    float ub[kPerLane];
#pragma unroll
    for (int e = 0; e < kPerLane; ++e) {
        const int at = e * 32 + lane;
        ub[e] = at < count ? buffer[at].ub : INFINITY;
    }
    if (count >= k) u = fminf(u, warpKth(ub, k, lane));
    int kept = 0;
    for (int base = 0; base < count; base += 32) {
        const int at = base + lane;
        Candidate c{};
        bool keep = false;
        if (at < count) {
            c = buffer[at];
            keep = c.lb <= u;
        }
        const unsigned keepers = __ballot_sync(0xffffffffu, keep);
        __syncwarp();
        if (keep) buffer[kept + __popc(keepers & ((1u << lane) - 1u))] = c;
        kept += __popc(keepers);
        __syncwarp();
    }
    if (lane == 0) {
        if (kept > kCapacity - kTile) {
            sh.count[row] = 0;
            sh.u[row] = -INFINITY;
            sh.t[row] = -INFINITY;
        } else {
            sh.count[row] = kept;
            sh.u[row] = u;
            sh.t[row] = fastThreshold(u, sh.nq[row], sh.bq[row], sh.rq[row], rMax);
        }
    }
    __syncwarp();
}

// canonicalDist2 of two rows of the unscaled coordinates.
__device__ __forceinline__ float canonical(const float* a, const float* b, int dims) {
    float sum = 0.0f;
    for (int j = 0; j < dims; ++j) {
        const float diff = __fsub_rn(a[j], b[j]);
        sum = __fadd_rn(sum, __fmul_rn(diff, diff));
    }
    return sum;
}

// The row's buffered candidates re-ranked by canonicalDist2: its k smallest (dist2, index)
// pairs, ascending, into the lists.
__device__ void reRankRow(const Candidate* buffer, int count, std::size_t q,
                          const float* __restrict__ coords, int dims, int k, float* dist2,
                          std::int32_t* index, int lane) {
    unsigned long long key[kReRankPerLane];
    const float* xq = coords + q * std::size_t(dims);
#pragma unroll
    for (int e = 0; e < kReRankPerLane; ++e) {
        const int at = e * 32 + lane;
        key[e] = ULLONG_MAX;
        if (at < count) {
            const std::int32_t j = buffer[at].j;
            const float d2 = canonical(xq, coords + std::size_t(j) * std::size_t(dims), dims);
            // Non-negative floats order as their bits: (dist2, index) as one 64-bit key.
            key[e] = (static_cast<unsigned long long>(__float_as_uint(d2)) << 32) | unsigned(j);
        }
    }
    for (int m = 0; m < k; ++m) {
        unsigned long long best = key[0];
#pragma unroll
        for (int e = 1; e < kReRankPerLane; ++e)
            best = min(best, key[e]);
        unsigned long long w = best;
#pragma unroll
        for (int off = 16; off > 0; off >>= 1)
            w = min(w, __shfl_xor_sync(0xffffffffu, w, off));
            // Keys are distinct (one per candidate index): exactly one lane holds w.
#pragma unroll
        for (int e = 0; e < kReRankPerLane; ++e)
            if (key[e] == w) key[e] = ULLONG_MAX;
        if (lane == 0) {
            const bool found = w != ULLONG_MAX;
            dist2[q * std::size_t(k) + m] = found ? __uint_as_float(unsigned(w >> 32)) : INFINITY;
            index[q * std::size_t(k) + m] = found ? std::int32_t(w & 0xffffffffu) : INT_MAX;
        }
    }
}

__global__ void __launch_bounds__(kThreads, 2)
    tensorExactKernel(KnnTensorInputs in, std::size_t firstRowTile, Candidate* workspace,
                      Passed* passedSpace, float* dist2, std::int32_t* index,
                      std::uint32_t* overflowRows, std::uint32_t* overflowCount) {
    extern __shared__ __align__(16) unsigned char smem[];
    const Shared sh = carve(smem, in.dH);
    const int tid = int(threadIdx.x), lane = tid & 31, warp = tid >> 5;
    const int warpRow = (warp >> 1) * kWarpRows, warpCol = (warp & 1) * kWarpCols;
    const int g = lane >> 2, t4 = lane & 3;
    const std::size_t rowBase = (firstRowTile + blockIdx.x) * kTile;
    Candidate* buffer = workspace + std::size_t(blockIdx.x) * kTile * kCapacity;
    Passed* passed = passedSpace + std::size_t(blockIdx.x) * kTile * kTile;
    const int pa = pitchA(in.dH);
    const int chunks = in.dH / kChunk;
    const std::size_t candTiles = in.nPad / kTile;
    const std::size_t steps = candTiles * std::size_t(chunks);
    const auto* half = reinterpret_cast<const __half*>(in.half);

    // The query rows, resident for the whole pass.
    {
        const int vecPerRow = in.dH / 8;
        for (int v = tid; v < kTile * vecPerRow; v += kThreads) {
            const int r = v / vecPerRow, c = (v % vecPerRow) * 8;
            copyAsync16(sh.a + r * pa + c, half + (rowBase + r) * in.dH + c);
        }
        commitAsync();
    }
    for (int r = tid; r < kTile; r += kThreads) {
        const std::size_t q = rowBase + r;
        const bool real = q < in.n;
        sh.nq[r] = real ? in.norm2[q] : 0.0f;
        sh.rq[r] = real ? in.normUp[q] : 0.0f;
        sh.bq[r] = real ? pairBound(in.bound, sh.rq[r], in.normMax) : 0.0f;
        sh.u[r] = real ? INFINITY : -INFINITY;
        sh.t[r] = sh.u[r];
        sh.count[r] = 0;
    }
    if (tid == 0) sh.flag[0] = sh.flag[1] = 0;

    // The next step to load (kStages - 1 ahead of the one computed) as counters: a 64-bit
    // division per step took more issue slots than the step's MMAs.
    std::size_t loaded = 0, loadTile = 0;
    int loadChunk = 0, loadStage = 0;
    auto loadNext = [&] {
        if (loaded < steps) {
            __half* dst = sh.b + loadStage * kTile * kPitchB;
            const __half* src = half + loadTile * kTile * in.dH + loadChunk * kChunk;
            // 128 rows x kChunk halves, in copies of 16 bytes.
#pragma unroll
            for (int v = tid; v < kTile * (kChunk / 8); v += kThreads) {
                const int r = v / (kChunk / 8), c = (v % (kChunk / 8)) * 8;
                copyAsync16(dst + r * kPitchB + c, src + std::size_t(r) * in.dH + c);
            }
        }
        ++loaded;
        if (++loadChunk == chunks) {
            loadChunk = 0;
            ++loadTile;
        }
        if (++loadStage == kStages) loadStage = 0;
    };
    for (int s = 0; s < kStages - 1; ++s) {
        loadNext();
        commitAsync();
    }

    float acc[2][8][4];
    auto clearAcc = [&] {
#pragma unroll
        for (int mi = 0; mi < 2; ++mi)
#pragma unroll
            for (int ni = 0; ni < 8; ++ni)
#pragma unroll
                for (int c = 0; c < 4; ++c)
                    acc[mi][ni][c] = 0.0f;
    };
    clearAcc();
    float thresh[2][2];
    auto loadThresholds = [&] {
#pragma unroll
        for (int mi = 0; mi < 2; ++mi)
#pragma unroll
            for (int h = 0; h < 2; ++h)
                thresh[mi][h] = sh.t[warpRow + mi * 16 + g + 8 * h];
    };
    __syncthreads();
    loadThresholds();

    int chunk = 0, stage = 0;
    std::size_t tileBase = 0;
    for (std::size_t step = 0; step < steps; ++step) {
        waitAsync<kStages - 2>();
        __syncthreads();
        loadNext();
        commitAsync();

        const __half* b = sh.b + stage * kTile * kPitchB;
        if (++stage == kStages) stage = 0;
        // The fragments of k-step ks + 1 are loaded before the MMAs of step ks are issued (the
        // asm statements keep their order), so the shared-memory latency hides behind them.
        const __half* aBase =
            sh.a + (warpRow + (lane & 15)) * pa + chunk * kChunk + (lane >> 4) * 8;
        const __half* bBase =
            b + (warpCol + (lane & 7) + (lane >> 4) * 8) * kPitchB + ((lane >> 3) & 1) * 8;
        unsigned af[2][2][4], bf[2][4][4];
        auto loadFragments = [&](int buf, int ks) {
#pragma unroll
            for (int mi = 0; mi < 2; ++mi)
                loadMatrixX4(af[buf][mi][0], af[buf][mi][1], af[buf][mi][2], af[buf][mi][3],
                             aBase + mi * 16 * pa + ks);
#pragma unroll
            for (int nj = 0; nj < 4; ++nj)
                loadMatrixX4(bf[buf][nj][0], bf[buf][nj][1], bf[buf][nj][2], bf[buf][nj][3],
                             bBase + nj * 16 * kPitchB + ks);
        };
        loadFragments(0, 0);
#pragma unroll
        for (int ks = 0; ks < kChunk / 16; ++ks) {
            const int buf = ks & 1;
            if (ks + 1 < kChunk / 16) loadFragments(buf ^ 1, (ks + 1) * 16);
#pragma unroll
            for (int nj = 0; nj < 4; ++nj)
#pragma unroll
                for (int mi = 0; mi < 2; ++mi) {
                    mma16816(acc[mi][2 * nj], af[buf][mi], bf[buf][nj][0], bf[buf][nj][1]);
                    mma16816(acc[mi][2 * nj + 1], af[buf][mi], bf[buf][nj][2], bf[buf][nj][3]);
                }
        }
        if (++chunk != chunks) continue;
        chunk = 0;

        // Epilogue of candidate tile `tile`: the fast test on every pair, in registers; the few
        // pairs that pass are queued (a branch per pair, rarely taken, where running the exact
        // test for all of a thread's pairs whenever one passed cost 10x the tile's MMAs).
        float nj[8][2];
#pragma unroll
        for (int ni = 0; ni < 8; ++ni)
#pragma unroll
            for (int e = 0; e < 2; ++e)
                nj[ni][e] = __ldg(in.norm2 + tileBase + warpCol + ni * 8 + 2 * t4 + e);
#pragma unroll
        for (int mi = 0; mi < 2; ++mi)
#pragma unroll
            for (int ni = 0; ni < 8; ++ni)
#pragma unroll
                for (int c = 0; c < 4; ++c)
                    if (fmaf(-2.0f, acc[mi][ni][c], nj[ni][c & 1]) <= thresh[mi][c >> 1]) {
                        const int row = warpRow + mi * 16 + g + 8 * (c >> 1);
                        const int col = warpCol + ni * 8 + 2 * t4 + (c & 1);
                        passed[atomicAdd(sh.flag + 1, 1)] =
                            Passed{std::uint32_t(row) << 16 | std::uint32_t(col), acc[mi][ni][c]};
                    }
        clearAcc();
        __syncthreads();
        // The exact bounds of the queued pairs, a pair per thread.
        const int queued = sh.flag[1];
        for (int e = tid; e < queued; e += kThreads) {
            const Passed pair = passed[e];
            const int row = int(pair.rowCol >> 16);
            const std::size_t j = tileBase + (pair.rowCol & 0xffffu);
            const std::size_t q = rowBase + row;
            if (j >= in.n || j == q) continue;
            const float a =
                __fadd_rn(__fadd_rn(sh.nq[row], __ldg(in.norm2 + j)), __fmul_rn(-2.0f, pair.dot));
            const float bound = pairBound(in.bound, sh.rq[row], __ldg(in.normUp + j));
            const float lb = __fsub_rd(a, bound);
            if (!(lb <= sh.u[row])) continue;
            const int at = atomicAdd(sh.count + row, 1);
            buffer[std::size_t(row) * kCapacity + at] =
                Candidate{std::int32_t(j), lb, __fadd_ru(a, bound)};
            if (at + 1 > kCapacity - kTile) sh.flag[0] = 1;
        }
        __syncthreads();
        if (tid == 0) sh.flag[1] = 0;
        tileBase += kTile;
        const bool last = step + 1 == steps;
        if (sh.flag[0] || last) {
            // Only the rows that may not take another tile (all of them at the end): a row's U
            // left stale only admits more, never fewer.
            for (int row = warp; row < kTile; row += kThreads / 32)
                if (last || sh.count[row] > kCapacity - kTile)
                    pruneRow(sh, buffer + std::size_t(row) * kCapacity, row, in.k, in.normMax,
                             lane);
            __syncthreads();
            if (tid == 0) sh.flag[0] = 0;
            loadThresholds();
        }
    }
    waitAsync<0>();

    // Re-rank what is left; the given-up rows are listed for the CUDA-core search.
    for (int row = warp; row < kTile; row += kThreads / 32) {
        const std::size_t q = rowBase + row;
        if (q >= in.n) continue;
        if (sh.u[row] == -INFINITY) {
            if (lane == 0) overflowRows[atomicAdd(overflowCount, 1u)] = std::uint32_t(q);
            continue;
        }
        reRankRow(buffer + std::size_t(row) * kCapacity, sh.count[row], q, in.coords, in.dims, in.k,
                  dist2, index, lane);
    }
}

// Largest |x| of the coordinates, as the bits of a non-negative float (which order as
// unsigned integers).
__global__ void maxAbsKernel(const float* x, std::size_t count, unsigned* bits) {
    unsigned best = 0;
    for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
         i += std::size_t(gridDim.x) * blockDim.x)
        best = max(best, __float_as_uint(fabsf(x[i])));
#pragma unroll
    for (int off = 16; off > 0; off >>= 1)
        best = max(best, __shfl_xor_sync(0xffffffffu, best, off));
    if ((threadIdx.x & 31) == 0) atomicMax(bits, best);
}

// A warp per row: the FP16 copy scaled by `scale` (zero-padded to dH and to nPad rows), its
// FP32 squared norm (any order: the bound allows for it) and an upper bound of the norm.
__global__ void prepareKernel(const float* __restrict__ coords, std::size_t n, int dims,
                              std::size_t nPad, int dH, float scale, float normFactor, __half* half,
                              float* norm2, float* normUp) {
    const std::size_t row = (std::size_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
    const int lane = int(threadIdx.x & 31);
    if (row >= nPad) return;
    float sum = 0.0f;
    for (int j = lane; j < dH; j += 32) {
        const float p = row < n && j < dims ? coords[row * dims + j] * scale : 0.0f;
        half[row * dH + j] = __float2half_rn(p);
        sum = __fadd_rn(sum, __fmul_rn(p, p));
    }
#pragma unroll
    for (int off = 16; off > 0; off >>= 1)
        sum = __fadd_rn(sum, __shfl_xor_sync(0xffffffffu, sum, off));
    if (lane == 0) {
        // Padding candidates: an infinite norm fails every test once U is finite (and the
        // exact test checks j < n before that).
        norm2[row] = row < n ? sum : INFINITY;
        normUp[row] = row < n ? __fsqrt_ru(__fmul_ru(sum, normFactor)) : 0.0f;
    }
}

}  // namespace

int knnTensorDims(int dims) {
    return (dims + kChunk - 1) / kChunk * kChunk;
}

std::size_t knnTensorWorkspaceBytes(std::size_t rowTiles) {
    return rowTiles * kTile * (kCapacity * sizeof(Candidate) + kTile * sizeof(Passed));
}

void launchKnnMaxAbs(const float* x, std::size_t count, unsigned* bits, cudaStream_t stream) {
    CS_CUDA_CHECK(cudaMemsetAsync(bits, 0, sizeof(unsigned), stream));
    if (count == 0) return;
    const unsigned blocks = unsigned(std::min<std::size_t>((count + 255) / 256, 4096));
    maxAbsKernel<<<blocks, 256, 0, stream>>>(x, count, bits);
    CS_CUDA_CHECK_LAUNCH();
}

void launchKnnTensorPrepare(const float* coords, std::size_t n, int dims, std::size_t nPad, int dH,
                            float scale, float normFactor, std::uint16_t* half, float* norm2,
                            float* normUp, cudaStream_t stream) {
    if (nPad == 0) return;
    const unsigned blocks = unsigned((nPad * 32 + 255) / 256);
    prepareKernel<<<blocks, 256, 0, stream>>>(coords, n, dims, nPad, dH, scale, normFactor,
                                              reinterpret_cast<__half*>(half), norm2, normUp);
    CS_CUDA_CHECK_LAUNCH();
}

void launchKnnTensorExact(const KnnTensorInputs& in, std::size_t firstRowTile, std::size_t rowTiles,
                          void* workspace, float* dist2, std::int32_t* index,
                          std::uint32_t* overflowRows, std::uint32_t* overflowCount,
                          cudaStream_t stream) {
    if (rowTiles == 0) return;
    const std::size_t bytes = sharedBytes(in.dH);
    CS_CUDA_CHECK(cudaFuncSetAttribute(tensorExactKernel,
                                       cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
    auto* buffers = static_cast<Candidate*>(workspace);
    auto* passed = reinterpret_cast<Passed*>(buffers + rowTiles * kTile * kCapacity);
    tensorExactKernel<<<unsigned(rowTiles), kThreads, bytes, stream>>>(
        in, firstRowTile, buffers, passed, dist2, index, overflowRows, overflowCount);
    CS_CUDA_CHECK_LAUNCH();
}

}  // namespace cs::kernels
