// SPDX-License-Identifier: MIT
#include "ui/shell/theme.h"

#include <QApplication>
#include <QSettings>
#include <QStyle>
#include <QStyleFactory>

namespace cs::ui {
namespace {

Theme g_theme = Theme::System;
QString g_systemStyle;  // the style the platform chose, restored by Theme::System

QPalette darkPalette() {
    // Neutral greys with a blue accent; contrast ratios kept above 4.5:1 for text.
    QPalette p;
    const QColor window(0x2b, 0x2d, 0x31);
    const QColor base(0x1e, 0x1f, 0x22);
    const QColor text(0xe6, 0xe6, 0xe6);
    const QColor disabledText(0x80, 0x80, 0x80);
    const QColor highlight(0x3d, 0x8e, 0xd8);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, QColor(0x33, 0x35, 0x3a));
    p.setColor(QPalette::ToolTipBase, QColor(0x3a, 0x3c, 0x42));
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::PlaceholderText, QColor(0x9a, 0x9a, 0x9a));
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, window);
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, QColor(0xff, 0x6b, 0x6b));
    p.setColor(QPalette::Light, QColor(0x45, 0x47, 0x4d));
    p.setColor(QPalette::Midlight, QColor(0x3a, 0x3c, 0x42));
    p.setColor(QPalette::Mid, QColor(0x4a, 0x4c, 0x52));
    p.setColor(QPalette::Dark, QColor(0x18, 0x19, 0x1b));
    p.setColor(QPalette::Shadow, QColor(0x0a, 0x0a, 0x0a));
    p.setColor(QPalette::Highlight, highlight);
    p.setColor(QPalette::HighlightedText, QColor(0xff, 0xff, 0xff));
    p.setColor(QPalette::Link, QColor(0x6c, 0xb4, 0xf5));
    p.setColor(QPalette::LinkVisited, QColor(0xb0, 0x8c, 0xf0));
    for (auto role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
        p.setColor(QPalette::Disabled, role, disabledText);
    p.setColor(QPalette::Disabled, QPalette::Highlight, QColor(0x50, 0x50, 0x50));
    return p;
}

}  // namespace

void applyTheme(Theme theme) {
    if (g_systemStyle.isEmpty()) g_systemStyle = QApplication::style()->name();
    g_theme = theme;
    if (theme == Theme::System) {
        QApplication::setStyle(QStyleFactory::create(g_systemStyle));
        QApplication::setPalette(QApplication::style()->standardPalette());
        return;
    }
    // Fusion honours a custom palette everywhere, which native styles do not.
    QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
    QApplication::setPalette(theme == Theme::Dark ? darkPalette()
                                                  : QApplication::style()->standardPalette());
}

Theme currentTheme() {
    return g_theme;
}

QString themeKey(Theme theme) {
    switch (theme) {
        case Theme::Light:
            return QStringLiteral("light");
        case Theme::Dark:
            return QStringLiteral("dark");
        case Theme::System:
            break;
    }
    return QStringLiteral("system");
}

Theme themeFromKey(const QString& key) {
    if (key == QLatin1String("light")) return Theme::Light;
    if (key == QLatin1String("dark")) return Theme::Dark;
    return Theme::System;
}

Theme savedTheme() {
    return themeFromKey(QSettings().value(QStringLiteral("ui/theme")).toString());
}

void saveTheme(Theme theme) {
    QSettings().setValue(QStringLiteral("ui/theme"), themeKey(theme));
}

bool isDark(const QPalette& palette) {
    return palette.color(QPalette::Window).lightnessF() < 0.5;
}

QColor errorColour(const QPalette& palette) {
    return isDark(palette) ? QColor(0xff, 0x7b, 0x72) : QColor(0xc0, 0x1c, 0x28);
}

QColor warningColour(const QPalette& palette) {
    return isDark(palette) ? QColor(0xe3, 0xb3, 0x41) : QColor(0x9a, 0x67, 0x00);
}

}  // namespace cs::ui
