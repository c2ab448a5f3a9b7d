// SPDX-License-Identifier: MIT
#include "ui/shell/main_window.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QBuffer>
#include <QCloseEvent>
#include <QComboBox>
#include <QCoreApplication>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QImageReader>
#include <QInputDialog>
#include <QLabel>
#include <QLayout>
#include <QLineEdit>
#include <QLocale>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QSignalBlocker>
#include <QStackedWidget>
#include <QStatusBar>
#include <QStyle>
#include <QStyleOptionComboBox>
#include <QToolBar>
#include <QToolButton>
#include <QToolTip>
#include <QUndoStack>
#include <QUrl>
#include <algorithm>
#include <tuple>
#include <utility>

#include "compute/backend/backend_registry.h"
#include "compute/backend/device_set.h"
#include "compute/core/error.h"
#include "compute/core/item_subset.h"
#include "compute/core/sparse_set.h"
#include "compute/io/npy.h"
#include "compute/io/writers.h"
#include "ui/jobs/job_runner.h"
#include "ui/panels/builtin_panels.h"
#include "ui/panels/dbscan/dbscan_panel.h"
#include "ui/panels/knn/knn_panel.h"
#include "ui/panels/kshape/kshape_panel.h"
#include "ui/panels/rocket/rocket_panel.h"
#include "ui/shell/backend_chip.h"
#include "ui/shell/log_dock.h"
#include "ui/shell/logger.h"
#include "ui/shell/point_inspector.h"
#include "ui/shell/selection_model.h"
#include "ui/shell/series_inspector.h"
#include "ui/shell/shortcuts_dialog.h"
#include "ui/shell/theme.h"
#include "ui/shell/undo_commands.h"
#include "ui/views/points/point_cloud_view.h"
#include "ui/views/series/series_view.h"

namespace cs::ui {
namespace {

const QString kGeometryKey = QStringLiteral("mainWindow/geometry");
const QString kStateKey = QStringLiteral("mainWindow/state");
const QString kRecentKey = QStringLiteral("recentFiles");
const QString kRecentSessionsKey = QStringLiteral("recentSessions");
constexpr int kRestorePollMs = 25;
// Undo merge ids of the panels' view options: this plus the panel's index.
constexpr int kViewOptionsUndoId = 100;
// The job that keeps the loaded points on the compute device (Backend::keepResident).
const QString kResidentJob = QStringLiteral("resident");
// A copy of its own for the kNN graph's lane, which keeps its forest with it between runs.
const QString kResidentKnnJob = QStringLiteral("resident-knn");
// The same for the loaded series (Backend::keepSeriesResident), for the series heat map.
const QString kResidentSeriesJob = QStringLiteral("resident-series");
const QString kLastDirKey = QStringLiteral("ui/lastDirectory");
// Exports go where the last one went (a results folder), not where the data came from.
const QString kLastExportDirKey = QStringLiteral("ui/lastExportDirectory");
// The job that finds the points inside a selection box (a scan over all points: off the GUI
// thread).
const QString kSelectJob = QStringLiteral("select");
// The name ending under which File ▸ Export and --export write the selected points.
const QString kSelectionEnding = QStringLiteral("_selection.csv");
const QString kUpAxisKey = QStringLiteral("view/upAxis");
const QString kColourMapKey = QStringLiteral("view/colourMap");
const QString kPointRendererKey = QStringLiteral("view/pointRenderer");
const QString kColourRangeKey = QStringLiteral("view/colourRange");
// The stored up axis that means "by the data" (PointCloudView::suggestedUpAxis).
constexpr int kAutomaticUp = -1;

// path ending as the export's suffix says ("GunPoint_kshape_centroids.npy"), whatever ending
// of this algorithm's or extension the name had: the name is what tells File ▸ Export and
// --export what a file holds.
QString withExportEnding(const QString& path, const AlgorithmDescriptor& algorithm,
                         const ExportSpec& spec) {
    const QString suffix = QString::fromStdString(spec.suffix);
    if (path.endsWith(suffix, Qt::CaseInsensitive)) return path;
    const QFileInfo info(path);
    QString stem = info.suffix().isEmpty() ? info.fileName() : info.completeBaseName();
    for (const ExportSpec& e : algorithm.exports) {
        const QString ending = QString::fromStdString(e.suffix);
        const QString tag = ending.left(ending.lastIndexOf(QLatin1Char('.')));
        if (!tag.isEmpty() && stem.endsWith(tag, Qt::CaseInsensitive)) stem.chop(tag.size());
    }
    return info.dir().filePath(stem + suffix);
}

QString count(std::size_t n) {
    return QLocale().toString(qulonglong(n));
}

QVariant clusterIds(const QSet<int>& ids) {
    QList<int> sorted(ids.begin(), ids.end());
    std::sort(sorted.begin(), sorted.end());
    QVariantList out;
    for (int id : sorted)
        out << id;
    return out;
}

QSet<int> clusterIds(const QVariant& v) {
    QSet<int> out;
    for (const QVariant& id : v.toList())
        out.insert(id.toInt());
    return out;
}

// The most a status-bar label of the jobs or the loader takes: a long progress line is elided
// (whole in its tooltip) rather than widening the window or crowding the point count.
constexpr int kStatusLabelWidth = 360;

void setStatusText(QLabel* label, const QString& text) {
    label->setText(label->fontMetrics().elidedText(text, Qt::ElideRight, kStatusLabelWidth));
    label->setToolTip(label->text() == text ? QString() : text);
}

// Where the export dialogs open: the last export's folder, else the last data folder.
QDir exportDirectory() {
    const QSettings settings;
    return QDir(
        settings.value(kLastExportDirKey, settings.value(kLastDirKey, QDir::homePath()).toString())
            .toString());
}

void rememberExportDirectory(const QString& path) {
    QSettings().setValue(kLastExportDirKey, QFileInfo(path).absolutePath());
}

QIcon appIcon() {
    // The SVG needs Qt's svg image plugin; the PNG rendering of it serves where that is absent.
    if (QImageReader::supportedImageFormats().contains("svg"))
        return QIcon(QStringLiteral(":/icons/clusterscope.svg"));
    return QIcon(QStringLiteral(":/icons/clusterscope.png"));
}

QString pointsSummary(const PointSet& p) {
    if (p.sparse)
        return QObject::tr("%1 sparse rows × %2 columns")
            .arg(count(p.sparse->n), count(p.sparse->dims));
    return QObject::tr("%1 points × %2 dims").arg(count(p.n)).arg(p.dims);
}

QString seriesSummary(const SeriesSet& s) {
    return QObject::tr("%1 series × %2 ch × %3")
        .arg(count(s.n))
        .arg(s.channels)
        .arg(count(s.length));
}

// The Colour by entry of a panel's point colouring (not a view option: the panel paints it):
// "panel:dbscan".
QString panelColourId(const AlgorithmPanel& panel) {
    return QStringLiteral("panel:") + panel.kind();
}

/// A scroll area for a side panel: the panel always takes the dock's width (it wraps and
/// elides rather than scroll sideways) and the area follows the panel's height whenever its
/// contents change. QScrollArea only re-reads the widget's size hints when it is resized
/// itself, so a label that gains lines would otherwise be squeezed over its neighbours.
class PanelScrollArea : public QScrollArea {
public:
    explicit PanelScrollArea(QWidget* panel) {
        setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
        setWidgetResizable(true);
        setFrameShape(QFrame::NoFrame);
        setWidget(panel);
        panel->installEventFilter(this);
    }

    QSize minimumSizeHint() const override {
        QSize size = QScrollArea::minimumSizeHint();
        if (widget())
            size.setWidth(widget()->minimumSizeHint().width() +
                          verticalScrollBar()->sizeHint().width());
        return size;
    }

protected:
    bool eventFilter(QObject* watched, QEvent* event) override {
        if (watched == widget() && event->type() == QEvent::LayoutRequest) {
            // Settle the panel's layout now, then re-fit the panel to it (QScrollArea does so
            // on its own LayoutRequest) before anything paints the squeezed state.
            if (QLayout* layout = widget()->layout()) layout->activate();
            QEvent request(QEvent::LayoutRequest);
            QCoreApplication::sendEvent(this, &request);
            updateGeometry();
        }
        return QScrollArea::eventFilter(watched, event);
    }
};

}  // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
    Logger::instance();  // created on the GUI thread, before any worker logs
    setWindowIcon(appIcon());
    setAcceptDrops(true);
    setObjectName(QStringLiteral("mainWindow"));

    m_loader = new DatasetLoader(this);
    // A sparse file's view on the GPU where there is one (the shared backend: sparseView may
    // run beside the job runner's own instances).
    m_loader->setViewBackend([] { return backendRegistry().get("auto"); });
    connect(m_loader, &DatasetLoader::loaded, this, &MainWindow::onLoaded);
    connect(m_loader, &DatasetLoader::failed, this, &MainWindow::onLoadFailed);
    connect(m_loader, &DatasetLoader::busyChanged, this, &MainWindow::onBusyChanged);
    connect(m_loader, &DatasetLoader::activityChanged, this,
            [this](const QString& activity) { setStatusText(m_busyLabel, activity); });

    m_pointView = new PointCloudView;
    m_seriesView = new SeriesView;
    m_stack = new QStackedWidget;
    m_stack->addWidget(m_pointView);
    m_stack->addWidget(m_seriesView);
    setCentralWidget(m_stack);

    m_undo = new QUndoStack(this);
    m_recordedPointSize = m_pointView->pointSize();
    connect(m_pointView, &PointCloudView::pointSizeChanged, this, &MainWindow::recordPointSize);

    m_logDock = new LogDock(this);
    m_logDock->setAllowedAreas(Qt::BottomDockWidgetArea | Qt::RightDockWidgetArea);
    addDockWidget(Qt::BottomDockWidgetArea, m_logDock);

    m_selection = new SelectionModel(this);
    createActions();
    createStatusBar();
    createComputePanels();
    createInspector();
    createMenus();
    createToolBar();

    connect(m_pointView, &PointCloudView::colourOptionsChanged, this,
            &MainWindow::rebuildColourMenu);
    connect(m_pointView, &PointCloudView::colourByChanged, this, [this] {
        const QString id = shownColourId();
        for (QAction* a : m_colourGroup->actions())
            a->setChecked(a->data().toString() == id);
        const QSignalBlocker blocker(m_colourBox);
        m_colourBox->setCurrentIndex(m_colourBox->findData(id));
    });
    connect(m_stack, &QStackedWidget::currentChanged, this, [this] {
        updateTitle();
        updateViewActions();
        // The panels for what is on screen come to the front (a tab the user chose for this
        // kind of data stays).
        raisePanelFor(currentView() == View::Series ? InputKind::Series : InputKind::Points);
    });
    rebuildColourMenu();
    updateViewActions();
    updateTitle();

    QSettings settings;
    if (!restoreGeometry(settings.value(kGeometryKey).toByteArray())) resize(1400, 900);
    restoreState(settings.value(kStateKey).toByteArray());
    // The log starts small so that the data has the room.
    if (!settings.contains(kStateKey)) resizeDocks({m_logDock}, {150}, Qt::Vertical);

    m_restoreTimer.setInterval(kRestorePollMs);
    connect(&m_restoreTimer, &QTimer::timeout, this, &MainWindow::finishRestore);

    m_backendChip->refresh();
}

MainWindow::~MainWindow() {
    // The one place the GUI thread waits on compute: the worker must stop before the panels
    // and the data it reads go away.
    m_jobs->cancelAll();
    for (auto& [panel, dock] : m_panels)
        delete dock;
    m_panels.clear();
    delete m_jobs;
    m_jobs = nullptr;
}

void MainWindow::applyDeviceChoice(const std::vector<int>& devices) {
    if (!m_jobs) return;
    // On each lane's thread before its jobs: the backend moves only when the choice differs.
    m_jobs->setBackendSetup([devices](Backend& backend) {
        const std::vector<int> now = backend.devices();
        if (now.empty()) return;  // the CPU
        if (devices.empty()) {
            if (now.size() > 1) backend.setDevices({now.front()});
        } else if (now != devices) {
            backend.setDevices(devices);
        }
    });
}

