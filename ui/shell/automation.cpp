// SPDX-License-Identifier: MIT
#include "ui/shell/automation.h"

#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>
#include <QImage>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>
#include <QPushButton>
#include <QRegularExpression>
#include <cmath>
#include <cstdio>
#include <limits>

#include "compute/core/error.h"
#include "compute/core/item_subset.h"
#include "compute/io/writers.h"
#include "ui/panels/dbscan/dbscan_panel.h"
#include "ui/panels/knn/knn_panel.h"
#include "ui/panels/number_spin_box.h"
#include "ui/panels/parameter_store.h"
#include "ui/shell/logger.h"
#include "ui/shell/main_window.h"
#include "ui/shell/point_inspector.h"
#include "ui/shell/selection_model.h"
#include "ui/shell/series_inspector.h"
#include "ui/shell/view_benchmark.h"
#include "ui/views/colour_maps.h"
#include "ui/views/points/point_cloud_view.h"
#include "ui/views/series/series_view.h"

namespace cs::ui {
namespace {

constexpr int kPollMs = 25;
constexpr double kMaxDemoPoints = 200e6;  // makeDemoPoints' own limit

std::optional<std::size_t> parseCount(const QString& text) {
    static const QRegularExpression re(
        QStringLiteral("^\\s*([0-9]+(?:\\.[0-9]+)?)\\s*([kKmM]?)\\s*$"));
    const auto m = re.match(text);
    if (!m.hasMatch()) return std::nullopt;
    double v = m.captured(1).toDouble();
    const QString suffix = m.captured(2).toLower();
    if (suffix == QLatin1String("k")) v *= 1e3;
    if (suffix == QLatin1String("m")) v *= 1e6;
    if (v < 1 || v > kMaxDemoPoints || v != std::floor(v)) return std::nullopt;
    return std::size_t(v);
}

// "what=N" with a non-negative integer N, for --select and --inspect.
std::optional<qint64> parseKeyed(const QString& text, const QString& key) {
    static const QRegularExpression re(QStringLiteral("^\\s*(\\w+)\\s*=\\s*([0-9]{1,18})\\s*$"));
    const auto m = re.match(text);
    if (!m.hasMatch() || m.captured(1) != key) return std::nullopt;
    return m.captured(2).toLongLong();
}

}  // namespace

std::optional<AutomationOptions> Automation::parse(
    const QStringList& arguments, QString* error,
    const std::vector<const AlgorithmDescriptor*>& algorithms) {
    const auto fail = [&](const QString& message) {
        if (error) *error = message;
        return std::nullopt;
    };
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QObject::tr("Clusterscope: GPU visual analytics for point clouds and time series.\n"
                    "Without FILE it opens the built-in demo scene."));
    const QCommandLineOption helpOption({QStringLiteral("h"), QStringLiteral("help")},
                                        QObject::tr("Show this help and exit."));
    const QCommandLineOption versionOption({QStringLiteral("v"), QStringLiteral("version")},
                                           QObject::tr("Show the version and exit."));
    const QCommandLineOption asOption(
        QStringLiteral("as"), QObject::tr("Open FILE as points or series (default: by its name)."),
        QStringLiteral("points|series"));
    const QCommandLineOption demoPointsOption(
        QStringLiteral("demo-points"),
        QObject::tr("Open N demo points instead of a file (e.g. 20000, 100k, 10M)."),
        QStringLiteral("N"));
    const QCommandLineOption demoSeriesOption(QStringLiteral("demo-series"),
                                              QObject::tr("Open the demo time-series set."));
    const QCommandLineOption sessionOption(
        QStringLiteral("session"),
        QObject::tr("Open a saved session (or a PNG exported by Clusterscope) instead of a file: "
                    "its data, parameters, results and views."),
        QStringLiteral("FILE"));
    const QCommandLineOption graphOption(
        QStringLiteral("graph"),
        QObject::tr("Once FILE is loaded, show the kNN graph of its points written by "
                    "clusterscope-cli knn --out (GRAPH.npy, with GRAPH_distances.npy beside it "
                    "when present), e.g. by a run under mpirun, instead of building one."),
        QStringLiteral("GRAPH.npy"));
    const QCommandLineOption saveSessionOption(
        QStringLiteral("save-session"),
        QObject::tr("When everything has run, save the session (data, parameters, views) as "
                    "JSON."),
        QStringLiteral("OUT.json"));
    const QCommandLineOption recoverOption(
        QStringLiteral("recover"),
        QObject::tr("When the last run did not exit cleanly, open its autosaved session (yes) "
                    "or keep it aside (no) instead of asking; with --quit the default is no."),
        QStringLiteral("yes|no"));
    const QCommandLineOption paramOption(
        QStringLiteral("param"), QObject::tr("Set a parameter of an algorithm (repeatable)."),
        QStringLiteral("ALGO.NAME=VALUE"));
    const QCommandLineOption runOption(QStringLiteral("run"),
                                       QObject::tr("Run an algorithm (repeatable, in order)."),
                                       QStringLiteral("ALGO"));
    const QCommandLineOption sweepOption(
        QStringLiteral("sweep"),
        QObject::tr("Sweep an algorithm's parameters in one job (dbscan: eps x MinPts heat "
                    "maps; kshape: k from 2 to 20; rocket: accuracy by number of kernels); with "
                    "--export NAME_sweep.csv the table of the last one is written (repeatable)."),
        QStringLiteral("ALGO"));
    const QCommandLineOption suggestedEpsOption(
        QStringLiteral("use-suggested-eps"),
        QObject::tr("After the runs, press DBSCAN's Use suggested eps (sweeping for a stable eps "
                    "where it is not yet known) and wait until DBSCAN has run with it."));
    const QCommandLineOption screenshotOption(
        QStringLiteral("screenshot"),
        QObject::tr("When everything is loaded, run and drawn, save the window as a PNG."),
        QStringLiteral("OUT.png"));
    const QCommandLineOption measureOption(
        QStringLiteral("measure"),
        QObject::tr("After the runs, measure the point view: frame times while orbiting, "
                    "parameter changes (DBSCAN eps and MinPts, kNN k) to the screen stage by "
                    "stage, and a drag of the eps slider; write them as JSON."),
        QStringLiteral("OUT.json"));
    const QCommandLineOption exportOption(
        QStringLiteral("export"),
        QObject::tr("When everything has run, write what File ▸ Export writes: the view (.png), "
                    "the data (.npy) or a result, by the file name's ending (listed below)."),
        QStringLiteral("OUT"));
    const QCommandLineOption selectOption(
        QStringLiteral("select"),
        QObject::tr("After the runs, select the points of DBSCAN cluster N (numbered as in the "
                    "legend and the labels CSV), or points or series by index (0-based ranges: "
                    "points=0-999,1500); --export NAME_selection.csv writes selected points."),
        QStringLiteral("cluster=N|points=RANGES|series=RANGES"));
    const QCommandLineOption runOnSelectionOption(
        QStringLiteral("run-on-selection"),
        QObject::tr("After --select, run an algorithm on the selected points or series alone "
                    "(Select ▸ Run on the selection only; repeatable, in order)."),
        QStringLiteral("ALGO"));
    const QCommandLineOption inspectOption(
        QStringLiteral("inspect"),
        QObject::tr("After the runs, inspect point I (0-based, among the points kept) or series I "
                    "and print the inspector's content as one JSON line on standard output; for "
                    "a point: index, original_index, coordinates, cluster, role, k_distance and "
                    "the exact k nearest neighbours (k from the kNN parameters); for a series: "
                    "class, split, k-Shape cluster with SBD and shift to its centroid, the "
                    "nearest series by SBD, ROCKET's prediction and the kernels that weigh "
                    "most in it."),
        QStringLiteral("point=I|series=I"));
    const QCommandLineOption sizeOption(QStringLiteral("window-size"),
                                        QObject::tr("Resize the window (e.g. 1400x900)."),
                                        QStringLiteral("WxH"));
    const QCommandLineOption viewOption(
        QStringLiteral("view"),
        QObject::tr("Once the data is loaded, place the point view's camera: front, top, side, "
                    "sensor (where a PCD file's VIEWPOINT puts the sensor) or fit (View ▸ "
                    "Camera)."),
        QStringLiteral("PRESET"));
    const QCommandLineOption rendererOption(
        QStringLiteral("point-renderer"),
        QObject::tr("Who draws the points: automatic (CUDA splats from 1 million points where "
                    "CUDA-GL interop works, else OpenGL), gl (OpenGL points) or splat (CUDA "
                    "splats at any size) (View ▸ Point renderer; not kept for later sessions)."),
        QStringLiteral("RENDERER"));
    const QCommandLineOption colourMapOption(
        QStringLiteral("colour-map"),
        QObject::tr("The map of scalar colourings (coordinates, scalar attributes, kNN "
                    "distance): viridis, magma, diverging or categorical (View ▸ Colour map)."),
        QStringLiteral("NAME"));
    const QCommandLineOption colourRangeOption(
        QStringLiteral("colour-range"),
        QObject::tr("The range of scalar colourings: percentiles pLO:pHI (default p2:p98) or "
                    "values MIN:MAX."),
        QStringLiteral("RANGE"));
    const QCommandLineOption edgesOption(
        QStringLiteral("edges"),
        QObject::tr("After the runs, style the kNN edges, a comma-separated list of: length "
                    "(coloured by length) or points (in their points' colours), over or under "
                    "(the points), map=NAME (the edges' colour map), min=X and max=X (draw "
                    "only edges of these lengths), opacity=X (0 to 1)."),
        QStringLiteral("STYLE"));
    const QCommandLineOption timeoutOption(
        QStringLiteral("timeout"),
        QObject::tr("Give up waiting for loads and runs after this many seconds (default 600)."),
        QStringLiteral("SECONDS"));
    const QCommandLineOption quitOption(
        QStringLiteral("quit"),
        QObject::tr("Exit when done; the exit status is non-zero if anything failed."));
    parser.addOptions(
        {helpOption,           versionOption, asOption,         demoPointsOption, demoSeriesOption,
         sessionOption,        paramOption,   runOption,        sweepOption,      selectOption,
         runOnSelectionOption, inspectOption, screenshotOption, measureOption,    exportOption,
         saveSessionOption,    recoverOption, sizeOption,       viewOption,       colourMapOption,
         colourRangeOption,    edgesOption,   timeoutOption,    quitOption});
    parser.addOption(suggestedEpsOption);
    parser.addOption(rendererOption);
    parser.addOption(graphOption);
    parser.addPositionalArgument(
        QStringLiteral("FILE"),
        QObject::tr("A point cloud (.pcd .ply .xyz .csv .tsv .txt .npy) or time series "
                    "(.ts .arff, UCR *_TRAIN/*_TEST)."),
        QStringLiteral("[FILE]"));

