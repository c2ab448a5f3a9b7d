// SPDX-License-Identifier: MIT
// Sessions: File ▸ Save session then Open session brings back the same parameters, results,
// camera and picture; exported PNGs carry their session and reopen it; bad session files and
// data that moved or changed give messages naming the file and the problem, and the data on
// screen stays. The command line's --session and --save-session, end to end.
#include <QDockWidget>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QProcess>
#include <QSignalSpy>
#include <QSlider>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>
#include <fstream>
#include <random>

#include "app/common/register_backends.h"
#include "compute/backend/backend_registry.h"
#include "compute/io/writers.h"
#include "tests/common/json_at.h"
#include "tests/ui/gui_test_main.h"
#include "ui/panels/dbscan/dbscan_panel.h"
#include "ui/panels/dbscan/sweep_heatmap.h"
#include "ui/panels/knn/knn_panel.h"
#include "ui/panels/kshape/kshape_panel.h"
#include "ui/panels/kshape/kshape_sweep_box.h"
#include "ui/panels/rocket/rocket_panel.h"
#include "ui/panels/rocket/rocket_sweep_box.h"
#include "ui/shell/backend_chip.h"
#include "ui/shell/main_window.h"
#include "ui/shell/selection_model.h"
#include "ui/shell/session.h"
#include "ui/views/points/point_cloud_view.h"
#include "ui/views/series/series_view.h"

using cs::ui::MainWindow;

namespace {

// Three blobs in 3-D as an .xyz file: a data file of the test's own, to move and change.
void writeBlobs(const QString& path, int perBlob = 300) {
    std::mt19937 rng(11);
    std::normal_distribution<float> noise(0.0f, 0.4f);
    std::ofstream out(path.toStdString());
    for (const auto& [cx, cy, cz] :
         {std::tuple{0.f, 0.f, 0.f}, std::tuple{6.f, 0.f, 1.f}, std::tuple{0.f, 7.f, -2.f}})
        for (int i = 0; i < perBlob; ++i)
            out << cx + noise(rng) << ' ' << cy + noise(rng) << ' ' << cz + noise(rng) << '\n';
}

bool settle(MainWindow& window) {
    return QTest::qWaitFor([&] { return window.isSettled(); }, 60000);
}

bool openAndWait(MainWindow& window, const QString& path) {
    QSignalSpy loaded(&window, &MainWindow::datasetLoaded);
    window.openFile(path);
    return QTest::qWaitFor([&] { return !loaded.isEmpty() && window.isSettled(); }, 60000);
}

bool restore(MainWindow& window, const QString& path) {
    QSignalSpy restored(&window, &MainWindow::sessionRestored);
    window.openSession(path);
    return QTest::qWaitFor([&] { return !restored.isEmpty() && window.isSettled(); }, 60000);
}

// The share of pixels that differ clearly between two images of the same size: a picture
// restored from a session is the same picture, up to rasterisation noise.
double differingShare(const QImage& a, const QImage& b) {
    if (a.size() != b.size()) return 1.0;
    int differ = 0, total = 0;
    for (int y = 0; y < a.height(); y += 2)
        for (int x = 0; x < a.width(); x += 2) {
            const QColor p = a.pixelColor(x, y), q = b.pixelColor(x, y);
            if (std::abs(p.red() - q.red()) + std::abs(p.green() - q.green()) +
                    std::abs(p.blue() - q.blue()) >
                60)
                ++differ;
            ++total;
        }
    return double(differ) / total;
}

int foregroundPixels(const QImage& image, const QColor& background) {
    int n = 0;
    for (int y = 0; y < image.height(); y += 2)
        for (int x = 0; x < image.width(); x += 2) {
            const QColor c = image.pixelColor(x, y);
            if (std::abs(c.red() - background.red()) + std::abs(c.green() - background.green()) +
                    std::abs(c.blue() - background.blue()) >
                24)
                ++n;
        }
    return n;
}

// What a session must bring back, read from a window.
struct Picture {
    std::vector<cs::ParameterValues> values;  // every panel's, in menu order
    std::vector<std::int32_t> labels;         // DBSCAN's
    bool knnResult = false;
    cs::ui::OrbitCamera camera;
    float pointSize = 0;
    QString colourBy;
    QVariantMap knnView;
    QImage frame;
};

Picture pictureOf(MainWindow& window) {
    Picture p;
    for (cs::ui::AlgorithmPanel* panel :
         {static_cast<cs::ui::AlgorithmPanel*>(window.dbscanPanel()),
          static_cast<cs::ui::AlgorithmPanel*>(window.knnPanel()),
          static_cast<cs::ui::AlgorithmPanel*>(window.rocketPanel()),
          static_cast<cs::ui::AlgorithmPanel*>(window.kshapePanel())})
        p.values.push_back(panel->parameterValues());
    if (const auto run = window.dbscanPanel()->lastRun()) p.labels = run->result.labels;
    p.knnResult = window.knnPanel()->hasResult();
    p.camera = window.pointView()->camera();
    p.pointSize = window.pointView()->pointSize();
    p.colourBy = window.pointView()->colourBy();
    p.knnView = window.knnPanel()->viewOptions();
    p.frame = window.pointView()->grabFramebuffer();
    return p;
}

}  // namespace

