// SPDX-License-Identifier: MIT
// The distributed kNN graph: knn_mpi.h explains why its graph is knnGraphCpu's, bit for bit.
#include "compute/distributed/knn_mpi.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <exception>
#include <limits>
#include <numeric>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "compute/core/error.h"
#include "compute/core/geometry.h"
#include "compute/core/parallel.h"
#include "compute/io/dataset.h"
#include "compute/io/npy.h"
#include "compute/knn/knn_cpu_parts.h"

namespace cs::mpi {

int rankOf(MPI_Comm comm) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    return rank;
}

int sizeOf(MPI_Comm comm) {
    int size = 1;
    MPI_Comm_size(comm, &size);
    return size;
}

HostRanks hostRanks(MPI_Comm comm) {
    MPI_Comm host;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rankOf(comm), MPI_INFO_NULL, &host);
    const HostRanks out{.rank = rankOf(host), .size = sizeOf(host)};
    MPI_Comm_free(&host);
    return out;
}

namespace {

using knn_parts::kEmptyDist2;
using knn_parts::kEmptyIndex;

// MPI counts are int: whatever is exchanged goes in units (records, rows) that keep them small.
int count(std::size_t n, const char* what) {
    if (n > std::size_t(std::numeric_limits<int>::max()))
        throw Error(std::string("the distributed kNN graph cannot send ") + std::to_string(n) +
                    " " + what + " in one message; use more ranks");
    return int(n);
}

// A contiguous datatype of `bytes` bytes, freed with the object.
class Bytes {
public:
    explicit Bytes(std::size_t bytes) {
        MPI_Type_contiguous(count(bytes, "bytes per record"), MPI_BYTE, &m_type);
        MPI_Type_commit(&m_type);
    }
    ~Bytes() { MPI_Type_free(&m_type); }
    Bytes(const Bytes&) = delete;
    Bytes& operator=(const Bytes&) = delete;
    MPI_Datatype type() const { return m_type; }

private:
    MPI_Datatype m_type = MPI_DATATYPE_NULL;
};

// What this rank sent, and the time it spent in collectives (waiting for slower ranks included:
// the share a faster network would not remove is load imbalance, and it shows up here too).
struct Traffic {
    std::uint64_t bytesSent = 0;
    double commMs = 0.0;
};

// Adds the time from construction to destruction to traffic.commMs.
class CommClock {
public:
    explicit CommClock(Traffic& traffic) : m_traffic(traffic), m_start(MPI_Wtime()) {}
    ~CommClock() { m_traffic.commMs += (MPI_Wtime() - m_start) * 1e3; }
    CommClock(const CommClock&) = delete;
    CommClock& operator=(const CommClock&) = delete;

private:
    Traffic& m_traffic;
    double m_start;
};

// Gathers every rank's `part` (records of recordBytes bytes) at every rank, in rank order.
std::vector<char> allGather(MPI_Comm comm, const std::vector<char>& part, std::size_t recordBytes,
                            Traffic& traffic) {
    const CommClock clock(traffic);
    const int size = sizeOf(comm);
    const Bytes record(recordBytes);
    const int mine = count(part.size() / recordBytes, "records");
    std::vector<int> counts(static_cast<std::size_t>(size)), displs(counts.size());
    MPI_Allgather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, comm);
    std::size_t total = 0;
    for (int r = 0; r < size; ++r) {
        displs[std::size_t(r)] = count(total, "records");
        total += std::size_t(counts[std::size_t(r)]);
    }
    std::vector<char> all(total * recordBytes);
    MPI_Allgatherv(part.data(), mine, record.type(), all.data(), counts.data(), displs.data(),
                   record.type(), comm);
    traffic.bytesSent += part.size() * std::uint64_t(size - 1);
    return all;
}

