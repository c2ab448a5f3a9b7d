// SPDX-License-Identifier: MIT
// The series views as a user reads and selects in them: the feature map ordered by how well a
// column separates the classes (F statistic or classifier weight, checked against a direct
// computation), its class labels and per-class means; row selection with the mouse in the heat
// map and the feature map (click, Shift+click, Ctrl+click) into the shared SelectionModel; the
// selection drawn bold on the lines chart and in the k-Shape cluster charts; the cluster charts
// drawing only the valid part of each shifted member, the centroid dark and thick.
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QLineSeries>
#include <QtTest>
#include <cmath>
#include <map>
#include <numeric>

#include "compute/core/error.h"
#include "compute/core/series_quantities.h"
#include "compute/core/series_set.h"
#include "compute/kshape/kshape.h"
#include "compute/kshape/kshape_quantities.h"
#include "compute/rocket/rocket_quantities.h"
#include "tests/ui/gui_test_main.h"
#include "ui/shell/selection_model.h"
#include "ui/views/series/feature_matrix_view.h"
#include "ui/views/series/series_heatmap_view.h"
#include "ui/views/series/series_view.h"

using cs::FeatureOrder;
using cs::ui::SelectionModel;
using cs::ui::SeriesView;

namespace {

// 30 series of 3 classes (10 each), length 24, with one of three shapes per class.
std::shared_ptr<const cs::SeriesSet> threeClasses() {
    auto s = std::make_shared<cs::SeriesSet>();
    s->n = 30;
    s->channels = 1;
    s->length = 24;
    s->values.resize(s->n * s->length);
    for (std::size_t i = 0; i < s->n; ++i) {
        const int c = int(i % 3);
        s->labels.push_back(c);
        for (std::size_t t = 0; t < s->length; ++t)
            s->values[i * s->length + t] =
                float(std::sin(0.3 * double(t) * (c + 1)) + 0.05 * double((i * 7 + t) % 5));
    }
    s->classNames = {"alpha", "beta", "gamma"};
    return s;
}

// A feature matrix of 5 columns x 2 layers: column 3 separates the classes well, column 1 a
// little, the others are noise; weights that rank column 4 first.
struct Features {
    std::vector<float> values;
    cs::FeatureMatrix matrix;
};
std::shared_ptr<Features> features(const cs::SeriesSet& s) {
    auto f = std::make_shared<Features>();
    const std::size_t columns = 5, layers = 2;
    f->values.resize(s.n * columns * layers);
    for (std::size_t i = 0; i < s.n; ++i)
        for (std::size_t c = 0; c < columns; ++c)
            for (std::size_t l = 0; l < layers; ++l) {
                const double noise = double((i * 13 + c * 7 + l * 3) % 11) / 11.0;
                const double cls = double(s.labels[i]);
                const double v = c == 3   ? 4.0 * cls + 0.3 * noise
                                 : c == 1 ? 0.5 * cls + noise
                                          : noise;
                f->values[(i * columns + c) * layers + l] = float(v);
            }
    cs::FeatureMatrix& m = f->matrix;
    m.rows = s.n;
    m.columns = columns;
    m.layers = layers;
    m.values = f->values;
    m.name = "test features";
    m.columnName = "kernel";
    m.layerNames = {"PPV", "MAX"};
    m.weights = {0.1, 0.2, 0.3, 0.1, 0.5, 0.4, 0.2, 0.3, 0.9, 0.05};
    m.weightName = "ridge weight";
    m.owner = f;
    return f;
}

// The F statistic written out as the textbook has it, in another way than the code: group
// means and sums of squares from lists.
std::vector<double> directF(const cs::FeatureMatrix& m, const std::vector<std::int32_t>& labels,
                            std::size_t layer) {
    std::vector<double> out;
    for (std::size_t c = 0; c < m.columns; ++c) {
        std::map<int, std::vector<double>> groups;
        std::vector<double> all;
        for (std::size_t r = 0; r < m.rows; ++r) {
            groups[labels[r]].push_back(double(m.value(r, c, layer)));
            all.push_back(double(m.value(r, c, layer)));
        }
        const auto mean = [](const std::vector<double>& v) {
            return std::accumulate(v.begin(), v.end(), 0.0) / double(v.size());
        };
        const double grand = mean(all);
        double ssb = 0.0, ssw = 0.0;
        for (const auto& [g, v] : groups) {
            const double gm = mean(v);
            ssb += double(v.size()) * (gm - grand) * (gm - grand);
            for (double x : v)
                ssw += (x - gm) * (x - gm);
        }
        const double k = double(groups.size()), n = double(all.size());
        out.push_back((ssb / (k - 1.0)) / (ssw / (n - k)));
    }
    return out;
}

std::vector<std::uint32_t> argsortDescending(const std::vector<double>& v) {
    std::vector<std::uint32_t> order(v.size());
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return v[a] > v[b]; });
    return order;
}

}  // namespace

