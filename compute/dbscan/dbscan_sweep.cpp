// SPDX-License-Identifier: MIT
#include "compute/dbscan/dbscan_sweep.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <string>

#include "compute/core/error.h"

namespace cs {
namespace {

// The shortest text that reads back as the same float (0.012f prints as 0.012).
std::string shortest(float value) {
    char text[32];
    const auto [end, ec] = std::to_chars(text, text + sizeof text, value);
    return ec == std::errc() ? std::string(text, end) : std::to_string(value);
}

std::string number(double value, int digits) {
    char text[40];
    std::snprintf(text, sizeof text, "%.*g", digits, value);
    return text;
}

}  // namespace

void validateDbscanSweepParams(const DbscanSweepParams& params) {
    if (params.eps.empty()) throw Error("a DBSCAN sweep needs at least one eps value");
    if (params.minPts.empty()) throw Error("a DBSCAN sweep needs at least one MinPts value");
    for (std::size_t e = 0; e < params.eps.size(); ++e) {
        validateDbscanParams({.eps = params.eps[e], .minPts = 1});
        if (e > 0 && !(params.eps[e] > params.eps[e - 1]))
            throw Error("the eps values of a DBSCAN sweep must be strictly ascending");
    }
    for (std::size_t m = 0; m < params.minPts.size(); ++m) {
        validateDbscanParams({.eps = 0.0f, .minPts = params.minPts[m]});
        if (m > 0 && params.minPts[m] <= params.minPts[m - 1])
            throw Error("the MinPts values of a DBSCAN sweep must be strictly ascending");
    }
}

DbscanSweepCell dbscanSweepCell(const DbscanResult& result, float eps, int minPts) {
    const double n = double(result.labels.size());
    DbscanSweepCell cell{.eps = eps, .minPts = minPts, .clusters = result.clusterCount};
    if (n > 0) {
        cell.noiseShare = double(result.stats.noisePoints) / n;
        cell.largestShare = double(result.stats.largestCluster) / n;
    }
    return cell;
}

std::vector<float> logSpacedEps(float lo, float hi, int count) {
    if (!(lo > 0.0f) || !(hi >= lo) || !std::isfinite(hi) || count < 1)
        throw Error("log-spaced eps values need 0 < low <= high (finite) and a count >= 1");
    std::vector<float> eps(std::size_t(count), lo);
    const double ratio = double(hi) / double(lo);
    for (int i = 1; i < count; ++i)
        eps[std::size_t(i)] = float(double(lo) * std::pow(ratio, double(i) / double(count - 1)));
    // Rounding to float must not make neighbours equal (a tiny ratio): keep them ascending.
    for (std::size_t i = 1; i < eps.size(); ++i)
        if (!(eps[i] > eps[i - 1])) eps[i] = std::nextafter(eps[i - 1], INFINITY);
    return eps;
}

DbscanSweepParams defaultDbscanSweep(float centreEps, int epsCount, int minPtsFrom, int minPtsTo) {
    if (!(centreEps > 0.0f) || !std::isfinite(centreEps))
        throw Error("a DBSCAN sweep needs a finite centre eps > 0");
    if (minPtsFrom < 1 || minPtsTo < minPtsFrom)
        throw Error("a DBSCAN sweep needs 1 <= first MinPts <= last MinPts");
    DbscanSweepParams p;
    p.eps = logSpacedEps(centreEps / 4.0f, centreEps * 4.0f, epsCount);
    for (int m = minPtsFrom; m <= minPtsTo; ++m)
        p.minPts.push_back(m);
    return p;
}

std::optional<DbscanPlateau> dbscanPlateau(const DbscanSweepResult& sweep, std::size_t m) {
    std::optional<DbscanPlateau> best;
    for (std::size_t first = 0; first < sweep.eps.size();) {
        const std::int32_t clusters = sweep.at(first, m).clusters;
        std::size_t last = first;
        while (last + 1 < sweep.eps.size() && sweep.at(last + 1, m).clusters == clusters)
            ++last;
        if (clusters >= 2 && (!best || last - first > best->last - best->first))
            best = DbscanPlateau{.first = first,
                                 .last = last,
                                 .clusters = clusters,
                                 .eps = sweep.eps[(first + last) / 2]};
        first = last + 1;
    }
    return best;
}

std::string dbscanSweepCsv(const DbscanSweepResult& sweep) {
    std::string text = "eps,minPts,clusters,noise_share,largest_share\n";
    for (const DbscanSweepCell& c : sweep.cells)
        text += shortest(c.eps) + ',' + std::to_string(c.minPts) + ',' +
                std::to_string(c.clusters) + ',' + number(c.noiseShare, 6) + ',' +
                number(c.largestShare, 6) + '\n';
    return text;
}

std::string dbscanSweepJson(const DbscanSweepResult& sweep) {
    std::string text = "{\"eps\":[";
    for (std::size_t e = 0; e < sweep.eps.size(); ++e)
        text += (e ? "," : "") + shortest(sweep.eps[e]);
    text += "],\"minPts\":[";
    for (std::size_t m = 0; m < sweep.minPts.size(); ++m)
        text += (m ? "," : "") + std::to_string(sweep.minPts[m]);
    text += "],\"cells\":[";
    for (std::size_t i = 0; i < sweep.cells.size(); ++i) {
        const DbscanSweepCell& c = sweep.cells[i];
        text += std::string(i ? "," : "") + "{\"eps\":" + shortest(c.eps) +
                ",\"minPts\":" + std::to_string(c.minPts) +
                ",\"clusters\":" + std::to_string(c.clusters) +
                ",\"noise_share\":" + number(c.noiseShare, 6) +
                ",\"largest_share\":" + number(c.largestShare, 6) + "}";
    }
    return text + "]}";
}

}  // namespace cs