void MainWindow::createComputePanels() {
    // Each lane of the runner gets backends of its own (on CUDA: its own stream and handles).
    m_jobs = new JobRunner([] { return backendRegistry().create("auto"); },
                           [] { return backendRegistry().create("cpu"); }, this);
    // DBSCAN reads the device copy of the points that the resident job leaves in its backend.
    m_jobs->shareLane(kResidentJob, QStringLiteral("dbscan"));
    // The kNN graph runs on a lane of its own (a forest never waits for DBSCAN), with a copy of
    // the points there: no upload per run, and its trees kept between runs (H200, 1M points:
    // about 10 of 31 ms per k change).
    m_jobs->shareLane(kResidentKnnJob, QStringLiteral("knn"));
    applyDeviceChoice(m_backendChip->deviceChoice());
    connect(m_jobs, &JobRunner::finished, this, [](const JobOutcome& o) {
        if (!o.note.isEmpty()) logWarning(tr("%1: %2").arg(o.kind, o.note));
    });
    connect(m_jobs, &JobRunner::failed, this, [this](const JobOutcome& o) {
        const QString message = tr("%1 failed: %2").arg(o.kind, o.error);
        logError(message);
        statusBar()->showMessage(message + tr(" — the previous result is kept"), 15000);
    });
    connect(m_jobs, &JobRunner::cancelled, this, [this](const JobOutcome& o) {
        if (o.kind == kResidentJob || o.kind == kResidentKnnJob || o.kind == kResidentSeriesJob)
            return;  // newer data came
        statusBar()->showMessage(tr("%1 cancelled — the previous result is kept").arg(o.kind),
                                 5000);
    });
    // The device copies of the points and series on screen, for the views to draw from.
    connect(m_jobs, &JobRunner::finished, this, [this](const JobOutcome& o) {
        if (o.kind != kResidentJob && o.kind != kResidentSeriesJob) return;
        auto copy =
            *std::static_pointer_cast<const std::shared_ptr<const DeviceResident>>(o.result);
        if (o.kind == kResidentJob)
            m_pointView->setDevicePositions(std::move(copy));
        else
            m_seriesView->setDeviceSeries(m_seriesView->seriesSet(), std::move(copy));
    });
    connect(m_jobs, &JobRunner::failed, this, [this](const JobOutcome& o) {
        if (o.kind == kResidentJob) m_pointView->setDevicePositions(nullptr);
    });
    connect(m_jobs, &JobRunner::backendChanged, this,
            [this](const QString& name, const QString& reason) {
                logWarning(tr("compute backend switched to %1: %2").arg(name, reason));
                m_backendChip->showFallback(name, reason);
            });
    connect(m_jobs, &JobRunner::progress, this,
            [this](const QString& kind, std::uint64_t, double fraction, const QString& stage) {
                m_jobBar->setRange(0, 1000);
                m_jobBar->setValue(int(fraction * 1000));
                setStatusText(m_jobLabel, stage.isEmpty() ? kind : tr("%1: %2").arg(kind, stage));
            });
    connect(m_jobs, &JobRunner::busyChanged, this, &MainWindow::onJobBusyChanged);
    // Progress only for jobs that last: a flickering bar on every 20 ms run is noise.
    m_jobShowTimer.setSingleShot(true);
    m_jobShowTimer.setInterval(500);
    connect(&m_jobShowTimer, &QTimer::timeout, this, [this] {
        if (!m_jobs->isBusy()) return;
        m_jobBar->show();
        m_jobLabel->show();
        m_jobCancel->show();
    });

    // The algorithm panels, each in a tab of the right dock area. A panel's point colouring
    // (DBSCAN's clusters) is also a Colour by option; the other results go to the views the
    // panels were given (the kNN graph's edges, ROCKET's features, k-Shape's clusters).
    for (AlgorithmPanel* panel : makeBuiltinPanels(*m_jobs, *m_pointView, *m_seriesView)) {
        addPanel(panel);
        if (auto* p = qobject_cast<DbscanPanel*>(panel)) m_dbscanPanel = p;
        if (auto* p = qobject_cast<KnnPanel*>(panel)) m_knnPanel = p;
        if (auto* p = qobject_cast<RocketPanel*>(panel)) m_rocketPanel = p;
        if (auto* p = qobject_cast<KShapePanel*>(panel)) m_kshapePanel = p;
    }
    m_panels.front().second->raise();
    // A run adds its colouring ("clusters (DBSCAN)") to Colour by.
    for (const auto& [panel, dock] : m_panels)
        connect(panel, &AlgorithmPanel::resultChanged, this, &MainWindow::rebuildColourMenu);
}

void MainWindow::addPanel(AlgorithmPanel* panel) {
    auto* dock = new QDockWidget(QString::fromStdString(panel->descriptor().title), this);
    dock->setObjectName(panel->kind() + QStringLiteral("Dock"));
    dock->setWidget(new PanelScrollArea(panel));
    dock->setAllowedAreas(Qt::LeftDockWidgetArea | Qt::RightDockWidgetArea);
    addDockWidget(Qt::RightDockWidgetArea, dock);
    if (m_panels.empty())
        resizeDocks({dock}, {340}, Qt::Horizontal);
    else
        tabifyDockWidget(m_panels.back().second, dock);
    Algorithm algorithm = panel->algorithm();
    // A run asked for (the automation's --run) brings its panel to the front.
    algorithm.run = [dock, run = algorithm.run] {
        dock->show();
        dock->raise();
        run();
    };
    if (algorithm.sweep)
        algorithm.sweep = [this, dock, name = algorithm.name(), sweep = algorithm.sweep] {
            m_lastSwept = name;
            dock->show();
            dock->raise();
            sweep();
        };
    m_algorithms.add(std::move(algorithm));
    connect(panel, &AlgorithmPanel::statusMessage, this,
            [this](const QString& text, int ms) { statusBar()->showMessage(text, ms); });
    connect(panel, &AlgorithmPanel::exportRequested, this,
            [this, panel] { exportResultInteractively(panel->kind()); });
    connect(panel, &AlgorithmPanel::resultChanged, this, &MainWindow::updateViewActions);
    connect(panel, &AlgorithmPanel::parametersEdited, this,
            [this, panel](const ParameterValues& before, const ParameterValues& after) {
                m_undo->push(new ParameterEdit(*panel, before, after));
            });
    // Each panel's options merge among themselves only (an opacity drag is one step).
    const int viewOptionsId = kViewOptionsUndoId + int(m_panels.size());
    connect(panel, &AlgorithmPanel::viewOptionsEdited, this,
            [this, panel, viewOptionsId](const QVariantMap& before, const QVariantMap& after) {
                m_undo->push(new ViewSettingEdit(
                    tr("%1 view").arg(QString::fromStdString(panel->descriptor().title)),
                    viewOptionsId, before, after,
                    [panel](const QVariant& v) { panel->setViewOptions(v.toMap()); }, true));
            });
    m_panels.emplace_back(panel, dock);
}

void MainWindow::createInspector() {
    m_inspector = new PointInspector(*m_jobs, m_dbscanPanel, m_knnPanel);
    m_seriesInspector = new SeriesInspector(*m_jobs, m_kshapePanel, m_rocketPanel);
    // One dock, one page per view: it shows what was picked in the view in front.
    m_inspectorPages = new QStackedWidget;
    m_inspectorPages->addWidget(m_inspector);
    m_inspectorPages->addWidget(m_seriesInspector);
    connect(m_stack, &QStackedWidget::currentChanged, this, [this] {
        m_inspectorPages->setCurrentWidget(currentView() == View::Series
                                               ? static_cast<QWidget*>(m_seriesInspector)
                                               : static_cast<QWidget*>(m_inspector));
    });
    // A click inspects a series (and selects it alone); Ctrl+click adds it to the selection or
    // takes it out, Shift+click on rows selects a range (SeriesView::seriesSelectionRequested).
    connect(m_seriesView, &SeriesView::seriesClicked, this,
            [this](qint64 index, Qt::KeyboardModifiers modifiers) {
                if (index >= 0 && !(modifiers & (Qt::ControlModifier | Qt::ShiftModifier)))
                    inspectSeries(std::size_t(index));
            });
    connect(m_seriesView, &SeriesView::seriesSelectionRequested, this,
            [this](const std::vector<std::uint32_t>& indices, SeriesView::SelectAction action) {
                m_selection->selectSeries(indices, action == SeriesView::SelectAction::Add
                                                       ? SelectionModel::Mode::Add
                                                   : action == SeriesView::SelectAction::Remove
                                                       ? SelectionModel::Mode::Remove
                                                       : SelectionModel::Mode::Replace);
            });
    connect(m_selection, &SelectionModel::changed, this,
            [this] { m_seriesView->setSelectedSeries(m_selection->series()); });
    m_recordedSelection = std::make_shared<const SelectionModel::State>();
    connect(m_selection, &SelectionModel::changed, this, &MainWindow::recordSelection);
    m_inspectorDock = new QDockWidget(tr("Inspector"), this);
    m_inspectorDock->setObjectName(QStringLiteral("inspectorDock"));
    m_inspectorDock->setWidget(m_inspectorPages);
    m_inspectorDock->setAllowedAreas(Qt::LeftDockWidgetArea | Qt::RightDockWidgetArea |
                                     Qt::BottomDockWidgetArea);
    // Below the algorithm panels, not in their tabs: a pinned point stays in sight while its
    // parameters change.
    addDockWidget(Qt::RightDockWidgetArea, m_inspectorDock, Qt::Vertical);
    m_inspectorDock->hide();

    connect(m_pointView, &PointCloudView::pointClicked, this, [this](qint64 index) {
        if (index >= 0) inspectPoint(std::size_t(index));
    });
    connect(m_pointView, &PointCloudView::pointHovered, this,
            [this](qint64 index, QPoint globalPos) {
                if (index < 0)
                    QToolTip::hideText();
                else
                    QToolTip::showText(globalPos, m_inspector->tooltip(std::size_t(index)),
                                       m_pointView);
            });
    connect(m_pointView, &PointCloudView::boxSelected, this,
            [this](const QRectF& box, Qt::KeyboardModifiers modifiers) {
                selectInRegion(m_pointView->boxProjection(box), modifiers);
            });
    connect(m_pointView, &PointCloudView::lassoSelected, this,
            [this](const QPolygonF& lasso, Qt::KeyboardModifiers modifiers) {
                selectInRegion(m_pointView->lassoProjection(lasso), modifiers);
            });
    connect(m_pointView, &PointCloudView::legendClicked, this, &MainWindow::onLegendClicked);
    // Cluster ids name other clusters after a new run: what was hidden by id shows again.
    connect(m_dbscanPanel, &AlgorithmPanel::resultChanged, this, [this] {
        m_hiddenClusters.clear();
        updatePointHighlight();
    });
    connect(m_inspector, &PointInspector::inspected, this, &MainWindow::updatePointHighlight);
    connect(m_inspector, &PointInspector::cleared, this, &MainWindow::updatePointHighlight);
    connect(m_selection, &SelectionModel::changed, this, &MainWindow::updatePointHighlight);
    connect(m_jobs, &JobRunner::finished, this, [this](const JobOutcome& o) {
        if (o.kind != kSelectJob) return;
        const auto& [indices, mode] = *std::static_pointer_cast<
            const std::pair<std::vector<std::uint32_t>, SelectionModel::Mode>>(o.result);
        m_selection->selectPoints(indices, mode);
        statusBar()->showMessage(tr("%1 points selected").arg(count(m_selection->points().size())),
                                 5000);
    });

    m_selectClusterAction = new QAction(tr("Select the inspected point's &cluster"), this);
    m_selectClusterAction->setShortcut(QKeySequence(tr("Ctrl+Shift+A")));
    connect(m_selectClusterAction, &QAction::triggered, this, [this] {
        const auto& p = m_inspector->inspection();
        if (!p || !p->cluster || *p->cluster < 0) {
            statusBar()->showMessage(tr("Inspect a point of a cluster first"), 5000);
            return;
        }
        if (const QString error = selectCluster(*p->cluster); !error.isEmpty())
            statusBar()->showMessage(error, 5000);
    });
    m_isolateAction = new QAction(tr("&Isolate the selection"), this);
    m_isolateAction->setCheckable(true);
    m_isolateAction->setShortcut(QKeySequence(tr("Ctrl+Shift+I")));
    m_isolateAction->setToolTip(
        tr("Hide the points outside the selection instead of dimming "
           "them"));
    connect(m_isolateAction, &QAction::toggled, this, [this](bool on) {
        if (on == m_isolated) return;
        setIsolated(on);
        if (m_undoing || m_restore) return;
        m_undo->push(new ViewSettingEdit(
            on ? tr("Isolate the selection") : tr("Dim the points outside the selection"), -1, !on,
            on,
            [this](const QVariant& v) {
                m_undoing = true;
                setIsolated(v.toBool());
                m_undoing = false;
            },
            true));
    });
    m_invertAction = new QAction(tr("In&vert the selection"), this);
    m_invertAction->setShortcut(QKeySequence(tr("Ctrl+Shift+V")));
    connect(m_invertAction, &QAction::triggered, m_selection, &SelectionModel::invertPoints);
    m_clearSelectionAction = new QAction(tr("&Clear the selection"), this);
    m_clearSelectionAction->setShortcut(QKeySequence(tr("Ctrl+Shift+X")));
    connect(m_clearSelectionAction, &QAction::triggered, m_selection, &SelectionModel::clear);
    m_lassoAction = new QAction(tr("&Lasso instead of box"), this);
    m_lassoAction->setCheckable(true);
    m_lassoAction->setShortcut(QKeySequence(tr("Ctrl+Shift+L")));
    m_lassoAction->setToolTip(tr("Ctrl+drag in the point view draws a free outline"));
    connect(m_lassoAction, &QAction::toggled, m_pointView, &PointCloudView::setLassoMode);
    m_exportSelectionAction = new QAction(tr("Export the &selection…"), this);
    m_exportSelectionAction->setToolTip(
        tr("Write the selected points with their rows in the file as CSV"));
    connect(m_exportSelectionAction, &QAction::triggered, this,
            &MainWindow::exportSelectionInteractively);
    createRunOnSelectionActions();
}

