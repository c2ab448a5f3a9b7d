// SPDX-License-Identifier: MIT
#include "ui/shell/session.h"

#include "compute/backend/device_set.h"
#include "compute/core/error.h"
#include "compute/core/item_subset.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QImageReader>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QObject>
#include <cmath>
#include <type_traits>
#include <variant>

namespace cs::ui {
namespace {

const QString kFormat = QStringLiteral("clusterscope-session");

// Names in the file for the views' enums, in the enums' order (PointCloudView::UpAxis,
// SeriesView::Style, SeriesView::Split): a file says "+z", not 2.
const QStringList kUpAxes{QStringLiteral("+y"), QStringLiteral("-y"), QStringLiteral("+z"),
                          QStringLiteral("-z")};
const QStringList kStyles{QStringLiteral("lines"), QStringLiteral("heatmap"),
                          QStringLiteral("features"), QStringLiteral("clusters")};
const QStringList kSplits{QStringLiteral("all"), QStringLiteral("train"), QStringLiteral("test")};

QJsonValue toJson(const ParameterValue& value) {
    return std::visit(
        [](const auto& v) -> QJsonValue {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, std::string>)
                return QString::fromStdString(v);
            else if constexpr (std::is_same_v<T, std::int64_t>)
                return qint64(v);
            else
                return v;
        },
        value);
}

// path from sessionFile's folder, for a folder moved with its files (readSessionFile).
QString besideSession(const QString& sessionFile, const QString& path) {
    return QFileInfo(sessionFile).absoluteDir().relativeFilePath(path);
}

QJsonObject dataToJson(const SessionData& data, const QString& sessionFile) {
    QJsonObject o;
    if (data.demoSeries) {
        o[QStringLiteral("demoSeries")] = true;
    } else if (data.path.isEmpty()) {
        o[QStringLiteral("demoPoints")] = qint64(data.demoPoints);
    } else {
        o[QStringLiteral("path")] = data.path;
        if (!sessionFile.isEmpty())
            o[QStringLiteral("relativePath")] = besideSession(sessionFile, data.path);
        const auto kind = io::toString(data.kind);
        o[QStringLiteral("as")] = QString::fromUtf8(kind.data(), qsizetype(kind.size()));
        o[QStringLiteral("contentHash")] = data.contentHash;
    }
    return o;
}

// Reads the parts of a session, each failure a message with where in the file it is; the
// first one stops the reading.
class Reader {
public:
    Reader(QString source, const std::vector<const AlgorithmDescriptor*>& algorithms)
        : m_source(std::move(source)), m_algorithms(algorithms) {}

    std::optional<Session> read(const QByteArray& json) {
        if (json.trimmed().isEmpty()) return fail({}, QObject::tr("the file is empty"));
        QJsonParseError parseError;
        const QJsonDocument doc = QJsonDocument::fromJson(json, &parseError);
        if (parseError.error != QJsonParseError::NoError)
            return fail({}, QObject::tr("not valid JSON at byte %1: %2 (the file is truncated or "
                                        "corrupt)")
                                .arg(parseError.offset)
                                .arg(parseError.errorString()));
        if (!doc.isObject()) return fail({}, QObject::tr("not a Clusterscope session (no object)"));
        const QJsonObject root = doc.object();
        if (root.value(QStringLiteral("format")).toString() != kFormat)
            return fail(
                {},
                QObject::tr("not a Clusterscope session (\"format\" is not \"%1\")").arg(kFormat));
        const QJsonValue version = root.value(QStringLiteral("version"));
        if (!version.isDouble())
            return fail(QStringLiteral("version"), QObject::tr("missing or not a number"));
        if (version.toInt() > kSessionVersion || version.toInt() < 1)
            return fail(QStringLiteral("version"),
                        QObject::tr("version %1 is not one this build reads (1 to %2): save it "
                                    "again with a newer Clusterscope")
                            .arg(version.toInt())
                            .arg(kSessionVersion));
        Session s;
        const QJsonObject data = object(root, QStringLiteral("data"), QStringLiteral("data"));
        if (m_failed) return std::nullopt;
        for (const auto& [key, slot] : {std::pair{QStringLiteral("points"), &s.points},
                                        std::pair{QStringLiteral("series"), &s.series}}) {
            if (!data.contains(key)) continue;
            *slot = readData(data.value(key), QStringLiteral("data.") + key, key);
            if (m_failed) return std::nullopt;
        }
        if (!s.points && !s.series)
            return fail(QStringLiteral("data"), QObject::tr("names no data (points or series)"));
        readView(root, s);
        if (m_failed) return std::nullopt;
        readMethods(root, s);
        if (m_failed) return std::nullopt;
        if (const auto d = member(root, QStringLiteral("devices"), {}, QJsonValue::String)) {
            // Checked against the machine when applied: a session may come from another one.
            try {
                s.devices = parseDeviceList(d->toString().toStdString(), -1, true);
            } catch (const Error& e) {
                return fail(QStringLiteral("devices"), QString::fromUtf8(e.what()));
            }
        }
        if (m_failed) return std::nullopt;
        return s;
    }