// Sends records (recordBytes each, already grouped by destination, counts[r] for rank r) to
// their ranks; returns what this rank received, grouped by source.
std::vector<char> allToAll(MPI_Comm comm, const std::vector<char>& records,
                           const std::vector<int>& counts, std::size_t recordBytes,
                           Traffic& traffic) {
    const CommClock clock(traffic);
    const int size = sizeOf(comm), rank = rankOf(comm);
    const Bytes record(recordBytes);
    std::vector<int> incoming(static_cast<std::size_t>(size)), sendDispls(incoming.size()),
        recvDispls(incoming.size());
    MPI_Alltoall(counts.data(), 1, MPI_INT, incoming.data(), 1, MPI_INT, comm);
    std::size_t sent = 0, received = 0;
    for (int r = 0; r < size; ++r) {
        sendDispls[std::size_t(r)] = count(sent, "records");
        recvDispls[std::size_t(r)] = count(received, "records");
        sent += std::size_t(counts[std::size_t(r)]);
        received += std::size_t(incoming[std::size_t(r)]);
        if (r != rank) traffic.bytesSent += std::uint64_t(counts[std::size_t(r)]) * recordBytes;
    }
    std::vector<char> out(received * recordBytes);
    MPI_Alltoallv(records.data(), counts.data(), sendDispls.data(), record.type(), out.data(),
                  incoming.data(), recvDispls.data(), record.type(), comm);
    return out;
}

template <typename T>
void put(char*& at, const T* values, std::size_t n) {
    std::memcpy(at, values, n * sizeof(T));
    at += n * sizeof(T);
}

template <typename T>
void take(const char*& at, T* values, std::size_t n) {
    std::memcpy(values, at, n * sizeof(T));
    at += n * sizeof(T);
}

// recentredCoords over all ranks: the box is reduced exactly (min and max of doubles), so
// every coordinate is the one-process one.
std::vector<float> recentred(MPI_Comm comm, const PointSet& points, double& scale,
                             Traffic& traffic) {
    CoordinateBox box = coordinateBox(points);
    const int d = int(points.dims);
    {
        const CommClock clock(traffic);
        MPI_Allreduce(MPI_IN_PLACE, box.lo.data(), d, MPI_DOUBLE, MPI_MIN, comm);
        MPI_Allreduce(MPI_IN_PLACE, box.hi.data(), d, MPI_DOUBLE, MPI_MAX, comm);
    }
    RecentredCoords frame = recentredCoordsIn(points, box);
    scale = frame.scale;
    return std::move(frame.coords);
}

// The exact lists of the recall sample: each rank searches its points for all sample rows,
// and the k smallest of the ranks' lists are the k smallest overall.
std::vector<float> exactSample(MPI_Comm comm, const PointSlice& slice, const std::vector<float>& x,
                               const std::vector<std::int32_t>& sample, int k, int threads,
                               JobControl& job, Traffic& traffic) {
    const std::size_t d = slice.points.dims, kk = std::size_t(k), n = slice.points.n;
    // The sample rows this rank holds are one run of the sorted sample: gathered in rank order
    // they are the sample's rows in order.
    const auto lo = std::lower_bound(sample.begin(), sample.end(), std::int64_t(slice.first));
    const auto hi = std::lower_bound(sample.begin(), sample.end(), std::int64_t(slice.first + n));
    std::vector<char> mine(std::size_t(hi - lo) * d * sizeof(float));
    char* at = mine.data();
    for (auto it = lo; it != hi; ++it)
        put(at, x.data() + (std::size_t(*it) - slice.first) * d, d);
    const auto rowBytes = allGather(comm, mine, d * sizeof(float), traffic);
    std::vector<float> rows(sample.size() * d);
    std::memcpy(rows.data(), rowBytes.data(), rowBytes.size());

    std::vector<float> dist2;
    const auto index = knn_parts::exactRowsAgainst(rows, sample, x, n, d, std::int64_t(slice.first),
                                                   k, threads, &dist2, &job);
    std::vector<char> lists(sample.size() * kk * 8);
    at = lists.data();
    put(at, dist2.data(), dist2.size());
    put(at, index.data(), index.size());
    const auto all = allGather(comm, lists, lists.size(), traffic);
    std::vector<float> merged(sample.size() * kk, kEmptyDist2);
    std::vector<std::int32_t> mergedIndex(sample.size() * kk, kEmptyIndex);
    const std::size_t ranks = all.size() / lists.size();
    std::vector<float> theirDist2(dist2.size());
    std::vector<std::int32_t> theirIndex(index.size());
    for (std::size_t r = 0; r < ranks; ++r) {
        const char* from = all.data() + r * lists.size();
        take(from, theirDist2.data(), theirDist2.size());
        take(from, theirIndex.data(), theirIndex.size());
        for (std::size_t s = 0; s < sample.size(); ++s)
            for (std::size_t q = 0; q < kk; ++q)
                if (theirDist2[s * kk + q] <= merged[s * kk + kk - 1])
                    knn_parts::offer(merged.data() + s * kk, mergedIndex.data() + s * kk, k,
                                     theirDist2[s * kk + q], theirIndex[s * kk + q]);
    }
    return merged;
}