void MainWindow::createRunOnSelectionActions() {
    m_runOnSelectionMenu = new QMenu(tr("&Run on the selection only"), this);
    m_runOnSelectionMenu->setToolTipsVisible(true);
    for (const auto& [panel, dock] : m_panels) {
        const bool series = panel->descriptor().input == InputKind::Series;
        QAction* a = m_runOnSelectionMenu->addAction(
            QString::fromStdString(panel->descriptor().title), this, [this, kind = panel->kind()] {
                if (const QString error = runOnSelection(kind); !error.isEmpty())
                    statusBar()->showMessage(error, 8000);
            });
        a->setData(panel->kind());
        a->setToolTip(series ? tr("Run %1 on the selected series alone; the others are left out")
                                   .arg(QString::fromStdString(panel->descriptor().title))
                             : tr("Run %1 on the selected points alone; the others are left out")
                                   .arg(QString::fromStdString(panel->descriptor().title)));
    }
    m_runOnAllAction = new QAction(tr("Run on &all again"), this);
    m_runOnAllAction->setToolTip(
        tr("Lift the limit to a selection from every method and run them on all the data"));
    m_runOnAllAction->setEnabled(false);
    connect(m_runOnAllAction, &QAction::triggered, this, [this] {
        if (!runOnAllAgain()) statusBar()->showMessage(tr("No method runs on a selection"), 5000);
    });
    for (const auto& [panel, dock] : m_panels)
        connect(panel, &AlgorithmPanel::runSubsetChanged, this, [this] {
            bool any = false;
            for (const auto& [p, d] : m_panels)
                any = any || p->runSubset() != nullptr;
            m_runOnAllAction->setEnabled(any);
        });
}

QString MainWindow::runOnSelection(const QString& algorithm) {
    AlgorithmPanel* panel = nullptr;
    for (const auto& [p, dock] : m_panels)
        if (p->kind() == algorithm) panel = p;
    if (!panel)
        return tr("there is no method '%1' (there are: %2)")
            .arg(algorithm, m_algorithms.names().join(QStringLiteral(", ")));
    const bool series = panel->descriptor().input == InputKind::Series;
    const QString title = QString::fromStdString(panel->descriptor().title);
    const std::size_t total = series
                                  ? (m_seriesView->seriesSet() ? m_seriesView->seriesSet()->n : 0)
                                  : m_pointView->pointCount();
    const auto& selected = series ? m_selection->series() : m_selection->points();
    if (total == 0)
        return tr("%1 runs on %2: none are loaded")
            .arg(title, series ? tr("series") : tr("points"));
    if (selected.empty() ||
        (series ? m_selection->seriesCount() : m_selection->pointCount()) != total)
        return series ? tr("select series first (Ctrl+click them in the series view) to run %1 "
                           "on them alone")
                            .arg(title)
                      : tr("select points first (Ctrl+drag a box in the point view, or click a "
                           "legend entry) to run %1 on them alone")
                            .arg(title);
    std::shared_ptr<const ItemSubset> subset;
    try {
        subset = std::make_shared<const ItemSubset>(ItemSubset::of(selected, total));
    } catch (const Error& e) {
        return QString::fromUtf8(e.what());
    }
    if (const auto now = panel->runSubset(); now && now->indices == subset->indices) {
        panel->run();  // the same selection: a plain re-run, no new undo step
        return {};
    }
    logInfo(
        tr("running %1 on the selection: %2 of %3 %4")
            .arg(title, count(subset->size()), count(total), series ? tr("series") : tr("points")));
    // Its dock to the front, as --run does: the summary says what it ran on.
    for (const auto& [p, dock] : m_panels)
        if (p == panel) {
            dock->show();
            dock->raise();
        }
    m_undo->push(new RunSubsetEdit(*panel, panel->runSubset(), std::move(subset)));
    return {};
}

bool MainWindow::runOnAllAgain() {
    bool any = false;
    for (const auto& [panel, dock] : m_panels)
        if (panel->runSubset()) {
            any = true;
            m_undo->push(new RunSubsetEdit(*panel, panel->runSubset(), nullptr));
        }
    return any;
}

void MainWindow::recordSelection() {
    auto now = std::make_shared<const SelectionModel::State>(m_selection->state());
    if (*now == *m_recordedSelection) return;
    auto before = std::exchange(m_recordedSelection, now);
    // Steps made by undo itself, or by a session being restored, are not new steps.
    if (m_undoing || m_restore) return;
    m_undo->push(new SelectionEdit(std::move(before), std::move(now),
                                   [this](const SelectionModel::State& state) {
                                       m_undoing = true;
                                       m_selection->setState(state);
                                       m_undoing = false;
                                   }));
}

void MainWindow::showInspectorDock() {
    if (m_inspectorDock->isHidden()) {
        m_inspectorDock->show();
        // Room for the facts and a few neighbours, taken from the panels above.
        resizeDocks({m_inspectorDock}, {std::max(360, height() / 2)}, Qt::Vertical);
    }
    m_inspectorDock->raise();
}

void MainWindow::inspectPoint(std::size_t index) {
    showInspectorDock();
    m_inspector->inspect(index);
}

void MainWindow::inspectSeries(std::size_t index) {
    showInspectorDock();
    m_seriesInspector->inspect(index);
}

QString MainWindow::selectCluster(int id, SelectionModel::Mode mode) {
    const auto run = m_dbscanPanel ? m_dbscanPanel->lastRun() : nullptr;
    if (!run || !m_dbscanPanel->hasClusters())
        return tr("no DBSCAN clusters to select from: run DBSCAN first");
    const DbscanResult& r = run->result;
    if (id < -1 || id >= r.clusterCount)
        return r.clusterCount == 0 ? tr("DBSCAN found no clusters: there is no cluster %1").arg(id)
                                   : tr("there is no cluster %1: DBSCAN found clusters 0 to %2")
                                         .arg(id)
                                         .arg(r.clusterCount - 1);
    std::vector<std::uint32_t> members;
    for (std::size_t i = 0; i < r.labels.size(); ++i)
        if (r.labels[i] == id) members.push_back(std::uint32_t(i));
    m_selection->selectPoints(members, mode);
    logInfo(tr("%1 %2: %3 points")
                .arg(mode == SelectionModel::Mode::Remove ? tr("deselected") : tr("selected"),
                     id < 0 ? tr("the noise") : tr("cluster %1").arg(id))
                .arg(count(members.size())));
    return {};
}

void MainWindow::setClusterHidden(int id, bool hidden) {
    QSet<int> next = m_hiddenClusters;
    if (hidden)
        next.insert(id);
    else
        next.remove(id);
    if (next == m_hiddenClusters) return;
    const QVariant before = clusterIds(m_hiddenClusters);
    applyHiddenClusters(next);
    if (m_undoing || m_restore) return;
    const QString name = id < 0 ? tr("the noise") : tr("cluster %1").arg(id);
    m_undo->push(new ViewSettingEdit(
        hidden ? tr("Hide %1").arg(name) : tr("Show %1").arg(name), -1, before, clusterIds(next),
        [this](const QVariant& v) { applyHiddenClusters(clusterIds(v)); }, true));
}

void MainWindow::applyHiddenClusters(const QSet<int>& hidden) {
    m_hiddenClusters = hidden;
    updatePointHighlight();
}

void MainWindow::onLegendClicked(int entry, Qt::KeyboardModifiers modifiers) {
    const Legend& legend = m_pointView->legend();
    if (entry < 0 || std::size_t(entry) >= legend.entries.size()) return;
    const auto& category = legend.entries[std::size_t(entry)].category;
    if (!category || !m_dbscanPanel->hasClusters() ||
        shownColourId() != panelColourId(*m_dbscanPanel))
        return;
    const int id = *category;
    QString error;
    if (modifiers & Qt::AltModifier)
        setClusterHidden(id, !isClusterHidden(id));
    else if (modifiers & Qt::ControlModifier)
        error = selectCluster(id, SelectionModel::Mode::Remove);
    else if (modifiers & Qt::ShiftModifier)
        error = selectCluster(id, SelectionModel::Mode::Add);
    else
        error = selectCluster(id);
    if (!error.isEmpty()) statusBar()->showMessage(error, 5000);
}

void MainWindow::setIsolated(bool isolated) {
    if (isolated == m_isolated) return;
    m_isolated = isolated;
    const QSignalBlocker blocker(m_isolateAction);
    m_isolateAction->setChecked(isolated);
    updatePointHighlight();
}

void MainWindow::updatePointHighlight() {
    const std::size_t n = m_pointView->pointCount();
    std::vector<std::uint8_t> mask;
    const auto run = m_dbscanPanel->hasClusters() ? m_dbscanPanel->lastRun() : nullptr;
    if (m_selection->hasPoints() && m_selection->pointCount() == n) {
        mask.assign(n, m_isolated ? PointCloudView::Hidden : PointCloudView::Dimmed);
        for (std::uint32_t i : m_selection->points())
            mask[i] = PointCloudView::Shown;
    } else if (const auto& p = m_inspector->inspection(); p && p->cluster && *p->cluster >= 0) {
        if (run && run->result.labels.size() == n) {
            mask.assign(n, PointCloudView::Dimmed);
            for (std::size_t i = 0; i < n; ++i)
                if (run->result.labels[i] == *p->cluster) mask[i] = PointCloudView::Shown;
        }
    }
    // Points a DBSCAN run on a selection left out are greyed, whatever else is shown.
    if (run && run->result.labels.size() == n && m_dbscanPanel->resultSubset()) {
        if (mask.empty()) mask.assign(n, PointCloudView::Shown);
        for (std::size_t i = 0; i < n; ++i)
            if (run->result.labels[i] == kNotRun && mask[i] == PointCloudView::Shown)
                mask[i] = PointCloudView::Dimmed;
    }
    if (!m_hiddenClusters.isEmpty() && run && run->result.labels.size() == n) {
        if (mask.empty()) mask.assign(n, PointCloudView::Shown);
        for (std::size_t i = 0; i < n; ++i)
            if (m_hiddenClusters.contains(run->result.labels[i])) mask[i] = PointCloudView::Hidden;
    }
    m_pointView->setPointMask(std::move(mask));
    // The legend marks the clusters the selection holds whole.
    std::vector<std::int32_t> whole;
    if (run && m_selection->hasPoints() && run->result.labels.size() == n) {
        std::vector<std::size_t> selected(std::size_t(run->result.clusterCount) + 1, 0);
        for (std::uint32_t i : m_selection->points())
            if (run->result.labels[i] >= -1)                         // not kNotRun
                ++selected[std::size_t(run->result.labels[i] + 1)];  // noise first
        for (std::size_t c = 0; c < selected.size(); ++c) {
            const DbscanStats& stats = run->result.stats;
            const std::size_t size = c == 0 ? stats.noisePoints : stats.clusterSizes[c - 1];
            if (selected[c] > 0 && selected[c] == size) whole.push_back(std::int32_t(c) - 1);
        }
    }
    m_pointView->setHighlightedCategories(std::move(whole));
    std::vector<std::uint32_t> marked;
    if (const auto& p = m_inspector->inspection()) {
        marked.push_back(std::uint32_t(p->index));
        for (const Neighbour& nb : p->neighbours)
            marked.push_back(std::uint32_t(nb.index));
    }
    m_pointView->setMarkedPoints(std::move(marked));
}

void MainWindow::selectInRegion(const PointCloudView::BoxProjection& region,
                                Qt::KeyboardModifiers modifiers) {
    const auto points = m_pointView->pointSet();
    if (!points) return;
    const auto mode = modifiers & Qt::AltModifier     ? SelectionModel::Mode::Remove
                      : modifiers & Qt::ShiftModifier ? SelectionModel::Mode::Add
                                                      : SelectionModel::Mode::Replace;
    using Found = std::pair<std::vector<std::uint32_t>, SelectionModel::Mode>;
    m_jobs->submit<Found>(kSelectJob, [points, projection = region, mode](Backend&, JobControl&) {
        return Found{PointCloudView::pointsInBox(*points, projection), mode};
    });
}

