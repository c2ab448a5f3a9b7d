// SPDX-License-Identifier: MIT
#pragma once

#include <QDockWidget>

#include "ui/shell/logger.h"

class QPlainTextEdit;

namespace cs::ui {

/// The log dock: Logger's lines with a timestamp, warnings and errors coloured from the
/// palette (theme.h), rebuilt when the theme changes. It shows the history logged before it
/// was created too.
class LogDock : public QDockWidget {
    Q_OBJECT
public:
    explicit LogDock(QWidget* parent = nullptr);

    /// The log as plain text (one line per entry), e.g. for tests.
    QString plainText() const;

protected:
    void changeEvent(QEvent* event) override;

private:
    void append(const Logger::Entry& entry);
    void rebuild();

    QPlainTextEdit* m_text = nullptr;
};

}  // namespace cs::ui
