// SPDX-License-Identifier: MIT
#include "ui/views/colour_maps.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <mutex>

namespace cs::ui {
namespace {

// Tableau 10 without its grey (grey is reserved for noise), completed with cyan and olive.
constexpr std::array<QRgb, 11> kCategorical = {
    0x4e79a7, 0xf28e2b, 0xe15759, 0x59a14f, 0xb07aa1, 0x76b7b2,
    0xedc948, 0xff9da7, 0x9c755f, 0x17becf, 0xbcbd22,
};

// Polynomial fit of matplotlib's viridis (mattz, CC0): within about 1 % of the table, without
// shipping 256 rows of numbers.
QColor viridisPolynomial(double t) {
    static constexpr double c[7][3] = {
        {0.2777273272234177, 0.005407344544966578, 0.3340998053353061},
        {0.1050930431085774, 1.404613529898575, 1.384590162594685},
        {-0.3308618287255563, 0.214847559468213, 0.09509516302823659},
        {-4.634230498983486, -5.799100973351585, -19.33244095627987},
        {6.228269936347081, 14.17993336680509, 56.69055260068105},
        {4.776384997670288, -13.74514537774601, -65.35303263337234},
        {-5.435455855934631, 4.645852612178535, 26.3124352495832},
    };
    double rgb[3];
    for (int k = 0; k < 3; ++k) {
        double v = c[6][k];
        for (int i = 5; i >= 0; --i)
            v = c[i][k] + t * v;
        rgb[k] = std::clamp(v, 0.0, 1.0);
    }
    return QColor::fromRgbF(float(rgb[0]), float(rgb[1]), float(rgb[2]));
}

const std::array<std::uint32_t, 256>& viridisTable() {
    static const std::array<std::uint32_t, 256> table = [] {
        std::array<std::uint32_t, 256> t{};
        for (int i = 0; i < 256; ++i)
            t[i] = ColourMaps::packRgba(viridisPolynomial(i / 255.0));
        return t;
    }();
    return table;
}

// Polynomial fit of matplotlib's magma (mattz, CC0), as for viridis.
QColor magmaPolynomial(double t) {
    static constexpr double c[7][3] = {
        {-0.002136485053939582, -0.000749655052795221, -0.005386127855323933},
        {0.2516605407371642, 0.6775232436837668, 2.494026599312351},
        {8.353717279216625, -3.577719514958484, 0.3144679030132573},
        {-27.66873308576866, 14.26473078096533, -13.64921318813922},
        {52.17613981234068, -27.94360607168351, 12.94416944238394},
        {-50.76852536473588, 29.04658282127291, 4.23415299384598},
        {18.65570506591883, -11.48977351997711, -5.601961508734096},
    };
    double rgb[3];
    for (int k = 0; k < 3; ++k) {
        double v = c[6][k];
        for (int i = 5; i >= 0; --i)
            v = c[i][k] + t * v;
        rgb[k] = std::clamp(v, 0.0, 1.0);
    }
    return QColor::fromRgbF(float(rgb[0]), float(rgb[1]), float(rgb[2]));
}

// Moreland's cool-warm, through its published stops: blue, grey-white at 0.5, red.
QColor divergingStops(double t) {
    static constexpr double stops[5][3] = {
        {59, 76, 192}, {141, 176, 254}, {221, 221, 221}, {244, 154, 123}, {180, 4, 38}};
    const double x = t * 4.0;
    const int i = std::min(int(x), 3);
    const double f = x - i;
    const auto at = [&](int k) {
        return int(std::lround(stops[i][k] * (1 - f) + stops[i + 1][k] * f));
    };
    return QColor(at(0), at(1), at(2));
}

// Ten equal bands of the categorical palette: a scalar read as classes of its range.
QColor categoricalSteps(double t) {
    return QColor(kCategorical[std::size_t(std::min(int(t * 10.0), 9))]);
}

QColor mapAt(ColourMaps::Map map, double t) {
    switch (map) {
        case ColourMaps::Map::Viridis:
            return viridisPolynomial(t);
        case ColourMaps::Map::Magma:
            return magmaPolynomial(t);
        case ColourMaps::Map::Diverging:
            return divergingStops(t);
        case ColourMaps::Map::Categorical:
            return categoricalSteps(t);
    }
    return viridisPolynomial(t);
}

}  // namespace

QColor ColourMaps::categorical(int index) {
    if (index < 0) return noiseColour();
    if (index < int(kCategorical.size())) return QColor(kCategorical[index]);
    // Golden-angle hue steps keep any two nearby indices apart; saturation and value alternate
    // so that hues that come round again still differ.
    const int k = index - int(kCategorical.size());
    const double hue = std::fmod(0.08 + k * 0.618033988749895, 1.0);
    const double sat = (k % 2) ? 0.55 : 0.75;
    const double val = (k % 3 == 2) ? 0.70 : 0.88;
    return QColor::fromHsvF(float(hue), float(sat), float(val));
}

std::vector<std::uint32_t> ColourMaps::categoricalRgba(int count) {
    // Up to a few million slots are kept (4 bytes each); beyond, the rest is computed each time.
    constexpr int kKept = 1 << 21;
    // toRgb() converts an HSV colour once rather than in each of red(), green() and blue().
    const auto packed = [](int i) { return packRgba(categorical(i).toRgb()); };
    std::vector<std::uint32_t> out;
    if (count <= 0) return out;
    out.reserve(std::size_t(count));
    {
        static std::mutex mutex;
        static std::vector<std::uint32_t> kept;
        const std::lock_guard lock(mutex);
        const int want = std::min(count, kKept);
        for (int i = int(kept.size()); i < want; ++i)
            kept.push_back(packed(i));
        out.assign(kept.begin(), kept.begin() + want);
    }
    for (int i = int(out.size()); i < count; ++i)
        out.push_back(packed(i));
    return out;
}

QColor ColourMaps::noiseColour() {
    return QColor(0x9a, 0x9a, 0x9a);
}

QColor ColourMaps::noiseColour(const QColor& background) {
    const QColor grey = noiseColour();
    const auto mix = [](int a, int b) { return a + (b - a) * 35 / 100; };
    return QColor(mix(grey.red(), background.red()), mix(grey.green(), background.green()),
                  mix(grey.blue(), background.blue()));
}

QColor ColourMaps::viridis(double t) {
    if (std::isnan(t)) return noiseColour();
    return viridisPolynomial(std::clamp(t, 0.0, 1.0));
}

QString ColourMaps::mapName(Map map) {
    switch (map) {
        case Map::Viridis:
            return QStringLiteral("viridis");
        case Map::Magma:
            return QStringLiteral("magma");
        case Map::Diverging:
            return QStringLiteral("diverging");
        case Map::Categorical:
            return QStringLiteral("categorical");
    }
    return {};
}

QStringList ColourMaps::mapNames() {
    QStringList out;
    for (Map m : kMaps)
        out << mapName(m);
    return out;
}

std::optional<ColourMaps::Map> ColourMaps::mapFromName(const QString& name) {
    for (Map m : kMaps)
        if (name.compare(mapName(m), Qt::CaseInsensitive) == 0) return m;
    return std::nullopt;
}

QColor ColourMaps::colour(Map map, double t) {
    if (std::isnan(t)) return noiseColour();
    return mapAt(map, std::clamp(t, 0.0, 1.0));
}

const std::array<std::uint32_t, 256>& ColourMaps::table(Map map) {
    static const auto tables = [] {
        std::array<std::array<std::uint32_t, 256>, kMaps.size()> all{};
        for (std::size_t m = 0; m < kMaps.size(); ++m)
            for (int i = 0; i < 256; ++i)
                all[m][std::size_t(i)] = packRgba(mapAt(kMaps[m], i / 255.0));
        return all;
    }();
    return tables[std::size_t(map)];
}

std::uint32_t ColourMaps::rgba(Map map, float t) {
    if (std::isnan(t)) return packRgba(noiseColour());
    return table(map)[std::size_t(std::lround(std::clamp(t, 0.0f, 1.0f) * 255.0f))];
}

std::uint32_t ColourMaps::viridisRgba(float t) {
    if (std::isnan(t)) return packRgba(noiseColour());
    const int i = int(std::lround(std::clamp(t, 0.0f, 1.0f) * 255.0f));
    return viridisTable()[i];
}

}  // namespace cs::ui
