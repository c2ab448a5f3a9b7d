// SPDX-License-Identifier: MIT
#pragma once
// Shared by tst_automation (needs GL) and tst_automation_options (does not): the command-line
// parser as the GUI calls it, and a stand-in algorithm for the registry.

#include <QStringList>
#include <map>
#include <optional>

#include "ui/panels/algorithm_registry.h"
#include "ui/shell/automation.h"

namespace cs::test {

/// Automation::parse() of "clusterscope <args>"; the error goes to *error when given.
inline std::optional<cs::ui::AutomationOptions> parse(const QStringList& args,
                                                      QString* error = nullptr) {
    QString ignored;
    return cs::ui::Automation::parse(QStringList{QStringLiteral("clusterscope")} + args,
                                     error ? error : &ignored);
}

/// A stand-in algorithm: records the values set and the runs, and stays busy for a few polls. The
/// automation knows algorithms only through their descriptors, as it knows the real ones.
struct FakeAlgorithm {
    std::map<QString, cs::ParameterValue> values;
    int runs = 0;
    int busyPolls = 0;  // isBusy() answers true this many more times after a run
    cs::AlgorithmDescriptor descriptor = [] {
        using Type = cs::ParameterSpec::Type;
        cs::AlgorithmDescriptor d;
        d.name = "fake";
        d.title = "Fake";
        d.parameters = {
            {.name = "eps", .type = Type::Double, .minimum = 0, .maximum = 10, .defaultValue = 0.5},
            {.name = "minPts",
             .type = Type::Int,
             .minimum = 1,
             .maximum = 1000,
             .defaultValue = std::int64_t(10)},
            {.name = "metric",
             .type = Type::Choice,
             .choices = {"l2", "cosine"},
             .defaultValue = std::string("l2")},
            {.name = "exact", .type = Type::Bool, .defaultValue = true}};
        return d;
    }();

    cs::ui::Algorithm spec() {
        cs::ui::Algorithm a;
        a.descriptor = &descriptor;
        a.setParameter = [this](const QString& n, const cs::ParameterValue& v) { values[n] = v; };
        a.run = [this] {
            ++runs;
            busyPolls = 5;
        };
        a.isBusy = [this] { return busyPolls > 0 && busyPolls--; };
        return a;
    }
};

}  // namespace cs::test
