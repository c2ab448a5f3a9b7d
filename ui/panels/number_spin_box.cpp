// SPDX-License-Identifier: MIT
#include "ui/panels/number_spin_box.h"

#include <QLocale>
#include <QRegularExpression>
#include <cmath>

namespace cs::ui {
namespace {

constexpr int kDigits = 6;

QString format(double value) {
    const double magnitude = std::abs(value);
    const bool plain = magnitude == 0.0 || (magnitude >= 1e-4 && magnitude < 1e7);
    return QLocale::c().toString(value, plain ? 'g' : 'e', plain ? kDigits : kDigits - 1);
}

}  // namespace

NumberSpinBox::NumberSpinBox(QWidget* parent) : QDoubleSpinBox(parent) {
    // QDoubleSpinBox rounds every value to its decimals: at the most it allows, that rounding
    // never bites, and the text above decides what is shown.
    setDecimals(323);
    setStepType(QAbstractSpinBox::AdaptiveDecimalStepType);
}

double NumberSpinBox::shown(double value) {
    return QLocale::c().toDouble(format(value));
}

QString NumberSpinBox::textFromValue(double value) const {
    QString text = format(value);
    // 'e' pads to kDigits - 1 decimals: 2.50000e+29 reads better as 2.5e+29.
    static const QRegularExpression trailing(QStringLiteral("\\.?0+(?=e)"));
    text.remove(trailing);
    return text;
}

double NumberSpinBox::valueFromText(const QString& text) const {
    return QLocale::c().toDouble(text.trimmed());
}

QValidator::State NumberSpinBox::validate(QString& text, int&) const {
    const QString t = text.trimmed();
    if (t.isEmpty()) return QValidator::Intermediate;
    bool ok = false;
    const double v = QLocale::c().toDouble(t, &ok);
    if (ok && std::isfinite(v))
        return v >= minimum() && v <= maximum() ? QValidator::Acceptable : QValidator::Intermediate;
    // A number being typed: digits, one point, an exponent with its sign.
    static const QRegularExpression partial(
        QStringLiteral("^[+-]?(\\d*\\.?\\d*)?([eE][+-]?\\d*)?$"));
    return partial.match(t).hasMatch() ? QValidator::Intermediate : QValidator::Invalid;
}

}  // namespace cs::ui
