// SPDX-License-Identifier: MIT
#pragma once

#include <QObject>
#include <QString>
#include <QTimer>
#include <memory>

class QLockFile;

namespace cs::ui {

class MainWindow;

/// Keeps the session on screen in the app's data location, so that a crash loses little: it is
/// written every kIntervalMs and after each finished run (a second after the last of a burst),
/// beside a marker (a lock file) that only a clean exit removes. At start-up a marker left by a
/// process that is gone means the previous run did not exit cleanly: start() then hands back its
/// last autosave, moved aside so that this run's autosaves cannot overwrite it. A second
/// instance running at the same time finds the marker held and autosaves nothing.
/// @code
/// Autosave autosave(window);
/// if (const QString crashed = autosave.start(); !crashed.isEmpty()) window.openSession(crashed);
/// @endcode
class Autosave : public QObject {
    Q_OBJECT
public:
    /// folder: where the autosave and the marker live (default: QStandardPaths' AppDataLocation).
    explicit Autosave(MainWindow& window, QString folder = {}, QObject* parent = nullptr);
    /// A clean exit: removes the autosave and the marker.
    ~Autosave() override;

    /// Takes the marker and starts autosaving. Returns the session a run that did not exit
    /// cleanly left (recoveredPath()), or empty when there is none.
    QString start();
    /// Writes the session now (nothing when no data is loaded or another instance autosaves).
    void saveNow();

    QString autosavePath() const;
    /// Where start() puts the autosave of a run that crashed.
    QString recoveredPath() const;
    /// False until start(), and when another running instance holds the marker.
    bool isActive() const { return m_active; }

    /// Time between periodic autosaves.
    static constexpr int kIntervalMs = 120'000;

private:
    MainWindow& m_window;
    QString m_folder;
    std::unique_ptr<QLockFile> m_marker;
    QTimer m_timer;
    QTimer m_afterRun;
    bool m_active = false;
};

}  // namespace cs::ui
