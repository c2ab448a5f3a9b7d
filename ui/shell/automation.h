// SPDX-License-Identifier: MIT
#pragma once

#include <QElapsedTimer>
#include <QObject>
#include <QSize>
#include <QString>
#include <QStringList>
#include <QTimer>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "compute/io/dataset.h"
#include "ui/panels/algorithm_registry.h"

namespace cs::ui {

class MainWindow;

/// What the GUI's command line asks for:
/// `clusterscope [FILE] [--as points|series] [--demo-points N] [--demo-series]
///  [--graph GRAPH.npy] [--session FILE] [--param ALGO.NAME=VALUE]... [--run ALGO]... [--sweep
///  ALGO]...
///  [--use-suggested-eps]
///  [--measure OUT.json] [--export OUT] [--select cluster=N|points=RANGES|series=RANGES]
///  [--run-on-selection ALGO]... [--inspect point=I|series=I]
///  [--save-session OUT.json] [--recover yes|no] [--screenshot OUT.png]
///  [--window-size WxH] [--view front|top|side|sensor|fit] [--colour-map NAME]
///  [--colour-range pLO:pHI|MIN:MAX] [--edges length|points,over|under,map=M,min=X,max=X,opacity=X]
///  [--timeout S] [--quit]`
struct AutomationOptions {
    QString file;                            ///< the file to open, or empty
    io::DataKind kind = io::DataKind::Auto;  ///< --as
    std::optional<std::size_t> demoPoints;   ///< --demo-points N (N may end in k or M)
    bool demoSeries = false;                 ///< --demo-series
    /// --graph: a kNN graph (clusterscope-cli knn --out) of FILE's points, imported once they
    /// are loaded (KnnPanel::importGraph), after the --run runs
    QString graph;
    QString session;      ///< --session: a session (or a PNG exported here) to open
    QString saveSession;  ///< --save-session: where to write the session after the runs
    /// --recover: "yes" opens the session autosaved by a run that did not exit cleanly, "no"
    /// keeps it aside; empty: ask (a dialog), except with --quit, which never asks (no).
    QString recover;
    QStringList params;  ///< --param texts, checked by Automation
    QStringList runs;    ///< --run algorithm names, in order
    QStringList sweeps;  ///< --sweep algorithm names, in order
    /// --use-suggested-eps: press DBSCAN's "Use suggested eps" once the data is loaded and the
    /// runs settled, and wait until DBSCAN has run with it.
    bool useSuggestedEps = false;
    QString screenshot;  ///< --screenshot PNG path, or empty
    QString measure;     ///< --measure JSON path (ViewBenchmark), or empty
    QString exportPath;  ///< --export: what File ▸ Export writes (.csv labels, .npy data, .png)
    std::optional<int> selectCluster;          ///< --select cluster=N
    std::vector<std::uint32_t> selectPoints;   ///< --select points=0-99,120 (ascending)
    std::vector<std::uint32_t> selectSeries;   ///< --select series=0-9
    QStringList runsOnSelection;               ///< --run-on-selection algorithm names, in order
    std::optional<std::size_t> inspectPoint;   ///< --inspect point=I
    std::optional<std::size_t> inspectSeries;  ///< --inspect series=I
    QSize windowSize;                          ///< --window-size, or invalid (keep the saved one)
    QString view;           ///< --view: a PointCloudView::ViewPreset name, or empty
    QString colourMap;      ///< --colour-map: a ColourMaps::Map name, or empty
    QString pointRenderer;  ///< --point-renderer: a PointCloudView::rendererName, or empty
    QString colourRange;    ///< --colour-range: ScalarStyle::parseRange's syntax, or empty
    /// --edges: the point view's kNN edge style, each part optional.
    struct Edges {
        std::optional<bool> byLength;     ///< length | points
        std::optional<bool> overPoints;   ///< over | under
        std::optional<QString> map;       ///< map=NAME
        std::optional<double> minLength;  ///< min=X (data units)
        std::optional<double> maxLength;  ///< max=X
        std::optional<double> opacity;    ///< opacity=X in [0, 1]
    };
    std::optional<Edges> edges;
    int timeoutSeconds = 600;  ///< --timeout: give up waiting after this long
    bool quit = false;         ///< --quit: exit when done (status ≠ 0 on failure)
    bool help = false;         ///< --help: print helpText and exit
    bool version = false;      ///< --version
    QString helpText;          ///< the usage text (filled by parse)
};

/// Drives a MainWindow from the command line, for tests, demos and screenshots: opens the file
/// (or the demo points, 200k by default), sets the parameters, runs the algorithms, waits until
/// every pending job has finished and the view has drawn its result, saves the whole window as
/// a PNG, and asks to exit. Failures are logged (so they reach stderr) and give a non-zero
/// exit status.
/// @code
/// Automation automation(window, *options);
/// connect(&automation, &Automation::finished, &app, &QCoreApplication::exit);
/// automation.start();
/// @endcode
class Automation : public QObject {
    Q_OBJECT
public:
    /// Command-line syntax (arguments[0] is the program); nullopt with the message in *error.
    /// Checks everything that needs no window: option values, combinations, the screenshot
    /// folder. Parameters and algorithm names are checked by validate().
    /// algorithms: whose parameters and exports --help lists.
    static std::optional<AutomationOptions> parse(
        const QStringList& arguments, QString* error,
        const std::vector<const AlgorithmDescriptor*>& algorithms = {});
    /// True when the options name what to open (a file, a demo or a session).
    static bool namesData(const AutomationOptions& options);
    /// Checks --param and --run against registry; empty when fine, else the message.
    static QString validate(const AutomationOptions& options, const AlgorithmRegistry& registry,
                            std::vector<ParameterAssignment>* assignments = nullptr);

