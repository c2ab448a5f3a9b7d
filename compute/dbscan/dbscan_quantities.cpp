// SPDX-License-Identifier: MIT
#include "compute/dbscan/dbscan_quantities.h"

namespace cs {

PointCategories dbscanCategories(std::shared_ptr<const DbscanResult> result) {
    PointCategories c;
    if (!result) return c;
    c.labels = result->labels;
    c.primary = result->isCore;
    c.device = result->device;
    c.owner = std::move(result);
    return c;
}

}  // namespace cs