// The node of every local point after `levels` levels of this tree: level by level, each node's
// pivot (the key of rank half its size among its members on all ranks) by radix selection, 8 bits a
// pass, on histograms summed over the ranks; a point goes left when its key is below its node's
// pivot, which gives the left child exactly the half the one-process sort gives it.
std::vector<std::uint32_t> nodesOf(MPI_Comm comm, const std::vector<float>& proj,
                                   const std::vector<std::int32_t>& ids, std::size_t total,
                                   int levels, JobControl& job, Traffic& traffic) {
    const std::size_t n = ids.size();
    const int ranks = sizeOf(comm);
    std::vector<std::uint32_t> node(n, 0);
    // Local points grouped by node (members[start[j] .. start[j + 1]) are node j's).
    std::vector<std::uint32_t> members(n), next(n);
    std::iota(members.begin(), members.end(), 0u);
    std::vector<std::size_t> start{0, n};
    std::vector<std::uint64_t> keys(n);
    // Nodes per histogram round: 256 counters each, a few MB a round at most.
    constexpr std::size_t kBatch = 2048;
    for (int l = 0; l < levels; ++l) {
        job.checkpoint();
        const auto offsets = knnNodeOffsets(total, l);
        const std::size_t nodes = offsets.size() - 1;
        const float* p = proj.data() + std::size_t(l) * n;
        for (std::size_t q = 0; q < n; ++q)
            keys[q] = knnSortKey(p[q], std::uint32_t(ids[q]));
        std::vector<std::uint64_t> pivot(nodes, 0);
        std::vector<std::uint64_t> hist;
        for (std::size_t b = 0; b < nodes; b += kBatch) {
            const std::size_t e = std::min(nodes, b + kBatch);
            std::vector<std::uint64_t> remaining(e - b);
            for (std::size_t j = b; j < e; ++j)
                remaining[j - b] = (offsets[j + 1] - offsets[j]) / 2;
            for (int pass = 0; pass < 8; ++pass) {
                const int shift = 56 - 8 * pass;
                hist.assign((e - b) * 256, 0);
                for (std::size_t j = b; j < e; ++j) {
                    std::uint64_t* h = hist.data() + (j - b) * 256;
                    for (std::size_t m = start[j]; m < start[j + 1]; ++m) {
                        const std::uint64_t key = keys[members[m]];
                        // Only the keys that share the digits chosen so far.
                        if (pass > 0 && (key >> (shift + 8)) != pivot[j]) continue;
                        ++h[(key >> shift) & 0xFF];
                    }
                }
                {
                    const CommClock clock(traffic);
                    MPI_Allreduce(MPI_IN_PLACE, hist.data(), int(hist.size()), MPI_UINT64_T,
                                  MPI_SUM, comm);
                }
                traffic.bytesSent += hist.size() * 8 * std::uint64_t(ranks > 1);
                for (std::size_t j = b; j < e; ++j) {
                    if (offsets[j + 1] == offsets[j]) continue;  // an empty node has no pivot
                    const std::uint64_t* h = hist.data() + (j - b) * 256;
                    std::uint64_t below = 0;
                    unsigned digit = 0;
                    while (digit < 255 && below + h[digit] <= remaining[j - b])
                        below += h[digit++];
                    remaining[j - b] -= below;
                    pivot[j] = (pivot[j] << 8) | digit;
                }
            }
        }
        // Split: each node's members, left (below the pivot) then right, in the children.
        std::vector<std::size_t> childStart(2 * nodes + 1, 0);
        for (std::size_t j = 0; j < nodes; ++j) {
            std::size_t write = start[j];
            for (std::size_t m = start[j]; m < start[j + 1]; ++m)
                if (keys[members[m]] < pivot[j]) next[write++] = members[m];
            childStart[2 * j + 1] = write;
            for (std::size_t m = start[j]; m < start[j + 1]; ++m)
                if (keys[members[m]] >= pivot[j]) next[write++] = members[m];
            childStart[2 * j] = start[j];
            childStart[2 * j + 2] = start[j + 1];
        }
        members.swap(next);
        start.swap(childStart);
    }
    for (std::size_t j = 0; j + 1 < start.size(); ++j)
        for (std::size_t m = start[j]; m < start[j + 1]; ++m)
            node[members[m]] = std::uint32_t(j);
    return node;
}

