// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace cs {

/// Base of every error Clusterscope reports to a user; what() is a complete sentence.
class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// Bad input data: names the file, where in it (line or byte offset) and the problem.
class InputError : public Error {
public:
    /// How the location is counted.
    enum class Unit { None, Line, Byte };

    /// @code throw InputError("cloud.ply", InputError::Unit::Byte, 812, "truncated vertex body");
    /// @endcode
    InputError(std::string file, Unit unit, std::uint64_t where, std::string problem);
    /// An error about the file as a whole (empty, unknown format ...).
    InputError(std::string file, std::string problem);

    const std::string& file() const { return m_file; }
    Unit unit() const { return m_unit; }
    std::uint64_t where() const { return m_where; }
    const std::string& problem() const { return m_problem; }

private:
    std::string m_file;
    Unit m_unit = Unit::None;
    std::uint64_t m_where = 0;
    std::string m_problem;
};

/// An error reported by the compute device. Most are failures of the device itself (driver,
/// kernel fault, device lost), as opposed to a limit or bad input: callers may stop using that
/// device and fall back to the CPU backend. One is not: running out of device memory is a limit
/// of the job that asked for too much, and the device stays usable for the next one.
class DeviceError : public Error {
public:
    explicit DeviceError(const std::string& what, bool outOfMemory = false)
        : Error(what), m_outOfMemory(outOfMemory) {}

    /// True when the device ran out of memory (cudaErrorMemoryAllocation, a library's
    /// ALLOC_FAILED): this job's limit, not a fault of the device.
    bool outOfMemory() const { return m_outOfMemory; }

private:
    bool m_outOfMemory = false;
};

/// True when e says the compute device itself failed (a DeviceError other than out of memory):
/// the one case in which an application should stop using that device.
bool isDeviceFault(const std::exception& e);

/// A job stopped at a checkpoint because its JobControl asked it to.
class Cancelled : public Error {
public:
    Cancelled() : Error("cancelled") {}
};

/// A requested backend cannot run here; what() says why (no driver, no device ...).
class BackendUnavailable : public Error {
public:
    using Error::Error;
};

}  // namespace cs
