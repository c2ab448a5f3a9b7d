// SPDX-License-Identifier: MIT
#include "ui/shell/view_benchmark.h"

#include <QCoreApplication>
#include <QEvent>
#include <QJsonArray>
#include <QSlider>
#include <algorithm>
#include <cmath>

#include "ui/jobs/job_runner.h"
#include "ui/panels/dbscan/cluster_colours.h"
#include "ui/panels/dbscan/dbscan_panel.h"
#include "ui/panels/knn/knn_panel.h"
#include "ui/shell/logger.h"
#include "ui/shell/main_window.h"
#include "ui/views/points/point_cloud_view.h"

namespace cs::ui {
namespace {

QJsonObject summary(std::vector<double> values) {
    QJsonObject o;
    o[QStringLiteral("count")] = int(values.size());
    if (values.empty()) return o;
    std::sort(values.begin(), values.end());
    auto at = [&](double q) {
        return values[std::min(values.size() - 1,
                               std::size_t(q * double(values.size() - 1) + 0.5))];
    };
    o[QStringLiteral("median")] = at(0.5);
    o[QStringLiteral("p10")] = at(0.1);
    o[QStringLiteral("p90")] = at(0.9);
    o[QStringLiteral("min")] = values.front();
    o[QStringLiteral("max")] = values.back();
    return o;
}

double msBetween(std::int64_t fromNs, std::int64_t toNs) {
    return double(toNs - fromNs) / 1e6;
}

QString pathName(PointCloudView::UploadPath path) {
    switch (path) {
        case PointCloudView::UploadPath::Interop:
            return QStringLiteral("interop");
        case PointCloudView::UploadPath::HostUpload:
            return QStringLiteral("host");
        case PointCloudView::UploadPath::None:
            break;
    }
    return QStringLiteral("none");
}

}  // namespace

QJsonObject ViewBenchmark::Stages::json() const {
    QJsonObject o;
    o[QStringLiteral("totalMs")] = summary(total);
    o[QStringLiteral("resultMs")] = summary(result);
    o[QStringLiteral("changeToJobStartMs")] = summary(changeToStart);
    o[QStringLiteral("jobMs")] = summary(job);
    o[QStringLiteral("jobToDeliveredMs")] = summary(jobToDelivered);
    o[QStringLiteral("deliveredToShownMs")] = summary(deliveredToShown);
    o[QStringLiteral("resultToPaintMs")] = summary(shownToPaint);
    o[QStringLiteral("resultToUpdateRequestMs")] = summary(shownToUpdate);
    o[QStringLiteral("updateRequestToPaintMs")] = summary(updateToPaint);
    o[QStringLiteral("paintMs")] = summary(paint);
    o[QStringLiteral("bufferWriteMs")] = summary(bufferWrite);
    o[QStringLiteral("paintToSwapMs")] = summary(paintToSwap);
    QJsonObject stages;
    for (const auto& [name, values] : jobStages)
        stages[QString::fromStdString(name)] = summary(values)[QStringLiteral("median")];
    o[QStringLiteral("jobStageMedianMs")] = stages;
    o[QStringLiteral("colourPath")] = colourPath;
    if (!edgeRenderer.isEmpty()) o[QStringLiteral("edgeRenderer")] = edgeRenderer;
    return o;
}

ViewBenchmark::ViewBenchmark(MainWindow& window, QObject* parent)
    : QObject(parent), m_window(window) {
    m_watchdog.setSingleShot(true);
    m_watchdog.setInterval(kStepTimeoutMs);
    connect(&m_watchdog, &QTimer::timeout, this,
            [this] { fail(tr("nothing reached the screen in %1 s").arg(kStepTimeoutMs / 1000)); });
    m_dragTimer.setInterval(kDragIntervalMs);
    connect(&m_dragTimer, &QTimer::timeout, this, &ViewBenchmark::dragStep);
    QCoreApplication::instance()->installEventFilter(this);
}

ViewBenchmark::~ViewBenchmark() {
    disconnectAll();
}

bool ViewBenchmark::eventFilter(QObject* watched, QEvent* event) {
    // Installed last, this filter sees a request before FrameHold may hold it: the last one
    // after the result is the one that painted.
    if (event->type() == QEvent::UpdateRequest && watched == &m_window && m_shownNs >= 0)
        m_updateNs = steadyNowNs();
    return false;
}

void ViewBenchmark::disconnectAll() {
    for (const auto& c : m_connections)
        QObject::disconnect(c);
    m_connections.clear();
}

void ViewBenchmark::fail(const QString& message) {
    disconnectAll();
    m_watchdog.stop();
    m_dragTimer.stop();
    PointCloudView* view = m_window.pointView();
    view->setDrawTiming(false);
    view->setInteropAllowed(true);
    emit failed(message);
}

void ViewBenchmark::start() {
    PointCloudView* view = m_window.pointView();
    if (view->pointCount() == 0) {
        QTimer::singleShot(0, this, [this] { fail(tr("--measure needs points to draw")); });
        return;
    }
    m_report[QStringLiteral("points")] = double(view->pointCount());
    m_report[QStringLiteral("glRenderer")] = view->glInfo().renderer;
    m_report[QStringLiteral("glVersion")] = view->glInfo().version;
    m_report[QStringLiteral("viewPixels")] =
        QJsonArray{int(view->width() * view->devicePixelRatioF()),
                   int(view->height() * view->devicePixelRatioF())};
    measurePicks();
    startFrames();
}

void ViewBenchmark::measurePicks() {
    PointCloudView* view = m_window.pointView();
    std::vector<double> pickMs;
    int hits = 0;
    view->pickPoint(QPointF(view->width() / 2.0, view->height() / 2.0));  // builds the target
    for (int i = 0; i < kPicks; ++i) {
        // The middle half of the view, where the data is.
        const QPointF at(view->width() * (0.25 + 0.5 * (i % kPickGrid) / (kPickGrid - 1)),
                         view->height() * (0.25 + 0.5 * (i / kPickGrid) / (kPickGrid - 1)));
        const std::int64_t start = steadyNowNs();
        hits += view->pickPoint(at).has_value();
        pickMs.push_back(msBetween(start, steadyNowNs()));
    }
    QJsonObject picks = summary(pickMs);
    picks[QStringLiteral("hits")] = hits;
    m_report[QStringLiteral("pickMs")] = picks;
    logInfo(tr("measured: pick (GPU pass and read-back) median %1 ms, max %2 ms over %3 picks, "
               "%4 on a point")
                .arg(picks[QStringLiteral("median")].toDouble(), 0, 'f', 2)
                .arg(picks[QStringLiteral("max")].toDouble(), 0, 'f', 2)
                .arg(kPicks)
                .arg(hits));
}

void ViewBenchmark::startFrames() {
    PointCloudView* view = m_window.pointView();
    view->setDrawTiming(true);
    m_frame = 0;
    m_connections.push_back(
        connect(view, &QOpenGLWidget::frameSwapped, this, &ViewBenchmark::onFrame));
    view->orbit(1.5f, 0.0f);
}

void ViewBenchmark::onFrame() {
    PointCloudView* view = m_window.pointView();
    const std::int64_t now = steadyNowNs();
    if (m_frame >= kWarmupFrames) {
        m_drawMs.push_back(view->lastDrawMilliseconds());
        m_intervalMs.push_back(msBetween(m_lastFrameNs, now));
        m_pointsDrawn.push_back(double(view->lastDrawnPointCount()));
    }
    m_lastFrameNs = now;
    if (++m_frame < kWarmupFrames + kFrames + 1) {
        view->orbit(1.5f, 0.0f);  // the next frame, as a drag would ask for it
        return;
    }
    disconnectAll();
    m_intervalMs.erase(m_intervalMs.begin());  // the first interval spans the warm-up's end
    QJsonObject frames;
    frames[QStringLiteral("drawMs")] = summary(m_drawMs);
    frames[QStringLiteral("intervalMs")] = summary(m_intervalMs);
    std::vector<double> sorted = m_drawMs;
    std::sort(sorted.begin(), sorted.end());
    frames[QStringLiteral("fpsByDrawTime")] =
        sorted.empty() || sorted[sorted.size() / 2] <= 0 ? 0.0 : 1000.0 / sorted[sorted.size() / 2];
    frames[QStringLiteral("pointsDrawnMoving")] = summary(m_pointsDrawn);
    frames[QStringLiteral("lodBudget")] = double(view->lodBudget());
    // Who drew the last moving frame: "splat" (CUDA) or "gl".
    frames[QStringLiteral("pointRenderer")] =
        view->lastFrameSplatted() ? QStringLiteral("splat") : QStringLiteral("gl");
    m_report[QStringLiteral("frames")] = frames;
    afterFrames();
}

void ViewBenchmark::afterFrames() {
    // The first frame after the camera stopped draws every point again.
    PointCloudView* view = m_window.pointView();
    m_connections.push_back(connect(view, &QOpenGLWidget::frameSwapped, this, [this, view] {
        if (view->isCameraMoving()) return;
        disconnectAll();
        QJsonObject frames = m_report[QStringLiteral("frames")].toObject();
        frames[QStringLiteral("pointsDrawnAtRest")] = double(view->lastDrawnPointCount());
        m_report[QStringLiteral("frames")] = frames;
        QTimer::singleShot(0, this, &ViewBenchmark::startChanges);
    }));
    if (!view->isCameraMoving()) view->update();
}

void ViewBenchmark::startChanges() {
    DbscanPanel* panel = m_window.dbscanPanel();
    if (!panel->hasClusters()) {
        // Measured from a clustering on screen: the first run is untimed.
        m_connections.push_back(connect(panel, &DbscanPanel::resultChanged, this, [this] {
            disconnectAll();
            startChanges();
        }));
        panel->run();
        return;
    }
    panel->showClusters();
    m_report[QStringLiteral("dbscanMinPts")] = panel->params().minPts;
    m_report[QStringLiteral("dbscanEps")] = panel->params().eps;
    m_report[QStringLiteral("backend")] = m_window.jobRunner()->backendName();
    planChanges();
    connectSteps();
    m_step = 0;
    nextStep();
}

void ViewBenchmark::connectSteps() {
    DbscanPanel* panel = m_window.dbscanPanel();
    KnnPanel* knn = m_window.knnPanel();
    m_window.pointView()->setDrawTiming(true);
    for (AlgorithmPanel* p :
         {static_cast<AlgorithmPanel*>(panel), static_cast<AlgorithmPanel*>(knn)})
        m_connections.push_back(
            connect(p, &AlgorithmPanel::resultChanged, this, [this, p] { onResult(p); }));
    m_connections.push_back(connect(m_window.pointView(), &PointCloudView::contentDrawn, this,
                                    &ViewBenchmark::onDrawn));
    // Connected after the panels: a result is shown before this sees its outcome.
    m_connections.push_back(
        connect(m_window.jobRunner(), &JobRunner::finished, this, &ViewBenchmark::onJobFinished));
    m_connections.push_back(
        connect(m_window.jobRunner(), &JobRunner::failed, this, [this](const JobOutcome& o) {
            if (m_step < m_steps.size() && o.kind == m_steps[m_step].panel->kind())
                fail(tr("%1 failed: %2").arg(o.kind, o.error));
        }));
}

void ViewBenchmark::planChanges() {
    DbscanPanel* dbscan = m_window.dbscanPanel();
    const double eps = dbscan->params().eps;
    const int minPts = dbscan->params().minPts;
    m_seriesNames = {QStringLiteral("interop"), QStringLiteral("host"), QStringLiteral("minPts")};
    m_series.assign(3, {});
    // eps: the changes with interop allowed, then those forced to the host path; the first of
    // each untimed. Each path on its own, as a user sees it: alternated, a host step rewrote the
    // GL colour buffer from host memory just before each interop step, whose paint then took 12
    // to 49 ms instead of 3 in some runs at 10M and 30M points on the H200. Every change a new
    // eps, a little off the starting one, so every run computes.
    const int perPath = kChangesPerPath + 1;
    for (int i = 0; i < 2 * perPath; ++i) {
        const bool interop = i < perPath;
        m_steps.push_back({i % perPath == 0 ? -1 : (interop ? 0 : 1), interop, dbscan,
                           [dbscan, eps, i] { dbscan->setEps(eps * (1.0 + 0.002 * (i + 1))); }});
    }
    m_steps.push_back({-1, true, dbscan, [dbscan, eps] { dbscan->setEps(eps); }});
    // MinPts: one up and two up in turn, then back.
    for (int i = 0; i < kChangesPerPath + 1; ++i)
        m_steps.push_back({i < 1 ? -1 : 2, true, dbscan,
                           [dbscan, minPts, i] { dbscan->setMinPts(minPts + 1 + i % 2); }});
    m_steps.push_back({-1, true, dbscan, [dbscan, minPts] { dbscan->setMinPts(minPts); }});
}

bool ViewBenchmark::planKnnChanges() {
    m_steps.clear();
    // k of the kNN graph, edges included: on a graph on screen, or one made here where that is
    // cheap (an accelerator, or few points).
    KnnPanel* knn = m_window.knnPanel();
    const std::size_t n = m_window.pointView()->pointCount();
    const bool onCpu = m_window.jobRunner()->backendName() == QLatin1String("cpu");
    if (!knn->hasResult() && n > (onCpu ? kKnnStartLimit : kKnnStartLimitAccelerated)) {
        m_knnNote = tr("no kNN graph on screen, and %1 points are too many to make one for this "
                       "on %2 (add --run knn)")
                        .arg(n)
                        .arg(m_window.jobRunner()->backendName());
        return false;
    }
    m_seriesNames.push_back(QStringLiteral("knnK"));
    m_series.emplace_back();
    if (!knn->hasResult()) m_steps.push_back({-1, true, knn, [knn] { knn->run(); }});
    for (int i = 0; i < kChangesPerPath + 1; ++i)
        m_steps.push_back({i < 1 ? -1 : 3, true, knn, [knn, i] {
                               const int k = knn->params().k;
                               knn->setK(i % 2 == 0 ? k + 1 : k - 1);
                           }});
    return true;
}

void ViewBenchmark::nextStep() {
    if (m_step >= m_steps.size()) {
        stepsDone();
        return;
    }
    const Step& step = m_steps[m_step];
    PointCloudView* view = m_window.pointView();
    // The path switch itself is drawn before the clock starts.
    if (view->interopAllowed() != step.interop) {
        view->setInteropAllowed(step.interop);
        m_settling = true;
        return;  // onDrawn comes back here
    }
    m_settling = false;
    m_shownNs = -1;
    m_startedNs = m_endedNs = m_deliveredNs = 0;
    m_jobMs = 0.0;
    m_jobStages.clear();
    m_watchdog.start();
    m_changeNs = steadyNowNs();
    step.change();
}

void ViewBenchmark::onResult(AlgorithmPanel* panel) {
    if (m_settling || m_step >= m_steps.size() || panel != m_steps[m_step].panel || m_shownNs >= 0)
        return;
    m_shownNs = steadyNowNs();
    m_updateNs = -1;
}

void ViewBenchmark::onJobFinished(const JobOutcome& outcome) {
    if (m_step >= m_steps.size() || outcome.kind != m_steps[m_step].panel->kind() ||
        m_shownNs < 0 || m_deliveredNs != 0)
        return;
    m_startedNs = outcome.startedNs;
    m_endedNs = outcome.endedNs;
    m_deliveredNs = outcome.deliveredNs;
    m_jobMs = outcome.milliseconds;
    for (const auto& stage : outcome.timings)
        m_jobStages[stage.name] += stage.milliseconds;
}

void ViewBenchmark::onDrawn() {
    if (m_settling) {
        QTimer::singleShot(0, this, &ViewBenchmark::nextStep);
        return;
    }
    if (m_step >= m_steps.size() || m_shownNs < 0) return;  // drawn before the result came
    const std::int64_t now = steadyNowNs();
    const Step& step = m_steps[m_step];
    if (step.series >= 0) {
        Stages& s = m_series[std::size_t(step.series)];
        const PointCloudView* view = m_window.pointView();
        const PointCloudView::FrameTiming& frame = view->lastFrameTiming();
        s.total.push_back(msBetween(m_changeNs, now));
        s.result.push_back(msBetween(m_changeNs, m_shownNs));
        s.changeToStart.push_back(msBetween(m_changeNs, m_startedNs));
        s.job.push_back(m_jobMs);
        s.jobToDelivered.push_back(msBetween(m_endedNs, m_deliveredNs));
        s.deliveredToShown.push_back(msBetween(m_deliveredNs, m_shownNs));
        s.shownToPaint.push_back(msBetween(m_shownNs, frame.startNs));
        // No request seen: the paint came without one (the whole wait is the event loop's).
        const std::int64_t updateNs =
            m_updateNs >= 0 && m_updateNs <= frame.startNs ? m_updateNs : frame.startNs;
        s.shownToUpdate.push_back(msBetween(m_shownNs, updateNs));
        s.updateToPaint.push_back(msBetween(updateNs, frame.startNs));
        s.paint.push_back(msBetween(frame.startNs, frame.endNs));
        s.bufferWrite.push_back(frame.uploadMs);
        s.paintToSwap.push_back(msBetween(frame.endNs, now));
        for (const auto& [name, ms] : m_jobStages)
            s.jobStages[name].push_back(ms);
        s.colourPath =
            pathName(step.panel == m_window.knnPanel() ? view->edgePath() : view->colourPath());
        if (step.panel == m_window.knnPanel())
            s.edgeRenderer =
                view->lastFrameEdgesSplatted() ? QStringLiteral("splat") : QStringLiteral("gl");
    }
    ++m_step;
    m_shownNs = -1;
    QTimer::singleShot(0, this, &ViewBenchmark::nextStep);
}

void ViewBenchmark::stepsDone() {
    disconnectAll();
    m_watchdog.stop();
    m_window.pointView()->setInteropAllowed(true);
    // The drag before the kNN series: a graph made for that would draw its edges in the drag.
    if (!m_dragDone) {
        startDrag();
        return;
    }
    finishReport();
}

void ViewBenchmark::finishReport() {
    m_window.pointView()->setDrawTiming(false);
    QJsonObject changes;
    for (std::size_t s = 0; s < m_series.size(); ++s)
        changes[m_seriesNames[s]] = m_series[s].json();
    if (!m_knnNote.isEmpty())
        changes[QStringLiteral("knnK")] = QJsonObject{{QStringLiteral("skipped"), m_knnNote}};
    m_report[QStringLiteral("paramToScreen")] = changes;
    emit finished(m_report);
}

void ViewBenchmark::startDrag() {
    DbscanPanel* panel = m_window.dbscanPanel();
    PointCloudView* view = m_window.pointView();
    m_window.pointView()->setDrawTiming(false);  // as a user's frames
    const double eps = panel->params().eps;
    QSlider* slider = panel->epsSlider();
    int from = panel->sliderPosition(eps / 1.5);
    int to = std::min(slider->maximum(), std::max(panel->sliderPosition(eps * 1.5), from + 49));
    from = std::max(slider->minimum(), std::min(from, to - 49));
    m_connections.push_back(connect(panel, &DbscanPanel::resultChanged, this, [this, panel] {
        const double landed = panel->lastRun()->params.eps;
        m_dragLanded.push_back(landed);
        // Stale: an older position's result after a newer one's, or anything after the last's.
        const auto it = std::find(m_dragAsked.begin() + std::ptrdiff_t(m_dragLandedAt),
                                  m_dragAsked.end(), landed);
        if (it == m_dragAsked.end() || m_dragFinalShownNs >= 0) {
            ++m_dragStale;
            return;
        }
        m_dragLandedAt = std::size_t(it - m_dragAsked.begin());
        if (!m_dragTimer.isActive() && m_dragAsked.size() == std::size_t(kDragPositions) &&
            m_dragLandedAt + 1 == m_dragAsked.size())
            m_dragFinalShownNs = steadyNowNs();
    }));
    m_connections.push_back(connect(view, &PointCloudView::contentDrawn, this, [this] {
        if (m_dragFinalShownNs < 0 || m_dragFinalDrawnNs >= 0) return;
        m_dragFinalDrawnNs = steadyNowNs();
        // A stale result still in flight would land within this.
        QTimer::singleShot(300, this, &ViewBenchmark::finishDrag);
    }));
    m_dragAsked.clear();
    m_watchdog.start();
    slider->setSliderDown(true);
    // Positions from..to, evenly, one a frame.
    m_dragTimer.setProperty("from", from);
    m_dragTimer.setProperty("to", to);
    m_dragTimer.start();
}

void ViewBenchmark::dragStep() {
    DbscanPanel* panel = m_window.dbscanPanel();
    QSlider* slider = panel->epsSlider();
    const int from = m_dragTimer.property("from").toInt();
    const int to = m_dragTimer.property("to").toInt();
    const int i = int(m_dragAsked.size());
    slider->setSliderPosition(from + (to - from) * i / (kDragPositions - 1));
    m_dragAsked.push_back(panel->params().eps);
    if (i + 1 < kDragPositions) return;
    m_dragTimer.stop();
    slider->setSliderDown(false);
    m_dragLastNs = steadyNowNs();
    // The last position's result may have landed already (the same eps as a result before it).
    const auto run = panel->lastRun();
    if (!panel->isBusy() && run && run->params.eps == m_dragAsked.back()) {
        m_dragFinalShownNs = m_dragLastNs;
        if (m_window.pointView()->isContentDrawn()) {
            m_dragFinalDrawnNs = m_dragLastNs;
            QTimer::singleShot(300, this, &ViewBenchmark::finishDrag);
        }
    }
}

void ViewBenchmark::finishDrag() {
    disconnectAll();
    m_watchdog.stop();
    DbscanPanel* panel = m_window.dbscanPanel();
    PointCloudView* view = m_window.pointView();
    const auto run = panel->lastRun();
    const bool sameEps = run && run->params.eps == m_dragAsked.back();
    const bool coloursMatch =
        sameEps &&
        coloursShowRun(view->readColourBuffer(), run->result.labels, run->slotOf, run->slotColours);
    QJsonObject drag;
    drag[QStringLiteral("positions")] = int(m_dragAsked.size());
    drag[QStringLiteral("intervalMs")] = kDragIntervalMs;
    drag[QStringLiteral("landed")] = int(m_dragLanded.size());
    drag[QStringLiteral("stale")] = m_dragStale;
    drag[QStringLiteral("lastToShownMs")] = msBetween(m_dragLastNs, m_dragFinalShownNs);
    drag[QStringLiteral("lastToScreenMs")] = msBetween(m_dragLastNs, m_dragFinalDrawnNs);
    drag[QStringLiteral("finalEps")] = m_dragAsked.back();
    drag[QStringLiteral("finalMatches")] = coloursMatch;
    m_report[QStringLiteral("drag")] = drag;
    logInfo(tr("measured: eps drag of %1 positions, %2 results landed, the last on screen %3 ms "
               "after the last move, %4 stale, final colours %5")
                .arg(m_dragAsked.size())
                .arg(m_dragLanded.size())
                .arg(drag[QStringLiteral("lastToScreenMs")].toDouble(), 0, 'f', 1)
                .arg(m_dragStale)
                .arg(coloursMatch ? tr("match") : tr("DO NOT match")));
    m_dragDone = true;
    if (!planKnnChanges()) {
        finishReport();
        return;
    }
    connectSteps();
    m_step = 0;
    nextStep();
}

}  // namespace cs::ui
