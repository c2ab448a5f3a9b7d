// SPDX-License-Identifier: MIT
#include "compute/core/error.h"

namespace cs {
namespace {

std::string describe(const std::string& file, InputError::Unit unit, std::uint64_t where,
                     const std::string& problem) {
    std::string text = file;
    if (unit == InputError::Unit::Line) text += ":" + std::to_string(where);
    if (unit == InputError::Unit::Byte) text += " (byte " + std::to_string(where) + ")";
    return text + ": " + problem;
}

}  // namespace

InputError::InputError(std::string file, Unit unit, std::uint64_t where, std::string problem)
    : Error(describe(file, unit, where, problem)),
      m_file(std::move(file)),
      m_unit(unit),
      m_where(where),
      m_problem(std::move(problem)) {}

InputError::InputError(std::string file, std::string problem)
    : InputError(std::move(file), Unit::None, 0, std::move(problem)) {}

bool isDeviceFault(const std::exception& e) {
    const auto* device = dynamic_cast<const DeviceError*>(&e);
    return device && !device->outOfMemory();
}

}  // namespace cs