// The rank owning node j of the `nodes` nodes at the shared levels' end: dealt out in
// contiguous blocks, with all their descendants.
int ownerOf(std::size_t j, std::size_t nodes, int ranks) {
    return int(std::uint64_t(j) * std::uint64_t(ranks) / std::uint64_t(nodes));
}

// The levels split across ranks: the fewest that leave at least one node per rank (then every
// rank owns whole subtrees), at most the tree's depth.
int sharedLevels(int levels, int ranks) {
    int shared = 0;
    while (shared < levels && (std::size_t(1) << shared) < std::size_t(ranks))
        ++shared;
    return shared;
}

// The home rank of point gid: the last rank whose first is at most gid.
int homeOf(const std::vector<std::size_t>& firsts, std::size_t gid) {
    return int(std::upper_bound(firsts.begin(), firsts.end() - 1, gid) - firsts.begin()) - 1;
}

// The rest of one tree and its leaf search: points (coordinates and lists) go to the ranks
// owning their node at the end of the shared levels (`node`), which split them down to the
// leaves alone, as the one-process tree does, and search the leaves; the lists come home.
void searchTree(MPI_Comm comm, const PointSlice& slice, const std::vector<float>& x,
                const std::vector<std::int32_t>& ids, const std::vector<std::uint32_t>& node,
                int shared, int levels, const std::vector<float>& directions, int k,
                Backend& backend, int threads, std::vector<float>& dist2,
                std::vector<std::int32_t>& index, JobControl& job, Traffic& traffic) {
    const int ranks = sizeOf(comm), rank = rankOf(comm);
    const std::size_t nodes = std::size_t(1) << shared;
    const std::vector<std::uint32_t>& leaf = node;
    const std::size_t leaves = nodes;
    const std::size_t n = ids.size(), d = slice.points.dims, kk = std::size_t(k);
    const std::size_t outBytes = 4 + 4 + d * 4 + kk * 8;  // node, id, coordinates, list
    std::vector<int> counts(std::size_t(ranks), 0);
    std::vector<std::size_t> at(std::size_t(ranks) + 1, 0);
    std::vector<char> records;
    std::vector<char> received;
    {
        auto stage = job.stage("exchange");
        for (std::size_t q = 0; q < n; ++q)
            ++counts[std::size_t(ownerOf(leaf[q], leaves, ranks))];
        for (int r = 0; r < ranks; ++r)
            at[std::size_t(r) + 1] = at[std::size_t(r)] + std::size_t(counts[std::size_t(r)]);
        records.resize(n * outBytes);
        for (std::size_t q = 0; q < n; ++q) {
            char* w =
                records.data() + at[std::size_t(ownerOf(leaf[q], leaves, ranks))]++ * outBytes;
            put(w, &leaf[q], 1);
            put(w, &ids[q], 1);
            put(w, x.data() + q * d, d);
            put(w, dist2.data() + q * kk, kk);
            put(w, index.data() + q * kk, kk);
        }
        received = allToAll(comm, records, counts, outBytes, traffic);
        records = {};
    }

    const std::size_t m = received.size() / outBytes;
    std::vector<std::uint32_t> leafOf(m);
    std::vector<std::int32_t> idOf(m);
    for (std::size_t r = 0; r < m; ++r) {
        const char* from = received.data() + r * outBytes;
        take(from, &leafOf[r], 1);
        take(from, &idOf[r], 1);
    }
    // This rank's nodes in order, members by index: within a node, position order is index
    // order, so the keys below may carry positions and still break ties as the indices do.
    std::vector<std::uint32_t> sorted(m);
    std::iota(sorted.begin(), sorted.end(), 0u);
    std::sort(sorted.begin(), sorted.end(), [&](std::uint32_t a, std::uint32_t b) {
        return leafOf[a] != leafOf[b] ? leafOf[a] < leafOf[b] : idOf[a] < idOf[b];
    });
    std::vector<float> lx(m * d), ld(m * kk);
    std::vector<std::int32_t> li(m * kk), lid(m);
    for (std::size_t p = 0; p < m; ++p) {
        const char* from = received.data() + std::size_t(sorted[p]) * outBytes + 8;
        take(from, lx.data() + p * d, d);
        take(from, ld.data() + p * kk, kk);
        take(from, li.data() + p * kk, kk);
        lid[p] = idOf[sorted[p]];
    }
    received = {};

    // This rank's nodes [j0, j1) hold the tree positions [base, base + m).
    std::size_t j0 = 0, j1 = 0;
    for (std::size_t j = 0; j < nodes; ++j) {
        j0 += ownerOf(j, nodes, ranks) < rank;
        j1 += ownerOf(j, nodes, ranks) <= rank;
    }
    const std::size_t total = slice.total;
    const std::size_t base = knnNodeOffsets(total, shared)[j0];
    std::vector<std::uint32_t> order(m);
    std::iota(order.begin(), order.end(), 0u);
    {
        auto stage = job.stage("tree");
        const int below = levels - shared;
        const auto proj = knn_parts::project(
            lx, m, d, std::span<const float>(directions).subspan(std::size_t(shared) * d), below,
            threads, &job);
        std::vector<std::uint64_t> keys(m);
        for (int l = shared; l < levels; ++l) {
            job.checkpoint();
            const auto offsets = knnNodeOffsets(total, l);
            const float* p = proj.data() + std::size_t(l - shared) * m;
            const int depth = l - shared;
            for (std::size_t j = j0 << depth; j < (j1 << depth); ++j) {
                const std::size_t b = offsets[j] - base, e = offsets[j + 1] - base;
                for (std::size_t q = b; q < e; ++q)
                    keys[q] = knnSortKey(p[order[q]], order[q]);
                std::nth_element(keys.begin() + std::ptrdiff_t(b),
                                 keys.begin() + std::ptrdiff_t(b + (e - b) / 2),
                                 keys.begin() + std::ptrdiff_t(e));
                for (std::size_t q = b; q < e; ++q)
                    order[q] = std::uint32_t(keys[q]);
            }
        }
    }
    const auto leafOffsets = knnNodeOffsets(total, levels);
    const int depth = levels - shared;
    std::vector<std::uint32_t> offsets;
    for (std::size_t j = j0 << depth; j <= (j1 << depth); ++j)
        offsets.push_back(std::uint32_t(leafOffsets[j] - base));
    if (offsets.back() != m)
        throw Error("the distributed kNN graph lost points: " + std::to_string(m) +
                    " received for " + std::to_string(offsets.back()) + " tree positions");
    {
        auto stage = job.stage("leaf search");
        backend.knnSearchLeaves({.coords = lx,
                                 .dims = d,
                                 .order = order,
                                 .leafOffsets = offsets,
                                 .ids = lid,
                                 .k = k,
                                 .dist2 = ld,
                                 .index = li},
                                threads, job);
    }

    auto stage = job.stage("exchange");
    const std::size_t backBytes = 4 + kk * 8;
    std::fill(counts.begin(), counts.end(), 0);
    for (std::size_t p = 0; p < m; ++p)
        ++counts[std::size_t(homeOf(slice.firsts, std::size_t(lid[p])))];
    at.assign(std::size_t(ranks) + 1, 0);
    for (int r = 0; r < ranks; ++r)
        at[std::size_t(r) + 1] = at[std::size_t(r)] + std::size_t(counts[std::size_t(r)]);
    records.resize(m * backBytes);
    for (std::size_t p = 0; p < m; ++p) {
        char* w = records.data() +
                  at[std::size_t(homeOf(slice.firsts, std::size_t(lid[p])))]++ * backBytes;
        put(w, &lid[p], 1);
        put(w, ld.data() + p * kk, kk);
        put(w, li.data() + p * kk, kk);
    }
    const auto back = allToAll(comm, records, counts, backBytes, traffic);
    for (std::size_t r = 0; r < back.size() / backBytes; ++r) {
        const char* from = back.data() + r * backBytes;
        std::int32_t gid = 0;
        take(from, &gid, 1);
        const std::size_t q = std::size_t(gid) - slice.first;
        take(from, dist2.data() + q * kk, kk);
        take(from, index.data() + q * kk, kk);
    }
}

}  // namespace

