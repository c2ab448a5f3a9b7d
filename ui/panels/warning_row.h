// SPDX-License-Identifier: MIT
#pragma once

#include <QString>
#include <QWidget>

class QLabel;

namespace cs::ui {

/// A panel's warning: a warning icon and a bold, selectable, word-wrapped text, hidden while
/// the text is empty. Object names "<prefix>WarningRow" and "<prefix>Warning" (the label).
/// @code m_warningRow = new WarningRow(QStringLiteral("knn")); m_warningRow->setText(why);
/// @endcode
class WarningRow : public QWidget {
    Q_OBJECT
public:
    explicit WarningRow(const QString& objectNamePrefix, QWidget* parent = nullptr);

    /// Shows text (empty: hides the row).
    void setText(const QString& text);
    QLabel* label() const { return m_label; }

private:
    QLabel* m_label = nullptr;
};

}  // namespace cs::ui
