// SPDX-License-Identifier: MIT
#pragma once

#include <QJsonObject>
#include <QMetaObject>
#include <QObject>
#include <QTimer>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace cs::ui {

class MainWindow;

/// Measures what a user of the point view feels (`clusterscope --measure OUT.json`):
///  - picks: the GPU pick pass (PointCloudView::pickPoint) at kPicks places across the view,
///    from the click to the picked index on the GUI thread;
///  - frames: the view orbiting continuously, each frame's draw time (glFinish on both sides)
///    and the interval between presented frames;
///  - parameter to screen: from a DBSCAN eps change to the frame that shows its colours, with
///    the colours painted on the GPU through GL interop and uploaded from host memory,
///    alternating on the same data in one run (the host path also pays for painting on the
///    worker and copying the colours).
/// Runs on the GUI thread's event loop; start() returns at once, finished() carries the report.
class ViewBenchmark : public QObject {
    Q_OBJECT
public:
    explicit ViewBenchmark(MainWindow& window, QObject* parent = nullptr);
    ~ViewBenchmark() override;

    /// Frames timed while orbiting, after kWarmupFrames untimed ones.
    static constexpr int kFrames = 240;
    static constexpr int kWarmupFrames = 20;
    /// Parameter changes timed per colour path (after one untimed change each).
    static constexpr int kChangesPerPath = 15;
    /// Picks timed (a kPickGrid x kPickGrid grid over the view's middle, after one untimed).
    static constexpr int kPickGrid = 5;
    static constexpr int kPicks = kPickGrid * kPickGrid;

    void start();

signals:
    /// The report (JSON object: points, renderer, backend, frames, paramToScreen).
    void finished(const QJsonObject& report);
    /// Why nothing could be measured (no points, no DBSCAN, a failed run).
    void failed(const QString& message);

private:
    void measurePicks();
    void startFrames();
    void onFrame();
    void startChanges();
    void nextChange();
    void onResult();
    void onDrawn();
    void fail(const QString& message);
    void disconnectAll();

    MainWindow& m_window;
    QJsonObject m_report;
    std::vector<QMetaObject::Connection> m_connections;

    int m_frame = 0;
    std::int64_t m_lastFrameNs = 0;
    std::vector<double> m_drawMs;
    std::vector<double> m_intervalMs;

    int m_change = 0;  // index over both paths, interleaved
    double m_baseEps = 0.0;
    std::int64_t m_changeStartNs = 0;
    std::int64_t m_resultNs = -1;
    bool m_settling = false;            // waiting for a path switch to reach the screen
    std::vector<double> m_totalMs[2];   // 0 interop, 1 host
    std::vector<double> m_resultMs[2];  // change to result on the GUI thread
    std::vector<double> m_jobMs[2];     // the job itself, on the worker
    // Where the rest goes: result to the frame's paint, the paint, the paint to the swap.
    std::vector<double> m_waitPaintMs[2];
    std::vector<double> m_paintMs[2];
    std::vector<double> m_uploadMs[2];
    std::vector<double> m_presentMs[2];
    std::map<std::string, std::vector<double>> m_stageMs[2];  // the job's stages
    QString m_pathSeen[2];
};

}  // namespace cs::ui
