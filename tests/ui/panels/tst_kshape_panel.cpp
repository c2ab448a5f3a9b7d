// SPDX-License-Identifier: MIT
// The k-Shape panel through the GUI on a real UCR set (ItalyPowerDemand, 67 train + 1029 test
// series of length 24, 2 classes): its labels, centroids and agreement equal a direct CPU run,
// the Clusters view draws one chart per cluster with the centroid, live changes end with the
// newest parameters, refused and failed runs keep the previous result, new data clears it,
// export reads back, and the real executable runs k-Shape from the command line (exit status 1
// when the run is refused).
#include <QCategoryAxis>
#include <QChart>
#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QLineSeries>
#include <QProcess>
#include <QPushButton>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <atomic>
#include <cmath>

#include "app/common/register_backends.h"
#include "compute/backend/backend_registry.h"
#include "compute/backend/cpu_backend.h"
#include "compute/core/error.h"
#include "compute/io/npy.h"
#include "compute/kshape/kshape.h"
#include "tests/common/flaky_backend.h"
#include "tests/common/test_paths.h"
#include "tests/ui/gui_test_main.h"
#include "ui/jobs/job_runner.h"
#include "ui/panels/kshape/kshape_panel.h"
#include "ui/shell/automation.h"
#include "ui/shell/main_window.h"
#include "ui/views/series/series_view.h"

using cs::test::logged;
using cs::ui::KShapePanel;
using cs::ui::SeriesView;

namespace {

cs::KShapeResult directRun(const cs::SeriesSet& s, const cs::KShapeParams& p) {
    cs::JobControl job;
    return cs::backendRegistry().get("cpu")->kshape(s, p, job);
}

using cs::test::FlakyBackend;

// n univariate series of length 16 in two shapes, for the small-set cases.
std::shared_ptr<cs::SeriesSet> smallSet(std::size_t n) {
    auto s = std::make_shared<cs::SeriesSet>();
    s->n = n;
    s->channels = 1;
    s->length = 16;
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t t = 0; t < 16; ++t)
            s->values.push_back(i % 2 ? float(std::sin(0.4 * double(t + i)))
                                      : float(t % 4 == 0) + 0.01f * float(i));
    s->lengths.assign(n, 16);
    return s;
}

QString writeSmallTs(const QString& path, int n) {
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Text)) return {};
    QByteArray text =
        "@problemName small\n@univariate true\n@equalLength true\n@seriesLength 20\n"
        "@classLabel false\n@data\n";
    for (int i = 0; i < n; ++i) {
        QStringList values;
        for (int t = 0; t < 20; ++t)
            values << QString::number(std::sin(0.3 * t * (1 + i % 3)) + 0.01 * i);
        text += values.join(',').toUtf8() + '\n';
    }
    f.write(text);
    return path;
}

}  // namespace

