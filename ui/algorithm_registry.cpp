// SPDX-License-Identifier: MIT
#include "ui/algorithm_registry.h"

#include <QObject>
#include <cmath>

namespace cs::ui {
namespace {

bool bounded(double v) {
    return v > std::numeric_limits<double>::lowest() && v < std::numeric_limits<double>::max();
}

QString num(double v) {
    return QString::number(v, 'g', 10);
}

}  // namespace

QString AlgorithmParameter::expected() const {
    switch (type) {
        case Type::Bool:
            return QObject::tr("true or false");
        case Type::Choice:
            return QObject::tr("one of: %1").arg(choices.join(QStringLiteral(", ")));
        case Type::Int:
        case Type::Double:
            break;
    }
    const QString what = type == Type::Int ? QObject::tr("an integer") : QObject::tr("a number");
    if (bounded(minimum) && bounded(maximum))
        return QObject::tr("%1 in [%2, %3]").arg(what, num(minimum), num(maximum));
    if (bounded(minimum)) return QObject::tr("%1 ≥ %2").arg(what, num(minimum));
    if (bounded(maximum)) return QObject::tr("%1 ≤ %2").arg(what, num(maximum));
    return what;
}

std::optional<QVariant> AlgorithmParameter::parse(const QString& text, QString* error) const {
    const QString t = text.trimmed();
    bool ok = false;
    QVariant value;
    switch (type) {
        case Type::Bool:
            if (t == QLatin1String("true") || t == QLatin1String("1") || t == QLatin1String("on"))
                value = true, ok = true;
            else if (t == QLatin1String("false") || t == QLatin1String("0") ||
                     t == QLatin1String("off"))
                value = false, ok = true;
            break;
        case Type::Choice:
            ok = choices.contains(t);
            value = t;
            break;
        case Type::Int: {
            const qlonglong v = t.toLongLong(&ok);
            ok = ok && v >= minimum && v <= maximum;
            value = v;
            break;
        }
        case Type::Double: {
            const double v = t.toDouble(&ok);
            ok = ok && std::isfinite(v) && v >= minimum && v <= maximum;
            value = v;
            break;
        }
    }
    if (!ok) {
        if (error)
            *error =
                QObject::tr("invalid value '%1' for %2: expected %3").arg(text, name, expected());
        return std::nullopt;
    }
    return value;
}

const AlgorithmParameter* Algorithm::parameter(const QString& parameterName) const {
    for (const auto& p : parameters)
        if (p.name == parameterName) return &p;
    return nullptr;
}

void AlgorithmRegistry::add(Algorithm algorithm) {
    for (auto& a : m_algorithms)
        if (a.name == algorithm.name) {
            a = std::move(algorithm);
            return;
        }
    m_algorithms.push_back(std::move(algorithm));
}

const Algorithm* AlgorithmRegistry::find(const QString& name) const {
    for (const auto& a : m_algorithms)
        if (a.name == name) return &a;
    return nullptr;
}

QStringList AlgorithmRegistry::names() const {
    QStringList out;
    for (const auto& a : m_algorithms)
        out << a.name;
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
    const AlgorithmParameter* parameter = algorithm->parameter(out.parameter);
    if (!parameter) {
        QStringList known;
        for (const auto& p : algorithm->parameters)
            known << p.name;
        return fail(
            QObject::tr("unknown parameter '%1' of algorithm '%2' (its parameters: %3)")
                .arg(out.parameter, out.algorithm,
                     known.isEmpty() ? QObject::tr("none") : known.join(QStringLiteral(", "))));
    }
    auto value = parameter->parse(valueText, nullptr);
    if (!value)
        return fail(QObject::tr("invalid value '%1' for %2.%3: expected %4")
                        .arg(valueText, out.algorithm, out.parameter, parameter->expected()));
    out.value = *value;
    return out;
}

bool AlgorithmRegistry::isBusy() const {
    for (const auto& a : m_algorithms)
        if (a.isBusy && a.isBusy()) return true;
    return false;
}

}  // namespace cs::ui
