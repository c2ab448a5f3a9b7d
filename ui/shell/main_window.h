// SPDX-License-Identifier: MIT
#pragma once

#include <QImage>
#include <QMainWindow>
#include <QMessageBox>
#include <QPointer>
#include <QSet>
#include <QString>
#include <QTimer>
#include <cstddef>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "compute/io/dataset.h"
#include "ui/panels/algorithm_registry.h"
#include "ui/shell/dataset_loader.h"
#include "ui/shell/selection_model.h"
#include "ui/shell/session.h"
#include "ui/views/points/point_cloud_view.h"

class QAction;
class QActionGroup;
class QComboBox;
class QDockWidget;
class QLabel;
class QMenu;
class QProgressBar;
class QStackedWidget;
class QUndoStack;

namespace cs::ui {

class BackendChip;
class DbscanPanel;
class KnnPanel;
class KShapePanel;
class JobRunner;
class AlgorithmPanel;
class LogDock;
class PointCloudView;
class PointInspector;
class RocketPanel;
class SelectionModel;
class SeriesInspector;
class SeriesView;

/// The application window. It owns the views (a point view and a series view, one shown at a
/// time), the loader (worker-thread loads, newest wins), the log dock, the status bar with the
/// busy indicator and the backend chip, and the registry of algorithm panels. A failed load is
/// reported (log, status bar, a non-modal message) and leaves the data on screen as it was.
/// Nothing is loaded by the constructor: main() (through Automation) opens the file or the
/// demo.
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    /// Which view is in front.
    enum class View { Points, Series };

    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    /// Loads a file on a worker thread (kind Auto: by its name). The result replaces what the
    /// matching view shows; a failure keeps it and emits loadFailed().
    void openFile(const QString& path, io::DataKind kind = io::DataKind::Auto);
    /// Generates n demo points on a worker thread.
    void openDemoPoints(std::size_t n);
    /// Generates the demo time-series set on a worker thread.
    void openDemoSeries();
    /// Writes the current view as .png, or its data as .npy (points: n × d; series: n × L, or
    /// n × C × L when multivariate; labels, when there are some, beside it as *_labels.npy),
    /// the kNN graph on screen as a file named *_knn.csv (source,target,distance per edge,
    /// KnnPanel::exportEdges), or the DBSCAN labels on screen as any other .csv. With the
    /// series view in front: the ROCKET features as a file named *_rocket.npy (n × 2K float32,
    /// RocketPanel::exportFeatures) and its predictions as *_rocket.csv
    /// (RocketPanel::exportPredictions), the k-Shape labels as *_kshape.csv
    /// (index,label,distance,shift, KShapePanel::exportLabels) and its centroids as
    /// *_kshape_centroids.npy (k × m float32, KShapePanel::exportCentroids). Returns the error,
    /// or an empty string.
    QString exportTo(const QString& path);
    /// Brings the kNN panel to the front and imports the graph at path there
    /// (KnnPanel::importGraph: clusterscope-cli knn --out's .npy, read on a worker thread);
    /// --graph comes here. Returns the error that stopped it at once, or an empty string; the
    /// panel's importFinished() follows.
    QString importKnnGraph(const QString& path);
    /// The whole window as an image, GL view included.
    QImage grabWindow();
    /// Writes image as a PNG file through the exports' writer (never over an input, whole or
    /// not at all); returns the error, or an empty string.
    static QString savePng(const QImage& image, const QString& path);

    /// The session on screen: where the data of each view came from, every method's parameters
    /// and whether it has a result, the views' states.
    Session currentSession() const;
    /// Writes currentSession() as JSON to path (whole or not at all, never over an input) and,
    /// with remember (not for autosaves), adds it to File ▸ Open Recent Session. Returns the
    /// error, or an empty string.
    QString saveSession(const QString& path, bool remember = true);
    /// Opens a session: a session file, or a PNG exported here (it carries its session). Loads
    /// its data (a file must still have the content hash it had), sets every parameter, re-runs
    /// the methods that had results, then restores the views and the camera. A bad session file
    /// or data that moved or changed is reported as a failed load is (log, message,
    /// loadFailed()), and what is on screen stays.
    void openSession(const QString& path);
    /// True from openSession() until the session is on screen (or failed).
    bool isRestoringSession() const { return m_restore.has_value(); }
    /// Recent sessions, newest first (QSettings "recentSessions").
    QStringList recentSessions() const;