    Automation(MainWindow& window, AutomationOptions options, QObject* parent = nullptr);

    /// Starts (returns at once). finished() follows when the process should exit: after the
    /// work with --quit, or at once for options the window's registry rejects (status 2).
    void start();
    /// 0, 1 (something failed) or 2 (bad command line); meaningful after finished().
    int exitCode() const { return m_exitCode; }
    /// The first failure, or empty.
    QString error() const { return m_error; }
    /// True once everything asked for was done (or failed).
    bool isDone() const { return m_phase == Phase::Done; }

    /// Demo size when neither a file nor --demo-points is given.
    static constexpr std::size_t kDefaultDemoPoints = 200'000;
    /// Exit status for command-line errors.
    static constexpr int kUsageError = 2;

signals:
    /// The process should exit with this status.
    void finished(int exitCode);

private:
    enum class Phase { Idle, Loading, Settling, SelectionRuns, Inspecting, Measuring, Done };
    void poll();
    /// After the runs: --select, then --run-on-selection; false when nothing runs.
    bool select();
    /// After those: --inspect; false when there is nothing to wait for.
    bool inspect();
    void afterSettling();
    void styleEdges();
    /// --use-suggested-eps, a step each time the window settles: true once done (or failed),
    /// false while the press, the suggestion or the run it starts is still to come.
    bool useSuggestedEps();
    void startMeasuring();
    void saveScreenshotAndFinish();
    void exportResults();
    void fail(const QString& message, int code = 1);
    void finish();

    MainWindow& m_window;
    AutomationOptions m_options;
    std::vector<ParameterAssignment> m_assignments;
    bool m_edgesStyled = false;  // --edges applied once the runs settled
    enum class SuggestStep { Press, Check, Rerun, Done };
    SuggestStep m_suggestStep = SuggestStep::Press;
    Phase m_phase = Phase::Idle;
    QTimer m_timer;
    QElapsedTimer m_clock;
    QString m_loadError;
    QString m_runError;  // the first error logged while the runs went on
    QString m_error;
    int m_exitCode = 0;
};

}  // namespace cs::ui