QString MainWindow::exportSelection(const QString& path) const {
    const auto points = m_pointView->pointSet();
    if (!points || !m_selection->hasPoints()) return tr("no points selected to export");
    const PointSet& p = *points;
    std::string text = "index,original_index";
    for (std::size_t j = 0; j < p.dims; ++j)
        text += "," + (j < p.dimNames.size() ? p.dimNames[j] : "c" + std::to_string(j));
    text += '\n';
    for (std::uint32_t i : m_selection->points()) {
        text += std::to_string(i) + ',' + std::to_string(p.fileRow(i));
        for (float v : p.point(i))
            text += ',' + QString::number(double(v), 'g', 9).toStdString();
        text += '\n';
    }
    try {
        io::writeFileBytes(path.toStdString(), text);
    } catch (const std::exception& e) {
        return QString::fromUtf8(e.what());
    }
    logInfo(tr("%1 selected points written to %2").arg(count(m_selection->points().size()), path));
    return {};
}

void MainWindow::exportSelectionInteractively() {
    if (!m_selection->hasPoints()) {
        statusBar()->showMessage(tr("Select points first (Ctrl+drag a box in the point view)"),
                                 5000);
        return;
    }
    const QString base = QFileInfo(currentName()).completeBaseName();
    QString path = QFileDialog::getSaveFileName(this, tr("Export the selection"),
                                                exportDirectory().filePath(base + kSelectionEnding),
                                                tr("Selected points (*%1)").arg(kSelectionEnding));
    if (path.isEmpty()) return;
    rememberExportDirectory(path);
    if (!path.endsWith(kSelectionEnding, Qt::CaseInsensitive))
        path =
            QFileInfo(path).dir().filePath(QFileInfo(path).completeBaseName() + kSelectionEnding);
    reportExport(path, exportSelection(path));
}

void MainWindow::raiseKnnPanel() {
    for (const auto& [panel, dock] : m_panels)
        if (panel == m_knnPanel) {
            dock->show();
            dock->raise();
        }
}

QString MainWindow::importKnnGraph(const QString& path) {
    // As --run does: the panel that shows the result comes to the front.
    raiseKnnPanel();
    return m_knnPanel->importGraph(path);
}

void MainWindow::raisePanelFor(InputKind input) {
    // A panel for this data already in front stays there. Tabbed docks behind the front one
    // stay "visible", parked outside the window: what is in front is what has pixels on screen.
    for (auto& [panel, dock] : m_panels)
        if (panel->descriptor().input == input && !panel->visibleRegion().isEmpty()) return;
    for (auto& [panel, dock] : m_panels)
        if (panel->descriptor().input == input && !dock->isHidden()) {
            dock->raise();
            return;
        }
}

void MainWindow::onJobBusyChanged(bool busy) {
    if (busy) {
        m_jobBar->setRange(0, 0);
        setStatusText(m_jobLabel, tr("Computing…"));
        m_jobShowTimer.start();
        return;
    }
    m_jobShowTimer.stop();
    m_jobBar->hide();
    m_jobLabel->hide();
    m_jobCancel->hide();
}

void MainWindow::exportResultInteractively(const QString& algorithmName) {
    const Algorithm* algorithm = m_algorithms.find(algorithmName);
    if (!algorithm || !algorithm->exportTo) return;
    const AlgorithmDescriptor& d = *algorithm->descriptor;
    QStringList filters;
    for (const ExportSpec& e : d.exports)
        filters
            << tr("%1 (*%2)").arg(QString::fromStdString(e.what), QString::fromStdString(e.suffix));
    QString filter = filters.front();
    const QString base = QFileInfo(currentName()).completeBaseName();
    QString path = QFileDialog::getSaveFileName(
        this, tr("Export %1").arg(algorithm->title()),
        exportDirectory().filePath(base + QString::fromStdString(d.exports.front().suffix)),
        filters.join(QStringLiteral(";;")), &filter);
    if (path.isEmpty()) return;
    rememberExportDirectory(path);
    const ExportSpec& chosen =
        d.exports[std::size_t(std::max<qsizetype>(0, filters.indexOf(filter)))];
    path = withExportEnding(path, d, chosen);
    reportExport(path, algorithm->exportTo(chosen.id, path));
}

void MainWindow::reportExport(const QString& path, const QString& error) {
    if (!error.isEmpty()) {
        logError(error);
        QMessageBox::warning(this, tr("Export failed"), error);
    } else {
        statusBar()->showMessage(tr("Exported %1").arg(path), 5000);
    }
}

void MainWindow::createActions() {
    m_openAction = new QAction(tr("&Open…"), this);
    m_openAction->setShortcut(QKeySequence::Open);
    connect(m_openAction, &QAction::triggered, this, &MainWindow::openInteractively);

    m_exportAction = new QAction(tr("&Export…"), this);
    m_exportAction->setShortcut(QKeySequence(tr("Ctrl+E")));
    m_exportAction->setToolTip(tr("Save the current view as PNG, or its data as .npy"));
    connect(m_exportAction, &QAction::triggered, this, &MainWindow::exportInteractively);

    m_openSessionAction = new QAction(tr("Open &Session…"), this);
    m_openSessionAction->setToolTip(
        tr("Open a saved session, or a PNG exported by Clusterscope, with its data, parameters "
           "and views"));
    connect(m_openSessionAction, &QAction::triggered, this, &MainWindow::openSessionInteractively);
    m_saveSessionAction = new QAction(tr("Save Session &As…"), this);
    m_saveSessionAction->setShortcut(QKeySequence(tr("Ctrl+Shift+S")));
    m_saveSessionAction->setToolTip(
        tr("Save the data's place, every method's parameters and the views as one JSON file"));
    connect(m_saveSessionAction, &QAction::triggered, this, &MainWindow::saveSessionInteractively);

    m_quitAction = new QAction(tr("&Quit"), this);
    m_quitAction->setShortcut(QKeySequence(tr("Ctrl+Q")));
    m_quitAction->setMenuRole(QAction::QuitRole);
    connect(m_quitAction, &QAction::triggered, this, &QWidget::close);

    auto* viewGroup = new QActionGroup(this);
    m_pointViewAction = new QAction(tr("&Point view"), viewGroup);
    m_pointViewAction->setShortcut(QKeySequence(tr("Ctrl+1")));
    m_pointViewAction->setCheckable(true);
    m_pointViewAction->setChecked(true);
    connect(m_pointViewAction, &QAction::triggered, this, [this] { setCurrentView(View::Points); });
    m_seriesViewAction = new QAction(tr("&Series view"), viewGroup);
    m_seriesViewAction->setShortcut(QKeySequence(tr("Ctrl+2")));
    m_seriesViewAction->setCheckable(true);
    connect(m_seriesViewAction, &QAction::triggered, this,
            [this] { setCurrentView(View::Series); });

    // Single keys act on the point view from anywhere in the window (it is the only view they
    // mean something in; they are disabled while the series view is in front).
    m_resetCameraAction = new QAction(tr("&Reset camera"), this);
    m_resetCameraAction->setShortcut(QKeySequence(Qt::Key_R));
    connect(m_resetCameraAction, &QAction::triggered, m_pointView, &PointCloudView::resetCamera);
    m_fitAction = new QAction(tr("&Fit to data"), this);
    m_fitAction->setShortcut(QKeySequence(Qt::Key_F));
    connect(m_fitAction, &QAction::triggered, m_pointView, &PointCloudView::fitToData);
    m_largerAction = new QAction(tr("&Larger points"), this);
    m_largerAction->setObjectName(QStringLiteral("largerPointsAction"));
    m_largerAction->setShortcuts({QKeySequence(Qt::Key_Plus), QKeySequence(Qt::Key_Equal)});
    connect(m_largerAction, &QAction::triggered, m_pointView, &PointCloudView::increasePointSize);
    m_smallerAction = new QAction(tr("&Smaller points"), this);
    m_smallerAction->setObjectName(QStringLiteral("smallerPointsAction"));
    m_smallerAction->setShortcut(QKeySequence(Qt::Key_Minus));
    connect(m_smallerAction, &QAction::triggered, m_pointView, &PointCloudView::decreasePointSize);
    for (QAction* a : {m_resetCameraAction, m_fitAction, m_largerAction, m_smallerAction})
        addAction(a);
    // Camera presets on the keys of a numeric keypad's views (1 front, 3 side, 7 top, 0 the
    // camera's own), as in Blender; F (Fit to data) is the fifth.
    m_cameraMenu = new QMenu(tr("C&amera"), this);
    using Preset = PointCloudView::ViewPreset;
    const std::tuple<Preset, QString, Qt::Key> presets[] = {
        {Preset::Front, tr("&Front"), Qt::Key_1},
        {Preset::Side, tr("&Side"), Qt::Key_3},
        {Preset::Top, tr("&Top"), Qt::Key_7},
        {Preset::Sensor, tr("From the s&ensor (PCD VIEWPOINT)"), Qt::Key_0}};
    for (const auto& [preset, text, key] : presets) {
        QAction* a = m_cameraMenu->addAction(text, this,
                                             [this, p = preset] { m_pointView->setViewPreset(p); });
        a->setShortcut(QKeySequence(key));
        addAction(a);
    }

    m_fullScreenAction = new QAction(tr("F&ull screen"), this);
    // F11 everywhere: QKeySequence::FullScreen is empty on some X11 desktops.
    m_fullScreenAction->setShortcut(QKeySequence(Qt::Key_F11));
    m_fullScreenAction->setCheckable(true);
    connect(m_fullScreenAction, &QAction::toggled, this,
            [this](bool on) { on ? showFullScreen() : showNormal(); });

    m_themeGroup = new QActionGroup(this);
    for (Theme theme : {Theme::System, Theme::Light, Theme::Dark}) {
        const QString text = theme == Theme::System  ? tr("&System")
                             : theme == Theme::Light ? tr("&Light")
                                                     : tr("&Dark");
        auto* a = new QAction(text, m_themeGroup);
        a->setCheckable(true);
        a->setChecked(theme == currentTheme());
        connect(a, &QAction::triggered, this, [theme] {
            applyTheme(theme);
            saveTheme(theme);
        });
    }

    m_shortcutsAction = new QAction(tr("&Keyboard shortcuts"), this);
    m_shortcutsAction->setShortcut(QKeySequence(Qt::Key_F1));
    connect(m_shortcutsAction, &QAction::triggered, this, [this] {
        ShortcutsDialog dialog(menuBar(), this);
        dialog.exec();
    });
    m_aboutAction = new QAction(tr("&About Clusterscope"), this);
    m_aboutAction->setMenuRole(QAction::AboutRole);
    connect(m_aboutAction, &QAction::triggered, this,
            [this] { QMessageBox::about(this, tr("About Clusterscope"), aboutText()); });
}

