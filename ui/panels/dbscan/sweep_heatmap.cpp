// SPDX-License-Identifier: MIT
#include "ui/panels/dbscan/sweep_heatmap.h"

#include <QHelpEvent>
#include <QLocale>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>
#include <cmath>

#include "ui/views/colour_maps.h"

namespace cs::ui {
namespace {

// Room for the axis labels: MinPts on the left, eps below.
constexpr int kLeftMargin = 28;
constexpr int kBottomMargin = 18;
constexpr int kTopMargin = 4;
constexpr int kRightMargin = 4;

QString epsText(double eps) {
    return QLocale().toString(eps, 'g', 3);
}

}  // namespace

SweepHeatmap::SweepHeatmap(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
}

void SweepHeatmap::setSweep(DbscanSweepResult sweep) {
    m_sweep = std::move(sweep);
    update();
}

void SweepHeatmap::clear() {
    m_sweep = {};
    update();
}

void SweepHeatmap::setMeasure(Measure measure) {
    m_measure = measure;
    update();
}

void SweepHeatmap::setCurrent(double eps, int minPts) {
    m_currentEps = eps;
    m_currentMinPts = minPts;
    update();
}

QSize SweepHeatmap::sizeHint() const {
    return {300, 200};
}

QSize SweepHeatmap::minimumSizeHint() const {
    return {120, 140};
}

QRect SweepHeatmap::plotRect() const {
    return rect().adjusted(kLeftMargin, kTopMargin, -kRightMargin, -kBottomMargin);
}

double SweepHeatmap::value(const DbscanSweepCell& cell) const {
    switch (m_measure) {
        case Measure::NoiseShare:
            return cell.noiseShare;
        case Measure::LargestShare:
            return cell.largestShare;
        case Measure::Clusters:
            break;
    }
    return double(cell.clusters);
}

std::optional<std::pair<std::size_t, std::size_t>> SweepHeatmap::cellAt(QPoint position) const {
    const QRect plot = plotRect();
    if (!hasSweep() || !plot.contains(position)) return std::nullopt;
    const std::size_t columns = m_sweep.eps.size(), rows = m_sweep.minPts.size();
    const auto e = std::min(columns - 1, std::size_t(double(position.x() - plot.left()) *
                                                     double(columns) / double(plot.width())));
    // MinPts grows upwards.
    const auto fromTop = std::min(rows - 1, std::size_t(double(position.y() - plot.top()) *
                                                        double(rows) / double(plot.height())));
    return std::pair{e, rows - 1 - fromTop};
}

QPoint SweepHeatmap::cellCentre(std::size_t e, std::size_t m) const {
    const QRectF plot = plotRect();
    const double w = plot.width() / double(m_sweep.eps.size());
    const double h = plot.height() / double(m_sweep.minPts.size());
    const double fromTop = double(m_sweep.minPts.size() - 1 - m);
    return QPointF(plot.left() + (double(e) + 0.5) * w, plot.top() + (fromTop + 0.5) * h).toPoint();
}

void SweepHeatmap::paintEvent(QPaintEvent*) {
    QPainter p(this);
    const QPalette& pal = palette();
    p.fillRect(rect(), pal.color(QPalette::Base));
    if (!hasSweep()) {
        p.setPen(pal.color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter | Qt::TextWordWrap,
                   tr("Sweep eps × MinPts to see where the clustering is stable"));
        return;
    }
    const QRectF plot = plotRect();
    const std::size_t columns = m_sweep.eps.size(), rows = m_sweep.minPts.size();
    const double w = plot.width() / double(columns), h = plot.height() / double(rows);
    // Shares on their own scale, 0 to 1, so that maps of two sweeps compare. Cluster counts on a
    // log scale over the sweep's range: a few hundred fragments at the smallest eps would
    // otherwise flatten the plateaus of a handful of clusters into one colour.
    const bool counts = m_measure == Measure::Clusters;
    auto scaled = [&](const DbscanSweepCell& c) {
        return counts ? std::log1p(value(c)) : value(c);
    };
    double lo = counts ? scaled(m_sweep.cells.front()) : 0.0, hi = counts ? lo : 1.0;
    if (counts)
        for (const auto& c : m_sweep.cells) {
            lo = std::min(lo, scaled(c));
            hi = std::max(hi, scaled(c));
        }
    QFont small = font();
    small.setPointSizeF(std::max(6.0, small.pointSizeF() * 0.75));
    p.setFont(small);
    const bool labels = w >= p.fontMetrics().horizontalAdvance(QStringLiteral("888")) &&
                        h >= p.fontMetrics().height() * 0.9;
    for (std::size_t e = 0; e < columns; ++e)
        for (std::size_t m = 0; m < rows; ++m) {
            const DbscanSweepCell& c = m_sweep.at(e, m);
            const double t = hi > lo ? (scaled(c) - lo) / (hi - lo) : 0.5;
            const QColor colour = ColourMaps::viridis(t);
            const QRectF cell(plot.left() + double(e) * w, plot.top() + double(rows - 1 - m) * h, w,
                              h);
            p.fillRect(cell, colour);
            if (labels) {
                // On the colour map, not on the theme's colours: black or white by contrast.
                p.setPen(colour.lightnessF() > 0.55 ? Qt::black : Qt::white);
                p.drawText(cell, Qt::AlignCenter, QString::number(c.clusters));
            }
        }

    // The plateau of the MinPts in use, and the cell of the parameters in use.
    const auto column = std::find(m_sweep.minPts.begin(), m_sweep.minPts.end(), m_currentMinPts);
    if (column != m_sweep.minPts.end()) {
        const auto m = std::size_t(column - m_sweep.minPts.begin());
        const double top = plot.top() + double(rows - 1 - m) * h;
        if (const auto plateau = dbscanPlateau(m_sweep, m)) {
            p.setPen(QPen(pal.color(QPalette::Highlight), 2.0, Qt::DashLine));
            p.setBrush(Qt::NoBrush);
            p.drawRect(QRectF(plot.left() + double(plateau->first) * w, top,
                              double(plateau->last - plateau->first + 1) * w, h)
                           .adjusted(1, 1, -1, -1));
        }
        if (m_currentEps > 0.0) {
            std::size_t nearest = 0;
            for (std::size_t e = 1; e < columns; ++e)
                if (std::abs(std::log(double(m_sweep.eps[e]) / m_currentEps)) <
                    std::abs(std::log(double(m_sweep.eps[nearest]) / m_currentEps)))
                    nearest = e;
            p.setPen(QPen(pal.color(QPalette::Text), 2.0));
            p.drawRect(QRectF(plot.left() + double(nearest) * w, top, w, h));
        }
    }

    // Axes: MinPts at a few rows, eps at the ends and the middle.
    p.setPen(pal.color(QPalette::Text));
    const int step = std::max<int>(1, int(std::ceil(double(p.fontMetrics().height()) / h)));
    for (std::size_t m = 0; m < rows; m += std::size_t(step))
        p.drawText(QRectF(0, plot.top() + double(rows - 1 - m) * h, kLeftMargin - 3, h),
                   Qt::AlignRight | Qt::AlignVCenter, QString::number(m_sweep.minPts[m]));
    const QRectF axis(plot.left(), plot.bottom(), plot.width(), kBottomMargin);
    p.drawText(axis, Qt::AlignLeft | Qt::AlignVCenter, epsText(m_sweep.eps.front()));
    p.drawText(axis, Qt::AlignHCenter | Qt::AlignVCenter, tr("eps"));
    p.drawText(axis, Qt::AlignRight | Qt::AlignVCenter, epsText(m_sweep.eps.back()));
}

void SweepHeatmap::mousePressEvent(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton) return QWidget::mousePressEvent(event);
    const auto cell = cellAt(event->position().toPoint());
    if (!cell) return;
    emit cellClicked(double(m_sweep.eps[cell->first]), m_sweep.minPts[cell->second]);
}

bool SweepHeatmap::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        const auto* help = static_cast<QHelpEvent*>(event);
        if (const auto cell = cellAt(help->pos())) {
            const DbscanSweepCell& c = m_sweep.at(cell->first, cell->second);
            QToolTip::showText(help->globalPos(),
                               tr("eps %1, MinPts %2: %3 clusters, noise %4 %, largest %5 %\n"
                                  "Click to use these parameters")
                                   .arg(epsText(c.eps))
                                   .arg(c.minPts)
                                   .arg(c.clusters)
                                   .arg(QLocale().toString(100.0 * c.noiseShare, 'f', 1))
                                   .arg(QLocale().toString(100.0 * c.largestShare, 'f', 1)),
                               this);
        } else {
            QToolTip::hideText();
        }
        return true;
    }
    return QWidget::event(event);
}

}  // namespace cs::ui
