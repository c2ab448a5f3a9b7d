// SPDX-License-Identifier: MIT
#include "kernels/common/stream_handles.h"

#include <cstdio>
#include <exception>

#include "kernels/common/cuda_error.h"
#include "kernels/common/device_scope.h"

namespace cs::kernels {
namespace {

// Members are built in declaration order, so making the device current has to happen while
// m_device is initialised, before the stream and the handles are created.
int makeDeviceCurrent(int device) {
    CS_CUDA_CHECK(cudaSetDevice(device));
    return device;
}

}  // namespace

StreamHandles::StreamHandles(int device)
    : m_device(makeDeviceCurrent(device)),
      m_stream(),
      m_cublas(m_stream.get()),
      m_cusolver(m_stream.get()) {}

std::size_t StreamHandles::freeMemory() const {
    DeviceScope scope(m_device);
    std::size_t free = 0;
    std::size_t total = 0;
    CS_CUDA_CHECK(cudaMemGetInfo(&free, &total));
    return free;
}

std::optional<std::size_t> StreamHandles::shortOfMemory(std::size_t bytes) const {
    if (bytes < totalMemory() / 8) return std::nullopt;
    const std::size_t free = freeMemory();
    if (bytes > free) return free;
    return std::nullopt;
}

std::size_t StreamHandles::totalMemory() const {
    if (const std::size_t known = m_totalMemory.load(std::memory_order_relaxed)) return known;
    DeviceScope scope(m_device);
    std::size_t free = 0;
    std::size_t total = 0;
    CS_CUDA_CHECK(cudaMemGetInfo(&free, &total));
    m_totalMemory.store(total, std::memory_order_relaxed);
    return total;
}

const CufftPlan& StreamHandles::fftPlan(CufftPlan::Kind kind, long long n, long long batch) {
    const auto key = std::make_tuple(kind, n, batch);
    auto it = m_fftPlans.find(key);
    if (it == m_fftPlans.end()) {
        DeviceScope scope(m_device);
        it = m_fftPlans.emplace(key, CufftPlan(kind, n, batch, m_stream.get())).first;
    }
    return it->second;
}

void StreamHandles::makeCurrent() const {
    CS_CUDA_CHECK(cudaSetDevice(m_device));
}

ScopedGpuStage::ScopedGpuStage(const StreamHandles& context, cs::JobControl& job, std::string name)
    : m_context(context),
      m_job(job),
      m_name(std::move(name)),
      m_uncaught(std::uncaught_exceptions()) {
    m_start.record(m_context.stream());
}

ScopedGpuStage::~ScopedGpuStage() {
    if (m_finished || std::uncaught_exceptions() > m_uncaught) return;
    try {
        finish();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "clusterscope: timing of stage '%s' lost: %s\n", m_name.c_str(),
                     e.what());
    }
}

void ScopedGpuStage::markEnd() {
    m_stop.record(m_context.stream());
    m_ended = true;
}

double ScopedGpuStage::finish() {
    m_finished = true;
    if (!m_ended) markEnd();
    const double ms = elapsedMs(m_start, m_stop);
    m_job.addTiming(m_name, ms);
    return ms;
}

}  // namespace cs::kernels
