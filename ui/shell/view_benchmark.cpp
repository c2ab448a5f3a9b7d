// SPDX-License-Identifier: MIT
#include "ui/shell/view_benchmark.h"

#include <QJsonArray>
#include <algorithm>
#include <chrono>

#include "ui/jobs/job_runner.h"
#include "ui/panels/dbscan/dbscan_panel.h"
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

std::int64_t nowNs() {
    return std::int64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                            std::chrono::steady_clock::now().time_since_epoch())
                            .count());
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

ViewBenchmark::ViewBenchmark(MainWindow& window, QObject* parent)
    : QObject(parent), m_window(window) {}

ViewBenchmark::~ViewBenchmark() {
    disconnectAll();
}

void ViewBenchmark::disconnectAll() {
    for (const auto& c : m_connections)
        QObject::disconnect(c);
    m_connections.clear();
}

void ViewBenchmark::fail(const QString& message) {
    disconnectAll();
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
        const std::int64_t start = nowNs();
        hits += view->pickPoint(at).has_value();
        pickMs.push_back(double(nowNs() - start) / 1e6);
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
    const std::int64_t now = nowNs();
    if (m_frame >= kWarmupFrames) {
        m_drawMs.push_back(view->lastDrawMilliseconds());
        m_intervalMs.push_back(double(now - m_lastFrameNs) / 1e6);
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
    m_report[QStringLiteral("frames")] = frames;
    startChanges();
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
    m_baseEps = panel->params().eps;
    m_report[QStringLiteral("dbscanMinPts")] = panel->params().minPts;
    m_report[QStringLiteral("dbscanEps")] = m_baseEps;
    m_report[QStringLiteral("backend")] = m_window.jobRunner()->backendName();
    m_change = 0;
    m_connections.push_back(
        connect(panel, &DbscanPanel::resultChanged, this, &ViewBenchmark::onResult));
    m_connections.push_back(connect(m_window.pointView(), &PointCloudView::contentDrawn, this,
                                    &ViewBenchmark::onDrawn));
    m_connections.push_back(connect(
        m_window.jobRunner(), &JobRunner::finished, this, [this](const JobOutcome& outcome) {
            if (outcome.kind != QLatin1String("dbscan") || m_change < 2) return;
            m_jobMs[m_change % 2].push_back(outcome.milliseconds);
            for (const auto& stage : outcome.timings)
                m_stageMs[m_change % 2][stage.name].push_back(stage.milliseconds);
        }));
    m_connections.push_back(
        connect(m_window.jobRunner(), &JobRunner::failed, this, [this](const JobOutcome& o) {
            if (o.kind == QLatin1String("dbscan")) fail(tr("DBSCAN failed: %1").arg(o.error));
        }));
    nextChange();
}

void ViewBenchmark::nextChange() {
    const int total = 2 * (kChangesPerPath + 1);
    if (m_change >= total) {
        disconnectAll();
        m_window.pointView()->setInteropAllowed(true);
        m_window.pointView()->setDrawTiming(false);
        QJsonObject changes;
        for (int p = 0; p < 2; ++p) {
            QJsonObject path;
            path[QStringLiteral("totalMs")] = summary(m_totalMs[p]);
            path[QStringLiteral("resultMs")] = summary(m_resultMs[p]);
            path[QStringLiteral("jobMs")] = summary(m_jobMs[p]);
            path[QStringLiteral("resultToPaintMs")] = summary(m_waitPaintMs[p]);
            path[QStringLiteral("paintMs")] = summary(m_paintMs[p]);
            path[QStringLiteral("bufferWriteMs")] = summary(m_uploadMs[p]);
            path[QStringLiteral("paintToSwapMs")] = summary(m_presentMs[p]);
            QJsonObject stages;
            for (const auto& [name, values] : m_stageMs[p])
                stages[QString::fromStdString(name)] = summary(values)[QStringLiteral("median")];
            path[QStringLiteral("jobStageMedianMs")] = stages;
            path[QStringLiteral("colourPath")] = m_pathSeen[p];
            changes[p == 0 ? QStringLiteral("interop") : QStringLiteral("host")] = path;
        }
        m_report[QStringLiteral("paramToScreen")] = changes;
        emit finished(m_report);
        return;
    }
    // Even changes with interop allowed, odd ones forced to the host path; the path switch
    // itself is drawn before the clock starts.
    const bool interop = m_change % 2 == 0;
    PointCloudView* view = m_window.pointView();
    if (view->interopAllowed() != interop) {
        view->setInteropAllowed(interop);
        m_settling = true;
        return;  // onDrawn comes back here
    }
    m_settling = false;
    m_resultNs = -1;
    m_changeStartNs = nowNs();
    // Every change a new eps, a little off the starting one, so that every run computes.
    m_window.dbscanPanel()->setEps(m_baseEps * (1.0 + 0.002 * double(m_change + 1)));
}

void ViewBenchmark::onResult() {
    if (m_settling || m_resultNs >= 0) return;
    m_resultNs = nowNs();
}

void ViewBenchmark::onDrawn() {
    if (m_settling) {
        QTimer::singleShot(0, this, &ViewBenchmark::nextChange);
        return;
    }
    if (m_resultNs < 0) return;  // a frame drawn before the result arrived
    const std::int64_t now = nowNs();
    if (m_change >= 2) {  // the first change of each path is untimed
        const int p = m_change % 2;
        const PointCloudView::FrameTiming& frame = m_window.pointView()->lastFrameTiming();
        m_totalMs[p].push_back(double(now - m_changeStartNs) / 1e6);
        m_resultMs[p].push_back(double(m_resultNs - m_changeStartNs) / 1e6);
        m_waitPaintMs[p].push_back(double(frame.startNs - m_resultNs) / 1e6);
        m_paintMs[p].push_back(double(frame.endNs - frame.startNs) / 1e6);
        m_uploadMs[p].push_back(frame.uploadMs);
        m_presentMs[p].push_back(double(now - frame.endNs) / 1e6);
        m_pathSeen[p] = pathName(m_window.pointView()->colourPath());
    }
    ++m_change;
    m_resultNs = -1;
    QTimer::singleShot(0, this, &ViewBenchmark::nextChange);
}

}  // namespace cs::ui
