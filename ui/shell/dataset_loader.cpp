// SPDX-License-Identifier: MIT
#include "ui/shell/dataset_loader.h"

#include <QElapsedTimer>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QLocale>
#include <QtConcurrent/QtConcurrentRun>
#include <atomic>
#include <new>
#include <variant>

#include "compute/backend/backend.h"
#include "compute/core/error.h"
#include "compute/demo/demo_data.h"
#include "compute/io/content_hash.h"
#include "compute/io/sparse_readers.h"
#include "compute/io/text_input.h"

namespace cs::ui {

DatasetLoader::DatasetLoader(QObject* parent) : QObject(parent) {}

DatasetLoader::~DatasetLoader() {
    // Workers hold no pointer to this object, but their watchers do: wait for them so that no
    // finished() arrives at a dead loader. Cancelled first, file loads end within moments.
    cancelRunning();
    for (auto* watcher : findChildren<QFutureWatcherBase*>())
        watcher->waitForFinished();
}

void DatasetLoader::cancelRunning() {
    for (const auto& [generation, control] : m_controls)
        control->cancel();
}

std::uint64_t DatasetLoader::loadFile(const QString& path, io::DataKind kind,
                                      const QString& expectedHash) {
    const QString name = QFileInfo(path).fileName();
    return start(
        tr("Loading %1…").arg(name), path,
        [path, name, kind, expectedHash, viewBackend = m_viewBackend]() -> Outcome {
            Outcome out;
            // Checked here so that a missing file gives the same message whatever the reader.
            const QFileInfo info(path);
            if (!info.exists()) {
                out.error = tr("%1: no such file").arg(path);
                return out;
            }
            if (info.isDir()) {
                out.error = tr("%1: is a folder, not a data file").arg(path);
                return out;
            }
            // Hashed before reading, so that a changed file never replaces the data on screen.
            const QString hash = QString::fromStdString(io::fileContentHash(path.toStdString()));
            if (!expectedHash.isEmpty() && hash != expectedHash) {
                out.error = tr("%1: the file changed since the session was saved (its content hash "
                               "is %2, the session expects %3)")
                                .arg(path, hash, expectedHash);
                return out;
            }
            const std::shared_ptr<Backend> backend =
                viewBackend && io::isSparseFile(path.toStdString()) ? viewBackend() : nullptr;
            const io::ReadScope scope(io::ReadScope::current(),
                                      backend.get());  // the request's job
            io::Dataset data = io::loadDataset(path.toStdString(), kind);
            out.dataset.contentHash = hash;
            out.dataset.name = name;
            out.dataset.path = path;
            out.dataset.kind = kind;
            if (auto* points = std::get_if<PointSet>(&data))
                out.dataset.points = std::make_shared<const PointSet>(std::move(*points));
            else
                out.dataset.series =
                    std::make_shared<const SeriesSet>(std::move(std::get<SeriesSet>(data)));
            return out;
        });
}

void DatasetLoader::setViewBackend(std::function<std::shared_ptr<Backend>()> source) {
    m_viewBackend = std::move(source);
}

std::uint64_t DatasetLoader::loadDemoPoints(std::size_t n) {
    const QString count = QLocale().toString(qulonglong(n));
    return start(tr("Generating %1 demo points…").arg(count), QString(), [n]() -> Outcome {
        Outcome out;
        out.dataset.points = std::make_shared<const PointSet>(demo::makeDemoPoints(n, kDemoSeed));
        out.dataset.name = tr("Demo points");
        out.dataset.kind = io::DataKind::Points;
        return out;
    });
}

std::uint64_t DatasetLoader::loadDemoSeries() {
    return start(tr("Generating demo time series…"), QString(), []() -> Outcome {
        Outcome out;
        out.dataset.series =
            std::make_shared<const SeriesSet>(demo::makeDemoSeries(600, 256, 5, kDemoSeed));
        out.dataset.name = tr("Demo time series");
        out.dataset.kind = io::DataKind::Series;
        return out;
    });
}

std::uint64_t DatasetLoader::start(QString activity, QString path, std::function<Outcome()> job) {
    // The newest request wins: the older ones stop at their next check.
    cancelRunning();
    const std::uint64_t generation = ++m_generation;
    m_activity = std::move(activity);
    // Progress reaches the GUI thread a few times a second, as "Loading x… 40 %".
    auto lastReport = std::make_shared<std::atomic<qint64>>(0);
    auto clock = std::make_shared<QElapsedTimer>();
    clock->start();
    auto control = std::make_shared<JobControl>(
        [this, generation, lastReport, clock](double fraction, std::string_view) {
            const qint64 now = clock->elapsed();
            if (now - lastReport->load() < 100) return;
            lastReport->store(now);
            QMetaObject::invokeMethod(
                this,
                [this, generation, fraction] {
                    if (generation != m_generation || m_activity.isEmpty()) return;
                    QString text = m_activity;
                    const int cut = text.indexOf(QStringLiteral("… "));
                    if (cut >= 0) text.truncate(cut + 1);
                    m_activity = tr("%1 %2 %").arg(text).arg(int(fraction * 100));
                    emit activityChanged(m_activity);
                },
                Qt::QueuedConnection);
        });
    m_controls[generation] = control;
    auto* watcher = new QFutureWatcher<Outcome>(this);
    connect(watcher, &QFutureWatcher<Outcome>::finished, this, [this, watcher, generation, path] {
        Outcome outcome = watcher->result();
        watcher->deleteLater();
        m_controls.erase(generation);
        --m_running;
        if (generation == m_generation) {
            if (outcome.error.isEmpty()) {
                outcome.dataset.generation = generation;
                emit loaded(outcome.dataset);
            } else {
                emit failed(outcome.error, path);
            }
        }
        if (m_running == 0) {
            m_activity.clear();
            emit busyChanged(false);
        }
    });
    if (m_running++ == 0) emit busyChanged(true);
    emit activityChanged(m_activity);
    watcher->setFuture(QtConcurrent::run([job = std::move(job), path, control]() -> Outcome {
        QElapsedTimer timer;
        timer.start();
        Outcome out;
        // Every failure becomes a message: readers throw cs::InputError with file and place;
        // anything else still must not take the GUI down.
        try {
            const io::ReadScope scope(control.get());
            out = job();
        } catch (const Cancelled&) {
            // Superseded or shutting down: nobody waits for this result.
            out.error = tr("%1: loading was cancelled").arg(path);
        } catch (const Error& e) {
            out.error = QString::fromStdString(e.what());
        } catch (const std::bad_alloc&) {
            out.error = path.isEmpty() ? tr("not enough memory for the demo data")
                                       : tr("%1: not enough memory to load it").arg(path);
        } catch (const std::exception& e) {
            out.error = path.isEmpty() ? QString::fromStdString(e.what())
                                       : tr("%1: %2").arg(path, QString::fromStdString(e.what()));
        }
        out.dataset.seconds = timer.nsecsElapsed() / 1e9;
        return out;
    }));
    return generation;
}

}  // namespace cs::ui