    std::optional<Session> fail(const QString& where, const QString& problem) {
        if (!m_failed) {
            m_failed = true;
            m_error = where.isEmpty() ? QObject::tr("%1: %2").arg(m_source, problem)
                                      : QObject::tr("%1: %2: %3").arg(m_source, where, problem);
        }
        return std::nullopt;
    }

    QString error() const { return m_error; }

private:
    QJsonObject object(const QJsonObject& parent, const QString& key, const QString& where) {
        const QJsonValue v = parent.value(key);
        if (!v.isObject()) fail(where, QObject::tr("missing or not an object"));
        return v.toObject();
    }

    // An optional member: nullopt (and no failure) when absent, a failure when of another type.
    std::optional<QJsonValue> member(const QJsonObject& o, const QString& key, const QString& where,
                                     QJsonValue::Type type) {
        if (!o.contains(key)) return std::nullopt;
        const QJsonValue v = o.value(key);
        if (v.type() != type) {
            const char* expected = type == QJsonValue::String   ? "a string"
                                   : type == QJsonValue::Double ? "a number"
                                   : type == QJsonValue::Bool   ? "true or false"
                                   : type == QJsonValue::Array  ? "an array"
                                                                : "an object";
            fail(where + QLatin1Char('.') + key, QObject::tr("expected %1").arg(expected));
            return std::nullopt;
        }
        return v;
    }

    int choice(const QJsonObject& o, const QString& key, const QString& where,
               const QStringList& names) {
        const auto v = member(o, key, where, QJsonValue::String);
        if (!v) return 0;
        const int index = int(names.indexOf(v->toString()));
        if (index < 0)
            fail(where + QLatin1Char('.') + key,
                 QObject::tr("'%1' is not one of: %2")
                     .arg(v->toString(), names.join(QStringLiteral(", "))));
        return std::max(index, 0);
    }

    std::optional<SessionData> readData(const QJsonValue& value, const QString& where,
                                        const QString& kind) {
        if (!value.isObject()) {
            fail(where, QObject::tr("expected an object"));
            return std::nullopt;
        }
        const QJsonObject o = value.toObject();
        SessionData d;
        if (kind == QLatin1String("points")) {
            if (const auto n = member(o, QStringLiteral("demoPoints"), where, QJsonValue::Double)) {
                const double count = n->toDouble();
                if (!(count >= 1 && count <= 200e6 && count == std::floor(count))) {
                    fail(where + QStringLiteral(".demoPoints"),
                         QObject::tr("expected a count from 1 to 200000000"));
                    return std::nullopt;
                }
                d.demoPoints = std::size_t(count);
                return d;
            }
        } else if (const auto demo =
                       member(o, QStringLiteral("demoSeries"), where, QJsonValue::Bool);
                   demo && demo->toBool()) {
            d.demoSeries = true;
            return d;
        }
        if (m_failed) return std::nullopt;
        const auto path = member(o, QStringLiteral("path"), where, QJsonValue::String);
        const auto hash = member(o, QStringLiteral("contentHash"), where, QJsonValue::String);
        if (m_failed) return std::nullopt;
        if (!path || path->toString().isEmpty()) {
            fail(where, QObject::tr("names no file (\"path\") and no demo data"));
            return std::nullopt;
        }
        if (!hash || !hash->toString().startsWith(QLatin1String("cs64:"))) {
            fail(where + QStringLiteral(".contentHash"),
                 QObject::tr("missing, or not a content hash (\"cs64:…\")"));
            return std::nullopt;
        }
        d.path = path->toString();
        d.contentHash = hash->toString();
        if (const auto rel = member(o, QStringLiteral("relativePath"), where, QJsonValue::String))
            d.relativePath = rel->toString();
        const int as =
            choice(o, QStringLiteral("as"), where,
                   {QStringLiteral("auto"), QStringLiteral("points"), QStringLiteral("series")});
        d.kind = as == 1   ? io::DataKind::Points
                 : as == 2 ? io::DataKind::Series
                           : io::DataKind::Auto;
        if (m_failed) return std::nullopt;
        return d;
    }

