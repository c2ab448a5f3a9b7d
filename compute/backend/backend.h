// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <string>

namespace cs {

/// What a backend runs on, for the status bar, `--json` outputs and benchmarks.
struct BackendInfo {
    std::string name;             ///< "cpu" or "cuda"
    std::string device;           ///< "NVIDIA H200" or the CPU model
    std::uint64_t memoryFree = 0;   ///< bytes free on the device (0 when unknown)
    std::uint64_t memoryTotal = 0;  ///< bytes on the device (0 when unknown)
    int threads = 0;              ///< CPU threads used (CPU backend)
    std::string versions;         ///< driver / runtime / library versions, one line
    /// One line for the status-bar chip: "CUDA · NVIDIA H200 · 139 GB free", "CPU · 16 threads".
    std::string summary() const;
};

/// One interface, two implementations: CpuBackend (always built, the reference and the oracle
/// of the GPU tests) and CudaBackend (kernels/, built with CUDA). Later issues add one virtual
/// per algorithm stage (dbscan, kDistance, knnGraph, kshape, rocket ...), each taking a params
/// struct, input views and a JobControl. Callers never branch on the backend beyond choosing it.
class Backend {
public:
    virtual ~Backend() = default;
    /// Short name used on command lines: "cpu", "cuda".
    virtual std::string name() const = 0;
    /// Device, memory and versions as of now.
    virtual BackendInfo info() const = 0;
};

}  // namespace cs
