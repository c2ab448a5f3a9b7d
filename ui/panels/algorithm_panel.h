// SPDX-License-Identifier: MIT
#pragma once

#include <QKeySequence>
#include <QTimer>
#include <QVariantMap>
#include <QWidget>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "compute/core/algorithm_descriptor.h"
#include "compute/core/item_subset.h"
#include "compute/core/point_set.h"
#include "compute/core/series_set.h"
#include "ui/jobs/job_runner.h"
#include "ui/jobs/live_run.h"
#include "ui/panels/algorithm_registry.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QLabel;
class QProgressBar;
class QPushButton;
class QSlider;
class QSpinBox;
class QVBoxLayout;

namespace cs::ui {

class WarningRow;

/// The life cycle every algorithm panel shares, written once: a Parameters box whose rows come
/// from the algorithm's descriptor (ranges, help, stored values), Run and Cancel, a progress
/// line while a run computes (the stage, "iteration 3 of 100" for iterative methods), a Result
/// box (summary, warning row, one line per stage's time, the export button), the live re-run
/// policy (LiveRun) and the runner's answers for the panel's job kind. A panel adds what is
/// its own: its extra widgets, its job, how it shows a result.
/// @code
/// class MyPanel : public AlgorithmPanel {
///     MyPanel(JobRunner& r) : AlgorithmPanel(r, myDescriptor()) { m_k = addIntParameter("k"); }
///     bool hasInput() const override { return m_data != nullptr; }
///     void submitRun() override { runner().submit<MyRun>(kind(), ...); }
///     void showOutcome(const JobOutcome& o) override { ...; showTimings(o); }
/// };
/// @endcode
class AlgorithmPanel : public QWidget {
    Q_OBJECT
public:
    /// A run's progress row (bar and stage) appears once it has run this long (ms).
    static constexpr int kProgressDelayMs = 250;

    ~AlgorithmPanel() override;

    const AlgorithmDescriptor& descriptor() const { return m_descriptor; }
    /// The job kind: the descriptor's name ("knn").
    const QString& kind() const { return m_kind; }
    /// Runs now with the current parameters (a pending debounce is skipped).
    void run();
    /// True while the run in flight is for the parameters shown and nothing is pending: run()
    /// then starts nothing (a finished run is run again when asked).
    bool isUpToDate() const;
    /// Cancels the run in flight and pending changes; the result on screen stays. A panel with
    /// side jobs of its own cancels those too.
    virtual void cancel();
    /// True while a run is pending or computing (a panel adds its own side jobs).
    virtual bool isBusy() const;
    /// Limits the runs from now on to some items (points or series) of the data loaded, or
    /// lifts the limit (null). A run then computes on subsetOf(data, subset) and its result
    /// is mapped back to the whole set (kNotRun for the items left out), and the summary says
    /// "on N of M". Does not run by itself; new data (MainWindow) lifts the limit.
    void setRunSubset(std::shared_ptr<const ItemSubset> subset);
    std::shared_ptr<const ItemSubset> runSubset() const { return m_subset; }
    /// The subset the result on screen was computed on (null: all items, or no result).
    std::shared_ptr<const ItemSubset> resultSubset() const { return m_resultSubset; }
    /// The registry entry wired to this panel (--param, --run, --sweep, --export).
    Algorithm algorithm();
    /// True for a panel with a parameter sweep (sweep() then starts it).
    virtual bool hasSweep() const { return false; }
    virtual void sweep() {}

    /// New data. A panel overrides the one its descriptor's input kind needs; the other
    /// kind's data leave it as it is.
    virtual void setPointSet(std::shared_ptr<const PointSet> points);
    virtual void setSeriesSet(std::shared_ptr<const SeriesSet> series);
    /// True while a result of the data loaded is on screen (it can be exported).
    virtual bool hasResult() const = 0;
    /// The file the result on screen was imported from (the kNN graph's Import graph…), empty
    /// when it was computed: a session keeps it and imports it again instead of running.
    virtual QString importedFrom() const { return {}; }
    /// Shows a result read from path, as the panel's import does; returns the error, or an empty
    /// string. Panels that import nothing refuse.
    virtual QString importResult(const QString& path);
    /// The View menu's shortcut for the panel ("Ctrl+K"); none by default.
    virtual QKeySequence viewShortcut() const { return {}; }
    /// A panel whose result colours the points (a clustering) offers it in the window's Colour
    /// by: its title there ("clusters (DBSCAN)"), empty while it has none for the points on
    /// screen. None by default.
    virtual QString pointColouringTitle() const { return {}; }
    /// Paints the point view with it (the view's colouring is then "custom"); false when there
    /// is none.
    virtual bool showPointColouring() { return false; }