void agree(MPI_Comm comm, const std::function<void()>& body) {
    std::exception_ptr failure;
    try {
        body();
    } catch (...) {
        failure = std::current_exception();
    }
    const int rank = rankOf(comm);
    int first = failure ? rank : std::numeric_limits<int>::max();
    MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, comm);
    if (first == std::numeric_limits<int>::max()) return;
    if (first == rank) std::rethrow_exception(failure);
    throw ReportedElsewhere();
}

PointSlice readPointSlice(MPI_Comm comm, const std::string& file) {
    const int ranks = sizeOf(comm), rank = rankOf(comm);
    PointSlice slice;
    const std::string lower = [&] {
        std::string s = file;
        for (auto& c : s)
            c = char(std::tolower(static_cast<unsigned char>(c)));
        return s;
    }();
    if (lower.size() > 4 && lower.ends_with(".npy")) {
        const auto shape = io::npyInfo(file).shape;
        if (shape.empty() || shape.size() > 2)
            throw Error(file + ": a point cloud .npy must have 1 or 2 dimensions");
        const std::size_t rows = shape[0], dims = shape.size() == 2 ? shape[1] : 1;
        if (rows > 0 && dims == 0)
            throw Error(file + ": has shape (" + std::to_string(rows) +
                        ", 0): points without coordinates");
        const auto [b, e] = chunkRange(rows, std::size_t(ranks), std::size_t(rank));
        io::NpyArray chunk = io::readNpyRows(file, b, e - b);
        slice.fileRowCount = rows;
        slice.fileRowBegin = b;
        slice.fileRowEnd = e;
        // Drop the rows with NaN/Inf as the one-process reader does.
        std::vector<float> kept;
        kept.reserve(chunk.values.size());
        for (std::size_t i = 0; i < e - b; ++i) {
            const float* row = chunk.values.data() + i * dims;
            if (!std::all_of(row, row + dims, [](float v) { return std::isfinite(v); })) continue;
            kept.insert(kept.end(), row, row + dims);
            slice.fileRows.push_back(b + i);
        }
        slice.points = PointSet::fromCoords(dims, std::move(kept));
    } else {
        io::Dataset data = io::loadDataset(file);
        auto* all = std::get_if<PointSet>(&data);
        if (!all)
            throw Error(file + ": holds time series, not points; this command needs a point cloud");
        const auto [b, e] = chunkRange(all->n, std::size_t(ranks), std::size_t(rank));
        slice.fileRowCount = all->fileRowCount();
        std::vector<float> coords(all->coords.begin() + std::ptrdiff_t(b * all->dims),
                                  all->coords.begin() + std::ptrdiff_t(e * all->dims));
        for (std::size_t i = b; i < e; ++i)
            slice.fileRows.push_back(all->fileRow(i));
        // Rows dropped between two ranks' points go to the earlier rank; the first rank starts
        // at row 0 and the last ends at the file's end, so the ranges tile the file.
        const auto rowOfPoint = [&](std::size_t i) {
            return i < all->n ? all->fileRow(i) : slice.fileRowCount;
        };
        slice.fileRowBegin = rank == 0 ? 0 : rowOfPoint(b);
        slice.fileRowEnd = rank == ranks - 1 ? slice.fileRowCount : rowOfPoint(e);
        slice.points = PointSet::fromCoords(all->dims, std::move(coords));
    }
    slice.points.source = file;
    const std::uint64_t mine = slice.points.n;
    std::vector<std::uint64_t> counts(static_cast<std::size_t>(ranks));
    MPI_Allgather(&mine, 1, MPI_UINT64_T, counts.data(), 1, MPI_UINT64_T, comm);
    slice.firsts.assign(std::size_t(ranks) + 1, 0);
    for (int r = 0; r < ranks; ++r)
        slice.firsts[std::size_t(r) + 1] = slice.firsts[std::size_t(r)] + counts[std::size_t(r)];
    slice.first = slice.firsts[std::size_t(rank)];
    slice.total = slice.firsts.back();
    if (slice.total == 0) {
        const std::size_t dropped = slice.fileRowCount;
        if (dropped > 0)
            throw Error(file + ": has no usable points: all " + std::to_string(dropped) +
                        " points have a NaN or infinite coordinate");
        throw Error(file + ": holds no points");
    }
    slice.points.droppedNonFinite = 0;
    return slice;
}

