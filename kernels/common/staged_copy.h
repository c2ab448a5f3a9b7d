// SPDX-License-Identifier: MIT
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "kernels/common/cuda_event.h"
#include "kernels/common/cuda_stream.h"

namespace cs::kernels {

/// Copies bytes from pageable host memory to device memory through page-locked staging memory,
/// ordered on stream: the host copies into one staging chunk while the DMA engine drains the
/// previous one, on up to 4 host threads. Returns once every chunk is queued; the source may be
/// reused then, the destination is ready in stream order. The staging memory is cached per
/// device for the process's life (pinning is slow). Throws CudaError.
/// @code copyToDeviceStaged(d.data(), points.coords.data(), d.bytes(), ctx.device(), s); @endcode
void copyToDeviceStaged(void* device, const void* host, std::size_t bytes, int deviceId,
                        cudaStream_t stream);

/// Copies bytes of device memory (after the work queued on stream) to pageable host memory
/// through the same staging memory; returns when the host memory holds them. Throws CudaError.
/// @code copyToHostStaged(labels.data(), d.data(), d.bytes(), ctx.device(), s); @endcode
void copyToHostStaged(void* host, const void* device, std::size_t bytes, int deviceId,
                      cudaStream_t stream);

/// Downloads a device result in blocks while later blocks are still being computed: queue the
/// work that writes a block on the compute stream, then add() the block. add() first copies the
/// block added before (copyToHostStaged on a stream of its own, so the transfer overlaps the new
/// block's work) and returns when the host holds it; finish() copies the last one. The host
/// memory needs no mapping beforehand: the copy's threads touch it first (in 2 MiB pages where
/// it was reserved on huge pages). Construct it on the device's thread (DeviceScope).
/// @code
/// BlockDownload download(host.data(), features.data(), ctx.device(), s);
/// for (...) { launchBatch(first, count, s); download.add(first * rowBytes, count * rowBytes); }
/// download.finish();
/// @endcode
class BlockDownload {
public:
    BlockDownload(void* host, const void* device, int deviceId, cudaStream_t compute);
    /// Bytes [offset, offset + bytes) of both buffers are written by the work queued on the
    /// compute stream so far.
    void add(std::size_t offset, std::size_t bytes);
    /// Copies the last block added; the host then holds every block.
    void finish();

private:
    void copyPending();

    std::byte* m_host;
    const std::byte* m_device;
    int m_deviceId;
    cudaStream_t m_compute;
    CudaStream m_copies;
    CudaEvent m_written{/*timing=*/false};
    std::size_t m_offset = 0, m_bytes = 0;
};

}  // namespace cs::kernels