    AutomationOptions o;
    o.helpText = parser.helpText();
    if (!algorithms.empty()) {
        // Both lists come from the algorithms' descriptors, so they are never out of date.
        QStringList lines{QString(), QObject::tr("Parameters (--param ALGO.NAME=VALUE):")};
        for (const AlgorithmDescriptor* d : algorithms)
            for (const ParameterSpec& p : d->parameters) {
                if (!p.inPanel) continue;
                lines << QObject::tr("  %1.%2  %3 (%4; default %5)")
                             .arg(QString::fromStdString(d->name), QString::fromStdString(p.name),
                                  QString::fromStdString(p.help),
                                  QString::fromStdString(p.expected()),
                                  QString::fromStdString(p.format(p.defaultValue)));
            }
        lines << QString() << QObject::tr("Results --export writes, by the name's ending:");
        for (const QString& line : exportHelpLines(algorithms))
            lines << QStringLiteral("  ") + line;
        o.helpText += lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
    }
    if (!parser.parse(arguments)) return fail(parser.errorText());
    o.help = parser.isSet(helpOption);
    o.version = parser.isSet(versionOption);
    if (o.help || o.version) return o;

    const QStringList positional = parser.positionalArguments();
    if (positional.size() > 1)
        return fail(QObject::tr("give at most one FILE (got %1: %2)")
                        .arg(positional.size())
                        .arg(positional.join(QStringLiteral(", "))));
    if (!positional.isEmpty()) o.file = positional.front();
    if (parser.isSet(asOption)) {
        const QString kind = parser.value(asOption);
        if (kind != QLatin1String("points") && kind != QLatin1String("series"))
            return fail(QObject::tr("--as takes 'points' or 'series', not '%1'").arg(kind));
        if (o.file.isEmpty()) return fail(QObject::tr("--as needs a FILE"));
        o.kind = io::parseDataKind(kind.toStdString());
    }
    if (parser.isSet(demoPointsOption)) {
        o.demoPoints = parseCount(parser.value(demoPointsOption));
        if (!o.demoPoints)
            return fail(QObject::tr("--demo-points takes a count from 1 to 200M (e.g. 20000, 100k, "
                                    "10M), not '%1'")
                            .arg(parser.value(demoPointsOption)));
    }
    o.demoSeries = parser.isSet(demoSeriesOption);
    o.session = parser.value(sessionOption);
    const int sources = int(!o.file.isEmpty()) + int(o.demoPoints.has_value()) + int(o.demoSeries) +
                        int(!o.session.isEmpty());
    if (sources > 1)
        return fail(
            QObject::tr("give only one of FILE, --demo-points, --demo-series and --session"));
    if (parser.isSet(graphOption)) {
        o.graph = parser.value(graphOption);
        if (o.file.isEmpty() && !o.demoPoints)
            return fail(QObject::tr("--graph needs the points the graph is of: give their FILE"));
        if (!QFileInfo(o.graph).isFile())
            return fail(QObject::tr("--graph: '%1' is not a file").arg(o.graph));
    }
    if (parser.isSet(recoverOption)) {
        o.recover = parser.value(recoverOption);
        if (o.recover != QLatin1String("yes") && o.recover != QLatin1String("no"))
            return fail(QObject::tr("--recover takes 'yes' or 'no', not '%1'").arg(o.recover));
    }
    if (parser.isSet(selectOption)) {
        const QString value = parser.value(selectOption);
        static const QRegularExpression indexed(QStringLiteral("^\\s*(points|series)\\s*=(.*)$"));
        if (const auto m = indexed.match(value); m.hasMatch()) {
            try {
                auto indices = parseIndexRanges(m.captured(2).toStdString());
                if (indices.empty()) throw Error("no index given");
                (m.captured(1) == QLatin1String("points") ? o.selectPoints : o.selectSeries) =
                    std::move(indices);
            } catch (const Error& e) {
                return fail(QObject::tr("--select %1: %2").arg(value, QString::fromUtf8(e.what())));
            }
        } else {
            const auto id = parseKeyed(value, QStringLiteral("cluster"));
            if (!id || *id > std::numeric_limits<int>::max())
                return fail(QObject::tr("--select takes cluster=N (a cluster id, 0 or more), "
                                        "points=RANGES or series=RANGES (e.g. 0-99,120), not '%1'")
                                .arg(value));
            o.selectCluster = int(*id);
        }
    }
    o.runsOnSelection = parser.values(runOnSelectionOption);
    if (!o.runsOnSelection.isEmpty() && !parser.isSet(selectOption))
        return fail(QObject::tr("--run-on-selection needs --select (what to run on)"));
    if (parser.isSet(inspectOption)) {
        const QString value = parser.value(inspectOption);
        if (const auto point = parseKeyed(value, QStringLiteral("point")))
            o.inspectPoint = std::size_t(*point);
        else if (const auto series = parseKeyed(value, QStringLiteral("series")))
            o.inspectSeries = std::size_t(*series);
        else
            return fail(QObject::tr("--inspect takes point=I or series=I (an index, 0 or more), "
                                    "not '%1'")
                            .arg(value));
    }
    if ((o.selectCluster || o.inspectPoint || !o.selectPoints.empty()) && o.demoSeries)
        return fail(
            QObject::tr("--select and --inspect point=I work on points, not on "
                        "--demo-series"));
    o.params = parser.values(paramOption);
    o.runs = parser.values(runOption);
    o.sweeps = parser.values(sweepOption);
    o.useSuggestedEps = parser.isSet(suggestedEpsOption);
    if (o.useSuggestedEps && o.demoSeries)
        return fail(
            QObject::tr("--use-suggested-eps sets DBSCAN's eps for points, not for "
                        "--demo-series"));
    o.quit = parser.isSet(quitOption);
    // Output files are checked now, not after minutes of loading and running.
    auto checkOutput = [&](const QCommandLineOption& option, QString* path) -> QString {
        if (!parser.isSet(option)) return {};
        *path = parser.value(option);
        const QString flag = QStringLiteral("--") + option.names().constFirst();
        const QFileInfo info(*path);
        const QDir dir = info.absoluteDir();
        if (info.fileName().isEmpty())
            return QObject::tr("%1 needs a file name, not '%2'").arg(flag, *path);
        if (!dir.exists())
            return QObject::tr("cannot write %1 '%2': folder '%3' does not exist")
                .arg(flag.mid(2), *path, dir.path());
        if (!QFileInfo(dir.path()).isWritable())
            return QObject::tr("cannot write %1 '%2': folder '%3' is not writable")
                .arg(flag.mid(2), *path, dir.path());
        return {};
    };
    for (const auto& [option, path] :
         {std::pair{&screenshotOption, &o.screenshot}, std::pair{&measureOption, &o.measure},
          std::pair{&exportOption, &o.exportPath}, std::pair{&saveSessionOption, &o.saveSession}}) {
        const QString problem = checkOutput(*option, path);
        if (!problem.isEmpty()) return fail(problem);
    }
    if (!o.exportPath.isEmpty()) {
        const QString suffix = QFileInfo(o.exportPath).suffix().toLower();
        if (suffix != QLatin1String("csv") && suffix != QLatin1String("npy") &&
            suffix != QLatin1String("png"))
            return fail(QObject::tr("--export writes .csv or .npy (the data, or a result by "
                                    "its name's ending: see --help) or .png (the view), not "
                                    "'%1'")
                            .arg(o.exportPath));
    }
    if (parser.isSet(sizeOption)) {
        static const QRegularExpression re(QStringLiteral("^([0-9]{2,5})[xX]([0-9]{2,5})$"));
        const auto m = re.match(parser.value(sizeOption));
        if (!m.hasMatch())
            return fail(QObject::tr("--window-size takes WIDTHxHEIGHT (e.g. 1400x900), not '%1'")
                            .arg(parser.value(sizeOption)));
        o.windowSize = QSize(m.captured(1).toInt(), m.captured(2).toInt());
    }
    if (parser.isSet(viewOption)) {
        o.view = parser.value(viewOption);
        if (!PointCloudView::viewPresetFromName(o.view))
            return fail(
                QObject::tr("--view takes %1, not '%2'")
                    .arg(PointCloudView::viewPresetNames().join(QStringLiteral(", ")), o.view));
        if (o.demoSeries)
            return fail(
                QObject::tr("--view places the point view's camera; --demo-series has "
                            "no points"));
    }
    if (parser.isSet(rendererOption)) {
        o.pointRenderer = parser.value(rendererOption);
        if (!PointCloudView::rendererFromName(o.pointRenderer))
            return fail(QObject::tr("--point-renderer takes automatic, gl or splat, not '%1'")
                            .arg(o.pointRenderer));
    }
    if (parser.isSet(colourMapOption)) {
        o.colourMap = parser.value(colourMapOption);
        if (!ColourMaps::mapFromName(o.colourMap))
            return fail(QObject::tr("--colour-map takes %1, not '%2'")
                            .arg(ColourMaps::mapNames().join(QStringLiteral(", ")), o.colourMap));
    }
    if (parser.isSet(colourRangeOption)) {
        o.colourRange = parser.value(colourRangeOption);
        ScalarStyle style;
        QString why;
        if (!style.parseRange(o.colourRange, &why))
            return fail(QObject::tr("--colour-range: %1").arg(why));
    }
    if (parser.isSet(edgesOption)) {
        AutomationOptions::Edges e;
        const QString spec = parser.value(edgesOption);
        for (const QString& part : spec.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
            const QString key = part.section(QLatin1Char('='), 0, 0).trimmed().toLower();
            const QString value = part.section(QLatin1Char('='), 1).trimmed();
            const bool hasValue = part.contains(QLatin1Char('='));
            bool ok = !hasValue;
            if (key == QLatin1String("length") || key == QLatin1String("points")) {
                e.byLength = key == QLatin1String("length");
            } else if (key == QLatin1String("over") || key == QLatin1String("under")) {
                e.overPoints = key == QLatin1String("over");
            } else if (key == QLatin1String("map") && hasValue) {
                ok = ColourMaps::mapFromName(value).has_value();
                e.map = value;
            } else if ((key == QLatin1String("min") || key == QLatin1String("max") ||
                        key == QLatin1String("opacity")) &&
                       hasValue) {
                const double v = value.toDouble(&ok);
                ok = ok && std::isfinite(v) && v >= 0.0 &&
                     (key != QLatin1String("opacity") || v <= 1.0);
                (key == QLatin1String("min")   ? e.minLength
                 : key == QLatin1String("max") ? e.maxLength
                                               : e.opacity) = v;
            } else {
                ok = false;
            }
            if (!ok)
                return fail(QObject::tr("--edges: '%1' is not one of length, points, over, under, "
                                        "map=%2, min=LENGTH, max=LENGTH (0 or more), opacity=0..1")
                                .arg(part, ColourMaps::mapNames().join(QLatin1Char('|'))));
        }
        if (e.minLength && e.maxLength && *e.minLength > *e.maxLength)
            return fail(
                QObject::tr("--edges: min=%1 is above max=%2").arg(*e.minLength).arg(*e.maxLength));
        o.edges = e;
    }
    if (parser.isSet(timeoutOption)) {
        bool ok = false;
        o.timeoutSeconds = parser.value(timeoutOption).toInt(&ok);
        if (!ok || o.timeoutSeconds <= 0)
            return fail(QObject::tr("--timeout takes a positive number of seconds, not '%1'")
                            .arg(parser.value(timeoutOption)));
    }
    return o;
}

