// SPDX-License-Identifier: MIT
#include "ui/panels/dbscan/k_distance_chart.h"

#include <QEvent>
#include <QLocale>
#include <QMouseEvent>
#include <QtCharts/QChart>
#include <QtCharts/QLineSeries>
#include <QtCharts/QLogValueAxis>
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
    m_kneeMark = new QScatterSeries;
    m_kneeMark->setMarkerSize(9);
    chart->addSeries(m_curve);
    chart->addSeries(m_epsLine);
    chart->addSeries(m_kneeMark);
    m_x = new QValueAxis;
    m_linearY = new QValueAxis;
    m_logY = new QLogValueAxis;
    m_x->setLabelFormat(QStringLiteral("%.0f"));
    m_linearY->setLabelFormat(QStringLiteral("%.3g"));
    m_logY->setLabelFormat(QStringLiteral("%.2g"));
    m_logY->setBase(10.0);
    m_x->setTickCount(3);
    m_linearY->setTickCount(5);
    // The log axis is parented to the chart while not shown, so that it is freed with it.
    m_logY->setParent(chart);
    m_y = m_linearY;
    chart->addAxis(m_x, Qt::AlignBottom);
    chart->addAxis(m_y, Qt::AlignLeft);
    for (QAbstractSeries* s :
         {static_cast<QAbstractSeries*>(m_curve), static_cast<QAbstractSeries*>(m_epsLine),
          static_cast<QAbstractSeries*>(m_kneeMark)}) {
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
    const std::initializer_list<QAbstractAxis*> axes{m_x, m_linearY, m_logY};
    for (QAbstractAxis* a : axes) {
        a->setLabelsFont(small);
        a->setTitleFont(small);
    }
    c->setTitleFont(small);
    c->setBackgroundBrush(pal.color(QPalette::Base));
    c->setBackgroundPen(QPen(pal.color(QPalette::Mid)));
    c->setPlotAreaBackgroundVisible(false);
    c->setTitleBrush(pal.color(QPalette::Text));
    for (QAbstractAxis* a : axes) {
        a->setLabelsBrush(pal.color(QPalette::Text));
        a->setTitleBrush(pal.color(QPalette::Text));
        a->setLinePenColor(pal.color(QPalette::Mid));
        a->setGridLineColor(pal.color(QPalette::Midlight));
    }
    m_curve->setPen(QPen(pal.color(QPalette::Text), 1.5));
    QPen epsPen(pal.color(QPalette::Highlight), 2.0);
    // Clamped to the top edge: dashed, so that it does not read as an eps on the chart.
    if (m_epsClamped) epsPen.setStyle(Qt::DashLine);
    m_epsLine->setPen(epsPen);
    m_kneeMark->setColor(pal.color(QPalette::Link));
    m_kneeMark->setBorderColor(pal.color(QPalette::Base));
}

void KDistanceChart::changeEvent(QEvent* event) {
    QChartView::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) applyPalette();
}

void KDistanceChart::setCurve(std::vector<QPointF> curve, std::size_t n, int k, QPointF knee) {
    m_curvePoints = std::move(curve);
    m_knee = knee;
    m_xMax = std::max(1.0, double(n) - 1.0);
    // The top of the curve is the noise: show the whole curve only when it is not much larger
    // than the interesting range around the knee, else the knee would sit flat on the axis.
    double top = m_curvePoints.empty() ? 1.0 : m_curvePoints.back().y();
    const double interesting = knee.y() > 0.0 ? knee.y() * 4.0 : top;
    m_yMax = std::max(std::min(top, interesting), knee.y() * 1.5);
    if (!(m_yMax > 0.0) || !std::isfinite(m_yMax)) m_yMax = 1.0;
    m_unit = m_yMax >= 1e-3 && m_yMax < 1e6 ? 1.0 : std::pow(10.0, std::floor(std::log10(m_yMax)));
    // A log axis cannot show 0 (duplicate points): its floor is the smallest distance above 0
    // on the curve, or a ten-thousandth of the top.
    m_yMin = m_yMax * 1e-4;
    for (const QPointF& p : m_curvePoints)
        if (p.y() > 0.0) {
            m_yMin = std::min(m_yMin, p.y() * 0.9);
            break;
        }
    m_x->setTitleText(tr("points sorted by %1-distance").arg(k));
    const QString unitText =
        m_unit == 1.0 ? QString() : tr("× %1").arg(QString::number(m_unit, 'g', 3));
    m_linearY->setTitleText(unitText);
    m_logY->setTitleText(unitText);
    updateSeries();
    updateRanges();
    updateEpsLine();
}

