// SPDX-License-Identifier: MIT
#pragma once

#include <memory>

#include "compute/core/point_quantities.h"
#include "compute/dbscan/dbscan.h"

namespace cs {

/// A DBSCAN result as the point view draws it: the clusters as categories (noise: none), core
/// points primary, border points secondary; on the device too when the result left its labels
/// there. The categories keep the result alive.
/// @code view.setCategories(cs::dbscanCategories(result), paint, legend); @endcode
PointCategories dbscanCategories(std::shared_ptr<const DbscanResult> result);

}  // namespace cs