bool Automation::namesData(const AutomationOptions& options) {
    return !options.file.isEmpty() || options.demoPoints || options.demoSeries ||
           !options.session.isEmpty();
}

QString Automation::validate(const AutomationOptions& options, const AlgorithmRegistry& registry,
                             std::vector<ParameterAssignment>* assignments) {
    for (const QString& text : options.params) {
        QString error;
        auto assignment = registry.parseAssignment(text, &error);
        if (!assignment) return error;
        if (assignments) assignments->push_back(*assignment);
    }
    for (const QString& name : options.runs) {
        const QString error = registry.checkAlgorithm(name);
        if (!error.isEmpty()) return QObject::tr("--run: %1").arg(error);
    }
    for (const QString& name : options.runsOnSelection) {
        const QString error = registry.checkAlgorithm(name);
        if (!error.isEmpty()) return QObject::tr("--run-on-selection: %1").arg(error);
    }
    for (const QString& name : options.sweeps) {
        const QString error = registry.checkAlgorithm(name);
        if (!error.isEmpty()) return QObject::tr("--sweep: %1").arg(error);
        if (!registry.find(name)->sweep) {
            QStringList sweepable;
            for (const QString& other : registry.names())
                if (registry.find(other)->sweep) sweepable << other;
            return QObject::tr("--sweep: %1 has no sweep (algorithms with one: %2)")
                .arg(name, sweepable.join(QStringLiteral(", ")));
        }
    }
    return {};
}