void KDistanceChart::updateSeries() {
    QList<QPointF> shown;
    shown.reserve(qsizetype(m_curvePoints.size()));
    const double floor = m_logScale ? m_yMin : 0.0;
    for (const QPointF& p : m_curvePoints)
        shown.append({p.x(), std::max(p.y(), floor) / m_unit});
    m_curve->replace(shown);
    if (m_curvePoints.empty())
        m_kneeMark->clear();
    else
        m_kneeMark->replace(QList<QPointF>{{m_knee.x(), std::max(m_knee.y(), floor) / m_unit}});
}

void KDistanceChart::setLogScale(bool logScale) {
    if (logScale == m_logScale) return;
    m_logScale = logScale;
    QChart* c = chart();
    const std::initializer_list<QAbstractSeries*> series{m_curve, m_epsLine, m_kneeMark};
    for (QAbstractSeries* s : series)
        s->detachAxis(m_y);
    c->removeAxis(m_y);
    m_y->setParent(c);
    m_y = logScale ? static_cast<QAbstractAxis*>(m_logY) : static_cast<QAbstractAxis*>(m_linearY);
    c->addAxis(m_y, Qt::AlignLeft);
    for (QAbstractSeries* s : series)
        s->attachAxis(m_y);
    updateSeries();
    updateRanges();
    updateEpsLine();
}

void KDistanceChart::clearCurve() {
    m_curvePoints.clear();
    m_curve->clear();
    m_kneeMark->clear();
    m_epsLine->clear();
    setEpsClamped(false);
}

void KDistanceChart::setEps(double eps) {
    m_eps = eps;
    updateEpsLine();
}

void KDistanceChart::updateRanges() {
    m_x->setRange(0.0, m_xMax);
    m_linearY->setRange(0.0, m_yMax * 1.05 / m_unit);
    m_logY->setRange(m_yMin / m_unit, m_yMax * 1.05 / m_unit);
}

double KDistanceChart::shownTop() const {
    return m_yMax * 1.05;
}

double KDistanceChart::shownBottom() const {
    return m_logScale ? m_yMin : 0.0;
}

void KDistanceChart::setEpsClamped(bool clamped) {
    if (clamped == m_epsClamped) return;
    m_epsClamped = clamped;
    applyPalette();
}

void KDistanceChart::updateEpsLine() {
    if (m_curvePoints.empty()) {
        m_epsLine->clear();
        setTitle({});
        return;
    }
    // Clamped to the axis so that a large (or, on the log axis, tiny) eps still shows, at the
    // edge, dashed, and the title says where it really is.
    const double y = std::clamp(m_eps, shownBottom(), shownTop());
    setEpsClamped(y != m_eps);
    m_epsLine->replace(QList<QPointF>{{0.0, y / m_unit}, {m_xMax, y / m_unit}});
    const QLocale locale;
    setTitle(
        !m_epsClamped ? QString()
        : m_eps > y
            ? tr("eps %1 is above the chart (top %2)")
                  .arg(locale.toString(m_eps, 'g', 4), locale.toString(shownTop(), 'g', 3))
            : tr("eps %1 is below the chart (bottom %2)")
                  .arg(locale.toString(m_eps, 'g', 4), locale.toString(shownBottom(), 'g', 3)));
}

void KDistanceChart::setTitle(const QString& title) {
    // Setting even the same title relayouts the chart: tens of ms on every eps change.
    if (chart()->title() != title) chart()->setTitle(title);
}

double KDistanceChart::epsAt(const QPoint& position) const {
    const QPointF value = chart()->mapToValue(mapToScene(position), m_curve);
    return std::clamp(value.y() * m_unit, m_yMax * 1e-4, shownTop());
}

int KDistanceChart::epsLineY() const {
    const double y = std::clamp(m_eps, shownBottom(), shownTop());
    const QPointF scene = chart()->mapToPosition(QPointF(m_xMax / 2, y / m_unit), m_curve);
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
