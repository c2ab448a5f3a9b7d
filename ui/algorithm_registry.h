// SPDX-License-Identifier: MIT
#pragma once

#include <QString>
#include <QStringList>
#include <QVariant>
#include <functional>
#include <limits>
#include <optional>
#include <vector>

namespace cs::ui {

/// One tunable parameter of an algorithm panel (a slider or a spin box in the GUI, and
/// `--param ALGO.NAME=VALUE` on the command line).
struct AlgorithmParameter {
    enum class Type { Int, Double, Bool, Choice };

    QString name;              ///< as on the command line: "eps", "minPts"
    Type type = Type::Double;  ///< how values are parsed and checked
    double minimum = std::numeric_limits<double>::lowest();  ///< Int/Double: smallest allowed
    double maximum = std::numeric_limits<double>::max();     ///< Int/Double: largest allowed
    QStringList choices;                                     ///< Choice: the accepted words
    QVariant defaultValue;                                   ///< shown in help texts
    QString help;                                            ///< one line for --help and tooltips

    /// text as a value of this parameter, or nullopt with the reason in *error.
    std::optional<QVariant> parse(const QString& text, QString* error) const;
    /// "number in [0, 10]", "integer ≥ 1", "one of: a, b", "true or false".
    QString expected() const;
};

/// An algorithm the GUI can run: its parameters and the panel's callbacks. Later issues add
/// DBSCAN, kNN graph, k-Shape and ROCKET panels, each registering one of these.
/// @code
/// registry.add({"dbscan", "DBSCAN", {{"eps", Type::Double, 0, 1e9}}, setParam, run, busy});
/// @endcode
struct Algorithm {
    QString name;   ///< command-line name: "dbscan"
    QString title;  ///< menu and panel title: "DBSCAN"
    std::vector<AlgorithmParameter> parameters;
    /// Sets one parameter (already parsed and range-checked) in the panel.
    std::function<void(const QString& parameter, const QVariant& value)> setParameter;
    /// Starts a run with the panel's current parameters; returns at once (jobs are async).
    std::function<void()> run;
    /// True while a run is pending or in progress (automation waits for it).
    std::function<bool()> isBusy;

    /// The parameter with this name, or nullptr.
    const AlgorithmParameter* parameter(const QString& parameterName) const;
};

/// `ALGO.NAME=VALUE`, parsed and checked against the registry.
struct ParameterAssignment {
    QString algorithm;
    QString parameter;
    QVariant value;
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

}  // namespace cs::ui
