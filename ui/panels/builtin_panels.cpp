// SPDX-License-Identifier: MIT
#include "ui/panels/builtin_panels.h"

#include "ui/panels/dbscan/dbscan_panel.h"
#include "ui/panels/knn/knn_panel.h"
#include "ui/panels/kshape/kshape_panel.h"
#include "ui/panels/rocket/rocket_panel.h"

namespace cs::ui {

std::vector<AlgorithmPanel*> makeBuiltinPanels(JobRunner& runner, PointCloudView& points,
                                               SeriesView& series) {
    return {new DbscanPanel(runner, points), new KnnPanel(runner, points),
            new RocketPanel(runner, series), new KShapePanel(runner, series)};
}

}  // namespace cs::ui
