// SPDX-License-Identifier: MIT
#include "ui/shell/undo_commands.h"

#include <QDateTime>
#include <QObject>
#include <QStringList>

#include "ui/panels/algorithm_panel.h"

namespace cs::ui {
namespace {

qint64 nowMs() {
    return QDateTime::currentMSecsSinceEpoch();
}

}  // namespace

ParameterEdit::ParameterEdit(AlgorithmPanel& panel, ParameterValues before, ParameterValues after)
    : m_panel(panel),
      m_before(std::move(before)),
      m_after(std::move(after)),
      m_editedAtMs(nowMs()) {
    QStringList labels;
    for (const ParameterSpec& spec : panel.descriptor().parameters) {
        const ParameterValue* a = m_before.find(spec.name);
        const ParameterValue* b = m_after.find(spec.name);
        if ((a == nullptr) != (b == nullptr) || (a && *a != *b)) {
            m_changed.push_back(spec.name);
            labels << QString::fromStdString(spec.label).remove(QLatin1Char('&'));
        }
    }
    setText(QObject::tr("%1 %2").arg(QString::fromStdString(panel.descriptor().title),
                                     labels.join(QStringLiteral(", "))));
}

void ParameterEdit::undo() {
    m_panel.applyParameters(m_before, true);
    m_applied = false;
}

void ParameterEdit::redo() {
    if (!m_applied) m_panel.applyParameters(m_after, true);
    m_applied = true;
}

bool ParameterEdit::mergeWith(const QUndoCommand* other) {
    const auto* next = static_cast<const ParameterEdit*>(other);
    if (&next->m_panel != &m_panel || next->m_changed != m_changed ||
        next->m_editedAtMs - m_editedAtMs > kUndoMergeMs)
        return false;
    m_after = next->m_after;
    m_editedAtMs = next->m_editedAtMs;
    // A drag that ends where it started is no step at all.
    setObsolete(m_after == m_before);
    return true;
}

ViewSettingEdit::ViewSettingEdit(const QString& text, int mergeId, QVariant before, QVariant after,
                                 std::function<void(const QVariant&)> apply, bool applied)
    : m_mergeId(mergeId),
      m_before(std::move(before)),
      m_after(std::move(after)),
      m_apply(std::move(apply)),
      m_editedAtMs(nowMs()),
      m_applied(applied) {
    setText(text);
}

void ViewSettingEdit::undo() {
    m_apply(m_before);
    m_applied = false;
}

void ViewSettingEdit::redo() {
    if (!m_applied) m_apply(m_after);
    m_applied = true;
}

bool ViewSettingEdit::mergeWith(const QUndoCommand* other) {
    const auto* next = static_cast<const ViewSettingEdit*>(other);
    if (next->m_editedAtMs - m_editedAtMs > kUndoMergeMs) return false;
    m_after = next->m_after;
    m_editedAtMs = next->m_editedAtMs;
    setObsolete(m_after == m_before);
    return true;
}

namespace {

QString selectionText(const SelectionModel::State& s) {
    if (s.points.empty() && s.series.empty()) return QObject::tr("Clear the selection");
    QStringList parts;
    if (!s.points.empty()) parts << QObject::tr("%n point(s)", nullptr, int(s.points.size()));
    if (!s.series.empty()) parts << QObject::tr("%n series", nullptr, int(s.series.size()));
    return QObject::tr("Select %1").arg(parts.join(QObject::tr(" and ")));
}

}  // namespace

SelectionEdit::SelectionEdit(State before, State after,
                             std::function<void(const SelectionModel::State&)> apply)
    : m_apply(std::move(apply)), m_before(std::move(before)), m_after(std::move(after)) {
    setText(selectionText(*m_after));
}

void SelectionEdit::undo() {
    m_apply(*m_before);
    m_applied = false;
}

void SelectionEdit::redo() {
    if (!m_applied) m_apply(*m_after);
    m_applied = true;
}

RunSubsetEdit::RunSubsetEdit(AlgorithmPanel& panel, std::shared_ptr<const ItemSubset> before,
                             std::shared_ptr<const ItemSubset> after)
    : m_panel(panel), m_before(std::move(before)), m_after(std::move(after)) {
    const QString title = QString::fromStdString(panel.descriptor().title);
    setText(m_after ? QObject::tr("Run %1 on the selection").arg(title)
                    : QObject::tr("Run %1 on all").arg(title));
}

void RunSubsetEdit::undo() {
    m_panel.setRunSubset(m_before);
    m_panel.run();
}

void RunSubsetEdit::redo() {
    m_panel.setRunSubset(m_after);
    m_panel.run();
}

}  // namespace cs::ui
