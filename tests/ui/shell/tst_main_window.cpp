// SPDX-License-Identifier: MIT
// MainWindow through its own open path: real files of every kind, what the views then hold,
// screenshots that are not blank, failures that keep the data, the backend chip, the start-up
// demo, export, recent files and the help texts.
#include <QFile>
#include <QMenuBar>
#include <QSet>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <map>
#include <set>

#include "app/common/register_backends.h"
#include "compute/core/point_set.h"
#include "compute/core/series_set.h"
#include "compute/demo/demo_data.h"
#include "compute/io/npy.h"
#include "compute/io/point_readers.h"
#include "compute/io/writers.h"
#include "tests/common/test_paths.h"
#include "tests/ui/gui_test_main.h"
#include "ui/shell/automation.h"
#include "ui/shell/backend_chip.h"
#include "ui/shell/log_dock.h"
#include "ui/shell/logger.h"
#include "ui/shell/main_window.h"
#include "ui/shell/point_inspector.h"
#include "ui/shell/shortcuts_dialog.h"
#include "ui/shell/theme.h"
#include "ui/views/colour_maps.h"
#include "ui/views/points/point_cloud_view.h"
#include "ui/views/series/series_view.h"

using cs::ui::MainWindow;

namespace {

QString shared(const char* relative) {
    return QString::fromStdString(cs::test::sharedData(relative).string());
}

// Loads through the window's own path and waits until the data is on screen.
bool openAndWait(MainWindow& window, const QString& path,
                 cs::io::DataKind kind = cs::io::DataKind::Auto) {
    QSignalSpy loaded(&window, &MainWindow::datasetLoaded);
    window.openFile(path, kind);
    return QTest::qWaitFor([&] { return !loaded.isEmpty() && window.isSettled(); }, 60000);
}

// Non-background pixels and distinct colours (quantised to 4 bits per channel) in rect.
struct ImageStats {
    int foreground = 0;
    int colours = 0;
};
ImageStats stats(const QImage& image, const QRect& rect, const QColor& background) {
    ImageStats s;
    QSet<int> colours;
    for (int y = rect.top(); y <= rect.bottom(); y += 2)
        for (int x = rect.left(); x <= rect.right(); x += 2) {
            const QColor c = image.pixelColor(x, y);
            if (std::abs(c.red() - background.red()) + std::abs(c.green() - background.green()) +
                    std::abs(c.blue() - background.blue()) >
                24)
                ++s.foreground;
            colours.insert((c.red() >> 4) << 8 | (c.green() >> 4) << 4 | (c.blue() >> 4));
        }
    s.colours = int(colours.size());
    return s;
}

bool logHasError(const QString& needle) {
    for (const auto& e : cs::ui::Logger::instance().history())
        if (e.level == cs::ui::Logger::Level::Error && e.text.contains(needle)) return true;
    return false;
}

}  // namespace

class TestMainWindow : public QObject {
    Q_OBJECT

private:
    std::unique_ptr<MainWindow> m_window;
    QTemporaryDir m_tmp;

    // The front view's rectangle in window coordinates.
    QRect viewRect() const {
        QWidget* view = m_window->currentView() == MainWindow::View::Points
                            ? static_cast<QWidget*>(m_window->pointView())
                            : static_cast<QWidget*>(m_window->seriesView());
        return QRect(view->mapTo(m_window.get(), QPoint(0, 0)), view->size());
    }
    void checkScreenshotNotBlank(const char* what) {
        const QImage shot = m_window->grabWindow();
        QVERIFY(!shot.isNull());
        QCOMPARE(shot.size(), m_window->size() * m_window->devicePixelRatio());
        const QRect area = viewRect().adjusted(20, 20, -20, -20);
        const auto s = stats(shot, area, m_window->palette().color(QPalette::Base));
        QVERIFY2(
            s.foreground > 400,
            qPrintable(QStringLiteral("%1: %2 foreground pixels").arg(what).arg(s.foreground)));
        QVERIFY2(s.colours >= 4,
                 qPrintable(QStringLiteral("%1: %2 colours").arg(what).arg(s.colours)));
        // CS_TEST_SHOTS_DIR=/some/dir keeps the screenshots for a person to look at.
        const QString dir = qEnvironmentVariable("CS_TEST_SHOTS_DIR", m_tmp.path());
        shot.save(QDir(dir).filePath(QStringLiteral("tst_main_window_%1.png").arg(what)));
    }

private slots:
    void initTestCase() {
        QVERIFY(m_tmp.isValid());
        QSettings().clear();
        cs::app::registerBuiltinBackends();
    }