void MainWindow::createMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(m_openAction);
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    rebuildRecentMenu();
    QMenu* demo = file->addMenu(tr("&Demo data"));
    for (std::size_t n : {std::size_t(10'000), std::size_t(100'000), std::size_t(1'000'000),
                          std::size_t(10'000'000)})
        demo->addAction(tr("%1 points").arg(count(n)), this, [this, n] { openDemoPoints(n); });
    demo->addSeparator();
    demo->addAction(tr("Time series (600 × 256, 5 classes)"), this, &MainWindow::openDemoSeries);
    file->addSeparator();
    file->addAction(m_openSessionAction);
    m_recentSessionsMenu = file->addMenu(tr("Open Recent Sess&ion"));
    rebuildRecentSessionsMenu();
    file->addAction(m_saveSessionAction);
    file->addSeparator();
    file->addAction(m_exportAction);
    file->addAction(m_exportSelectionAction);
    // Beside the exports: the graph clusterscope-cli knn --out wrote (e.g. under mpirun).
    QAction* importGraph = file->addAction(tr("Import &kNN graph…"), this, [this] {
        raiseKnnPanel();
        m_knnPanel->importInteractively();
    });
    importGraph->setObjectName(QStringLiteral("importKnnGraphAction"));
    importGraph->setToolTip(
        tr("Show a kNN graph built elsewhere (.npy from clusterscope-cli "
           "knn --out) for the points loaded"));
    file->addSeparator();
    file->addAction(m_quitAction);

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    QAction* undo = m_undo->createUndoAction(this, tr("&Undo"));
    undo->setObjectName(QStringLiteral("undoAction"));
    undo->setShortcut(QKeySequence::Undo);
    QAction* redo = m_undo->createRedoAction(this, tr("&Redo"));
    redo->setObjectName(QStringLiteral("redoAction"));
    // Ctrl+Shift+Z everywhere, and the platform's own (Ctrl+Y on some) as well.
    QList<QKeySequence> redoKeys{QKeySequence(tr("Ctrl+Shift+Z"))};
    for (const QKeySequence& k : QKeySequence::keyBindings(QKeySequence::Redo))
        if (!redoKeys.contains(k)) redoKeys << k;
    redo->setShortcuts(redoKeys);
    edit->addAction(undo);
    edit->addAction(redo);

    QMenu* view = menuBar()->addMenu(tr("&View"));
    view->addAction(m_pointViewAction);
    view->addAction(m_seriesViewAction);
    view->addSeparator();
    view->addAction(m_resetCameraAction);
    view->addAction(m_fitAction);
    view->addMenu(m_cameraMenu);
    QMenu* size = view->addMenu(tr("Point &size"));
    size->setObjectName(QStringLiteral("pointSizeMenu"));
    m_pointSizeMenu = size;
    size->addAction(m_largerAction);
    size->addAction(m_smallerAction);
    {
        // Who draws the points: kept across sessions, for a driver where one of them misbehaves.
        QMenu* renderers = view->addMenu(tr("Point &renderer"));
        renderers->setObjectName(QStringLiteral("pointRendererMenu"));
        auto* group = new QActionGroup(this);
        const auto saved =
            PointCloudView::rendererFromName(QSettings().value(kPointRendererKey).toString())
                .value_or(PointCloudView::PointRenderer::Automatic);
        m_pointView->setPointRenderer(saved);
        const std::pair<PointCloudView::PointRenderer, QString> choices[] = {
            {PointCloudView::PointRenderer::Automatic,
             tr("&Automatic (CUDA splats from 1 million points)")},
            {PointCloudView::PointRenderer::GlPoints, tr("&OpenGL points")},
            {PointCloudView::PointRenderer::Splats, tr("&CUDA splats where interop works")}};
        for (const auto& [renderer, label] : choices) {
            QAction* a = renderers->addAction(
                label, this, [this, renderer] { setPointRenderer(renderer, true); });
            a->setObjectName(QStringLiteral("pointRenderer_") +
                             PointCloudView::rendererName(renderer));
            a->setCheckable(true);
            a->setChecked(renderer == saved);
            group->addAction(a);
        }
        m_pointRendererGroup = group;
    }
    m_colourMenu = view->addMenu(tr("&Colour by"));
    {
        // Scalar colourings (coordinates, scalar attributes, kNN distances): the map and a
        // robust range, kept across sessions.
        ScalarStyle style;
        style.map = ColourMaps::mapFromName(QSettings().value(kColourMapKey).toString())
                        .value_or(ColourMaps::Map::Viridis);
        const QString range = QSettings().value(kColourRangeKey).toString();
        if (!range.isEmpty() && !style.parseRange(range, nullptr)) style = ScalarStyle{style.map};
        m_pointView->setScalarStyle(style);
        QMenu* maps = view->addMenu(tr("Colour &map"));
        auto* mapGroup = new QActionGroup(this);
        for (ColourMaps::Map map : ColourMaps::kMaps) {
            QAction* a = maps->addAction(ColourMaps::mapName(map), this, [this, map] {
                ScalarStyle s = m_pointView->scalarStyle();
                s.map = map;
                m_pointView->setScalarStyle(s);
                QSettings().setValue(kColourMapKey, ColourMaps::mapName(map));
            });
            a->setCheckable(true);
            a->setChecked(map == style.map);
            mapGroup->addAction(a);
        }
        maps->addSeparator();
        maps->addAction(tr("Colour &range…"), this, [this] {
            bool ok = false;
            const QString text = QInputDialog::getText(
                this, tr("Colour range"),
                tr("Percentiles (p2:p98, the default; p0:p100 is the full range) or values "
                   "(MIN:MAX):"),
                QLineEdit::Normal, m_pointView->scalarStyle().rangeText(), &ok);
            if (!ok) return;
            ScalarStyle s = m_pointView->scalarStyle();
            QString error;
            if (!s.parseRange(text, &error)) {
                QMessageBox::warning(this, tr("Colour range"), error);
                return;
            }
            m_pointView->setScalarStyle(s);
            QSettings().setValue(kColourRangeKey, s.rangeText());
        });
    }
    QMenu* up = view->addMenu(tr("&Up axis"));
    auto* upGroup = new QActionGroup(this);
    // kAutomaticUp (the default) or the int of the PointCloudView::UpAxis the user chose.
    int savedUp = QSettings().value(kUpAxisKey, kAutomaticUp).toInt();
    if (savedUp != kAutomaticUp && (savedUp < 0 || savedUp > int(PointCloudView::UpAxis::MinusZ)))
        savedUp = kAutomaticUp;
    m_upAutomatic = savedUp == kAutomaticUp;
    if (!m_upAutomatic) m_pointView->setUpAxis(PointCloudView::UpAxis(savedUp));
    const std::pair<int, QString> ups[] = {
        {kAutomaticUp, tr("Automatic (−Y for clouds in front of a camera, else +Y)")},
        {int(PointCloudView::UpAxis::PlusY), tr("+Y")},
        {int(PointCloudView::UpAxis::MinusY), tr("−Y (camera and depth-sensor clouds)")},
        {int(PointCloudView::UpAxis::PlusZ), tr("+Z (LiDAR, scans)")},
        {int(PointCloudView::UpAxis::MinusZ), tr("−Z")}};
    for (const auto& [id, text] : ups) {
        QAction* a = up->addAction(text, this, [this, id] {
            QSettings().setValue(kUpAxisKey, id);
            m_upAutomatic = id == kAutomaticUp;
            if (m_upAutomatic)
                chooseUpAxis();
            else
                m_pointView->setUpAxis(PointCloudView::UpAxis(id));
        });
        a->setCheckable(true);
        a->setChecked(id == savedUp);
        a->setData(id);
        upGroup->addAction(a);
    }
    m_upMenu = up;
    m_colourGroup = new QActionGroup(this);
    view->addSeparator();
    for (auto& [panel, dock] : m_panels) {
        QAction* action = dock->toggleViewAction();
        action->setText(tr("%1 panel").arg(QString::fromStdString(panel->descriptor().title)));
        action->setShortcut(panel->viewShortcut());
        view->addAction(action);
    }
    QAction* inspectorAction = m_inspectorDock->toggleViewAction();
    inspectorAction->setText(tr("&Inspector"));
    inspectorAction->setShortcut(QKeySequence(tr("Ctrl+I")));
    view->addAction(inspectorAction);
    QAction* logAction = m_logDock->toggleViewAction();
    logAction->setText(tr("&Log"));
    logAction->setShortcut(QKeySequence(tr("Ctrl+L")));
    view->addAction(logAction);
    QMenu* theme = view->addMenu(tr("&Theme"));
    theme->addActions(m_themeGroup->actions());
    view->addAction(m_fullScreenAction);

    QMenu* select = menuBar()->addMenu(tr("&Select"));
    select->addAction(m_selectClusterAction);
    select->addAction(m_lassoAction);
    select->addSeparator();
    select->addAction(m_isolateAction);
    select->addAction(m_invertAction);
    select->addAction(m_clearSelectionAction);
    select->addSeparator();
    select->addMenu(m_runOnSelectionMenu);
    select->addAction(m_runOnAllAction);
    select->addSeparator();
    select->addAction(m_exportSelectionAction);

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(m_shortcutsAction);
    help->addAction(m_aboutAction);
}

void MainWindow::createToolBar() {
    QToolBar* bar = addToolBar(tr("Main"));
    bar->setObjectName(QStringLiteral("mainToolBar"));
    bar->setMovable(false);
    bar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_openAction->setIcon(style()->standardIcon(QStyle::SP_DialogOpenButton));
    m_exportAction->setIcon(style()->standardIcon(QStyle::SP_DialogSaveButton));
    bar->addAction(m_openAction);
    bar->addAction(m_exportAction);
    bar->addSeparator();
    bar->addAction(m_pointViewAction);
    bar->addAction(m_seriesViewAction);
    bar->addSeparator();
    m_colourBox = new QComboBox;
    m_colourBox->setObjectName(QStringLiteral("colourBox"));
    m_colourBox->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_colourBox->setToolTip(tr("Colour the points by a coordinate or an attribute"));
    connect(m_colourBox, &QComboBox::activated, this,
            [this](int index) { chooseColourBy(m_colourBox->itemData(index).toString()); });
    auto* colourWidget = new QWidget;
    auto* colourLayout = new QHBoxLayout(colourWidget);
    colourLayout->setContentsMargins(4, 0, 4, 0);
    auto* colourLabel = new QLabel(tr("Colour by:"));
    colourLabel->setBuddy(m_colourBox);
    colourLayout->addWidget(colourLabel);
    colourLayout->addWidget(m_colourBox);
    m_colourBoxAction = bar->addWidget(colourWidget);
    bar->addAction(m_resetCameraAction);
    bar->addAction(m_fitAction);
}

void MainWindow::createStatusBar() {
    m_busyBar = new QProgressBar;
    m_busyBar->setRange(0, 0);  // indeterminate: readers report no progress
    m_busyBar->setMaximumWidth(110);
    m_busyBar->setMaximumHeight(14);
    m_busyBar->setTextVisible(false);
    m_busyBar->hide();
    m_busyLabel = new QLabel;
    m_busyLabel->hide();
    m_dataLabel = new QLabel;
    m_dataLabel->setObjectName(QStringLiteral("dataLabel"));
    // Room between the count and whatever is left of it (a message, the job's progress).
    m_dataLabel->setContentsMargins(12, 0, 6, 0);
    m_backendChip = new BackendChip;
    m_jobLabel = new QLabel;
    m_jobLabel->hide();
    m_jobBar = new QProgressBar;
    m_jobBar->setMaximumWidth(110);
    m_jobBar->setMaximumHeight(14);
    m_jobBar->setTextVisible(false);
    m_jobBar->hide();
    auto* cancel = new QToolButton;
    cancel->setText(tr("Cancel"));
    cancel->setToolTip(tr("Stop the running computation; the previous result stays on screen"));
    cancel->setAutoRaise(true);
    connect(cancel, &QToolButton::clicked, this, [this] { m_jobs->cancelAll(); });
    cancel->hide();
    m_jobCancel = cancel;
    statusBar()->addPermanentWidget(m_jobLabel);
    statusBar()->addPermanentWidget(m_jobBar);
    statusBar()->addPermanentWidget(m_jobCancel);
    statusBar()->addPermanentWidget(m_busyLabel);
    statusBar()->addPermanentWidget(m_busyBar);
    statusBar()->addPermanentWidget(m_dataLabel);
    statusBar()->addPermanentWidget(m_backendChip);
    connect(m_backendChip, &BackendChip::deviceChoiceChanged, this,
            [this](const std::vector<int>& devices) {
                applyDeviceChoice(devices);
                logInfo(tr("the kNN graph and ROCKET run on GPU%1 %2")
                            .arg(devices.size() > 1 ? QStringLiteral("s") : QString(),
                                 QString::fromStdString(deviceListText(devices))));
            });
}

void MainWindow::openFile(const QString& path, io::DataKind kind) {
    if (kind == io::DataKind::Auto && isSessionFileName(path)) {
        openSession(path);
        return;
    }
    abandonRestore();
    const auto kindText = io::toString(kind);
    logInfo(tr("opening %1%2")
                .arg(path, kind == io::DataKind::Auto
                               ? QString()
                               : tr(" as %1").arg(QString::fromUtf8(kindText.data(),
                                                                    qsizetype(kindText.size())))));
    m_loader->loadFile(path, kind);
}

void MainWindow::openDemoPoints(std::size_t n) {
    abandonRestore();
    m_loader->loadDemoPoints(n);
}

void MainWindow::openDemoSeries() {
    abandonRestore();
    m_loader->loadDemoSeries();
}

bool MainWindow::isBusy() const {
    return m_loader->isBusy() || m_restore.has_value();
}

bool MainWindow::isSettled() const {
    if (isBusy() || m_algorithms.isBusy() || m_inspector->isBusy() || m_seriesInspector->isBusy() ||
        m_jobs->isBusy(kSelectJob))
        return false;
    // A hidden window draws nothing, so there is nothing to wait for.
    if (!isVisible()) return true;
    // The series view's heat maps draw in GL too: wait for the one in front.
    if (currentView() == View::Series) return m_seriesView->isContentDrawn();
    if (m_pointView->pointCount() == 0) return true;
    // A view that cannot draw (no GL 3.3) will never report a frame; it has settled too.
    return m_pointView->isContentDrawn() || !m_pointView->glError().isEmpty();
}

MainWindow::View MainWindow::currentView() const {
    return m_stack->currentWidget() == m_seriesView ? View::Series : View::Points;
}

void MainWindow::setCurrentView(View view) {
    m_stack->setCurrentWidget(view == View::Series ? static_cast<QWidget*>(m_seriesView)
                                                   : static_cast<QWidget*>(m_pointView));
    (view == View::Series ? m_seriesViewAction : m_pointViewAction)->setChecked(true);
}

QString MainWindow::currentName() const {
    return currentView() == View::Series ? m_seriesName : m_pointsName;
}

