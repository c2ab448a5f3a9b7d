// SPDX-License-Identifier: MIT
#include "ui/views/series/series_view.h"

#include <QCategoryAxis>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QEvent>
#include <QFileInfo>
#include <QGridLayout>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLocale>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QStackedWidget>
#include <QStandardItemModel>
#include <QVBoxLayout>
#include <QValueAxis>
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "compute/core/series_matrix.h"
#include "ui/views/colour_maps.h"
#include "ui/views/series/feature_matrix_view.h"
#include "ui/views/series/series_heatmap_view.h"

namespace cs::ui {
namespace {

QString number(std::size_t n) {
    return QLocale().toString(qulonglong(n));
}

QString sourceName(const std::string& source) {
    const QString s = QString::fromStdString(source);
    if (s.startsWith(QLatin1String("demo:"))) return QObject::tr("Demo time series");
    // A TRAIN/TEST pair reads "a_TRAIN.ts + a_TEST.ts": name it by its first half.
    return QFileInfo(s.section(QStringLiteral(" + "), 0, 0)).fileName();
}

// A tick step of 1, 2 or 5 × 10^k giving about `ticks` intervals over span.
double niceStep(double span, int ticks) {
    if (!(span > 0)) return 1.0;
    const double raw = span / ticks;
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    const double f = raw / magnitude;
    return (f < 1.5 ? 1.0 : f < 3.5 ? 2.0 : f < 7.5 ? 5.0 : 10.0) * magnitude;
}

// Min/max per bucket keeps peaks and troughs that plain striding would drop.
// values[t] is drawn at x = first + t.
QList<QPointF> decimated(std::span<const float> values, int maxPoints, std::size_t first = 0) {
    QList<QPointF> out;
    const std::size_t n = values.size();
    const double x0 = double(first);
    if (n <= std::size_t(maxPoints)) {
        out.reserve(qsizetype(n));
        for (std::size_t t = 0; t < n; ++t)
            out.append(QPointF(x0 + double(t), values[t]));
        return out;
    }
    const std::size_t buckets = std::size_t(maxPoints) / 2;
    out.reserve(qsizetype(2 * buckets));
    for (std::size_t b = 0; b < buckets; ++b) {
        const std::size_t begin = b * n / buckets;
        const std::size_t end = std::max(begin + 1, (b + 1) * n / buckets);
        std::size_t lo = begin;
        std::size_t hi = begin;
        for (std::size_t t = begin; t < end; ++t) {
            if (values[t] < values[lo]) lo = t;
            if (values[t] > values[hi]) hi = t;
        }
        const std::size_t first = std::min(lo, hi);
        const std::size_t second = std::max(lo, hi);
        out.append(QPointF(x0 + double(first), values[first]));
        if (second != first) out.append(QPointF(x0 + double(second), values[second]));
    }
    return out;
}

}  // namespace

SeriesView::SeriesView(QWidget* parent) : QWidget(parent) {
    m_chart = new QChart;
    m_chart->setAnimationOptions(QChart::NoAnimation);
    m_chart->legend()->setAlignment(Qt::AlignRight);
    m_chart->legend()->setShowToolTips(true);
    m_chart->setMargins(QMargins(6, 6, 6, 6));
    m_chartView = new QChartView(m_chart, this);
    m_chartView->setRenderHint(QPainter::Antialiasing, true);
    m_chartView->setFrameShape(QFrame::NoFrame);
    m_heatmap = new SeriesHeatmapView(this);
    connect(m_heatmap, &MatrixHeatmapView::rowClicked, this,
            [this](qint64 row, Qt::KeyboardModifiers modifiers) {
                if (row >= 0 && std::size_t(row) < m_heatmap->rows().size())
                    clickSeries(m_heatmap->rows()[std::size_t(row)], modifiers, &m_heatmap->rows());
            });
    m_featureMap = new FeatureMatrixView(this);
    m_featureMap->setOrder(FeatureOrder::FStatistic);
    connect(m_featureMap, &MatrixHeatmapView::rowClicked, this,
            [this](qint64 row, Qt::KeyboardModifiers modifiers) {
                if (row >= 0 && std::size_t(row) < m_featureMap->rows().size())
                    clickSeries(m_featureMap->rows()[std::size_t(row)], modifiers,
                                &m_featureMap->rows());
            });
    m_stack = new QStackedWidget(this);
    m_stack->addWidget(m_chartView);
    m_stack->addWidget(m_heatmap);
    m_stack->addWidget(m_featureMap);
    // The k-Shape clusters: a grid of small charts that scrolls when k is large.
    m_clusterGrid = new QWidget;
    m_clusterGrid->setObjectName(QStringLiteral("clusterGrid"));
    m_clusterLayout = new QGridLayout(m_clusterGrid);
    m_clusterLayout->setContentsMargins(0, 0, 0, 0);
    m_clusterLayout->setSpacing(4);
    m_clusterArea = new QScrollArea(this);
    m_clusterArea->setObjectName(QStringLiteral("clusterArea"));
    m_clusterArea->setWidgetResizable(true);
    m_clusterArea->setFrameShape(QFrame::NoFrame);
    m_clusterArea->setWidget(m_clusterGrid);
    m_stack->addWidget(m_clusterArea);

    m_title = new QLabel(this);
    QFont bold = m_title->font();
    bold.setBold(true);
    m_title->setFont(bold);
    // A long title (a UEA set's name, channels and lengths) wraps rather than widening the
    // window past a small screen.
    m_title->setWordWrap(true);
    m_note = new QLabel(this);
    m_note->setForegroundRole(QPalette::PlaceholderText);
    m_note->setWordWrap(true);
    m_channelLabel = new QLabel(tr("Channel:"), this);
    m_channelBox = new QComboBox(this);
    m_channelBox->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_splitLabel = new QLabel(tr("Show:"), this);
    m_splitBox = new QComboBox(this);
    m_splitBox->addItems({tr("Train and test"), tr("Train only"), tr("Test only")});
    m_styleBox = new QComboBox(this);
    m_styleBox->addItems({tr("Lines"), tr("Heat map"), tr("Feature map"), tr("Clusters")});
    m_styleBox->setToolTip(
        tr("Lines: a sample of the series. Heat map: every series as a row. "
           "Feature map: features of every series, such as ROCKET's (after a run). "
           "Clusters: one chart per cluster with its centroid, such as k-Shape's (after a "
           "run)."));
    m_featureBox = new QComboBox(this);  // the feature matrix's layers
    m_orderBox = new QComboBox(this);
    m_orderBox->setObjectName(QStringLiteral("featureOrder"));
    m_orderBox->addItem(tr("Order: as computed"), int(FeatureOrder::Index));
    m_orderBox->addItem(tr("Order: F statistic"), int(FeatureOrder::FStatistic));
    m_orderBox->addItem(tr("Order: |classifier weight|"), int(FeatureOrder::Weight));
    m_orderBox->setCurrentIndex(1);
    m_orderBox->setToolTip(
        tr("How the feature map orders its columns: as computed, or the ones that separate the "
           "classes best first (the one-way ANOVA F statistic of the classes, or the weight "
           "the ridge classifier gives them)."));
    m_channelLabel->setBuddy(m_channelBox);
    m_splitLabel->setBuddy(m_splitBox);

    auto* bar = new QHBoxLayout;
    bar->addWidget(m_title);
    bar->addStretch(1);
    bar->addWidget(m_channelLabel);
    bar->addWidget(m_channelBox);
    bar->addSpacing(12);
    bar->addWidget(m_splitLabel);
    bar->addWidget(m_splitBox);
    bar->addSpacing(12);
    bar->addWidget(m_orderBox);
    bar->addWidget(m_featureBox);
    bar->addWidget(m_styleBox);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(8, 6, 8, 0);
    layout->setSpacing(4);
    layout->addLayout(bar);
    layout->addWidget(m_note);
    layout->addWidget(m_stack, 1);

    connect(m_channelBox, &QComboBox::currentIndexChanged, this, [this](int i) {
        if (i >= 0) setChannel(i);
    });
    connect(m_splitBox, &QComboBox::currentIndexChanged, this, [this](int i) {
        if (i >= 0) setSplit(Split(i));
    });
    connect(m_styleBox, &QComboBox::currentIndexChanged, this, [this](int i) {
        if (i >= 0) setStyle(Style(i));
    });
    connect(m_featureBox, &QComboBox::currentIndexChanged, this, [this](int i) {
        if (i >= 0) setFeatureLayer(std::size_t(i));
    });
    connect(m_orderBox, &QComboBox::activated, this, [this](int i) {
        const auto order = FeatureOrder(m_orderBox->itemData(i).toInt());
        setFeatureOrder(order);
        emit featureOrderChanged(order);
    });
    updateControls();
    rebuild();
}

SeriesView::~SeriesView() = default;

void SeriesView::setSeriesSet(std::shared_ptr<const SeriesSet> series, const QString& name) {
    m_series = std::move(series);
    m_name = name;
    m_channel = 0;
    m_split = Split::All;
    m_anchor.reset();  // a series of the previous set
    // Features belong to the set they were computed from.
    m_featureMap->setMatrix(nullptr, {});
    // So do the groups.
    m_groups = {};
    clearClusters();
    if (m_style == Style::FeatureMap || m_style == Style::Clusters) setStyle(Style::Lines);
    updateControls();
    rebuild();
}

void SeriesView::setChannel(int channel) {
    const int channels = m_series ? int(m_series->channels) : 0;
    const int c = std::clamp(channel, 0, std::max(channels - 1, 0));
    if (c == m_channel) return;
    m_channel = c;
    updateControls();
    rebuild();
}

void SeriesView::setSplit(Split split) {
    if (split == m_split) return;
    m_split = split;
    updateControls();
    rebuild();
}

bool SeriesView::setStyle(Style style) {
    if (style == Style::FeatureMap && !hasFeatureMatrix()) {
        const QSignalBlocker blocker(m_styleBox);
        m_styleBox->setCurrentIndex(int(m_style));
        return false;
    }
    if (style == Style::Clusters && !hasGroups()) {
        const QSignalBlocker blocker(m_styleBox);
        m_styleBox->setCurrentIndex(int(m_style));
        return false;
    }
    if (style == m_style) return true;
    m_style = style;
    {
        const QSignalBlocker blocker(m_styleBox);
        m_styleBox->setCurrentIndex(int(style));
    }
    m_stack->setCurrentWidget(style == Style::Heatmap      ? static_cast<QWidget*>(m_heatmap)
                              : style == Style::FeatureMap ? static_cast<QWidget*>(m_featureMap)
                              : style == Style::Clusters   ? static_cast<QWidget*>(m_clusterArea)
                                                           : static_cast<QWidget*>(m_chartView));
    updateControls();
    rebuild();
    return true;
}

bool SeriesView::setFeatureMatrix(std::shared_ptr<const SeriesSet> series, FeatureMatrix matrix) {
    const bool clear = !matrix;
    if (!clear && (series != m_series || !m_series || matrix.rows != m_series->n)) return false;
    {
        const QSignalBlocker blocker(m_featureBox);
        m_featureBox->clear();
        for (const std::string& name : matrix.layerNames)
            m_featureBox->addItem(QString::fromStdString(name));
        m_featureBox->setToolTip(QString::fromStdString(matrix.layerHelp));
    }
    m_featureMap->setMatrix(clear ? nullptr : std::move(series), std::move(matrix));
    {
        const QSignalBlocker blocker(m_featureBox);
        m_featureBox->setCurrentIndex(int(m_featureMap->layer()));
    }
    if (clear && m_style == Style::FeatureMap) setStyle(Style::Lines);
    updateControls();
    if (m_style == Style::FeatureMap) rebuild();  // the note names the kernels
    return true;
}

bool SeriesView::setGroups(std::shared_ptr<const SeriesSet> series, SeriesGroups groups) {
    if (groups && (series != m_series || !m_series || groups.groupOf.size() != m_series->n ||
                   (groups.channels == 1 ? groups.channel >= m_series->channels
                                         : groups.channels != m_series->channels) ||
                   groups.members.size() != m_series->n * groups.channels * groups.length ||
                   groups.summaries.size() != groups.groups * groups.channels * groups.length))
        return false;
    m_groups = std::move(groups);
    m_clustersDirty = true;
    if (!m_groups) clearClusters();
    if (!m_groups && m_style == Style::Clusters) setStyle(Style::Lines);
    updateControls();
    if (m_style == Style::Clusters) rebuild();
    return true;
}

int SeriesView::maxMembersPerCluster() const {
    const int k =
        int(std::clamp<std::size_t>(m_groups.groups, 1, std::size_t(kMaxClusterMembersTotal)));
    return std::clamp(kMaxClusterMembersTotal / k, 5, kMaxMembersPerCluster);
}

void SeriesView::clearClusters() {
    while (QLayoutItem* item = m_clusterLayout->takeAt(0)) {
        delete item->widget();  // the chart view owns its chart
        delete item;
    }
    m_clusterCharts.clear();
    m_clustersDirty = true;
    m_clustersPainted = false;
    m_firstClusterViewport = nullptr;
}

void SeriesView::rebuildClusters() {
    clearClusters();
    m_clustersDirty = false;
    if (!m_groups || !m_series) return;
    const SeriesGroups& g = m_groups;
    const SeriesSet& s = *m_series;
    const int k = int(g.groups);
    const std::size_t m = g.length;
    const std::vector<std::vector<std::size_t>> members = g.membersByGroup();
    const QString groupName = QString::fromStdString(g.groupName);
    const bool labelled = !s.labels.empty() && s.classCount() > 0;
    const std::size_t channels = g.channels;
    // Every channel multiplies the lines of a chart: fewer members each.
    const int cap = std::max(3, maxMembersPerCluster() / int(channels));
    const int columns = std::clamp(int(std::ceil(std::sqrt(double(k)))), 1, 8);
    const QPalette pal = palette();
    for (int c = 0; c < k; ++c) {
        const auto& group = members[std::size_t(c)];
        auto* chart = new QChart;
        chart->setAnimationOptions(QChart::NoAnimation);
        chart->legend()->hide();
        chart->setMargins(QMargins(2, 2, 2, 2));
        QFont titleFont = chart->titleFont();
        titleFont.setPointSizeF(std::max(7.0, titleFont.pointSizeF() * 0.9));
        chart->setTitleFont(titleFont);
        const QColor colour = ColourMaps::categorical(c);
        // Evenly spaced members, each as the groups align it to the summary; the selected
        // members besides, drawn last (over the others).
        const std::size_t drawn = std::min(group.size(), std::size_t(cap));
        std::vector<std::size_t> shown;
        std::vector<std::size_t> picked;
        for (const std::size_t i : group)
            if (std::binary_search(m_selected.begin(), m_selected.end(), std::uint32_t(i)) &&
                picked.size() < std::size_t(kMaxSelectedDrawn))
                picked.push_back(i);
        for (std::size_t j = 0; j < drawn; ++j) {
            const std::size_t i = group[(2 * j + 1) * group.size() / (2 * drawn)];
            if (!std::binary_search(picked.begin(), picked.end(), i)) shown.push_back(i);
        }
        const std::size_t firstPicked = shown.size();
        shown.insert(shown.end(), picked.begin(), picked.end());
        float lo = std::numeric_limits<float>::infinity();
        float hi = -lo;
        const auto widen = [&](std::span<const float> values) {
            for (float v : values) {
                lo = std::min(lo, v);
                hi = std::max(hi, v);
            }
        };
        // The valid part of a member: the zeros a shift brought in are not drawn (they would
        // be cliffs down to zero at either end).
        const auto valid = [&](std::size_t i, std::size_t d) {
            const auto [first, end] = g.validRange(i);
            return std::pair{g.member(i, d).subspan(first, end > first ? end - first : 0), first};
        };
        for (std::size_t d = 0; d < channels; ++d) {
            for (const std::size_t i : shown)
                widen(valid(i, d).first);
            widen(g.summary(std::size_t(c), d));
        }
        // Channels clustered together are stacked top to bottom, channel d lowered by d lanes:
        // a lane as tall as all of them spans, so that no two overlap.
        const double lane = channels > 1 && lo < hi ? 1.05 * double(hi - lo) : 0.0;
        QColor faint = colour;
        faint.setAlpha(std::clamp(
            int(255.0 * 2.5 / std::sqrt(double(std::max<std::size_t>(drawn, 1)))), 40, 140));
        for (std::size_t d = 0; d < channels; ++d) {
            const double offset = -double(d) * lane;
            const auto lowered = [offset](QList<QPointF> points) {
                for (QPointF& p : points)
                    p.ry() += offset;
                return points;
            };
            for (std::size_t j = 0; j < shown.size(); ++j) {
                const std::size_t i = shown[j];
                auto* line = new QLineSeries;
                line->setProperty("seriesIndex", qulonglong(i));
                connect(line, &QLineSeries::clicked, this, [this, i] {
                    clickSeries(i, QGuiApplication::keyboardModifiers(), nullptr);
                });
                const auto [values, first] = valid(i, d);
                line->replace(lowered(decimated(values, kMaxPointsPerClusterSeries, first)));
                if (j >= firstPicked) {
                    line->setName(QStringLiteral("selected"));
                    line->setPen(QPen(pal.color(QPalette::Highlight), kSelectedLineWidth - 0.6));
                } else {
                    line->setPen(QPen(faint, 1.0));
                }
                chart->addSeries(line);
            }
            // The centroid in the text colour (black on a light theme), thick, over its
            // members in the cluster's colour: it stands out whatever the cluster's hue.
            auto* centroid = new QLineSeries;
            centroid->setName(QString::fromStdString(g.summaryName));
            centroid->replace(
                lowered(decimated(g.summary(std::size_t(c), d), kMaxPointsPerSeries)));
            centroid->setPen(QPen(pal.color(QPalette::Text), channels > 1 ? 2.2 : 3.0));
            chart->addSeries(centroid);
        }
        if (lane > 0.0) lo -= float(double(channels - 1) * lane);

        QString title =
            group.empty() ? tr("%1 %2 · empty").arg(groupName).arg(c)
                          : tr("%1 %2 · %3 series").arg(groupName).arg(c).arg(number(group.size()));
        if (labelled && !group.empty()) {
            std::map<int, std::size_t> classes;
            for (const std::size_t i : group)
                if (s.labels[i] >= 0) ++classes[s.labels[i]];
            const auto best =
                std::max_element(classes.begin(), classes.end(),
                                 [](const auto& a, const auto& b) { return a.second < b.second; });
            if (best != classes.end()) {
                const QString name = std::size_t(best->first) < s.classNames.size()
                                         ? QString::fromStdString(s.classNames[best->first])
                                         : QString::number(best->first);
                title += tr(" · class %1: %2 %")
                             .arg(name)
                             .arg(std::lround(100.0 * double(best->second) / double(group.size())));
            }
        }
        chart->setTitle(title);

        auto* x = new QValueAxis;
        x->setRange(0, std::max<double>(1.0, double(m) - 1.0));
        x->setLabelFormat(QStringLiteral("%d"));
        x->setTickType(QValueAxis::TicksDynamic);
        x->setTickAnchor(0);
        x->setTickInterval(std::max(1.0, niceStep(x->max(), 3)));
        QAbstractAxis* y = nullptr;
        const double margin = lo < hi ? 0.05 * double(hi - lo) : 1.0;
        if (lane > 0.0) {
            // Stacked channels: each named at its lane's zero, where its grid line runs; numbers
            // would mix the lanes' offsets in. Categories go bottom up.
            auto* lanes = new QCategoryAxis;
            lanes->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
            lanes->setRange(double(lo) - margin, double(hi) + margin);
            for (std::size_t d = channels; d-- > 0;)
                lanes->append(d < s.channelNames.size() ? QString::fromStdString(s.channelNames[d])
                                                        : QString::number(d),
                              -double(d) * lane);
            y = lanes;
        } else {
            auto* values = new QValueAxis;
            if (lo <= hi) values->setRange(double(lo) - margin, double(hi) + margin);
            // Ticks at round values from 0, as the lines' chart.
            values->setLabelFormat(QStringLiteral("%g"));
            values->setTickType(QValueAxis::TicksDynamic);
            values->setTickAnchor(0);
            values->setTickInterval(niceStep(values->max() - values->min(), 3));
            y = values;
        }
        chart->addAxis(x, Qt::AlignBottom);
        chart->addAxis(y, Qt::AlignLeft);
        for (auto* series : chart->series()) {
            series->attachAxis(x);
            series->attachAxis(y);
        }
        applyChartPalette(chart);
        auto* view = new QChartView(chart);
        view->setObjectName(QStringLiteral("clusterChart%1").arg(c));
        view->setRenderHint(QPainter::Antialiasing, true);
        view->setFrameShape(QFrame::NoFrame);
        view->setMinimumSize(160, 150);
        view->setBackgroundBrush(pal.color(QPalette::Base));
        m_clusterLayout->addWidget(view, c / columns, c % columns);
        m_clusterCharts.push_back(chart);
        // The charts lay themselves out on a later event: until the first one has painted, a
        // grab shows empty frames. isContentDrawn() waits for that paint.
        if (c == 0) {
            m_firstClusterViewport = view->viewport();
            m_firstClusterViewport->installEventFilter(this);
        }
    }
}

bool SeriesView::eventFilter(QObject* watched, QEvent* event) {
    if (watched == m_firstClusterViewport && event->type() == QEvent::Paint)
        m_clustersPainted = true;
    return QWidget::eventFilter(watched, event);
}

bool SeriesView::hasFeatureMatrix() const {
    return bool(m_featureMap->matrix());
}

std::size_t SeriesView::featureLayer() const {
    return m_featureMap->layer();
}

void SeriesView::setFeatureLayer(std::size_t layer) {
    m_featureMap->setLayer(layer);
    const QSignalBlocker blocker(m_featureBox);
    m_featureBox->setCurrentIndex(int(m_featureMap->layer()));
    if (m_style == Style::FeatureMap) rebuild();
}

bool SeriesView::isContentDrawn() const {
    const MatrixHeatmapView* shown = m_style == Style::Heatmap
                                         ? static_cast<MatrixHeatmapView*>(m_heatmap)
                                     : m_style == Style::FeatureMap ? m_featureMap
                                                                    : nullptr;
    if (m_style == Style::Clusters && m_clusterArea->isVisible() && hasGroups())
        return !m_clustersDirty && (m_clusterCharts.empty() || m_clustersPainted);
    if (!shown || !shown->isVisible()) return true;
    return shown->isContentDrawn() || !shown->problem().isEmpty();
}

void SeriesView::setDeviceSeries(std::shared_ptr<const SeriesSet> series,
                                 std::shared_ptr<const DeviceResident> copy) {
    m_heatmap->setDeviceSeries(std::move(series), std::move(copy));
}

void SeriesView::setMaxDrawn(int count) {
    m_maxDrawn = std::max(1, count);
    rebuild();
}

QStringList SeriesView::legendEntries() const {
    QStringList out;
    for (auto* marker : m_chart->legend()->markers())
        if (marker->isVisible()) out << marker->label();
    return out;
}

QString SeriesView::note() const {
    return m_note->text();
}

std::vector<std::size_t> SeriesView::sampleAcrossClasses(std::span<const std::size_t> candidates,
                                                         std::span<const int> classOf, int cap) {
    std::map<int, std::vector<std::size_t>> groups;
    for (std::size_t k = 0; k < candidates.size(); ++k)
        groups[classOf[k]].push_back(candidates[k]);
    if (groups.empty() || cap <= 0) return {};

    // Water-filling: equal shares, small classes hand their unused share to the larger ones.
    std::vector<std::pair<std::size_t, int>> sizes;  // (size, class), smallest first
    for (const auto& [c, members] : groups)
        sizes.push_back({members.size(), c});
    std::sort(sizes.begin(), sizes.end());
    std::map<int, std::size_t> quota;
    std::size_t left = std::size_t(cap);
    std::size_t groupsLeft = sizes.size();
    for (const auto& [size, c] : sizes) {
        // Smallest first with a floor share: the division's remainder and the unused shares of
        // small classes flow on to the larger classes that come later.
        const std::size_t take = std::min(size, left / groupsLeft);
        quota[c] = take;
        left -= take;
        --groupsLeft;
    }

    std::vector<std::vector<std::size_t>> picks;
    for (const auto& [c, members] : groups) {
        const std::size_t q = quota[c];
        std::vector<std::size_t> chosen;
        chosen.reserve(q);
        for (std::size_t k = 0; k < q; ++k)
            chosen.push_back(
                members[std::min(members.size() - 1, (2 * k + 1) * members.size() / (2 * q))]);
        picks.push_back(std::move(chosen));
    }
    std::vector<std::size_t> out;
    for (std::size_t round = 0;; ++round) {
        bool any = false;
        for (const auto& chosen : picks)
            if (round < chosen.size()) {
                out.push_back(chosen[round]);
                any = true;
            }
        if (!any) break;
    }
    return out;
}

void SeriesView::updateControls() {
    const QSignalBlocker b1(m_channelBox);
    const QSignalBlocker b2(m_splitBox);
    const int channels = m_series ? int(m_series->channels) : 0;
    if (m_channelBox->count() != channels) {
        m_channelBox->clear();
        for (int c = 0; c < channels; ++c) {
            const QString name = std::size_t(c) < m_series->channelNames.size()
                                     ? QString::fromStdString(m_series->channelNames[c])
                                     : tr("channel %1").arg(c);
            m_channelBox->addItem(tr("%1 of %2: %3").arg(c + 1).arg(channels).arg(name));
        }
    }
    m_channelBox->setCurrentIndex(m_channel);
    const bool multi = channels > 1;
    // The channel does not apply to the feature map (a kernel reads all channels) nor to the
    // clusters (they show the channel that was clustered).
    const bool channelApplies = m_style != Style::FeatureMap && m_style != Style::Clusters;
    m_channelLabel->setVisible(multi && channelApplies);
    m_channelBox->setVisible(multi && channelApplies);
    // "Feature map" is offered once there are features; the PPV/MAX choice goes with it.
    if (auto* model = qobject_cast<QStandardItemModel*>(m_styleBox->model()))
        if (QStandardItem* item = model->item(int(Style::FeatureMap)))
            item->setEnabled(hasFeatureMatrix());
    if (auto* model = qobject_cast<QStandardItemModel*>(m_styleBox->model()))
        if (QStandardItem* item = model->item(int(Style::Clusters))) item->setEnabled(hasGroups());
    m_featureBox->setVisible(m_style == Style::FeatureMap);
    m_orderBox->setVisible(m_style == Style::FeatureMap);
    const bool hasSplit = m_series && !m_series->isTest.empty();
    m_splitBox->setCurrentIndex(int(m_split));
    // Every series was clustered: the split filter does not apply to the clusters.
    m_splitLabel->setVisible(hasSplit && m_style != Style::Clusters);
    m_splitBox->setVisible(hasSplit && m_style != Style::Clusters);
}

void SeriesView::rebuild() {
    m_chart->removeAllSeries();
    for (auto* axis : m_chart->axes()) {
        m_chart->removeAxis(axis);
        delete axis;
    }
    m_drawn.clear();
    m_shownCount = 0;

    if (!m_series || m_series->n == 0 || m_series->channels == 0) {
        m_title->setText(tr("No time series loaded"));
        m_note->setText(
            tr("Open a .ts, .arff or UCR file with File ▸ Open… (Ctrl+O), drop one "
               "here, or pick File ▸ Demo data ▸ Time series."));
        m_chart->setTitle(QString());
        m_heatmap->setRows(nullptr, {}, 0);
        m_featureMap->setRows({});
        applyPalette();
        emit chartUpdated();
        return;
    }
    const SeriesSet& s = *m_series;
    const bool labelled = !s.labels.empty();
    const bool split = !s.isTest.empty();

    std::vector<std::size_t> candidates;
    std::vector<int> classOf;
    std::map<int, std::size_t> classCounts;
    std::size_t trainShown = 0;
    for (std::size_t i = 0; i < s.n; ++i) {
        const bool test = split && s.isTest[i];
        if ((m_split == Split::Train && test) || (m_split == Split::Test && !test)) continue;
        const int c = labelled ? s.labels[i] : 0;
        candidates.push_back(i);
        classOf.push_back(c);
        ++classCounts[c];
        if (!test) ++trainShown;
    }
    m_shownCount = int(candidates.size());
    m_drawn = sampleAcrossClasses(candidates, classOf, m_maxDrawn);
    // Selected series are drawn whether sampled or not, last so that they lie on top.
    std::size_t selectedDrawn = 0;
    if (!m_selected.empty()) {
        const auto isSelected = [&](std::size_t i) {
            return std::binary_search(m_selected.begin(), m_selected.end(), std::uint32_t(i));
        };
        std::erase_if(m_drawn, isSelected);
        for (const std::size_t i : candidates)
            if (isSelected(i) && selectedDrawn < std::size_t(kMaxSelectedDrawn)) {
                m_drawn.push_back(i);
                ++selectedDrawn;
            }
    }
    const std::size_t firstSelected = m_drawn.size() - selectedDrawn;
    {
        // The heat map shows every series that passes the filter (up to its row limit).
        std::vector<std::uint8_t> keep(s.n, 0);
        for (const std::size_t i : candidates)
            keep[i] = 1;
        auto rows = heatmapRows(s, keep, std::size_t(m_heatmap->maxRows()));
        // The feature map lists the same series in the same order.
        m_featureMap->setRows(rows);
        m_heatmap->setRows(m_series, std::move(rows), std::size_t(m_channel));
        markSelectedRows();
    }

    const std::size_t c = std::size_t(m_channel);
    float lo = std::numeric_limits<float>::infinity();
    float hi = -lo;
    std::uint32_t longest = 0;
    std::map<int, bool> named;
    for (std::size_t k = 0; k < m_drawn.size(); ++k) {
        const std::size_t i = m_drawn[k];
        const bool selected = k >= firstSelected;
        const std::uint32_t len = s.lengths.empty() ? std::uint32_t(s.length) : s.lengths[i];
        const auto values = s.channel(i, c).first(std::min<std::size_t>(len, s.length));
        for (float v : values) {
            lo = std::min(lo, v);
            hi = std::max(hi, v);
        }
        longest = std::max(longest, len);

        const int cls = labelled ? s.labels[i] : 0;
        const bool test = split && s.isTest[i];
        auto* line = new QLineSeries;
        line->setProperty("seriesIndex", qulonglong(i));
        connect(line, &QLineSeries::clicked, this,
                [this, i] { clickSeries(i, QGuiApplication::keyboardModifiers(), nullptr); });
        line->replace(decimated(values, kMaxPointsPerSeries));
        QColor colour = labelled ? ColourMaps::categorical(cls) : ColourMaps::categorical(0);
        // Translucent lines let dense bundles show their density; the more lines, the fainter.
        // With a selection, the others step back and the selected ones stand out, opaque.
        const int alpha = std::clamp(int(255.0 * 6.0 / std::sqrt(double(m_drawn.size()))), 80, 220);
        colour.setAlpha(selected ? 255 : selectedDrawn > 0 ? std::min(alpha, 50) : alpha);
        QPen pen(colour, selected ? kSelectedLineWidth : 1.3);
        if (test) pen.setStyle(Qt::DashLine);
        line->setPen(pen);
        if (!named[cls]) {
            const QString className = !labelled ? tr("series")
                                      : cls < 0 ? tr("unlabelled")
                                      : std::size_t(cls) < s.classNames.size()
                                          ? QString::fromStdString(s.classNames[cls])
                                          : QString::number(cls);
            line->setName(tr("%1 (%2)").arg(className, number(classCounts[cls])));
        }
        m_chart->addSeries(line);
        if (named[cls]) {
            for (auto* marker : m_chart->legend()->markers(line))
                marker->setVisible(false);
        }
        named[cls] = true;
    }

    // The time axis spans the true lengths exactly, ticks at round steps from 0.
    auto* x = new QValueAxis;
    x->setTitleText(tr("time step"));
    const double xMax = std::max<double>(1.0, double(longest) - 1.0);
    x->setRange(0, xMax);
    x->setTickType(QValueAxis::TicksDynamic);
    x->setTickAnchor(0);
    x->setTickInterval(std::max(1.0, niceStep(xMax, 8)));
    x->setLabelFormat(QStringLiteral("%d"));
    auto* y = new QValueAxis;
    const QString channelName = c < s.channelNames.size()
                                    ? QString::fromStdString(s.channelNames[c])
                                : s.channels > 1 ? tr("channel %1").arg(c)
                                                 : tr("value");
    y->setTitleText(channelName);
    if (lo <= hi) {
        const float margin = hi > lo ? 0.05f * (hi - lo) : 1.0f;
        y->setRange(lo - margin, hi + margin);
    }
    m_chart->addAxis(x, Qt::AlignBottom);
    m_chart->addAxis(y, Qt::AlignLeft);
    for (auto* series : m_chart->series()) {
        series->attachAxis(x);
        series->attachAxis(y);
    }
    // A tight value range with ticks at round values: nice-number ranges waste up to half the
    // height on empty space.
    y->setTickType(QValueAxis::TicksDynamic);
    y->setTickAnchor(0);
    y->setTickInterval(niceStep(y->max() - y->min(), 6));
    y->setLabelFormat(QStringLiteral("%g"));

    // Title: what the file holds; note: what of it is on screen.
    QString title = tr("%1 — %2 series × %3 × %4 samples")
                        .arg(m_name.isEmpty() ? sourceName(s.source) : m_name, number(s.n),
                             s.channels == 1 ? tr("1 channel") : tr("%1 channels").arg(s.channels),
                             s.equalLength() ? number(s.length) : tr("≤ %1").arg(number(s.length)));
    if (labelled) title += tr(", %1 classes").arg(s.classCount());
    m_title->setText(title);

    QStringList note;
    const auto finish = [&](bool showNote) {
        m_note->setText(note.join(QStringLiteral(" · ")));
        m_note->setVisible(showNote);
        m_chart->setTitle(QString());
        applyPalette();
        emit chartUpdated();
    };
    // What a matrix style (heat map, feature map) shows of the series that pass the filter.
    const auto matrixRows = [&](const QString& what, std::size_t rows) {
        note << (rows < candidates.size()
                     ? tr("%1 of %2 of %3 series, picked evenly within each class")
                           .arg(what, number(rows), number(candidates.size()))
                     : tr("%1 of all %2 series").arg(what, number(rows)));
    };
    const auto splitCounts = [&] {
        if (split)
            note << tr("%1 train + %2 test")
                        .arg(number(trainShown), number(candidates.size() - trainShown));
    };
    if (m_style == Style::Clusters && hasGroups()) {
        if (m_clustersDirty) rebuildClusters();
        const SeriesGroups& g = m_groups;
        note << tr("%1: %2 %3s of %4 series")
                    .arg(QString::fromStdString(g.method))
                    .arg(g.groups)
                    .arg(QString::fromStdString(g.groupName), number(g.groupOf.size()));
        const auto channelName = [&](std::size_t ch) {
            return ch < s.channelNames.size() ? QString::fromStdString(s.channelNames[ch])
                                              : QString::number(ch);
        };
        if (g.channels > 1) {
            QStringList names;
            for (std::size_t ch = 0; ch < g.channels; ++ch)
                names << channelName(ch);
            note << tr("all %1 channels together, stacked top to bottom: %2")
                        .arg(g.channels)
                        .arg(names.join(QStringLiteral(", ")));
        } else if (s.channels > 1) {
            note << tr("channel %1").arg(channelName(g.channel));
        }
        note << tr("up to %1 members per %2, %3 (bold)")
                    .arg(maxMembersPerCluster())
                    .arg(QString::fromStdString(g.groupName), QString::fromStdString(g.memberNote));
        if (g.length > std::size_t(kMaxPointsPerClusterSeries))
            note << tr("members drawn as min/max envelopes of %1 points")
                        .arg(kMaxPointsPerClusterSeries);
        finish(true);
        return;
    }
    if (m_style == Style::FeatureMap && hasFeatureMatrix()) {
        const FeatureMatrix& f = m_featureMap->matrix();
        matrixRows(tr("feature map"), m_featureMap->rowCount());
        const QString column = QString::fromStdString(f.columnName);
        const std::size_t layer = featureLayer();
        note << tr("%1: %2 %3s, %4, each %3 z-scored over all %5 series")
                    .arg(QString::fromStdString(f.name), number(f.columns), column,
                         layer < f.layerNames.size() ? QString::fromStdString(f.layerNames[layer])
                                                     : QString::number(layer),
                         number(f.rows));
        if (m_featureMap->isColumnCapped())
            note << tr("the first %1 %2s fit a texture")
                        .arg(number(m_featureMap->shownColumns()), column);
        splitCounts();
        finish(true);
        return;
    }
    if (m_style == Style::Heatmap) {
        matrixRows(tr("heat map"), m_heatmap->rowCount());
        splitCounts();
        finish(true);
        return;
    }
    if (split)
        note << tr("%1 train (solid) + %2 test (dashed)")
                    .arg(number(trainShown), number(candidates.size() - trainShown));
    if (int(m_drawn.size()) < m_shownCount)
        note << tr("showing %1 of %2 series, sampled evenly across classes")
                    .arg(number(m_drawn.size()), number(std::size_t(m_shownCount)));
    if (selectedDrawn > 0) note << tr("%1 selected (bold)").arg(number(selectedDrawn));
    if (s.length > std::size_t(kMaxPointsPerSeries))
        note << tr("long series drawn as min/max envelopes of %1 points").arg(kMaxPointsPerSeries);
    if (!s.equalLength()) note << tr("variable lengths, each drawn to its own length");
    finish(!note.isEmpty());
}

void SeriesView::applyChartPalette(QChart* chart) const {
    const QPalette pal = palette();
    chart->setBackgroundBrush(pal.color(QPalette::Base));
    chart->setBackgroundPen(Qt::NoPen);
    chart->setPlotAreaBackgroundVisible(false);
    chart->setTitleBrush(pal.color(QPalette::Text));
    QColor grid = pal.color(QPalette::Text);
    grid.setAlpha(40);
    for (auto* axis : chart->axes()) {
        axis->setLabelsColor(pal.color(QPalette::Text));
        axis->setTitleBrush(pal.color(QPalette::Text));
        axis->setLinePenColor(pal.color(QPalette::Mid));
        axis->setGridLineColor(grid);
        axis->setMinorGridLineVisible(false);
    }
}

void SeriesView::applyPalette() {
    const QPalette pal = palette();
    for (QChart* chart : m_clusterCharts)
        applyChartPalette(chart);
    m_chart->setBackgroundBrush(pal.color(QPalette::Base));
    m_chart->setBackgroundPen(Qt::NoPen);
    m_chart->setPlotAreaBackgroundVisible(false);
    m_chart->setTitleBrush(pal.color(QPalette::Text));
    m_chart->legend()->setLabelColor(pal.color(QPalette::Text));
    m_chart->legend()->setBrush(Qt::NoBrush);
    m_chart->legend()->setPen(Qt::NoPen);
    QColor grid = pal.color(QPalette::Text);
    grid.setAlpha(40);
    for (auto* axis : m_chart->axes()) {
        axis->setLabelsColor(pal.color(QPalette::Text));
        axis->setTitleBrush(pal.color(QPalette::Text));
        axis->setLinePenColor(pal.color(QPalette::Mid));
        axis->setGridLineColor(grid);
        axis->setMinorGridLineVisible(false);
    }
    m_chartView->setBackgroundBrush(pal.color(QPalette::Base));
}

void SeriesView::changeEvent(QEvent* event) {
    if (event->type() == QEvent::PaletteChange) applyPalette();
    QWidget::changeEvent(event);
}

void SeriesView::setSelectedSeries(std::vector<std::uint32_t> selected) {
    if (selected == m_selected) return;
    m_selected = std::move(selected);
    m_clustersDirty = true;
    markSelectedRows();
    // The heat maps mark rows over their texture; the charts draw the selection in their lines,
    // rebuilt once control returns to the event loop: the click that changed the selection
    // may come from one of the lines a rebuild deletes.
    if ((m_style == Style::Lines || m_style == Style::Clusters) && !m_rebuildQueued) {
        m_rebuildQueued = true;
        QMetaObject::invokeMethod(
            this,
            [this] {
                m_rebuildQueued = false;
                if (m_style == Style::Lines || m_style == Style::Clusters) rebuild();
            },
            Qt::QueuedConnection);
    }
}

void SeriesView::markSelectedRows() {
    const auto marks = [&](const std::vector<std::uint32_t>& rows) {
        std::vector<std::uint8_t> marked;
        if (!m_selected.empty()) {
            marked.resize(rows.size());
            for (std::size_t r = 0; r < marked.size(); ++r)
                marked[r] = std::binary_search(m_selected.begin(), m_selected.end(), rows[r]);
        }
        return marked;
    };
    m_heatmap->setMarkedRows(marks(m_heatmap->rows()));
    m_featureMap->setMarkedRows(marks(m_featureMap->rows()));
}

void SeriesView::requestSelection(std::vector<std::uint32_t> indices, SelectAction action) {
    emit seriesSelectionRequested(indices, action);
}

void SeriesView::clickSeries(std::size_t index, Qt::KeyboardModifiers modifiers,
                             const std::vector<std::uint32_t>* rows) {
    const auto i = std::uint32_t(index);
    if (modifiers & Qt::ControlModifier) {
        const bool selected = std::binary_search(m_selected.begin(), m_selected.end(), i);
        m_anchor = i;
        emit seriesSelectionRequested({i}, selected ? SelectAction::Remove : SelectAction::Add);
    } else if (modifiers & Qt::ShiftModifier) {
        const auto at = [&](std::uint32_t series) {
            return std::find(rows->begin(), rows->end(), series);
        };
        if (rows && m_anchor && at(*m_anchor) != rows->end() && at(i) != rows->end()) {
            auto from = at(*m_anchor), to = at(i);
            if (to < from) std::swap(from, to);
            emit seriesSelectionRequested(std::vector<std::uint32_t>(from, to + 1),
                                          SelectAction::Replace);
        } else {
            m_anchor = i;
            emit seriesSelectionRequested({i}, SelectAction::Add);
        }
    } else {
        m_anchor = i;
        emit seriesSelectionRequested({i}, SelectAction::Replace);
    }
    emit seriesClicked(qint64(index), modifiers);
}

FeatureOrder SeriesView::featureOrder() const {
    return m_featureMap->order();
}

void SeriesView::setFeatureOrder(FeatureOrder order) {
    m_featureMap->setOrder(order);
    const QSignalBlocker blocker(m_orderBox);
    m_orderBox->setCurrentIndex(m_orderBox->findData(int(order)));
}

QLineSeries* SeriesView::lineOf(std::size_t index) const {
    for (QAbstractSeries* series : m_chart->series())
        if (series->property("seriesIndex").toULongLong() == index)
            return qobject_cast<QLineSeries*>(series);
    return nullptr;
}

}  // namespace cs::ui
