// SPDX-License-Identifier: MIT
#include "compute/core/item_subset.h"

#include <algorithm>
#include <charconv>
#include <memory>

#include "compute/core/error.h"
#include "compute/core/sparse_set.h"

namespace cs {
namespace {

std::uint32_t parseIndex(std::string_view part, std::string_view whole) {
    std::uint64_t v = 0;
    const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
    if (part.empty() || ec != std::errc() || end != part.data() + part.size() ||
        v > std::uint64_t(UINT32_MAX))
        throw Error("'" + std::string(whole) + "' is not an index or a range of indices (N or " +
                    "FIRST-LAST, separated by commas, e.g. 0-99,120)");
    return std::uint32_t(v);
}

std::string_view trimmed(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() &&
           (s.back() == ' ' || s.back() == '\t' || s.back() == '\n' || s.back() == '\r'))
        s.remove_suffix(1);
    return s;
}

}  // namespace

std::vector<std::uint32_t> parseIndexRanges(std::string_view text) {
    std::vector<std::uint32_t> out;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t comma = std::min(text.find(',', start), text.size());
        const std::string_view part = trimmed(text.substr(start, comma - start));
        start = comma + 1;
        if (part.empty()) {
            if (comma == text.size() && !out.empty()) break;  // a trailing comma
            throw Error("an empty entry in the index list '" + std::string(text) + "'");
        }
        const std::size_t dash = part.find('-');
        if (dash == std::string_view::npos) {
            out.push_back(parseIndex(part, part));
            continue;
        }
        const std::uint32_t first = parseIndex(trimmed(part.substr(0, dash)), part);
        const std::uint32_t last = parseIndex(trimmed(part.substr(dash + 1)), part);
        if (last < first)
            throw Error("the range '" + std::string(part) + "' ends before it starts");
        if (std::uint64_t(last - first) >= (std::uint64_t(1) << 31))
            throw Error("the range '" + std::string(part) + "' is too long");
        for (std::uint64_t i = first; i <= last; ++i)
            out.push_back(std::uint32_t(i));
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

std::string indexRangesText(std::span<const std::uint32_t> sorted) {
    std::string out;
    for (std::size_t i = 0; i < sorted.size();) {
        std::size_t j = i;
        while (j + 1 < sorted.size() && sorted[j + 1] == sorted[j] + 1)
            ++j;
        if (!out.empty()) out += ',';
        out += std::to_string(sorted[i]);
        if (j > i) out += '-' + std::to_string(sorted[j]);
        i = j + 1;
    }
    return out;
}

ItemSubset ItemSubset::of(std::vector<std::uint32_t> indices, std::size_t total) {
    std::sort(indices.begin(), indices.end());
    indices.erase(std::unique(indices.begin(), indices.end()), indices.end());
    if (indices.empty()) throw Error("no items chosen to run on (the selection is empty)");
    if (indices.back() >= total)
        throw Error("item " + std::to_string(indices.back()) + " does not exist: the set has " +
                    std::to_string(total) + " (0 to " + std::to_string(total) + " - 1)");
    return {std::move(indices), total};
}

ItemSubset ItemSubset::parse(std::string_view text, std::size_t total) {
    return of(parseIndexRanges(text), total);
}

std::string ItemSubset::text() const {
    return indexRangesText(indices);
}

std::vector<std::int64_t> ItemSubset::positions() const {
    std::vector<std::int64_t> out(total, -1);
    for (std::size_t j = 0; j < indices.size(); ++j)
        out[indices[j]] = std::int64_t(j);
    return out;
}

PointSet subsetOf(const PointSet& p, const ItemSubset& s) {
    if (s.total != p.n)
        throw Error("a subset of " + std::to_string(s.total) + " points for a set of " +
                    std::to_string(p.n));
    PointSet out;
    out.n = s.size();
    out.dims = p.dims;
    out.dimNames = p.dimNames;
    out.source = p.source;
    out.coords.reserve(out.n * p.dims);
    out.fileRows.reserve(out.n);
    for (std::uint32_t i : s.indices) {
        const auto row = p.point(i);
        out.coords.insert(out.coords.end(), row.begin(), row.end());
        out.fileRows.push_back(p.fileRow(i));
    }
    // The rows not chosen count as rows of the file the subset does not hold.
    out.droppedNonFinite = p.fileRowCount() - out.n;
    for (const PointAttribute& a : p.attributes) {
        PointAttribute b;
        b.name = a.name;
        b.kind = a.kind;
        b.categories = a.categories;
        for (std::uint32_t i : s.indices) {
            if (!a.scalars.empty()) b.scalars.push_back(a.scalars[i]);
            if (!a.labels.empty()) b.labels.push_back(a.labels[i]);
            if (!a.colours.empty()) b.colours.push_back(a.colours[i]);
        }
        out.attributes.push_back(std::move(b));
    }
    if (p.sparse) out.sparse = std::make_shared<const SparseSet>(subsetOf(*p.sparse, s));
    return out;
}

SeriesSet subsetOf(const SeriesSet& x, const ItemSubset& s) {
    if (s.total != x.n)
        throw Error("a subset of " + std::to_string(s.total) + " series for a set of " +
                    std::to_string(x.n));
    SeriesSet out;
    out.n = s.size();
    out.channels = x.channels;
    out.length = x.length;
    out.classNames = x.classNames;
    out.channelNames = x.channelNames;
    out.source = x.source;
    const std::size_t stride = x.channels * x.length;
    out.values.reserve(out.n * stride);
    for (std::uint32_t i : s.indices) {
        out.values.insert(out.values.end(), x.values.begin() + std::ptrdiff_t(i * stride),
                          x.values.begin() + std::ptrdiff_t((i + 1) * stride));
        if (!x.lengths.empty()) out.lengths.push_back(x.lengths[i]);
        if (!x.labels.empty()) out.labels.push_back(x.labels[i]);
        if (!x.targets.empty()) out.targets.push_back(x.targets[i]);
        if (!x.isTest.empty()) out.isTest.push_back(x.isTest[i]);
    }
    return out;
}

}  // namespace cs