    /// The values the next run uses: the rows made by add*Parameter and a panel's own widgets
    /// (DBSCAN's eps and path, ROCKET's variant), over the descriptor's defaults.
    virtual ParameterValues parameterValues() const;
    /// Sets these values (any of the descriptor's, already checked) as the program, not the
    /// user: they are not offered to undo. rerun false: no live re-run follows (a session sets
    /// every value first, then runs what had a result); true: a change re-runs as an edit does.
    void applyParameters(const ParameterValues& values, bool rerun);
    /// The panel's view options (DBSCAN's Show core, border and noise; the kNN graph's edges
    /// and their opacity) by name: a bool per check box, an int per slider.
    QVariantMap viewOptions() const;
    /// Sets those of options the panel has (others, and values of another type, are ignored),
    /// as the program: not offered to undo. The sweep's range (sweepRange()) too, where the
    /// options hold one.
    void setViewOptions(const QVariantMap& options);
    /// viewOptions() and sweepRange() together: what a session saves of the panel's views.
    QVariantMap sessionViewOptions() const;
    /// The range of the panel's sweep by name (k-Shape's k from and to, ROCKET's kernel counts,
    /// the DBSCAN grid on screen), for sessions: numbers or text; empty where there is none.
    virtual QVariantMap sweepRange() const { return {}; }
    /// Sets what sweepRange() gave (a session's); absent names and values of another type are
    /// ignored.
    virtual void setSweepRange(const QVariantMap& range) { Q_UNUSED(range); }
    /// A number held in a variant (int, long long or double: a session's JSON numbers come
    /// back as either), or nullopt.
    static std::optional<double> numberOf(const QVariant& value);

    QPushButton* runButton() const { return m_runButton; }
    QPushButton* cancelButton() const { return m_cancelButton; }
    QPushButton* exportButton() const { return m_exportButton; }
    QLabel* statisticsLabel() const { return m_summary; }
    QLabel* warningLabel() const;
    QLabel* timingsLabel() const { return m_timings; }
    QLabel* progressLabel() const { return m_progressLabel; }
    QProgressBar* progressBar() const { return m_progressBar; }

signals:
    /// A new result is on screen.
    void resultChanged();
    /// The user asked to export (the window shows the file dialog with the descriptor's list).
    void exportRequested();
    /// A line for the status bar.
    void statusMessage(const QString& text, int timeoutMs);
    /// The user changed the parameters (an edit, or one step of a drag): every value before
    /// and after it, for undo.
    void parametersEdited(const cs::ParameterValues& before, const cs::ParameterValues& after);
    /// The user changed a view option: every option before and after it, for undo.
    void viewOptionsEdited(const QVariantMap& before, const QVariantMap& after);
    /// setRunSubset() changed the items the runs are limited to.
    void runSubsetChanged();

protected:
    AlgorithmPanel(JobRunner& runner, const AlgorithmDescriptor& descriptor,
                   QWidget* parent = nullptr, double longJobMs = LiveRun::kLongJobMs,
                   int longJobDebounceMs = LiveRun::kLongJobDebounceMs);

    /// True when data the algorithm can run on are loaded (Run is enabled, changes re-run).
    virtual bool hasInput() const = 0;
    /// False while a run must wait for something of the panel's own (DBSCAN's eps waits for
    /// the knee of the k-distance curve); run() and parameter changes then do nothing.
    virtual bool mayRun() { return true; }
    /// Submits a run with the current parameters to runner() under kind(); refuse() instead
    /// when they cannot run on these data.
    virtual void submitRun() = 0;
    /// A finished run of kind() (the newest): show it, or say why not.
    virtual void showOutcome(const JobOutcome& outcome) = 0;
    /// Sets one parameter from the command line or the automation (already range-checked).
    virtual void setParameter(const QString& name, const ParameterValue& value) = 0;
    /// Writes the export with this id (one of the descriptor's) to path: the error, or empty.
    virtual QString exportResult(const std::string& exportId, const QString& path) = 0;

    /// A row in the Parameters box for the descriptor's parameter: a spin box, a check box or
    /// a combo box with the declared range, help and (when stored) the stored value; a change
    /// stores it (when stored) and re-runs.
    QSpinBox* addIntParameter(const char* name, bool stored = true);
    QDoubleSpinBox* addDoubleParameter(const char* name, bool stored = true);
    QCheckBox* addBoolParameter(const char* name, const QString& text, bool stored = true);
    /// Runs change, in which the panel itself sets parameters (a clamp to the data, the knee's
    /// eps): they re-run like any change but are not the user's edits, so not offered to undo.
    void changeByProgram(const std::function<void()>& change);
    /// Makes a check box or a slider of the panel's own a view option (sessions, undo).
    void addViewOption(const QString& name, QCheckBox* box);
    void addViewOption(const QString& name, QSlider* slider);
    /// The Parameters box's form (rows go above Run and Cancel).
    QFormLayout* parameterForm() const { return m_form; }
    /// Adds a box of the panel's own under the Result box.
    void addBox(QWidget* box);
    /// Where addResultWidget() puts a widget: under the summary (a line or two of text), or
    /// under the export button (a table, a chart): the summary, its warning and Export must
    /// stay on a 1280 x 720 screen without scrolling.
    enum class ResultPlace { Summary, Details };
    /// Adds a widget of the panel's own to the Result box.
    void addResultWidget(QWidget* widget, ResultPlace place = ResultPlace::Summary);

