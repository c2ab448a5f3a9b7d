// SPDX-License-Identifier: MIT
#include "ui/views/series/series_heatmap_view.h"

#include <QLocale>
#include <cmath>

#include "compute/backend/gl_interop.h"
#include "compute/core/series_matrix.h"

namespace cs::ui {
namespace {

// The series matrix: rows order[r], one column per sample, read-out in the series' own terms.
class SeriesFill : public HeatmapFill {
public:
    SeriesFill(std::shared_ptr<const SeriesSet> series, std::vector<std::uint32_t> order,
               std::size_t channel, std::shared_ptr<const DeviceResident> device)
        : m_series(std::move(series)),
          m_order(std::move(order)),
          m_channel(channel),
          m_device(std::move(device)) {}

    std::size_t rows() const override { return m_order.size(); }
    std::size_t columns() const override { return m_series->length; }
    int rowClass(std::size_t row) const override {
        const std::size_t i = m_order[row];
        return i < m_series->labels.size() ? m_series->labels[i] : -1;
    }
    std::vector<float> hostMatrix(std::size_t) const override {
        return seriesMatrix(*m_series, m_order, m_channel).values;
    }
    bool hasDeviceSource() const override { return m_device != nullptr; }
    void writeOnDevice(GlBufferLink& link, std::size_t) const override {
        link.writeSeriesMatrix(*m_device, m_order, m_channel);
    }
    QString className(int label) const override {
        return label >= 0 && std::size_t(label) < m_series->classNames.size()
                   ? QString::fromStdString(m_series->classNames[std::size_t(label)])
                   : QString::number(label);
    }
    QString what() const override { return QObject::tr("the series"); }
    QString title(std::size_t) const override {
        return QObject::tr("%1 series × %2 samples, each z-normalised; grouped by class")
            .arg(QLocale().toString(qulonglong(m_order.size())))
            .arg(QLocale().toString(qulonglong(m_series->length)));
    }
    QString columnCaption() const override { return QObject::tr("time →"); }
    QString describe(std::size_t row, std::size_t t) const override {
        const SeriesSet& s = *m_series;
        const std::uint32_t i = m_order[row];
        QString text = QObject::tr("series %1").arg(i);
        if (i < s.labels.size() && s.labels[i] >= 0)
            text += QObject::tr(" · class %1")
                        .arg(std::size_t(s.labels[i]) < s.classNames.size()
                                 ? QString::fromStdString(s.classNames[std::size_t(s.labels[i])])
                                 : QString::number(s.labels[i]));
        text += QObject::tr(" · t = %1").arg(t);
        // One row's z-values on the host: cheap, and the same on both paths.
        const std::uint32_t one[] = {i};
        const float z = seriesMatrix(s, one, m_channel).values[t];
        text += std::isnan(z) ? QObject::tr(" · past the end")
                              : QObject::tr(" · z = %1").arg(double(z), 0, 'f', 2);
        return text;
    }

private:
    std::shared_ptr<const SeriesSet> m_series;
    std::vector<std::uint32_t> m_order;
    std::size_t m_channel;
    std::shared_ptr<const DeviceResident> m_device;
};

}  // namespace

SeriesHeatmapView::SeriesHeatmapView(QWidget* parent)
    : MatrixHeatmapView(tr("series heat map"), parent) {
    setEmptyText(tr("No series to show."));
}

SeriesHeatmapView::~SeriesHeatmapView() = default;

void SeriesHeatmapView::setRows(std::shared_ptr<const SeriesSet> series,
                                std::vector<std::uint32_t> order, std::size_t channel) {
    m_series = std::move(series);
    m_order = std::move(order);
    m_channel = channel;
    refill();
}

void SeriesHeatmapView::setDeviceSeries(std::shared_ptr<const SeriesSet> series,
                                        std::shared_ptr<const DeviceResident> copy) {
    m_deviceOf = std::move(series);
    m_device = std::move(copy);
    if (m_deviceOf == m_series && m_device) refill();
}

void SeriesHeatmapView::refill() {
    if (!m_series || m_order.empty() || m_series->length == 0) {
        setFill(nullptr);
        return;
    }
    setFill(std::make_shared<SeriesFill>(m_series, m_order, m_channel,
                                         m_deviceOf == m_series ? m_device : nullptr));
}

}  // namespace cs::ui