class TestKShapePanel : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_tmp;
    std::unique_ptr<cs::ui::MainWindow> m_window;

    KShapePanel* panel() { return m_window->kshapePanel(); }
    SeriesView* view() { return m_window->seriesView(); }
    const cs::SeriesSet& series() { return *view()->seriesSet(); }
    bool settled() { return !panel()->isBusy() && panel()->lastRun(); }
    bool ranWith(const cs::KShapeParams& p) {
        if (!settled()) return false;
        const cs::KShapeParams& q = panel()->lastRun()->params;
        return q.k == p.k && q.seed == p.seed && q.maxIterations == p.maxIterations &&
               q.channel == p.channel;
    }
    static QString data(const char* relative) {
        return QString::fromStdString(cs::test::sharedData(relative).string());
    }
    QString italy() const { return data("ucr/ItalyPowerDemand/ItalyPowerDemand_TRAIN.ts"); }
    void loadItaly() {
        m_window->openFile(italy());
        QTRY_VERIFY_WITH_TIMEOUT(view()->seriesSet() && view()->seriesSet()->n == 1096, 30000);
    }
    // The panel's result equals a direct CPU run with its parameters, and the panel says so.
    void checkAgainstDirect() {
        const auto run = panel()->lastRun();
        QVERIFY(run);
        const cs::KShapeResult want = directRun(series(), run->params);
        const cs::KShapeResult& got = *run->result;
        QCOMPARE(got.k, run->params.k);
        QCOMPARE(got.labels, want.labels);
        QCOMPARE(got.shifts, want.shifts);
        QCOMPARE(got.iterations, want.iterations);
        QCOMPARE(got.converged, want.converged);
        QCOMPARE(got.centroids.size(), want.centroids.size());
        for (std::size_t j = 0; j < got.centroids.size(); ++j)
            QVERIFY2(std::abs(got.centroids[j] - want.centroids[j]) <= 1e-5f,
                     qPrintable(QString::number(j)));
        const cs::ClusterAgreement a = cs::clusterAgreement(want.labels, series().labels);
        QVERIFY(run->hasAgreement);
        QCOMPARE(run->agreement.randIndex, a.randIndex);
        QCOMPARE(run->agreement.adjustedRandIndex, a.adjustedRandIndex);
        QCOMPARE(run->agreement.normalizedMutualInformation, a.normalizedMutualInformation);
        QCOMPARE(run->agreement.compared, series().n);
        std::vector<std::size_t> sizes(std::size_t(got.k), 0);
        for (auto l : want.labels)
            ++sizes[std::size_t(l)];
        QCOMPARE(run->sizes, sizes);
        QCOMPARE(panel()->statisticsLabel()->text(), KShapePanel::statisticsText(*run));
        QCOMPARE(panel()->agreementLabel()->text(), KShapePanel::agreementText(*run));
        QVERIFY(panel()->agreementLabel()->text().contains(QLatin1String("arbitrary")));
        QVERIFY(panel()->agreementLabel()->text().contains(
            QLocale().toString(a.adjustedRandIndex, 'f', 3)));
        QVERIFY(panel()->statisticsLabel()->text().contains(
            want.converged ? QStringLiteral("Converged after %1").arg(want.iterations)
                           : QStringLiteral("Not converged")));
        QVERIFY(panel()->warningLabel()->text().isEmpty());
    }
    // The Clusters view: one chart per cluster, the centroid last and bold, at most the cap of
    // members, titles with the cluster's size.
    void checkClusters() {
        const auto run = panel()->lastRun();
        QCOMPARE(view()->style(), SeriesView::Style::Clusters);
        QVERIFY(view()->groups().owner == run->result);
        const auto& charts = view()->clusterCharts();
        // Each series as k-Shape saw it, shifted onto its centroid: what a member line shows.
        const std::vector<float> input = cs::kshapeInput(series(), run->params.channel);
        const std::size_t m = run->result->length;
        const auto aligned = [&](std::size_t i) {
            return cs::shiftZeroFilled(std::span<const float>(input.data() + i * m, m),
                                       run->result->shifts[i]);
        };
        QCOMPARE(int(charts.size()), run->params.k);
        for (int c = 0; c < run->params.k; ++c) {
            QChart* chart = charts[std::size_t(c)];
            const auto all = chart->series();
            QVERIFY(!all.isEmpty());
            auto* centroid = qobject_cast<QLineSeries*>(all.back());
            QVERIFY(centroid);
            QCOMPARE(centroid->name(), QStringLiteral("centroid"));
            const auto want = run->result->centroid(c);
            const auto points = centroid->points();
            QCOMPARE(std::size_t(points.size()), want.size());
            for (std::size_t t = 0; t < want.size(); ++t) {
                QCOMPARE(points[qsizetype(t)].x(), double(t));
                QCOMPARE(float(points[qsizetype(t)].y()), want[t]);
            }
            // Every member line is a member of this cluster, aligned, drawn over the samples
            // its shift keeps (no zero padding: t - shift inside the series).
            for (qsizetype l = 0; l + 1 < all.size(); ++l) {
                auto* member = qobject_cast<QLineSeries*>(all[l]);
                const auto line = member->points();
                const auto i = std::size_t(member->property("seriesIndex").toULongLong());
                QCOMPARE(run->result->labels[i], c);
                const int shift = run->result->shifts[i];
                const std::size_t first = std::size_t(std::max(shift, 0));
                const std::size_t end = std::size_t(std::clamp<std::ptrdiff_t>(
                    std::ptrdiff_t(m) + shift, std::ptrdiff_t(first), std::ptrdiff_t(m)));
                QCOMPARE(std::size_t(line.size()), end - first);
                const auto want = aligned(i);
                for (qsizetype t = 0; t < line.size(); ++t) {
                    QCOMPARE(line[t].x(), double(first + std::size_t(t)));
                    QCOMPARE(float(line[t].y()), want[first + std::size_t(t)]);
                }
                QVERIFY(member->pen().widthF() < centroid->pen().widthF());
            }
            QCOMPARE(centroid->pen().color(), view()->palette().color(QPalette::Text));
            const std::size_t size = run->sizes[std::size_t(c)];
            QCOMPARE(std::size_t(all.size() - 1),
                     std::min<std::size_t>(size, std::size_t(view()->maxMembersPerCluster())));
            if (size == 0) {
                QCOMPARE(chart->title(), QStringLiteral("cluster %1 · empty").arg(c));
                continue;
            }
            QVERIFY2(chart->title().startsWith(QStringLiteral("cluster %1 · %2 series")
                                                   .arg(c)
                                                   .arg(QLocale().toString(qulonglong(size)))),
                     qPrintable(chart->title()));
            // The dominant class and its share.
            QVERIFY2(chart->title().contains(QStringLiteral(" · class ")) &&
                         chart->title().endsWith(QStringLiteral(" %")),
                     qPrintable(chart->title()));
        }
        QVERIFY(view()->note().contains(QStringLiteral("%1 clusters").arg(run->params.k)));
    }

