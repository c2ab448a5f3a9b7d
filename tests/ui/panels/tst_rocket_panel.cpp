// SPDX-License-Identifier: MIT
// The ROCKET panel through the GUI on a real UCR set (GunPoint, 50 train + 150 test series):
// its features and scores equal a direct CPU run, the feature map's pixel buffer is
// columnZScores() for the view's rows (PPV and MAX), live changes end with the newest
// parameters, failures keep the previous result, an unlabelled set gets features without a
// classifier, new data clears the result, export reads back, and the real executable runs
// ROCKET from the command line.
#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QProcess>
#include <QPushButton>
#include <QScrollBar>
#include <QSpinBox>
#include <QStatusBar>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <atomic>
#include <cmath>

#include "app/common/register_backends.h"
#include "compute/backend/backend_registry.h"
#include "compute/backend/cpu_backend.h"
#include "compute/core/error.h"
#include "compute/core/series_matrix.h"
#include "compute/demo/demo_data.h"
#include "compute/io/npy.h"
#include "compute/rocket/ridge.h"
#include "compute/rocket/rocket.h"
#include "compute/rocket/rocket_quantities.h"
#include "tests/common/flaky_backend.h"
#include "tests/common/test_paths.h"
#include "tests/ui/gui_test_main.h"
#include "ui/jobs/job_runner.h"
#include "ui/panels/rocket/rocket_panel.h"
#include "ui/shell/main_window.h"
#include "ui/shell/selection_model.h"
#include "ui/views/series/feature_matrix_view.h"
#include "ui/views/series/series_view.h"

using cs::test::logged;
using cs::ui::RocketPanel;
using cs::ui::SeriesView;

namespace {

// What the panel should show, computed here without it.
struct Direct {
    cs::RocketFeatures features;
    cs::RidgeModel model;
    double testAccuracy = -1.0;
    std::size_t train = 0;
    std::size_t test = 0;
};

Direct directRun(const cs::SeriesSet& s, const cs::RocketParams& p) {
    Direct d;
    cs::JobControl job;
    auto backend = cs::backendRegistry().get("cpu");
    const auto kernels = cs::makeRocketKernels(p, s.length, s.channels);
    d.features = backend->rocketTransform(s, kernels, job);
    std::vector<std::int32_t> labels(s.n, -1);
    for (std::size_t i = 0; i < s.n; ++i)
        if (s.labels[i] >= 0 && !s.isTest[i]) {
            labels[i] = s.labels[i];
            ++d.train;
        }
    d.model = backend->ridgeFit(d.features, labels, int(s.classCount()), {}, job);
    const auto predicted = cs::ridgePredict(d.model, d.features.values, d.features.n);
    std::size_t correct = 0;
    for (std::size_t i = 0; i < s.n; ++i)
        if (s.isTest[i] && s.labels[i] >= 0) {
            ++d.test;
            correct += predicted[i] == s.labels[i];
        }
    d.testAccuracy = double(correct) / double(d.test);
    return d;
}

using cs::test::FlakyBackend;

bool near(const std::vector<float>& a, const std::vector<float>& b, float tolerance = 1e-6f) {
    if (a.size() != b.size()) return false;
    for (std::size_t k = 0; k < a.size(); ++k)
        if (!(std::abs(a[k] - b[k]) <= tolerance)) return false;
    return true;
}

}  // namespace