    /// True while a load runs, or a session is being restored.
    bool isBusy() const;
    /// No load or algorithm job pending, and the front view has drawn its latest content.
    bool isSettled() const;

    View currentView() const;
    void setCurrentView(View view);

    PointCloudView* pointView() const { return m_pointView; }
    /// Who draws the points (View ▸ Point renderer); remember keeps it for later sessions.
    void setPointRenderer(PointCloudView::PointRenderer renderer, bool remember);
    SeriesView* seriesView() const { return m_seriesView; }
    LogDock* logDock() const { return m_logDock; }
    BackendChip* backendChip() const { return m_backendChip; }
    /// The compute engine shared by the algorithm panels.
    JobRunner* jobRunner() const { return m_jobs; }
    DbscanPanel* dbscanPanel() const { return m_dbscanPanel; }
    KnnPanel* knnPanel() const { return m_knnPanel; }
    RocketPanel* rocketPanel() const { return m_rocketPanel; }
    KShapePanel* kshapePanel() const { return m_kshapePanel; }
    AlgorithmRegistry& algorithms() { return m_algorithms; }
    /// Edit ▸ Undo and Redo: the user's parameter edits (every method), colour by, point size,
    /// selection changes, Isolate, hidden clusters and runs on a selection. New data or a
    /// restored session starts it afresh.
    QUndoStack* undoStack() const { return m_undo; }

    /// The selection every view shares.
    SelectionModel* selection() const { return m_selection; }
    /// The point inspector (in the Inspector dock).
    PointInspector* pointInspector() const { return m_inspector; }
    SeriesInspector* seriesInspector() const { return m_seriesInspector; }
    /// Inspects series index of the set in the series view, as a click on it does.
    void inspectSeries(std::size_t index);
    QDockWidget* inspectorDock() const { return m_inspectorDock; }
    /// Inspects point index: shows the Inspector dock, marks the point and its neighbours in
    /// the view and highlights its cluster.
    void inspectPoint(std::size_t index);
    /// Selects the members of DBSCAN cluster id (as the legend and the labels CSV number it; -1:
    /// the noise), replacing the selection, adding to it or removing from it; returns the error
    /// (no DBSCAN result, no such cluster), or an empty string.
    QString selectCluster(int id, SelectionModel::Mode mode = SelectionModel::Mode::Replace);
    /// Hides DBSCAN cluster id (-1: the noise) from the point view, or shows it again.
    void setClusterHidden(int id, bool hidden);
    bool isClusterHidden(int id) const { return m_hiddenClusters.contains(id); }
    /// What a click on a legend row does: select that cluster (Shift: add it, Ctrl: remove it,
    /// Alt: hide or show it). Only for the DBSCAN legend.
    void onLegendClicked(int entry, Qt::KeyboardModifiers modifiers);
    /// Select ▸ Isolate: points outside the selection are hidden rather than dimmed.
    void setIsolated(bool isolated);
    bool isIsolated() const { return m_isolated; }
    /// Select ▸ Run on the selection only: limits the runs of the method named algorithm
    /// (dbscan, knn, kshape, rocket) to the points or series selected and runs it, as one undo
    /// step (undo runs it as before). Returns the error (no such method, nothing of its kind
    /// selected), or an empty string.
    QString runOnSelection(const QString& algorithm);
    /// Select ▸ Run on all again: lifts the limit of every method that has one and re-runs
    /// them (one undo step each); false when none had one.
    bool runOnAllAgain();
    /// Writes the selected points as CSV: index,original_index and the coordinates, one row per
    /// point; returns the error, or an empty string.
    QString exportSelection(const QString& path) const;
    /// The actions of the Select menu, for tests.
    QAction* isolateAction() const { return m_isolateAction; }
    QAction* invertSelectionAction() const { return m_invertAction; }
    QAction* clearSelectionAction() const { return m_clearSelectionAction; }
    QAction* lassoAction() const { return m_lassoAction; }
    /// Select ▸ Run on the selection only ▸ one action per method (data: its name).
    QMenu* runOnSelectionMenu() const { return m_runOnSelectionMenu; }
    QAction* runOnAllAction() const { return m_runOnAllAction; }

    /// The last failure's message box (nullptr before the first failure).
    QMessageBox* errorBox() const { return m_errorBox; }

