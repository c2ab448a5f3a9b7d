// SPDX-License-Identifier: MIT
#include "compute/io/point_common.h"

#include <charconv>
#include <numeric>

#include "compute/core/error.h"

namespace cs::io::detail {

bool parseUnsigned(std::string_view token, std::uint64_t& value) {
    if (token.empty()) return false;
    const char* last = token.data() + token.size();
    auto [ptr, ec] = std::from_chars(token.data(), last, value);
    return ec == std::errc() && ptr == last;
}

std::string lowerAscii(std::string_view s) {
    std::string out(s);
    for (char& c : out)
        if (c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
    return out;
}

std::size_t splitBlanks(std::string_view line, std::string_view* tokens, std::size_t maxTokens) {
    std::size_t count = 0;
    std::size_t i = 0;
    const std::size_t n = line.size();
    while (true) {
        while (i < n && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
            ++i;
        if (i >= n) break;
        const std::size_t start = i;
        while (i < n && line[i] != ' ' && line[i] != '\t' && line[i] != '\r')
            ++i;
        if (count < maxTokens) tokens[count] = line.substr(start, i - start);
        ++count;
    }
    return count;
}

void countRow(PointSet& set, std::size_t kept, bool keep) {
    if (!keep) {
        if (set.droppedNonFinite++ == 0) {
            set.fileRows.resize(kept);
            std::iota(set.fileRows.begin(), set.fileRows.end(), std::size_t(0));
        }
        return;
    }
    if (set.droppedNonFinite > 0) set.fileRows.push_back(kept + set.droppedNonFinite);
}

void dropNonFinite(PointSet& set) {
    const std::size_t d = set.dims;
    if (d == 0) return;
    std::size_t kept = 0;
    for (std::size_t i = 0; i < set.n; ++i) {
        const float* p = set.coords.data() + i * d;
        bool finite = true;
        for (std::size_t j = 0; j < d; ++j)
            finite = finite && std::isfinite(p[j]);
        countRow(set, kept, finite);
        if (!finite) continue;
        if (kept != i) {
            std::memmove(set.coords.data() + kept * d, p, d * sizeof(float));
            for (auto& a : set.attributes) {
                if (!a.scalars.empty()) a.scalars[kept] = a.scalars[i];
                if (!a.labels.empty()) a.labels[kept] = a.labels[i];
                if (!a.colours.empty()) a.colours[kept] = a.colours[i];
            }
        }
        ++kept;
    }
    if (kept == set.n) return;
    set.n = kept;
    set.coords.resize(kept * d);
    for (auto& a : set.attributes) {
        if (!a.scalars.empty()) a.scalars.resize(kept);
        if (!a.labels.empty()) a.labels.resize(kept);
        if (!a.colours.empty()) a.colours.resize(kept);
    }
}

void requirePoints(const PointSet& set, const std::string& file) {
    if (set.n > 0) return;
    if (set.droppedNonFinite > 0)
        throw InputError(file, "has no usable points: all " + std::to_string(set.droppedNonFinite) +
                                   " points have a NaN or infinite coordinate");
    throw InputError(file, "holds no points");
}

}  // namespace cs::io::detail
