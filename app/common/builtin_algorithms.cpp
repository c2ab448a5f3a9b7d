// SPDX-License-Identifier: MIT
#include "app/common/builtin_algorithms.h"

#include "compute/dbscan/dbscan_descriptor.h"
#include "compute/knn/knn_descriptor.h"
#include "compute/kshape/kshape_descriptor.h"
#include "compute/rocket/rocket_descriptor.h"

namespace cs::app {

std::vector<const AlgorithmDescriptor*> builtinAlgorithms() {
    return {&dbscanDescriptor(), &knnDescriptor(), &rocketDescriptor(), &kshapeDescriptor()};
}

}  // namespace cs::app
