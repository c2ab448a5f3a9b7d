// SPDX-License-Identifier: MIT
#include "ui/views/series/feature_matrix_view.h"

#include <QLocale>
#include <algorithm>
#include <numeric>
#include <span>

#include "compute/backend/gl_interop.h"

namespace cs::ui {
namespace {

QString count(std::size_t n) {
    return QLocale().toString(qulonglong(n));
}

QString text(const std::string& s) {
    return QString::fromStdString(s);
}

// columnZScores for the rows on screen; the read-out names the column and its value in every
// layer.
class FeatureMatrixFill : public HeatmapFill {
public:
    FeatureMatrixFill(std::shared_ptr<const SeriesSet> series, FeatureMatrix matrix,
                      std::vector<std::uint32_t> order, std::size_t layer,
                      std::vector<std::uint32_t> columns, FeatureOrder orderShown,
                      std::vector<double> scores,
                      std::shared_ptr<const std::vector<float>> classMeans)
        : m_series(std::move(series)),
          m_matrix(std::move(matrix)),
          m_order(std::move(order)),
          m_layer(layer),
          m_columns(std::move(columns)),
          m_orderShown(orderShown),
          m_scores(std::move(scores)),
          m_classMeans(std::move(classMeans)) {
        for (std::size_t c = 0; c < m_columns.size() && m_identity; ++c)
            m_identity = m_columns[c] == c;
    }

    std::size_t rows() const override { return m_order.size(); }
    std::size_t columns() const override { return m_matrix.columns; }
    bool mayCapColumns() const override { return true; }
    int rowClass(std::size_t row) const override {
        const std::size_t i = m_order[row];
        return m_series && i < m_series->labels.size() ? m_series->labels[i] : -1;
    }
    QString className(int label) const override {
        return m_series && label >= 0 && std::size_t(label) < m_series->classNames.size()
                   ? text(m_series->classNames[std::size_t(label)])
                   : QString::number(label);
    }
    std::vector<float> hostMatrix(std::size_t columns) const override {
        return columnZScores(m_matrix, m_order, m_layer, shown(columns));
    }
    std::size_t summaryRows() const override {
        return m_series && m_series->labels.size() == m_matrix.rows ? m_series->classCount() : 0;
    }
    std::vector<float> summaryMatrix(std::size_t columns) const override {
        // The view's means of every column, in the columns' own order: pick the shown ones.
        const std::size_t classes = summaryRows(), all = m_matrix.columns;
        const std::vector<std::uint32_t> picked = shown(columns);
        std::vector<float> out(classes * picked.size());
        if (!m_classMeans || m_classMeans->size() != classes * all) return {};
        for (std::size_t g = 0; g < classes; ++g)
            for (std::size_t c = 0; c < picked.size(); ++c)
                out[g * picked.size() + c] = (*m_classMeans)[g * all + picked[c]];
        return out;
    }
    int summaryClass(std::size_t row) const override { return int(row); }
    QString summaryTitle() const override {
        return QObject::tr("Mean z-score of each class (all %1 series), coloured over ±%2σ")
            .arg(count(m_matrix.rows))
            .arg(double(MatrixHeatmapView::kSummaryRange));
    }
    bool hasDeviceSource() const override { return m_matrix.device != nullptr; }
    void writeOnDevice(GlBufferLink& link, std::size_t columns) const override {
        if (m_identity)
            link.writeColumnZScores(*m_matrix.device, m_order, m_layer, columns);
        else
            link.writeOrderedColumnZScores(*m_matrix.device, m_order, m_layer, shown(columns));
    }
    QString what() const override { return QObject::tr("the %1").arg(text(m_matrix.name)); }
    QString title(std::size_t shown) const override {
        const QString column = text(m_matrix.columnName);
        const QString columns = shown < m_matrix.columns
                                    ? QObject::tr("the first %1 of %2 %3s (the texture limit)")
                                          .arg(count(shown), count(m_matrix.columns), column)
                                    : QObject::tr("%1 %2s").arg(count(m_matrix.columns), column);
        return QObject::tr("%1 series × %2, %3 z-scored per %4; grouped by class; %5")
            .arg(count(m_order.size()), columns, layerName(m_layer), column, orderText());
    }
    QString columnCaption() const override {
        if (m_orderShown == FeatureOrder::Index)
            return QObject::tr("%1 →").arg(text(m_matrix.columnName));
        return QObject::tr("%1s, most separating first →").arg(text(m_matrix.columnName));
    }
    QString describe(std::size_t row, std::size_t place) const override {
        const std::uint32_t i = m_order[row];
        const std::size_t column = place < m_columns.size() ? m_columns[place] : place;
        QString out = QObject::tr("series %1").arg(i);
        if (m_series && i < m_series->labels.size() && m_series->labels[i] >= 0) {
            const auto label = std::size_t(m_series->labels[i]);
            out += QObject::tr(" · class %1")
                       .arg(label < m_series->classNames.size() ? text(m_series->classNames[label])
                                                                : QString::number(label));
        }
        out += QObject::tr(" · %1 %2").arg(text(m_matrix.columnName)).arg(column);
        if (m_matrix.describeColumn)
            if (const std::string own = m_matrix.describeColumn(column); !own.empty())
                out += QObject::tr(" (%1)").arg(text(own));
        for (std::size_t l = 0; l < m_matrix.layers; ++l)
            out += QObject::tr(" · %1 = %2")
                       .arg(layerName(l))
                       .arg(double(m_matrix.value(i, column, l)), 0, 'g', 5);
        const ColumnStatistics stats = columnStatistics(m_matrix, column, m_layer);
        out += QObject::tr(" · z = %1")
                   .arg(stats.zScore(double(m_matrix.value(i, column, m_layer))), 0, 'f', 2);
        if (column < m_scores.size())
            out += QObject::tr(" · %1 = %2 (rank %3)")
                       .arg(m_orderShown == FeatureOrder::Weight ? QObject::tr("|weight|")
                                                                 : QObject::tr("F"))
                       .arg(m_scores[column], 0, 'g', 4)
                       .arg(place + 1);
        return out;
    }

private:
    std::vector<std::uint32_t> shown(std::size_t columns) const {
        return {m_columns.begin(),
                m_columns.begin() + std::ptrdiff_t(std::min(columns, m_columns.size()))};
    }
    QString orderText() const {
        switch (m_orderShown) {
            case FeatureOrder::FStatistic:
                return QObject::tr("ordered by F statistic");
            case FeatureOrder::Weight:
                return QObject::tr("ordered by |%1|")
                    .arg(text(m_matrix.weightName.empty() ? std::string("weight")
                                                          : m_matrix.weightName));
            case FeatureOrder::Index:
                break;
        }
        return QObject::tr("in %1 order").arg(text(m_matrix.columnName));
    }
    QString layerName(std::size_t layer) const {
        return layer < m_matrix.layerNames.size() ? text(m_matrix.layerNames[layer])
                                                  : QObject::tr("layer %1").arg(layer);
    }