class TestSeriesSelection : public QObject {
    Q_OBJECT

    // A left click with the mouse on the point `at` of a chart's line.
    static void clickOnLine(QChartView* view, QChart* chart, QLineSeries* line, QPointF at) {
        const QPointF scene = chart->mapToScene(chart->mapToPosition(at, line));
        QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, view->mapFromScene(scene));
    }

    std::unique_ptr<SeriesView> m_view;
    std::unique_ptr<SelectionModel> m_selection;

    void makeView(std::shared_ptr<const cs::SeriesSet> series) {
        m_view = std::make_unique<SeriesView>();
        m_selection = std::make_unique<SelectionModel>();
        m_selection->setSeriesCount(series->n);
        // As MainWindow wires them.
        connect(m_view.get(), &SeriesView::seriesSelectionRequested, m_selection.get(),
                [this](const std::vector<std::uint32_t>& indices, SeriesView::SelectAction a) {
                    m_selection->selectSeries(indices, a == SeriesView::SelectAction::Add
                                                           ? SelectionModel::Mode::Add
                                                       : a == SeriesView::SelectAction::Remove
                                                           ? SelectionModel::Mode::Remove
                                                           : SelectionModel::Mode::Replace);
                });
        connect(m_selection.get(), &SelectionModel::changed, m_view.get(),
                [this] { m_view->setSelectedSeries(m_selection->series()); });
        m_view->resize(1000, 700);
        m_view->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_view.get()));
        m_view->setSeriesSet(series);
    }

