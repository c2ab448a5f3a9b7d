// SPDX-License-Identifier: MIT
#include "compute/core/job_cost.h"

#include <cstdio>

namespace cs {

std::string JobCost::text() const {
    char amount[32];
    std::snprintf(amount, sizeof amount, "%.1e", evaluations);
    return "about " + formula + " = " + amount + " distance evaluations, this may take minutes";
}

}  // namespace cs