    std::shared_ptr<const SeriesSet> m_series;
    FeatureMatrix m_matrix;
    std::vector<std::uint32_t> m_order;
    std::size_t m_layer;
    std::vector<std::uint32_t> m_columns;
    FeatureOrder m_orderShown;
    std::vector<double> m_scores;
    std::shared_ptr<const std::vector<float>> m_classMeans;  // classes x all columns
    bool m_identity = true;
};

}  // namespace

FeatureMatrixView::FeatureMatrixView(QWidget* parent)
    : MatrixHeatmapView(tr("feature map"), parent) {
    setEmptyText(tr("No features yet: run ROCKET in its panel."));
}

FeatureMatrixView::~FeatureMatrixView() = default;

void FeatureMatrixView::setMatrix(std::shared_ptr<const SeriesSet> series, FeatureMatrix matrix) {
    m_series = std::move(series);
    m_matrix = std::move(matrix);
    if (m_layer >= m_matrix.layers) m_layer = 0;
    refill();
}

void FeatureMatrixView::setRows(std::vector<std::uint32_t> order) {
    m_order = std::move(order);
    refill();
}

void FeatureMatrixView::setLayer(std::size_t layer) {
    if (layer == m_layer || (m_matrix && layer >= m_matrix.layers)) return;
    m_layer = layer;
    refill();
}

void FeatureMatrixView::setOrder(FeatureOrder order) {
    if (order == m_orderAsked) return;
    m_orderAsked = order;
    refill();
}

void FeatureMatrixView::refill() {
    // Rows index the matrix: a row past it (rows of another set), or values that do not fill
    // the shape, show nothing.
    bool fits = m_matrix && m_matrix.rows > 0 && m_matrix.columns > 0 && !m_order.empty() &&
                m_layer < m_matrix.layers &&
                m_matrix.values.size() == m_matrix.rows * m_matrix.columns * m_matrix.layers;
    for (std::size_t r = 0; fits && r < m_order.size(); ++r)
        fits = m_order[r] < m_matrix.rows;
    m_columns.clear();
    m_scores.clear();
    m_orderShown = FeatureOrder::Index;
    if (!fits) {
        setFill(nullptr);
        return;
    }
    // The order asked for, or the next one these data allow.
    const bool labelled =
        m_series && m_series->labels.size() == m_matrix.rows && m_series->classCount() >= 2;
    FeatureOrder order = m_orderAsked;
    if (order == FeatureOrder::Weight &&
        m_matrix.weights.size() != m_matrix.columns * m_matrix.layers)
        order = FeatureOrder::FStatistic;
    if (order == FeatureOrder::FStatistic && !labelled) order = FeatureOrder::Index;
    // The scores read every value of the layer: kept while the matrix, layer and order stay
    // (a new row filter or column limit reuses them).
    const bool cached = m_cache.owner == m_matrix.owner && m_cache.series == m_series &&
                        m_cache.weights == m_matrix.weights && m_cache.layer == m_layer &&
                        m_cache.order == order;
    if (!cached) {
        m_cache = {m_matrix.owner, m_series, m_matrix.weights, m_layer, order, {}, {}};
        if (order != FeatureOrder::Index)
            m_cache.scores =
                featureScores(m_matrix,
                              labelled ? std::span<const std::int32_t>(m_series->labels)
                                       : std::span<const std::int32_t>(),
                              m_layer, order);
        m_cache.columns = columnOrderByScore(m_cache.scores, m_matrix.columns);
    }
    m_scores = m_cache.scores;
    m_orderShown = m_scores.empty() ? FeatureOrder::Index : order;
    m_columns = m_cache.columns;
    // The class means of every column, once per matrix and layer.
    const bool classes =
        m_series && m_series->labels.size() == m_matrix.rows && m_series->classCount() > 0;
    if (!classes) {
        m_means = {};
    } else if (m_means.owner != m_matrix.owner || m_means.series != m_series ||
               m_means.layer != m_layer || !m_means.values) {
        std::vector<std::uint32_t> all(m_matrix.columns);
        std::iota(all.begin(), all.end(), std::uint32_t(0));
        m_means = {m_matrix.owner, m_series, m_layer,
                   std::make_shared<const std::vector<float>>(classMeanZScores(
                       m_matrix, m_series->labels, int(m_series->classCount()), m_layer, all))};
    }
    setFill(std::make_shared<FeatureMatrixFill>(m_series, m_matrix, m_order, m_layer, m_columns,
                                                m_orderShown, m_scores, m_means.values));
}

}  // namespace cs::ui
