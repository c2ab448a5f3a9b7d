// SPDX-License-Identifier: MIT
#pragma once

#include <QByteArray>
#include <QFile>
#include <QFont>
#include <QString>

namespace cs::ui {

/// A shader from the resources with its #version header: one source serves desktop GL 3.3 core
/// and GLES 3.0, only the header differs. Empty when the resource is missing.
inline QByteArray glslSource(const QString& resource, bool gles) {
    QFile file(resource);
    if (!file.open(QIODevice::ReadOnly)) return {};
    const QByteArray header = gles ? QByteArrayLiteral("#version 300 es\nprecision highp float;\n")
                                   : QByteArrayLiteral("#version 330 core\n");
    return header + file.readAll();
}

/// The font for text a QPainter draws into a GL framebuffer: the widget's font with a style
/// strategy of its own, so that it gets its own font engine. The GL paint engine hangs a glyph
/// cache holding GL objects on the engine it draws with; an engine shared with widgets' text can
/// outlive the application (QtCharts keeps a static text item laid out in the last axis font),
/// and destroying that cache in the exit handlers, with Qt's thread data gone, crashes.
inline QFont glOverlayFont(QFont font) {
    font.setStyleStrategy(QFont::StyleStrategy(font.styleStrategy() | QFont::PreferQuality));
    return font;
}

}  // namespace cs::ui
