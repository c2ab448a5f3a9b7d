// SPDX-License-Identifier: MIT
#pragma once

#include <QObject>
#include <QPointer>
#include <QSet>
#include <QString>
#include <QTimer>
#include <vector>

class QWidget;

namespace cs::ui {

/// Holds back the repaints of every window while a quick live run computes, so that a parameter
/// change and its result reach the screen in one frame. Without it, the slider and spin box of
/// the change are composed and presented first, and the result, a few milliseconds later, waits
/// for that frame to be presented before its own (on an H200 under Xvfb a presented frame costs
/// 6 to 15 ms: 1M points went from eps change to screen in 50 ms for a 4 ms run).
/// A hold ends when every kind held has shown its result (release()) or after its time limit,
/// whichever comes first; nothing that was asked to repaint is lost, only delayed.
/// @code
/// FrameHold::instance().hold("dbscan", 60);   // a parameter changed; a quick run is on its way
/// FrameHold::instance().release("dbscan");    // its result is set on the view
/// @endcode
class FrameHold : public QObject {
    Q_OBJECT
public:
    /// The application's (created on first use, owned by the application object).
    static FrameHold& instance();

    /// Window repaints wait until release(kind), at most maxMs from the first hold of this spell.
    void hold(const QString& kind, int maxMs);
    /// kind's result is shown: once no kind holds, the windows repaint (everything they were asked
    /// to paint meanwhile, together with the result).
    void release(const QString& kind);
    /// True while some kind holds.
    bool isHolding() const { return !m_kinds.isEmpty(); }
    /// Window repaints held back so far (for tests).
    int heldRepaints() const { return m_heldRepaints; }

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    explicit FrameHold(QObject* parent);
    void releaseAll();
    void repostHeld();

    QSet<QString> m_kinds;
    QTimer m_limit;
    int m_heldRepaints = 0;
    // Windows whose repaint request was held; each gets one again unless a repaint went through
    // first (a widget's repaint() on the way, the view's after a result).
    std::vector<QPointer<QWidget>> m_held;
};

}  // namespace cs::ui