void MainWindow::onLoaded(const LoadedDataset& dataset) {
    const QString from = dataset.path.isEmpty() ? dataset.name : dataset.path;
    const QString took = tr("in %1 s").arg(dataset.seconds, 0, 'f', 2);
    const SessionData source{
        .path = dataset.path.isEmpty() ? QString() : QFileInfo(dataset.path).absoluteFilePath(),
        .kind = dataset.kind,
        .contentHash = dataset.contentHash,
        .demoPoints = dataset.path.isEmpty() && dataset.points ? dataset.points->n : 0,
        .demoSeries = dataset.path.isEmpty() && dataset.series != nullptr};
    if (dataset.points) {
        const PointSet& p = *dataset.points;
        m_pointsName = dataset.name;
        m_pointsSource = source;
        m_pointView->setPointSet(dataset.points);
        m_inspector->setPointSet(dataset.points);
        m_selection->setPointCount(p.n);
        // A limit to a selection of other data means nothing for these.
        for (auto& [panel, dock] : m_panels)
            if (panel->descriptor().input == InputKind::Points) panel->setRunSubset(nullptr);
        if (m_upAutomatic) chooseUpAxis();
        // One upload for the algorithms and the view: with CUDA running, the view draws the
        // positions from the compute copy (interop) instead of uploading them itself.
        if (m_jobs->backendName() == QLatin1String("cuda")) m_pointView->expectDevicePositions();
        // Queued before the panels' jobs: with an accelerator they all find the points there.
        m_jobs->submit<std::shared_ptr<const DeviceResident>>(
            kResidentJob, [points = dataset.points](Backend& backend, JobControl& job) {
                return backend.keepResident(points, job);
            });
        // (Asked of any backend: before the first job the runner does not know its name yet;
        // without an accelerator it keeps nothing.)
        if (!p.sparse)
            m_jobs->submit<std::shared_ptr<const DeviceResident>>(
                kResidentKnnJob, [points = dataset.points](Backend& backend, JobControl& job) {
                    return backend.keepResident(points, job);
                });
        for (auto& [panel, dock] : m_panels)
            panel->setPointSet(dataset.points);
        // The point panels come to the front again if a series panel was.
        raisePanelFor(InputKind::Points);
        setCurrentView(View::Points);
        if (p.sparse)
            // The view is the rows' principal components; the kNN graph runs on the rows.
            logInfo(tr("%1 sparse rows × %2 columns (%3 stored entries) loaded from %4, shown "
                       "by their first 3 principal components %5")
                        .arg(count(p.sparse->n), count(p.sparse->dims), count(p.sparse->nnz()),
                             from, took));
        else
            logInfo(tr("%1 points × %2 dims loaded from %3 (%4 dropped for NaN) %5")
                        .arg(count(p.n))
                        .arg(p.dims)
                        .arg(from, count(p.droppedNonFinite), took));
    } else if (dataset.series) {
        const SeriesSet& s = *dataset.series;
        m_seriesName = dataset.name;
        m_seriesSource = source;
        m_seriesView->setSeriesSet(dataset.series, dataset.name);
        m_selection->setSeriesCount(s.n);
        for (auto& [panel, dock] : m_panels)
            if (panel->descriptor().input == InputKind::Series) panel->setRunSubset(nullptr);
        m_seriesInspector->setSeriesSet(dataset.series);
        for (auto& [panel, dock] : m_panels)
            panel->setSeriesSet(dataset.series);
        raisePanelFor(InputKind::Series);
        m_jobs->submit<std::shared_ptr<const DeviceResident>>(
            kResidentSeriesJob, [series = dataset.series](Backend& backend, JobControl& job) {
                return backend.keepSeriesResident(series, job);
            });
        setCurrentView(View::Series);
        std::size_t test = 0;
        for (auto t : s.isTest)
            test += t;
        QString detail = tr("%1 classes").arg(s.classCount());
        if (!s.isTest.empty())
            detail += tr(", %1 train + %2 test").arg(count(s.n - test), count(test));
        if (!s.equalLength()) detail += tr(", variable length");
        if (!s.targets.empty()) detail += tr(", regression targets (not used here)");
        logInfo(tr("%1 series × %2 × %3 samples loaded from %4 (%5) %6")
                    .arg(count(s.n))
                    .arg(s.channels == 1 ? tr("1 channel") : tr("%1 channels").arg(s.channels))
                    .arg(count(s.length))
                    .arg(from, detail, took));
        // What the reader accepted past a header that disagrees with the data, or ignored. The
        // notes of a TRAIN/TEST pair already name their half.
        for (const auto& note : s.notes) {
            const QString text = QString::fromStdString(note);
            logWarning(s.isTest.empty() ? tr("%1: %2").arg(from, text) : text);
        }
    }
    // Parameter ranges belong to the data: steps back into other data's values would mislead.
    m_undo->clear();
    if (!dataset.path.isEmpty()) addRecent(dataset.path, dataset.kind);
    updateTitle();
    updateViewActions();
    statusBar()->showMessage(tr("Loaded %1").arg(dataset.name), 5000);
    emit datasetLoaded(dataset.name);
    if (m_restore && dataset.generation == m_restore->generation) restoreNextData();
}

void MainWindow::onLoadFailed(const QString& failure, const QString& path) {
    QString message = failure;
    if (m_restore) {
        // Whatever of the session had loaded stays; nothing more of it is applied.
        if (path != m_restore->path)
            message = tr("%1 (the session %2 is not restored)").arg(failure, m_restore->path);
        m_restore.reset();
        m_restoreTimer.stop();
    }
    logError(message);
    const QString name = path.isEmpty() ? tr("the demo data") : QFileInfo(path).fileName();
    statusBar()->showMessage(tr("Could not open %1: %2").arg(name, message), 15000);
    // Non-modal: the user keeps working with the data already on screen.
    if (!m_errorBox) {
        m_errorBox = new QMessageBox(QMessageBox::Warning, tr("Could not open the file"), QString(),
                                     QMessageBox::Close, this);
        m_errorBox->setWindowModality(Qt::NonModal);
    }
    m_errorBox->setText(tr("Could not open %1.").arg(name));
    m_errorBox->setInformativeText(tr("%1\n\nThe data shown before is kept.").arg(message));
    m_errorBox->show();
    m_errorBox->raise();
    emit loadFailed(message);
}

void MainWindow::onBusyChanged(bool busy) {
    m_busyBar->setVisible(busy);
    m_busyLabel->setVisible(busy);
    setStatusText(m_busyLabel, m_loader->activity());
    m_openAction->setEnabled(true);  // a newer request simply supersedes the running one
    if (busy)
        QApplication::setOverrideCursor(Qt::BusyCursor);
    else
        QApplication::restoreOverrideCursor();
}

void MainWindow::updateTitle() {
    const QString name = currentName();
    setWindowTitle(name.isEmpty() ? tr("Clusterscope") : tr("%1 — Clusterscope").arg(name));
    if (currentView() == View::Points)
        m_dataLabel->setText(m_pointView->pointSet() ? pointsSummary(*m_pointView->pointSet())
                                                     : QString());
    else
        m_dataLabel->setText(m_seriesView->seriesSet() ? seriesSummary(*m_seriesView->seriesSet())
                                                       : QString());
}

void MainWindow::updateViewActions() {
    const bool points = currentView() == View::Points && m_pointView->pointCount() > 0;
    for (QAction* a : {m_resetCameraAction, m_fitAction, m_largerAction, m_smallerAction})
        a->setEnabled(points);
    m_colourMenu->setEnabled(points);
    // The series view has no points to size.
    if (m_pointSizeMenu) m_pointSizeMenu->setEnabled(points);
    m_upMenu->setEnabled(currentView() == View::Points);
    for (QAction* a : m_cameraMenu->actions())
        a->setEnabled(points);
    m_colourBoxAction->setVisible(points);
    m_exportAction->setEnabled(currentView() == View::Points
                                   ? m_pointView->pointCount() > 0
                                   : m_seriesView->seriesSet() != nullptr);
}

void MainWindow::chooseUpAxis() {
    if (!m_pointView->pointSet()) return;
    const auto axis = m_pointView->suggestedUpAxis();
    if (axis == PointCloudView::UpAxis::MinusY)
        logInfo(
            tr("Up axis: −Y, as the points lie in front of a camera at the origin (a "
               "depth-sensor cloud); View ▸ Up axis to change"));
    m_pointView->setUpAxis(axis);
}

QString MainWindow::shownColourId() const {
    const QString id = m_pointView->colourBy();
    // setColours() leaves the view at "custom"; panels are the only callers.
    if (id == QLatin1String("custom"))
        for (const auto& [panel, dock] : m_panels)
            if (!panel->pointColouringTitle().isEmpty()) return panelColourId(*panel);
    return id;
}

void MainWindow::colourBy(const QString& id) {
    for (const auto& [panel, dock] : m_panels)
        if (id == panelColourId(*panel)) {
            panel->showPointColouring();
            return;
        }
    m_pointView->setColourBy(id);
}

void MainWindow::chooseColourBy(const QString& id) {
    const QString shown = shownColourId();
    if (id == shown) return;
    QString title = id;
    for (QAction* a : m_colourGroup->actions())
        if (a->data().toString() == id) title = a->text();
    m_undo->push(new ViewSettingEdit(
        tr("Colour by %1").arg(title), -1, shown, id,
        [this](const QVariant& v) { colourBy(v.toString()); }, false));
}

void MainWindow::recordPointSize(float size) {
    const float before = m_recordedPointSize;
    m_recordedPointSize = size;
    if (m_undoing || m_restore) return;
    m_undo->push(new ViewSettingEdit(
        tr("Point size"), 2, before, size,
        [this](const QVariant& v) {
            m_undoing = true;
            m_pointView->setPointSize(v.toFloat());
            m_undoing = false;
        },
        true));
}

void MainWindow::rebuildColourMenu() {
    std::vector<ColourOption> options = m_pointView->colourOptions();
    for (const auto& [panel, dock] : m_panels)
        if (const QString title = panel->pointColouringTitle(); !title.isEmpty())
            options.push_back({panelColourId(*panel), title});
    const QString shown = shownColourId();
    // Every result asks (a re-run of DBSCAN too); refilling an unchanged box relayouts the tool
    // bar and costs the window a second frame after the result's.
    std::vector<std::pair<QString, QString>> menu;
    for (const auto& option : options)
        menu.emplace_back(option.id, option.title);
    if (!menu.empty() && menu == m_colourMenuShown) {
        for (QAction* a : m_colourGroup->actions())
            a->setChecked(a->data().toString() == shown);
        const QSignalBlocker blocker(m_colourBox);
        m_colourBox->setCurrentIndex(m_colourBox->findData(shown));
        return;
    }
    m_colourMenuShown = std::move(menu);
    for (QAction* a : m_colourGroup->actions()) {
        m_colourGroup->removeAction(a);
        delete a;
    }
    m_colourMenu->clear();
    for (const auto& option : options) {
        auto* a = new QAction(option.title, m_colourGroup);
        a->setData(option.id);
        a->setCheckable(true);
        a->setChecked(option.id == shown);
        connect(a, &QAction::triggered, this, [this, id = option.id] { chooseColourBy(id); });
        m_colourMenu->addAction(a);
    }
    if (m_colourMenu->isEmpty())
        m_colourMenu->addAction(tr("(no points loaded)"))->setEnabled(false);
    const QSignalBlocker blocker(m_colourBox);
    m_colourBox->clear();
    for (const auto& option : options)
        m_colourBox->addItem(option.title, option.id);
    m_colourBox->setCurrentIndex(m_colourBox->findData(shown));
    // The tool bar keeps the width the box had when it was laid out: a later, longer entry
    // ("clusters (DBSCAN)") would be cut. So the box asks for its widest entry itself.
    int widest = 0;
    for (int i = 0; i < m_colourBox->count(); ++i)
        widest = std::max(widest,
                          m_colourBox->fontMetrics().horizontalAdvance(m_colourBox->itemText(i)));
    QStyleOptionComboBox option;
    option.initFrom(m_colourBox);
    m_colourBox->setMinimumWidth(
        m_colourBox->style()
            ->sizeFromContents(QStyle::CT_ComboBox, &option,
                               QSize(widest, m_colourBox->fontMetrics().height()), m_colourBox)
            .width());
    // Laid out now, not at the next event: a screenshot taken right after a run shows it whole.
    for (QWidget* w = m_colourBox->parentWidget(); w && w != this; w = w->parentWidget())
        if (QLayout* layout = w->layout()) layout->activate();
}