private slots:
    void initTestCase() {
        QVERIFY(m_tmp.isValid());
        QSettings().clear();
        cs::app::registerBuiltinBackends();
        m_window = std::make_unique<cs::ui::MainWindow>();
        m_window->resize(1400, 900);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
        QVERIFY(!panel()->isEnabled());
        loadItaly();
        // Loading alone computes nothing; k defaults to the class count.
        QVERIFY(panel()->isEnabled());
        QVERIFY(!panel()->lastRun());
        QVERIFY(!view()->hasGroups());
        QVERIFY(!view()->setStyle(SeriesView::Style::Clusters));
        QCOMPARE(panel()->kSpin()->value(), 2);
        QCOMPARE(panel()->kSpin()->maximum(), 1024);  // the declared bound (Italy has 1,096 series)
        QCOMPARE(panel()->iterationsSpin()->value(), 100);
        QCOMPARE(panel()->iterationsSpin()->maximum(), 1000);
        QVERIFY(!panel()->channelSpin()->isVisibleTo(panel()));
    }

    void runMatchesADirectRun() {
        panel()->seedSpin()->setValue(5);
        const cs::KShapeParams p = panel()->params();
        QCOMPARE(p.k, 2);
        QCOMPARE(p.seed, std::uint64_t(5));
        QTRY_VERIFY_WITH_TIMEOUT(ranWith(p), 60000);
        checkAgainstDirect();
        if (QTest::currentTestFailed()) return;
        QVERIFY(logged(QStringLiteral("k-Shape (k 2, seed 5) of 1,096 series")) ||
                logged(QStringLiteral("k-Shape (k 2, seed 5) of 1096 series")));
        // The first result brings the clusters to the front.
        checkClusters();
        if (QTest::currentTestFailed()) return;
        QTRY_VERIFY_WITH_TIMEOUT(m_window->isSettled(), 10000);
    }

    void liveChangesEndWithTheNewestParameters() {
        for (int k : {3, 4, 5, 6})
            panel()->kSpin()->setValue(k);
        panel()->seedSpin()->setValue(7);
        const cs::KShapeParams p = panel()->params();
        QCOMPARE(p.k, 6);
        QTRY_VERIFY_WITH_TIMEOUT(ranWith(p), 60000);
        checkAgainstDirect();
        if (QTest::currentTestFailed()) return;
        checkClusters();
        if (QTest::currentTestFailed()) return;
        // A later run leaves the style the user chose; the clusters come back with the result.
        QVERIFY(view()->setStyle(SeriesView::Style::Lines));
        const auto before = panel()->lastRun();
        QTest::mouseClick(panel()->runButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(settled() && panel()->lastRun() != before, 60000);
        QCOMPARE(panel()->lastRun()->result->labels, before->result->labels);
        QCOMPARE(view()->style(), SeriesView::Style::Lines);
        QVERIFY(view()->setStyle(SeriesView::Style::Clusters));
        checkClusters();
        if (QTest::currentTestFailed()) return;
    }

    void manyClustersStayResponsive() {
        panel()->setMaxIterations(5);
        panel()->setK(64);
        const cs::KShapeParams p = panel()->params();
        QTRY_VERIFY_WITH_TIMEOUT(ranWith(p), 120000);
        QCOMPARE(int(view()->clusterCharts().size()), 64);
        QVERIFY(view()->maxMembersPerCluster() <= 30);
        int lines = 0;
        for (QChart* chart : view()->clusterCharts())
            lines += int(chart->series().size());
        QVERIFY2(lines <= SeriesView::kMaxClusterMembersTotal + 64 + 64 * 5,
                 qPrintable(QString::number(lines)));
        checkClusters();
        if (QTest::currentTestFailed()) return;
        panel()->setMaxIterations(100);
        panel()->setK(3);
        QTRY_VERIFY_WITH_TIMEOUT(ranWith(panel()->params()), 60000);
        checkAgainstDirect();
        if (QTest::currentTestFailed()) return;
    }

    void exportWritesLabelsAndCentroids() {
        QVERIFY(settled());
        const auto run = panel()->lastRun();
        const QString csv = m_tmp.filePath(QStringLiteral("italy_kshape.csv"));
        QCOMPARE(m_window->exportTo(csv), QString());
        QFile f(csv);
        QVERIFY(f.open(QIODevice::ReadOnly | QIODevice::Text));
        const QStringList lines = QString::fromUtf8(f.readAll()).split('\n', Qt::SkipEmptyParts);
        QVERIFY2(lines.at(0).startsWith(QLatin1String("# kshape k=3 maxIterations=100 seed=7 ")),
                 qPrintable(lines.at(0)));
        QCOMPARE(lines.at(1), QStringLiteral("index,label,distance,shift"));
        QCOMPARE(lines.size(), 1096 + 2);
        for (int i = 0; i < 1096; ++i) {
            const QStringList cols = lines.at(i + 2).split(',');
            QCOMPARE(cols.size(), 4);
            QCOMPARE(cols.at(0).toInt(), i);
            QCOMPARE(cols.at(1).toInt(), run->result->labels[std::size_t(i)]);
            QCOMPARE(cols.at(2).toFloat(), run->result->distances[std::size_t(i)]);
            QCOMPARE(cols.at(3).toInt(), run->result->shifts[std::size_t(i)]);
        }
        const QString npy = m_tmp.filePath(QStringLiteral("italy_kshape_centroids.npy"));
        QCOMPARE(m_window->exportTo(npy), QString());
        const cs::io::NpyArray back = cs::io::readNpy(npy.toStdString());
        QCOMPARE(back.shape, std::vector<std::size_t>({3, 24}));
        QCOMPARE(back.values, run->result->centroids);
        // Any other .npy is still the data.
        QCOMPARE(m_window->exportTo(m_tmp.filePath(QStringLiteral("data.npy"))), QString());
        QCOMPARE(cs::io::readNpy(m_tmp.filePath(QStringLiteral("data.npy")).toStdString()).shape,
                 std::vector<std::size_t>({1096, 24}));
    }

    void badParametersAndFailuresKeepThePreviousResult() {
        QString error;
        QVERIFY(!m_window->algorithms().parseAssignment(QStringLiteral("kshape.k=0"), &error));
        QVERIFY2(error.contains(QLatin1String("k")), qPrintable(error));
        QVERIFY(!m_window->algorithms().parseAssignment(QStringLiteral("kshape.k=1025"), &error));
        QVERIFY(!m_window->algorithms().parseAssignment(QStringLiteral("kshape.maxIterations=0"),
                                                        &error));
        QVERIFY(!m_window->algorithms().parseAssignment(QStringLiteral("kshape.maxIterations=1001"),
                                                        &error));

        // A panel of its own, on six series, whose backend fails on request.
        auto flaky = std::make_shared<FlakyBackend>();
        cs::ui::JobRunner runner([flaky] { return flaky; }, [flaky] { return flaky; });
        SeriesView seriesView;
        KShapePanel own(runner, seriesView);
        auto set = smallSet(6);
        seriesView.setSeriesSet(set);
        own.setSeriesSet(set);
        QCOMPARE(own.kSpin()->value(), 3);  // no labels: 3
        own.setK(2);
        QTRY_VERIFY_WITH_TIMEOUT(!own.isBusy() && own.lastRun(), 60000);
        const auto kept = own.lastRun();
        QVERIFY(!kept->hasAgreement);
        QVERIFY(own.agreementLabel()->text().isEmpty());
        QVERIFY(seriesView.groups().owner == kept->result);
        QCOMPARE(seriesView.clusterCharts().size(), std::size_t(2));

        // k > n: refused before anything runs, reported, the result kept.
        QSignalSpy status(&own, &KShapePanel::statusMessage);
        own.setK(10);
        QVERIFY(!own.isBusy());
        QCOMPARE(own.lastRun(), kept);
        QVERIFY2(own.warningLabel()->text().contains(QLatin1String("previous result is kept")),
                 qPrintable(own.warningLabel()->text()));
        QCOMPARE(status.count(), 1);
        QVERIFY(logged(QStringLiteral("k-Shape: ")));
        QVERIFY(seriesView.groups().owner == kept->result);
        QCOMPARE(seriesView.clusterCharts().size(), std::size_t(2));
        // A channel the set does not have: the same.
        own.setChannel(3);
        QVERIFY(!own.params().channel);  // still all (the set's one channel)
        QVERIFY2(own.warningLabel()->text().contains(QLatin1String("channel 3")),
                 qPrintable(own.warningLabel()->text()));
        QCOMPARE(status.count(), 2);

        // A failing backend: the error is shown, the result kept.
        flaky->fail = true;
        own.setK(3);
        QTRY_VERIFY_WITH_TIMEOUT(
            !own.isBusy() && own.warningLabel()->text().contains(QLatin1String("fails on purpose")),
            60000);
        QCOMPARE(own.lastRun(), kept);
        QVERIFY(seriesView.groups().owner == kept->result);
        flaky->fail = false;
        own.run();
        QTRY_VERIFY_WITH_TIMEOUT(!own.isBusy() && own.lastRun() != kept, 60000);
        QCOMPARE(own.lastRun()->params.k, 3);
        QVERIFY(own.warningLabel()->text().isEmpty());
        QCOMPARE(seriesView.clusterCharts().size(), std::size_t(3));
    }

    void loadingOtherDataClears() {
        QVERIFY(settled());
        m_window->openFile(data("ucr/ArrowHead/ArrowHead_TRAIN.ts"));
        QTRY_VERIFY_WITH_TIMEOUT(view()->seriesSet() && view()->seriesSet()->n == 211, 30000);
        QVERIFY(!panel()->lastRun());
        QVERIFY(!view()->hasGroups());
        QVERIFY(view()->clusterCharts().empty());
        QCOMPARE(view()->style(), SeriesView::Style::Lines);
        QVERIFY(!view()->setStyle(SeriesView::Style::Clusters));
        QCOMPARE(panel()->kSpin()->value(), 3);  // ArrowHead's classes
        QCOMPARE(m_window->exportTo(m_tmp.filePath(QStringLiteral("a_kshape.csv"))),
                 QStringLiteral("no k-Shape clusters to export yet"));
    }

    void registryRunsKShape() {
        const cs::ui::Algorithm* kshape = m_window->algorithms().find(QStringLiteral("kshape"));
        QVERIFY(kshape);
        QStringList names;
        for (const auto& p : kshape->descriptor->parameters)
            if (p.inPanel) names << QString::fromStdString(p.name);
        QCOMPARE(names, QStringList({"k", "maxIterations", "seed", "channel"}));
        QString error;
        const auto a = m_window->algorithms().parseAssignment(QStringLiteral("kshape.k=4"), &error);
        QVERIFY2(a, qPrintable(error));
        kshape->setParameter(a->parameter, a->value);
        kshape->setParameter(QStringLiteral("seed"), std::int64_t(2));
        kshape->run();
        QTRY_VERIFY_WITH_TIMEOUT(!kshape->isBusy() && panel()->lastRun(), 60000);
        QCOMPARE(panel()->lastRun()->params.k, 4);
        QCOMPARE(panel()->lastRun()->params.seed, std::uint64_t(2));
        checkAgainstDirect();
        if (QTest::currentTestFailed()) return;
        checkClusters();
        if (QTest::currentTestFailed()) return;
        if (const QString dir = qEnvironmentVariable("CS_TEST_OUTPUT"); !dir.isEmpty())
            QVERIFY(m_window->grabWindow().save(dir + QStringLiteral("/kshape_panel.png")));
    }

    void executableRunsKShape() {
        auto env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("XDG_CONFIG_HOME"), m_tmp.filePath(QStringLiteral("config")));
        env.insert(QStringLiteral("XDG_DATA_HOME"), m_tmp.filePath(QStringLiteral("data")));
        const QString png = m_tmp.filePath(QStringLiteral("kshape.png"));
        const QString csv = m_tmp.filePath(QStringLiteral("cli_kshape.csv"));
        QProcess p;
        p.setProcessEnvironment(env);
        p.start(QStringLiteral(CS_CLUSTERSCOPE_EXE),
                {italy(), "--param", "kshape.k=3", "--param", "kshape.seed=4", "--run", "kshape",
                 "--export", csv, "--screenshot", png, "--window-size", "1200x800", "--quit"});
        QVERIFY(p.waitForFinished(300000));
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
        QVERIFY(!QImage(png).isNull());
        QFile f(csv);
        QVERIFY(f.open(QIODevice::ReadOnly | QIODevice::Text));
        const QStringList lines = QString::fromUtf8(f.readAll()).split('\n', Qt::SkipEmptyParts);
        QVERIFY2(lines.at(0).startsWith(QLatin1String("# kshape k=3 maxIterations=100 seed=4 ")),
                 qPrintable(lines.at(0)));
        QCOMPARE(lines.size(), 1096 + 2);
        // The --param values ran, but they are a script's, not the user's choice: the settings
        // the app leaves behind hold neither (the stored seed would read seed=4).
        QFile conf(m_tmp.filePath(QStringLiteral("config/Clusterscope/Clusterscope.conf")));
        QVERIFY2(conf.open(QIODevice::ReadOnly | QIODevice::Text), "the app wrote no settings");
        const QString stored = QString::fromUtf8(conf.readAll());
        QVERIFY2(!stored.contains(QLatin1String("seed=4")), qPrintable(stored));

        // Refused by the panel (k > n): exit status 1, the reason on stderr.
        const QString small = writeSmallTs(m_tmp.filePath(QStringLiteral("small.ts")), 5);
        QVERIFY(!small.isEmpty());
        for (const QStringList& param :
             {QStringList{"--param", "kshape.k=10"}, QStringList{"--param", "kshape.channel=2"}}) {
            QProcess bad;
            bad.setProcessEnvironment(env);
            bad.start(QStringLiteral(CS_CLUSTERSCOPE_EXE),
                      QStringList{small} + param + QStringList{"--run", "kshape", "--quit"});
            QVERIFY(bad.waitForFinished(60000));
            const QString err = QString::fromLocal8Bit(bad.readAllStandardError());
            QVERIFY2(bad.exitCode() == 1, qPrintable(err));
            QVERIFY2(err.contains(QLatin1String("k-Shape")), qPrintable(err));
        }
    }

    // The automation waits until the cluster charts have drawn, so that a screenshot never shows
    // empty frames (2 runs in 5 did before the series view reported the charts' first paint).
    void automationWaitsForTheClusterCharts() {
        const QString arrowHead = data("ucr/ArrowHead/ArrowHead_TRAIN.ts");
        if (!QFileInfo::exists(arrowHead)) CS_QSKIP_MISSING_DATA("missing " + arrowHead);
        for (int round = 0; round < 5; ++round) {
            cs::ui::MainWindow window;
            window.resize(1280, 720);
            window.show();
            QString error;
            const auto options = cs::ui::Automation::parse(
                {QStringLiteral("clusterscope"), arrowHead, QStringLiteral("--param"),
                 QStringLiteral("kshape.k=3"), QStringLiteral("--run"), QStringLiteral("kshape"),
                 QStringLiteral("--quit")},
                &error);
            QVERIFY2(options, qPrintable(error));
            cs::ui::Automation automation(window, *options);
            bool done = false;
            int charts = 0, drawn = 0;
            connect(&automation, &cs::ui::Automation::finished, this, [&] {
                done = true;
                for (QChart* chart : window.seriesView()->clusterCharts()) {
                    ++charts;
                    const QRectF plot = chart->plotArea();
                    drawn += plot.width() > 10 && plot.height() > 10 && !chart->series().isEmpty();
                }
            });
            automation.start();
            QTRY_VERIFY_WITH_TIMEOUT(done, 120000);
            QCOMPARE(charts, 3);
            QCOMPARE(drawn, 3);
        }
    }

    void emptyClustersAreSaid() {
        // Constant series are all zeros once z-normalised: every SBD is 1, all go to cluster 0,
        // and the other two clusters stay empty; the statistics say so, with the sizes.
        const QString path = m_tmp.filePath(QStringLiteral("constant.ts"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Text));
        f.write(
            "@problemName constant\n@univariate true\n@equalLength true\n@seriesLength 12\n"
            "@classLabel false\n@data\n");
        for (int i = 0; i < 7; ++i)
            f.write(QByteArray(QStringList(12, QString::number(i)).join(',').toUtf8() + '\n'));
        f.close();
        m_window->openFile(path);
        QTRY_VERIFY_WITH_TIMEOUT(view()->seriesSet() && view()->seriesSet()->n == 7, 30000);
        const cs::ui::Algorithm* kshape = m_window->algorithms().find(QStringLiteral("kshape"));
        kshape->setParameter(QStringLiteral("k"), std::int64_t(3));
        kshape->run();
        QTRY_VERIFY_WITH_TIMEOUT(!kshape->isBusy() && panel()->lastRun(), 60000);
        const auto run = panel()->lastRun();
        QCOMPARE(run->sizes, (std::vector<std::size_t>{7, 0, 0}));
        QCOMPARE(run->emptyClusters, std::size_t(2));
        const QString text = panel()->statisticsLabel()->text();
        QVERIFY2(text.contains(QLatin1String("2 of the 3 clusters are empty")), qPrintable(text));
        QCOMPARE(text, KShapePanel::statisticsText(*run));
    }

    void multivariateStacksTheChannels() {
        // BasicMotions (6 channels): all of them together by default, the panel's result a direct
        // run's, each cluster chart stacking the channels' centroids (and members) top to
        // bottom, lane by lane; one channel on request draws one centroid per chart.
        const QString path = data("ucr/BasicMotions/BasicMotions_TRAIN.ts");
        if (!QFileInfo::exists(path)) CS_QSKIP_MISSING_DATA("missing " + path);
        m_window->openFile(path);
        QTRY_VERIFY_WITH_TIMEOUT(view()->seriesSet() && view()->seriesSet()->n == 80, 30000);
        QVERIFY(panel()->channelSpin()->isVisibleTo(panel()));
        QCOMPARE(panel()->channelSpin()->value(), int(cs::kKShapeAllChannels));
        QCOMPARE(panel()->channelSpin()->text(), QStringLiteral("all"));
        QCOMPARE(panel()->channelSpin()->maximum(), 5);
        QString error;
        const auto all =
            m_window->algorithms().parseAssignment(QStringLiteral("kshape.channel=all"), &error);
        QVERIFY2(all, qPrintable(error));
        QCOMPARE(std::get<std::int64_t>(all->value), cs::kKShapeAllChannels);
        const cs::ui::Algorithm* kshape = m_window->algorithms().find(QStringLiteral("kshape"));
        kshape->setParameter(QStringLiteral("k"), std::int64_t(4));
        kshape->setParameter(QStringLiteral("seed"), std::int64_t(1));
        kshape->setParameter(all->parameter, all->value);
        kshape->run();
        QTRY_VERIFY_WITH_TIMEOUT(!kshape->isBusy() && panel()->lastRun() &&
                                     panel()->lastRun()->series == view()->seriesSet(),
                                 60000);
        auto run = panel()->lastRun();
        QVERIFY(!run->params.channel);
        QCOMPARE(run->result->channels, std::size_t(6));
        const cs::KShapeResult want = directRun(series(), run->params);
        QCOMPARE(run->result->labels, want.labels);
        QCOMPARE(run->result->shifts, want.shifts);
        QVERIFY(panel()->statisticsLabel()->text().contains(QLatin1String("All 6 channels")));
        QCOMPARE(view()->style(), SeriesView::Style::Clusters);
        QVERIFY(view()->note().contains(QLatin1String("all 6 channels together")));
        const std::size_t m = run->result->length;
        for (int c = 0; c < 4; ++c) {
            QChart* chart = view()->clusterCharts()[std::size_t(c)];
            std::vector<QLineSeries*> centroids;
            for (QAbstractSeries* line : chart->series())
                if (line->name() == QLatin1String("centroid"))
                    centroids.push_back(qobject_cast<QLineSeries*>(line));
            QCOMPARE(centroids.size(), std::size_t(6));
            // Channel d's line is its centroid channel lowered by d lanes, and the lanes keep
            // apart: every point of channel d is above every point of channel d + 1.
            const auto values = run->result->centroid(c);
            double lane = 0.0;
            for (std::size_t d = 0; d < 6; ++d) {
                const auto points = centroids[d]->points();
                QCOMPARE(std::size_t(points.size()), m);
                const double offset = points[0].y() - double(values[d * m]);
                if (d == 1) lane = -offset;
                QVERIFY(std::abs(offset + double(d) * lane) < 1e-3 * std::max(1.0, lane));
                for (std::size_t t = 0; t < m; ++t)
                    QVERIFY(std::abs(points[qsizetype(t)].y() - offset - values[d * m + t]) < 1e-4);
                if (d + 1 < 6) {
                    double lowest = 1e300, highestBelow = -1e300;
                    for (QAbstractSeries* any : chart->series()) {
                        const auto* line = qobject_cast<QLineSeries*>(any);
                        // The lines of channel d and d + 1, members included, by position.
                        const qsizetype index = chart->series().indexOf(any);
                        const qsizetype perChannel = chart->series().size() / 6;
                        for (const QPointF& p : line->points()) {
                            if (index / perChannel == qsizetype(d))
                                lowest = std::min(lowest, p.y());
                            if (index / perChannel == qsizetype(d + 1))
                                highestBelow = std::max(highestBelow, p.y());
                        }
                    }
                    QVERIFY2(highestBelow < lowest,
                             qPrintable(QStringLiteral("cluster %1 channel %2").arg(c).arg(d)));
                }
            }
            QVERIFY(lane > 0.0);
            // The lanes are named by channel, bottom up, each at its zero.
            auto* lanes = qobject_cast<QCategoryAxis*>(chart->axes(Qt::Vertical).front());
            QVERIFY(lanes);
            QCOMPARE(lanes->categoriesLabels(), QStringList({"5", "4", "3", "2", "1", "0"}));
            QVERIFY(std::abs(lanes->endValue(QStringLiteral("1")) + lane) < 1e-9 * lane);
        }
        // k x C x m centroids in the export.
        const QString npy = m_tmp.filePath(QStringLiteral("motions_kshape_centroids.npy"));
        QCOMPARE(m_window->exportTo(npy), QString());
        // (readNpy takes 1-D and 2-D arrays only: the header and the size are read here.)
        QFile written(npy);
        QVERIFY(written.open(QIODevice::ReadOnly));
        const QByteArray bytes = written.readAll();
        QVERIFY2(bytes.left(128).contains("'shape': (4, 6, 100)"), bytes.left(128).constData());
        const qsizetype headerEnd = bytes.indexOf('\n') + 1;
        QCOMPARE(bytes.size() - headerEnd, qsizetype(4 * 6 * 100 * sizeof(float)));
        const auto* values = reinterpret_cast<const float*>(bytes.constData() + headerEnd);
        QVERIFY(std::equal(run->result->centroids.begin(), run->result->centroids.end(), values));

        // One channel: the univariate clustering of that channel, one centroid per chart.
        panel()->setChannel(2);
        QTRY_VERIFY_WITH_TIMEOUT(!panel()->isBusy() && panel()->lastRun() != run, 60000);
        run = panel()->lastRun();
        QCOMPARE(run->params.channel, std::optional<std::size_t>(2));
        QCOMPARE(run->result->channels, std::size_t(1));
        QCOMPARE(run->result->labels, directRun(series(), run->params).labels);
        for (QChart* chart : view()->clusterCharts())
            QCOMPARE(chart->series().back()->name(), QStringLiteral("centroid"));
        QVERIFY(view()->note().contains(QLatin1String("channel ")));
        QVERIFY(!view()->note().contains(QLatin1String("together")));
    }

    void cleanupTestCase() { m_window.reset(); }
};

CS_GL_TEST_MAIN(TestKShapePanel)
#include "tst_kshape_panel.moc"
