// SPDX-License-Identifier: MIT
#include "ui/views/points/point_colouring.h"

#include <QObject>
#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>

#include "ui/views/colour_maps.h"

namespace cs::ui {
namespace {

using Kind = PointAttribute::Kind;

QString attributeTitle(const PointAttribute& a) {
    switch (a.kind) {
        case Kind::Label:
            return QObject::tr("%1 (labels)").arg(QString::fromStdString(a.name));
        case Kind::Colour:
            return QObject::tr("%1 (colours)").arg(QString::fromStdString(a.name));
        case Kind::Scalar:
            break;
    }
    return QObject::tr("%1 (scalar)").arg(QString::fromStdString(a.name));
}

QString dimName(const PointSet& points, std::size_t j) {
    return j < points.dimNames.size() ? QString::fromStdString(points.dimNames[j])
                                      : QStringLiteral("c%1").arg(j);
}

template <typename ValueAt>
PointColouring colourByScalar(std::size_t n, ValueAt valueAt, const QString& title,
                              std::uint32_t noiseRgba) {
    float lo = std::numeric_limits<float>::infinity();
    float hi = -lo;
    for (std::size_t i = 0; i < n; ++i) {
        const float v = valueAt(i);
        if (!std::isfinite(v)) continue;
        lo = std::min(lo, v);
        hi = std::max(hi, v);
    }
    PointColouring out;
    out.rgba.resize(n);
    const bool any = lo <= hi;
    const float scale = any && hi > lo ? 1.0f / (hi - lo) : 0.0f;
    for (std::size_t i = 0; i < n; ++i) {
        const float v = valueAt(i);
        // A constant field sits mid-map rather than at its dark end.
        const float t = !std::isfinite(v) ? std::nanf("") : scale > 0 ? (v - lo) * scale : 0.5f;
        out.rgba[i] = std::isnan(t) ? noiseRgba : ColourMaps::viridisRgba(t);
    }
    out.legend.kind = Legend::Kind::ColourBar;
    out.legend.title = title;
    out.legend.minimum = any ? lo : 0.0;
    out.legend.maximum = any ? hi : 0.0;
    return out;
}

PointColouring colourByLabels(const PointAttribute& a, std::uint32_t noiseRgba) {
    const std::size_t n = a.labels.size();
    std::int32_t maxLabel = -1;
    for (auto l : a.labels)
        maxLabel = std::max(maxLabel, l);
    PointColouring out;
    out.rgba.resize(n);

    // Label values are indices into a small palette table; a sparse label space (ids in the
    // millions) is counted in a map rather than a huge vector.
    const bool dense = std::size_t(maxLabel) + 1 <= 4 * n + 1024;
    std::vector<std::size_t> denseCounts(dense ? std::size_t(maxLabel) + 1 : 0);
    std::unordered_map<std::int32_t, std::size_t> sparseCounts;
    std::size_t noise = 0;
    std::vector<std::uint32_t> table(std::min<std::size_t>(std::size_t(maxLabel) + 1, 4096));
    for (std::size_t k = 0; k < table.size(); ++k)
        table[k] = ColourMaps::packRgba(ColourMaps::categorical(int(k)));
    for (std::size_t i = 0; i < n; ++i) {
        const std::int32_t l = a.labels[i];
        if (l < 0) {
            ++noise;
            out.rgba[i] = noiseRgba;
            continue;
        }
        out.rgba[i] = std::size_t(l) < table.size()
                          ? table[l]
                          : ColourMaps::packRgba(ColourMaps::categorical(l));
        if (dense)
            ++denseCounts[l];
        else
            ++sparseCounts[l];
    }

    out.legend.kind = Legend::Kind::Categories;
    // Labels that came with the data look like a clustering: the title says they are not one.
    out.legend.title =
        QObject::tr("%1 · given labels, not a clustering").arg(QString::fromStdString(a.name));
    auto addEntry = [&](std::int32_t l, std::size_t count) {
        const QString name = std::size_t(l) < a.categories.size()
                                 ? QString::fromStdString(a.categories[l])
                                 : QString::number(l);
        out.legend.entries.push_back(
            {name, ColourMaps::packRgba(ColourMaps::categorical(l)), count});
    };
    if (dense) {
        for (std::size_t l = 0; l < denseCounts.size(); ++l)
            if (denseCounts[l] > 0) addEntry(std::int32_t(l), denseCounts[l]);
    } else {
        std::vector<std::pair<std::int32_t, std::size_t>> sorted(sparseCounts.begin(),
                                                                 sparseCounts.end());
        std::sort(sorted.begin(), sorted.end());
        for (const auto& [l, count] : sorted)
            addEntry(l, count);
    }
    if (noise > 0) out.legend.entries.push_back({QObject::tr("noise"), noiseRgba, noise});
    return out;
}

}  // namespace

std::vector<ColourOption> PointColouring::options(const PointSet& points) {
    std::vector<ColourOption> out{{QStringLiteral("uniform"), QObject::tr("Uniform")}};
    for (std::size_t j = 0; j < std::min<std::size_t>(points.dims, 3); ++j)
        out.push_back({QStringLiteral("dim:%1").arg(j),
                       QObject::tr("Coordinate %1").arg(dimName(points, j))});
    for (const auto& a : points.attributes)
        out.push_back(
            {QStringLiteral("attr:") + QString::fromStdString(a.name), attributeTitle(a)});
    return out;
}

QString PointColouring::defaultOption(const PointSet& points) {
    for (Kind kind : {Kind::Colour, Kind::Label, Kind::Scalar})
        for (const auto& a : points.attributes)
            if (a.kind == kind) return QStringLiteral("attr:") + QString::fromStdString(a.name);
    if (points.dims >= 2)
        return QStringLiteral("dim:%1").arg(std::min<std::size_t>(points.dims, 3) - 1);
    return QStringLiteral("uniform");
}

std::optional<PointColouring> PointColouring::compute(const PointSet& points, const QString& id,
                                                      std::uint32_t uniformRgba,
                                                      std::uint32_t noiseRgba) {
    const std::size_t n = points.n;
    if (id == QLatin1String("uniform")) {
        PointColouring out;
        out.rgba.assign(n, uniformRgba);
        return out;
    }
    if (id.startsWith(QLatin1String("dim:"))) {
        bool ok = false;
        const std::size_t j = id.mid(4).toULongLong(&ok);
        if (!ok || j >= points.dims || j >= 3) return std::nullopt;
        const float* coords = points.coords.data();
        const std::size_t dims = points.dims;
        return colourByScalar(
            n, [=](std::size_t i) { return coords[i * dims + j]; }, dimName(points, j), noiseRgba);
    }
    if (id.startsWith(QLatin1String("attr:"))) {
        const PointAttribute* a = points.attribute(id.mid(5).toStdString());
        if (!a) return std::nullopt;
        switch (a->kind) {
            case Kind::Label:
                if (a->labels.size() != n) return std::nullopt;
                return colourByLabels(*a, noiseRgba);
            case Kind::Scalar: {
                if (a->scalars.size() != n) return std::nullopt;
                const float* v = a->scalars.data();
                return colourByScalar(
                    n, [=](std::size_t i) { return v[i]; }, QString::fromStdString(a->name),
                    noiseRgba);
            }
            case Kind::Colour: {
                if (a->colours.size() != n) return std::nullopt;
                PointColouring out;
                out.rgba.resize(n);
                for (std::size_t i = 0; i < n; ++i)
                    out.rgba[i] = ColourMaps::fromRgb24(a->colours[i]);
                return out;
            }
        }
    }
    return std::nullopt;
}

PointColouring PointColouring::fromScalars(std::span<const float> values, std::size_t n,
                                           std::size_t stride, std::size_t offset,
                                           const QString& title, std::uint32_t noiseRgba) {
    if (n > 0 && (stride == 0 || (n - 1) * stride + offset >= values.size())) n = 0;
    const float* v = values.data();
    return colourByScalar(
        n, [=](std::size_t i) { return v[i * stride + offset]; }, title, noiseRgba);
}

}  // namespace cs::ui
