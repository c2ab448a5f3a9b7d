// SPDX-License-Identifier: MIT
#pragma once

#include <QJsonObject>
#include <QMetaObject>
#include <QObject>
#include <QTimer>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace cs::ui {

class AlgorithmPanel;
class MainWindow;
struct JobOutcome;

/// Measures what a user of the point view feels (`clusterscope --measure OUT.json`):
///  - picks: the GPU pick pass (PointCloudView::pickPoint) at kPicks places across the view,
///    from the click to the picked index on the GUI thread;
///  - frames: the view orbiting continuously, each frame's draw time (glFinish on both sides),
///    the interval between presented frames and the points drawn (the level of detail's
///    sample while moving, all once the camera stops);
///  - parameter to screen: from a change to the frame that shows it, stage by stage (change to
///    job start on the worker, the job, the hop to the GUI thread, the panel showing it, the
///    wait for the paint, the paint, paint to swap): DBSCAN eps with the colours painted through
///    GL interop and uploaded from host memory, alternating on the same data; DBSCAN MinPts;
///    the kNN graph's k (edges included) where a graph is on screen or cheap to make;
///  - drag: the eps slider dragged through kDragPositions at frame rate, as a user does: how
///    many results landed, the last position's latency to the screen, and whether the final
///    colours show the final eps's clustering with no stale result landing after it.
/// Runs on the GUI thread's event loop; start() returns at once, finished() carries the report.
class ViewBenchmark : public QObject {
    Q_OBJECT
public:
    explicit ViewBenchmark(MainWindow& window, QObject* parent = nullptr);
    ~ViewBenchmark() override;

    /// Frames timed while orbiting, after kWarmupFrames untimed ones.
    static constexpr int kFrames = 240;
    static constexpr int kWarmupFrames = 20;
    /// Parameter changes timed per series (after one untimed change each).
    static constexpr int kChangesPerPath = 15;
    /// Picks timed (a kPickGrid x kPickGrid grid over the view's middle, after one untimed).
    static constexpr int kPickGrid = 5;
    static constexpr int kPicks = kPickGrid * kPickGrid;
    /// Slider positions of the scripted drag, one every kDragIntervalMs.
    static constexpr int kDragPositions = 50;
    static constexpr int kDragIntervalMs = 16;
    /// Above this many points the kNN graph is not computed for the k series on the CPU (a
    /// graph on screen is measured at any size); the k series runs after the drag.
    static constexpr std::size_t kKnnStartLimit = 200'000;
    /// The same on an accelerator (the goal for k is at 1M points).
    static constexpr std::size_t kKnnStartLimitAccelerated = 2'000'000;
    /// A change with nothing on screen after this long fails the measurement.
    static constexpr int kStepTimeoutMs = 300'000;

    void start();

signals:
    /// The report (JSON object: points, renderer, backend, pickMs, frames, paramToScreen,
    /// drag).
    void finished(const QJsonObject& report);
    /// Why nothing could be measured (no points, no DBSCAN, a failed run).
    void failed(const QString& message);

private:
    /// Where one change's time went, per series.
    struct Stages {
        std::vector<double> total, result, changeToStart, job, jobToDelivered, deliveredToShown,
            shownToPaint, shownToUpdate, updateToPaint, paint, bufferWrite, paintToSwap;
        std::map<std::string, std::vector<double>> jobStages;
        QString colourPath;
        QString edgeRenderer;  // the kNN series: "splat" or "gl", who drew the last edges
        QJsonObject json() const;
    };
    /// One parameter change: its panel's result must reach the screen before the next.
    struct Step {
        int series = -1;  // index into m_series; -1: untimed
        bool interop = true;
        AlgorithmPanel* panel = nullptr;
        std::function<void()> change;
    };

    void measurePicks();
    void startFrames();
    void onFrame();
    void afterFrames();
    void startChanges();
    void planChanges();
    bool planKnnChanges();
    void connectSteps();
    void nextStep();
    void onJobFinished(const JobOutcome& outcome);
    void onResult(AlgorithmPanel* panel);
    void onDrawn();
    void stepsDone();
    void finishReport();
    void startDrag();
    void dragStep();
    void finishDrag();
    void fail(const QString& message);
    void disconnectAll();
    /// Stamps the window's update requests (m_updateNs): the wait for the paint splits into the
    /// event loop's turn and the window's other widgets painted before the view.
    bool eventFilter(QObject* watched, QEvent* event) override;

    MainWindow& m_window;
    QJsonObject m_report;
    std::vector<QMetaObject::Connection> m_connections;

    int m_frame = 0;
    std::int64_t m_lastFrameNs = 0;
    std::vector<double> m_drawMs;
    std::vector<double> m_intervalMs;
    std::vector<double> m_pointsDrawn;

    std::vector<QString> m_seriesNames;
    std::vector<Stages> m_series;
    std::vector<Step> m_steps;
    std::size_t m_step = 0;
    bool m_settling = false;  // waiting for a colour path switch to reach the screen
    std::int64_t m_changeNs = 0;
    std::int64_t m_shownNs = -1;
    std::int64_t m_updateNs = -1;  // the last update request the window took after m_shownNs
    std::int64_t m_startedNs = 0, m_endedNs = 0, m_deliveredNs = 0;
    double m_jobMs = 0.0;
    std::map<std::string, double> m_jobStages;
    QString m_knnNote;
    QTimer m_watchdog;

    // The drag.
    bool m_dragDone = false;
    std::vector<double> m_dragAsked;  // eps per position, as the panel runs it
    std::vector<double> m_dragLanded;
    std::size_t m_dragLandedAt = 0;  // position index of the newest result landed
    int m_dragStale = 0;
    std::int64_t m_dragLastNs = 0;         // the last position set
    std::int64_t m_dragFinalShownNs = -1;  // its result shown
    std::int64_t m_dragFinalDrawnNs = -1;  // and drawn
    QTimer m_dragTimer;
};

}  // namespace cs::ui
