// SPDX-License-Identifier: MIT
#pragma once
// Shared by tst_automation (needs GL) and tst_automation_options (does not): the command-line
// parser as the GUI calls it, and a stand-in algorithm for the registry.

#include <QStringList>
#include <QVariantMap>
#include <optional>

#include "ui/algorithm_registry.h"
#include "ui/automation.h"

namespace cs::test {

/// Automation::parse() of "clusterscope <args>"; the error goes to *error when given.
inline std::optional<cs::ui::AutomationOptions> parse(const QStringList& args,
                                                      QString* error = nullptr) {
    QString ignored;
    return cs::ui::Automation::parse(QStringList{QStringLiteral("clusterscope")} + args,
                                     error ? error : &ignored);
}

/// A stand-in algorithm: records the values set and the runs, and stays busy for a few polls.
struct FakeAlgorithm {
    QVariantMap values;
    int runs = 0;
    int busyPolls = 0;  // isBusy() answers true this many more times after a run

    cs::ui::Algorithm spec() {
        using Type = cs::ui::AlgorithmParameter::Type;
        cs::ui::Algorithm a;
        a.name = QStringLiteral("fake");
        a.title = QStringLiteral("Fake");
        a.parameters = {{QStringLiteral("eps"), Type::Double, 0.0, 10.0, {}, 0.5, {}},
                        {QStringLiteral("minPts"), Type::Int, 1, 1000, {}, 10, {}},
                        {QStringLiteral("metric"), Type::Choice, 0, 0, {"l2", "cosine"}, {}, {}},
                        {QStringLiteral("exact"), Type::Bool, 0, 1, {}, true, {}}};
        a.setParameter = [this](const QString& n, const QVariant& v) { values[n] = v; };
        a.run = [this] {
            ++runs;
            busyPolls = 5;
        };
        a.isBusy = [this] { return busyPolls > 0 && busyPolls--; };
        return a;
    }
};

}  // namespace cs::test