private slots:
    void fStatisticsMatchADirectComputation() {
        const auto s = threeClasses();
        const auto f = features(*s);
        for (std::size_t layer : {std::size_t(0), std::size_t(1)}) {
            const auto got = cs::featureFStatistics(f->matrix, s->labels, layer);
            const auto want = directF(f->matrix, s->labels, layer);
            QCOMPARE(got.size(), want.size());
            for (std::size_t c = 0; c < want.size(); ++c)
                QVERIFY2(std::abs(got[c] - want[c]) <= 1e-9 * std::max(1.0, want[c]),
                         qPrintable(QStringLiteral("column %1: %2, direct %3")
                                        .arg(c)
                                        .arg(got[c])
                                        .arg(want[c])));
            QCOMPARE(cs::columnOrderByScore(got, 5), argsortDescending(want));
        }
        // Column 3 separates best, then column 1.
        const auto order =
            cs::columnOrderByScore(cs::featureFStatistics(f->matrix, s->labels, 0), 5);
        QCOMPARE(order[0], 3u);
        QCOMPARE(order[1], 1u);
        // One class, or every row unlabelled: nothing to separate.
        std::vector<std::int32_t> one(s->n, 0);
        for (double v : cs::featureFStatistics(f->matrix, one, 0))
            QCOMPARE(v, 0.0);
        std::vector<std::int32_t> none(s->n, -1);
        for (double v : cs::featureFStatistics(f->matrix, none, 0))
            QCOMPARE(v, 0.0);
        QVERIFY_THROWS_EXCEPTION(cs::Error, cs::featureFStatistics(f->matrix, one, 2));
    }

    void ridgeWeightsAndContributions() {
        cs::RidgeModel m;
        m.features = 3;
        m.classes = 2;
        m.mean = {1.0, 0.0, 2.0};
        m.scale = {1.0, 0.5, 2.0};
        m.weights = {3.0, -4.0, 0.0, 1.0, 0.5, 0.5};  // p x classes
        m.intercept = {0.0, 0.0};
        const auto w = cs::ridgeWeightMagnitudes(m);
        QCOMPARE(w, (std::vector<double>{5.0, 1.0, std::sqrt(0.5)}));
        // Terms of class 1's score: -4 (3 - 1) 1 = -8, 1 (2 - 0) 0.5 = 1, 0.5 (1 - 2) 2 = -1.
        const std::vector<float> row{3.0f, 2.0f, 1.0f};
        const auto top = cs::topContributions(m, row, 1, 2);
        QCOMPARE(top.size(), std::size_t(2));
        QCOMPARE(top[0].feature, std::size_t(0));
        QCOMPARE(top[0].contribution, -8.0);
        QCOMPARE(top[1].feature, std::size_t(1));  // |1| = |-1|: the lower feature
        QCOMPARE(top[1].contribution, 1.0);
        QVERIFY_THROWS_EXCEPTION(cs::Error, cs::topContributions(m, row, 2, 2));
    }

    void featureMapOrdersLabelsAndMeans() {
        const auto s = threeClasses();
        makeView(s);
        const auto f = features(*s);
        QVERIFY(m_view->setFeatureMatrix(s, f->matrix));
        QVERIFY(m_view->setStyle(SeriesView::Style::FeatureMap));
        cs::ui::FeatureMatrixView* map = m_view->featureMatrixView();
        QTRY_VERIFY_WITH_TIMEOUT(map->isContentDrawn(), 10000);
        QVERIFY2(map->problem().isEmpty(), qPrintable(map->problem()));
        // By default: the F statistic, the most separating column first.
        QCOMPARE(m_view->featureOrder(), FeatureOrder::FStatistic);
        QCOMPARE(map->orderShown(), FeatureOrder::FStatistic);
        const auto fOrder = argsortDescending(directF(f->matrix, s->labels, 0));
        QCOMPARE(map->columnOrder(), fOrder);
        const auto check = [&](const std::vector<std::uint32_t>& columns, std::size_t layer) {
            QTRY_VERIFY_WITH_TIMEOUT(map->isContentDrawn(), 10000);
            const auto want = cs::columnZScores(f->matrix, map->rows(), layer, columns);
            const auto got = map->readMatrixBuffer();
            QCOMPARE(got.size(), want.size());
            for (std::size_t k = 0; k < got.size(); ++k)
                QVERIFY(std::abs(got[k] - want[k]) < 1e-5f);
            // The class means above the map, in the same column order.
            QCOMPARE(map->summaryValues(),
                     cs::classMeanZScores(f->matrix, s->labels, 3, layer, columns));
            QVERIFY(!map->summaryRect().isEmpty());
            QVERIFY(map->summaryRect().bottom() < map->plotRect().top());
        };
        check(fOrder, 0);
        // The best column's class means differ: alpha low, gamma high.
        const auto& means = map->summaryValues();
        QVERIFY(means[0] < means[5] && means[5] < means[10]);
        // The class strips are labelled with the class names, each beside its rows.
        const auto labels = map->classLabels();
        QCOMPARE(labels.size(), std::size_t(3));
        QStringList names;
        for (const auto& l : labels)
            names << l.text;
        QCOMPARE(names, QStringList({"alpha", "beta", "gamma"}));
        for (const auto& l : labels) {
            QVERIFY(l.rect.right() < map->plotRect().left());
            const qint64 row =
                map->rowAt(QPointF(map->plotRect().center().x(), l.rect.center().y()));
            QCOMPARE(s->labels[map->rows()[std::size_t(row)]], l.label);
        }
        // The user picks the classifier's weight in the view's order box (keyboard).
        QComboBox* box = m_view->orderBox();
        QVERIFY(box->isVisible());
        box->setFocus();
        QTest::keyClick(box, Qt::Key_Down);
        QCOMPARE(m_view->featureOrder(), FeatureOrder::Weight);
        std::vector<double> w0;
        for (std::size_t c = 0; c < 5; ++c)
            w0.push_back(f->matrix.weights[c * 2]);
        QCOMPARE(map->columnOrder(), argsortDescending(w0));
        QCOMPARE(map->columnOrder().front(), 4u);  // 0.9 of column 4 in the PPV layer
        check(argsortDescending(w0), 0);
        m_view->setFeatureLayer(1);
        std::vector<double> w1;
        for (std::size_t c = 0; c < 5; ++c)
            w1.push_back(f->matrix.weights[c * 2 + 1]);
        QCOMPARE(map->columnOrder(), argsortDescending(w1));
        check(argsortDescending(w1), 1);
        // Without weights the map falls back to the F statistic and says so.
        cs::FeatureMatrix plain = f->matrix;
        plain.weights.clear();
        QVERIFY(m_view->setFeatureMatrix(s, plain));
        QCOMPARE(map->orderShown(), FeatureOrder::FStatistic);
        QVERIFY(map->fill()->title(5).contains(QLatin1String("F statistic")));
        // As computed.
        m_view->setFeatureOrder(FeatureOrder::Index);
        QCOMPARE(map->columnOrder(), (std::vector<std::uint32_t>{0, 1, 2, 3, 4}));
        QVERIFY(map->summaryRect().isValid());
    }

    void rowClicksSelect_data() {
        QTest::addColumn<bool>("featureMap");
        QTest::newRow("heat map") << false;
        QTest::newRow("feature map") << true;
    }
    void rowClicksSelect() {
        QFETCH(bool, featureMap);
        const auto s = threeClasses();
        makeView(s);
        const auto f = features(*s);
        QVERIFY(m_view->setFeatureMatrix(s, f->matrix));
        QVERIFY(m_view->setStyle(featureMap ? SeriesView::Style::FeatureMap
                                            : SeriesView::Style::Heatmap));
        cs::ui::MatrixHeatmapView* map =
            featureMap ? static_cast<cs::ui::MatrixHeatmapView*>(m_view->featureMatrixView())
                       : m_view->heatmapView();
        const std::vector<std::uint32_t> rows =
            featureMap ? m_view->featureMatrixView()->rows() : m_view->heatmapView()->rows();
        QTRY_VERIFY_WITH_TIMEOUT(map->isContentDrawn(), 10000);
        QSignalSpy clicked(m_view.get(), &SeriesView::seriesClicked);
        const auto at = [&](std::size_t r) { return map->cellCentre(r, 1).toPoint(); };
        // A click selects the row alone (and reports the series, for the inspector).
        QTest::mouseClick(map, Qt::LeftButton, {}, at(4));
        QCOMPARE(m_selection->series(), (std::vector<std::uint32_t>{rows[4]}));
        QCOMPARE(clicked.count(), 1);
        QCOMPARE(clicked[0][0].toLongLong(), qint64(rows[4]));
        // Shift+click: the rows from the last click to this one, and only those (a series
        // selected elsewhere is let go).
        m_selection->selectSeries(std::vector<std::uint32_t>{rows[25]}, SelectionModel::Mode::Add);
        QTest::mouseClick(map, Qt::LeftButton, Qt::ShiftModifier, at(8));
        std::vector<std::uint32_t> want(rows.begin() + 4, rows.begin() + 9);
        std::sort(want.begin(), want.end());
        QCOMPARE(m_selection->series(), want);
        // Ctrl+click takes a row out, and puts it back.
        QTest::mouseClick(map, Qt::LeftButton, Qt::ControlModifier, at(6));
        std::vector<std::uint32_t> without = want;
        std::erase(without, rows[6]);
        QCOMPARE(m_selection->series(), without);
        const auto& marked = map->markedRows();
        QCOMPARE(marked.size(), rows.size());
        for (std::size_t r = 0; r < rows.size(); ++r)
            QCOMPARE(bool(marked[r]), r >= 4 && r <= 8 && r != 6);
        QTest::mouseClick(map, Qt::LeftButton, Qt::ControlModifier, at(20));
        without.push_back(rows[20]);
        std::sort(without.begin(), without.end());
        QCOMPARE(m_selection->series(), without);
        // The other matrix marks the same series.
        const auto& other = featureMap ? m_view->heatmapView()->markedRows()
                                       : m_view->featureMatrixView()->markedRows();
        const auto& otherRows =
            featureMap ? m_view->heatmapView()->rows() : m_view->featureMatrixView()->rows();
        QCOMPARE(other.size(), otherRows.size());
        for (std::size_t r = 0; r < otherRows.size(); ++r)
            QCOMPARE(bool(other[r]),
                     std::binary_search(without.begin(), without.end(), otherRows[r]));
    }

    void linesDrawTheSelectionBold() {
        const auto s = threeClasses();
        makeView(s);
        QCOMPARE(m_view->style(), SeriesView::Style::Lines);
        QLineSeries* before = m_view->lineOf(5);
        QVERIFY(before);
        QVERIFY(before->pen().widthF() < SeriesView::kSelectedLineWidth);
        QSignalSpy updated(m_view.get(), &SeriesView::chartUpdated);
        m_selection->selectSeries(std::vector<std::uint32_t>{5, 9});
        QCOMPARE(m_view->selectedSeries(), (std::vector<std::uint32_t>{5, 9}));
        QTRY_VERIFY(!updated.isEmpty());
        // The selected lines: opaque, bold, drawn last (on top); the others faint.
        const auto lines = m_view->chart()->series();
        QCOMPARE(lines.size(), qsizetype(30));
        for (qsizetype k = 0; k < lines.size(); ++k) {
            auto* line = qobject_cast<QLineSeries*>(lines[k]);
            const auto i = line->property("seriesIndex").toULongLong();
            const bool selected = i == 5 || i == 9;
            QCOMPARE(k >= lines.size() - 2, selected);
            QCOMPARE(line->pen().widthF() == SeriesView::kSelectedLineWidth, selected);
            QVERIFY(selected ? line->pen().color().alpha() == 255
                             : line->pen().color().alpha() <= 50);
        }
        QVERIFY(m_view->note().contains(QLatin1String("2 selected")));
        // A mouse click on a line (series 9, on top) selects it alone.
        QTest::qWait(100);  // the chart lays out its new lines
        QLineSeries* nine = m_view->lineOf(9);
        clickOnLine(m_view->chartView(), m_view->chart(), nine, nine->at(5));
        QCOMPARE(m_selection->series(), (std::vector<std::uint32_t>{9}));
        updated.clear();
        m_selection->clear();
        QTRY_VERIFY(!updated.isEmpty());
        for (QAbstractSeries* line : m_view->chart()->series())
            QVERIFY(qobject_cast<QLineSeries*>(line)->pen().widthF() < 2.0);
    }

    void clusterChartsDrawTheValidPartAndTheSelection() {
        const auto s = threeClasses();
        makeView(s);
        // A k-Shape result by hand: 2 clusters, shifts from -6 to +6.
        auto r = std::make_shared<cs::KShapeResult>();
        r->k = 2;
        r->length = s->length;
        r->channels = 1;
        for (std::size_t i = 0; i < s->n; ++i) {
            r->labels.push_back(std::int32_t(i % 2));
            r->shifts.push_back(std::int32_t(i % 13) - 6);
            r->distances.push_back(0.1f);
        }
        const std::vector<float> input = cs::kshapeInput(*s, std::size_t(0));
        r->centroids.assign(input.begin(), input.begin() + std::ptrdiff_t(2 * s->length));
        QVERIFY(m_view->setGroups(s, cs::kshapeGroups(*s, r, std::size_t(0))));
        QVERIFY(m_view->setStyle(SeriesView::Style::Clusters));
        const auto& g = m_view->groups();
        QCOMPARE(g.validRange(7), (std::pair<std::size_t, std::size_t>{1, 24}));   // shift +1
        QCOMPARE(g.validRange(2), (std::pair<std::size_t, std::size_t>{0, 20}));   // shift -4
        QCOMPARE(g.validRange(12), (std::pair<std::size_t, std::size_t>{6, 24}));  // shift +6
        const QColor text = m_view->palette().color(QPalette::Text);
        const auto checkCharts = [&](const std::vector<std::uint32_t>& selected) {
            const auto& charts = m_view->clusterCharts();
            QCOMPARE(charts.size(), std::size_t(2));
            for (QChart* chart : charts) {
                const auto all = chart->series();
                auto* centroid = qobject_cast<QLineSeries*>(all.back());
                QCOMPARE(centroid->name(), QStringLiteral("centroid"));
                QCOMPARE(centroid->pen().color(), text);
                int selectedLines = 0;
                for (qsizetype k = 0; k + 1 < all.size(); ++k) {
                    auto* line = qobject_cast<QLineSeries*>(all[k]);
                    QVERIFY(line->pen().widthF() < centroid->pen().widthF());
                    const auto i = std::size_t(line->property("seriesIndex").toULongLong());
                    const auto [first, end] = g.validRange(i);
                    const auto points = line->points();
                    // Only the valid part: no sample of the zero padding, no cliff.
                    QCOMPARE(std::size_t(points.size()), end - first);
                    QCOMPARE(points.front().x(), double(first));
                    QCOMPARE(points.back().x(), double(end - 1));
                    for (const QPointF& p : points)
                        QCOMPARE(float(p.y()), g.member(i)[std::size_t(p.x())]);
                    const bool isSelected =
                        std::binary_search(selected.begin(), selected.end(), std::uint32_t(i));
                    QCOMPARE(line->name() == QLatin1String("selected"), isSelected);
                    if (isSelected) {
                        ++selectedLines;
                        QCOMPARE(line->pen().color(), m_view->palette().color(QPalette::Highlight));
                    }
                }
                (void)selectedLines;
            }
        };
        QTRY_VERIFY_WITH_TIMEOUT(m_view->isContentDrawn(), 10000);
        checkCharts({});
        // Structure of the picture: the centroid's dark pixels run across the plot.
        {
            auto* view = m_view->findChild<QChartView*>(QStringLiteral("clusterChart0"));
            QVERIFY(view);
            const QImage image = view->grab().toImage();
            const QRectF plot = m_view->clusterCharts()[0]->plotArea();
            int columnsWithText = 0;
            for (int x = int(plot.left()) + 2; x < int(plot.right()) - 2; ++x) {
                bool found = false;
                for (int y = int(plot.top()); y < int(plot.bottom()) && !found; ++y) {
                    const QColor c = image.pixelColor(x, y);
                    found = std::abs(c.red() - text.red()) < 40 &&
                            std::abs(c.green() - text.green()) < 40 &&
                            std::abs(c.blue() - text.blue()) < 40;
                }
                columnsWithText += found;
            }
            QVERIFY2(
                columnsWithText > 0.9 * (plot.width() - 4),
                qPrintable(
                    QStringLiteral("%1 of %2 columns").arg(columnsWithText).arg(plot.width())));
        }
        // Selected members (whether in the sample or not) are drawn in the highlight colour.
        QSignalSpy updated(m_view.get(), &SeriesView::chartUpdated);
        m_selection->selectSeries(std::vector<std::uint32_t>{3, 12});
        QTRY_VERIFY(!updated.isEmpty());
        QCOMPARE(m_view->style(), SeriesView::Style::Clusters);
        checkCharts({3, 12});
        int highlighted = 0;
        for (QChart* chart : m_view->clusterCharts())
            for (QAbstractSeries* line : chart->series())
                highlighted += line->name() == QLatin1String("selected");
        QCOMPARE(highlighted, 2);
        // A mouse click on a selected member (drawn over the others) selects it alone: at the
        // sample farthest from the centroid, so that the centroid is not the line hit.
        QTRY_VERIFY_WITH_TIMEOUT(m_view->isContentDrawn(), 10000);
        QTest::qWait(100);
        QChart* chart = m_view->clusterCharts()[0];
        QLineSeries* member = nullptr;
        for (QAbstractSeries* line : chart->series())
            if (line->property("seriesIndex").toULongLong() == 12)
                member = qobject_cast<QLineSeries*>(line);
        QVERIFY(member);
        auto* centroid = qobject_cast<QLineSeries*>(chart->series().back());
        qsizetype far = 0;
        for (qsizetype k = 0; k < member->count(); ++k) {
            const auto gap = [&](qsizetype j) {
                return std::abs(member->at(j).y() - centroid->at(qsizetype(member->at(j).x())).y());
            };
            if (gap(k) > gap(far)) far = k;
        }
        auto* chartView = m_view->findChild<QChartView*>(QStringLiteral("clusterChart0"));
        clickOnLine(chartView, chart, member, member->at(far));
        QCOMPARE(m_selection->series(), (std::vector<std::uint32_t>{12}));
    }
};

CS_GL_TEST_MAIN(TestSeriesSelection)
#include "tst_series_selection.moc"
