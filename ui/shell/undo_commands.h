// SPDX-License-Identifier: MIT
#pragma once

#include <QUndoCommand>
#include <QVariant>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "compute/core/algorithm_descriptor.h"
#include "compute/core/item_subset.h"
#include "ui/shell/selection_model.h"

namespace cs::ui {

class AlgorithmPanel;

/// Steps of one setting in quick succession (a slider drag, a held key) merge into one undo step
/// when they come less than this many milliseconds apart.
inline constexpr qint64 kUndoMergeMs = 600;

/// A user's edit of a method's parameters (AlgorithmPanel::parametersEdited), written once for
/// every method: undo sets the values before, redo those after, and either re-runs as an edit
/// does. The edit has happened when it is pushed, so the first redo() does nothing.
/// @code
/// connect(panel, &AlgorithmPanel::parametersEdited, [=](auto& before, auto& after) {
///     stack->push(new ParameterEdit(*panel, before, after));
/// });
/// @endcode
class ParameterEdit : public QUndoCommand {
public:
    ParameterEdit(AlgorithmPanel& panel, ParameterValues before, ParameterValues after);

    void undo() override;
    void redo() override;
    int id() const override { return 1; }
    /// Merges a later edit of the same parameters of the same panel made within kUndoMergeMs.
    bool mergeWith(const QUndoCommand* other) override;

private:
    AlgorithmPanel& m_panel;
    ParameterValues m_before;
    ParameterValues m_after;
    std::vector<std::string> m_changed;  // the parameters whose values differ
    qint64 m_editedAtMs = 0;
    bool m_applied = true;
};

/// A user's change of a view setting (colour by, point size): apply(value) sets it without
/// recording. With applied true the change has happened already (the first redo() does
/// nothing); else redo() makes it. Changes with the same mergeId within kUndoMergeMs merge.
class ViewSettingEdit : public QUndoCommand {
public:
    ViewSettingEdit(const QString& text, int mergeId, QVariant before, QVariant after,
                    std::function<void(const QVariant&)> apply, bool applied);

    void undo() override;
    void redo() override;
    int id() const override { return m_mergeId; }
    bool mergeWith(const QUndoCommand* other) override;

private:
    int m_mergeId;
    QVariant m_before;
    QVariant m_after;
    std::function<void(const QVariant&)> m_apply;
    qint64 m_editedAtMs = 0;
    bool m_applied;
};

/// A change of the shared selection (a box, a lasso, a legend click, invert, clear, a row in a
/// series view): undo puts back the selection before, redo the one after. The change has
/// happened when it is pushed. States are shared between neighbouring steps, not copied.
class SelectionEdit : public QUndoCommand {
public:
    using State = std::shared_ptr<const SelectionModel::State>;
    /// apply(state) sets the selection without recording a step.
    SelectionEdit(State before, State after,
                  std::function<void(const SelectionModel::State&)> apply);

    void undo() override;
    void redo() override;

private:
    std::function<void(const SelectionModel::State&)> m_apply;
    State m_before;
    State m_after;
    bool m_applied = true;
};

/// "Run on the selection only" (or on all again) for one method: redo limits the panel's runs
/// to after (null: all items) and runs, undo goes back to before and runs again, which brings
/// back the result of before (the methods are deterministic for their parameters and seed).
class RunSubsetEdit : public QUndoCommand {
public:
    RunSubsetEdit(AlgorithmPanel& panel, std::shared_ptr<const ItemSubset> before,
                  std::shared_ptr<const ItemSubset> after);

    void undo() override;
    void redo() override;

private:
    AlgorithmPanel& m_panel;
    std::shared_ptr<const ItemSubset> m_before;
    std::shared_ptr<const ItemSubset> m_after;
};

}  // namespace cs::ui
