// SPDX-License-Identifier: MIT
#pragma once

#include <QWidget>
#include <optional>

#include "compute/dbscan/dbscan_sweep.h"

namespace cs::ui {

/// An eps x MinPts sweep as a heat map: eps across (log-spaced, as swept), MinPts up, one cell
/// per pair coloured by the chosen measure (viridis: shares from 0 to 1, cluster counts on a log
/// scale over the sweep's range), the cluster count
/// written in each cell when it fits, the cell of the parameters in use outlined and the
/// plateau of their MinPts marked. Clicking a cell emits cellClicked with its parameters.
class SweepHeatmap : public QWidget {
    Q_OBJECT
public:
    /// What the colours show.
    enum class Measure { Clusters, NoiseShare, LargestShare };

    explicit SweepHeatmap(QWidget* parent = nullptr);

    void setSweep(DbscanSweepResult sweep);
    void clear();
    const DbscanSweepResult& sweep() const { return m_sweep; }
    bool hasSweep() const { return !m_sweep.cells.empty(); }
    void setMeasure(Measure measure);
    Measure measure() const { return m_measure; }
    /// The parameters in use: their cell (the nearest eps) is outlined, their MinPts's
    /// plateau marked.
    void setCurrent(double eps, int minPts);

    /// The cell under a widget position, as (eps index, MinPts index); nullopt outside.
    std::optional<std::pair<std::size_t, std::size_t>> cellAt(QPoint position) const;
    /// The centre of a cell in widget coordinates (for tests and tooltips).
    QPoint cellCentre(std::size_t e, std::size_t m) const;
    /// The value a cell shows under the current measure.
    double value(const DbscanSweepCell& cell) const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

signals:
    void cellClicked(double eps, int minPts);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    bool event(QEvent* event) override;

private:
    QRect plotRect() const;

    DbscanSweepResult m_sweep;
    Measure m_measure = Measure::Clusters;
    double m_currentEps = 0.0;
    int m_currentMinPts = 0;
};

}  // namespace cs::ui