    void init() {
        m_window = std::make_unique<MainWindow>();
        m_window->resize(1200, 800);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
    }

    void cleanup() { m_window.reset(); }

    void demoDataAtStart() {
        // What main() does with no arguments.
        cs::ui::Automation automation(*m_window, {});
        automation.start();
        QTRY_VERIFY_WITH_TIMEOUT(automation.isDone(), 60000);
        QCOMPARE(automation.exitCode(), 0);
        QCOMPARE(m_window->pointView()->pointCount(), cs::ui::Automation::kDefaultDemoPoints);
        QCOMPARE(m_window->currentView(), MainWindow::View::Points);
        QCOMPARE(m_window->pointView()->colourBy(), QStringLiteral("attr:truth"));
        QVERIFY(m_window->windowTitle().contains(QStringLiteral("Demo points")));
        checkScreenshotNotBlank("demo");
    }

    void backendChip() {
        QTRY_VERIFY_WITH_TIMEOUT(!m_window->backendChip()->chipText().isEmpty(), 30000);
        const QString chip = m_window->backendChip()->chipText();
        QVERIFY2(chip.startsWith(QLatin1String("CPU")) || chip.startsWith(QLatin1String("CUDA")),
                 qPrintable(chip));
        QVERIFY(m_window->backendChip()->toolTip().contains(QLatin1String("cpu:")));
        // Without CUDA, the chip says why.
        const auto d = cs::ui::BackendChip::describe(
            {{"cuda", false, "no CUDA driver"}, {"cpu", true, "CPU · 4 threads"}});
        QCOMPARE(d.chip, QStringLiteral("CPU · no CUDA driver"));
        const auto g = cs::ui::BackendChip::describe(
            {{"cuda", true, "CUDA · NVIDIA H200 · 139 GB free"}, {"cpu", true, "CPU · 4 threads"}});
        QCOMPARE(g.chip, QStringLiteral("CUDA · NVIDIA H200 · 139 GB free"));
    }

    void openPcd() {
        const QString path = shared("points/cturtle.pcd");
        QVERIFY(openAndWait(*m_window, path));
        auto* view = m_window->pointView();
        QCOMPARE(view->pointCount(), std::size_t(167198));
        QCOMPARE(view->uploadedPointCount(), std::size_t(167198));
        QCOMPARE(m_window->currentView(), MainWindow::View::Points);
        QCOMPARE(view->colourBy(), QStringLiteral("attr:intensity"));
        QCOMPARE(view->legend().kind, cs::ui::Legend::Kind::ColourBar);
        QVERIFY(m_window->windowTitle().startsWith(QLatin1String("cturtle.pcd")));
        QCOMPARE(m_window->recentFiles().value(0), QFileInfo(path).absoluteFilePath());
        checkScreenshotNotBlank("cturtle");
    }

    // A run's log line is laid out and painted after the point view's frame with its result,
    // not in that frame before the view.
    void runLoggedAfterItsFrame() {
        QVERIFY(openAndWait(*m_window, shared("points/bunny.pcd")));
        auto* view = m_window->pointView();
        const cs::ui::Algorithm* dbscan = m_window->algorithms().find(QStringLiteral("dbscan"));
        QVERIFY(dbscan);
        for (const double eps : {0.004, 0.005}) {
            const QString line = QStringLiteral("eps=%1").arg(eps);
            bool drawn = false, loggedWhenDrawn = false;
            const auto connection = connect(view, &cs::ui::PointCloudView::contentDrawn, this, [&] {
                if (drawn) return;
                drawn = true;
                loggedWhenDrawn = m_window->logDock()->plainText().contains(line);
            });
            dbscan->setParameter(QStringLiteral("eps"), eps);
            dbscan->run();
            QTRY_VERIFY_WITH_TIMEOUT(m_window->logDock()->plainText().contains(line), 30000);
            QTRY_VERIFY_WITH_TIMEOUT(drawn, 10000);
            disconnect(connection);
            QVERIFY2(!loggedWhenDrawn, qPrintable(line));
        }
    }