void checkKnnMpi(std::size_t total, const KnnParams& params, int ranks) {
    validateKnnParams(params);
    if (params.exact)
        throw Error("the exact kNN graph (every pair) runs on one machine, not distributed");
    if (total >= std::size_t(std::numeric_limits<std::int32_t>::max()))
        throw Error("the kNN graph supports fewer than 2^31 - 1 points, the set has " +
                    std::to_string(total));
    if (total < std::size_t(params.k) + 1)
        throw Error("the kNN graph needs at least k + 1 = " + std::to_string(params.k + 1) +
                    " points, the set has " + std::to_string(total));
    if (total < std::size_t(ranks))
        throw Error("the distributed kNN graph needs at least one point per rank: " +
                    std::to_string(ranks) + " ranks for " + std::to_string(total) + " points");
}

KnnSlice knnGraphMpi(MPI_Comm comm, const PointSlice& slice, const KnnParams& params,
                     Backend& backend, JobControl& job, int threads) {
    const int ranks = sizeOf(comm);
    checkKnnMpi(slice.total, params, ranks);
    const std::size_t total = slice.total, n = slice.points.n, d = slice.points.dims;
    const std::size_t kk = std::size_t(params.k);
    const int workers = int(workersFor(threads));
    const int levels = knnLevels(total, params.leafSize);
    const int shared = sharedLevels(levels, ranks);

    KnnSlice out;
    Traffic traffic;
    std::vector<std::int32_t> ids(n);
    for (std::size_t q = 0; q < n; ++q)
        ids[q] = std::int32_t(slice.first + q);

    std::vector<float> x, exactDist2;
    std::vector<std::int32_t> sample;
    double scale = 1.0;
    {
        auto stage = job.stage("exact sample");
        x = recentred(comm, slice.points, scale, traffic);
        sample = knnRecallSample(total, params.recallSample, params.seed);
        exactDist2 = exactSample(comm, slice, x, sample, params.k, workers, job, traffic);
    }
    const auto ownLo = std::lower_bound(sample.begin(), sample.end(), std::int64_t(slice.first));
    const auto ownHi =
        std::lower_bound(sample.begin(), sample.end(), std::int64_t(slice.first + n));

    out.indices.assign(n * kk, kEmptyIndex);
    std::vector<float> dist2(n * kk, kEmptyDist2);
    for (int tree = 0; tree < params.trees; ++tree) {
        job.checkpoint();
        // Every rank draws the same directions; the shared levels are split where the points
        // live, the levels below on the rank owning the subtree.
        const auto directions = knnTreeDirections(params.seed, tree, levels, d);
        std::vector<float> proj;
        {
            auto stage = job.stage("projection");
            proj = knn_parts::project(x, n, d, directions, shared, workers, &job);
        }
        std::vector<std::uint32_t> node;
        {
            auto stage = job.stage("tree");
            node = nodesOf(comm, proj, ids, total, shared, job, traffic);
            proj = {};
        }
        searchTree(comm, slice, x, ids, node, shared, levels, directions, params.k, backend,
                   workers, dist2, out.indices, job, traffic);
        double recall = 0.0;
        {
            auto stage = job.stage("recall");
            std::vector<char> rows(std::size_t(ownHi - ownLo) * kk * sizeof(float));
            char* w = rows.data();
            for (auto it = ownLo; it != ownHi; ++it)
                put(w, dist2.data() + (std::size_t(*it) - slice.first) * kk, kk);
            const auto all = allGather(comm, rows, kk * sizeof(float), traffic);
            std::vector<float> sampleDist2(sample.size() * kk);
            std::memcpy(sampleDist2.data(), all.data(), all.size());
            recall = knnRecallOfRows(sampleDist2, exactDist2, params.k);
        }
        out.recallByTree.push_back(recall);
        out.treesBuilt = tree + 1;
        job.setIteration(knnTreeStatus(tree + 1, params.trees, recall),
                         double(tree + 1) / params.trees);
        if (params.targetRecall > 0.0 && recall >= params.targetRecall) break;
    }
    {
        auto stage = job.stage("finish");
        out.distances.resize(n * kk);
        for (std::size_t i = 0; i < n * kk; ++i)
            out.distances[i] = std::sqrt(dist2[i]);
        fromRecentred(out.distances, scale);
    }
    out.bytesSent = traffic.bytesSent;
    out.commMs = traffic.commMs;
    return out;
}