Automation::Automation(MainWindow& window, AutomationOptions options, QObject* parent)
    : QObject(parent), m_window(window), m_options(std::move(options)) {
    m_timer.setInterval(kPollMs);
    connect(&m_timer, &QTimer::timeout, this, &Automation::poll);
    connect(&m_window, &MainWindow::loadFailed, this, [this](const QString& message) {
        if (m_phase == Phase::Loading && m_loadError.isEmpty()) m_loadError = message;
    });
    // A run that fails, or that a panel refuses (bad parameters, too little data), logs an
    // error; the exit status must say so, not only the log.
    connect(&Logger::instance(), &Logger::message, this, [this](const Logger::Entry& entry) {
        if (entry.level == Logger::Level::Error && m_runError.isEmpty() &&
            (m_phase == Phase::Settling || m_phase == Phase::Inspecting ||
             m_phase == Phase::Measuring))
            m_runError = entry.text;
    });
}

void Automation::start() {
    const QString invalid = validate(m_options, m_window.algorithms(), &m_assignments);
    if (!invalid.isEmpty()) {
        fail(invalid, kUsageError);
        // Command-line mistakes end the process whether or not --quit was given: the user
        // asked for something that cannot happen.
        QTimer::singleShot(0, this, [this] { emit finished(m_exitCode); });
        return;
    }
    // Values given on the command line are a script's, not the user's choice: they must not
    // become the next session's settings.
    if (!m_options.params.isEmpty()) ParameterStore::setPersistent(false);
    if (m_options.windowSize.isValid()) m_window.resize(m_options.windowSize);
    m_clock.start();
    m_phase = Phase::Loading;
    if (!m_options.session.isEmpty())
        m_window.openSession(m_options.session);
    else if (!m_options.file.isEmpty())
        m_window.openFile(m_options.file, m_options.kind);
    else if (m_options.demoSeries)
        m_window.openDemoSeries();
    else
        m_window.openDemoPoints(m_options.demoPoints.value_or(kDefaultDemoPoints));
    m_timer.start();
}