    // The dock writes a line at once after a quiet moment, and the lines of a burst together:
    // once none came for kQuietMs, at least every kMaxWaitMs while they keep coming, and with a
    // warning at once, after the lines before it.
    void logWrittenInBatches() {
        using cs::ui::LogDock;
        const LogDock* dock = m_window->logDock();
        QTest::qWait(LogDock::kMaxWaitMs + 200);  // what earlier tests logged is written
        cs::ui::logInfo(QStringLiteral("batch one"));
        QCoreApplication::processEvents();  // the queued line reaches the dock
        QVERIFY(dock->plainText().contains(QLatin1String("batch one")));
        cs::ui::logInfo(QStringLiteral("batch two"));
        cs::ui::logInfo(QStringLiteral("batch three"));
        QCoreApplication::processEvents();
        QVERIFY(!dock->plainText().contains(QLatin1String("batch two")));
        QTRY_VERIFY_WITH_TIMEOUT(dock->plainText().contains(QLatin1String("batch three")), 5000);
        QVERIFY(dock->plainText().indexOf(QLatin1String("batch two")) <
                dock->plainText().indexOf(QLatin1String("batch three")));

        QTest::qWait(LogDock::kQuietMs + 200);
        cs::ui::logInfo(QStringLiteral("batch four"));
        cs::ui::logInfo(QStringLiteral("batch five"));
        cs::ui::logWarning(QStringLiteral("batch warning"));
        QCoreApplication::processEvents();
        const QString now = dock->plainText();
        QVERIFY(now.contains(QLatin1String("batch warning")));
        QVERIFY(now.contains(QLatin1String("batch five")));
        QVERIFY(now.indexOf(QLatin1String("batch five")) <
                now.indexOf(QLatin1String("batch warning")));

        // A line every 50 ms, never kQuietMs apart: written while the stream lasts.
        QTest::qWait(LogDock::kQuietMs + 200);
        cs::ui::logInfo(QStringLiteral("stream start"));
        QElapsedTimer streaming;
        streaming.start();
        bool writtenMeanwhile = false;
        for (int i = 0; streaming.elapsed() < 2 * LogDock::kMaxWaitMs; ++i) {
            cs::ui::logInfo(QStringLiteral("stream %1").arg(i));
            QTest::qWait(50);
            writtenMeanwhile =
                writtenMeanwhile || dock->plainText().contains(QLatin1String("stream 0"));
        }
        QVERIFY(writtenMeanwhile);

        // A grab of the window (a screenshot) writes the lines of a burst first.
        QTest::qWait(LogDock::kQuietMs + 200);
        cs::ui::logInfo(QStringLiteral("grab one"));
        cs::ui::logInfo(QStringLiteral("grab two"));
        QCoreApplication::processEvents();
        QVERIFY(!dock->plainText().contains(QLatin1String("grab two")));
        (void)m_window->grabWindow();
        QVERIFY(dock->plainText().contains(QLatin1String("grab two")));
    }

    void upAxisFollowsTheData() {
        using Up = cs::ui::PointCloudView::UpAxis;
        const auto read = [](const char* file) {
            return cs::io::readPoints(cs::test::sharedData(std::string("points/") + file));
        };
        // Camera-frame clouds (z > 0 in front of a sensor at the origin, y down) and the rest.
        // The mug scene's VIEWPOINT turns its camera frame over (y up, z behind): +Y is up.
        QCOMPARE(cs::ui::PointCloudView::suggestedUpAxis(read("cturtle.pcd")), Up::MinusY);
        QCOMPARE(
            cs::ui::PointCloudView::suggestedUpAxis(read("table_scene_mug_stereo_textured.pcd")),
            Up::PlusY);
        QCOMPARE(cs::ui::PointCloudView::suggestedUpAxis(read("bunny.pcd")), Up::PlusY);
        QCOMPARE(cs::ui::PointCloudView::suggestedUpAxis(cs::demo::makeDemoPoints(2000)),
                 Up::PlusY);
        QCOMPARE(cs::ui::PointCloudView::suggestedUpAxis(cs::PointSet{}), Up::PlusY);

        // Automatic (the default) follows each cloud; a choice in View > Up axis holds until
        // Automatic is picked again.
        auto* view = m_window->pointView();
        QVERIFY(openAndWait(*m_window, shared("points/cturtle.pcd")));
        QCOMPARE(view->upAxis(), Up::MinusY);
        QVERIFY(openAndWait(*m_window, shared("points/bunny.pcd")));
        QCOMPARE(view->upAxis(), Up::PlusY);
        const auto action = [&](const QString& text) {
            for (QAction* a : m_window->findChildren<QAction*>())
                if (a->text().startsWith(text)) return a;
            return static_cast<QAction*>(nullptr);
        };
        QAction* plusY = action(QStringLiteral("+Y"));
        QAction* automatic = action(QStringLiteral("Automatic"));
        QVERIFY(plusY && automatic);
        QVERIFY(automatic->isChecked());
        plusY->trigger();
        QVERIFY(openAndWait(*m_window, shared("points/cturtle.pcd")));
        QCOMPARE(view->upAxis(), Up::PlusY);
        automatic->trigger();
        QCOMPARE(view->upAxis(), Up::MinusY);
        QCOMPARE(QSettings().value(QStringLiteral("view/upAxis")).toInt(), -1);
    }

