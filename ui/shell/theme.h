// SPDX-License-Identifier: MIT
#pragma once

#include <QColor>
#include <QPalette>
#include <QString>

namespace cs::ui {

/// The application's colour theme, persisted in QSettings ("ui/theme").
/// The theme is the one place that decides colours: widgets take theirs from the palette, and
/// the few semantic colours a palette lacks (errors, warnings) come from the functions below,
/// derived from the palette so that they read on light and dark backgrounds alike.
enum class Theme { System, Light, Dark };

/// Sets the application style and palette for theme (System: the platform's own).
void applyTheme(Theme theme);
/// The theme last applied (System before any call).
Theme currentTheme();
/// "system", "light", "dark", and back (unknown text gives System).
QString themeKey(Theme theme);
Theme themeFromKey(const QString& key);
/// The theme saved in QSettings.
Theme savedTheme();
/// Saves theme to QSettings.
void saveTheme(Theme theme);

/// True when the palette's window colour is dark.
bool isDark(const QPalette& palette);
/// Text colour for errors / warnings on palette's base colour.
QColor errorColour(const QPalette& palette);
QColor warningColour(const QPalette& palette);

}  // namespace cs::ui
