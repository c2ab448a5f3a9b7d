// SPDX-License-Identifier: MIT
#include "ui/shell/log_dock.h"

#include <QAction>
#include <QEvent>
#include <QMenu>
#include <QPlainTextEdit>
#include <QScrollBar>

#include "ui/shell/theme.h"

namespace cs::ui {

LogDock::LogDock(QWidget* parent) : QDockWidget(tr("Log"), parent) {
    setObjectName(QStringLiteral("logDock"));
    m_text = new QPlainTextEdit(this);
    m_text->setReadOnly(true);
    m_text->setMaximumBlockCount(int(Logger::kHistory));
    m_text->setLineWrapMode(QPlainTextEdit::WidgetWidth);
    m_text->setContextMenuPolicy(Qt::CustomContextMenu);
    QFont mono(QStringLiteral("monospace"));
    mono.setStyleHint(QFont::TypeWriter);
    if (font().pointSizeF() > 0) mono.setPointSizeF(font().pointSizeF() * 0.95);
    m_text->setFont(mono);
    setWidget(m_text);

    connect(m_text, &QWidget::customContextMenuRequested, this, [this](const QPoint& pos) {
        std::unique_ptr<QMenu> menu(m_text->createStandardContextMenu());
        menu->addSeparator();
        menu->addAction(tr("Clear log"), [] { Logger::instance().clear(); });
        menu->exec(m_text->mapToGlobal(pos));
    });
    m_quiet.setSingleShot(true);
    m_quiet.setInterval(kQuietMs);
    m_maxWait.setSingleShot(true);
    m_maxWait.setInterval(kMaxWaitMs);
    connect(&m_quiet, &QTimer::timeout, this, &LogDock::writePending);
    connect(&m_maxWait, &QTimer::timeout, this, &LogDock::writePending);
    auto& logger = Logger::instance();
    // Queued: a line logged while a result is shown is taken after the point view's frame with
    // that result (posted before it), not in it.
    connect(&logger, &Logger::message, this, &LogDock::take, Qt::QueuedConnection);
    connect(
        &logger, &Logger::cleared, this,
        [this] {
            m_pending.clear();
            m_text->clear();
        },
        Qt::QueuedConnection);
    rebuild();
}

QString LogDock::plainText() const {
    return m_text->toPlainText();
}

void LogDock::take(const Logger::Entry& entry) {
    const bool burst = m_quiet.isActive();
    m_pending.push_back(entry);
    if (!burst || entry.level != Logger::Level::Info)
        writePending();
    else if (!m_maxWait.isActive())
        m_maxWait.start();
    m_quiet.start();
}

void LogDock::writePending() {
    m_maxWait.stop();
    for (const Logger::Entry& entry : m_pending)
        write(entry);
    m_pending.clear();
}

void LogDock::write(const Logger::Entry& entry) {
    const QPalette pal = palette();
    const QString time = entry.time.toString(QStringLiteral("HH:mm:ss.zzz"));
    QString text = entry.text.toHtmlEscaped();
    QString level;
    QColor colour = pal.color(QPalette::Text);
    if (entry.level == Logger::Level::Error) {
        level = tr("error: ");
        colour = errorColour(pal);
    } else if (entry.level == Logger::Level::Warning) {
        level = tr("warning: ");
        colour = warningColour(pal);
    }
    QScrollBar* bar = m_text->verticalScrollBar();
    const bool atEnd = bar->value() == bar->maximum();
    m_text->appendHtml(
        QStringLiteral("<span style=\"color:%1\">%2</span> "
                       "<span style=\"color:%3\">%4%5</span>")
            .arg(pal.color(QPalette::PlaceholderText).name(), time, colour.name(), level, text));
    if (atEnd) bar->setValue(bar->maximum());
}

void LogDock::rebuild() {
    // The history holds the lines not written yet too.
    m_pending.clear();
    m_quiet.stop();
    m_maxWait.stop();
    m_text->clear();
    for (const auto& entry : Logger::instance().history())
        write(entry);
}

void LogDock::changeEvent(QEvent* event) {
    // The colours are baked into the lines, so a new theme redraws them all.
    if (event->type() == QEvent::PaletteChange) rebuild();
    QDockWidget::changeEvent(event);
}

}  // namespace cs::ui