    void mugSceneUprightAndViewPresets() {
        // PCL's mug on a table, saved in the camera's frame (y down) with a VIEWPOINT that turns
        // it over: whatever the camera preset, the mug stands on the table on screen. The mug's
        // centre and the table point 8.6 cm under it (along the camera's y) were found by a
        // plane fit of the table.
        const QString path = shared("points/table_scene_mug_stereo_textured.pcd");
        if (!QFileInfo::exists(path)) CS_QSKIP_MISSING_DATA(QStringLiteral("mug scene missing"));
        QVERIFY(openAndWait(*m_window, path));
        auto* view = m_window->pointView();
        QVERIFY(view->sensorPose());
        QCOMPARE(view->upAxis(), cs::ui::PointCloudView::UpAxis::PlusY);
        const QVector3D mug(0.0626f, 0.0584f, 0.7532f), table(0.0626f, 0.1444f, 0.7532f);
        const auto upright = [&](const char* what) {
            const QPointF m = view->project(mug), t = view->project(table);
            QVERIFY2(m.y() < t.y() - 3,
                     qPrintable(QStringLiteral("%1: mug at y %2, table under it at y %3")
                                    .arg(what)
                                    .arg(m.y())
                                    .arg(t.y())));
        };
        upright("opened");
        // The presets by their keys, from the window (the menu's shortcuts).
        m_window->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
        const std::pair<Qt::Key, const char*> keys[] = {
            {Qt::Key_1, "front"}, {Qt::Key_3, "side"}, {Qt::Key_0, "sensor"}, {Qt::Key_F, "fit"}};
        for (const auto& [key, what] : keys) {
            view->orbit(33, 12);
            const float yawBefore = view->camera().yaw();
            QTest::keyClick(m_window.get(), key);
            if (key != Qt::Key_F) QVERIFY2(view->camera().yaw() != yawBefore, what);
            upright(what);
        }
        QTest::keyClick(m_window.get(), Qt::Key_7);
        QCOMPARE(view->camera().pitch(), cs::ui::OrbitCamera::kMaxPitch);
        // From the sensor, the mug is drawn where it projects (a screenshot of the window).
        QTest::keyClick(m_window.get(), Qt::Key_0);
        QVERIFY(QTest::qWaitFor([&] { return view->isContentDrawn(); }, 10000));
        const QImage shot = m_window->grabWindow();
        const QPoint at = view->mapTo(m_window.get(), view->project(mug).toPoint()) *
                          m_window->devicePixelRatio();
        const auto s = stats(shot, QRect(at - QPoint(6, 6), QSize(13, 13)),
                             m_window->palette().color(QPalette::Base));
        QVERIFY2(s.foreground >= 20, qPrintable(QString::number(s.foreground)));
        // The camera menu lists the presets with their keys.
        QStringList rows;
        for (const auto& r : cs::ui::ShortcutsDialog::rows(m_window->menuBar()))
            rows << r.section + '|' + r.action + '|' + r.shortcut;
        for (const char* expected :
             {"View ▸ Camera|Front|1", "View ▸ Camera|Side|3", "View ▸ Camera|Top|7",
              "View ▸ Camera|From the sensor (PCD VIEWPOINT)|0"})
            QVERIFY2(rows.contains(QString::fromUtf8(expected)),
                     qPrintable(expected + ("\n" + rows.join('\n'))));
    }

