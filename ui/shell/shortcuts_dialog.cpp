// SPDX-License-Identifier: MIT
#include "ui/shell/shortcuts_dialog.h"

#include <QAction>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QMenu>
#include <QMenuBar>
#include <QRegularExpression>
#include <QTableWidget>
#include <QVBoxLayout>

namespace cs::ui {
namespace {

QString plainText(QString text) {
    // Menu texts carry mnemonics ("&Open…") that do not belong in a table.
    text.remove(QRegularExpression(QStringLiteral("&(?!&)")));
    return text.replace(QStringLiteral("&&"), QStringLiteral("&"));
}

void collect(const QMenu* menu, const QString& section, std::vector<ShortcutsDialog::Row>& out) {
    for (QAction* action : menu->actions()) {
        if (action->isSeparator()) continue;
        if (QMenu* sub = action->menu()) {
            collect(sub, section + QStringLiteral(" ▸ ") + plainText(sub->title()), out);
            continue;
        }
        const auto keys = action->shortcuts();
        if (keys.isEmpty()) continue;
        QStringList texts;
        for (const auto& k : keys)
            texts << k.toString(QKeySequence::NativeText);
        out.push_back({section, plainText(action->text()), texts.join(QObject::tr(" or "))});
    }
}

}  // namespace

std::vector<ShortcutsDialog::Row> ShortcutsDialog::rows(const QMenuBar* menuBar) {
    std::vector<Row> out;
    if (menuBar)
        for (QAction* action : menuBar->actions())
            if (QMenu* menu = action->menu()) collect(menu, plainText(menu->title()), out);
    const QString view = tr("Point view");
    out.push_back({view, tr("Orbit"), tr("Left drag, or arrow keys")});
    out.push_back({view, tr("Pan"), tr("Right or middle drag, or Shift+left drag")});
    out.push_back({view, tr("Zoom toward the cursor"), tr("Mouse wheel")});
    out.push_back({view, tr("Inspect a point"), tr("Left click (rest the cursor: a tooltip)")});
    out.push_back(
        {view, tr("Select in a box or lasso"),
         tr("Ctrl+left drag (with Shift: add, with Alt: remove); Select ▸ Lasso instead of box")});
    out.push_back({view, tr("Select a cluster"),
                   tr("Click its legend row (Shift: add, Ctrl: remove, Alt: hide or show)")});
    out.push_back({tr("Series view"), tr("Inspect a series"),
                   tr("Click a line, a heat-map row or a cluster chart's member")});
    out.push_back({tr("Series view"), tr("Select or deselect a series"),
                   tr("Ctrl+click it (the heat map highlights selected rows)")});
    return out;
}

ShortcutsDialog::ShortcutsDialog(const QMenuBar* menuBar, QWidget* parent) : QDialog(parent) {
    setWindowTitle(tr("Keyboard shortcuts"));
    const auto all = rows(menuBar);
    auto* table = new QTableWidget(int(all.size()), 3, this);
    table->setHorizontalHeaderLabels({tr("Where"), tr("Action"), tr("Keys")});
    table->verticalHeader()->hide();
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->setSelectionMode(QAbstractItemView::NoSelection);
    table->setAlternatingRowColors(true);
    table->setShowGrid(false);
    for (int r = 0; r < int(all.size()); ++r) {
        table->setItem(r, 0, new QTableWidgetItem(all[r].section));
        table->setItem(r, 1, new QTableWidgetItem(all[r].action));
        table->setItem(r, 2, new QTableWidgetItem(all[r].shortcut));
    }
    table->resizeColumnsToContents();
    table->horizontalHeader()->setStretchLastSection(true);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(table);
    layout->addWidget(buttons);
    resize(620, 560);
}

}  // namespace cs::ui
