// SPDX-License-Identifier: MIT
#pragma once

#include <string>

namespace cs {

/// Data a backend keeps in accelerator memory beside a result (DBSCAN's labels and core flags on
/// the GPU, ...), so that views can draw from it without a copy through host memory. Opaque
/// outside the backend that made it; whoever drops the last reference frees it, from any thread,
/// without waiting for work running on the device.
class DeviceResident {
public:
    virtual ~DeviceResident() = default;
    /// The backend that made it ("cuda"): only that backend's GL interop can read it.
    virtual std::string backend() const = 0;
};

}  // namespace cs
