// SPDX-License-Identifier: MIT
#include "ui/views/points/point_colouring.h"

#include <QObject>
#include <QStringList>
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

QString percentText(double p) {
    return QString::number(p, 'g', 4);
}

template <typename ValueAt>
PointColouring colourByScalar(std::size_t n, ValueAt valueAt, const QString& title,
                              std::uint32_t noiseRgba, const ScalarStyle& style) {
    // The percentiles read a sample: every value up to kPercentileSample, evenly spaced ones
    // beyond (the range of 10 million points in a few ms).
    const std::size_t step = std::max<std::size_t>(1, n / ScalarStyle::kPercentileSample);
    std::vector<float> sample;
    sample.reserve(n / step + 1);
    for (std::size_t i = 0; i < n; i += step) {
        const float v = valueAt(i);
        if (std::isfinite(v)) sample.push_back(v);
    }
    const bool any = !sample.empty();
    double lo = style.minimum ? *style.minimum
                              : (any ? ScalarStyle::percentile(sample, style.lowPercentile) : 0.0);
    double hi = style.maximum ? *style.maximum
                              : (any ? ScalarStyle::percentile(sample, style.highPercentile) : 0.0);
    if (hi < lo) std::swap(lo, hi);
    PointColouring out;
    out.rgba.resize(n);
    const auto& table = ColourMaps::table(style.map);
    const double scale = hi > lo ? 1.0 / (hi - lo) : 0.0;
    std::vector<std::size_t> histogram(ScalarStyle::kHistogramBins, 0);
    std::size_t below = 0, above = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const float v = valueAt(i);
        if (!std::isfinite(v)) {
            out.rgba[i] = noiseRgba;
            continue;
        }
        // A constant field sits mid-map rather than at its dark end.
        const double t = scale > 0 ? (double(v) - lo) * scale : 0.5;
        if (scale > 0 && t < 0.0)
            ++below;
        else if (scale > 0 && t > 1.0)
            ++above;
        else
            ++histogram[std::min(std::size_t(std::max(t, 0.0) * ScalarStyle::kHistogramBins),
                                 std::size_t(ScalarStyle::kHistogramBins - 1))];
        out.rgba[i] = table[std::size_t(std::lround(std::clamp(t, 0.0, 1.0) * 255.0))];
    }
    out.legend.kind = Legend::Kind::ColourBar;
    out.legend.title = title;
    out.legend.minimum = lo;
    out.legend.maximum = hi;
    out.legend.map = style.map;
    out.legend.histogram = std::move(histogram);
    out.legend.below = below;
    out.legend.above = above;
    if (style.minimum || style.maximum)
        out.legend.rangeNote = QObject::tr("range set by hand");
    else if (style.lowPercentile > 0.0 || style.highPercentile < 100.0)
        out.legend.rangeNote =
            QObject::tr("%1–%2th percentile")
                .arg(percentText(style.lowPercentile), percentText(style.highPercentile));
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

double ScalarStyle::percentile(std::span<const float> values, double p) {
    std::vector<float> v;
    v.reserve(values.size());
    for (float x : values)
        if (std::isfinite(x)) v.push_back(x);
    if (v.empty() || !std::isfinite(p)) return std::nan("");
    const double rank = std::clamp(p, 0.0, 100.0) / 100.0 * double(v.size() - 1);
    const auto below = std::size_t(std::floor(rank));
    std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(below), v.end());
    const double a = v[below];
    if (below + 1 >= v.size()) return a;
    // The next rank is the smallest of the values above.
    const double b = *std::min_element(v.begin() + std::ptrdiff_t(below) + 1, v.end());
    return a + (b - a) * (rank - double(below));
}

bool ScalarStyle::parseRange(const QString& text, QString* error) {
    const QStringList parts = text.trimmed().split(QLatin1Char(':'));
    const auto fail = [&](const QString& why) {
        if (error)
            *error = QObject::tr(
                         "a colour range is pLOW:pHIGH (percentiles, e.g. p2:p98) or "
                         "MIN:MAX (values, e.g. 0.1:2.5), not '%1'%2")
                         .arg(text, why.isEmpty() ? QString() : QStringLiteral(": ") + why);
        return false;
    };
    if (parts.size() != 2) return fail({});
    const bool percent = parts[0].startsWith(QLatin1Char('p'), Qt::CaseInsensitive);
    if (percent != parts[1].startsWith(QLatin1Char('p'), Qt::CaseInsensitive))
        return fail(QObject::tr("both ends are percentiles, or neither"));
    bool okLo = false, okHi = false;
    const double lo = (percent ? parts[0].mid(1) : parts[0]).toDouble(&okLo);
    const double hi = (percent ? parts[1].mid(1) : parts[1]).toDouble(&okHi);
    if (!okLo || !okHi || !std::isfinite(lo) || !std::isfinite(hi)) return fail({});
    if (percent && (lo < 0.0 || hi > 100.0 || lo >= hi))
        return fail(QObject::tr("percentiles go from 0 to 100, the low one first"));
    if (!percent && lo >= hi) return fail(QObject::tr("the minimum must be below the maximum"));
    if (percent) {
        lowPercentile = lo;
        highPercentile = hi;
        minimum.reset();
        maximum.reset();
    } else {
        minimum = lo;
        maximum = hi;
    }
    return true;
}

QString ScalarStyle::rangeText() const {
    if (minimum && maximum)
        return QStringLiteral("%1:%2").arg(QString::number(*minimum, 'g', 8),
                                           QString::number(*maximum, 'g', 8));
    return QStringLiteral("p%1:p%2").arg(percentText(lowPercentile), percentText(highPercentile));
}

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
                                                      std::uint32_t noiseRgba,
                                                      const ScalarStyle& style) {
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
            n, [=](std::size_t i) { return coords[i * dims + j]; }, dimName(points, j), noiseRgba,
            style);
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
                    noiseRgba, style);
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
                                           const QString& title, std::uint32_t noiseRgba,
                                           const ScalarStyle& style) {
    if (n > 0 && (stride == 0 || (n - 1) * stride + offset >= values.size())) n = 0;
    const float* v = values.data();
    return colourByScalar(
        n, [=](std::size_t i) { return v[i * stride + offset]; }, title, noiseRgba, style);
}

}  // namespace cs::ui
