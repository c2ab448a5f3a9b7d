// SPDX-License-Identifier: MIT
// Pageable copies through the driver run at a fraction of PCIe bandwidth (it stages through
// small internal buffers, one at a time, with the calling thread doing the host side alone),
// and pinning the caller's memory in place (cudaHostRegister) costs more than the copy. So the
// host side is spread over threads, each filling or draining its own pair of pinned chunks
// while the copy engine works on the other one. Writing fresh host memory (a result of
// gigabytes) is bound by the page faults of its first touch: on the H200's host, 4 GB took
// 240 ms on 4 threads, 165 ms on 8 and 100 ms on 16, against 260 ms to map it beforehand with
// MADV_POPULATE_WRITE however many threads do it.
#include "kernels/common/staged_copy.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <exception>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "kernels/common/cuda_error.h"
#include "kernels/common/cuda_event.h"
#include "kernels/common/device_scope.h"
#include "kernels/common/pinned_buffer.h"

namespace cs::kernels {
namespace {

constexpr std::size_t kChunk = std::size_t(2) << 20;
constexpr int kMaxWorkers = 16;
constexpr int kSlots = 2;  // per worker: one filled or drained by the host, one in flight

// Workers of one transfer: as many as there are cores, up to kMaxWorkers.
int maxWorkers() {
    return std::min(kMaxWorkers, int(std::max(1u, std::thread::hardware_concurrency())));
}

// Pinned chunks and their "DMA done" events for maxWorkers() workers on one device.
struct StagingRing {
    PinnedBuffer<std::byte> memory;
    std::vector<CudaEvent> done;

