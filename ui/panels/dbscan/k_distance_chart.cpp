// SPDX-License-Identifier: MIT
#include "ui/panels/dbscan/k_distance_chart.h"

#include <QEvent>
#include <QMouseEvent>
#include <QtCharts/QChart>
#include <QtCharts/QLineSeries>
#include <QtCharts/QScatterSeries>
#include <QtCharts/QValueAxis>
#include <algorithm>
#include <cmath>

namespace cs::ui {

KDistanceChart::KDistanceChart(QWidget* parent) : QChartView(parent) {
    auto* chart = new QChart;
    chart->legend()->hide();
    chart->setMargins(QMargins(4, 4, 4, 4));
    chart->setBackgroundRoundness(0);
    m_curve = new QLineSeries;
    m_epsLine = new QLineSeries;
    m_knee = new QScatterSeries;
    m_knee->setMarkerSize(9);
    chart->addSeries(m_curve);
    chart->addSeries(m_epsLine);
    chart->addSeries(m_knee);
    m_x = new QValueAxis;
    m_y = new QValueAxis;
    m_x->setLabelFormat(QStringLiteral("%.0f"));
    m_y->setLabelFormat(QStringLiteral("%.3g"));
    m_x->setTickCount(3);
    m_y->setTickCount(5);
    chart->addAxis(m_x, Qt::AlignBottom);
    chart->addAxis(m_y, Qt::AlignLeft);
    for (QAbstractSeries* s :
         {static_cast<QAbstractSeries*>(m_curve), static_cast<QAbstractSeries*>(m_epsLine),
          static_cast<QAbstractSeries*>(m_knee)}) {
        s->attachAxis(m_x);
        s->attachAxis(m_y);
    }
    setChart(chart);
    setRenderHint(QPainter::Antialiasing, true);
    setMinimumHeight(170);
    setMouseTracking(true);
    setToolTip(
        tr("Sorted k-distance curve (k = MinPts): drag or click to set eps; points below "
           "the line are core points"));
    applyPalette();
    updateRanges();
}

void KDistanceChart::applyPalette() {
    // Chart colours follow the widget palette so that the dark theme works.
    const QPalette pal = palette();
    QChart* c = chart();
    // A smaller font than the window's: it suits the compact chart, and it keeps QtCharts'
    // process-wide text-measuring item off the font engine the GL point view paints its
    // overlay with (that engine's GL glyph cache would otherwise be freed at exit, after the
    // GL context, and crash).
    QFont small = font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    for (QValueAxis* a : {m_x, m_y}) {
        a->setLabelsFont(small);
        a->setTitleFont(small);
    }
    c->setBackgroundBrush(pal.color(QPalette::Base));
    c->setBackgroundPen(QPen(pal.color(QPalette::Mid)));
    c->setPlotAreaBackgroundVisible(false);
    c->setTitleBrush(pal.color(QPalette::Text));
    for (QValueAxis* a : {m_x, m_y}) {
        a->setLabelsBrush(pal.color(QPalette::Text));
        a->setTitleBrush(pal.color(QPalette::Text));
        a->setLinePenColor(pal.color(QPalette::Mid));
        a->setGridLineColor(pal.color(QPalette::Midlight));
    }
    m_curve->setPen(QPen(pal.color(QPalette::Text), 1.5));
    m_epsLine->setPen(QPen(pal.color(QPalette::Highlight), 2.0));
    m_knee->setColor(pal.color(QPalette::Link));
    m_knee->setBorderColor(pal.color(QPalette::Base));
}

void KDistanceChart::changeEvent(QEvent* event) {
    QChartView::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) applyPalette();
}

void KDistanceChart::setCurve(std::vector<QPointF> curve, std::size_t n, int k, QPointF knee) {
    m_curvePoints = std::move(curve);
    m_xMax = std::max(1.0, double(n) - 1.0);
    // The top of the curve is the noise: show the whole curve only when it is not much larger
    // than the interesting range around the knee, else the knee would sit flat on the axis.
    double top = m_curvePoints.empty() ? 1.0 : m_curvePoints.back().y();
    const double interesting = knee.y() > 0.0 ? knee.y() * 4.0 : top;
    m_yMax = std::max(std::min(top, interesting), knee.y() * 1.5);
    if (!(m_yMax > 0.0) || !std::isfinite(m_yMax)) m_yMax = 1.0;
    m_unit = m_yMax >= 1e-3 && m_yMax < 1e6 ? 1.0 : std::pow(10.0, std::floor(std::log10(m_yMax)));
    QList<QPointF> shown;
    shown.reserve(qsizetype(m_curvePoints.size()));
    for (const QPointF& p : m_curvePoints)
        shown.append({p.x(), p.y() / m_unit});
    m_curve->replace(shown);
    m_knee->replace(QList<QPointF>{{knee.x(), knee.y() / m_unit}});
    m_x->setTitleText(tr("points sorted by %1-distance").arg(k));
    m_y->setTitleText(m_unit == 1.0 ? QString() : tr("× %1").arg(QString::number(m_unit, 'g', 3)));
    updateRanges();
    updateEpsLine();
}

void KDistanceChart::clearCurve() {
    m_curvePoints.clear();
    m_curve->clear();
    m_knee->clear();
    m_epsLine->clear();
}

void KDistanceChart::setEps(double eps) {
    m_eps = eps;
    updateEpsLine();
}

void KDistanceChart::updateRanges() {
    m_x->setRange(0.0, m_xMax);
    m_y->setRange(0.0, m_yMax * 1.05 / m_unit);
}

void KDistanceChart::updateEpsLine() {
    if (m_curvePoints.empty()) {
        m_epsLine->clear();
        return;
    }
    // Clamped to the axis so that a large eps still shows (at the top edge).
    const double y = std::min(m_eps, m_yMax * 1.05) / m_unit;
    m_epsLine->replace(QList<QPointF>{{0.0, y}, {m_xMax, y}});
}

double KDistanceChart::epsAt(const QPoint& position) const {
    const QPointF value = chart()->mapToValue(mapToScene(position), m_curve);
    return std::clamp(value.y() * m_unit, m_yMax * 1e-4, m_yMax * 1.05);
}

int KDistanceChart::epsLineY() const {
    const QPointF scene = chart()->mapToPosition(QPointF(m_xMax / 2, m_eps / m_unit), m_curve);
    return mapFromScene(scene).y();
}

void KDistanceChart::mousePressEvent(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton || m_curvePoints.empty()) {
        QChartView::mousePressEvent(event);
        return;
    }
    m_dragging = true;
    m_eps = epsAt(event->position().toPoint());
    updateEpsLine();
    emit epsDragged(m_eps);
    event->accept();
}

void KDistanceChart::mouseMoveEvent(QMouseEvent* event) {
    if (!m_dragging) {
        const bool near =
            !m_curvePoints.empty() && std::abs(event->position().y() - epsLineY()) <= 5;
        setCursor(near ? Qt::SizeVerCursor : Qt::CrossCursor);
        QChartView::mouseMoveEvent(event);
        return;
    }
    m_eps = epsAt(event->position().toPoint());
    updateEpsLine();
    emit epsDragged(m_eps);
    event->accept();
}

void KDistanceChart::mouseReleaseEvent(QMouseEvent* event) {
    m_dragging = false;
    QChartView::mouseReleaseEvent(event);
}

}  // namespace cs::ui
