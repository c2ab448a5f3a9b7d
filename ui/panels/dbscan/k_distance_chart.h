// SPDX-License-Identifier: MIT
#pragma once

#include <QPointF>
#include <QtCharts/QChartView>
#include <vector>

class QAbstractAxis;
class QLineSeries;
class QLogValueAxis;
class QScatterSeries;
class QValueAxis;

namespace cs::ui {

/// The sorted k-distance curve for choosing DBSCAN's eps, with a horizontal eps line the user
/// drags (or clicks to place) and the knee marked; a linear or a log y axis. An eps outside the
/// axis is drawn dashed at its edge, and the chart's title says where it is. The curve arrives
/// decimated (a few thousand points), so the chart costs the same for 10 thousand or 10 million
/// points.
class KDistanceChart : public QChartView {
    Q_OBJECT
public:
    explicit KDistanceChart(QWidget* parent = nullptr);

    /// Shows a curve: (rank, k-distance) pairs in rank order out of n points, and the knee.
    void setCurve(std::vector<QPointF> curve, std::size_t n, int k, QPointF knee);
    /// Removes the curve (no data, or while a new one is computed).
    void clearCurve();
    /// Moves the eps line (no signal).
    void setEps(double eps);
    /// Where the eps line is.
    double eps() const { return m_eps; }
    /// True once a curve is shown.
    bool hasCurve() const { return !m_curvePoints.empty(); }
    /// The eps the line would take for a press at this widget position (for tests and drags).
    double epsAt(const QPoint& position) const;
    /// Where the eps line is drawn, in widget pixels (y), for tests.
    int epsLineY() const;
    /// A log y axis (the small distances of dense regions spread out) or a linear one.
    void setLogScale(bool logScale);
    bool isLogScale() const { return m_logScale; }
    /// True while eps lies outside the y axis and its line is drawn at the edge.
    bool isEpsClamped() const { return m_epsClamped; }
    /// The y axis in use (a QValueAxis, or a QLogValueAxis on the log scale), for tests.
    QAbstractAxis* yAxis() const { return m_y; }

signals:
    /// The user moved the eps line.
    void epsDragged(double eps);

protected:
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    void applyPalette();
    void updateEpsLine();
    void setTitle(const QString& title);
    void updateRanges();
    void updateSeries();
    void setEpsClamped(bool clamped);
    double shownTop() const;
    double shownBottom() const;

    QLineSeries* m_curve = nullptr;
    QLineSeries* m_epsLine = nullptr;
    QScatterSeries* m_kneeMark = nullptr;
    QValueAxis* m_x = nullptr;
    QValueAxis* m_linearY = nullptr;
    QLogValueAxis* m_logY = nullptr;
    QAbstractAxis* m_y = nullptr;  // the one shown
    std::vector<QPointF> m_curvePoints;
    QPointF m_knee;
    double m_yMin = 1e-4;  // the log axis' floor, in the data's units
    bool m_logScale = false;
    bool m_epsClamped = false;
    double m_eps = 0.0;
    double m_xMax = 1.0;
    double m_yMax = 1.0;  // in the data's units
    // The series and the y axis hold distances divided by this (a power of ten, 1 for data in
    // ordinary units): QtCharts cannot show a range of 1e-30, nor label 1e30 compactly.
    double m_unit = 1.0;
    bool m_dragging = false;
};

}  // namespace cs::ui