void Automation::poll() {
    if (m_clock.elapsed() > qint64(m_options.timeoutSeconds) * 1000) {
        fail(tr("timed out after %1 s waiting for %2")
                 .arg(m_options.timeoutSeconds)
                 .arg(m_phase == Phase::Loading ? tr("the data to load")
                                                : tr("the jobs to finish and the view to draw")));
        finish();
        return;
    }
    switch (m_phase) {
        case Phase::Loading:
            if (m_window.isBusy()) return;
            if (!m_loadError.isEmpty()) {
                // The message itself was logged by the window; this names the consequence.
                fail(tr("stopping: the data could not be loaded"));
                finish();
                return;
            }
            m_phase = Phase::Settling;  // from here on, logged errors are the runs'
            if (!m_options.colourMap.isEmpty() || !m_options.colourRange.isEmpty()) {
                ScalarStyle style = m_window.pointView()->scalarStyle();
                if (!m_options.colourMap.isEmpty())
                    style.map = *ColourMaps::mapFromName(m_options.colourMap);
                if (!m_options.colourRange.isEmpty())
                    style.parseRange(m_options.colourRange, nullptr);
                m_window.pointView()->setScalarStyle(style);
            }
            if (!m_options.pointRenderer.isEmpty()) {
                m_window.setPointRenderer(
                    *PointCloudView::rendererFromName(m_options.pointRenderer), false);
                logInfo(tr("automation: point renderer %1").arg(m_options.pointRenderer));
            }
            if (!m_options.view.isEmpty()) {
                m_window.pointView()->setViewPreset(
                    *PointCloudView::viewPresetFromName(m_options.view));
                logInfo(tr("automation: camera %1").arg(m_options.view.toLower()));
            }
            for (const auto& a : m_assignments) {
                const Algorithm* algorithm = m_window.algorithms().find(a.algorithm);
                algorithm->setParameter(a.parameter, a.value);
                const ParameterSpec* spec =
                    algorithm->descriptor->parameter(a.parameter.toStdString());
                logInfo(tr("automation: %1.%2 = %3")
                            .arg(a.algorithm, a.parameter,
                                 QString::fromStdString(spec->format(a.value))));
            }
            for (const QString& name : m_options.runs) {
                logInfo(tr("automation: running %1").arg(name));
                m_window.algorithms().find(name)->run();
            }
            for (const QString& name : m_options.sweeps) {
                logInfo(tr("automation: sweeping %1").arg(name));
                m_window.algorithms().find(name)->sweep();
            }
            // After the runs: the import cancels a kNN run in flight, so the graph shown is
            // the file's.
            if (!m_options.graph.isEmpty()) {
                logInfo(tr("automation: importing the kNN graph %1").arg(m_options.graph));
                // The file is read on a worker thread (the panel is busy until then, so the
                // settling waits): its errors come later.
                connect(
                    m_window.knnPanel(), &KnnPanel::importFinished, this,
                    [this](const QString& error) {
                        if (!error.isEmpty()) fail(tr("--graph: %1").arg(error));
                    },
                    Qt::SingleShotConnection);
                if (const QString error = m_window.importKnnGraph(m_options.graph);
                    !error.isEmpty())
                    fail(tr("--graph: %1").arg(error));
            }
            return;
        case Phase::Settling:
            if (!m_window.isSettled()) return;
            if (m_options.useSuggestedEps && !useSuggestedEps()) return;
            if (m_options.edges && !m_edgesStyled) {
                // Once the runs are done (a new graph sets its own opacity); then settle again,
                // so that the screenshot shows the new style.
                m_edgesStyled = true;
                styleEdges();
                return;
            }
            // Once: a selection leaves the window unsettled until it is drawn.
            m_phase = Phase::SelectionRuns;
            if (select()) return;
            [[fallthrough]];
        case Phase::SelectionRuns:
            if (!m_window.isSettled()) return;
            if (inspect()) {
                m_phase = Phase::Inspecting;
                return;
            }
            afterSettling();
            return;
        case Phase::Inspecting: {
            if (!m_window.isSettled()) return;
            std::optional<QJsonObject> content;
            if (const auto& p = m_window.pointInspector()->inspection();
                m_options.inspectPoint && p)
                content = p->toJson();
            if (const auto& s = m_window.seriesInspector()->inspection();
                m_options.inspectSeries && s)
                content = s->toJson();
            if (!content) {
                fail(tr("--inspect: the inspector has no result"));
            } else {
                // The one line on standard output: everything else goes to the log (stderr).
                const QByteArray line = QJsonDocument(*content).toJson(QJsonDocument::Compact);
                std::fwrite(line.constData(), 1, std::size_t(line.size()), stdout);
                std::fputc('\n', stdout);
                std::fflush(stdout);
            }
            afterSettling();
            return;
        }
        case Phase::Measuring:
            return;  // the benchmark calls back
        case Phase::Idle:
        case Phase::Done:
            return;
    }
}

