// SPDX-License-Identifier: MIT
#pragma once

#include <QString>

#include "compute/core/algorithm_descriptor.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QSpinBox;

namespace cs::ui {

/// The parameters a user chose, kept between sessions in QSettings ("ALGO/NAME" = the value as
/// the descriptor formats it) and read back through the descriptor: a stored value that is not
/// a valid value any more (another version, a hand-edited file) is replaced by the default with
/// a log line, never used blind. Values set from the command line (`--param`) are not the
/// user's choice: the automation turns persistence off, and nothing is written.
class ParameterStore {
public:
    /// The stored value of spec, checked against its own range, or its default.
    static ParameterValue load(const AlgorithmDescriptor& algorithm, const ParameterSpec& spec);
    /// Stores value as the user's choice (nothing while persistence is off).
    static void save(const AlgorithmDescriptor& algorithm, const ParameterSpec& spec,
                     const ParameterValue& value);
    /// Whether save() writes (true by default).
    static void setPersistent(bool persistent);

    /// Range, decimals, tooltip and keyboard tracking of a widget for spec.
    static void configure(QSpinBox* spin, const ParameterSpec& spec);
    static void configure(QDoubleSpinBox* spin, const ParameterSpec& spec);
    static void configure(QComboBox* box, const ParameterSpec& spec);
    static void configure(QCheckBox* box, const ParameterSpec& spec);
    /// "help (an integer in [1, 64])", for tooltips.
    static QString toolTip(const ParameterSpec& spec);
    /// The settings key of spec: "knn/leafSize".
    static QString key(const AlgorithmDescriptor& algorithm, const ParameterSpec& spec);
};

/// The descriptor's parameter spec by name; the name must exist (a programming error if not).
const ParameterSpec& parameterSpec(const AlgorithmDescriptor& algorithm, const char* name);

}  // namespace cs::ui
