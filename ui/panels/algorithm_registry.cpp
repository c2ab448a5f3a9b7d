// SPDX-License-Identifier: MIT
#include "ui/panels/algorithm_registry.h"

#include <QObject>

namespace cs::ui {

void AlgorithmRegistry::add(Algorithm algorithm) {
    for (auto& a : m_algorithms)
        if (a.descriptor->name == algorithm.descriptor->name) {
            a = std::move(algorithm);
            return;
        }
    m_algorithms.push_back(std::move(algorithm));
}

const Algorithm* AlgorithmRegistry::find(const QString& name) const {
    for (const auto& a : m_algorithms)
        if (a.name() == name) return &a;
    return nullptr;
}

QStringList AlgorithmRegistry::names() const {
    QStringList out;
    for (const auto& a : m_algorithms)
        out << a.name();
    return out;
}

std::vector<const AlgorithmDescriptor*> AlgorithmRegistry::descriptors() const {
    std::vector<const AlgorithmDescriptor*> out;
    for (const auto& a : m_algorithms)
        out.push_back(a.descriptor);
    return out;
}

QString AlgorithmRegistry::availableText() const {
    return m_algorithms.empty() ? QObject::tr("none yet") : names().join(QStringLiteral(", "));
}

QString AlgorithmRegistry::checkAlgorithm(const QString& name) const {
    if (find(name)) return {};
    return QObject::tr("unknown algorithm '%1' (available: %2)").arg(name, availableText());
}

std::optional<ParameterAssignment> AlgorithmRegistry::parseAssignment(const QString& text,
                                                                      QString* error) const {
    const auto fail = [&](const QString& message) {
        if (error) *error = message;
        return std::nullopt;
    };
    const qsizetype eq = text.indexOf(QLatin1Char('='));
    const qsizetype dot = text.left(eq).indexOf(QLatin1Char('.'));
    if (eq < 0 || dot <= 0 || dot + 1 >= eq)
        return fail(
            QObject::tr("--param '%1': expected ALGO.NAME=VALUE, e.g. dbscan.eps=0.5").arg(text));
    ParameterAssignment out;
    out.algorithm = text.left(dot);
    out.parameter = text.mid(dot + 1, eq - dot - 1);
    const QString valueText = text.mid(eq + 1);
    const Algorithm* algorithm = find(out.algorithm);
    if (!algorithm)
        return fail(QObject::tr("unknown algorithm '%1' in --param %2 (available: %3)")
                        .arg(out.algorithm, text, availableText()));
    const ParameterSpec* spec = algorithm->descriptor->parameter(out.parameter.toStdString());
    if (!spec || !spec->inPanel) {
        QStringList known;
        for (const auto& p : algorithm->descriptor->parameters)
            if (p.inPanel) known << QString::fromStdString(p.name);
        return fail(
            QObject::tr("unknown parameter '%1' of algorithm '%2' (its parameters: %3)")
                .arg(out.parameter, out.algorithm,
                     known.isEmpty() ? QObject::tr("none") : known.join(QStringLiteral(", "))));
    }
    auto value = spec->parse(valueText.toStdString(), nullptr);
    if (!value)
        return fail(QObject::tr("invalid value '%1' for %2.%3: expected %4")
                        .arg(valueText, out.algorithm, out.parameter,
                             QString::fromStdString(spec->expected())));
    out.value = *value;
    return out;
}

bool AlgorithmRegistry::isBusy() const {
    for (const auto& a : m_algorithms)
        if (a.isBusy && a.isBusy()) return true;
    return false;
}

QStringList exportHelpLines(const std::vector<const AlgorithmDescriptor*>& descriptors) {
    QStringList lines;
    for (const AlgorithmDescriptor* d : descriptors)
        for (const ExportSpec& e : d->exports)
            lines << QStringLiteral("*%1  %2").arg(QString::fromStdString(e.suffix),
                                                   QString::fromStdString(e.what));
    return lines;
}

}  // namespace cs::ui
