// SPDX-License-Identifier: MIT
#pragma once

#include <QDialog>
#include <QString>
#include <vector>

class QMenuBar;

namespace cs::ui {

/// Help ▸ Keyboard shortcuts: every menu action that has a shortcut, read from the menu bar
/// (so the list cannot go stale), plus the point view's mouse and key gestures.
class ShortcutsDialog : public QDialog {
    Q_OBJECT
public:
    /// One row: where, what, which keys.
    struct Row {
        QString section;   ///< "File", "View ▸ Point size", "Point view"
        QString action;    ///< "Open…"
        QString shortcut;  ///< "Ctrl+O", or several separated by " or "
    };

    explicit ShortcutsDialog(const QMenuBar* menuBar, QWidget* parent = nullptr);

    /// The rows the dialog shows.
    static std::vector<Row> rows(const QMenuBar* menuBar);
};

}  // namespace cs::ui