    void openPointCsv() {
        const QString path = m_tmp.filePath(QStringLiteral("clusters.csv"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("x,y,z,label\n");
        for (int c = 0; c < 3; ++c)
            for (int i = 0; i < 400; ++i)
                file.write(QStringLiteral("%1,%2,%3,c%4\n")
                               .arg(c * 10 + (i % 20) * 0.2)
                               .arg((i / 20) * 0.2 + c * 3)
                               .arg((i % 7) * 0.1)
                               .arg(c)
                               .toUtf8());
        file.close();
        QVERIFY(openAndWait(*m_window, path, cs::io::DataKind::Points));
        auto* view = m_window->pointView();
        QCOMPARE(view->pointCount(), std::size_t(1200));
        QCOMPARE(view->pointSet()->dims, std::size_t(3));
        QCOMPARE(view->colourBy(), QStringLiteral("attr:label"));
        QCOMPARE(int(view->legend().entries.size()), 3);
        QCOMPARE(view->legend().entries[1].count, std::size_t(400));
        checkScreenshotNotBlank("csv");
    }

    void openUnivariateSeries() {
        QVERIFY(openAndWait(*m_window, shared("ucr/GunPoint/GunPoint_TRAIN.ts")));
        QCOMPARE(m_window->currentView(), MainWindow::View::Series);
        auto* view = m_window->seriesView();
        QCOMPARE(view->seriesSet()->n, std::size_t(200));  // train + test halves
        QCOMPARE(view->seriesSet()->classCount(), std::size_t(2));
        QCOMPARE(view->drawnSeriesCount(), 200);
        QCOMPARE(view->legendEntries().size(), 2);
        QVERIFY(view->note().contains(QLatin1String("test (dashed)")));
        view->setSplit(cs::ui::SeriesView::Split::Train);
        QCOMPARE(view->drawnSeriesCount(), 50);
        view->setSplit(cs::ui::SeriesView::Split::All);
        QVERIFY(m_window->windowTitle().startsWith(QLatin1String("GunPoint_TRAIN.ts")));
        checkScreenshotNotBlank("gunpoint");
    }

    // A regression set whose header disagrees with its data: read as the data says, the log
    // says so (a warning naming the file) and mentions the targets.
    void seriesReaderNotesLogged() {
        const QString path = m_tmp.filePath(QStringLiteral("regression.ts"));
        QFile ts(path);
        QVERIFY(ts.open(QIODevice::WriteOnly));
        ts.write(
            "% aeon-style comment\n@problemName r\n@seriesLength 9\n@targetLabel true\n"
            "@data\n1,2,3:0.5\n4,5,6:1.5\n");
        ts.close();
        QVERIFY(openAndWait(*m_window, path));
        QCOMPARE(m_window->seriesView()->seriesSet()->targets.size(), std::size_t(2));
        bool warned = false, targets = false;
        for (const auto& e : cs::ui::Logger::instance().history()) {
            warned = warned || (e.level == cs::ui::Logger::Level::Warning &&
                                e.text.contains(QLatin1String("regression.ts: @seriesLength 9")));
            targets = targets || (e.level == cs::ui::Logger::Level::Info &&
                                  e.text.contains(QLatin1String("regression targets")));
        }
        QVERIFY(warned);
        QVERIFY(targets);
    }

    void openMultivariateSeries() {
        QVERIFY(openAndWait(*m_window, shared("ucr/BasicMotions/BasicMotions_TRAIN.ts")));
        auto* view = m_window->seriesView();
        QCOMPARE(view->seriesSet()->channels, std::size_t(6));
        QCOMPARE(view->seriesSet()->n, std::size_t(80));
        QCOMPARE(view->legendEntries().size(), 4);
        QSignalSpy rebuilt(view, &cs::ui::SeriesView::chartUpdated);
        view->setChannel(3);
        QCOMPARE(view->channel(), 3);
        QCOMPARE(rebuilt.count(), 1);
        QCOMPARE(view->drawnSeriesCount(), 80);
        checkScreenshotNotBlank("basicmotions");
    }

    void failedLoadKeepsData() {
        const QString good = shared("points/cturtle.pcd");
        QVERIFY(openAndWait(*m_window, good));
        const auto before = m_window->pointView()->pointSet();

        const QString broken = m_tmp.filePath(QStringLiteral("broken.pcd"));
        QFile file(broken);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(
            "# .PCD v0.7\nVERSION 0.7\nFIELDS x y z\nSIZE 4 4 4\nTYPE F F F\nCOUNT 1 1 1\n"
            "WIDTH 100\nHEIGHT 1\nPOINTS 100\nDATA ascii\n1 2 3\n4 five 6\n");
        file.close();
        QSignalSpy failed(m_window.get(), &MainWindow::loadFailed);
        m_window->openFile(broken);
        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 30000);
        QVERIFY(failed.front().front().toString().contains(QLatin1String("broken.pcd")));
        QVERIFY(logHasError(QStringLiteral("broken.pcd")));
        QCOMPARE(m_window->pointView()->pointSet(), before);
        QVERIFY(m_window->windowTitle().startsWith(QLatin1String("cturtle.pcd")));
        QVERIFY(m_window->errorBox() && m_window->errorBox()->isVisible());
        QVERIFY(!m_window->errorBox()->isModal());

        // A missing file too, and a series file that does not parse.
        m_window->openFile(m_tmp.filePath(QStringLiteral("missing.ply")));
        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 2, 30000);
        QVERIFY(logHasError(QStringLiteral("missing.ply")));
        const QString badSeries = m_tmp.filePath(QStringLiteral("bad.ts"));
        QFile ts(badSeries);
        QVERIFY(ts.open(QIODevice::WriteOnly));
        ts.write("@problemName bad\n@data\nnot a number:1\n");
        ts.close();
        m_window->openFile(badSeries);
        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 3, 30000);
        QVERIFY(logHasError(QStringLiteral("bad.ts")));
        QCOMPARE(m_window->pointView()->pointSet(), before);
        QVERIFY(m_window->isSettled());
        QTRY_VERIFY(m_window->logDock()->plainText().contains(QLatin1String("error: ")));
        checkScreenshotNotBlank("failed_load");
    }

    void seriesCapAndSampling() {
        QSignalSpy loaded(m_window.get(), &MainWindow::datasetLoaded);
        m_window->openDemoSeries();
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 30000);
        auto* view = m_window->seriesView();
        QCOMPARE(view->seriesSet()->n, std::size_t(600));
        QCOMPARE(view->drawnSeriesCount(), cs::ui::SeriesView::kDefaultMaxDrawn);
        QVERIFY(view->note().contains(QLatin1String("showing 300 of 600")));
        QCOMPARE(view->legendEntries().size(), 5);

        // Equal shares; a small class hands its unused share on; classes interleave.
        std::vector<std::size_t> candidates;
        std::vector<int> classOf;
        for (int i = 0; i < 205; ++i) {
            candidates.push_back(std::size_t(i));
            classOf.push_back(i < 5 ? 0 : i < 105 ? 1 : 2);
        }
        const auto picked = cs::ui::SeriesView::sampleAcrossClasses(candidates, classOf, 30);
        QCOMPARE(picked.size(), std::size_t(30));
        int perClass[3] = {0, 0, 0};
        for (auto i : picked)
            ++perClass[classOf[i]];
        QCOMPARE(perClass[0], 5);
        QVERIFY(std::abs(perClass[1] - perClass[2]) <= 1);
        QCOMPARE(classOf[picked[0]], 0);
        QCOMPARE(classOf[picked[1]], 1);
        QCOMPARE(classOf[picked[2]], 2);
        QVERIFY(std::set<std::size_t>(picked.begin(), picked.end()).size() == picked.size());
    }

    void exportViewAndData() {
        QSignalSpy loaded(m_window.get(), &MainWindow::datasetLoaded);
        m_window->openDemoPoints(5000);
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 30000);
        const QString png = m_tmp.filePath(QStringLiteral("view.png"));
        QCOMPARE(m_window->exportTo(png), QString());
        QVERIFY(!QImage(png).isNull());
        const QString npy = m_tmp.filePath(QStringLiteral("points.npy"));
        QCOMPARE(m_window->exportTo(npy), QString());
        // 5000 × 3 float32 after the header.
        QVERIFY(QFileInfo(npy).size() >= qint64(5000 * 3 * 4));
        QVERIFY(QFileInfo::exists(m_tmp.filePath(QStringLiteral("points_labels.npy"))));
        QVERIFY(!m_window->exportTo(m_tmp.filePath(QStringLiteral("x.txt"))).isEmpty());
        QVERIFY(!m_window->exportTo(QStringLiteral("/nonexistent-dir/x.npy")).isEmpty());
        // The view goes through the exports' writer too: no new file among the devices, and a
        // full device is an error with its reason.
        QVERIFY2(m_window->exportTo(QStringLiteral("/dev/clusterscope-view.png"))
                     .contains(QLatin1String("not created")),
                 "a file was made in /dev");
        QVERIFY(!QFileInfo::exists(QStringLiteral("/dev/clusterscope-view.png")));
        if (QFileInfo::exists(QStringLiteral("/dev/full")))
            QVERIFY(m_window->exportTo(QStringLiteral("/dev/full.npy"))
                        .contains(QLatin1String("not created")));
    }

    void exportNeverReplacesTheLoadedFile() {
        // The data exported over the very file it was read from: refused through the writers'
        // guard, naming both paths, and the file keeps its bytes.
        const QString path = m_tmp.filePath(QStringLiteral("guarded.npy"));
        const std::vector<float> coords = {0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3};
        cs::io::writeNpy(path.toStdString(), std::span<const float>(coords), {4, 3});
        auto bytes = [&] {
            QFile file(path);
            return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
        };
        const QByteArray before = bytes();
        QVERIFY(openAndWait(*m_window, path));
        QCOMPARE(m_window->pointView()->pointCount(), std::size_t(4));
        const QString error = m_window->exportTo(path);
        QVERIFY2(
            error.contains(path + QStringLiteral(": not written: it is the input file ") + path),
            qPrintable(error));
        QCOMPARE(bytes(), before);
    }

    void exportsNameTheFileRows() {
        // Rows 0, 3 and 7 of the file have a NaN or an infinity and are dropped on reading;
        // the exports per point name the file's rows, as the CLI's do, and the .npy labels have
        // a row for each row of the file (kNotRead where dropped).
        const QString path = m_tmp.filePath(QStringLiteral("nan_rows.csv"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("x,y\nnan,0\n0,0\n0.1,0\n0,inf\n5,5\n5.1,5\n5,5.1\nnan,nan\n0,0.1\n5.1,5.1\n");
        file.close();
        QVERIFY(openAndWait(*m_window, path, cs::io::DataKind::Points));
        QCOMPARE(m_window->pointView()->pointCount(), std::size_t(7));
        const std::vector<qulonglong> rows = {1, 2, 4, 5, 6, 8, 9};
        auto readLines = [](const QString& name) {
            QFile f(name);
            return f.open(QIODevice::ReadOnly)
                       ? QString::fromUtf8(f.readAll()).split('\n', Qt::SkipEmptyParts)
                       : QStringList();
        };
        for (const QString& name : {QStringLiteral("dbscan"), QStringLiteral("knn")}) {
            const cs::ui::Algorithm* algorithm = m_window->algorithms().find(name);
            QVERIFY(algorithm);
            if (name == QLatin1String("dbscan")) {
                algorithm->setParameter(QStringLiteral("eps"), 0.5);
                algorithm->setParameter(QStringLiteral("minPts"), std::int64_t(2));
            } else {
                algorithm->setParameter(QStringLiteral("k"), std::int64_t(2));
            }
            algorithm->run();
            QTRY_VERIFY_WITH_TIMEOUT(!algorithm->isBusy(), 30000);
        }
        const QString labels = m_tmp.filePath(QStringLiteral("nan_rows_labels.csv"));
        QCOMPARE(m_window->exportTo(labels), QString());
        const QStringList labelLines = readLines(labels);
        QCOMPARE(labelLines.size(), 2 + 7);
        // The points' own index (the legend's, the inspector's) and the file row beside it.
        QCOMPARE(labelLines.at(1), QStringLiteral("index,original_index,label,core"));
        std::map<int, std::size_t> perCluster;
        for (std::size_t i = 0; i < rows.size(); ++i) {
            const QStringList cols = labelLines.at(int(i) + 2).split(',');
            QCOMPARE(cols.size(), qsizetype(4));
            QCOMPARE(cols.at(0).toULongLong(), qulonglong(i));
            QCOMPARE(cols.at(1).toULongLong(), rows[i]);
            ++perCluster[cols.at(2).toInt()];
            // The inspector names the same cluster and the same file row.
            m_window->inspectPoint(i);
            QTRY_VERIFY_WITH_TIMEOUT(m_window->pointInspector()->inspection() &&
                                         m_window->pointInspector()->inspection()->index == i,
                                     10000);
            const auto& inspected = *m_window->pointInspector()->inspection();
            QCOMPARE(inspected.fileRow, std::size_t(rows[i]));
            QVERIFY(inspected.cluster);
            QCOMPARE(*inspected.cluster, cols.at(2).toInt());
        }
        // The legend: one row per cluster of the CSV, named by the same number, same counts.
        const cs::ui::Legend& legend = m_window->pointView()->legend();
        QCOMPARE(legend.kind, cs::ui::Legend::Kind::Categories);
        std::map<int, std::size_t> inLegend;
        for (const auto& entry : legend.entries) {
            QVERIFY(entry.category);
            if (entry.count > 0) inLegend[*entry.category] = entry.count;  // noise may be 0
            if (*entry.category >= 0)
                QCOMPARE(entry.name, QStringLiteral("cluster %1").arg(*entry.category));
        }
        QCOMPARE(inLegend, perCluster);
        const QString npy = m_tmp.filePath(QStringLiteral("nan_rows_dbscan.npy"));
        QCOMPARE(m_window->exportTo(npy), QString());
        const cs::io::NpyArray perRow = cs::io::readNpy(npy.toStdString());
        QCOMPARE(perRow.shape, std::vector<std::size_t>{10});
        for (std::size_t r = 0; r < 10; ++r) {
            const bool dropped = std::find(rows.begin(), rows.end(), r) == rows.end();
            QCOMPARE(perRow.values[r] == float(cs::io::kNotRead), dropped);
        }
        const QString edges = m_tmp.filePath(QStringLiteral("nan_rows_knn.csv"));
        QCOMPARE(m_window->exportTo(edges), QString());
        const QStringList edgeLines = readLines(edges);
        QCOMPARE(edgeLines.size(), 2 + 7 * 2);
        for (int e = 2; e < edgeLines.size(); ++e) {
            const QStringList cols = edgeLines.at(e).split(',');
            for (int c = 0; c < 2; ++c)
                QVERIFY2(
                    std::find(rows.begin(), rows.end(), cols.at(c).toULongLong()) != rows.end(),
                    qPrintable(edgeLines.at(e)));
        }
        QCOMPARE(edgeLines.last().split(',').at(0).toULongLong(), qulonglong(9));
    }

    void helpTexts() {
        const auto rows = cs::ui::ShortcutsDialog::rows(m_window->menuBar());
        QStringList lines;
        for (const auto& r : rows)
            lines << r.section + '|' + r.action + '|' + r.shortcut;
        const QString all = lines.join('\n');
        for (const char* expected :
             {"File|Open…|Ctrl+O", "File|Quit|Ctrl+Q", "View|Reset camera|R", "View|Fit to data|F",
              "View|Log|Ctrl+L", "View|Full screen|F11", "Help|Keyboard shortcuts|F1",
              "File|Save Session As…|Ctrl+Shift+S", "Edit|Undo|Ctrl+Z", "Edit|Redo|Ctrl+Shift+Z"})
            QVERIFY2(all.contains(QString::fromUtf8(expected)),
                     qPrintable(expected + ("\n" + all)));
        QVERIFY(all.contains(QLatin1String("Larger points")));
        QVERIFY(all.contains(QLatin1String("Point view|Orbit")));

        QTRY_VERIFY(!m_window->pointView()->glInfo().renderer.isEmpty());
        QTRY_VERIFY(!m_window->backendChip()->toolTip().isEmpty());  // About reads the probe
        const QString about = m_window->aboutText();
        QVERIFY(about.contains(QStringLiteral(CS_VERSION)));
        QVERIFY(about.contains(QString::fromLatin1(qVersion())));
        QVERIFY(about.contains(m_window->pointView()->glInfo().renderer.toHtmlEscaped()));
        QVERIFY(about.contains(QLatin1String("cpu:")));
    }

    void themeFollowsPalette() {
        cs::ui::applyTheme(cs::ui::Theme::Dark);
        QTRY_VERIFY(m_window->pointView()->backgroundColour().lightnessF() < 0.3);
        QVERIFY(cs::ui::errorColour(m_window->palette()).lightnessF() > 0.5);
        cs::ui::applyTheme(cs::ui::Theme::Light);
        QTRY_VERIFY(m_window->pointView()->backgroundColour().lightnessF() > 0.7);
        QVERIFY(cs::ui::errorColour(m_window->palette()).lightnessF() < 0.5);
        cs::ui::applyTheme(cs::ui::Theme::System);
    }

    void ambiguousFiles() {
        QVERIFY(MainWindow::isAmbiguous(QStringLiteral("a.csv")));
        QVERIFY(MainWindow::isAmbiguous(QStringLiteral("a.TXT")));
        QVERIFY(!MainWindow::isAmbiguous(QStringLiteral("Crop_TRAIN.csv")));
        QVERIFY(!MainWindow::isAmbiguous(QStringLiteral("bunny.pcd")));
        QVERIFY(!MainWindow::isAmbiguous(QStringLiteral("x.ts")));
        // Every reader's extension is in the dialog's filters.
        const QString filters = MainWindow::openFilters().join(' ');
        for (const char* ext : {"*.pcd", "*.ply", "*.xyz", "*.csv", "*.tsv", "*.txt", "*.npy",
                                "*.ts", "*.arff", "*_TRAIN"})
            QVERIFY2(filters.contains(QLatin1String(ext)), ext);
    }
};

CS_GL_TEST_MAIN(TestMainWindow)
#include "tst_main_window.moc"
