// SPDX-License-Identifier: MIT
#include "ui/shell/autosave.h"

#include <QDir>
#include <QFile>
#include <QLockFile>
#include <QStandardPaths>

#include "ui/panels/algorithm_panel.h"
#include "ui/shell/logger.h"
#include "ui/shell/main_window.h"

namespace cs::ui {
namespace {

constexpr int kAfterRunMs = 1000;

}  // namespace

Autosave::Autosave(MainWindow& window, QString folder, QObject* parent)
    : QObject(parent),
      m_window(window),
      m_folder(folder.isEmpty() ? QStandardPaths::writableLocation(QStandardPaths::AppDataLocation)
                                : std::move(folder)) {
    m_timer.setInterval(kIntervalMs);
    connect(&m_timer, &QTimer::timeout, this, &Autosave::saveNow);
    // A drag streams runs: one write after the burst.
    m_afterRun.setSingleShot(true);
    m_afterRun.setInterval(kAfterRunMs);
    connect(&m_afterRun, &QTimer::timeout, this, &Autosave::saveNow);
    for (auto* panel : m_window.findChildren<AlgorithmPanel*>())
        connect(panel, &AlgorithmPanel::resultChanged, &m_afterRun,
                static_cast<void (QTimer::*)()>(&QTimer::start));
}

Autosave::~Autosave() {
    if (!m_active) return;
    QFile::remove(autosavePath());
    m_marker->unlock();
}

QString Autosave::autosavePath() const {
    return QDir(m_folder).filePath(QStringLiteral("autosave.session.json"));
}

QString Autosave::recoveredPath() const {
    return QDir(m_folder).filePath(QStringLiteral("recovered.session.json"));
}

QString Autosave::start() {
    if (!QDir().mkpath(m_folder)) {
        logWarning(tr("autosave is off: cannot create the folder %1").arg(m_folder));
        return {};
    }
    const QString markerPath = QDir(m_folder).filePath(QStringLiteral("running.lock"));
    const bool markerLeft = QFile::exists(markerPath);
    m_marker = std::make_unique<QLockFile>(markerPath);
    // Stale only when its process is gone, however long a session lasts.
    m_marker->setStaleLockTime(0);
    if (!m_marker->tryLock(0)) {
        logInfo(tr("another Clusterscope is running: it autosaves, this one does not"));
        return {};
    }
    m_active = true;
    QString recovered;
    if (markerLeft && QFile::exists(autosavePath())) {
        QFile::remove(recoveredPath());
        if (QFile::rename(autosavePath(), recoveredPath())) {
            recovered = recoveredPath();
            logWarning(tr("Clusterscope did not exit cleanly last time; its last autosaved "
                          "session is kept in %1")
                           .arg(recovered));
        }
    }
    QFile::remove(autosavePath());
    m_timer.start();
    return recovered;
}

void Autosave::saveNow() {
    if (!m_active) return;
    const Session session = m_window.currentSession();
    if (!session.points && !session.series) return;
    if (const QString error = m_window.saveSession(autosavePath(), false); !error.isEmpty())
        logWarning(tr("autosave failed: %1").arg(error));
}

}  // namespace cs::ui