    void readView(const QJsonObject& root, Session& s) {
        if (!root.contains(QStringLiteral("view"))) return;
        const QJsonObject view = object(root, QStringLiteral("view"), QStringLiteral("view"));
        if (m_failed) return;
        s.seriesInFront = choice(view, QStringLiteral("front"), QStringLiteral("view"),
                                 {QStringLiteral("points"), QStringLiteral("series")}) == 1;
        if (const auto front = member(view, QStringLiteral("frontPanel"), QStringLiteral("view"),
                                      QJsonValue::String))
            s.frontPanel = front->toString();
        if (view.contains(QStringLiteral("points"))) {
            const QString where = QStringLiteral("view.points");
            const QJsonObject p = object(view, QStringLiteral("points"), where);
            if (m_failed) return;
            if (const auto c = member(p, QStringLiteral("colourBy"), where, QJsonValue::String))
                s.colourBy = c->toString();
            if (const auto size = member(p, QStringLiteral("pointSize"), where, QJsonValue::Double))
                s.pointSize = float(size->toDouble());
            s.upAxis = choice(p, QStringLiteral("upAxis"), where, kUpAxes);
            if (const auto c = member(p, QStringLiteral("camera"), where, QJsonValue::Object))
                s.camera = readCamera(c->toObject(), where + QStringLiteral(".camera"));
        }
        if (const auto panels = member(view, QStringLiteral("panels"), QStringLiteral("view"),
                                       QJsonValue::Object)) {
            const QJsonObject all = panels->toObject();
            for (auto it = all.begin(); it != all.end(); ++it) {
                const QString where = QStringLiteral("view.panels.") + it.key();
                if (!it.value().isObject()) {
                    fail(where, QObject::tr("expected an object"));
                    return;
                }
                const QJsonObject options = it.value().toObject();
                for (auto o = options.begin(); o != options.end(); ++o)
                    if (!o.value().isBool() && !o.value().isDouble() && !o.value().isString()) {
                        fail(where + QLatin1Char('.') + o.key(),
                             QObject::tr("expected true, false, a number or text"));
                        return;
                    }
                s.panelViews[it.key()] = options.toVariantMap();
            }
        }
        if (m_failed) return;
        if (view.contains(QStringLiteral("series"))) {
            const QString where = QStringLiteral("view.series");
            const QJsonObject p = object(view, QStringLiteral("series"), where);
            if (m_failed) return;
            s.seriesStyle = choice(p, QStringLiteral("style"), where, kStyles);
            s.seriesSplit = choice(p, QStringLiteral("split"), where, kSplits);
            if (const auto c = member(p, QStringLiteral("channel"), where, QJsonValue::Double))
                s.seriesChannel = std::max(0, c->toInt());
            if (const auto l = member(p, QStringLiteral("featureLayer"), where, QJsonValue::Double))
                s.featureLayer = std::size_t(std::max(0, l->toInt()));
        }
        if (m_failed) return;
        if (const auto sel = member(view, QStringLiteral("selection"), QStringLiteral("view"),
                                    QJsonValue::Object)) {
            const QString where = QStringLiteral("view.selection");
            const QJsonObject o = sel->toObject();
            s.selectedPoints = indices(o, QStringLiteral("points"), where);
            s.selectedSeries = indices(o, QStringLiteral("series"), where);
            if (const auto i = member(o, QStringLiteral("isolated"), where, QJsonValue::Bool))
                s.isolated = i->toBool();
            if (const auto h =
                    member(o, QStringLiteral("hiddenClusters"), where, QJsonValue::Array))
                for (const QJsonValue& v : h->toArray()) {
                    if (!v.isDouble() || v.toDouble() != std::floor(v.toDouble()) ||
                        v.toDouble() < -1 || v.toDouble() > 2147483647.0) {
                        fail(
                            where + QStringLiteral(".hiddenClusters"),
                            QObject::tr("expected cluster ids (-1 for the noise, else 0 or more)"));
                        return;
                    }
                    s.hiddenClusters.push_back(v.toInt());
                }
        }
    }

