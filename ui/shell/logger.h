// SPDX-License-Identifier: MIT
#pragma once

#include <QDateTime>
#include <QMutex>
#include <QObject>
#include <QString>
#include <deque>
#include <vector>

namespace cs::ui {

/// The one logging facility of the GUI: every line goes to the log dock (through message())
/// and to stderr as "clusterscope: [level: ]text", so that automation runs leave a trace.
/// Thread-safe: worker threads may log; message() is delivered on the logger's (GUI) thread.
/// @code cs::ui::logError(QStringLiteral("could not open %1").arg(path)); @endcode
class Logger : public QObject {
    Q_OBJECT
public:
    enum class Level { Info, Warning, Error };

    /// One logged line.
    struct Entry {
        QDateTime time;  ///< when it was logged (local time)
        Level level = Level::Info;
        QString text;
    };

    /// The process-wide logger; create it on the GUI thread (the first call does).
    static Logger& instance();

    /// Logs a line (any thread).
    void log(Level level, const QString& text);
    /// The most recent lines (at most kHistory), oldest first, for views created later.
    std::vector<Entry> history() const;
    /// Forgets the history (the dock's "Clear").
    void clear();
    /// Whether lines are copied to stderr (on by default; tests may turn it off).
    void setMirrorToStderr(bool on);

    static constexpr std::size_t kHistory = 5000;

signals:
    /// A new line; emitted on the logger's thread.
    void message(const cs::ui::Logger::Entry& entry);
    /// The history was cleared.
    void cleared();

private:
    Logger() = default;

    mutable QMutex m_mutex;
    std::deque<Entry> m_history;
    bool m_mirror = true;
};

/// Shorthands for Logger::instance().log(...).
void logInfo(const QString& text);
void logWarning(const QString& text);
void logError(const QString& text);

}  // namespace cs::ui

Q_DECLARE_METATYPE(cs::ui::Logger::Entry)