QStringList MainWindow::openFilters() {
    return {
        tr("All supported files (*.pcd *.ply *.xyz *.csv *.tsv *.txt *.npy *.npz *.svm *.libsvm "
           "*.svmlight *.ts *.arff *.json *.png *_TRAIN *_TEST)"),
        tr("Point clouds and sparse matrices (*.pcd *.ply *.xyz *.csv *.tsv *.txt *.npy *.npz "
           "*.svm *.libsvm *.svmlight)"),
        tr("Time series (*.ts *.arff *.csv *.tsv *.txt *_TRAIN *_TEST)"),
        tr("Sessions and images exported by Clusterscope (*.json *.png)"), tr("All files (*)")};
}

bool MainWindow::isAmbiguous(const QString& path) {
    const QFileInfo info(path);
    const QString suffix = info.suffix().toLower();
    const QString base = info.completeBaseName().toLower();
    if (base.endsWith(QLatin1String("_train")) || base.endsWith(QLatin1String("_test")))
        return false;
    return suffix == QLatin1String("csv") || suffix == QLatin1String("tsv") ||
           suffix == QLatin1String("txt");
}

void MainWindow::openInteractively() {
    QSettings settings;
    QString filter = openFilters().front();
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open data"), settings.value(kLastDirKey, QDir::homePath()).toString(),
        openFilters().join(QStringLiteral(";;")), &filter);
    if (path.isEmpty()) return;
    settings.setValue(kLastDirKey, QFileInfo(path).absolutePath());
    // The filter the user picked says what they mean by an ambiguous file.
    io::DataKind kind = io::DataKind::Auto;
    if (filter == openFilters().at(1)) kind = io::DataKind::Points;
    if (filter == openFilters().at(2)) kind = io::DataKind::Series;
    openWithKindQuestion(path, kind);
}

void MainWindow::openWithKindQuestion(const QString& path, io::DataKind kind) {
    if (kind == io::DataKind::Auto && isAmbiguous(path)) {
        QMessageBox box(QMessageBox::Question, tr("Open as"),
                        tr("%1 could hold a point cloud (one point per row) or time series (one "
                           "series per row, the class first).")
                            .arg(QFileInfo(path).fileName()),
                        QMessageBox::Cancel, this);
        QPushButton* points = box.addButton(tr("As &points"), QMessageBox::AcceptRole);
        QPushButton* series = box.addButton(tr("As &series"), QMessageBox::AcceptRole);
        box.setDefaultButton(points);
        box.exec();
        if (box.clickedButton() == points)
            kind = io::DataKind::Points;
        else if (box.clickedButton() == series)
            kind = io::DataKind::Series;
        else
            return;
    }
    openFile(path, kind);
}

void MainWindow::addRecent(const QString& path, io::DataKind kind) {
    const QString absolute = QFileInfo(path).absoluteFilePath();
    QSettings settings;
    QList<QPair<QString, int>> entries;
    entries.append({absolute, int(kind)});
    const int size = settings.beginReadArray(kRecentKey);
    for (int i = 0; i < size; ++i) {
        settings.setArrayIndex(i);
        const QString p = settings.value(QStringLiteral("path")).toString();
        if (p != absolute && entries.size() < kMaxRecent)
            entries.append({p, settings.value(QStringLiteral("kind")).toInt()});
    }
    settings.endArray();
    settings.beginWriteArray(kRecentKey, int(entries.size()));
    for (int i = 0; i < entries.size(); ++i) {
        settings.setArrayIndex(i);
        settings.setValue(QStringLiteral("path"), entries[i].first);
        settings.setValue(QStringLiteral("kind"), entries[i].second);
    }
    settings.endArray();
    rebuildRecentMenu();
}

QStringList MainWindow::recentFiles() const {
    QSettings settings;
    QStringList out;
    const int size = settings.beginReadArray(kRecentKey);
    for (int i = 0; i < size; ++i) {
        settings.setArrayIndex(i);
        out << settings.value(QStringLiteral("path")).toString();
    }
    settings.endArray();
    return out;
}

void MainWindow::rebuildRecentMenu() {
    m_recentMenu->clear();
    QSettings settings;
    const int size = settings.beginReadArray(kRecentKey);
    for (int i = 0; i < size; ++i) {
        settings.setArrayIndex(i);
        const QString path = settings.value(QStringLiteral("path")).toString();
        const auto kind = io::DataKind(settings.value(QStringLiteral("kind")).toInt());
        QAction* a = m_recentMenu->addAction(
            tr("&%1  %2").arg(i + 1 == 10 ? 0 : i + 1).arg(QFileInfo(path).fileName()), this,
            [this, path, kind] { openFile(path, kind); });
        a->setToolTip(path);
        a->setStatusTip(path);
    }
    settings.endArray();
    if (size == 0) m_recentMenu->addAction(tr("(none yet)"))->setEnabled(false);
    m_recentMenu->setToolTipsVisible(true);
    m_recentMenu->addSeparator();
    QAction* clear = m_recentMenu->addAction(tr("&Clear Recent"), this, [this] {
        QSettings().remove(kRecentKey);
        rebuildRecentMenu();
    });
    clear->setEnabled(size > 0);
}

QImage MainWindow::grabWindow() {
    m_logDock->writePending();  // the log as it shows a moment later
    return withSession(grab().toImage());
}

QImage MainWindow::withSession(QImage image) const {
    const Session session = currentSession();
    if (session.points || session.series)
        image.setText(QString::fromLatin1(kSessionPngKey),
                      QString::fromUtf8(sessionToJson(session, {}, JsonLayout::Compact)));
    return image;
}

Session MainWindow::currentSession() const {
    Session s;
    s.points = m_pointsSource;
    s.series = m_seriesSource;
    s.seriesInFront = currentView() == View::Series;
    // Tabbed docks behind the front one are parked outside the window (raisePanelFor).
    for (const auto& [panel, dock] : m_panels)
        if (!dock->isHidden() && !panel->visibleRegion().isEmpty()) {
            s.frontPanel = QString::fromStdString(panel->descriptor().name);
            break;
        }
    for (const auto& [panel, dock] : m_panels) {
        const QString imported = panel->hasResult() ? panel->importedFrom() : QString();
        s.methods.push_back(
            {&panel->descriptor(),
             panel->parameterValues(),
             panel->hasResult(),
             panel->runSubset() ? panel->runSubset()->indices : std::vector<std::uint32_t>{},
             imported.isEmpty() ? QString() : QFileInfo(imported).absoluteFilePath(),
             {}});
        if (const QVariantMap options = panel->sessionViewOptions(); !options.isEmpty())
            s.panelViews[panel->kind()] = options;
    }
    s.colourBy = shownColourId();
    s.pointSize = m_pointView->pointSize();
    s.upAxis = int(m_pointView->upAxis());
    if (m_pointView->pointCount() > 0) {
        const OrbitCamera& c = m_pointView->camera();
        s.camera = SessionCamera{c.target(), c.distance(), c.yaw(), c.pitch()};
    }
    s.seriesStyle = int(m_seriesView->style());
    s.seriesChannel = m_seriesView->channel();
    s.seriesSplit = int(m_seriesView->split());
    s.featureLayer = m_seriesView->featureLayer();
    s.selectedPoints = m_selection->points();
    s.selectedSeries = m_selection->series();
    s.isolated = m_isolated;
    s.hiddenClusters = {m_hiddenClusters.begin(), m_hiddenClusters.end()};
    std::sort(s.hiddenClusters.begin(), s.hiddenClusters.end());
    s.devices = m_backendChip->deviceChoice();
    return s;
}

QString MainWindow::saveSession(const QString& path, bool remember) {
    const Session session = currentSession();
    if (!session.points && !session.series)
        return tr("cannot save a session to %1: no data is loaded").arg(path);
    const QString absolute = QFileInfo(path).absoluteFilePath();
    try {
        const QByteArray json = sessionToJson(session, absolute);
        io::writeFileBytes(absolute.toStdString(), std::string_view(json.constData(), json.size()));
    } catch (const std::exception& e) {
        return QString::fromUtf8(e.what());
    }
    if (remember) {
        addRecentSession(absolute);
        logInfo(tr("session saved as %1").arg(absolute));
    }
    return {};
}

void MainWindow::openSession(const QString& path) {
    logInfo(tr("opening the session %1").arg(path));
    QString error;
    auto session = readSessionFile(path, m_algorithms.descriptors(), &error);
    // Data that moved is named before anything is loaded: the data on screen stays.
    for (const auto* data :
         {session ? &session->points : nullptr, session ? &session->series : nullptr}) {
        if (!data || !*data || (*data)->path.isEmpty() || QFileInfo::exists((*data)->path))
            continue;
        error = tr("%1: its data file %2 is missing (moved or deleted?); put it back, or open "
                   "the data and save the session again")
                    .arg(path, (*data)->path);
        session.reset();
        break;
    }
    if (!session) {
        m_restore.reset();
        onLoadFailed(error, path);
        return;
    }
    Restore restore{.session = *session, .path = QFileInfo(path).absoluteFilePath()};
    // The view in front is loaded last, so that it is the one on screen.
    const std::optional<SessionData>& first =
        session->seriesInFront ? session->points : session->series;
    const std::optional<SessionData>& last =
        session->seriesInFront ? session->series : session->points;
    for (const auto* data : {&first, &last})
        if (*data) restore.loads.push_back(**data);
    m_restore = std::move(restore);
    restoreNextData();
}

void MainWindow::abandonRestore() {
    // Other data asked for supersedes the session's loads: the session is not restored.
    if (!m_restore) return;
    logWarning(tr("the session %1 is not restored: other data was opened").arg(m_restore->path));
    m_restore.reset();
    m_restoreTimer.stop();
}

void MainWindow::restoreNextData() {
    if (m_restore->loads.empty()) {
        restoreMethods();
        return;
    }
    const SessionData data = m_restore->loads.front();
    m_restore->loads.erase(m_restore->loads.begin());
    if (data.demoSeries)
        m_restore->generation = m_loader->loadDemoSeries();
    else if (data.path.isEmpty())
        m_restore->generation = m_loader->loadDemoPoints(data.demoPoints);
    else
        m_restore->generation = m_loader->loadFile(data.path, data.kind, data.contentHash);
}

void MainWindow::restoreMethods() {
    const Session& s = m_restore->session;
    if (!s.devices.empty()) {
        // A session from a machine with more GPUs keeps the default device here.
        const int largest = *std::max_element(s.devices.begin(), s.devices.end());
        if (largest < m_backendChip->deviceCount())
            m_backendChip->setDeviceChoice(s.devices);
        else
            logWarning(tr("the session's GPUs %1 are not all on this machine; jobs run on the "
                          "default GPU")
                           .arg(QString::fromStdString(deviceListText(s.devices))));
    }
    setCurrentView(s.seriesInFront ? View::Series : View::Points);
    for (auto& [panel, dock] : m_panels)
        if (QString::fromStdString(panel->descriptor().name) == s.frontPanel) {
            dock->show();
            dock->raise();
        }
    if (m_pointView->pointCount() > 0) {
        m_pointView->setUpAxis(PointCloudView::UpAxis(s.upAxis));
        if (s.pointSize > 0) m_pointView->setPointSize(s.pointSize);
    }
    if (m_seriesView->seriesSet()) {
        m_seriesView->setChannel(s.seriesChannel);
        m_seriesView->setSplit(SeriesView::Split(s.seriesSplit));
    }
    for (auto& [panel, dock] : m_panels)
        if (const auto it = s.panelViews.find(panel->kind()); it != s.panelViews.end())
            panel->setViewOptions(it->second);
    // Every value first, then the runs: a run must see the session's values, not a mix.
    for (const SessionMethod& m : s.methods)
        for (auto& [panel, dock] : m_panels)
            if (&panel->descriptor() == m.descriptor) panel->applyParameters(m.values, false);
    for (const SessionMethod& m : s.methods)
        for (auto& [panel, dock] : m_panels) {
            if (&panel->descriptor() != m.descriptor) continue;
            panel->setRunSubset(nullptr);
            if (m.subset.empty()) continue;
            const bool series = panel->descriptor().input == InputKind::Series;
            const std::size_t total =
                series ? (m_seriesView->seriesSet() ? m_seriesView->seriesSet()->n : 0)
                       : m_pointView->pointCount();
            try {
                panel->setRunSubset(
                    std::make_shared<const ItemSubset>(ItemSubset::of(m.subset, total)));
            } catch (const Error& e) {
                logWarning(tr("%1 runs on all the data, not on the session's selection: %2")
                               .arg(QString::fromStdString(m.descriptor->title),
                                    QString::fromUtf8(e.what())));
            }
        }
    for (const SessionMethod& m : s.methods)
        for (auto& [panel, dock] : m_panels) {
            if (&panel->descriptor() != m.descriptor || !m.hadResult) continue;
            if (m.importedFrom.isEmpty()) {
                panel->run();
                continue;
            }
            // Imported, not computed: the same file again, or a warning (a run would show
            // another result under the imported one's name).
            if (const QString error = panel->importResult(m.importedFrom); !error.isEmpty())
                logWarning(tr("%1: the session's imported result is not restored: %2")
                               .arg(QString::fromStdString(m.descriptor->title), error));
        }
    m_restoreTimer.start();
}

