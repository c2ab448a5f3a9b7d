// SPDX-License-Identifier: MIT
#include "ui/shell/backend_chip.h"

#include <QFutureWatcher>
#include <QMouseEvent>
#include <QPainter>
#include <QtConcurrent/QtConcurrentRun>

#include "compute/backend/device_set.h"
#include "ui/shell/logger.h"

namespace cs::ui {
namespace {

constexpr int kMaxChipChars = 64;
constexpr int kHPad = 10;

}  // namespace

BackendChip::BackendChip(QWidget* parent) : QLabel(parent) {
    setText(tr("Detecting compute backend…"));
    setAlignment(Qt::AlignCenter);
    setContentsMargins(kHPad, 1, kHPad, 1);
}

BackendChip::Description BackendChip::describe(const std::vector<BackendStatus>& statuses) {
    Description out;
    const BackendStatus* active = nullptr;
    const BackendStatus* cuda = nullptr;
    QStringList lines;
    for (const auto& s : statuses) {
        if (!active && s.available) active = &s;
        if (s.name == "cuda") cuda = &s;
        lines << QStringLiteral("%1: %2%3%4")
                     .arg(QString::fromStdString(s.name),
                          s.available ? QString() : tr("unavailable — "),
                          QString::fromStdString(s.detail),
                          s.versions.empty()
                              ? QString()
                              : QStringLiteral(" (%1)").arg(QString::fromStdString(s.versions)));
    }
    if (!cuda) lines << tr("cuda: not in this build (configured without CUDA)");
    if (!active) {
        out.chip = tr("No compute backend");
    } else if (active->name == "cpu") {
        // The CPU is the fallback; what the user wants to know is why the GPU is not used.
        const QString why = cuda ? QString::fromStdString(cuda->detail) : tr("built without CUDA");
        out.chip = tr("CPU · %1").arg(why);
    } else {
        out.chip = QString::fromStdString(active->detail);
    }
    out.tooltip = tr("Compute backends (the first available one is used):\n") + lines.join('\n');
    return out;
}

void BackendChip::refresh() {
    auto* watcher = new QFutureWatcher<Description>(this);
    connect(watcher, &QFutureWatcher<Description>::finished, this, [this, watcher] {
        const Description d = watcher->result();
        watcher->deleteLater();
        m_chip = d.chip;
        setToolTip(d.tooltip);
        setDeviceCount(d.cudaDevices);
        logInfo(tr("compute backend: %1").arg(m_chip));
        emit ready(m_chip);
    });
    watcher->setFuture(QtConcurrent::run([] {
        const std::vector<BackendStatus> statuses = backendRegistry().statuses();
        Description d = describe(statuses);
        for (const auto& s : statuses)
            if (s.name == "cuda" && s.available) {
                try {
                    d.cudaDevices = backendRegistry().get("cuda")->deviceCount();
                } catch (const std::exception&) {
                }
            }
        return d;
    }));
}

std::vector<BackendChip::DeviceEntry> BackendChip::deviceEntries(int count,
                                                                 const std::vector<int>& choice) {
    std::vector<DeviceEntry> entries;
    if (count < 2) return entries;
    for (int d = 0; d < count; ++d)
        entries.push_back({tr("GPU %1").arg(d),
                           {d},
                           choice == std::vector<int>{d} || (d == 0 && choice.empty())});
    std::vector<int> all(static_cast<std::size_t>(count));
    for (int d = 0; d < count; ++d)
        all[std::size_t(d)] = d;
    const bool allChosen = choice == all;
    entries.push_back({tr("All GPUs (%1)").arg(count), std::move(all), allChosen});
    return entries;
}

void BackendChip::setDeviceCount(int count) {
    m_deviceCount = std::max(count, 0);
    setCursor(m_deviceCount >= 2 ? Qt::PointingHandCursor : Qt::ArrowCursor);
    showChip();
}

void BackendChip::setDeviceChoice(std::vector<int> devices) {
    if (devices == m_deviceChoice) return;
    m_deviceChoice = std::move(devices);
    showChip();
    emit deviceChoiceChanged(m_deviceChoice);
}

QMenu* BackendChip::makeDeviceMenu(QWidget* parent) {
    auto* menu = new QMenu(parent);
    menu->setTitle(tr("GPUs for the kNN graph and ROCKET"));
    for (const DeviceEntry& entry : deviceEntries(m_deviceCount, m_deviceChoice)) {
        QAction* action = menu->addAction(entry.text);
        action->setCheckable(true);
        action->setChecked(entry.checked);
        connect(action, &QAction::triggered, this,
                [this, devices = entry.devices] { setDeviceChoice(devices); });
    }
    return menu;
}

void BackendChip::mousePressEvent(QMouseEvent* event) {
    if (m_deviceCount < 2) {
        QLabel::mousePressEvent(event);
        return;
    }
    QMenu* menu = makeDeviceMenu(this);
    menu->setAttribute(Qt::WA_DeleteOnClose);
    menu->popup(mapToGlobal(rect().bottomLeft()));
}

void BackendChip::showChip() {
    if (m_chip.isEmpty()) return;  // still detecting
    QString text = m_chip;
    if (m_deviceChoice.size() > 1)
        text += tr(" · GPUs %1").arg(QString::fromStdString(deviceListText(m_deviceChoice)));
    else if (!m_deviceChoice.empty())
        text += tr(" · GPU %1").arg(m_deviceChoice.front());
    setText(text.size() > kMaxChipChars ? text.left(kMaxChipChars - 1) + QChar(0x2026) : text);
    updateGeometry();
}

void BackendChip::showFallback(const QString& backend, const QString& reason) {
    m_chip = tr("%1 · fallback after an error").arg(backend.toUpper());
    m_deviceCount = 0;  // no device menu on the fallback
    setText(m_chip);
    setToolTip(tr("Jobs run on %1 since: %2").arg(backend, reason));
    updateGeometry();
    emit ready(m_chip);
}

QSize BackendChip::sizeHint() const {
    const QSize s = QLabel::sizeHint();
    return {s.width(), std::max(s.height(), fontMetrics().height() + 4)};
}

void BackendChip::paintEvent(QPaintEvent* event) {
    // A rounded chip in the palette's colours (alternate base on the status bar's window).
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing, true);
    const QRectF r = QRectF(rect()).adjusted(0.5, 1.5, -0.5, -1.5);
    painter.setPen(QPen(palette().color(QPalette::Mid), 1));
    painter.setBrush(palette().color(QPalette::AlternateBase));
    painter.drawRoundedRect(r, r.height() / 2, r.height() / 2);
    painter.end();
    QLabel::paintEvent(event);
}

}  // namespace cs::ui
