// SPDX-License-Identifier: MIT
#include "ui/views/series/rocket_feature_map_view.h"

#include <QLocale>
#include <cmath>

#include "compute/backend/gl_interop.h"

namespace cs::ui {
namespace {

QString count(std::size_t n) {
    return QLocale().toString(qulonglong(n));
}

// rocketFeatureMap for the rows on screen; the read-out names the kernel and both values.
class FeatureMapFill : public HeatmapFill {
public:
    FeatureMapFill(std::shared_ptr<const SeriesSet> series,
                   std::shared_ptr<const RocketFeatures> features,
                   std::shared_ptr<const RocketKernels> kernels, std::vector<std::uint32_t> order,
                   RocketFeature feature)
        : m_series(std::move(series)),
          m_features(std::move(features)),
          m_kernels(std::move(kernels)),
          m_order(std::move(order)),
          m_feature(feature) {}

    std::size_t rows() const override { return m_order.size(); }
    std::size_t columns() const override { return m_features->kernels; }
    bool mayCapColumns() const override { return true; }
    int rowClass(std::size_t row) const override {
        const std::size_t i = m_order[row];
        return m_series && i < m_series->labels.size() ? m_series->labels[i] : -1;
    }
    std::vector<float> hostMatrix(std::size_t columns) const override {
        return rocketFeatureMap(*m_features, m_order, m_feature, columns);
    }
    bool hasDeviceSource() const override { return m_features->device != nullptr; }
    void writeOnDevice(GlBufferLink& link, std::size_t columns) const override {
        link.writeRocketFeatureMap(*m_features->device, m_order, m_feature, columns);
    }
    QString what() const override { return QObject::tr("the ROCKET features"); }
    QString title(std::size_t shown) const override {
        const QString name =
            QString::fromLatin1(toString(m_feature).data(), qsizetype(toString(m_feature).size()));
        const QString kernels = shown < m_features->kernels
                                    ? QObject::tr("the first %1 of %2 kernels (the texture limit)")
                                          .arg(count(shown), count(m_features->kernels))
                                    : QObject::tr("%1 kernels").arg(count(m_features->kernels));
        return QObject::tr("%1 series × %2, %3 z-scored per kernel; grouped by class")
            .arg(count(m_order.size()), kernels, name.toUpper());
    }
    QString columnCaption() const override { return QObject::tr("kernel →"); }
    QString describe(std::size_t row, std::size_t column) const override {
        const std::uint32_t i = m_order[row];
        QString text = QObject::tr("series %1").arg(i);
        if (m_series && i < m_series->labels.size() && m_series->labels[i] >= 0) {
            const auto label = std::size_t(m_series->labels[i]);
            text += QObject::tr(" · class %1")
                        .arg(label < m_series->classNames.size()
                                 ? QString::fromStdString(m_series->classNames[label])
                                 : QString::number(label));
        }
        text += QObject::tr(" · kernel %1").arg(column);
        if (m_kernels && column < m_kernels->count())
            text += QObject::tr(" (length %1, dilation %2, padding %3)")
                        .arg(m_kernels->lengths[column])
                        .arg(m_kernels->dilations[column])
                        .arg(m_kernels->paddings[column]);
        const RocketFeatures& f = *m_features;
        const std::size_t offset = m_feature == RocketFeature::Ppv ? 0 : 1;
        const float value = f.values[i * f.columns() + 2 * column + offset];
        // The column's z-score as rocketFeatureMap computes it: mean and population standard
        // deviation over all series, in double; a constant column is 0.
        const auto at = [&](std::size_t s) {
            return double(f.values[s * f.columns() + 2 * column + offset]);
        };
        double sum = 0.0;
        for (std::size_t s = 0; s < f.n; ++s)
            sum += at(s);
        const double mean = sum / double(f.n);
        double squares = 0.0;
        for (std::size_t s = 0; s < f.n; ++s)
            squares += (at(s) - mean) * (at(s) - mean);
        const double sd = std::sqrt(squares / double(f.n));
        const double z = sd > 0.0 ? (double(value) - mean) / sd : 0.0;
        text += m_feature == RocketFeature::Ppv
                    ? QObject::tr(" · PPV = %1").arg(double(value), 0, 'f', 4)
                    : QObject::tr(" · MAX = %1").arg(double(value), 0, 'g', 5);
        text += QObject::tr(" · z = %1").arg(z, 0, 'f', 2);
        return text;
    }

private:
    std::shared_ptr<const SeriesSet> m_series;
    std::shared_ptr<const RocketFeatures> m_features;
    std::shared_ptr<const RocketKernels> m_kernels;
    std::vector<std::uint32_t> m_order;
    RocketFeature m_feature;
};

}  // namespace

RocketFeatureMapView::RocketFeatureMapView(QWidget* parent)
    : MatrixHeatmapView(tr("feature map"), parent) {
    setEmptyText(tr("No ROCKET features yet: run ROCKET in its panel."));
}

RocketFeatureMapView::~RocketFeatureMapView() = default;

void RocketFeatureMapView::setFeatures(std::shared_ptr<const SeriesSet> series,
                                       std::shared_ptr<const RocketFeatures> features,
                                       std::shared_ptr<const RocketKernels> kernels) {
    m_series = std::move(series);
    m_features = std::move(features);
    m_kernels = std::move(kernels);
    refill();
}

void RocketFeatureMapView::setRows(std::vector<std::uint32_t> order) {
    m_order = std::move(order);
    refill();
}

void RocketFeatureMapView::setFeature(RocketFeature feature) {
    if (feature == m_feature) return;
    m_feature = feature;
    refill();
}

void RocketFeatureMapView::refill() {
    // Rows index the features: a row past them (rows of another set) shows nothing.
    bool fits = m_features && m_features->n > 0 && m_features->kernels > 0 && !m_order.empty();
    for (std::size_t r = 0; fits && r < m_order.size(); ++r)
        fits = m_order[r] < m_features->n;
    if (!fits) {
        setFill(nullptr);
        return;
    }
    setFill(std::make_shared<FeatureMapFill>(m_series, m_features, m_kernels, m_order, m_feature));
}

}  // namespace cs::ui