bool Automation::select() {
    if (m_options.selectCluster) {
        const QString error = m_window.selectCluster(*m_options.selectCluster);
        if (!error.isEmpty()) fail(tr("--select: %1").arg(error));
    }
    const auto selectIndices = [this](const std::vector<std::uint32_t>& indices, bool series) {
        if (indices.empty()) return true;
        SelectionModel* selection = m_window.selection();
        const std::size_t n = series ? selection->seriesCount() : selection->pointCount();
        if (indices.back() >= n) {
            fail(tr("--select: there is no %1 %2 (%3)")
                     .arg(series ? tr("series") : tr("point"))
                     .arg(indices.back())
                     .arg(n == 0 ? tr("none are loaded")
                                 : tr("they are numbered 0 to %1").arg(n - 1)));
            return false;
        }
        if (series)
            selection->selectSeries(indices);
        else
            selection->selectPoints(indices);
        return true;
    };
    if (!selectIndices(m_options.selectPoints, false) ||
        !selectIndices(m_options.selectSeries, true))
        return false;
    bool started = false;
    for (const QString& name : m_options.runsOnSelection) {
        logInfo(tr("automation: running %1 on the selection").arg(name));
        if (const QString error = m_window.runOnSelection(name); !error.isEmpty())
            fail(tr("--run-on-selection: %1").arg(error));
        else
            started = true;
    }
    return started;
}

