// SPDX-License-Identifier: MIT
// kNN searches on tensor cores (launchKnnTensorSearch, knn_exact_launch.h): the exact
// all-points graph (one range, every point) and the leaves of an RP tree (a range per leaf, the
// lists carried from the earlier trees).
//
// Every query row meets every candidate of its range in tiles of kKnnTensorTile x
// kKnnTensorTile. Tensor cores (mma.sync m16n8k16, FP16 in, FP32 accumulation) give each pair an
// approximate squared distance a = N_q + N_j - 2 G with a proven error bound B(q, j) (see
// knnTensorBound below), so lb = a - B <= s^2 D(q, j) <= ub = a + B, where D is the exact
// canonicalDist2 of the pair and s the power-of-two scale of the FP16 copy. A query keeps, in a
// buffer of kCapacity, every candidate whose lb is at most U, the k-th smallest ub met so far:
// the k points behind those ub values are each at most U away, so the true k-th distance
// s^2 D_k <= U, and a true neighbour j* has lb(j*) <= s^2 D(j*) <= s^2 D_k <= U: no true
// neighbour, nor any tie with the k-th, is ever dropped. A leaf's row starts with U = s^2 times
// the k-th distance its list holds (k points at most that far are known already). The
// candidates left at the end are re-ranked by canonicalDist2 itself (float, dimension order, no
// FMA), so the lists are the CPU's, bit for bit. The bound is tested in two steps per pair: a
// fast test in registers against a per-row threshold that allows for the largest norm, then the
// exact bounds for the pairs it queued. A query whose candidates overflow the buffer (many
// points at nearly the same distance: duplicates) is listed, or its leaf is, and searched again
// on the host's request on the CUDA cores.

#include <cuda_fp16.h>

#include <cfloat>
#include <climits>

#include "compute/knn/knn_graph.h"
#include "kernels/common/cuda_error.h"
#include "kernels/knn/knn_exact_launch.h"

