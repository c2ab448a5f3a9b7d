// SPDX-License-Identifier: MIT
#include "ui/panels/sweep_curve_chart.h"

#include <QHelpEvent>
#include <QLocale>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>
#include <algorithm>
#include <cmath>
#include <limits>

#include "ui/views/colour_maps.h"

namespace cs::ui {
namespace {

constexpr int kLeftMargin = 46;    // the left axis' numbers
constexpr int kRightMargin = 30;   // the right axis' 0 to 1
constexpr int kTopMargin = 18;     // the legend
constexpr int kBottomMargin = 30;  // x numbers and title

QString numberText(double v) {
    return QLocale().toString(v, 'g', 4);
}

// Colours of the curves: from the categorical map (the data's colours, not the theme's), so
// that they read the same on a light and a dark palette.
QColor leftColour() {
    return ColourMaps::categorical(0);
}
QColor rightColour() {
    return ColourMaps::categorical(1);
}

}  // namespace

SweepCurveChart::SweepCurveChart(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
}

void SweepCurveChart::setSweep(std::vector<int> x, Curve left, std::optional<Curve> right) {
    if (left.values.size() != x.size() || (right && right->values.size() != x.size())) {
        clear();
        return;
    }
    m_x = std::move(x);
    m_left = std::move(left);
    m_right = std::move(right);
    update();
}

void SweepCurveChart::clear() {
    m_x.clear();
    m_left = {};
    m_right.reset();
    update();
}

void SweepCurveChart::setLogX(bool log) {
    m_logX = log;
    update();
}

void SweepCurveChart::setXTitle(const QString& title) {
    m_xTitle = title;
    update();
}

void SweepCurveChart::setPlaceholder(const QString& text) {
    m_placeholder = text;
    update();
}

void SweepCurveChart::setCurrent(int x) {
    m_current = x;
    update();
}

QSize SweepCurveChart::sizeHint() const {
    return {300, 190};
}

QSize SweepCurveChart::minimumSizeHint() const {
    return {160, 150};
}

QRect SweepCurveChart::plotRect() const {
    return rect().adjusted(kLeftMargin, kTopMargin, -kRightMargin, -kBottomMargin);
}

double SweepCurveChart::xPosition(double x) const {
    const QRectF plot = plotRect();
    if (m_x.size() < 2) return plot.center().x();
    const double lo = m_x.front(), hi = m_x.back();
    const bool log = m_logX && lo > 0.0;
    const double t = log ? std::log(x / lo) / std::log(hi / lo) : (x - lo) / (hi - lo);
    return plot.left() + t * plot.width();
}

void SweepCurveChart::leftRange(double& lo, double& hi) const {
    lo = std::numeric_limits<double>::infinity();
    hi = -lo;
    for (double v : m_left.values)
        if (std::isfinite(v)) {
            lo = std::min(lo, v);
            hi = std::max(hi, v);
        }
    if (!std::isfinite(lo)) {
        lo = 0.0;
        hi = 1.0;
    }
    // Some room above and below, and a range even for a flat curve.
    const double pad = hi > lo ? 0.06 * (hi - lo) : std::max(std::abs(hi) * 0.05, 0.5);
    lo -= pad;
    hi += pad;
}

std::optional<std::size_t> SweepCurveChart::indexAt(QPoint position) const {
    const QRect plot = plotRect().adjusted(-8, 0, 8, 0);  // the end points' halves count
    if (m_x.empty() || !plot.contains(position)) return std::nullopt;
    std::size_t best = 0;
    for (std::size_t i = 1; i < m_x.size(); ++i)
        if (std::abs(xPosition(m_x[i]) - position.x()) <
            std::abs(xPosition(m_x[best]) - position.x()))
            best = i;
    return best;
}

QPoint SweepCurveChart::pointOf(std::size_t i) const {
    const QRectF plot = plotRect();
    double lo, hi;
    leftRange(lo, hi);
    const double v = i < m_left.values.size() ? m_left.values[i] : NAN;
    const double y =
        std::isfinite(v) ? plot.bottom() - (v - lo) / (hi - lo) * plot.height() : plot.center().y();
    return QPointF(xPosition(m_x[i]), y).toPoint();
}

void SweepCurveChart::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const QPalette& pal = palette();
    p.fillRect(rect(), pal.color(QPalette::Base));
    if (m_x.empty()) {
        p.setPen(pal.color(QPalette::PlaceholderText));
        p.drawText(rect().adjusted(8, 8, -8, -8), Qt::AlignCenter | Qt::TextWordWrap,
                   m_placeholder);
        return;
    }
    const QRectF plot = plotRect();
    QFont small = font();
    small.setPointSizeF(std::max(6.0, small.pointSizeF() * 0.8));
    p.setFont(small);
    const QFontMetrics fm = p.fontMetrics();
    const QColor text = pal.color(QPalette::Text);
    QColor grid = text;
    grid.setAlphaF(0.15);

