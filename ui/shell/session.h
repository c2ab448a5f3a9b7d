// SPDX-License-Identifier: MIT
#pragma once

#include <QByteArray>
#include <QString>
#include <QVariantMap>
#include <QVector3D>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "compute/core/algorithm_descriptor.h"
#include "compute/io/dataset.h"

namespace cs::ui {

/// Where one view's data came from: enough to load the same data again and to tell that a file
/// is still the one it was.
struct SessionData {
    QString path;                            ///< the file (absolute), or empty for demo data
    QString relativePath;                    ///< the file from the session's folder, or empty
    io::DataKind kind = io::DataKind::Auto;  ///< as it was opened (--as)
    QString contentHash;                     ///< io::fileContentHash when it was loaded
    std::size_t demoPoints = 0;              ///< demo points: how many (path empty)
    bool demoSeries = false;                 ///< the demo series (path empty)
};

/// One method's parameters (every one of its descriptor's) and whether it had a result.
struct SessionMethod {
    const AlgorithmDescriptor* descriptor = nullptr;
    ParameterValues values;
    bool hadResult = false;
    /// The items its runs were limited to ("Run on the selection only"), ascending; empty:
    /// all.
    std::vector<std::uint32_t> subset;
    /// The file its result was imported from (absolute), or empty when the result was computed:
    /// a restore imports it again instead of running.
    QString importedFrom;
    QString importedFromRelative;  ///< the same from the session's folder, or empty
};

/// The point view's camera (OrbitCamera's pose, the target in the view's recentred space).
struct SessionCamera {
    QVector3D target;
    float distance = 1.0f;
    float yaw = 0.0f;    ///< degrees
    float pitch = 0.0f;  ///< degrees
};

/// What File ▸ Save session writes and File ▸ Open session restores: the data of each view, every
/// method's parameters, the view states (which view, colour by, point size, up axis, camera; the
/// series view's style, channel, split and feature layer). Plain values: MainWindow fills and
/// applies it; this file reads and writes it as JSON (format version kSessionVersion).
struct Session {
    std::optional<SessionData> points;
    std::optional<SessionData> series;
    bool seriesInFront = false;
    /// The method whose panel tab was in front (AlgorithmDescriptor::name), raised again on
    /// restore; empty: the window's own choice.
    QString frontPanel;
    std::vector<SessionMethod> methods;

    QString colourBy;        ///< a Colour by id ("z", "panel:dbscan"), or empty
    float pointSize = 0.0f;  ///< logical pixels (0: not saved)
    int upAxis = 0;          ///< PointCloudView::UpAxis as int
    std::optional<SessionCamera> camera;

    /// The panels' view options (AlgorithmPanel::viewOptions), by method name.
    std::map<QString, QVariantMap> panelViews;

    int seriesStyle = 0;  ///< SeriesView::Style as int
    int seriesChannel = 0;
    int seriesSplit = 0;  ///< SeriesView::Split as int
    std::size_t featureLayer = 0;

    /// The shared selection (SelectionModel::State): point and series indices, ascending.
    std::vector<std::uint32_t> selectedPoints;
    std::vector<std::uint32_t> selectedSeries;
    bool isolated = false;            ///< Select ▸ Isolate
    std::vector<int> hiddenClusters;  ///< DBSCAN cluster ids hidden from the point view
    /// The GPUs the backend chip chose for the kNN graph and ROCKET (BackendChip::deviceChoice);
    /// empty: the default device.
    std::vector<int> devices;
};

/// Version of the session format written; files of a newer version are refused by name.
inline constexpr int kSessionVersion = 1;
/// The PNG text chunk that carries a session in exported images (QImage::setText).
inline constexpr char kSessionPngKey[] = "clusterscope-session";
/// The file name ending File ▸ Save session suggests.
inline constexpr char kSessionSuffix[] = ".session.json";

/// The session as JSON, indented for a file or compact (for a PNG text chunk); a data path is
/// also written relative to sessionFile's folder (when given), so that a folder moved with its
/// data still opens.
enum class JsonLayout { Indented, Compact };
QByteArray sessionToJson(const Session& session, const QString& sessionFile = {},
                         JsonLayout layout = JsonLayout::Indented);

/// Parses and checks JSON text as a session: its structure, every method against algorithms
/// (known names and parameters, values of the right type in range). nullopt with a complete
/// message in *error naming source ("run.session.json: methods.dbscan.eps: ...").
std::optional<Session> sessionFromJson(const QByteArray& json, const QString& source,
                                       const std::vector<const AlgorithmDescriptor*>& algorithms,
                                       QString* error);

/// Reads a session from a file: a session JSON, or a PNG exported by Clusterscope (the session
/// in its kSessionPngKey text chunk). Relative data paths are resolved; nullopt with the
/// message in *error (the file missing, empty, truncated, corrupt, or a PNG without a session).
std::optional<Session> readSessionFile(const QString& path,
                                       const std::vector<const AlgorithmDescriptor*>& algorithms,
                                       QString* error);

/// True for names File ▸ Open treats as sessions rather than data: .json and .png.
bool isSessionFileName(const QString& path);

}  // namespace cs::ui
