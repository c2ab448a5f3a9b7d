// SPDX-License-Identifier: MIT
#pragma once

#include <QString>
#include <QStringList>
#include <functional>
#include <optional>
#include <vector>

#include "compute/core/algorithm_descriptor.h"

namespace cs::ui {

/// An algorithm the GUI can run: its descriptor (parameters, exports) and the panel's
/// callbacks. Its names, parameters and ranges all come from the descriptor.
/// @code
/// registry.add({&cs::dbscanDescriptor(), setParameter, run, busy, exportTo});
/// @endcode
struct Algorithm {
    const AlgorithmDescriptor* descriptor = nullptr;
    /// Sets one parameter (already parsed and range-checked) in the panel.
    std::function<void(const QString& parameter, const ParameterValue& value)> setParameter;
    /// Starts a run with the panel's current parameters; returns at once (jobs are async).
    std::function<void()> run;
    /// Starts the algorithm's parameter sweep (a job of its own; isBusy covers it); null for
    /// an algorithm without one.
    std::function<void()> sweep;
    /// True while a run is pending or in progress (automation waits for it).
    std::function<bool()> isBusy;
    /// Writes the export with this id (one of the descriptor's) to path; the error or empty.
    std::function<QString(const std::string& exportId, const QString& path)> exportTo;

    QString name() const { return QString::fromStdString(descriptor->name); }
    QString title() const { return QString::fromStdString(descriptor->title); }
};

/// `ALGO.NAME=VALUE`, parsed and checked against the registry.
struct ParameterAssignment {
    QString algorithm;
    QString parameter;
    ParameterValue value;
};

/// The algorithms a main window offers, by name.
class AlgorithmRegistry {
public:
    /// Adds an algorithm; one with the same name is replaced.
    void add(Algorithm algorithm);
    /// The algorithm with this name, or nullptr.
    const Algorithm* find(const QString& name) const;
    /// Names in the order they were added.
    QStringList names() const;
    /// Every descriptor, in the order added.
    std::vector<const AlgorithmDescriptor*> descriptors() const;
    /// "dbscan, knn" or "none yet", for error messages.
    QString availableText() const;
    /// Parses "ALGO.NAME=VALUE"; nullopt with a complete message in *error for bad syntax, an
    /// unknown algorithm or parameter, or a value of the wrong type or out of range.
    std::optional<ParameterAssignment> parseAssignment(const QString& text, QString* error) const;
    /// Empty when name is a registered algorithm, else the message.
    QString checkAlgorithm(const QString& name) const;
    /// True while any algorithm is busy.
    bool isBusy() const;

private:
    std::vector<Algorithm> m_algorithms;
};

/// One line per export of these descriptors, for --help and dialogs: "*_knn.csv  kNN graph
/// edges as CSV (source,target,distance)".
QStringList exportHelpLines(const std::vector<const AlgorithmDescriptor*>& descriptors);

}  // namespace cs::ui
