// SPDX-License-Identifier: MIT
#include "ui/panels/parameter_store.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QSettings>
#include <QSpinBox>
#include <atomic>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "ui/panels/number_spin_box.h"
#include "ui/shell/logger.h"

namespace cs::ui {
namespace {

std::atomic<bool> g_persistent{true};

QString qs(const std::string& s) {
    return QString::fromStdString(s);
}

}  // namespace

const ParameterSpec& parameterSpec(const AlgorithmDescriptor& algorithm, const char* name) {
    if (const ParameterSpec* spec = algorithm.parameter(name)) return *spec;
    throw std::logic_error(algorithm.name + " has no parameter " + name);
}

QString ParameterStore::key(const AlgorithmDescriptor& algorithm, const ParameterSpec& spec) {
    return qs(algorithm.name) + QLatin1Char('/') + qs(spec.name);
}

ParameterValue ParameterStore::load(const AlgorithmDescriptor& algorithm,
                                    const ParameterSpec& spec) {
    const QSettings settings;
    const QString k = key(algorithm, spec);
    if (!settings.contains(k)) return spec.defaultValue;
    const QString text = settings.value(k).toString();
    std::string error;
    if (auto value = spec.parse(text.toStdString(), &error)) return *value;
    logWarning(QObject::tr("stored setting %1 = '%2' is not valid (%3): using the default, %4")
                   .arg(k, text, qs(error), qs(spec.format(spec.defaultValue))));
    return spec.defaultValue;
}

void ParameterStore::save(const AlgorithmDescriptor& algorithm, const ParameterSpec& spec,
                          const ParameterValue& value) {
    if (!g_persistent) return;
    QSettings().setValue(key(algorithm, spec), qs(spec.format(value)));
}

void ParameterStore::setPersistent(bool persistent) {
    g_persistent = persistent;
}

QString ParameterStore::toolTip(const ParameterSpec& spec) {
    QString help = qs(spec.help);
    if (!help.isEmpty()) help[0] = help[0].toUpper();
    return QObject::tr("%1 (%2)").arg(help, qs(spec.expected()));
}

void ParameterStore::configure(QSpinBox* spin, const ParameterSpec& spec) {
    constexpr double kIntMax = std::numeric_limits<int>::max();
    spin->setRange(int(std::max(spec.minimum, -kIntMax)), int(std::min(spec.maximum, kIntMax)));
    // Shown at the minimum instead of its number (k-Shape's channel: "all").
    spin->setSpecialValueText(QString::fromStdString(spec.minimumWord));
    spin->setKeyboardTracking(false);
    spin->setToolTip(toolTip(spec));
}

void ParameterStore::configure(QDoubleSpinBox* spin, const ParameterSpec& spec) {
    // A NumberSpinBox shows significant digits, at any scale, instead of decimals.
    if (!qobject_cast<NumberSpinBox*>(spin)) spin->setDecimals(spec.decimals);
    spin->setRange(spec.minimum, spec.maximum);
    spin->setKeyboardTracking(false);
    spin->setToolTip(toolTip(spec));
}

void ParameterStore::configure(QComboBox* box, const ParameterSpec& spec) {
    box->setToolTip(toolTip(spec));
}

void ParameterStore::configure(QCheckBox* box, const ParameterSpec& spec) {
    box->setToolTip(toolTip(spec));
}

}  // namespace cs::ui
