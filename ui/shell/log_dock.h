// SPDX-License-Identifier: MIT
#pragma once

#include <QDockWidget>
#include <QTimer>
#include <vector>

#include "ui/shell/logger.h"

class QPlainTextEdit;

namespace cs::ui {

/// The log dock: Logger's lines with a timestamp, warnings and errors coloured from the
/// palette (theme.h), rebuilt when the theme changes. It shows the history logged before it
/// was created too.
///
/// A line is written at once, unless another came less than kQuietMs before it: lines that come
/// in a burst are written together once none came for kQuietMs, and at least every kMaxWaitMs
/// while they keep coming; a warning or an error at once, after the lines before it. A live
/// parameter drag logs a line per run, and a dock repainted in each result's frame made that
/// frame's dirty region span the window from the panel to the dock (the whole backing store
/// composed again); its lines now come after the drag.
class LogDock : public QDockWidget {
    Q_OBJECT
public:
    static constexpr int kQuietMs = 300;
    static constexpr int kMaxWaitMs = 1000;

    explicit LogDock(QWidget* parent = nullptr);

    /// The log as shown (one line per entry), e.g. for tests; lines not yet written are not in it.
    QString plainText() const;
    /// Writes the lines of a burst now, e.g. before the window is grabbed for a screenshot.
    void writePending();

protected:
    void changeEvent(QEvent* event) override;

private:
    void take(const Logger::Entry& entry);
    void write(const Logger::Entry& entry);
    void rebuild();

    QPlainTextEdit* m_text = nullptr;
    std::vector<Logger::Entry> m_pending;
    QTimer m_quiet;    ///< kQuietMs after the last line: running during a burst
    QTimer m_maxWait;  ///< kMaxWaitMs after the first line not written
};

}  // namespace cs::ui
