// SPDX-License-Identifier: MIT
#pragma once

#include <functional>
#include <string>

#include "compute/core/error.h"

namespace cs::test {

/// The message of the cs::Error f throws, or "(no error)": for checks that a refusal names
/// the problem.
inline std::string errorOf(const std::function<void()>& f) {
    try {
        f();
    } catch (const cs::Error& e) {
        return e.what();
    }
    return "(no error)";
}

}  // namespace cs::test