bool Automation::inspect() {
    if (m_options.inspectSeries) {
        const auto series = m_window.seriesView()->seriesSet();
        const std::size_t n = series ? series->n : 0;
        if (*m_options.inspectSeries >= n) {
            fail(tr("--inspect: there is no series %1 (%2)")
                     .arg(*m_options.inspectSeries)
                     .arg(n == 0 ? tr("no series are loaded")
                                 : tr("the series are numbered 0 to %1").arg(n - 1)));
            return false;
        }
        m_window.setCurrentView(MainWindow::View::Series);
        m_window.inspectSeries(*m_options.inspectSeries);
        return true;
    }
    if (!m_options.inspectPoint) return false;
    const std::size_t n = m_window.pointView()->pointCount();
    if (*m_options.inspectPoint >= n) {
        fail(tr("--inspect: there is no point %1 (the points are numbered 0 to %2)")
                 .arg(*m_options.inspectPoint)
                 .arg(qint64(n) - 1));
        return false;
    }
    m_window.setCurrentView(MainWindow::View::Points);
    m_window.inspectPoint(*m_options.inspectPoint);
    return true;
}

bool Automation::useSuggestedEps() {
    DbscanPanel* panel = m_window.dbscanPanel();
    const auto ranWithEps = [panel] {
        const auto run = panel->lastRun();
        return run && run->params.eps == panel->params().eps;
    };
    switch (m_suggestStep) {
        case SuggestStep::Press: {
            m_suggestStep = SuggestStep::Check;
            QPushButton* button = panel->suggestButton();
            if (!button->isEnabled()) {
                m_suggestStep = SuggestStep::Done;
                fail(tr("--use-suggested-eps: there is no suggested eps (%1)")
                         .arg(m_window.pointView()->pointCount() == 0
                                  ? tr("no points are loaded")
                                  : tr("the k-distance curve was not computed")));
                return true;
            }
            logInfo(tr("automation: pressing Use suggested eps"));
            button->click();
            return false;
        }
        case SuggestStep::Check:
            // The suggestion sets eps, which re-runs DBSCAN live; where the panel held the run
            // back (a costly one asks first), the automation runs it, as --run would.
            if (!ranWithEps()) {
                m_suggestStep = SuggestStep::Rerun;
                logInfo(tr("automation: running dbscan with the suggested eps"));
                panel->run();
                return false;
            }
            [[fallthrough]];
        case SuggestStep::Rerun: {
            m_suggestStep = SuggestStep::Done;
            const double shown = NumberSpinBox::shown(panel->suggestedEps());
            // The suggestion the press asked for: swept (on the CPU it is the knee until then).
            if (!panel->isSuggestionSwept() || !ranWithEps() ||
                panel->params().eps != float(shown)) {
                fail(tr("--use-suggested-eps: DBSCAN did not run with the suggested eps %1")
                         .arg(panel->suggestedEps(), 0, 'g', 6));
                return true;
            }
            logInfo(tr("automation: DBSCAN ran with the suggested eps %1: %2 clusters")
                        .arg(double(panel->params().eps), 0, 'g', 6)
                        .arg(panel->lastRun()->result.clusterCount));
            return true;
        }
        case SuggestStep::Done:
            return true;
    }
    return true;
}