    // Frame and horizontal grid lines at a quarter of each range.
    double lo, hi;
    leftRange(lo, hi);
    p.setPen(QPen(grid, 1.0));
    for (int q = 0; q <= 4; ++q) {
        const double y = plot.bottom() - q / 4.0 * plot.height();
        p.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y));
    }
    p.setPen(text);
    for (int q = 0; q <= 4; q += 2) {
        const double y = plot.bottom() - q / 4.0 * plot.height();
        p.drawText(QRectF(0, y - fm.height() / 2.0, kLeftMargin - 4, fm.height()),
                   Qt::AlignRight | Qt::AlignVCenter, numberText(lo + q / 4.0 * (hi - lo)));
        if (m_right)
            p.drawText(
                QRectF(plot.right() + 3, y - fm.height() / 2.0, kRightMargin - 3, fm.height()),
                Qt::AlignLeft | Qt::AlignVCenter, numberText(q / 4.0));
    }

    // x labels: as many as fit without overlapping, always the ends.
    double lastRight = -1e9;
    for (std::size_t i = 0; i < m_x.size(); ++i) {
        const QString label = QLocale().toString(m_x[i]);
        const double w = fm.horizontalAdvance(label) + 6.0;
        const double cx = xPosition(m_x[i]);
        const bool last = i + 1 == m_x.size();
        if (cx - w / 2 < lastRight && !last) continue;
        if (last && cx - w / 2 < lastRight) continue;
        p.drawText(QRectF(cx - w / 2, plot.bottom() + 2, w, fm.height()), Qt::AlignCenter, label);
        lastRight = cx + w / 2;
    }
    p.drawText(QRectF(plot.left(), plot.bottom() + 2 + fm.height(), plot.width(), fm.height()),
               Qt::AlignCenter, m_xTitle);

    // The value in use.
    if (m_current >= m_x.front() && m_current <= m_x.back()) {
        QColor mark = pal.color(QPalette::Highlight);
        p.setPen(QPen(mark, 2.0, Qt::DashLine));
        const double cx = xPosition(m_current);
        p.drawLine(QPointF(cx, plot.top()), QPointF(cx, plot.bottom()));
    }

    auto drawCurve = [&](const Curve& curve, double cLo, double cHi, const QColor& colour,
                         Qt::PenStyle style) {
        QPainterPath path;
        bool open = false;
        std::vector<QPointF> dots;
        for (std::size_t i = 0; i < m_x.size(); ++i) {
            const double v = curve.values[i];
            if (!std::isfinite(v)) {
                open = false;
                continue;
            }
            const QPointF at(xPosition(m_x[i]),
                             plot.bottom() - (v - cLo) / (cHi - cLo) * plot.height());
            if (open)
                path.lineTo(at);
            else
                path.moveTo(at);
            open = true;
            dots.push_back(at);
        }
        p.setPen(QPen(colour, 2.0, style));
        p.setBrush(Qt::NoBrush);
        p.drawPath(path);
        p.setPen(Qt::NoPen);
        p.setBrush(colour);
        for (const QPointF& d : dots)
            p.drawEllipse(d, 3.0, 3.0);
    };
    drawCurve(m_left, lo, hi, leftColour(), Qt::SolidLine);
    if (m_right) drawCurve(*m_right, 0.0, 1.0, rightColour(), Qt::DashDotLine);

    // Legend: a swatch and the name of each curve, with the axis it reads on.
    p.setPen(text);
    double x = plot.left();
    auto legend = [&](const QString& name, const QColor& colour) {
        p.fillRect(QRectF(x, 5, 12, 4), colour);
        x += 16;
        p.setPen(text);
        p.drawText(QPointF(x, 4 + fm.ascent() / 2.0 + 2), name);
        x += fm.horizontalAdvance(name) + 14;
    };
    legend(m_left.name + tr(" (left)"), leftColour());
    if (m_right) legend(m_right->name + tr(" (right)"), rightColour());
    p.setPen(QPen(text, 1.0));
    p.setBrush(Qt::NoBrush);
    p.drawRect(plot);
}

void SweepCurveChart::mousePressEvent(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton) return QWidget::mousePressEvent(event);
    if (const auto i = indexAt(event->position().toPoint())) emit valueClicked(m_x[*i]);
}

bool SweepCurveChart::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        const auto* help = static_cast<QHelpEvent*>(event);
        if (const auto i = indexAt(help->pos())) {
            auto value = [&](const Curve& c) {
                const double v = c.values[*i];
                return std::isfinite(v) ? numberText(v) : tr("none");
            };
            QString line =
                tr("%1 %2: %3 %4")
                    .arg(m_xTitle, QLocale().toString(m_x[*i]), m_left.name, value(m_left));
            if (m_right) line += tr(", %1 %2").arg(m_right->name, value(*m_right));
            QToolTip::showText(help->globalPos(), line + tr("\nClick to use this value"), this);
        } else {
            QToolTip::hideText();
        }
        return true;
    }
    return QWidget::event(event);
}

}  // namespace cs::ui