class TestRocketPanel : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_tmp;
    std::unique_ptr<cs::ui::MainWindow> m_window;

    RocketPanel* panel() { return m_window->rocketPanel(); }
    SeriesView* view() { return m_window->seriesView(); }
    cs::ui::FeatureMatrixView* map() { return view()->featureMatrixView(); }
    const cs::SeriesSet& series() { return *view()->seriesSet(); }
    bool settled() { return !panel()->isBusy() && panel()->lastRun(); }
    bool ranWith(const cs::RocketParams& p) {
        if (!settled()) return false;
        const cs::RocketParams& q = panel()->lastRun()->params;
        return q.kernels == p.kernels && q.seed == p.seed && q.variant == p.variant &&
               q.normalise == p.normalise;
    }
    QString gunPoint() const {
        return QString::fromStdString(
            cs::test::sharedData("ucr/GunPoint/GunPoint_TRAIN.ts").string());
    }
    void loadGunPoint() {
        m_window->openFile(gunPoint());
        QTRY_VERIFY_WITH_TIMEOUT(view()->seriesSet() && view()->seriesSet()->n == 200, 30000);
    }
    // The feature map on screen equals the column z-scores of the panel's features (layer 0:
    // PPV, 1: MAX).
    void checkMap(std::size_t layer) {
        QTRY_VERIFY_WITH_TIMEOUT(map()->isContentDrawn(), 10000);
        QVERIFY2(map()->problem().isEmpty(), qPrintable(map()->problem()));
        const auto& features = *panel()->lastRun()->features;
        QCOMPARE(map()->matrix().values.data(), features.values.data());
        QCOMPARE(map()->layer(), layer);
        QCOMPARE(map()->shownColumns(), features.kernels);
        // The columns in the map's order: by the F statistic of the classes unless chosen
        // otherwise.
        QCOMPARE(map()->columnOrder().size(), features.kernels);
        const auto want = cs::columnZScores(cs::rocketFeatureMatrix(panel()->lastRun()->features),
                                            map()->rows(), layer, map()->columnOrder());
        const auto got = map()->readMatrixBuffer();
        QCOMPARE(got.size(), map()->rows().size() * features.kernels);
        QVERIFY(near(got, want));
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
        loadGunPoint();
        QCOMPARE(m_window->currentView(), cs::ui::MainWindow::View::Series);
        // Loading alone computes nothing; the feature map is not offered yet.
        QVERIFY(panel()->isEnabled());
        QVERIFY(!panel()->lastRun());
        QVERIFY(!view()->hasFeatureMatrix());
        QCOMPARE(panel()->kernelsSpin()->value(), 10000);
        QCOMPARE(panel()->kernelsSpin()->minimum(), 1);  // the range the descriptor declares
        QCOMPARE(panel()->kernelsSpin()->maximum(), 100000);
    }

    void runMatchesADirectRun() {
        panel()->kernelsSpin()->setValue(500);
        panel()->seedSpin()->setValue(3);
        const cs::RocketParams p = panel()->params();
        QCOMPARE(p.kernels, 500);
        QCOMPARE(p.seed, std::uint64_t(3));
        QTRY_VERIFY_WITH_TIMEOUT(ranWith(p), 60000);
        const auto run = panel()->lastRun();
        const Direct want = directRun(series(), p);
        QCOMPARE(run->features->n, std::size_t(200));
        QCOMPARE(run->features->kernels, std::size_t(500));
        QCOMPARE(run->features->values, want.features.values);
        QVERIFY(run->model);
        QCOMPARE(run->trainCount, want.train);
        QCOMPARE(run->trainCount, std::size_t(50));
        QCOMPARE(run->testCount, std::size_t(150));
        QCOMPARE(run->testAccuracy, want.testAccuracy);
        QCOMPARE(run->model->alpha, want.model.alpha);
        QCOMPARE(run->model->looAccuracy, want.model.looAccuracy);
        QVERIFY2(run->testAccuracy > 0.8, qPrintable(QString::number(run->testAccuracy)));
        // The panel says so; the confusion matrix counts the test series.
        QCOMPARE(panel()->classifierLabel()->text(), RocketPanel::classifierText(*run));
        QVERIFY(panel()->classifierLabel()->text().contains(
            QLocale().toString(100.0 * want.testAccuracy, 'f', 2)));
        QCOMPARE(panel()->statisticsLabel()->text(), RocketPanel::statisticsText(*run));
        QTableWidget* table = panel()->confusionTable();
        QVERIFY(table->isVisibleTo(panel()));
        QCOMPARE(table->rowCount(), 2);
        QCOMPARE(table->columnCount(), 2);
        int total = 0, diagonal = 0;
        for (int r = 0; r < 2; ++r)
            for (int c = 0; c < 2; ++c) {
                const int v = table->item(r, c)->text().toInt();
                total += v;
                if (r == c) diagonal += v;
            }
        QCOMPARE(total, 150);
        QCOMPARE(double(diagonal) / 150.0, want.testAccuracy);
        QVERIFY(panel()->warningLabel()->text().isEmpty());
        QVERIFY(logged(QStringLiteral("ROCKET (500 kernels, seed 3)")));
        // The first result brings the feature map to the front, rows grouped by class.
        QCOMPARE(view()->style(), SeriesView::Style::FeatureMap);
        QVERIFY(map()->isVisible());
        QCOMPARE(map()->rows(), cs::heatmapRows(series(), {}, std::size_t(map()->maxRows())));
        checkMap(0);
        QCOMPARE(map()->matrixPath(), cs::ui::UploadPath::HostUpload);
        QVERIFY(logged(QStringLiteral("Feature map: computed on the host")));
        QVERIFY2(view()->note().contains(QLatin1String("ROCKET features: 500 kernels, PPV")),
                 qPrintable(view()->note()));
        // The columns by the F statistic of the classes, the most separating first.
        QCOMPARE(map()->orderShown(), cs::FeatureOrder::FStatistic);
        const auto f =
            cs::featureFStatistics(cs::rocketFeatureMatrix(run->features), series().labels, 0);
        QCOMPARE(map()->columnOrder(), cs::columnOrderByScore(f, 500));
        for (std::size_t c = 1; c < 500; ++c)
            QVERIFY(f[map()->columnOrder()[c - 1]] >= f[map()->columnOrder()[c]]);
        QVERIFY(map()->fill()->title(500).contains(QLatin1String("ordered by F statistic")));
        // The read-out: the series, its class, the kernel and its shape, the value, z and the
        // kernel's score and rank.
        const std::uint32_t i = map()->rows()[7];
        const auto& k = *run->kernels;
        const std::uint32_t w = map()->columnOrder()[12];
        const QString text = map()->describe(map()->cellCentre(7, 12));
        const float z =
            cs::columnZScores(cs::rocketFeatureMatrix(run->features), std::vector<std::uint32_t>{i},
                              0, std::vector<std::uint32_t>{w})[0];
        QCOMPARE(
            text,
            QStringLiteral("series %1 · class %2 · kernel %9 (length %3, dilation %4, "
                           "padding %5, bias %10) · PPV = %6 · MAX = %7 · z = %8 · F = %11 "
                           "(rank 13)")
                .arg(i)
                .arg(QString::fromStdString(series().classNames[std::size_t(series().labels[i])]))
                .arg(k.lengths[w])
                .arg(k.dilations[w])
                .arg(k.paddings[w])
                .arg(double(run->features->ppv(i, w)), 0, 'g', 5)
                .arg(double(run->features->max(i, w)), 0, 'g', 5)
                .arg(double(z), 0, 'f', 2)
                .arg(w)
                .arg(QString::asprintf("%.4g", double(k.biases[w])))
                .arg(f[w], 0, 'g', 4));
        QTRY_VERIFY_WITH_TIMEOUT(m_window->isSettled(), 10000);
    }

    void switchingTheFeature() {
        QVERIFY(settled());
        QComboBox* box = view()->featureBox();
        QVERIFY(box->isVisibleTo(view()));
        QCOMPARE(box->count(), 2);
        QCOMPARE(box->itemText(1), QStringLiteral("MAX"));
        box->setCurrentIndex(1);
        QCOMPARE(view()->featureLayer(), std::size_t(1));
        checkMap(1);
        QVERIFY(view()->note().contains(QLatin1String("MAX")));
        QVERIFY(map()->fill()->title(500).contains(QLatin1String("MAX z-scored per kernel")));
        // The split filter reaches the feature map: the test series only, still z-scored over
        // all series.
        view()->setSplit(SeriesView::Split::Test);
        QCOMPARE(map()->rowCount(), std::size_t(150));
        checkMap(1);
        view()->setSplit(SeriesView::Split::All);
        view()->setFeatureLayer(0);
        QCOMPARE(box->currentIndex(), 0);
        checkMap(0);
        // Capped columns: the first ones are drawn and the title says so.
        map()->setColumnLimit(64);
        QTRY_VERIFY_WITH_TIMEOUT(map()->isContentDrawn(), 10000);
        QVERIFY(map()->isColumnCapped());
        QCOMPARE(map()->shownColumns(), std::size_t(64));
        QVERIFY(map()->fill()->title(64).contains(QLatin1String("first 64 of 500")));
        const std::vector<std::uint32_t> first64(map()->columnOrder().begin(),
                                                 map()->columnOrder().begin() + 64);
        QVERIFY(near(map()->readMatrixBuffer(),
                     cs::columnZScores(cs::rocketFeatureMatrix(panel()->lastRun()->features),
                                       map()->rows(), 0, first64)));
        map()->setColumnLimit(0);
        checkMap(0);
        // The other styles stay available.
        QVERIFY(view()->setStyle(SeriesView::Style::Heatmap));
        QVERIFY(!box->isVisibleTo(view()));
        QVERIFY(view()->setStyle(SeriesView::Style::FeatureMap));
    }

    void featureOrderByWeightFromTheParameter() {
        QVERIFY(settled());
        const auto run = panel()->lastRun();
        QVERIFY(run->model);
        // --param rocket.featureOrder=weight: the view reorders, nothing runs again.
        QString error;
        const auto a = m_window->algorithms().parseAssignment(
            QStringLiteral("rocket.featureOrder=weight"), &error);
        QVERIFY2(a, qPrintable(error));
        m_window->algorithms().find(QStringLiteral("rocket"))->setParameter(a->parameter, a->value);
        QCOMPARE(view()->featureOrder(), cs::FeatureOrder::Weight);
        QCOMPARE(map()->orderShown(), cs::FeatureOrder::Weight);
        QCOMPARE(view()->orderBox()->currentData().toInt(), int(cs::FeatureOrder::Weight));
        QCOMPARE(panel()->parameterValues().word("featureOrder"), std::string("weight"));
        QVERIFY(!panel()->isBusy());
        QCOMPARE(panel()->lastRun(), run);
        // The order is the ridge weights' (root of the squares over the classes) of the layer.
        const cs::RidgeModel& m = *run->model;
        for (const std::size_t layer : {std::size_t(0), std::size_t(1)}) {
            view()->setFeatureLayer(layer);
            std::vector<double> w(500);
            for (std::size_t c = 0; c < 500; ++c) {
                const std::size_t j = c * 2 + layer;
                double sum = 0.0;
                for (int k = 0; k < m.classes; ++k)
                    sum += m.weights[j * std::size_t(m.classes) + std::size_t(k)] *
                           m.weights[j * std::size_t(m.classes) + std::size_t(k)];
                w[c] = std::sqrt(sum);
            }
            const auto& order = map()->columnOrder();
            QCOMPARE(order, cs::columnOrderByScore(w, 500));
            for (std::size_t c = 1; c < 500; ++c)
                QVERIFY(w[order[c - 1]] >= w[order[c]]);
            checkMap(layer);
        }
        view()->setFeatureLayer(0);
        // The class strips are labelled, the class means sit above the map.
        const auto labels = map()->classLabels();
        QCOMPARE(labels.size(), std::size_t(2));
        QCOMPARE(labels[0].text, QString::fromStdString(series().classNames[0]));
        QCOMPARE(labels[1].text, QString::fromStdString(series().classNames[1]));
        QCOMPARE(map()->summaryValues(), cs::classMeanZScores(map()->matrix(), series().labels, 2,
                                                              0, map()->columnOrder()));
        // The view's box back to the F statistic, with the keyboard; the parameter follows.
        QComboBox* box = view()->orderBox();
        box->setFocus();
        QTest::keyClick(box, Qt::Key_Up);
        QCOMPARE(view()->featureOrder(), cs::FeatureOrder::FStatistic);
        QCOMPARE(panel()->parameterValues().word("featureOrder"), std::string("f-statistic"));
        QCOMPARE(panel()->lastRun(), run);
    }

    // More than 8 classes: the table scrolls, and its 8 rows shown stay whole above the
    // horizontal scroll bar (which covered most of the eighth at 11 classes).
    void manyClassesShowEightWholeRows() {
        auto cpu = cs::backendRegistry().get("cpu");
        cs::ui::JobRunner runner([cpu] { return cpu; }, [cpu] { return cpu; });
        SeriesView seriesView;
        RocketPanel own(runner, seriesView);
        own.resize(320, 1000);
        own.show();
        QVERIFY(QTest::qWaitForWindowExposed(&own));
        own.kernelsSpin()->setValue(100);
        auto set = std::make_shared<const cs::SeriesSet>(cs::demo::makeDemoSeries(240, 64, 12, 5));
        seriesView.setSeriesSet(set);
        own.setSeriesSet(set);
        own.run();
        QTRY_VERIFY_WITH_TIMEOUT(!own.isBusy() && own.lastRun(), 60000);
        QTableWidget* table = own.confusionTable();
        QCOMPARE(table->rowCount(), 12);
        QTRY_VERIFY(table->isVisible());
        int rows = 0;
        for (int r = 0; r < 8; ++r)
            rows += table->rowHeight(r);
        QTRY_VERIFY2(table->horizontalScrollBar()->isVisible(), "the columns fit: no check");
        QVERIFY2(table->viewport()->height() >= rows,
                 qPrintable(QStringLiteral("%1 px for 8 rows of %2 px")
                                .arg(table->viewport()->height())
                                .arg(rows)));
    }

    void confusionMatrixNamesShadesAndSelects() {
        QVERIFY(settled());
        const auto run = panel()->lastRun();
        QTableWidget* table = panel()->confusionTable();
        QVERIFY(table->isVisibleTo(panel()));
        // Class names on both axes, and the axes named.
        QStringList names;
        for (const std::string& n : series().classNames)
            names << QString::fromStdString(n);
        for (int c = 0; c < 2; ++c) {
            QCOMPARE(table->horizontalHeaderItem(c)->text(), names[c]);
            QCOMPARE(table->verticalHeaderItem(c)->text(), names[c]);
        }
        auto* predicted =
            panel()->confusionBox()->findChild<QLabel*>(QStringLiteral("confusionPredictedAxis"));
        auto* truth =
            panel()->confusionBox()->findChild<QLabel*>(QStringLiteral("confusionTrueAxis"));
        QVERIFY(predicted && truth);
        QVERIFY(predicted->isVisibleTo(panel()) && truth->isVisibleTo(panel()));
        QVERIFY(predicted->text().contains(QLatin1String("Predicted")));
        QVERIFY(truth->text().contains(QLatin1String("True")));
        // Shading monotone in the count: more series, more of the highlight colour.
        const QColor base = panel()->palette().color(QPalette::Base);
        const auto distance = [&](const QColor& c) {
            return std::abs(c.redF() - base.redF()) + std::abs(c.greenF() - base.greenF()) +
                   std::abs(c.blueF() - base.blueF());
        };
        std::vector<std::pair<int, double>> cells;
        for (int r = 0; r < 2; ++r)
            for (int c = 0; c < 2; ++c)
                cells.push_back({table->item(r, c)->text().toInt(),
                                 distance(table->item(r, c)->background().color())});
        std::sort(cells.begin(), cells.end());
        for (std::size_t k = 1; k < cells.size(); ++k) {
            if (cells[k].first > cells[k - 1].first)
                QVERIFY(cells[k].second > cells[k - 1].second);
            else
                QCOMPARE(cells[k].second, cells[k - 1].second);
        }
        QVERIFY(RocketPanel::confusionShade(0, 10) == 0.0);
        QVERIFY(RocketPanel::confusionShade(3, 10) < RocketPanel::confusionShade(4, 10));
        // A click on a cell selects its series: the test series of that true and predicted
        // class.
        view()->setStyle(SeriesView::Style::FeatureMap);
        panel()->show();
        for (int r = 0; r < 2; ++r)
            for (int c = 0; c < 2; ++c) {
                std::vector<std::uint32_t> want;
                for (std::size_t i = 0; i < series().n; ++i)
                    if (series().isTest[i] && series().labels[i] == r && run->predictions[i] == c)
                        want.push_back(std::uint32_t(i));
                QCOMPARE(want.size(), std::size_t(table->item(r, c)->text().toInt()));
                QCOMPARE(panel()->confusionMembers(r, c), want);
                table->scrollToItem(table->item(r, c));
                QTest::mouseClick(table->viewport(), Qt::LeftButton, {},
                                  table->visualItemRect(table->item(r, c)).center());
                QCOMPARE(m_window->selection()->series(), want);
                QCOMPARE(view()->selectedSeries(), want);
                // The feature map marks exactly those rows.
                const auto& marked = map()->markedRows();
                if (want.empty()) {
                    QVERIFY(marked.empty());
                    continue;
                }
                QCOMPARE(marked.size(), map()->rowCount());
                for (std::size_t row = 0; row < marked.size(); ++row)
                    QCOMPARE(bool(marked[row]),
                             std::binary_search(want.begin(), want.end(), map()->rows()[row]));
            }
        m_window->clearSelectionAction()->trigger();
    }

    void liveChangesEndWithTheNewestParameters() {
        for (int kernels : {600, 700, 800, 900})
            panel()->kernelsSpin()->setValue(kernels);
        panel()->seedSpin()->setValue(11);
        const cs::RocketParams p = panel()->params();
        QCOMPARE(p.kernels, 900);
        QTRY_VERIFY_WITH_TIMEOUT(ranWith(p), 60000);
        QCOMPARE(panel()->lastRun()->features->kernels, std::size_t(900));
        QCOMPARE(panel()->lastRun()->testAccuracy, directRun(series(), p).testAccuracy);
        checkMap(0);
        // A later run leaves the style the user chose.
        QVERIFY(view()->setStyle(SeriesView::Style::Lines));
        const auto before = panel()->lastRun();
        QTest::mouseClick(panel()->runButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(settled() && panel()->lastRun() != before, 60000);
        QCOMPARE(panel()->lastRun()->features->values, before->features->values);
        QCOMPARE(panel()->lastRun()->testAccuracy, before->testAccuracy);
        QCOMPARE(view()->style(), SeriesView::Style::Lines);
        QVERIFY(view()->setStyle(SeriesView::Style::FeatureMap));
        checkMap(0);
    }

    void exportWritesFeaturesAndPredictions() {
        QVERIFY(settled());
        const auto run = panel()->lastRun();
        const QString npy = m_tmp.filePath(QStringLiteral("gun_rocket.npy"));
        QCOMPARE(m_window->exportTo(npy), QString());
        const cs::io::NpyArray back = cs::io::readNpy(npy.toStdString());
        QCOMPARE(back.shape, std::vector<std::size_t>({200, 1800}));
        QVERIFY(std::ranges::equal(back.values, run->features->values));
        const QString csv = m_tmp.filePath(QStringLiteral("gun_rocket.csv"));
        QCOMPARE(m_window->exportTo(csv), QString());
        QFile f(csv);
        QVERIFY(f.open(QIODevice::ReadOnly | QIODevice::Text));
        const QStringList lines = QString::fromUtf8(f.readAll()).split('\n', Qt::SkipEmptyParts);
        QVERIFY2(lines.at(0).startsWith(QLatin1String("# rocket kernels=900 seed=11 ")),
                 qPrintable(lines.at(0)));
        QCOMPARE(lines.at(1), QStringLiteral("index,split,label,predicted"));
        QCOMPARE(lines.size(), 202);
        std::size_t correct = 0, tests = 0;
        for (int i = 0; i < 200; ++i) {
            const QStringList cols = lines.at(i + 2).split(',');
            QCOMPARE(cols.size(), 4);
            QCOMPARE(cols.at(0).toInt(), i);
            QCOMPARE(cols.at(1), series().isTest[std::size_t(i)] ? QStringLiteral("test")
                                                                 : QStringLiteral("train"));
            QCOMPARE(cols.at(3),
                     QString::fromStdString(
                         series().classNames[std::size_t(run->predictions[std::size_t(i)])]));
            if (cols.at(1) == QLatin1String("test")) {
                ++tests;
                correct += cols.at(2) == cols.at(3);
            }
        }
        QCOMPARE(tests, std::size_t(150));
        QCOMPARE(double(correct) / 150.0, run->testAccuracy);
        // Any other .npy is still the data.
        QCOMPARE(m_window->exportTo(m_tmp.filePath(QStringLiteral("data.npy"))), QString());
        QCOMPARE(cs::io::readNpy(m_tmp.filePath(QStringLiteral("data.npy")).toStdString()).shape,
                 std::vector<std::size_t>({200, 150}));
    }

    void badParametersAndFailuresKeepThePreviousResult() {
        // Out of range on the command line or through the registry: refused with the reason.
        QString error;
        QVERIFY(
            !m_window->algorithms().parseAssignment(QStringLiteral("rocket.kernels=0"), &error));
        QVERIFY2(error.contains(QLatin1String("kernels")), qPrintable(error));
        QVERIFY(!m_window->algorithms().parseAssignment(QStringLiteral("rocket.kernels=100001"),
                                                        &error));
        QVERIFY(!m_window->algorithms().parseAssignment(QStringLiteral("rocket.seed=-1"), &error));
        // The spin box clamps what the GUI can ask for.
        panel()->setKernels(-5);
        QCOMPARE(panel()->params().kernels, 1);
        panel()->setKernels(900);
        QTRY_VERIFY_WITH_TIMEOUT(settled(), 60000);

        // A panel of its own whose backend fails: the error is shown, the result kept.
        auto flaky = std::make_shared<FlakyBackend>();
        cs::ui::JobRunner runner([flaky] { return flaky; }, [flaky] { return flaky; });
        SeriesView seriesView;
        RocketPanel own(runner, seriesView);
        own.kernelsSpin()->setValue(200);
        auto set = view()->seriesSet();
        seriesView.setSeriesSet(set);
        own.setSeriesSet(set);
        own.run();
        QTRY_VERIFY_WITH_TIMEOUT(!own.isBusy() && own.lastRun(), 60000);
        const auto kept = own.lastRun();
        QVERIFY(seriesView.hasFeatureMatrix());
        QVERIFY(seriesView.featureMatrixView()->matrix().owner == kept->features);
        flaky->fail = true;
        own.seedSpin()->setValue(99);
        QTRY_VERIFY_WITH_TIMEOUT(!own.isBusy() && !own.warningLabel()->text().isEmpty(), 60000);
        QVERIFY2(own.warningLabel()->text().contains(QLatin1String("fails on purpose")),
                 qPrintable(own.warningLabel()->text()));
        QCOMPARE(own.lastRun(), kept);
        QVERIFY(seriesView.featureMatrixView()->matrix().owner == kept->features);
        flaky->fail = false;
        own.run();
        QTRY_VERIFY_WITH_TIMEOUT(!own.isBusy() && own.lastRun() != kept, 60000);
        QCOMPARE(own.lastRun()->params.seed, std::uint64_t(99));
        QVERIFY(own.warningLabel()->text().isEmpty());

        // Series of one sample: reported before anything runs.
        auto tiny = std::make_shared<cs::SeriesSet>();
        tiny->n = 3;
        tiny->channels = 1;
        tiny->length = 1;
        tiny->values = {1, 2, 3};
        tiny->lengths = {1, 1, 1};
        seriesView.setSeriesSet(tiny);
        own.setSeriesSet(tiny);
        QVERIFY(!own.lastRun());
        QVERIFY(!seriesView.hasFeatureMatrix());
        QSignalSpy status(&own, &RocketPanel::statusMessage);
        own.run();
        QVERIFY(!own.isBusy());
        QVERIFY(!own.lastRun());
        QVERIFY2(own.warningLabel()->text().contains(QLatin1String("at least 2 samples")),
                 qPrintable(own.warningLabel()->text()));
        QCOMPARE(status.count(), 1);
        QVERIFY(logged(QStringLiteral("ROCKET: ROCKET needs series of at least 2 samples")));
    }

    void unlabelledSetGetsFeaturesWithoutAClassifier() {
        QVERIFY(settled());
        // Other data clears the result, the features and the feature map.
        const QString path = m_tmp.filePath(QStringLiteral("unlabelled.ts"));
        {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Text));
            QByteArray text =
                "@problemName unlabelled\n@univariate true\n@equalLength true\n"
                "@seriesLength 24\n@classLabel false\n@data\n";
            for (int i = 0; i < 12; ++i) {
                QStringList values;
                for (int t = 0; t < 24; ++t)
                    values << QString::number(std::sin(0.3 * t * (1 + i % 3)) + 0.01 * i);
                text += values.join(',').toUtf8() + '\n';
            }
            f.write(text);
        }
        m_window->openFile(path);
        QTRY_VERIFY_WITH_TIMEOUT(view()->seriesSet() && view()->seriesSet()->n == 12, 30000);
        QVERIFY(series().labels.empty() || series().classCount() == 0);
        QVERIFY(!panel()->lastRun());
        QVERIFY(!view()->hasFeatureMatrix());
        QCOMPARE(view()->style(), SeriesView::Style::Lines);
        QVERIFY(!panel()->confusionTable()->isVisibleTo(panel()));
        QCOMPARE(m_window->exportTo(m_tmp.filePath(QStringLiteral("u_rocket.npy"))),
                 QStringLiteral("no ROCKET features to export yet"));

        const cs::ui::Algorithm* rocket = m_window->algorithms().find(QStringLiteral("rocket"));
        QVERIFY(rocket);
        rocket->setParameter(QStringLiteral("kernels"), std::int64_t(300));
        rocket->run();
        QTRY_VERIFY_WITH_TIMEOUT(!rocket->isBusy() && panel()->lastRun(), 60000);
        const auto run = panel()->lastRun();
        QCOMPARE(run->features->n, std::size_t(12));
        QCOMPARE(run->features->kernels, std::size_t(300));
        QVERIFY(!run->model);
        QVERIFY(run->predictions.empty());
        QVERIFY2(panel()->classifierLabel()->text().contains(QLatin1String("no class labels")),
                 qPrintable(panel()->classifierLabel()->text()));
        QVERIFY(!panel()->confusionTable()->isVisibleTo(panel()));
        QVERIFY(panel()->warningLabel()->text().isEmpty());
        QCOMPARE(view()->style(), SeriesView::Style::FeatureMap);
        checkMap(0);
        // The rows have no class: no class in the read-out.
        QVERIFY(!map()->describe(map()->cellCentre(0, 0)).contains(QLatin1String("class")));
        QCOMPARE(m_window->exportTo(m_tmp.filePath(QStringLiteral("u_rocket.npy"))), QString());
        QVERIFY(m_window->exportTo(m_tmp.filePath(QStringLiteral("u_rocket.csv")))
                    .contains(QLatin1String("no class labels")));
    }

    void registryRunsRocket() {
        loadGunPoint();
        QVERIFY(!panel()->lastRun());
        const cs::ui::Algorithm* rocket = m_window->algorithms().find(QStringLiteral("rocket"));
        QVERIFY(rocket);
        QStringList names;
        for (const auto& p : rocket->descriptor->parameters)
            if (p.inPanel) names << QString::fromStdString(p.name);
        QCOMPARE(names, QStringList({"kernels", "seed", "variant", "normalise", "featureOrder"}));
        QString error;
        const auto a =
            m_window->algorithms().parseAssignment(QStringLiteral("rocket.kernels=400"), &error);
        QVERIFY2(a, qPrintable(error));
        rocket->setParameter(a->parameter, a->value);
        rocket->setParameter(QStringLiteral("seed"), std::int64_t(2));
        rocket->run();
        QTRY_VERIFY_WITH_TIMEOUT(!rocket->isBusy() && panel()->lastRun(), 60000);
        QCOMPARE(panel()->lastRun()->params.kernels, 400);
        QCOMPARE(panel()->lastRun()->params.seed, std::uint64_t(2));
        QCOMPARE(panel()->lastRun()->testAccuracy,
                 directRun(series(), panel()->params()).testAccuracy);
        checkMap(0);
        if (const QString dir = qEnvironmentVariable("CS_TEST_OUTPUT"); !dir.isEmpty())
            QVERIFY(m_window->grabWindow().save(dir + QStringLiteral("/rocket_panel.png")));
    }

    void executableRunsRocket() {
        auto env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("XDG_CONFIG_HOME"), m_tmp.filePath(QStringLiteral("config")));
        env.insert(QStringLiteral("XDG_DATA_HOME"), m_tmp.filePath(QStringLiteral("data")));
        const QString png = m_tmp.filePath(QStringLiteral("rocket.png"));
        const QString csv = m_tmp.filePath(QStringLiteral("cli_rocket.csv"));
        QProcess p;
        p.setProcessEnvironment(env);
        p.start(QStringLiteral(CS_CLUSTERSCOPE_EXE),
                {gunPoint(), "--param", "rocket.kernels=300", "--param", "rocket.seed=4", "--run",
                 "rocket", "--export", csv, "--screenshot", png, "--window-size", "1200x800",
                 "--quit"});
        QVERIFY(p.waitForFinished(300000));
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
        QVERIFY(!QImage(png).isNull());
        QFile f(csv);
        QVERIFY(f.open(QIODevice::ReadOnly | QIODevice::Text));
        const QStringList lines = QString::fromUtf8(f.readAll()).split('\n', Qt::SkipEmptyParts);
        QVERIFY2(lines.at(0).startsWith(QLatin1String("# rocket kernels=300 seed=4 ")),
                 qPrintable(lines.at(0)));
        QCOMPARE(lines.size(), 200 + 2);

        QProcess bad;
        bad.setProcessEnvironment(env);
        bad.start(QStringLiteral(CS_CLUSTERSCOPE_EXE),
                  {gunPoint(), "--param", "rocket.kernels=0", "--run", "rocket", "--quit"});
        QVERIFY(bad.waitForFinished(60000));
        QVERIFY(bad.exitCode() != 0);
        QVERIFY(QString::fromLocal8Bit(bad.readAllStandardError()).contains("rocket.kernels"));
    }

    // MiniRocket and MultiRocket through the same panel: the automation's variant key, the
    // features of a direct fit and transform, the classifier, the feature map's layers, the
    // export; then back to ROCKET.
    void variantsRunThroughThePanel() {
        // GunPoint is on screen (reopening it here would reset the panel under the run).
        QVERIFY(view()->seriesSet() && view()->seriesSet()->n == 200);
        const cs::ui::Algorithm* rocket = m_window->algorithms().find(QStringLiteral("rocket"));
        QVERIFY(rocket);
        struct Case {
            const char* name;
            cs::RocketVariant variant;
            std::size_t layers;
            const char* lastLayer;
        };
        for (const Case c :
             {Case{"minirocket", cs::RocketVariant::MiniRocket, 1, "PPV"},
              Case{"multirocket", cs::RocketVariant::MultiRocket, 8, "LSPV (difference)"}}) {
            QString error;
            const auto a = m_window->algorithms().parseAssignment(
                QStringLiteral("rocket.variant=%1").arg(QLatin1String(c.name)), &error);
            QVERIFY2(a, qPrintable(error));
            rocket->setParameter(a->parameter, a->value);
            panel()->kernelsSpin()->setValue(252);
            QCOMPARE(panel()->variantBox()->currentData().toString(), QLatin1String(c.name));
            const cs::RocketParams p = panel()->params();
            QCOMPARE(p.variant, c.variant);
            rocket->run();
            QTRY_VERIFY2_WITH_TIMEOUT(
                ranWith(p),
                qPrintable(
                    QStringLiteral("busy %1, run %2 (variant %3, kernels %4): %5 %6")
                        .arg(panel()->isBusy())
                        .arg(bool(panel()->lastRun()))
                        .arg(panel()->lastRun() ? int(panel()->lastRun()->params.variant) : -1)
                        .arg(panel()->lastRun() ? panel()->lastRun()->params.kernels : -1)
                        .arg(panel()->warningLabel()->text(), panel()->statisticsLabel()->text())),
                20000);
            const auto run = panel()->lastRun();
            QVERIFY(run->miniModel);
            QVERIFY(!run->kernels);
            QCOMPARE(run->features->kernels, std::size_t(252));
            QCOMPARE(run->features->layers, c.layers);
            cs::CpuBackend cpu;
            cs::JobControl job;
            const auto t = cs::fitRocketTransform(cpu, p, series(), job);
            QCOMPARE(run->features->values, cs::applyRocketTransform(cpu, t, series(), job).values);
            QVERIFY(run->model);
            QVERIFY2(run->testAccuracy > 0.9, qPrintable(QString::number(run->testAccuracy)));
            QCOMPARE(panel()->statisticsLabel()->text(), RocketPanel::statisticsText(*run));
            // The map: one column per feature, the variant's layers, the last one shown.
            QTRY_VERIFY_WITH_TIMEOUT(map()->isContentDrawn(), 10000);
            QCOMPARE(map()->matrix().layers, c.layers);
            QCOMPARE(map()->matrix().layerNames.back(), std::string(c.lastLayer));
            map()->setLayer(c.layers - 1);
            QTRY_VERIFY_WITH_TIMEOUT(map()->isContentDrawn(), 10000);
            QCOMPARE(map()->layer(), c.layers - 1);
            QVERIFY(map()->describe(map()->cellCentre(3, 5)).contains(QLatin1String("dilation")));
            const QString npy = m_tmp.filePath(QStringLiteral("%1_rocket.npy").arg(c.name));
            QCOMPARE(m_window->exportTo(npy), QString());
            QVERIFY(QFile::exists(npy));
            const QString csv = m_tmp.filePath(QStringLiteral("%1_rocket.csv").arg(c.name));
            QCOMPARE(m_window->exportTo(csv), QString());
            QFile f(csv);
            QVERIFY(f.open(QIODevice::ReadOnly));
            QVERIFY(f.readLine().contains(QStringLiteral("variant=%1").arg(c.name).toUtf8()));
        }
        QVERIFY(!panel()->normaliseBox()->isEnabled());  // MultiRocket reads the raw series
        panel()->setVariant(cs::RocketVariant::Rocket);
        QCOMPARE(panel()->params().variant, cs::RocketVariant::Rocket);
        QVERIFY(panel()->normaliseBox()->isEnabled());
    }

    // The Normalise box reaches the transform: unticked (by the mouse), the features are those
    // of the raw series, and they differ from the normalised ones.
    void normaliseBoxReachesTheTransform() {
        QVERIFY(view()->seriesSet() && view()->seriesSet()->n == 200);
        panel()->setVariant(cs::RocketVariant::Rocket);
        panel()->kernelsSpin()->setValue(300);
        QVERIFY(panel()->normaliseBox()->isChecked());
        QTest::mouseClick(panel()->normaliseBox(), Qt::LeftButton, {},
                          QPoint(8, panel()->normaliseBox()->height() / 2));
        QVERIFY(!panel()->normaliseBox()->isChecked());
        const cs::RocketParams p = panel()->params();
        QVERIFY(!p.normalise);
        QTest::mouseClick(panel()->runButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(ranWith(p), 20000);
        const auto run = panel()->lastRun();
        QVERIFY(run->kernels && !run->kernels->normalise);
        cs::CpuBackend cpu;
        cs::JobControl job;
        auto normalised = p;
        normalised.normalise = true;
        const auto raw = cs::applyRocketTransform(
            cpu, cs::fitRocketTransform(cpu, p, series(), job), series(), job);
        const auto z = cs::applyRocketTransform(
            cpu, cs::fitRocketTransform(cpu, normalised, series(), job), series(), job);
        QCOMPARE(run->features->values, raw.values);
        QVERIFY(raw.values != z.values);
        panel()->normaliseBox()->setChecked(true);
    }

    void cleanupTestCase() { m_window.reset(); }
};

CS_GL_TEST_MAIN(TestRocketPanel)
#include "tst_rocket_panel.moc"
