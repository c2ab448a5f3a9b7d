// SPDX-License-Identifier: MIT
#pragma once

#include <QDoubleSpinBox>

namespace cs::ui {

/// A spin box for a quantity in the data's units, whatever their scale: it shows six
/// significant digits, in exponent notation outside 1e-4 .. 1e7 (3.0485e-31, 2.5e+29), reads
/// either notation back, and steps by a tenth of the value's decade. A QDoubleSpinBox with fixed
/// decimals cannot hold an eps of 3e-31 at all (it becomes 0 or its minimum) and shows 3e29 as
/// thirty digits.
/// @code auto* eps = new NumberSpinBox; eps->setRange(1e-40, 1e40); eps->setValue(3e-31); @endcode
class NumberSpinBox : public QDoubleSpinBox {
    Q_OBJECT
public:
    explicit NumberSpinBox(QWidget* parent = nullptr);

    /// value as the box shows it (six significant digits), so that code setting a computed
    /// value can run exactly what the user sees.
    static double shown(double value);

    QString textFromValue(double value) const override;
    double valueFromText(const QString& text) const override;
    QValidator::State validate(QString& text, int& pos) const override;
};

}  // namespace cs::ui