    // Indices written as ranges ("0-99,120"); empty when absent.
    std::vector<std::uint32_t> indices(const QJsonObject& o, const QString& key,
                                       const QString& where) {
        const auto v = member(o, key, where, QJsonValue::String);
        if (!v || v->toString().trimmed().isEmpty()) return {};
        try {
            return parseIndexRanges(v->toString().toStdString());
        } catch (const Error& e) {
            fail(where + QLatin1Char('.') + key, QString::fromUtf8(e.what()));
            return {};
        }
    }

    std::optional<SessionCamera> readCamera(const QJsonObject& o, const QString& where) {
        SessionCamera c;
        const auto target = member(o, QStringLiteral("target"), where, QJsonValue::Array);
        if (m_failed) return std::nullopt;
        const QJsonArray t = target ? target->toArray() : QJsonArray();
        if (t.size() != 3 || !t[0].isDouble() || !t[1].isDouble() || !t[2].isDouble()) {
            fail(where + QStringLiteral(".target"), QObject::tr("expected three numbers"));
            return std::nullopt;
        }
        c.target =
            QVector3D(float(t[0].toDouble()), float(t[1].toDouble()), float(t[2].toDouble()));
        for (const auto& [key, slot] : {std::pair{QStringLiteral("distance"), &c.distance},
                                        std::pair{QStringLiteral("yaw"), &c.yaw},
                                        std::pair{QStringLiteral("pitch"), &c.pitch}}) {
            const auto v = member(o, key, where, QJsonValue::Double);
            if (m_failed) return std::nullopt;
            if (!v) {
                fail(where + QLatin1Char('.') + key, QObject::tr("missing"));
                return std::nullopt;
            }
            *slot = float(v->toDouble());
        }
        if (!(c.distance > 0)) {
            fail(where + QStringLiteral(".distance"), QObject::tr("must be positive"));
            return std::nullopt;
        }
        return c;
    }

    void readMethods(const QJsonObject& root, Session& s) {
        if (!root.contains(QStringLiteral("methods"))) return;
        const QJsonObject methods =
            object(root, QStringLiteral("methods"), QStringLiteral("methods"));
        for (auto it = methods.begin(); it != methods.end() && !m_failed; ++it) {
            const QString where = QStringLiteral("methods.") + it.key();
            const AlgorithmDescriptor* d = nullptr;
            QStringList known;
            for (const AlgorithmDescriptor* a : m_algorithms) {
                known << QString::fromStdString(a->name);
                if (QString::fromStdString(a->name) == it.key()) d = a;
            }
            if (!d) {
                fail(where, QObject::tr("no such method in this build (it has: %1)")
                                .arg(known.join(QStringLiteral(", "))));
                return;
            }
            if (!it.value().isObject()) {
                fail(where, QObject::tr("expected an object"));
                return;
            }
            const QJsonObject m = it.value().toObject();
            SessionMethod method{d, d->defaults(), false};
            if (const auto had = member(m, QStringLiteral("hasResult"), where, QJsonValue::Bool))
                method.hadResult = had->toBool();
            method.subset = indices(m, QStringLiteral("subset"), where);
            if (const auto from =
                    member(m, QStringLiteral("importedFrom"), where, QJsonValue::String))
                method.importedFrom = from->toString();
            if (const auto rel =
                    member(m, QStringLiteral("importedFromRelative"), where, QJsonValue::String))
                method.importedFromRelative = rel->toString();
            const auto params = member(m, QStringLiteral("parameters"), where, QJsonValue::Object);
            if (m_failed) return;
            const QJsonObject p = params ? params->toObject() : QJsonObject();
            for (auto pit = p.begin(); pit != p.end(); ++pit) {
                const QString at = where + QStringLiteral(".parameters.") + pit.key();
                const ParameterSpec* spec = d->parameter(pit.key().toStdString());
                if (!spec) {
                    fail(at, QObject::tr("no such parameter of %1")
                                 .arg(QString::fromStdString(d->title)));
                    return;
                }
                const auto value = readValue(*spec, pit.value());
                const std::string problem =
                    value ? spec->check(*value, nullptr, method.values) : std::string();
                if (!value || !problem.empty()) {
                    fail(at, QObject::tr("expected %1, not %2")
                                 .arg(QString::fromStdString(spec->expected()),
                                      QString::fromUtf8(QJsonDocument(QJsonArray{pit.value()})
                                                            .toJson(QJsonDocument::Compact))
                                          .mid(1)
                                          .chopped(1)));
                    return;
                }
                method.values.set(spec->name, *value);
            }
            s.methods.push_back(std::move(method));
        }
    }