class TestSession : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_tmp;
    std::unique_ptr<MainWindow> m_window;

    QString tmp(const QString& name) const { return m_tmp.filePath(name); }

    std::unique_ptr<MainWindow> makeWindow() {
        auto window = std::make_unique<MainWindow>();
        window->resize(1100, 750);
        window->show();
        [&] { QVERIFY(QTest::qWaitForWindowExposed(window.get())); }();
        return window;
    }

    // Data on screen, DBSCAN and the kNN graph run with parameters of the test's choosing, the
    // camera turned and the points larger: a picture that differs from every default.
    void buildPicture(MainWindow& window, const QString& data) {
        QVERIFY(openAndWait(window, data));
        // One DBSCAN run, as the restored window makes: the clusters' colours then match too.
        cs::ParameterValues dbscan;
        dbscan.set("eps", 0.9);
        dbscan.set("minPts", std::int64_t(7));
        window.dbscanPanel()->applyParameters(dbscan, false);
        window.dbscanPanel()->run();
        window.knnPanel()->setK(6);
        window.knnPanel()->run();
        window.rocketPanel()->setKernels(3000);  // no series: a value only
        window.knnPanel()->opacitySlider()->setValue(80);
        QVERIFY(settle(window));
        QVERIFY(window.dbscanPanel()->hasResult());
        QVERIFY(window.knnPanel()->hasResult());
        window.pointView()->orbit(35.0f, -12.0f);
        window.pointView()->zoom(0.8f);
        window.pointView()->increasePointSize();
        QVERIFY(settle(window));
    }

    // The demo series beside the points on screen.
    void openDemoSeriesToo(MainWindow& window) {
        QSignalSpy loaded(&window, &MainWindow::datasetLoaded);
        window.openDemoSeries();
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 30000);
        QVERIFY(settle(window));
    }

    void expectFailure(MainWindow& window, const QString& session, const QStringList& words) {
        const std::size_t before = window.pointView()->pointCount();
        QSignalSpy failed(&window, &MainWindow::loadFailed);
        QSignalSpy restored(&window, &MainWindow::sessionRestored);
        window.openSession(session);
        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 30000);
        const QString message = failed.front().front().toString();
        for (const QString& word : words)
            QVERIFY2(message.contains(word),
                     qPrintable(message + QStringLiteral(" lacks ") + word));
        QVERIFY(settle(window));
        QCOMPARE(restored.count(), 0);
        QCOMPARE(window.pointView()->pointCount(), before);  // the data on screen stays
        QVERIFY(!window.isRestoringSession());
    }