void Automation::styleEdges() {
    PointCloudView* view = m_window.pointView();
    if (!view->edges()) {
        fail(tr("--edges: there is no kNN graph on screen (add --run knn)"));
        return;
    }
    const AutomationOptions::Edges& e = *m_options.edges;
    if (e.byLength)
        view->setEdgeColouring(*e.byLength ? PointCloudView::EdgeColouring::Length
                                           : PointCloudView::EdgeColouring::Points);
    if (e.overPoints) view->setEdgesOverPoints(*e.overPoints);
    if (e.map) view->setEdgeMap(*ColourMaps::mapFromName(*e.map));
    if (e.minLength || e.maxLength)
        view->setEdgeLengthFilter(e.minLength.value_or(view->edgeLengthMinimum()),
                                  e.maxLength.value_or(view->edgeLengthMaximum()));
    if (e.opacity) view->setEdgeOpacity(float(*e.opacity));
    view->setEdgesVisible(true);
    logInfo(tr("automation: edges styled (%1 edges, opacity %2)")
                .arg(view->edges().edgeCount())
                .arg(double(view->edgeOpacity()), 0, 'f', 2));
}

void Automation::afterSettling() {
    if (!m_options.measure.isEmpty()) {
        startMeasuring();
        return;
    }
    saveScreenshotAndFinish();
}

void Automation::startMeasuring() {
    m_phase = Phase::Measuring;
    logInfo(tr("automation: measuring the point view"));
    auto* benchmark = new ViewBenchmark(m_window, this);
    connect(benchmark, &ViewBenchmark::finished, this, [this, benchmark](const QJsonObject& r) {
        benchmark->deleteLater();
        const QByteArray json = QJsonDocument(r).toJson();
        try {
            io::writeFileBytes(m_options.measure.toStdString(),
                               std::string_view(json.constData(), json.size()));
            logInfo(
                tr("measurements saved: %1").arg(QFileInfo(m_options.measure).absoluteFilePath()));
        } catch (const std::exception& e) {
            fail(tr("cannot write measurements: %1").arg(QString::fromUtf8(e.what())));
        }
        saveScreenshotAndFinish();
    });
    connect(benchmark, &ViewBenchmark::failed, this, [this, benchmark](const QString& message) {
        benchmark->deleteLater();
        fail(tr("measuring failed: %1").arg(message));
        saveScreenshotAndFinish();
    });
    benchmark->start();
}

void Automation::exportResults() {
    if (m_options.exportPath.isEmpty()) return;
    // Success is logged by the export itself.
    const QString error = m_window.exportTo(m_options.exportPath);
    if (!error.isEmpty()) fail(tr("export failed: %1").arg(error));
}

void Automation::saveScreenshotAndFinish() {
    // The screenshot and exports are still written: they show what the failure left.
    if (!m_runError.isEmpty()) fail(tr("a run failed: %1").arg(m_runError));
    exportResults();
    if (!m_options.saveSession.isEmpty()) {
        if (const QString error = m_window.saveSession(m_options.saveSession); !error.isEmpty())
            fail(tr("cannot save the session: %1").arg(error));
    }
    if (!m_options.screenshot.isEmpty()) {
        const QImage image = m_window.grabWindow();
        if (const QString error = MainWindow::savePng(image, m_options.screenshot);
            !error.isEmpty()) {
            fail(tr("cannot write the screenshot: %1").arg(error));
        } else {
            logInfo(tr("screenshot saved: %1 (%2 × %3)")
                        .arg(QFileInfo(m_options.screenshot).absoluteFilePath())
                        .arg(image.width())
                        .arg(image.height()));
        }
    }
    finish();
}

void Automation::fail(const QString& message, int code) {
    logError(message);
    if (m_error.isEmpty()) m_error = message;
    if (m_exitCode == 0) m_exitCode = code;
}

void Automation::finish() {
    m_timer.stop();
    m_phase = Phase::Done;
    if (m_options.quit) emit finished(m_exitCode);
}

}  // namespace cs::ui