    static std::optional<ParameterValue> readValue(const ParameterSpec& spec, const QJsonValue& v) {
        switch (spec.type) {
            case ParameterSpec::Type::Int:
                if (!v.isDouble() || v.toDouble() != std::floor(v.toDouble())) return std::nullopt;
                return std::int64_t(v.toDouble());
            case ParameterSpec::Type::Double:
                if (!v.isDouble()) return std::nullopt;
                return v.toDouble();
            case ParameterSpec::Type::Bool:
                if (!v.isBool()) return std::nullopt;
                return v.toBool();
            case ParameterSpec::Type::Choice:
                if (!v.isString()) return std::nullopt;
                return v.toString().toStdString();
        }
        return std::nullopt;
    }

    QString m_source;
    const std::vector<const AlgorithmDescriptor*>& m_algorithms;
    bool m_failed = false;
    QString m_error;
};

}  // namespace

QByteArray sessionToJson(const Session& session, const QString& sessionFile, JsonLayout layout) {
    QJsonObject data;
    if (session.points) data[QStringLiteral("points")] = dataToJson(*session.points, sessionFile);
    if (session.series) data[QStringLiteral("series")] = dataToJson(*session.series, sessionFile);

    QJsonObject points{{QStringLiteral("colourBy"), session.colourBy},
                       {QStringLiteral("pointSize"), double(session.pointSize)},
                       {QStringLiteral("upAxis"), kUpAxes.value(session.upAxis)}};
    if (const auto& c = session.camera)
        points[QStringLiteral("camera")] = QJsonObject{
            {QStringLiteral("target"),
             QJsonArray{double(c->target.x()), double(c->target.y()), double(c->target.z())}},
            {QStringLiteral("distance"), double(c->distance)},
            {QStringLiteral("yaw"), double(c->yaw)},
            {QStringLiteral("pitch"), double(c->pitch)}};
    const QJsonObject series{{QStringLiteral("style"), kStyles.value(session.seriesStyle)},
                             {QStringLiteral("channel"), session.seriesChannel},
                             {QStringLiteral("split"), kSplits.value(session.seriesSplit)},
                             {QStringLiteral("featureLayer"), qint64(session.featureLayer)}};
    QJsonObject panels;
    for (const auto& [name, options] : session.panelViews)
        panels[name] = QJsonObject::fromVariantMap(options);
    QJsonObject selection{
        {QStringLiteral("points"), QString::fromStdString(indexRangesText(session.selectedPoints))},
        {QStringLiteral("series"), QString::fromStdString(indexRangesText(session.selectedSeries))},
        {QStringLiteral("isolated"), session.isolated}};
    QJsonArray hidden;
    for (int id : session.hiddenClusters)
        hidden.append(id);
    selection[QStringLiteral("hiddenClusters")] = hidden;
    QJsonObject view{{QStringLiteral("selection"), selection},
                     {QStringLiteral("panels"), panels},
                     {QStringLiteral("front"),
                      session.seriesInFront ? QStringLiteral("series") : QStringLiteral("points")},
                     {QStringLiteral("points"), points},
                     {QStringLiteral("series"), series}};
    if (!session.frontPanel.isEmpty()) view[QStringLiteral("frontPanel")] = session.frontPanel;

    QJsonObject methods;
    for (const SessionMethod& m : session.methods) {
        QJsonObject params;
        for (const ParameterSpec& spec : m.descriptor->parameters)
            if (const ParameterValue* value = m.values.find(spec.name))
                params[QString::fromStdString(spec.name)] = toJson(*value);
        QJsonObject method{{QStringLiteral("hasResult"), m.hadResult},
                           {QStringLiteral("parameters"), params}};
        if (!m.subset.empty())
            method[QStringLiteral("subset")] = QString::fromStdString(indexRangesText(m.subset));
        if (!m.importedFrom.isEmpty()) {
            method[QStringLiteral("importedFrom")] = m.importedFrom;
            if (!sessionFile.isEmpty())
                method[QStringLiteral("importedFromRelative")] =
                    besideSession(sessionFile, m.importedFrom);
        }
        methods[QString::fromStdString(m.descriptor->name)] = method;
    }
    QJsonObject root{{QStringLiteral("format"), kFormat},
                     {QStringLiteral("version"), kSessionVersion},
                     {QStringLiteral("data"), data},
                     {QStringLiteral("view"), view},
                     {QStringLiteral("methods"), methods}};
    if (!session.devices.empty())
        root[QStringLiteral("devices")] = QString::fromStdString(deviceListText(session.devices));
    return QJsonDocument(root).toJson(layout == JsonLayout::Compact ? QJsonDocument::Compact
                                                                    : QJsonDocument::Indented);
}

