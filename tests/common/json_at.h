// SPDX-License-Identifier: MIT
#pragma once

#include <QByteArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonValue>
#include <QStringList>

namespace cs::test {

/// The value at a path of keys in the JSON object that json holds ({"view", "panels", "knn"}),
/// Undefined where a key is missing: for reading back a saved session in one line.
inline QJsonValue jsonAt(const QByteArray& json, const QStringList& path) {
    QJsonValue value = QJsonDocument::fromJson(json).object();
    for (const QString& key : path)
        value = value.toObject().value(key);
    return value;
}

}  // namespace cs::test
