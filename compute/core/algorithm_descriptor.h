// SPDX-License-Identifier: MIT
#pragma once

// An algorithm's parameters and exports, declared once beside the algorithm. The GUI panel's
// widgets and their validation, the CLI options and their help, the GUI automation keys
// (`--param ALGO.NAME=VALUE`), the stored settings and File ▸ Export are all made from it, so
// that a range, a default or a help line is written in one place.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "compute/core/memory.h"

namespace cs {

/// What the loaded data looks like, as far as parameter ranges care (MinPts ≤ n, k < n, the
/// k-Shape k ≤ series, channel < channels).
struct DataShape {
    std::size_t items = 0;     ///< points of a point set, or series of a series set
    std::size_t dims = 0;      ///< point dimensions (0 for series)
    std::size_t length = 0;    ///< samples per series (0 for points)
    std::size_t channels = 0;  ///< channels per series (0 for points)
    int classes = 0;           ///< distinct class labels (0 when unlabelled)
};

/// Largest random seed a descriptor accepts, the same for every method and front end (the GUI's
/// spin boxes hold an int).
inline constexpr std::int64_t kMaxSeed = 2147483647;

/// One parameter's value: an integer, a number, a flag or a word.
using ParameterValue = std::variant<std::int64_t, double, bool, std::string>;

/// Values by parameter name, for one algorithm.
class ParameterValues {
public:
    void set(const std::string& name, ParameterValue value) { m_values[name] = std::move(value); }
    bool has(std::string_view name) const { return m_values.find(name) != m_values.end(); }
    /// The value of an Int parameter (throws cs::Error when missing or of another type).
    std::int64_t integer(std::string_view name) const;
    /// The value of a Double parameter (an Int value converts).
    double number(std::string_view name) const;
    /// The value of a Bool parameter.
    bool flag(std::string_view name) const;
    /// The value of a Choice parameter.
    const std::string& word(std::string_view name) const;
    const ParameterValue* find(std::string_view name) const;
    /// Same names with the same values (undo compares a panel's values before and after).
    bool operator==(const ParameterValues&) const = default;

private:
    std::map<std::string, ParameterValue, std::less<>> m_values;
};

/// A range narrower than a parameter's own, from the data and the other parameters.
struct ParameterBounds {
    double minimum = 0.0;
    double maximum = 0.0;
    std::string why;  ///< "at most the number of points (397)"
};

/// One tunable parameter of an algorithm.
struct ParameterSpec {
    enum class Type { Int, Double, Bool, Choice };

    std::string name;    ///< key everywhere but the CLI: "minPts" (--param dbscan.minPts)
    std::string option;  ///< CLI long option without the dashes: "min-pts"
    std::string label;   ///< panel label, with an & before its shortcut letter: "&MinPts"
    Type type = Type::Double;
    double minimum = 0.0;              ///< Int/Double: smallest allowed
    double maximum = 0.0;              ///< Int/Double: largest allowed
    std::vector<std::string> choices;  ///< Choice: the accepted words, the default first
    ParameterValue defaultValue;       ///< of the type above
    std::string unit;                  ///< shown after the value ("points"), may be empty
    std::string help;                  ///< one line for --help and tooltips, without the default
    /// Int: a word that stands for the minimum, which then means something other than a number
    /// (k-Shape's channel: "all" for -1); read, written and shown as that word. Empty: none.
    std::string minimumWord;
    int decimals = 3;                    ///< Double: decimals shown in the panel
    bool logScale = false;               ///< Double: a slider moves on a log scale
    bool inPanel = true;                 ///< false: a CLI-only tuning knob (the recall sample)
    bool requiredOnCommandLine = false;  ///< no default suits every data set (DBSCAN's eps)
    /// Narrower bounds that depend on the data and the other values (nullptr: none).
    std::function<std::optional<ParameterBounds>(const DataShape*, const ParameterValues&)> bounds;

    /// text as a value of this parameter; nullopt with the reason in *error ("invalid value
    /// '1e23' for seed: expected an integer in [0, 2147483647]").
    std::optional<ParameterValue> parse(std::string_view text, std::string* error) const;
    /// The value as text that parse() reads back exactly ("0.017", "10", "true", "grid").
    std::string format(const ParameterValue& value) const;
    /// "an integer in [1, 64]", "a number in [0, 1]", "true or false", "one of: auto, grid",
    /// "all or an integer in [0, 65535]" (minimumWord).
    std::string expected() const;
    /// Empty when value is of the right type and inside the parameter's own range and the
    /// bounds for this data and these values; else a sentence saying why not.
    std::string check(const ParameterValue& value, const DataShape* data,
                      const ParameterValues& values) const;
    /// The nearest allowed value (for a stored value out of range for the data now loaded).
    ParameterValue clamp(const ParameterValue& value, const DataShape* data,
                         const ParameterValues& values) const;
};

/// The random seed, declared alike by every method that draws (0 .. kMaxSeed).
ParameterSpec seedParameter(std::uint64_t defaultSeed, std::string help);

/// One thing the user can export after a run: what, and the file name ending that selects it.
struct ExportSpec {
    std::string id;      ///< "labels", "centroids": how the panel names its writer
    std::string what;    ///< "k-Shape labels as CSV"
    std::string suffix;  ///< the name ends in this: "_kshape.csv" (the most specific wins)
};

/// Which kind of data an algorithm runs on.
enum class InputKind { Points, Series };

/// An algorithm, declared once.
struct AlgorithmDescriptor {
    std::string name;   ///< "dbscan": CLI command, --run ALGO, --param ALGO.NAME, settings group
    std::string title;  ///< "DBSCAN": menus, panel, dock
    InputKind input = InputKind::Points;
    std::vector<ParameterSpec> parameters;
    std::vector<ExportSpec> exports;
    /// The host memory one run needs on this data with these values, about (the input
    /// included), what dominates it and what to change (nullptr: not estimated).
    std::function<MemoryNeed(const DataShape&, const ParameterValues&)> memory;

    /// The parameter with this name, or nullptr.
    const ParameterSpec* parameter(std::string_view parameterName) const;
    /// Every parameter at its default.
    ParameterValues defaults() const;
    /// memory(data, values), or an empty need when the method has no estimate.
    MemoryNeed memoryNeed(const DataShape& data, const ParameterValues& values) const {
        return memory ? memory(data, values) : MemoryNeed{};
    }
    /// The problems of a full set of values for this data (nullptr: no data loaded), one
    /// sentence each, empty when the values can run.
    std::vector<std::string> check(const ParameterValues& values, const DataShape* data) const;
    /// "dbscan eps=0.017 minPts=10 path=auto star=false", the line exports start with.
    std::string describe(const ParameterValues& values) const;
};

/// The export of one of these descriptors whose suffix ends path (the longest such suffix, so
/// "_kshape_centroids.npy" beats ".npy"), with its descriptor; nullopt when none matches.
struct ExportMatch {
    const AlgorithmDescriptor* algorithm = nullptr;
    const ExportSpec* spec = nullptr;
};
std::optional<ExportMatch> matchExport(const std::vector<const AlgorithmDescriptor*>& algorithms,
                                       std::string_view path);

}  // namespace cs
