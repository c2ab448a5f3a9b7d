// SPDX-License-Identifier: MIT
#pragma once

#include <QLabel>
#include <QString>
#include <vector>

#include "compute/backend/backend_registry.h"

namespace cs::ui {

/// The status-bar chip naming the compute backend in use: "CUDA · NVIDIA H200 · 139 GB free",
/// or "CPU · <why not CUDA>". Its tooltip lists every backend's status. The registry creates
/// backends to find out (CUDA initialisation can take a second), so refresh() asks it on a
/// worker thread.
class BackendChip : public QLabel {
    Q_OBJECT
public:
    explicit BackendChip(QWidget* parent = nullptr);

    /// Asks the registry again (asynchronously); ready() follows.
    void refresh();
    /// Shows that jobs now run on another backend (after a GPU failure), with the reason.
    void showFallback(const QString& backend, const QString& reason);
    /// The full chip text (the label may show it elided).
    QString chipText() const { return m_chip; }

    /// Chip text and tooltip for these statuses (registry order = order of preference).
    struct Description {
        QString chip;
        QString tooltip;
    };
    static Description describe(const std::vector<BackendStatus>& statuses);

signals:
    /// The chip text is known.
    void ready(const QString& chipText);

protected:
    void paintEvent(QPaintEvent* event) override;
    QSize sizeHint() const override;

private:
    QString m_chip;
};

}  // namespace cs::ui
