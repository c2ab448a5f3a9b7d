// SPDX-License-Identifier: MIT
#pragma once

#include <QLabel>
#include <QMenu>
#include <QString>
#include <vector>

#include "compute/backend/backend_registry.h"

namespace cs::ui {

/// The status-bar chip naming the compute backend in use: "CUDA · NVIDIA H200 · 139 GB free",
/// or "CPU · <why not CUDA>". Its tooltip lists every backend's status. The registry creates
/// backends to find out (CUDA initialisation can take a second), so refresh() asks it on a
/// worker thread. With two or more GPUs a click opens a menu of the device sets the kNN graph
/// and ROCKET can run on: each GPU alone and "All GPUs (N)".
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
        int cudaDevices = 0;  ///< CUDA devices when the CUDA backend is available
    };
    static Description describe(const std::vector<BackendStatus>& statuses);

    /// One entry of the device menu: its text, the devices it chooses, whether it is in use.
    struct DeviceEntry {
        QString text;
        std::vector<int> devices;
        bool checked = false;
    };
    /// The device menu for `count` CUDA devices with `choice` in use (empty: the default, the
    /// first device): "GPU 0" ... "GPU N-1" and "All GPUs (N)" when count >= 2, else nothing.
    static std::vector<DeviceEntry> deviceEntries(int count, const std::vector<int>& choice);

    /// CUDA devices on this machine (refresh() finds them; tests inject them).
    void setDeviceCount(int count);
    int deviceCount() const { return m_deviceCount; }
    /// The GPUs chosen for the kNN graph and ROCKET; empty: the default device.
    const std::vector<int>& deviceChoice() const { return m_deviceChoice; }
    /// Chooses GPUs (the menu, a session). Emits deviceChoiceChanged when the choice changes.
    void setDeviceChoice(std::vector<int> devices);
    /// A new menu of deviceEntries() whose actions call setDeviceChoice; empty below 2 GPUs.
    QMenu* makeDeviceMenu(QWidget* parent);

signals:
    /// The chip text is known.
    void ready(const QString& chipText);
    /// The user (or a session) chose other GPUs; empty: the default device.
    void deviceChoiceChanged(const std::vector<int>& devices);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    QSize sizeHint() const override;

private:
    void showChip();

    QString m_chip;
    int m_deviceCount = 0;
    std::vector<int> m_deviceChoice;
};

}  // namespace cs::ui
