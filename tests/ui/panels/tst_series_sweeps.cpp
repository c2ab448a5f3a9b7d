// SPDX-License-Identifier: MIT
// The sweeps of the k-Shape and ROCKET panels through the GUI on GunPoint (50 train + 150 test
// series of length 150, 2 classes): Sweep runs one job whose cells equal the panels' plain runs
// with the same parameters, the chart shows them, a click on the chart applies the parameter
// (and the panel re-runs with it), Cancel stops a sweep and keeps the chart, a bad kernel list
// is refused, the tables export, and the real executable sweeps from the command line
// (--sweep kshape|rocket with --export NAME_sweep.csv).
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QProcess>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>

#include "app/common/register_backends.h"
#include "compute/backend/cpu_backend.h"
#include "compute/io/series_readers.h"
#include "compute/kshape/kshape_sweep.h"
#include "compute/rocket/rocket_sweep.h"
#include "tests/common/test_paths.h"
#include "tests/ui/gui_test_main.h"
#include "ui/panels/kshape/kshape_panel.h"
#include "ui/panels/kshape/kshape_sweep_box.h"
#include "ui/panels/rocket/rocket_panel.h"
#include "ui/panels/rocket/rocket_sweep_box.h"
#include "ui/panels/sweep_curve_chart.h"
#include "ui/shell/main_window.h"
#include "ui/views/series/series_view.h"

using cs::ui::KShapePanel;
using cs::ui::RocketPanel;

namespace {

QString gunPoint() {
    return QString::fromStdString(cs::test::sharedData("ucr/GunPoint/GunPoint_TRAIN.ts").string());
}

QStringList csvLines(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly | QIODevice::Text)) return {};
    return QString::fromUtf8(f.readAll()).split('\n', Qt::SkipEmptyParts);
}

}  // namespace

class TestSeriesSweeps : public QObject {
    Q_OBJECT

    QTemporaryDir m_tmp;
    std::unique_ptr<cs::ui::MainWindow> m_window;
    cs::CpuBackend m_cpu;

    KShapePanel* kshape() { return m_window->kshapePanel(); }
    RocketPanel* rocket() { return m_window->rocketPanel(); }
    std::shared_ptr<const cs::SeriesSet> series() { return m_window->seriesView()->seriesSet(); }

private slots:
    void initTestCase() {
        QVERIFY(m_tmp.isValid());
        if (!QFile::exists(gunPoint()))
            CS_QSKIP_MISSING_DATA(QStringLiteral("missing ") + gunPoint());
        QSettings().clear();
        cs::app::registerBuiltinBackends();
        m_window = std::make_unique<cs::ui::MainWindow>();
        m_window->resize(1400, 900);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
        m_window->openFile(gunPoint());
        QTRY_VERIFY_WITH_TIMEOUT(series() && series()->n == 200, 30000);
        QVERIFY(!kshape()->sweepBox()->chart()->hasSweep());
        QVERIFY(!rocket()->sweepBox()->chart()->hasSweep());
        QCOMPARE(kshape()->sweepBox()->fromSpin()->value(), 2);
        QCOMPARE(kshape()->sweepBox()->toSpin()->value(), 20);
        QCOMPARE(kshape()->sweepBox()->toSpin()->maximum(), 200);
    }