    /// A parameter changed: re-run when there is input (LiveRun decides when).
    void parametersChanged();
    /// New data: forgets pending runs and shows summary in place of the result.
    void resetResult(const QString& summary);
    /// Parameters these data cannot run: logged, in the status bar and the warning row; the
    /// result on screen stays.
    void refuse(const QString& problem);
    /// The warning row's text (empty hides it).
    void setWarning(const QString& text);
    /// The backend and per-stage times of outcome (detail added to the first line: "path
    /// grid"), and enables the export.
    void showTimings(const JobOutcome& outcome, const QString& detail = {});

    JobRunner& runner() const { return m_runner; }
    LiveRun& live() { return m_live; }

    /// runner().submit<T>(kind(), fn) for a run on data of this shape with the current
    /// parameters: a run that cannot fit this machine's memory is refused here (refuse()), and
    /// a std::bad_alloc in fn becomes a message saying what, how much and what to change
    /// (explainingOutOfMemory, the descriptor's estimate).
    template <class T, class Fn>
    void submitMethodRun(const DataShape& shape, Fn fn) {
        const MemoryNeed need = descriptor().memoryNeed(shape, parameterValues());
        try {
            checkMemoryFits(descriptor().title, need);
        } catch (const Error& e) {
            refuse(QString::fromUtf8(e.what()));
            return;
        }
        runner().submit<T>(kind(), [fn = std::move(fn), need, title = descriptor().title](
                                       Backend& backend, JobControl& job) {
            return explainingOutOfMemory(title, need, job, [&] { return fn(backend, job); });
        });
    }

private:
    void onFinished(const JobOutcome& outcome);
    void onFailed(const JobOutcome& outcome);
    void onCancelled(const JobOutcome& outcome);
    void onProgress(const QString& kind, double fraction, const QString& stage);
    void updateRunning();
    void showProgressRow();
    void store(const char* name, const ParameterValue& value, bool stored);
    void viewOptionChanged();

    JobRunner& m_runner;
    const AlgorithmDescriptor& m_descriptor;
    QString m_kind;
    LiveRun m_live;
    std::map<std::string, QWidget*> m_parameterWidgets;  // rows made by add*Parameter
    // The values as the last edit (or program change) left them: the "before" of the next edit.
    std::optional<ParameterValues> m_editedValues;
    int m_programChanges = 0;                       // changeByProgram() depth
    bool m_holdRuns = false;                        // applyParameters(rerun = false) in progress
    ParameterValues m_runValues;                    // those of the run submitted last, for the log
    std::shared_ptr<const ItemSubset> m_subset;     // the items the next runs are limited to
    std::shared_ptr<const ItemSubset> m_runSubset;  // those of the run submitted last
    std::shared_ptr<const ItemSubset> m_resultSubset;  // those of the result on screen
    struct Submitted {
        std::uint64_t generation = 0;
        ParameterValues values;
    };
    std::optional<Submitted> m_submitted;       // the newest job and its values
    std::shared_ptr<const void> m_shownResult;  // the outcome on screen
    std::map<QString, QWidget*> m_viewOptionWidgets;
    QVariantMap m_editedViewOptions;  // the "before" of the next view option edit
    bool m_settingViewOptions = false;

    QVBoxLayout* m_layout = nullptr;
    QFormLayout* m_form = nullptr;
    QVBoxLayout* m_resultLayout = nullptr;
    int m_boxInsertAt = 0;  // where addBox() puts the next box
    QPushButton* m_runButton = nullptr;
    QPushButton* m_cancelButton = nullptr;
    QProgressBar* m_progressBar = nullptr;
    QLabel* m_progressLabel = nullptr;
    // Shows the progress row once a run has lasted kProgressDelayMs: a quicker one would only
    // make the panel relayout (and the window present a frame) twice for nothing.
    QTimer m_progressDelay;
    QLabel* m_summary = nullptr;
    WarningRow* m_warningRow = nullptr;
    QLabel* m_timings = nullptr;
    QPushButton* m_exportButton = nullptr;
};

}  // namespace cs::ui
