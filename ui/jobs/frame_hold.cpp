// SPDX-License-Identifier: MIT
#include "ui/jobs/frame_hold.h"

#include <QCoreApplication>
#include <QEvent>
#include <QWidget>
#include <algorithm>

namespace cs::ui {

FrameHold& FrameHold::instance() {
    // Parented to the application object, so it goes when the application does.
    static QPointer<FrameHold> hold;
    if (!hold) hold = new FrameHold(QCoreApplication::instance());
    return *hold;
}

FrameHold::FrameHold(QObject* parent) : QObject(parent) {
    m_limit.setSingleShot(true);
    connect(&m_limit, &QTimer::timeout, this, &FrameHold::releaseAll);
    if (QCoreApplication::instance()) QCoreApplication::instance()->installEventFilter(this);
}

void FrameHold::hold(const QString& kind, int maxMs) {
    if (m_kinds.isEmpty()) m_limit.start(std::max(maxMs, 1));
    m_kinds.insert(kind);
}

void FrameHold::release(const QString& kind) {
    if (!m_kinds.remove(kind) || !m_kinds.isEmpty()) return;
    releaseAll();
}

void FrameHold::releaseAll() {
    m_kinds.clear();
    m_limit.stop();
    if (m_held.empty()) return;
    // After the events already queued: the view's own repaint of a result just set comes first
    // and paints everything dirty; a window it did not reach is asked again then.
    QMetaObject::invokeMethod(this, &FrameHold::repostHeld, Qt::QueuedConnection);
}

void FrameHold::repostHeld() {
    if (isHolding()) return;  // held again meanwhile: the next release reposts
    for (const QPointer<QWidget>& window : std::exchange(m_held, {}))
        if (window)
            QCoreApplication::postEvent(window, new QEvent(QEvent::UpdateRequest),
                                        Qt::LowEventPriority);
}

bool FrameHold::eventFilter(QObject* watched, QEvent* event) {
    if (event->type() != QEvent::UpdateRequest || !watched->isWidgetType()) return false;
    auto* window = static_cast<QWidget*>(watched);
    if (!window->isWindow()) return false;
    if (!isHolding()) {
        // A repaint went through: this window has nothing held any more.
        std::erase_if(m_held, [&](const QPointer<QWidget>& w) { return w == window; });
        return false;
    }
    ++m_heldRepaints;
    if (std::none_of(m_held.begin(), m_held.end(),
                     [&](const QPointer<QWidget>& w) { return w == window; }))
        m_held.emplace_back(window);
    return true;
}

}  // namespace cs::ui
