// SPDX-License-Identifier: MIT
#include "ui/shell/logger.h"

#include <QCoreApplication>
#include <QMetaObject>
#include <QMutexLocker>
#include <QThread>
#include <cstdio>

namespace cs::ui {

Logger& Logger::instance() {
    // Deliberately leaked: worker threads may still log while static destructors run.
    static Logger* logger = [] {
        qRegisterMetaType<cs::ui::Logger::Entry>();
        auto* created = new Logger;
        // Queued deliveries must land on the GUI thread even if a worker logs first.
        if (auto* app = QCoreApplication::instance()) created->moveToThread(app->thread());
        return created;
    }();
    return *logger;
}

void Logger::log(Level level, const QString& text) {
    Entry entry{QDateTime::currentDateTime(), level, text};
    bool mirror = false;
    {
        QMutexLocker lock(&m_mutex);
        m_history.push_back(entry);
        while (m_history.size() > kHistory)
            m_history.pop_front();
        mirror = m_mirror;
    }
    if (mirror) {
        const char* prefix = level == Level::Error     ? "error: "
                             : level == Level::Warning ? "warning: "
                                                       : "";
        std::fprintf(stderr, "clusterscope: %s%s\n", prefix, text.toLocal8Bit().constData());
        std::fflush(stderr);
    }
    if (QThread::currentThread() == thread()) {
        emit message(entry);
    } else {
        QMetaObject::invokeMethod(
            this, [this, entry] { emit message(entry); }, Qt::QueuedConnection);
    }
}

std::vector<Logger::Entry> Logger::history() const {
    QMutexLocker lock(&m_mutex);
    return {m_history.begin(), m_history.end()};
}

void Logger::clear() {
    {
        QMutexLocker lock(&m_mutex);
        m_history.clear();
    }
    emit cleared();
}

void Logger::setMirrorToStderr(bool on) {
    QMutexLocker lock(&m_mutex);
    m_mirror = on;
}

void logInfo(const QString& text) {
    Logger::instance().log(Logger::Level::Info, text);
}
void logWarning(const QString& text) {
    Logger::instance().log(Logger::Level::Warning, text);
}
void logError(const QString& text) {
    Logger::instance().log(Logger::Level::Error, text);
}

}  // namespace cs::ui
