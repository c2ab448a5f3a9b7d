// SPDX-License-Identifier: MIT
#pragma once

#include <QObject>
#include <QString>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>

#include "compute/core/job_control.h"
#include "compute/core/point_set.h"
#include "compute/core/series_set.h"
#include "compute/io/dataset.h"

namespace cs {
class Backend;
}

namespace cs::ui {

/// A dataset that finished loading: points or series (one of the two is set).
struct LoadedDataset {
    std::shared_ptr<const PointSet> points;
    std::shared_ptr<const SeriesSet> series;
    QString name;                            ///< for titles: the file name, or "Demo points" ...
    QString path;                            ///< the file, or empty for demo data
    io::DataKind kind = io::DataKind::Auto;  ///< the kind it was opened as (recent files)
    QString contentHash;   ///< io::fileContentHash of the file as read (sessions), or empty
    double seconds = 0.0;  ///< wall time of the load
    std::uint64_t generation = 0;
};

/// Loads files and generates demo data on worker threads (QtConcurrent), never blocking the
/// GUI thread. The newest request wins: older file loads still running are cancelled (they stop
/// within a chunk of the file or a few thousand lines, cs::io::ReadScope) and their results are
/// dropped. File loads report their progress in activity(). Destroying the loader cancels what
/// runs and waits only for that. Signals are emitted on the loader's (GUI) thread.
/// @code
/// connect(&loader, &DatasetLoader::loaded, this, [](const LoadedDataset& d) { ... });
/// loader.loadFile("bunny.pcd");
/// @endcode
class DatasetLoader : public QObject {
    Q_OBJECT
public:
    explicit DatasetLoader(QObject* parent = nullptr);
    ~DatasetLoader() override;

    /// Reads path as kind (Auto: cs::io::guessKind). With expectedHash (a session's), a file whose
    /// content hash differs fails before it is read. Returns the request's generation.
    std::uint64_t loadFile(const QString& path, io::DataKind kind = io::DataKind::Auto,
                           const QString& expectedHash = {});
    /// Where what a reader derives from the data is computed (a sparse set's 3-D view,
    /// Backend::sparseView): source is called on the worker thread of each load that needs it.
    /// Without one, on the host.
    /// @code loader.setViewBackend([] { return cs::backendRegistry().get("auto"); }); @endcode
    void setViewBackend(std::function<std::shared_ptr<Backend>()> source);
    /// Generates n demo points (cs::demo::makeDemoPoints with a fixed seed).
    std::uint64_t loadDemoPoints(std::size_t n);
    /// Generates the demo time-series set.
    std::uint64_t loadDemoSeries();

    /// True while any request is still running (superseded ones included).
    bool isBusy() const { return m_running > 0; }
    /// What the newest running request is doing ("Loading bunny.pcd…"), for the status bar.
    QString activity() const { return m_activity; }

    /// The seed of the demo data, fixed so that every start shows the same scene.
    static constexpr std::uint64_t kDemoSeed = 42;

signals:
    /// The newest request finished.
    void loaded(const cs::ui::LoadedDataset& dataset);
    /// The newest request failed; message is complete (names the file and the problem).
    void failed(const QString& message, const QString& path);
    /// Busy started or ended.
    void busyChanged(bool busy);
    /// A new request started; activity() describes it.
    void activityChanged(const QString& activity);

private:
    struct Outcome {
        LoadedDataset dataset;
        QString error;
    };
    std::uint64_t start(QString activity, QString path, std::function<Outcome()> job);
    void cancelRunning();

    std::function<std::shared_ptr<Backend>()> m_viewBackend;
    std::uint64_t m_generation = 0;
    // The running requests' controls, by generation (cancelled when superseded).
    std::map<std::uint64_t, std::shared_ptr<JobControl>> m_controls;
    int m_running = 0;
    QString m_activity;
};

}  // namespace cs::ui