    // Sweep k = 2..4: each k equals the panel's plain run; clicking k = 3 applies it.
    void kshapeSweepAndApply() {
        auto* box = kshape()->sweepBox();
        kshape()->seedSpin()->setValue(3);
        kshape()->iterationsSpin()->setValue(30);
        QTRY_VERIFY_WITH_TIMEOUT(!kshape()->isBusy(), 60000);
        box->fromSpin()->setValue(2);
        box->toSpin()->setValue(4);
        QTest::mouseClick(box->sweepButton(), Qt::LeftButton);
        QVERIFY(kshape()->isBusy());
        QVERIFY(!box->sweepButton()->isEnabled());
        QVERIFY(box->progressBar()->isVisibleTo(box));
        QTRY_VERIFY_WITH_TIMEOUT(!box->isBusy() && box->lastSweep(), 60000);
        QVERIFY(box->sweepButton()->isEnabled());
        QVERIFY(!box->progressBar()->isVisibleTo(box));
        const cs::KShapeSweepResult& sweep = box->lastSweep()->sweep;
        QCOMPARE(box->chart()->xValues(), (std::vector<int>{2, 3, 4}));
        for (const cs::KShapeSweepCell& c : sweep.cells) {
            cs::KShapeParams p = kshape()->params();
            p.k = c.k;
            cs::JobControl job;
            const cs::ui::KShapeRun plain = KShapePanel::compute(series(), p, m_cpu, job);
            QCOMPARE(c.labels, plain.result->labels);
            QCOMPARE(c.iterations, plain.result->iterations);
            QVERIFY(plain.hasAgreement && c.hasAgreement);
            QCOMPARE(c.adjustedRandIndex, plain.agreement.adjustedRandIndex);
            QCOMPARE(c.normalizedMutualInformation, plain.agreement.normalizedMutualInformation);
        }
        QVERIFY2(box->summaryLabel()->text().contains(QLatin1String("Click a k")),
                 qPrintable(box->summaryLabel()->text()));

        // A click on k = 3 makes it the panel's k, and the panel runs it.
        QCOMPARE(box->chart()->current(), kshape()->kSpin()->value());
        QTest::mouseClick(box->chart(), Qt::LeftButton, {}, box->chart()->pointOf(1));
        QCOMPARE(kshape()->kSpin()->value(), 3);
        QCOMPARE(box->chart()->current(), 3);
        // The click is an edit: undo brings the previous k back, redo the clicked one.
        m_window->undoStack()->undo();
        QCOMPARE(kshape()->kSpin()->value(), 2);
        m_window->undoStack()->redo();
        QCOMPARE(kshape()->kSpin()->value(), 3);
        QTRY_VERIFY_WITH_TIMEOUT(
            !kshape()->isBusy() && kshape()->lastRun() && kshape()->lastRun()->params.k == 3,
            60000);
        QCOMPARE(kshape()->lastRun()->result->labels, sweep.find(3)->labels);
        // Outside the plot: nothing.
        QTest::mouseClick(box->chart(), Qt::LeftButton, {}, QPoint(2, 2));
        QCOMPARE(kshape()->kSpin()->value(), 3);

        // File > Export by the ending: the table the sweep made.
        const QString path = m_tmp.filePath(QStringLiteral("gun_kshape_sweep.csv"));
        QCOMPARE(m_window->exportTo(path), QString());
        const QStringList lines = csvLines(path);
        QCOMPARE(lines.size(), 4);
        QCOMPARE(lines.join('\n') + '\n', QString::fromStdString(cs::kshapeSweepCsv(sweep)));
    }