GatheredKnn gatherKnn(MPI_Comm comm, const PointSlice& slice, const KnnSlice& local,
                      const KnnParams& params, int root) {
    const int ranks = sizeOf(comm), rank = rankOf(comm);
    const std::size_t kk = std::size_t(params.k);
    GatheredKnn out;
    std::vector<int> counts(static_cast<std::size_t>(ranks)), displs(counts.size());
    for (int r = 0; r < ranks; ++r) {
        counts[std::size_t(r)] =
            count(slice.firsts[std::size_t(r) + 1] - slice.firsts[std::size_t(r)], "rows");
        displs[std::size_t(r)] = count(slice.firsts[std::size_t(r)], "rows");
    }
    const int mine = counts[std::size_t(rank)];
    MPI_Datatype row;
    MPI_Type_contiguous(count(kk, "neighbours"), MPI_INT32_T, &row);
    MPI_Type_commit(&row);
    MPI_Datatype distanceRow;
    MPI_Type_contiguous(count(kk, "neighbours"), MPI_FLOAT, &distanceRow);
    MPI_Type_commit(&distanceRow);
    if (rank == root) {
        out.graph.n = slice.total;
        out.graph.k = params.k;
        out.graph.treesBuilt = local.treesBuilt;
        out.graph.recallByTree = local.recallByTree;
        out.graph.indices.resize(slice.total * kk);
        out.graph.distances.resize(slice.total * kk);
        out.fileRows.resize(slice.total);
    }
    MPI_Gatherv(local.indices.data(), mine, row, out.graph.indices.data(), counts.data(),
                displs.data(), row, root, comm);
    MPI_Gatherv(local.distances.data(), mine, distanceRow, out.graph.distances.data(),
                counts.data(), displs.data(), distanceRow, root, comm);
    std::vector<std::uint64_t> rows(slice.fileRows.begin(), slice.fileRows.end());
    std::vector<std::uint64_t> allRows(rank == root ? slice.total : 0);
    MPI_Gatherv(rows.data(), mine, MPI_UINT64_T, allRows.data(), counts.data(), displs.data(),
                MPI_UINT64_T, root, comm);
    std::copy(allRows.begin(), allRows.end(), out.fileRows.begin());
    MPI_Type_free(&row);
    MPI_Type_free(&distanceRow);
    return out;
}

}  // namespace cs::mpi
