// SPDX-License-Identifier: MIT
#pragma once

#include <QByteArray>
#include <QFile>
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

}  // namespace cs::ui
