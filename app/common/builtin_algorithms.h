// SPDX-License-Identifier: MIT
#pragma once

#include <vector>

#include "compute/core/algorithm_descriptor.h"

namespace cs::app {

/// Every algorithm this build has, by descriptor, in menu order: what `clusterscope --help`
/// lists and the CLI's subcommands are made from.
std::vector<const AlgorithmDescriptor*> builtinAlgorithms();

}  // namespace cs::app
