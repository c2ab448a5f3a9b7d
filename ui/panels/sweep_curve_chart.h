// SPDX-License-Identifier: MIT
#pragma once

#include <QString>
#include <QWidget>
#include <optional>
#include <vector>

namespace cs::ui {

/// A one-parameter sweep as curves over the swept values (k-Shape's k, ROCKET's kernel count):
/// one curve against the left axis (its own range) and an optional one against the right axis
/// (fixed 0 to 1: agreement scores, accuracies), the value in use marked by a vertical line,
/// the swept values spaced evenly or on a log scale. A click picks the nearest swept value
/// (valueClicked); the tooltip gives every curve's value there.
/// @code
/// chart->setSweep({2, 3, 4}, {"SBD sum", {90.1, 70.4, 66.0}}, SweepCurveChart::Curve{"ARI",
/// {...}}); connect(chart, &SweepCurveChart::valueClicked, panel, &KShapePanel::setK);
/// @endcode
class SweepCurveChart : public QWidget {
    Q_OBJECT
public:
    /// One curve: its name (legend, tooltip) and a value per swept value (NaN: none).
    struct Curve {
        QString name;
        std::vector<double> values;
    };

    explicit SweepCurveChart(QWidget* parent = nullptr);

    /// Shows a sweep: the swept values (ascending), the left curve and, optionally, the right one
    /// (values in [0, 1]). Curves of another length than x are refused (nothing shown).
    void setSweep(std::vector<int> x, Curve left, std::optional<Curve> right = std::nullopt);
    void clear();
    bool hasSweep() const { return !m_x.empty(); }
    const std::vector<int>& xValues() const { return m_x; }
    /// Log-spaced x (kernel counts) instead of evenly spaced (k).
    void setLogX(bool log);
    /// The name of the swept parameter under the x axis ("k", "kernels").
    void setXTitle(const QString& title);
    /// The text shown while there is no sweep.
    void setPlaceholder(const QString& text);
    /// The value in use: marked by a vertical line when it is in the sweep's range; 0 for none.
    void setCurrent(int x);
    int current() const { return m_current; }

    /// The index of the swept value nearest a widget position (nullopt outside the plot or
    /// without a sweep).
    std::optional<std::size_t> indexAt(QPoint position) const;
    /// Where swept value i is drawn (on the left curve; mid-height without a value), for tests.
    QPoint pointOf(std::size_t i) const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

signals:
    /// The user clicked near swept value x.
    void valueClicked(int x);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    bool event(QEvent* event) override;

private:
    QRect plotRect() const;
    double xPosition(double x) const;  // widget x of a swept value
    void leftRange(double& lo, double& hi) const;

    std::vector<int> m_x;
    Curve m_left;
    std::optional<Curve> m_right;
    bool m_logX = false;
    QString m_xTitle;
    QString m_placeholder;
    int m_current = 0;
};

}  // namespace cs::ui
