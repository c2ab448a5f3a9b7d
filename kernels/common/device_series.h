// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "compute/core/device_resident.h"
#include "kernels/common/device_buffer.h"
#include "kernels/common/stream_handles.h"

namespace cs::kernels {

/// A SeriesSet's values and lengths on the device (CudaBackend::keepSeriesResident), laid out
/// as on the host: n x channels x length floats, zero-padded, and n true lengths.
struct DeviceSeries final : cs::DeviceResident {
    std::shared_ptr<StreamHandles> context;  ///< declared first: outlives the buffers
    DeviceBuffer<float> values;
    DeviceBuffer<std::uint32_t> lengths;
    std::size_t n = 0;
    std::size_t channels = 0;
    std::size_t length = 0;
    std::string backend() const override { return "cuda"; }
};

}  // namespace cs::kernels