private slots:
    void initTestCase() {
        QVERIFY(m_tmp.isValid());
        QSettings().clear();
        cs::app::registerBuiltinBackends();
        writeBlobs(tmp(QStringLiteral("blobs.xyz")));
    }

    void init() { m_window = makeWindow(); }
    void cleanup() { m_window.reset(); }

    void saveThenOpenGivesTheSamePicture() {
        buildPicture(*m_window, tmp(QStringLiteral("blobs.xyz")));
        const QString session = tmp(QStringLiteral("round.session.json"));
        QCOMPARE(m_window->saveSession(session), QString());
        const Picture saved = pictureOf(*m_window);
        QVERIFY(foregroundPixels(saved.frame, m_window->pointView()->backgroundColour()) > 400);
        QCOMPARE(m_window->recentSessions().value(0), session);
        m_window.reset();

        // Another window, with other data on screen, opens it.
        m_window = makeWindow();
        QVERIFY(openAndWait(*m_window, tmp(QStringLiteral("blobs.xyz"))));
        m_window->openDemoPoints(500);
        QVERIFY(settle(*m_window));
        QVERIFY(restore(*m_window, session));
        const Picture back = pictureOf(*m_window);
        QCOMPARE(back.values.size(), saved.values.size());
        for (std::size_t i = 0; i < saved.values.size(); ++i)
            QVERIFY2(back.values[i] == saved.values[i], qPrintable(QString::number(i)));
        QCOMPARE(std::get<double>(*back.values[0].find("eps")), 0.9);
        QCOMPARE(std::get<std::int64_t>(*back.values[1].find("k")), std::int64_t(6));
        QCOMPARE(back.labels, saved.labels);
        QVERIFY(!back.labels.empty());
        QVERIFY(back.knnResult);
        QCOMPARE(back.camera.target(), saved.camera.target());
        QCOMPARE(back.camera.distance(), saved.camera.distance());
        QCOMPARE(back.camera.yaw(), saved.camera.yaw());
        QCOMPARE(back.camera.pitch(), saved.camera.pitch());
        QCOMPARE(back.pointSize, saved.pointSize);
        QCOMPARE(back.colourBy, saved.colourBy);
        QCOMPARE(back.knnView, saved.knnView);
        QCOMPARE(back.knnView.value(QStringLiteral("edgeOpacity")).toInt(), 80);
        const double share = differingShare(saved.frame, back.frame);
        QVERIFY2(share < 0.02, qPrintable(QStringLiteral("%1 of the pixels differ").arg(share)));
        QVERIFY(cs::test::logged(QStringLiteral("restored")));
    }

    void seriesMethodsComeBack() {
        // The series methods the same way: k-Shape's clusters and ROCKET's features, with the
        // series view showing the clusters.
        QSignalSpy loaded(m_window.get(), &MainWindow::datasetLoaded);
        m_window->openDemoSeries();
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 30000);
        QVERIFY(settle(*m_window));
        cs::ParameterValues kshape;
        kshape.set("k", std::int64_t(4));
        kshape.set("seed", std::int64_t(7));
        m_window->kshapePanel()->applyParameters(kshape, false);
        m_window->kshapePanel()->run();
        cs::ParameterValues rocket;
        rocket.set("kernels", std::int64_t(300));
        m_window->rocketPanel()->applyParameters(rocket, false);
        m_window->rocketPanel()->run();
        QVERIFY(settle(*m_window));
        QVERIFY(m_window->seriesView()->setStyle(cs::ui::SeriesView::Style::Clusters));
        const QString session = tmp(QStringLiteral("series.session.json"));
        QCOMPARE(m_window->saveSession(session), QString());
        const auto labels = m_window->kshapePanel()->lastRun()->result->labels;
        const auto features = m_window->rocketPanel()->lastRun()->features->values;
        m_window.reset();

        m_window = makeWindow();
        QVERIFY(restore(*m_window, session));
        QCOMPARE(m_window->currentView(), MainWindow::View::Series);
        QCOMPARE(m_window->seriesView()->style(), cs::ui::SeriesView::Style::Clusters);
        QCOMPARE(m_window->kshapePanel()->parameterValues().integer("k"), std::int64_t(4));
        QCOMPARE(m_window->kshapePanel()->lastRun()->result->labels, labels);
        QCOMPARE(m_window->rocketPanel()->parameterValues().integer("kernels"), std::int64_t(300));
        QVERIFY(m_window->rocketPanel()->lastRun()->features->values == features);
    }

    void selectionComesBack() {
        // Points and series on screen, a selection of each, Isolate on, a cluster hidden and
        // DBSCAN limited to a selection: the session brings back all of it.
        buildPicture(*m_window, tmp(QStringLiteral("blobs.xyz")));
        openDemoSeriesToo(*m_window);
        m_window->setCurrentView(MainWindow::View::Points);
        QCOMPARE(m_window->selectCluster(0), QString());
        QCOMPARE(m_window->runOnSelection(QStringLiteral("dbscan")), QString());
        QVERIFY(settle(*m_window));
        const auto subset = m_window->dbscanPanel()->runSubset();
        QVERIFY(subset && subset->size() > 10 && subset->size() < 900);
        const std::vector<std::uint32_t> points{0, 1, 2, 3, 250, 251, 899};
        const std::vector<std::uint32_t> series{4, 5, 6, 100, 599};
        m_window->selection()->selectPoints(points);
        m_window->selection()->selectSeries(series);
        m_window->setIsolated(true);
        m_window->setClusterHidden(-1, true);
        const auto labels = m_window->dbscanPanel()->lastRun()->result.labels;
        const QString session = tmp(QStringLiteral("selection.session.json"));
        QCOMPARE(m_window->saveSession(session), QString());
        QFile file(session);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QJsonObject json = QJsonDocument::fromJson(file.readAll()).object();
        QCOMPARE(json.value(QStringLiteral("view"))
                     .toObject()
                     .value(QStringLiteral("selection"))
                     .toObject()
                     .value(QStringLiteral("points"))
                     .toString(),
                 QStringLiteral("0-3,250-251,899"));
        m_window.reset();

        m_window = makeWindow();
        QVERIFY(restore(*m_window, session));
        QCOMPARE(m_window->selection()->points(), points);
        QCOMPARE(m_window->selection()->series(), series);
        QVERIFY(m_window->isIsolated());
        QVERIFY(m_window->isolateAction()->isChecked());
        QVERIFY(m_window->isClusterHidden(-1));
        QVERIFY(m_window->dbscanPanel()->runSubset());
        QCOMPARE(m_window->dbscanPanel()->runSubset()->indices, subset->indices);
        QCOMPARE(m_window->dbscanPanel()->lastRun()->result.labels, labels);
        // A restored session starts the undo history afresh.
        QCOMPARE(m_window->undoStack()->count(), 0);
    }

    // The sweeps' ranges: k-Shape's k range and ROCKET's kernel counts as typed, the DBSCAN
    // grid on screen, which the restored window sweeps again (eps has moved on since: the grid
    // stays the sweep's, not one around the eps now).
    void sweepRangesComeBack() {
        buildPicture(*m_window, tmp(QStringLiteral("blobs.xyz")));
        openDemoSeriesToo(*m_window);
        m_window->algorithms().find(QStringLiteral("dbscan"))->sweep();
        QVERIFY(settle(*m_window));
        cs::ui::DbscanPanel* dbscan = m_window->dbscanPanel();
        QVERIFY(dbscan->sweepHeatmap()->hasSweep());
        const cs::DbscanSweepResult grid = dbscan->sweepHeatmap()->sweep();
        dbscan->setEps(2.0);
        QVERIFY(settle(*m_window));
        cs::ui::KShapeSweepBox* kshape = m_window->kshapePanel()->sweepBox();
        kshape->toSpin()->setValue(7);
        kshape->fromSpin()->setValue(3);
        QLineEdit* kernels = m_window->rocketPanel()->sweepBox()->kernelsEdit();
        kernels->selectAll();
        QTest::keyClicks(kernels, QStringLiteral("50,150,450"));
        QCOMPARE(kernels->text(), QStringLiteral("50,150,450"));
        const QString session = tmp(QStringLiteral("sweeps.session.json"));
        QCOMPARE(m_window->saveSession(session), QString());
        QFile file(session);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray json = file.readAll();
        QCOMPARE(cs::test::jsonAt(json, {"view", "panels", "kshape", "sweepKFrom"}), QJsonValue(3));
        QCOMPARE(cs::test::jsonAt(json, {"view", "panels", "rocket", "sweepKernels"}),
                 QJsonValue(QStringLiteral("50,150,450")));
        QCOMPARE(cs::test::jsonAt(json, {"view", "panels", "dbscan", "sweepEpsCount"}),
                 QJsonValue(int(grid.eps.size())));
        m_window.reset();

        m_window = makeWindow();
        QVERIFY(restore(*m_window, session));
        QCOMPARE(m_window->kshapePanel()->sweepBox()->fromSpin()->value(), 3);
        QCOMPARE(m_window->kshapePanel()->sweepBox()->toSpin()->value(), 7);
        QCOMPARE(m_window->rocketPanel()->sweepBox()->kernelsEdit()->text(),
                 QStringLiteral("50,150,450"));
        dbscan = m_window->dbscanPanel();
        QCOMPARE(dbscan->epsSpin()->value(), 2.0);
        QVERIFY(dbscan->sweepHeatmap()->hasSweep());
        const cs::DbscanSweepResult back = dbscan->sweepHeatmap()->sweep();
        QCOMPARE(back.eps, grid.eps);
        QCOMPARE(back.minPts, grid.minPts);
        QCOMPARE(back.cells.size(), grid.cells.size());
        for (std::size_t i = 0; i < grid.cells.size(); ++i)
            QCOMPARE(back.cells[i].clusters, grid.cells[i].clusters);
    }

    void exportedPngCarriesTheSession() {
        buildPicture(*m_window, tmp(QStringLiteral("blobs.xyz")));
        const QString png = tmp(QStringLiteral("view.png"));
        QCOMPARE(m_window->exportTo(png), QString());
        const Picture saved = pictureOf(*m_window);
        const QString text = QImage(png).text(QString::fromLatin1(cs::ui::kSessionPngKey));
        QVERIFY(text.contains(QLatin1String("clusterscope-session")));
        // The window's screenshot (--screenshot) carries the same.
        QCOMPARE(m_window->grabWindow().text(QString::fromLatin1(cs::ui::kSessionPngKey)), text);
        m_window.reset();

        m_window = makeWindow();
        QSignalSpy restored(m_window.get(), &MainWindow::sessionRestored);
        m_window->openFile(png);  // File ▸ Open of the PNG
        QVERIFY(
            QTest::qWaitFor([&] { return !restored.isEmpty() && m_window->isSettled(); }, 60000));
        const Picture back = pictureOf(*m_window);
        QCOMPARE(back.labels, saved.labels);
        QVERIFY(back.values == saved.values);
        QCOMPARE(back.camera.yaw(), saved.camera.yaw());
    }

    void movedFolderStillOpens() {
        // The data beside the session, both moved to another folder: found by its relative path.
        const QDir from(tmp(QStringLiteral("project")));
        QVERIFY(QDir().mkpath(from.path()));
        writeBlobs(from.filePath(QStringLiteral("cloud.xyz")));
        QVERIFY(openAndWait(*m_window, from.filePath(QStringLiteral("cloud.xyz"))));
        QCOMPARE(m_window->saveSession(from.filePath(QStringLiteral("s.json"))), QString());
        const QString to = tmp(QStringLiteral("moved"));
        QVERIFY(QDir().rename(from.path(), to));
        QVERIFY(restore(*m_window, QDir(to).filePath(QStringLiteral("s.json"))));
        QCOMPARE(m_window->pointView()->pointCount(), std::size_t(900));
    }

    // A kNN graph imported from a file comes back from that file, not from a run of the
    // panel's parameters (which would show another graph under the import's name); a file that
    // is gone by then is named in a warning and nothing runs in its place.
    void importedGraphComesBack() {
        QVERIFY(openAndWait(*m_window, tmp(QStringLiteral("blobs.xyz"))));
        cs::JobControl job;
        const cs::KnnGraph written = cs::backendRegistry().get("cpu")->knnGraph(
            *m_window->pointView()->pointSet(), {.k = 5, .trees = 1, .leafSize = 64, .seed = 99},
            job);
        const QString graph = tmp(QStringLiteral("graph.npy"));
        cs::io::writeKnnNpy(graph.toStdString(),
                            tmp(QStringLiteral("graph_distances.npy")).toStdString(), written.n, 5,
                            written.indices, written.distances,
                            cs::io::fileRowsOf(*m_window->pointView()->pointSet()));
        QCOMPARE(m_window->importKnnGraph(graph), QString());
        QTRY_VERIFY_WITH_TIMEOUT(m_window->knnPanel()->lastRun() && !m_window->knnPanel()->isBusy(),
                                 30000);  // read on a worker thread
        const QString session = tmp(QStringLiteral("imported.session.json"));
        QCOMPARE(m_window->saveSession(session), QString());
        QFile file(session);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QJsonObject knn = QJsonDocument::fromJson(file.readAll())
                                    .object()[QStringLiteral("methods")]
                                    .toObject()[QStringLiteral("knn")]
                                    .toObject();
        QCOMPARE(knn[QStringLiteral("importedFrom")].toString(), graph);
        QCOMPARE(knn[QStringLiteral("importedFromRelative")].toString(),
                 QStringLiteral("graph.npy"));
        // The import raised the kNN panel: the session keeps it in front, whichever tab is in
        // front when it is opened again.
        QVERIFY(file.seek(0));
        QCOMPARE(QJsonDocument::fromJson(file.readAll())
                     .object()[QStringLiteral("view")]
                     .toObject()[QStringLiteral("frontPanel")]
                     .toString(),
                 QStringLiteral("knn"));
        auto dockOf = [](QWidget* w) {
            while (w && !qobject_cast<QDockWidget*>(w))
                w = w->parentWidget();
            return qobject_cast<QDockWidget*>(w);
        };
        QVERIFY(dockOf(m_window->dbscanPanel()));
        dockOf(m_window->dbscanPanel())->raise();
        QTRY_VERIFY(m_window->knnPanel()->visibleRegion().isEmpty());

        // A run replaces the import on screen; the session brings the import back.
        m_window->knnPanel()->setK(7);
        QVERIFY(settle(*m_window));
        QVERIFY(m_window->knnPanel()->importedFrom().isEmpty());
        QVERIFY(restore(*m_window, session));
        QTRY_VERIFY(!m_window->knnPanel()->visibleRegion().isEmpty());
        const auto run = m_window->knnPanel()->lastRun();
        QVERIFY(run);
        QCOMPARE(run->importedFrom, graph);
        QCOMPARE(run->graph->k, 5);
        QVERIFY(run->graph->indices == written.indices);

        QVERIFY(QFile::remove(graph));
        QVERIFY(restore(*m_window, session));
        QVERIFY(cs::test::logged(QStringLiteral("the session's imported result is not restored")));
        QVERIFY(!m_window->knnPanel()->hasResult());
    }

    // The backend chip's GPUs (two injected here, no GPU needed) are saved and come back; a
    // machine with fewer GPUs keeps its own choice.
    void gpuChoiceComesBack() {
        QVERIFY(openAndWait(*m_window, tmp(QStringLiteral("blobs.xyz"))));
        cs::ui::BackendChip* chip = m_window->backendChip();
        QTRY_VERIFY_WITH_TIMEOUT(!chip->chipText().isEmpty(), 30000);  // detection done
        chip->setDeviceCount(2);
        chip->setDeviceChoice({0, 1});
        const QString session = tmp(QStringLiteral("gpus.json"));
        QCOMPARE(m_window->saveSession(session), QString());
        QFile file(session);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QVERIFY(file.readAll().contains("\"devices\": \"0,1\""));
        chip->setDeviceChoice({1});
        QVERIFY(restore(*m_window, session));
        QCOMPARE(chip->deviceChoice(), (std::vector<int>{0, 1}));
        chip->setDeviceChoice({0});
        chip->setDeviceCount(1);
        QVERIFY(restore(*m_window, session));
        QCOMPARE(chip->deviceChoice(), std::vector<int>{0});
    }

    void otherDataSupersedesARestore() {
        QVERIFY(openAndWait(*m_window, tmp(QStringLiteral("blobs.xyz"))));
        const QString session = tmp(QStringLiteral("superseded.json"));
        QCOMPARE(m_window->saveSession(session), QString());
        QSignalSpy restored(m_window.get(), &MainWindow::sessionRestored);
        m_window->openSession(session);
        QVERIFY(m_window->isRestoringSession());
        m_window->openDemoPoints(300);  // the user opens something else meanwhile
        QVERIFY(!m_window->isRestoringSession());
        QVERIFY(settle(*m_window));
        QCOMPARE(m_window->pointView()->pointCount(), std::size_t(300));
        QCOMPARE(restored.count(), 0);
    }

    void badSessionsGiveClearErrors() {
        const QString data = tmp(QStringLiteral("data.xyz"));
        writeBlobs(data);
        QVERIFY(openAndWait(*m_window, data));
        const QString good = tmp(QStringLiteral("good.json"));
        QCOMPARE(m_window->saveSession(good), QString());
        QFile file(good);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray json = file.readAll();
        file.close();
        auto write = [&](const QString& name, const QByteArray& bytes) {
            QFile f(tmp(name));
            [&] { QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate)); }();
            f.write(bytes);
            return tmp(name);
        };
        auto edited = [&](const std::function<void(QJsonObject&)>& edit) {
            QJsonObject root = QJsonDocument::fromJson(json).object();
            edit(root);
            return QJsonDocument(root).toJson();
        };

        expectFailure(*m_window,
                      write(QStringLiteral("truncated.json"), json.left(json.size() / 2)),
                      {QStringLiteral("truncated.json"), QStringLiteral("not valid JSON")});
        expectFailure(*m_window, write(QStringLiteral("empty.json"), {}),
                      {QStringLiteral("empty.json"), QStringLiteral("empty")});
        expectFailure(*m_window, write(QStringLiteral("other.json"), "{\"a\": 1}"),
                      {QStringLiteral("other.json"), QStringLiteral("not a Clusterscope session")});
        expectFailure(*m_window, tmp(QStringLiteral("absent.json")),
                      {QStringLiteral("absent.json"), QStringLiteral("no such session file")});
        expectFailure(*m_window, write(QStringLiteral("future.json"), edited([](QJsonObject& r) {
                                           r[QStringLiteral("version")] = 99;
                                       })),
                      {QStringLiteral("future.json"), QStringLiteral("version 99")});
        expectFailure(
            *m_window, write(QStringLiteral("badeps.json"), edited([](QJsonObject& r) {
                                 QJsonObject methods = r[QStringLiteral("methods")].toObject();
                                 QJsonObject dbscan = methods[QStringLiteral("dbscan")].toObject();
                                 QJsonObject params =
                                     dbscan[QStringLiteral("parameters")].toObject();
                                 params[QStringLiteral("eps")] = QStringLiteral("wide");
                                 dbscan[QStringLiteral("parameters")] = params;
                                 methods[QStringLiteral("dbscan")] = dbscan;
                                 r[QStringLiteral("methods")] = methods;
                             })),
            {QStringLiteral("badeps.json"), QStringLiteral("methods.dbscan.parameters.eps"),
             QStringLiteral("\"wide\"")});
        expectFailure(*m_window, write(QStringLiteral("unknown.json"), edited([](QJsonObject& r) {
                                           QJsonObject methods =
                                               r[QStringLiteral("methods")].toObject();
                                           methods[QStringLiteral("hdbscan")] = QJsonObject();
                                           r[QStringLiteral("methods")] = methods;
                                       })),
                      {QStringLiteral("unknown.json"), QStringLiteral("hdbscan")});

        // A PNG that is not one of ours.
        QImage plain(20, 20, QImage::Format_RGB32);
        plain.fill(Qt::red);
        QVERIFY(plain.save(tmp(QStringLiteral("plain.png"))));
        expectFailure(*m_window, tmp(QStringLiteral("plain.png")),
                      {QStringLiteral("plain.png"), QStringLiteral("no Clusterscope session")});

        // The data changed since: refused by its content hash before it replaces anything.
        {
            std::ofstream out(data.toStdString(), std::ios::app);
            out << "1 2 3\n";
        }
        expectFailure(
            *m_window, good,
            {data, QStringLiteral("changed since the session was saved"), QStringLiteral("cs64:")});
        // The data gone.
        QVERIFY(QFile::remove(data));
        expectFailure(*m_window, good,
                      {QStringLiteral("good.json"), data, QStringLiteral("missing")});
    }
};

CS_GL_TEST_MAIN(TestSession)
#include "tst_session.moc"