namespace cs::kernels {
namespace {

constexpr int kTile = kKnnTensorTile;  // query rows and candidates per block tile
constexpr int kThreads = 256;          // 8 warps: 4 along the rows x 2 along the candidates
constexpr int kWarpRows = 32;
constexpr int kWarpCols = 64;
constexpr int kDimsMultiple = 64;  // the FP16 copy's rows are padded to a multiple of this

// The candidate tiles' pipeline: halves of their rows per step, and stages in flight. A whole
// row of 128 halves a step (two stages, double buffering) where the width allows: each step
// costs a barrier, and barriers were the kernel's first stall (ncu).
template <int ChunkHalves>
struct Pipe {
    static constexpr int kChunk = ChunkHalves;
    static constexpr int kStages = ChunkHalves == 128 ? 2 : 3;
    static constexpr int kPitchB = kChunk + 8;  // + 16 bytes: ldmatrix rows in distinct banks
};
constexpr int kCapacity = 1024;  // buffered candidates per query
constexpr int kPerLane = kCapacity / 32;
constexpr int kReRankPerLane = (kCapacity - kTile) / 32;  // a pruned buffer holds <= 896
// A row's buffer is pruned (U lowered to its k-th ub) once it holds twice what its last prune
// kept, and at least this many: U only falls at a prune, and every pair under a stale U is
// queued and buffered. Pruning only near full took about 1,800 pairs a row through the exact
// test on 1M x 128 uniform; the candidates seen grow kPruneAfter / k-fold between prunes.
constexpr int kPruneAfter = 128;

struct Candidate {
    std::uint32_t row;  // the candidate's row of the coordinates
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
    float* nb;     // per stage, the candidate tile's N_j (loaded with its last chunk)
    float* u;      // U: k-th smallest ub met so far (+inf until k are met)
    float* t;      // the fast test's threshold on N_j - 2 G (see epilogue)
    float* nq;     // N_q, the FP32 squared norm of the scaled query
    float* rq;     // upper bound of the query's scaled norm
    float* bq;     // B(q, j) with the largest candidate norm
    int* count;    // buffered candidates
    int* pruneAt;  // the count at which the row is pruned next
    int* prune;    // [0]: a row is due for a prune
    int* queued;   // per warp: pairs its fast test queued
};

template <typename P>
__device__ __forceinline__ Shared carve(unsigned char* base, int dH) {
    Shared s;
    s.a = reinterpret_cast<__half*>(base);
    s.b = s.a + std::size_t(kTile) * pitchA(dH);
    s.nb = reinterpret_cast<float*>(s.b + std::size_t(P::kStages) * kTile * P::kPitchB);
    auto* f = s.nb + P::kStages * kTile;
    s.u = f;
    s.t = f + kTile;
    s.nq = f + 2 * kTile;
    s.rq = f + 3 * kTile;
    s.bq = f + 4 * kTile;
    s.count = reinterpret_cast<int*>(f + 5 * kTile);
    s.pruneAt = s.count + kTile;
    s.prune = s.pruneAt + kTile;
    s.queued = s.prune + 1;
    return s;
}

template <typename P>
std::size_t sharedBytes(int dH) {
    return std::size_t(kTile) * pitchA(dH) * 2 + std::size_t(P::kStages) * kTile * P::kPitchB * 2 +
           std::size_t(P::kStages * kTile) * 4 + std::size_t(5 * kTile) * 4 +
           std::size_t(2 * kTile + 1 + kThreads / 32) * 4;
}

__device__ __forceinline__ unsigned smemAddress(const void* p) {
    return unsigned(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void copyAsync16(void* dst, const void* src) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(smemAddress(dst)), "l"(src));
}
// 4 bytes (a leaf's norms start anywhere).
__device__ __forceinline__ void copyAsync4(void* dst, const void* src) {
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(smemAddress(dst)), "l"(src));
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

// The k-th smallest of one value a lane (+inf where none): the warp's values sorted (bitonic).
__device__ __forceinline__ float sortedKth(float v, int k, int lane) {
    for (int size = 2; size <= 32; size <<= 1)
        for (int stride = size / 2; stride > 0; stride /= 2) {
            const float other = __shfl_xor_sync(0xffffffffu, v, stride);
            const bool ascending = (lane & size) == 0, lower = (lane & stride) == 0;
            v = lower == ascending ? fminf(v, other) : fmaxf(v, other);
        }
    return __shfl_sync(0xffffffffu, v, k - 1);
}

// One row's buffer pruned (warp-wide): U becomes the k-th smallest ub buffered (when smaller),
// the entries with lb > U are dropped, and a buffer that stays too full to take another tile is
// given up (the row is searched again on the CUDA cores).
__device__ void pruneRow(const Shared& sh, Candidate* buffer, int row, int k, float rMax,
                         int lane) {
    int count = sh.count[row];
    float u = sh.u[row];
    if (u == -INFINITY) return;  // given up already
    if (count >= k) {
        // The k-th ub, with as few registers a lane as the count needs.
        const auto bufferKth = [&]<int PerLane>() {
            float ub[PerLane];
#pragma unroll
            for (int e = 0; e < PerLane; ++e) {
                const int at = e * 32 + lane;
                ub[e] = at < count ? buffer[at].ub : INFINITY;
            }
            return PerLane == 1 ? sortedKth(ub[0], k, lane) : warpKth(ub, k, lane);
        };
        const float kth = count <= 32    ? bufferKth.template operator()<1>()
                          : count <= 256 ? bufferKth.template operator()<8>()
                                         : bufferKth.template operator()<kPerLane>();
        u = fminf(u, kth);
    }
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
        sh.pruneAt[row] = min(kCapacity - kTile, max(kPruneAfter, 2 * kept));
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

// (dist2, index) as one 64-bit key: non-negative floats order as their bits.
__device__ __forceinline__ unsigned long long listKey(float d2, std::int32_t id) {
    return (static_cast<unsigned long long>(__float_as_uint(d2)) << 32) | unsigned(id);
}

// Entries of the ascending keys[0 .. n) below key.
__device__ __forceinline__ int countBelow(const unsigned long long* keys, int n,
                                          unsigned long long key) {
    int lo = 0, hi = n;
    while (lo < hi) {
        const int mid = (lo + hi) / 2;
        if (keys[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

// The k smallest of a row's (at most 32) re-ranked candidates and its list (k empty entries
// without merge), a lane per candidate: a candidate already listed goes, the others are sorted
// across the warp (bitonic), and each candidate and each list entry finds its place from the
// keys of the other side below it (the keys on the two sides are distinct now). k rounds of
// taking the smallest of 30 keys a lane out cost 10x as much at k = 10. `keys` is the warp's
// shared scratch (kKnnMaxK + 32 keys).
__device__ void mergeFew(const Candidate* buffer, int count, const std::int32_t* idOf, bool merge,
                         int k, float* listDist2, std::int32_t* listIndex, unsigned long long* keys,
                         int lane) {
    unsigned long long* listed = keys;
    unsigned long long* sorted = keys + kKnnMaxK;
    for (int m = lane; m < k; m += 32)
        listed[m] = merge ? listKey(listDist2[m], listIndex[m]) : listKey(INFINITY, INT_MAX);
    unsigned long long mine = ULLONG_MAX;
    if (lane < count) {
        const Candidate c = buffer[lane];
        mine = listKey(c.lb, idOf ? idOf[c.row] : std::int32_t(c.row));
    }
    __syncwarp();
    if (mine != ULLONG_MAX) {
        const int at = countBelow(listed, k, mine);
        if (at < k && listed[at] == mine) mine = ULLONG_MAX;
    }
    for (int size = 2; size <= 32; size <<= 1)
        for (int stride = size / 2; stride > 0; stride /= 2) {
            const unsigned long long other = __shfl_xor_sync(0xffffffffu, mine, stride);
            const bool ascending = (lane & size) == 0, lower = (lane & stride) == 0;
            mine = lower == ascending ? min(mine, other) : max(mine, other);
        }
    sorted[lane] = mine;
    __syncwarp();
    auto put = [&](int place, unsigned long long key) {
        listDist2[place] = __uint_as_float(unsigned(key >> 32));
        listIndex[place] = std::int32_t(key & 0xffffffffu);
    };
    if (mine != ULLONG_MAX) {
        const int place = lane + countBelow(listed, k, mine);
        if (place < k) put(place, mine);
    }
    for (int m = lane; m < k; m += 32) {
        const int place = m + countBelow(sorted, 32, listed[m]);
        if (place < k) put(place, listed[m]);
    }
    __syncwarp();
}

// The row at position p of the copy.
__device__ __forceinline__ std::uint32_t rowAt(const KnnTensorWork& work, std::size_t p) {
    return work.order ? work.order[p] : std::uint32_t(p);
}

// canonicalDist2 of two rows of the coordinates (dimension order, no FMA), four dimensions a
// load where the rows are 16-byte aligned.
__device__ __forceinline__ float canonical(const float* __restrict__ a, const float* __restrict__ b,
                                           int dims) {
    float sum = 0.0f;
    auto add = [&](float x, float y) {
        const float diff = __fsub_rn(x, y);
        sum = __fadd_rn(sum, __fmul_rn(diff, diff));
    };
    if ((dims & 3) == 0) {
        const auto* a4 = reinterpret_cast<const float4*>(a);
        const auto* b4 = reinterpret_cast<const float4*>(b);
#pragma unroll 4
        for (int j = 0; j < dims / 4; ++j) {
            const float4 x = a4[j], y = b4[j];
            add(x.x, y.x);
            add(x.y, y.y);
            add(x.z, y.z);
            add(x.w, y.w);
        }
    } else {
#pragma unroll 4
        for (int j = 0; j < dims; ++j)
            add(a[j], b[j]);
    }
    return sum;
}

// The canonical distances of every buffered candidate of the warp's rows (warp, warp + 8, ...),
// each into its lb: the (row, candidate) pairs flattened, a lane each. A lane per candidate of
// one row at a time left most lanes idle (about 8 candidates a row) and ran the rows one after
// the other: 20x slower at 128 dimensions.
__device__ void rankDistances(const Shared& sh, Candidate* buffers, std::size_t rowBase,
                              std::size_t rowEnd, const KnnTensorWork& work,
                              const float* __restrict__ coords, int dims, int warp, int lane) {
    constexpr int kRows = kTile / (kThreads / 32);  // rows of a warp: 16
    // Lane l < kRows: row warp + 8 l's candidates (none for rows given up or past the range).
    const int row = warp + (kThreads / 32) * lane;
    int count = 0;
    if (lane < kRows && rowBase + row < rowEnd && sh.u[row] != -INFINITY) count = sh.count[row];
    int first = count;  // inclusive scan, then exclusive
#pragma unroll
    for (int off = 1; off < 32; off <<= 1) {
        const int v = __shfl_up_sync(0xffffffffu, first, off);
        if (lane >= off) first += v;
    }
    const int total = __shfl_sync(0xffffffffu, first, 31);
    first -= count;
    for (int base = 0; base < total; base += 32) {
        const int pair = base + lane;
        // The pair's row: the last of the warp's rows that starts at or before it.
        int r = 0;
#pragma unroll
        for (int l = 1; l < kRows; ++l)
            if (__shfl_sync(0xffffffffu, first, l) <= pair) r = l;
        const int at = pair - __shfl_sync(0xffffffffu, first, r);
        if (pair >= total) continue;
        const int tileRow = warp + (kThreads / 32) * r;
        Candidate& c = buffers[std::size_t(tileRow) * kCapacity + at];
        const std::size_t q = rowAt(work, rowBase + tileRow);
        c.lb = canonical(coords + q * std::size_t(dims), coords + std::size_t(c.row) * dims, dims);
    }
    __syncwarp();
}

// The row's candidates, their canonical distances in lb (rankDistances), ranked: its k smallest
// (dist2, index) pairs, ascending, into the lists; with merge, of the candidates and the k
// entries the list holds already (a candidate already listed gives the same key, and both
// copies go at once).
__device__ void reRankRow(const Candidate* buffer, int count, std::size_t row,
                          const std::int32_t* idOf, int k, bool merge, float* dist2,
                          std::int32_t* index, unsigned long long* scratch, int lane) {
    if (count <= 32) {
        mergeFew(buffer, count, idOf, merge, k, dist2 + row * std::size_t(k),
                 index + row * std::size_t(k), scratch, lane);
        return;
    }

    // More than a lane each: k rounds of taking the warp's smallest key out.
    constexpr int kListPerLane = kKnnMaxK / 32;
    constexpr int kKeys = kReRankPerLane + kListPerLane;
    unsigned long long key[kKeys];
    float* listDist2 = dist2 + row * std::size_t(k);
    std::int32_t* listIndex = index + row * std::size_t(k);
#pragma unroll
    for (int e = 0; e < kReRankPerLane; ++e) {
        const int at = e * 32 + lane;
        key[e] = ULLONG_MAX;
        if (at < count) {
            const Candidate c = buffer[at];
            key[e] = listKey(c.lb, idOf ? idOf[c.row] : std::int32_t(c.row));
        }
    }
#pragma unroll
    for (int e = 0; e < kListPerLane; ++e) {
        const int m = e * 32 + lane;
        key[kReRankPerLane + e] = ULLONG_MAX;
        if (merge && m < k) key[kReRankPerLane + e] = listKey(listDist2[m], listIndex[m]);
    }
    for (int m = 0; m < k; ++m) {
        unsigned long long best = key[0];
#pragma unroll
        for (int e = 1; e < kKeys; ++e)
            best = min(best, key[e]);
        unsigned long long w = best;
        // (The shuffles also order every lane's list reads above before lane 0's first write.)
#pragma unroll
        for (int off = 16; off > 0; off >>= 1)
            w = min(w, __shfl_xor_sync(0xffffffffu, w, off));
#pragma unroll
        for (int e = 0; e < kKeys; ++e)
            if (key[e] == w) key[e] = ULLONG_MAX;
        if (lane == 0) {
            const bool found = w != ULLONG_MAX;
            listDist2[m] = found ? __uint_as_float(unsigned(w >> 32)) : INFINITY;
            listIndex[m] = found ? std::int32_t(w & 0xffffffffu) : INT_MAX;
        }
    }
}

// s^2 d rounded up: a list's k-th distance in the units of a (s a power of two, so exact
// unless it leaves the normal range).
__device__ __forceinline__ float scaledUp(float d, float s) {
    return __fmul_ru(__fmul_ru(d, s), s);
}

// Whether a row's buffer is pruned after the tile just added: it holds more than its pruneAt
// (which also leaves room for another tile), or it has k candidates and no finite U yet (the
// first tile sets one, so that later tiles queue few pairs).
__device__ __forceinline__ bool needsPrune(const Shared& sh, int row, int k) {
    const int count = sh.count[row];
    return count > sh.pruneAt[row] || (sh.u[row] == INFINITY && count >= k);
}

// One work item: the rows [rowBase, rowEnd) of the range [b, e) against every position of the
// range. Every thread of the block calls it (it holds the block's barriers).
template <typename P>
__device__ void searchItem(const KnnTensorInputs& in, const KnnTensorWork& work,
                           const KnnTensorOutput& out, const Shared& sh, Candidate* buffer,
                           Passed* passed, std::size_t b, std::size_t e, std::size_t rowBase,
                           std::size_t range) {
    const int tid = int(threadIdx.x), lane = tid & 31, warp = tid >> 5;
    const int warpRow = (warp >> 1) * kWarpRows, warpCol = (warp & 1) * kWarpCols;
    const int g = lane >> 2, t4 = lane & 3;
    Passed* warpPassed = passed + warp * (kWarpRows * kWarpCols);
    const std::size_t rowEnd = min(e, rowBase + kTile);
    const float rMax = work.rangeNormMax ? work.rangeNormMax[range] : in.normMax;
    const int pa = pitchA(in.dH);
    const int chunks = in.dH / P::kChunk;
    const std::size_t candTiles = (e - b + kTile - 1) / kTile;
    const std::size_t steps = candTiles * std::size_t(chunks);
    const auto* half = reinterpret_cast<const __half*>(in.half);

    // The query rows, resident for the whole item.
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
        const bool real = q < rowEnd;
        float u = -INFINITY;
        if (real) {
            u = INFINITY;
            if (work.merge)
                u = scaledUp(out.dist2[std::size_t(rowAt(work, q)) * in.k + (in.k - 1)], in.scale);
        }
        sh.nq[r] = real ? in.norm2[q] : 0.0f;
        sh.rq[r] = real ? in.normUp[q] : 0.0f;
        sh.bq[r] = real ? pairBound(in.bound, sh.rq[r], rMax) : 0.0f;
        sh.u[r] = u;
        sh.t[r] = fastThreshold(u, sh.nq[r], sh.bq[r], sh.rq[r], rMax);
        sh.count[r] = 0;
        sh.pruneAt[r] = kPruneAfter;
    }
    if (tid == 0) sh.prune[0] = 0;
    if (tid < kThreads / 32) sh.queued[tid] = 0;

    // The next step to load (kStages - 1 ahead of the one computed) as counters: a 64-bit
    // division per step took more issue slots than the step's MMAs.
    std::size_t loaded = 0, loadTile = 0;
    int loadChunk = 0, loadStage = 0;
    // A step's copies: 128 rows x kChunk halves in 16-byte vectors, the thread's at fixed
    // offsets from the chunk (the index arithmetic, redone a copy, cost as many issue slots
    // as the step's MMAs).
    constexpr int kVecsPerRow = P::kChunk / 8, kRowsPerPass = kThreads / kVecsPerRow;
    static_assert(kThreads % kVecsPerRow == 0 && kTile % kRowsPerPass == 0);
    const int srcOffset = (tid / kVecsPerRow) * in.dH + (tid % kVecsPerRow) * 8;
    const int dstOffset = (tid / kVecsPerRow) * P::kPitchB + (tid % kVecsPerRow) * 8;
    const __half* tileSrc = half + b * in.dH;  // the next step's candidate tile
    auto loadNext = [&] {
        if (loaded < steps) {
            __half* dst = sh.b + loadStage * kTile * P::kPitchB + dstOffset;
            const __half* src = tileSrc + loadChunk * P::kChunk + srcOffset;
#pragma unroll
            for (int pass = 0; pass < kTile / kRowsPerPass; ++pass)
                copyAsync16(dst + pass * kRowsPerPass * P::kPitchB,
                            src + std::size_t(pass * kRowsPerPass) * in.dH);
            // The tile's norms come with its last chunk, into that chunk's stage: the epilogue
            // reads them from shared memory, and the stage is not reloaded before the next
            // step's barrier. (Read from global memory there, their latency stalled every warp
            // of the block at once.)
            if (loadChunk == chunks - 1 && tid < kTile)
                copyAsync4(sh.nb + loadStage * kTile + tid, in.norm2 + b + loadTile * kTile + tid);
        }
        ++loaded;
        if (++loadChunk == chunks) {
            loadChunk = 0;
            ++loadTile;
            tileSrc += std::size_t(kTile) * in.dH;
        }
        if (++loadStage == P::kStages) loadStage = 0;
    };
    for (int st = 0; st < P::kStages - 1; ++st) {
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

    // The rows due for a prune (only those: a row's U left stale only admits more, never
    // fewer), or with `atEnd` also those with more candidates than a lane each (the re-rank of
    // a superset of the true neighbours ranks them the same, and costs one distance per lane up
    // to 32). Called after a barrier; ends with one.
    auto pruneRows = [&](bool atEnd) {
        for (int row = warp; row < kTile; row += kThreads / 32)
            if (needsPrune(sh, row, in.k) || (atEnd && sh.count[row] > 32))
                pruneRow(sh, buffer + std::size_t(row) * kCapacity, row, in.k, rMax, lane);
        __syncthreads();
    };

    int chunk = 0, stage = 0;
    std::size_t tileBase = b;
    for (std::size_t step = 0; step < steps; ++step) {
        waitAsync<P::kStages - 2>();
        __syncthreads();
        loadNext();
        commitAsync();

        const int computed = stage;
        const __half* bTile = sh.b + computed * kTile * P::kPitchB;
        if (++stage == P::kStages) stage = 0;
        // The fragments of k-step ks + 1 are loaded before the MMAs of step ks are issued (the
        // asm statements keep their order), so the shared-memory latency hides behind them.
        const __half* aBase =
            sh.a + (warpRow + (lane & 15)) * pa + chunk * P::kChunk + (lane >> 4) * 8;
        const __half* bBase =
            bTile + (warpCol + (lane & 7) + (lane >> 4) * 8) * P::kPitchB + ((lane >> 3) & 1) * 8;
        unsigned af[2][2][4], bf[2][4][4];
        auto loadFragments = [&](int buf, int ks) {
#pragma unroll
            for (int mi = 0; mi < 2; ++mi)
                loadMatrixX4(af[buf][mi][0], af[buf][mi][1], af[buf][mi][2], af[buf][mi][3],
                             aBase + mi * 16 * pa + ks);
#pragma unroll
            for (int nj = 0; nj < 4; ++nj)
                loadMatrixX4(bf[buf][nj][0], bf[buf][nj][1], bf[buf][nj][2], bf[buf][nj][3],
                             bBase + nj * 16 * P::kPitchB + ks);
        };
        loadFragments(0, 0);
#pragma unroll
        for (int ks = 0; ks < P::kChunk / 16; ++ks) {
            const int buf = ks & 1;
            if (ks + 1 < P::kChunk / 16) loadFragments(buf ^ 1, (ks + 1) * 16);
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

        // Epilogue of the candidate tile at tileBase: the fast test on every pair, in registers;
        // the few pairs that pass are queued (a branch per pair, rarely taken, where running the
        // exact test for all of a thread's pairs whenever one passed cost 10x the tile's MMAs),
        // each warp in its own queue, which it then works through alone: a block-wide queue took
        // another barrier a tile, and barriers were the kernel's first stall (ncu).
        float nj[8][2];
#pragma unroll
        for (int ni = 0; ni < 8; ++ni) {
            const float2 two = *reinterpret_cast<const float2*>(sh.nb + computed * kTile + warpCol +
                                                                ni * 8 + 2 * t4);
            nj[ni][0] = two.x;
            nj[ni][1] = two.y;
        }
        // The test goes a column group (8 pairs a thread) at a time: first whether any pair of
        // the warp's passes (the comparisons or-ed into one predicate, then a vote, so that the
        // branch is the same for the whole warp), then, rarely, which. A branch per pair took
        // three times the issue slots of the test itself; a branch a group per thread (not
        // voted) took 4 % more of the kernel's time at 1M x 128.
        auto passes = [&](int mi, int ni, int c) {
            return fmaf(-2.0f, acc[mi][ni][c], nj[ni][c & 1]) <= thresh[mi][c >> 1];
        };
#pragma unroll
        for (int ni = 0; ni < 8; ++ni) {
            bool any = false;
#pragma unroll
            for (int mi = 0; mi < 2; ++mi)
#pragma unroll
                for (int c = 0; c < 4; ++c)
                    any |= passes(mi, ni, c);
            if (!__any_sync(0xffffffffu, any)) continue;
#pragma unroll
            for (int mi = 0; mi < 2; ++mi)
#pragma unroll
                for (int c = 0; c < 4; ++c)
                    if (passes(mi, ni, c)) {
                        const int row = warpRow + mi * 16 + g + 8 * (c >> 1);
                        const int col = warpCol + ni * 8 + 2 * t4 + (c & 1);
                        warpPassed[atomicAdd(sh.queued + warp, 1)] =
                            Passed{std::uint32_t(row) << 16 | std::uint32_t(col), acc[mi][ni][c]};
                    }
        }
        clearAcc();
        __syncwarp();
        // The exact bounds of the warp's queued pairs, a pair per lane.
        const int queued = sh.queued[warp];
        for (int at = lane; at < queued; at += 32) {
            const Passed pair = warpPassed[at];
            const int row = int(pair.rowCol >> 16), col = int(pair.rowCol & 0xffffu);
            const std::size_t j = tileBase + col;
            const std::size_t q = rowBase + row;
            if (j >= e || j == q) continue;
            const float a = __fadd_rn(__fadd_rn(sh.nq[row], sh.nb[computed * kTile + col]),
                                      __fmul_rn(-2.0f, pair.dot));
            const float bound = pairBound(in.bound, sh.rq[row], __ldg(in.normUp + j));
            const float lb = __fsub_rd(a, bound);
            if (!(lb <= sh.u[row])) continue;
            const int slot = atomicAdd(sh.count + row, 1);
            buffer[std::size_t(row) * kCapacity + slot] =
                Candidate{rowAt(work, j), lb, __fadd_ru(a, bound)};
            if (slot + 1 > sh.pruneAt[row] || (slot + 1 >= in.k && sh.u[row] == INFINITY))
                sh.prune[0] = 1;
        }
        __syncwarp();
        if (lane == 0) sh.queued[warp] = 0;
        tileBase += kTile;
        if (step + 1 < steps) {
            // One barrier a tile: every warp's exact tests are done (the flag is read by all
            // before thread 0 clears it, after the prune's barrier).
            __syncthreads();
            if (sh.prune[0]) {
                pruneRows(false);
                if (tid == 0) sh.prune[0] = 0;
                loadThresholds();
            }
        }
    }
    __syncthreads();
    pruneRows(true);
    waitAsync<0>();

    // Re-rank what is left; the given-up rows (or their range) are listed for the CUDA cores.
    rankDistances(sh, buffer, rowBase, rowEnd, work, in.coords, in.dims, warp, lane);
    // The merge's scratch takes the candidate stages' memory, idle now (no copy is in flight,
    // and every warp is past the last tile's barrier).
    constexpr int kScratch = kKnnMaxK + 32;
    static_assert(sizeof(unsigned long long) * kScratch * (kThreads / 32) <=
                  sizeof(__half) * P::kStages * kTile * P::kPitchB);
    unsigned long long* scratch = reinterpret_cast<unsigned long long*>(sh.b) + warp * kScratch;
    for (int row = warp; row < kTile; row += kThreads / 32) {
        const std::size_t q = rowBase + row;
        if (q >= rowEnd) continue;
        if (sh.u[row] == -INFINITY) {
            if (lane != 0) continue;
            if (!work.merge) {
                out.overflow[atomicAdd(out.overflowCount, 1u)] = std::uint32_t(q);
            } else {
                const std::size_t listed = work.firstRange + range;
                if (atomicExch(out.rangeListed + listed, 1u) == 0u)
                    out.overflow[atomicAdd(out.overflowCount, 1u)] = std::uint32_t(listed);
            }
            continue;
        }
        reRankRow(buffer + std::size_t(row) * kCapacity, sh.count[row], rowAt(work, q), work.idOf,
                  in.k, work.merge, out.dist2, out.index, scratch, lane);
    }
}

// Each block takes the work's items in turn, with its own candidate buffers.
template <typename P>
__global__ void __launch_bounds__(kThreads, 2)
    tensorSearchKernel(KnnTensorInputs in, KnnTensorWork work, KnnTensorOutput out,
                       Candidate* workspace, Passed* passedSpace) {
    extern __shared__ __align__(16) unsigned char smem[];
    const Shared sh = carve<P>(smem, in.dH);
    Candidate* buffer = workspace + std::size_t(blockIdx.x) * kTile * kCapacity;
    Passed* passed = passedSpace + std::size_t(blockIdx.x) * kTile * kTile;
    for (std::size_t item = blockIdx.x; item < work.items; item += gridDim.x) {
        const std::size_t global = work.firstItem + item;
        const std::size_t range = global / work.rowTiles;
        const std::size_t b = work.offsets ? work.offsets[range] : 0;
        const std::size_t e = work.offsets ? work.offsets[range + 1] : in.n;
        const std::size_t rowBase = b + (global % work.rowTiles) * kTile;
        if (rowBase >= e) continue;  // the whole block: no barrier is skipped by part of it
        __syncthreads();             // the previous item's shared state is used up
        searchItem<P>(in, work, out, sh, buffer, passed, b, e, rowBase, range);
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

// One position's FP16 row, a warp: s x (or s (x - c) with a centre c, each difference rounded
// once, as term 6 of the bound has it), zero-padded to dH (all zeros without x); returns its FP32
// squared norm (any order: the bound allows for it) on every lane.
__device__ float writeHalfRow(const float* __restrict__ x, const float* centre, int dims, int dH,
                              float scale, __half* row, int lane) {
    float sum = 0.0f;
    for (int j = lane; j < dH; j += 32) {
        float v = 0.0f;
        if (x && j < dims) v = __fmul_rn(centre ? __fsub_rn(x[j], centre[j]) : x[j], scale);
        row[j] = __float2half_rn(v);
        sum = __fadd_rn(sum, __fmul_rn(v, v));
    }
#pragma unroll
    for (int off = 16; off > 0; off >>= 1)
        sum = __fadd_rn(sum, __shfl_xor_sync(0xffffffffu, sum, off));
    return sum;
}

// A warp per position: the FP16 copy of row order[p] (p without an order) scaled by `scale`
// (zero rows past n, to nPad positions), its FP32 squared norm and an upper bound of the norm.
__global__ void prepareKernel(const float* __restrict__ coords, std::size_t n, int dims,
                              const std::uint32_t* order, std::size_t nPad, int dH, float scale,
                              float normFactor, __half* half, float* norm2, float* normUp) {
    const std::size_t p = (std::size_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
    const int lane = int(threadIdx.x & 31);
    if (p >= nPad) return;
    const bool real = p < n;
    const float* x = real ? coords + std::size_t(order ? order[p] : p) * dims : nullptr;
    const float sum = writeHalfRow(x, nullptr, dims, dH, scale, half + p * dH, lane);
    if (lane == 0) {
        // Padding candidates: an infinite norm fails every test once U is finite (and the
        // exact test checks the range before that).
        norm2[p] = real ? sum : INFINITY;
        normUp[p] = real ? __fsqrt_ru(__fmul_ru(sum, normFactor)) : 0.0f;
    }
}

// A block per leaf: its centroid c (in float, any order: the bound allows any c), then a warp
// per position: the FP16 copy of s (x - c), its squared norm and norm bound, and the leaf's
// largest norm bound.
constexpr int kPrepareLeafThreads = 256;

__global__ void __launch_bounds__(kPrepareLeafThreads)
    prepareLeavesKernel(const float* __restrict__ coords, int dims,
                        const std::uint32_t* __restrict__ order, const std::uint32_t* offsets,
                        int dH, float scale, float normFactor, __half* half, float* norm2,
                        float* normUp, float* leafNormMax) {
    __shared__ float centre[kKnnTensorMaxDims];
    __shared__ unsigned largest;
    const std::size_t b = offsets[blockIdx.x], e = offsets[blockIdx.x + 1];
    const int tid = int(threadIdx.x), lane = tid & 31, warp = tid >> 5;
    if (tid == 0) largest = 0;
    for (int j = tid; j < dims; j += kPrepareLeafThreads) {
        float sum = 0.0f;
#pragma unroll 8
        for (std::size_t p = b; p < e; ++p)
            sum += coords[std::size_t(order[p]) * dims + j];
        centre[j] = e > b ? sum / float(e - b) : 0.0f;
    }
    __syncthreads();
    for (std::size_t p = b + warp; p < e; p += kPrepareLeafThreads / 32) {
        const float sum = writeHalfRow(coords + std::size_t(order[p]) * dims, centre, dims, dH,
                                       scale, half + p * dH, lane);
        if (lane == 0) {
            const float up = __fsqrt_ru(__fmul_ru(sum, normFactor));
            norm2[p] = sum;
            normUp[p] = up;
            atomicMax(&largest, __float_as_uint(up));  // non-negative floats order as their bits
        }
    }
    __syncthreads();
    if (tid == 0) leafNormMax[blockIdx.x] = __uint_as_float(largest);
}

}  // namespace

int knnTensorDims(int dims) {
    return (dims + kDimsMultiple - 1) / kDimsMultiple * kDimsMultiple;
}

std::size_t knnTensorResidentBlocks(int device) {
    int multiprocessors = 1;
    CS_CUDA_CHECK(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device));
    return 2 * std::size_t(multiprocessors);
}

std::size_t knnTensorWorkspaceBytes(std::size_t blocks) {
    return blocks * kTile * (kCapacity * sizeof(Candidate) + kTile * sizeof(Passed));
}

void launchKnnMaxAbs(const float* x, std::size_t count, unsigned* bits, cudaStream_t stream) {
    CS_CUDA_CHECK(cudaMemsetAsync(bits, 0, sizeof(unsigned), stream));
    if (count == 0) return;
    const unsigned blocks = unsigned(std::min<std::size_t>((count + 255) / 256, 4096));
    maxAbsKernel<<<blocks, 256, 0, stream>>>(x, count, bits);
    CS_CUDA_CHECK_LAUNCH();
}

void launchKnnTensorPrepare(const float* coords, std::size_t n, int dims,
                            const std::uint32_t* order, std::size_t nPad, int dH, float scale,
                            float normFactor, std::uint16_t* half, float* norm2, float* normUp,
                            cudaStream_t stream) {
    if (nPad == 0) return;
    const unsigned blocks = unsigned((nPad * 32 + 255) / 256);
    prepareKernel<<<blocks, 256, 0, stream>>>(coords, n, dims, order, nPad, dH, scale, normFactor,
                                              reinterpret_cast<__half*>(half), norm2, normUp);
    CS_CUDA_CHECK_LAUNCH();
}

void launchKnnTensorPrepareLeaves(const float* coords, int dims, const std::uint32_t* order,
                                  const std::uint32_t* offsets, std::size_t leaves, int dH,
                                  float scale, float normFactor, std::uint16_t* half, float* norm2,
                                  float* normUp, float* leafNormMax, cudaStream_t stream) {
    if (leaves == 0) return;
    prepareLeavesKernel<<<unsigned(leaves), kPrepareLeafThreads, 0, stream>>>(
        coords, dims, order, offsets, dH, scale, normFactor, reinterpret_cast<__half*>(half), norm2,
        normUp, leafNormMax);
    CS_CUDA_CHECK_LAUNCH();
}

void launchKnnTensorSearch(const KnnTensorInputs& in, const KnnTensorWork& work,
                           const KnnTensorOutput& out, void* workspace, std::size_t blocks,
                           cudaStream_t stream) {
    if (work.items == 0 || blocks == 0) return;
    auto* buffers = static_cast<Candidate*>(workspace);
    auto* passed = reinterpret_cast<Passed*>(buffers + blocks * kTile * kCapacity);
    const unsigned grid = unsigned(std::min(work.items, blocks));
    auto launch = [&]<typename P>(P) {
        const std::size_t bytes = sharedBytes<P>(in.dH);
        CS_CUDA_CHECK(cudaFuncSetAttribute(
            tensorSearchKernel<P>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
        tensorSearchKernel<P><<<grid, kThreads, bytes, stream>>>(in, work, out, buffers, passed);
    };
    if (in.dH % 128 == 0)
        launch(Pipe<128>{});
    else
        launch(Pipe<64>{});
    CS_CUDA_CHECK_LAUNCH();
}

}  // namespace cs::kernels
