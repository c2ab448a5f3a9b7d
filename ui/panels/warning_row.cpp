// SPDX-License-Identifier: MIT
#include "ui/panels/warning_row.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QStyle>

namespace cs::ui {

WarningRow::WarningRow(const QString& objectNamePrefix, QWidget* parent) : QWidget(parent) {
    setObjectName(objectNamePrefix + QStringLiteral("WarningRow"));
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 2, 0, 2);
    auto* icon = new QLabel;
    const int iconSize = style()->pixelMetric(QStyle::PM_SmallIconSize);
    icon->setPixmap(style()->standardIcon(QStyle::SP_MessageBoxWarning).pixmap(iconSize, iconSize));
    icon->setAlignment(Qt::AlignTop | Qt::AlignHCenter);
    icon->setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Preferred);
    m_label = new QLabel;
    m_label->setObjectName(objectNamePrefix + QStringLiteral("Warning"));
    m_label->setWordWrap(true);
    m_label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QFont font = m_label->font();
    font.setBold(true);
    m_label->setFont(font);
    layout->addWidget(icon, 0, Qt::AlignTop);
    layout->addWidget(m_label, 1);
    hide();
}

void WarningRow::setText(const QString& text) {
    m_label->setText(text);
    setVisible(!text.isEmpty());
}

}  // namespace cs::ui