std::optional<Session> sessionFromJson(const QByteArray& json, const QString& source,
                                       const std::vector<const AlgorithmDescriptor*>& algorithms,
                                       QString* error) {
    Reader reader(source, algorithms);
    auto session = reader.read(json);
    if (!session && error) *error = reader.error();
    return session;
}

bool isSessionFileName(const QString& path) {
    const QString suffix = QFileInfo(path).suffix().toLower();
    return suffix == QLatin1String("json") || suffix == QLatin1String("png");
}

std::optional<Session> readSessionFile(const QString& path,
                                       const std::vector<const AlgorithmDescriptor*>& algorithms,
                                       QString* error) {
    const auto fail = [&](const QString& message) -> std::optional<Session> {
        if (error) *error = message;
        return std::nullopt;
    };
    const QFileInfo info(path);
    if (!info.exists()) return fail(QObject::tr("%1: no such session file").arg(path));
    if (info.isDir()) return fail(QObject::tr("%1: is a folder, not a session file").arg(path));
    QByteArray json;
    if (info.suffix().toLower() == QLatin1String("png")) {
        // The decoded image's text, not QImageReader::text(), which simplifies whitespace.
        QImageReader reader(path, "png");
        QImage image;
        if (!reader.read(&image))
            return fail(
                QObject::tr("%1: not a readable PNG image (%2)").arg(path, reader.errorString()));
        json = image.text(QString::fromLatin1(kSessionPngKey)).toUtf8();
        if (json.isEmpty())
            return fail(QObject::tr("%1: this PNG carries no Clusterscope session (images "
                                    "exported by Clusterscope do)")
                            .arg(path));
    } else {
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly))
            return fail(QObject::tr("%1: cannot be read: %2").arg(path, file.errorString()));
        json = file.readAll();
    }
    auto session = sessionFromJson(json, path, algorithms, error);
    if (!session) return std::nullopt;
    // A file moved together with the session (a copied project folder) is found beside it.
    auto findBeside = [&](QString& path, const QString& relative) {
        if (path.isEmpty() || QFileInfo::exists(path) || relative.isEmpty()) return;
        const QString beside = info.absoluteDir().filePath(relative);
        if (QFileInfo::exists(beside)) path = QFileInfo(beside).absoluteFilePath();
    };
    for (auto* data : {&session->points, &session->series})
        if (*data) findBeside((*data)->path, (*data)->relativePath);
    for (SessionMethod& m : session->methods)
        findBeside(m.importedFrom, m.importedFromRelative);
    return session;
}

}  // namespace cs::ui