void MainWindow::finishRestore() {
    if (m_algorithms.isBusy()) return;
    m_restoreTimer.stop();
    const Restore restore = std::move(*m_restore);
    m_restore.reset();
    const Session& s = restore.session;
    if (m_seriesView->seriesSet()) {
        m_seriesView->setStyle(SeriesView::Style(s.seriesStyle));
        if (m_seriesView->hasFeatureMatrix()) m_seriesView->setFeatureLayer(s.featureLayer);
    }
    if (m_pointView->pointCount() > 0) {
        if (!s.colourBy.isEmpty() && s.colourBy != shownColourId()) colourBy(s.colourBy);
        if (s.camera)
            m_pointView->setCameraPose(s.camera->target, s.camera->distance, s.camera->yaw,
                                       s.camera->pitch);
    }
    // The selection last: the runs' new results reset what was hidden by cluster id.
    if (const std::size_t dropped = m_selection->setState({s.selectedPoints, s.selectedSeries}))
        logWarning(tr("%1 selected indices of the session are past the end of the data; they "
                      "are left out")
                       .arg(count(dropped)));
    applyHiddenClusters({s.hiddenClusters.begin(), s.hiddenClusters.end()});
    setIsolated(s.isolated);
    m_undo->clear();
    addRecentSession(restore.path);
    logInfo(tr("session %1 restored").arg(restore.path));
    statusBar()->showMessage(tr("Session %1 restored").arg(QFileInfo(restore.path).fileName()),
                             5000);
    emit sessionRestored(restore.path);
}

void MainWindow::saveSessionInteractively() {
    QSettings settings;
    const QString base = QFileInfo(currentName()).completeBaseName();
    QString path = QFileDialog::getSaveFileName(
        this, tr("Save session"),
        QDir(settings.value(kLastDirKey, QDir::homePath()).toString())
            .filePath((base.isEmpty() ? tr("session") : base) + QLatin1String(kSessionSuffix)),
        tr("Clusterscope sessions (*.json)"));
    if (path.isEmpty()) return;
    if (QFileInfo(path).suffix().isEmpty()) path += QLatin1String(kSessionSuffix);
    const QString error = saveSession(path);
    if (!error.isEmpty()) {
        logError(error);
        QMessageBox::warning(this, tr("Could not save the session"), error);
        return;
    }
    statusBar()->showMessage(tr("Session saved as %1").arg(path), 5000);
}

void MainWindow::openSessionInteractively() {
    QSettings settings;
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open session"), settings.value(kLastDirKey, QDir::homePath()).toString(),
        tr("Sessions and images exported by Clusterscope (*.json *.png);;All files (*)"));
    if (path.isEmpty()) return;
    settings.setValue(kLastDirKey, QFileInfo(path).absolutePath());
    openSession(path);
}

QStringList MainWindow::recentSessions() const {
    return QSettings().value(kRecentSessionsKey).toStringList();
}

void MainWindow::addRecentSession(const QString& path) {
    QStringList paths = recentSessions();
    paths.removeAll(path);
    paths.prepend(path);
    while (paths.size() > kMaxRecent)
        paths.removeLast();
    QSettings().setValue(kRecentSessionsKey, paths);
    rebuildRecentSessionsMenu();
}

void MainWindow::rebuildRecentSessionsMenu() {
    m_recentSessionsMenu->clear();
    const QStringList paths = recentSessions();
    for (int i = 0; i < paths.size(); ++i) {
        const QString path = paths[i];
        QAction* a = m_recentSessionsMenu->addAction(
            tr("&%1  %2").arg(i + 1 == 10 ? 0 : i + 1).arg(QFileInfo(path).fileName()), this,
            [this, path] { openSession(path); });
        a->setToolTip(path);
        a->setStatusTip(path);
    }
    if (paths.isEmpty()) m_recentSessionsMenu->addAction(tr("(none yet)"))->setEnabled(false);
    m_recentSessionsMenu->setToolTipsVisible(true);
    m_recentSessionsMenu->addSeparator();
    QAction* clear = m_recentSessionsMenu->addAction(tr("&Clear Recent"), this, [this] {
        QSettings().remove(kRecentSessionsKey);
        rebuildRecentSessionsMenu();
    });
    clear->setEnabled(!paths.isEmpty());
}

QString MainWindow::savePng(const QImage& image, const QString& path) {
    QByteArray png;
    QBuffer buffer(&png);
    if (!buffer.open(QIODevice::WriteOnly) || !image.save(&buffer, "PNG"))
        return tr("cannot encode the image for %1").arg(path);
    try {
        io::writeFileBytes(path.toStdString(), std::string_view(png.constData(), png.size()));
    } catch (const std::exception& e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}

QString MainWindow::exportTo(const QString& path) {
    const QString suffix = QFileInfo(path).suffix().toLower();
    const bool series = currentView() == View::Series;
    if (suffix == QLatin1String("png")) {
        const QImage image =
            withSession(series ? m_seriesView->grab().toImage() : m_pointView->grabFramebuffer());
        if (QString error = savePng(image, path); !error.isEmpty()) return error;
        logInfo(tr("view saved as %1").arg(path));
        return {};
    }
    if (!series && path.endsWith(kSelectionEnding, Qt::CaseInsensitive))
        return exportSelection(path);
    // The algorithms' exports, by the most specific file-name ending, among the algorithms of
    // the data on screen (a .csv is DBSCAN's labels beside points, never beside series).
    std::vector<const AlgorithmDescriptor*> candidates;
    for (const AlgorithmDescriptor* d : m_algorithms.descriptors())
        if ((d->input == InputKind::Series) == series) candidates.push_back(d);
    if (const auto match = matchExport(candidates, path.toStdString())) {
        const Algorithm* algorithm =
            m_algorithms.find(QString::fromStdString(match->algorithm->name));
        return algorithm->exportTo(match->spec->id, path);
    }
    // NAME_sweep.csv beside series: the table of the sweep run last (k-Shape's and ROCKET's
    // own endings, _kshape_sweep.csv and _rocket_sweep.csv, name theirs).
    if (const Algorithm* swept = m_algorithms.find(m_lastSwept);
        swept && path.endsWith(QLatin1String("_sweep.csv"), Qt::CaseInsensitive) &&
        std::find(candidates.begin(), candidates.end(), swept->descriptor) != candidates.end())
        for (const ExportSpec& e : swept->descriptor->exports)
            if (e.suffix.ends_with("_sweep.csv")) return swept->exportTo(e.id, path);
    if (suffix != QLatin1String("npy")) {
        const QStringList kinds = exportHelpLines(candidates);
        return tr("cannot export to %1: use a .png (the view), .npy (the data) or one of: %2")
            .arg(path, kinds.join(QStringLiteral("; ")));
    }
    const std::filesystem::path file = path.toStdString();
    auto labelsFile = [&] {
        const QFileInfo info(path);
        return (info.dir().filePath(info.completeBaseName() + QStringLiteral("_labels.npy")))
            .toStdString();
    };
    try {
        if (series) {
            const auto s = m_seriesView->seriesSet();
            if (!s) return tr("no time series loaded");
            std::vector<std::size_t> shape =
                s->channels > 1 ? std::vector<std::size_t>{s->n, s->channels, s->length}
                                : std::vector<std::size_t>{s->n, s->length};
            io::writeNpy(file, std::span<const float>(s->values), shape);
            if (!s->labels.empty())
                io::writeNpy(labelsFile(), std::span<const std::int32_t>(s->labels), {s->n});
            logInfo(tr("%1 series written to %2%3")
                        .arg(count(s->n), path,
                             s->equalLength() ? QString() : tr(" (zero-padded to the longest)")));
        } else {
            const auto p = m_pointView->pointSet();
            if (!p) return tr("no points loaded");
            io::writeNpy(file, std::span<const float>(p->coords), {p->n, p->dims});
            if (const PointAttribute* truth = p->groundTruth())
                io::writeNpy(labelsFile(), std::span<const std::int32_t>(truth->labels), {p->n});
            logInfo(
                tr("%1 points × %2 dims written to %3").arg(count(p->n)).arg(p->dims).arg(path));
        }
    } catch (const std::exception& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

void MainWindow::exportInteractively() {
    // The view and the data, then every export of the results on screen, each as its
    // descriptor declares it.
    const QString pngFilter = tr("PNG image of the view (*.png)");
    const QString npyFilter = tr("NumPy array of the data (*.npy)");
    QStringList filters{pngFilter, npyFilter};
    std::vector<std::pair<const Algorithm*, const ExportSpec*>> exports;
    const InputKind shown = currentView() == View::Points ? InputKind::Points : InputKind::Series;
    for (auto& [panel, dock] : m_panels) {
        if (panel->descriptor().input != shown || !panel->hasResult()) continue;
        for (const ExportSpec& e : panel->descriptor().exports) {
            filters << tr("%1 (*%2)")
                           .arg(QString::fromStdString(e.what), QString::fromStdString(e.suffix));
            exports.emplace_back(m_algorithms.find(panel->kind()), &e);
        }
    }
    QString filter = pngFilter;
    const QString base = QFileInfo(currentName()).completeBaseName();
    QString path =
        QFileDialog::getSaveFileName(this, tr("Export"), exportDirectory().filePath(base),
                                     filters.join(QStringLiteral(";;")), &filter);
    if (path.isEmpty()) return;
    rememberExportDirectory(path);
    QString error;
    const qsizetype chosen = filters.indexOf(filter) - 2;
    if (chosen >= 0 && chosen < qsizetype(exports.size())) {
        const auto& [algorithm, spec] = exports[std::size_t(chosen)];
        path = withExportEnding(path, *algorithm->descriptor, *spec);
        error = algorithm->exportTo(spec->id, path);
    } else {
        if (QFileInfo(path).suffix().isEmpty()) path += filter == npyFilter ? ".npy" : ".png";
        error = exportTo(path);
    }
    reportExport(path, error);
}

QString MainWindow::aboutText() const {
    const auto& gl = m_pointView->glInfo();
    // The chip probed the backends on a worker; probing here could wait for CUDA start-up.
    QStringList backends = m_backendChip->toolTip().split(QLatin1Char('\n'));
    if (backends.size() > 1) backends.removeFirst();  // the tooltip's heading
    for (auto& line : backends)
        line = line.toHtmlEscaped();
    if (m_backendChip->toolTip().isEmpty()) backends = {tr("still being detected")};
    const QString glText = gl.renderer.isEmpty()
                               ? tr("not initialised yet")
                               : tr("%1<br>%2 — %3")
                                     .arg(gl.renderer.toHtmlEscaped(), gl.version.toHtmlEscaped(),
                                          gl.vendor.toHtmlEscaped());
    return tr("<h3>Clusterscope %1</h3>"
              "<p>GPU visual analytics for point clouds and time series: load data, tune DBSCAN, "
              "kNN graphs, k-Shape and ROCKET live, and see the result.</p>"
              "<table cellspacing='4'>"
              "<tr><td><b>Qt</b></td><td>%2 (built with %3)</td></tr>"
              "<tr><td><b>OpenGL</b></td><td>%4</td></tr>"
              "<tr><td valign='top'><b>Backends</b></td><td>%5</td></tr>"
              "</table><p>Licensed under the MIT licence.</p>")
        .arg(QStringLiteral(CS_VERSION), QString::fromLatin1(qVersion()),
             QStringLiteral(QT_VERSION_STR), glText, backends.join(QStringLiteral("<br>")));
}

void MainWindow::saveWindowState() {
    QSettings settings;
    settings.setValue(kGeometryKey, saveGeometry());
    settings.setValue(kStateKey, saveState());
}

void MainWindow::closeEvent(QCloseEvent* event) {
    saveWindowState();
    QMainWindow::closeEvent(event);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
    const auto urls = event->mimeData()->urls();
    if (urls.size() == 1 && urls.front().isLocalFile()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
    const auto urls = event->mimeData()->urls();
    if (urls.size() != 1 || !urls.front().isLocalFile()) return;
    event->acceptProposedAction();
    const QString path = urls.front().toLocalFile();
    // Ask after the drop has completed, not inside the drag-and-drop event loop.
    QMetaObject::invokeMethod(
        this, [this, path] { openWithKindQuestion(path, io::DataKind::Auto); },
        Qt::QueuedConnection);
}

void MainWindow::setPointRenderer(PointCloudView::PointRenderer renderer, bool remember) {
    m_pointView->setPointRenderer(renderer);
    const QString name = PointCloudView::rendererName(renderer);
    if (m_pointRendererGroup)
        for (QAction* a : m_pointRendererGroup->actions())
            a->setChecked(a->objectName() == QStringLiteral("pointRenderer_") + name);
    if (remember) QSettings().setValue(kPointRendererKey, name);
}

}  // namespace cs::ui