    /// Name of the data in the front view ("cturtle.pcd", "Demo points"), or empty.
    QString currentName() const;
    /// Recent files, newest first (QSettings "recentFiles").
    QStringList recentFiles() const;
    /// The About box text (HTML): version, Qt, OpenGL, backends.
    QString aboutText() const;
    /// File dialog filters, one per line, for every format the readers know.
    static QStringList openFilters();
    /// True for files that could be either points or series (.csv .tsv .txt, no TRAIN/TEST).
    static bool isAmbiguous(const QString& path);

    /// Most entries in File ▸ Open Recent.
    static constexpr int kMaxRecent = 10;

signals:
    /// A load finished and its data is on screen.
    void datasetLoaded(const QString& name);
    /// A load failed; message names the file and the problem.
    void loadFailed(const QString& message);
    /// A session opened by openSession() is on screen.
    void sessionRestored(const QString& path);

protected:
    void closeEvent(QCloseEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void createActions();
    void createMenus();
    void createStatusBar();
    void createToolBar();
    void onLoaded(const LoadedDataset& dataset);
    void onLoadFailed(const QString& message, const QString& path);
    void onBusyChanged(bool busy);
    void openInteractively();
    void openWithKindQuestion(const QString& path, io::DataKind kind);
    void exportInteractively();
    /// File dialog offering the algorithm's exports (its descriptor's list), then writes one.
    void exportResultInteractively(const QString& algorithmName);
    /// An export's outcome for the user: the error in the log and a dialog, or the status bar.
    void reportExport(const QString& path, const QString& error);
    /// Puts an algorithm panel in a dock (tabbed with the others), registers its algorithm and
    /// wires its status, export and result signals: the same for every method.
    void addPanel(AlgorithmPanel* panel);
    /// Brings the first panel for this kind of data to the front.
    void raisePanelFor(InputKind input);
    void raiseKnnPanel();
    void createComputePanels();
    /// Makes the job lanes run the kNN graph and ROCKET on these GPUs (the backend chip's
    /// choice; empty: the default device).
    void applyDeviceChoice(const std::vector<int>& devices);
    void onJobBusyChanged(bool busy);
    void addRecent(const QString& path, io::DataKind kind);
    void rebuildRecentMenu();
    void rebuildColourMenu();
    /// Up axis ▸ Automatic: the axis PointCloudView::suggestedUpAxis picks for the points shown.
    void chooseUpAxis();
    /// The Colour by entry for what the view shows: its option id, or the id of the panel whose
    /// colouring it shows ("panel:dbscan").
    QString shownColourId() const;
    /// Colours by an entry of the Colour by menu or combo (the clusters are not recomputed).
    void colourBy(const QString& id);
    /// The user's choice of colourBy(id), as an undo step.
    void chooseColourBy(const QString& id);
    /// Records a point size change made by the user (keys, menu) as an undo step.
    void recordPointSize(float size);
    void updateTitle();
    void updateViewActions();
    void saveWindowState();
    void saveSessionInteractively();
    void openSessionInteractively();
    void addRecentSession(const QString& path);
    void rebuildRecentSessionsMenu();
    /// The next data of the session being restored, or its methods once all are loaded.
    void restoreNextData();
    /// Every method's parameters, the runs of those that had results, the states that need no
    /// result; the rest (colouring, style, camera) waits until the runs are done.
    void restoreMethods();
    void finishRestore();
    /// Drops the session being restored (other data was asked for).
    void abandonRestore();
    /// The image with the session in its text chunk (exported PNGs reopen as sessions).
    QImage withSession(QImage image) const;

    // A session being restored: the data still to load, the load awaited.
    struct Restore {
        Session session;
        QString path;
        std::vector<SessionData> loads;
        std::uint64_t generation = 0;
    };
    std::optional<Restore> m_restore;
    QUndoStack* m_undo = nullptr;
    float m_recordedPointSize = 0.0f;  // the "before" of the next point size step
    bool m_undoing = false;            // a view setting is being set by undo or redo
    QTimer m_restoreTimer;             // polls for the restored runs to finish
    // Where the data on screen came from (sessions).
    std::optional<SessionData> m_pointsSource;
    std::optional<SessionData> m_seriesSource;
    QMenu* m_recentSessionsMenu = nullptr;
    QAction* m_openSessionAction = nullptr;
    QAction* m_saveSessionAction = nullptr;

    void createInspector();
    void showInspectorDock();
    /// The view's mask and markers from the selection, the isolate switch and the inspected
    /// point: a selection dims (or hides) the rest; without one, the inspected point's cluster
    /// stands out.
    void updatePointHighlight();
    /// Selects the points inside a box or lasso (on a worker).
    void selectInRegion(const PointCloudView::BoxProjection& region,
                        Qt::KeyboardModifiers modifiers);
    void exportSelectionInteractively();
    /// Records the selection's change as an undo step (unless undo or a session made it).
    void recordSelection();
    /// Sets the hidden DBSCAN clusters without recording an undo step.
    void applyHiddenClusters(const QSet<int>& hidden);
    void createRunOnSelectionActions();

    DatasetLoader* m_loader = nullptr;
    AlgorithmRegistry m_algorithms;
    QString m_lastSwept;  // the algorithm --sweep ran last: whose table NAME_sweep.csv is
    QStackedWidget* m_stack = nullptr;
    PointCloudView* m_pointView = nullptr;
    SeriesView* m_seriesView = nullptr;
    LogDock* m_logDock = nullptr;
    BackendChip* m_backendChip = nullptr;
    QProgressBar* m_busyBar = nullptr;
    QLabel* m_busyLabel = nullptr;
    QLabel* m_dataLabel = nullptr;
    JobRunner* m_jobs = nullptr;
    // Every algorithm panel with its dock, in menu order; the typed pointers are the accessors
    // below (tests and the automation reach a method's panel by them).
    std::vector<std::pair<AlgorithmPanel*, QDockWidget*>> m_panels;
    bool m_upAutomatic = true;  // View ▸ Up axis ▸ Automatic
    DbscanPanel* m_dbscanPanel = nullptr;
    KnnPanel* m_knnPanel = nullptr;
    RocketPanel* m_rocketPanel = nullptr;
    KShapePanel* m_kshapePanel = nullptr;
    QProgressBar* m_jobBar = nullptr;
    QLabel* m_jobLabel = nullptr;
    QWidget* m_jobCancel = nullptr;
    QTimer m_jobShowTimer;
    QPointer<QMessageBox> m_errorBox;
    SelectionModel* m_selection = nullptr;
    PointInspector* m_inspector = nullptr;
    SeriesInspector* m_seriesInspector = nullptr;
    QStackedWidget* m_inspectorPages = nullptr;
    QDockWidget* m_inspectorDock = nullptr;
    bool m_isolated = false;
    QSet<int> m_hiddenClusters;  // DBSCAN cluster ids of the run on screen
    QAction* m_isolateAction = nullptr;
    QAction* m_invertAction = nullptr;
    QAction* m_clearSelectionAction = nullptr;
    QAction* m_selectClusterAction = nullptr;
    QAction* m_exportSelectionAction = nullptr;
    QAction* m_lassoAction = nullptr;
    QMenu* m_runOnSelectionMenu = nullptr;
    QAction* m_runOnAllAction = nullptr;
    // The selection as the last undo step left it: the "before" of the next one.
    std::shared_ptr<const SelectionModel::State> m_recordedSelection;
    QString m_pointsName;
    QString m_seriesName;

    QMenu* m_recentMenu = nullptr;
    QMenu* m_colourMenu = nullptr;
    QMenu* m_upMenu = nullptr;
    QMenu* m_pointSizeMenu = nullptr;
    QActionGroup* m_colourGroup = nullptr;
    QActionGroup* m_pointRendererGroup = nullptr;
    QAction* m_openAction = nullptr;
    QAction* m_exportAction = nullptr;
    QAction* m_quitAction = nullptr;
    QAction* m_pointViewAction = nullptr;
    QAction* m_seriesViewAction = nullptr;
    QAction* m_resetCameraAction = nullptr;
    QAction* m_fitAction = nullptr;
    QMenu* m_cameraMenu = nullptr;  // View ▸ Camera presets
    QAction* m_largerAction = nullptr;
    QAction* m_smallerAction = nullptr;
    QAction* m_fullScreenAction = nullptr;
    QAction* m_shortcutsAction = nullptr;
    QAction* m_aboutAction = nullptr;
    QActionGroup* m_themeGroup = nullptr;
    QComboBox* m_colourBox = nullptr;
    // What the colour menu and box list now (id, title).
    std::vector<std::pair<QString, QString>> m_colourMenuShown;
    QAction* m_colourBoxAction = nullptr;
};

}  // namespace cs::ui