    explicit StagingRing(int device) {
        DeviceScope scope(device);
        const int slots = maxWorkers() * kSlots;
        memory = PinnedBuffer<std::byte>(kChunk * std::size_t(slots));
        done.reserve(std::size_t(slots));
        for (int e = 0; e < slots; ++e)
            done.emplace_back(/*timing=*/false);
    }
    std::byte* slot(int worker, int s) {
        return memory.data() + kChunk * std::size_t(worker * kSlots + s);
    }
    cudaEvent_t event(int worker, int s) { return done[std::size_t(worker * kSlots + s)].get(); }
};

// Rings are lent to one transfer at a time and kept for the process's life: freeing pinned
// memory from a static destructor would race the CUDA runtime's own teardown.
class RingPool {
public:
    StagingRing* take(int device) {
        {
            std::lock_guard lock(m_mutex);
            auto& free = m_free[device];
            if (!free.empty()) {
                StagingRing* ring = free.back();
                free.pop_back();
                return ring;
            }
        }
        return new StagingRing(device);
    }
    void give(int device, StagingRing* ring) {
        std::lock_guard lock(m_mutex);
        m_free[device].push_back(ring);
    }

private:
    std::mutex m_mutex;
    std::map<int, std::vector<StagingRing*>> m_free;
};

RingPool& pool() {
    static RingPool* p = new RingPool;  // never destroyed, see RingPool
    return *p;
}

// Runs work(w) for w in [0, workers) on workers threads (the caller is worker 0) and rethrows
// the first exception.
template <typename Work>
void runWorkers(int workers, int device, Work&& work) {
    std::vector<std::exception_ptr> errors(static_cast<std::size_t>(workers));
    auto guarded = [&](int w) {
        try {
            if (w > 0) CS_CUDA_CHECK(cudaSetDevice(device));
            work(w);
        } catch (...) {
            errors[std::size_t(w)] = std::current_exception();
        }
    };
    std::vector<std::thread> threads;
    for (int w = 1; w < workers; ++w)
        threads.emplace_back(guarded, w);
    guarded(0);
    for (auto& t : threads)
        t.join();
    for (auto& e : errors)
        if (e) std::rethrow_exception(e);
}

int workersFor(std::size_t chunks) {
    return int(std::min<std::size_t>(chunks, std::size_t(maxWorkers())));
}

// Borrows a ring for one transfer; gives it back only when nothing it queued is in flight.
class Lease {
public:
    explicit Lease(int device) : m_device(device), m_ring(pool().take(device)) {}
    ~Lease() {
        for (const CudaEvent& e : m_ring->done)
            if (cudaEventSynchronize(e.get()) != cudaSuccess) {
                (void)cudaGetLastError();
                return;  // a broken context: leak the ring rather than lend it out busy
            }
        pool().give(m_device, m_ring);
    }
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    StagingRing& operator*() { return *m_ring; }

private:
    int m_device;
    StagingRing* m_ring;
};

}  // namespace

void copyToDeviceStaged(void* device, const void* host, std::size_t bytes, int deviceId,
                        cudaStream_t stream) {
    if (bytes == 0) return;
    Lease lease(deviceId);
    StagingRing& ring = *lease;
    const std::size_t chunks = (bytes + kChunk - 1) / kChunk;
    const int workers = workersFor(chunks);
    auto* dst = static_cast<std::byte*>(device);
    const auto* src = static_cast<const std::byte*>(host);
    runWorkers(workers, deviceId, [&](int w) {
        int s = 0;
        for (std::size_t c = std::size_t(w); c < chunks; c += std::size_t(workers), s ^= 1) {
            const std::size_t offset = c * kChunk, len = std::min(kChunk, bytes - offset);
            // The slot's previous chunk must have left before it is overwritten.
            CS_CUDA_CHECK(cudaEventSynchronize(ring.event(w, s)));
            std::memcpy(ring.slot(w, s), src + offset, len);
            CS_CUDA_CHECK(cudaMemcpyAsync(dst + offset, ring.slot(w, s), len,
                                          cudaMemcpyHostToDevice, stream));
            CS_CUDA_CHECK(cudaEventRecord(ring.event(w, s), stream));
        }
    });
}

void copyToHostStaged(void* host, const void* device, std::size_t bytes, int deviceId,
                      cudaStream_t stream) {
    if (bytes == 0) return;
    Lease lease(deviceId);
    StagingRing& ring = *lease;
    const std::size_t chunks = (bytes + kChunk - 1) / kChunk;
    const int workers = workersFor(chunks);
    auto* dst = static_cast<std::byte*>(host);
    const auto* src = static_cast<const std::byte*>(device);
    runWorkers(workers, deviceId, [&](int w) {
        auto enqueue = [&](std::size_t c, int s) {
            const std::size_t offset = c * kChunk, len = std::min(kChunk, bytes - offset);
            CS_CUDA_CHECK(cudaMemcpyAsync(ring.slot(w, s), src + offset, len,
                                          cudaMemcpyDeviceToHost, stream));
            CS_CUDA_CHECK(cudaEventRecord(ring.event(w, s), stream));
        };
        const std::size_t step = std::size_t(workers);
        std::size_t c = std::size_t(w);
        if (c < chunks) enqueue(c, 0);
        for (int s = 0; c < chunks; c += step, s ^= 1) {
            // Queue the next chunk into the other slot (drained by this thread already), then
            // drain this one while it is in flight.
            if (c + step < chunks) enqueue(c + step, s ^ 1);
            CS_CUDA_CHECK(cudaEventSynchronize(ring.event(w, s)));
            const std::size_t offset = c * kChunk, len = std::min(kChunk, bytes - offset);
            std::memcpy(dst + offset, ring.slot(w, s), len);
        }
    });
}

BlockDownload::BlockDownload(void* host, const void* device, int deviceId, cudaStream_t compute)
    : m_host(static_cast<std::byte*>(host)),
      m_device(static_cast<const std::byte*>(device)),
      m_deviceId(deviceId),
      m_compute(compute) {}

void BlockDownload::add(std::size_t offset, std::size_t bytes) {
    copyPending();
    m_written.record(m_compute);
    m_offset = offset;
    m_bytes = bytes;
}

void BlockDownload::finish() {
    copyPending();
}

void BlockDownload::copyPending() {
    if (m_bytes == 0) return;
    m_written.streamWait(m_copies.get());
    copyToHostStaged(m_host + m_offset, m_device + m_offset, m_bytes, m_deviceId, m_copies.get());
    m_bytes = 0;
}

}  // namespace cs::kernels