    // Sweep 100 and 300 kernels: the accuracies equal the panel's plain runs; a click applies
    // 300; a bad list is refused; Cancel stops a long sweep and keeps the chart.
    void rocketSweepApplyAndCancel() {
        auto* box = rocket()->sweepBox();
        rocket()->kernelsSpin()->setValue(100);
        rocket()->seedSpin()->setValue(2);
        QTRY_VERIFY_WITH_TIMEOUT(!rocket()->isBusy(), 60000);
        box->kernelsEdit()->clear();
        QTest::keyClicks(box->kernelsEdit(), QStringLiteral("100, 300"));
        QTest::mouseClick(box->sweepButton(), Qt::LeftButton);
        QVERIFY(rocket()->isBusy());
        QTRY_VERIFY_WITH_TIMEOUT(!box->isBusy() && box->lastSweep(), 60000);
        const cs::RocketSweepResult& sweep = box->lastSweep()->sweep;
        QVERIFY(sweep.testSplit);
        QCOMPARE(box->chart()->xValues(), (std::vector<int>{100, 300}));
        for (const cs::RocketSweepCell& c : sweep.cells) {
            cs::RocketParams p = rocket()->params();
            p.kernels = c.kernels;
            cs::JobControl job;
            const cs::ui::RocketRun plain = RocketPanel::compute(series(), p, m_cpu, job);
            QCOMPARE(c.accuracy, plain.testAccuracy);
            QCOMPARE(c.looAccuracy, plain.model->looAccuracy);
            QCOMPARE(c.testCount, plain.testCount);
        }
        QCOMPARE(box->chart()->current(), 100);
        QTest::mouseClick(box->chart(), Qt::LeftButton, {}, box->chart()->pointOf(1));
        QCOMPARE(rocket()->kernelsSpin()->value(), 300);
        QTRY_VERIFY_WITH_TIMEOUT(!rocket()->isBusy() && rocket()->lastRun() &&
                                     rocket()->lastRun()->params.kernels == 300,
                                 60000);
        QCOMPARE(rocket()->lastRun()->testAccuracy, sweep.find(300)->accuracy);
        QCOMPARE(box->chart()->current(), 300);

        const QString path = m_tmp.filePath(QStringLiteral("gun_rocket_sweep.csv"));
        QCOMPARE(m_window->exportTo(path), QString());
        QCOMPARE(csvLines(path).join('\n') + '\n',
                 QString::fromStdString(cs::rocketSweepCsv(sweep)));

        // Refused: nothing starts, the reason is shown, the chart stays.
        box->kernelsEdit()->setText(QStringLiteral("300, 100"));
        QTest::mouseClick(box->sweepButton(), Qt::LeftButton);
        QVERIFY(!box->isBusy());
        QVERIFY2(box->summaryLabel()->text().contains(QLatin1String("strictly ascending")),
                 qPrintable(box->summaryLabel()->text()));
        QVERIFY(box->chart()->hasSweep());

        // Cancel: the job stops, Sweep comes back, the last finished sweep stays on screen.
        box->kernelsEdit()->setText(QStringLiteral("20000, 40000, 80000"));
        QTest::mouseClick(box->sweepButton(), Qt::LeftButton);
        QVERIFY(box->isBusy());
        QVERIFY(box->cancelButton()->isVisibleTo(box));
        QTest::mouseClick(box->cancelButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(!box->isBusy(), 10000);
        QVERIFY(box->sweepButton()->isEnabled());
        QVERIFY2(box->summaryLabel()->text().contains(QLatin1String("cancelled")),
                 qPrintable(box->summaryLabel()->text()));
        QCOMPARE(box->chart()->xValues(), (std::vector<int>{100, 300}));
        QCOMPARE(box->lastSweep()->sweep.cells.size(), std::size_t(2));
    }

    // New data forget the sweeps.
    void newDataClearsTheSweeps() {
        m_window->openFile(QString::fromStdString(
            cs::test::sharedData("ucr/ItalyPowerDemand/ItalyPowerDemand_TRAIN.ts").string()));
        QTRY_VERIFY_WITH_TIMEOUT(series() && series()->n == 1096, 30000);
        QVERIFY(!kshape()->sweepBox()->lastSweep());
        QVERIFY(!kshape()->sweepBox()->chart()->hasSweep());
        QVERIFY(!rocket()->sweepBox()->lastSweep());
        QVERIFY(!rocket()->sweepBox()->chart()->hasSweep());
        QVERIFY(m_window->exportTo(m_tmp.filePath(QStringLiteral("none_kshape_sweep.csv")))
                    .contains(QLatin1String("no k-Shape sweep")));
    }

    // The executable: --sweep kshape / rocket, the table by --export NAME_sweep.csv.
    void executableSweeps() {
        auto env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("XDG_CONFIG_HOME"), m_tmp.filePath(QStringLiteral("config")));
        env.insert(QStringLiteral("XDG_DATA_HOME"), m_tmp.filePath(QStringLiteral("data")));
        const QString kTable = m_tmp.filePath(QStringLiteral("auto_sweep.csv"));
        QProcess k;
        k.setProcessEnvironment(env);
        k.start(QStringLiteral(CS_CLUSTERSCOPE_EXE),
                {gunPoint(), "--param", "kshape.maxIterations=3", "--param", "kshape.seed=2",
                 "--sweep", "kshape", "--export", kTable, "--quit"});
        QVERIFY(k.waitForFinished(300000));
        QVERIFY2(k.exitCode() == 0, k.readAllStandardError().constData());
        const QStringList kLines = csvLines(kTable);
        QCOMPARE(kLines.size(), 1 + 19);  // k = 2 .. 20
        QVERIFY(kLines.front().startsWith(QLatin1String("k,sbd_sum,mean_sbd,ari,nmi,")));
        QVERIFY(kLines.at(1).startsWith(QLatin1String("2,")));
        QVERIFY(kLines.last().startsWith(QLatin1String("20,")));
        // k = 2 with those parameters, as a plain run gives it.
        {
            cs::KShapeParams p;
            p.k = 2;
            p.maxIterations = 3;
            p.seed = 2;
            cs::JobControl job;
            const cs::KShapeResult r =
                m_cpu.kshape(cs::io::readSeriesWithSplit(gunPoint().toStdString()), p, job);
            double sum = 0.0;
            for (float d : r.distances)
                sum += double(d);
            QCOMPARE(kLines.at(1).section(',', 1, 1).toDouble(), sum);
        }

        const QString rTable = m_tmp.filePath(QStringLiteral("auto2_sweep.csv"));
        const QString png = m_tmp.filePath(QStringLiteral("rocket_sweep.png"));
        QProcess r;
        r.setProcessEnvironment(env);
        r.start(QStringLiteral(CS_CLUSTERSCOPE_EXE),
                {gunPoint(), "--param", "rocket.variant=minirocket", "--sweep", "rocket",
                 "--export", rTable, "--screenshot", png, "--window-size", "1280x720", "--quit"});
        QVERIFY(r.waitForFinished(300000));
        QVERIFY2(r.exitCode() == 0, r.readAllStandardError().constData());
        const QStringList rLines = csvLines(rTable);
        QCOMPARE(rLines.size(), 1 + 7);  // 100 .. 10,000 kernels
        QVERIFY(rLines.front().startsWith(QLatin1String("kernels,features,accuracy,")));
        QVERIFY2(rLines.at(1).startsWith(QLatin1String("100,84,")), qPrintable(rLines.at(1)));
        QVERIFY(rLines.last().startsWith(QLatin1String("10000,9996,")));
        QVERIFY(!QImage(png).isNull());
        if (const QString dir = qEnvironmentVariable("CS_TEST_OUTPUT"); !dir.isEmpty())
            QFile::copy(png, dir + QStringLiteral("/rocket_sweep.png"));
    }
};

CS_GL_TEST_MAIN(TestSeriesSweeps)
#include "tst_series_sweeps.moc"
