// SPDX-License-Identifier: MIT
#pragma once

#include <vector>

namespace cs::ui {

class AlgorithmPanel;
class JobRunner;
class PointCloudView;
class SeriesView;

/// Every algorithm panel of this build, in menu order: the one list a new method's panel joins
/// (the main window docks, registers and wires each the same way).
std::vector<AlgorithmPanel*> makeBuiltinPanels(JobRunner& runner, PointCloudView& points,
                                               SeriesView& series);

}  // namespace cs::ui
