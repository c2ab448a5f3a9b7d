// SPDX-License-Identifier: MIT
#include "compute/io/series_parse.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <numeric>

#include "compute/core/error.h"
#include "compute/io/text_input.h"

namespace cs::io::detail {

std::string_view stripBom(std::string_view text) {
    if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
    return text;
}

std::string lower(std::string_view s) {
    std::string out(s);
    for (auto& c : out)
        if (c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
    return out;
}

std::string canonicalLabel(std::string_view token) {
    token = trim(token);
    double v = 0;
    // 2^53: beyond it not every integer is a double, and the text would not round-trip.
    if (parseDouble(token, v) && std::isfinite(v) && v == std::floor(v) &&
        std::abs(v) <= 9007199254740992.0) {
        char text[32];
        const auto [end, ec] = std::to_chars(text, text + sizeof text, (long long)v + 0);
        if (ec == std::errc()) return std::string(text, end);
    }
    return std::string(token);
}

std::int32_t ClassTable::add(const std::string& name) {
    const auto [it, inserted] = m_index.emplace(name, std::int32_t(m_names.size()));
    if (inserted) m_names.push_back(name);
    return it->second;
}

std::int32_t ClassTable::find(const std::string& name) const {
    const auto it = m_index.find(name);
    return it == m_index.end() ? -1 : it->second;
}

bool allNumeric(const std::vector<std::string>& names) {
    double v = 0;
    return std::all_of(names.begin(), names.end(),
                       [&](const std::string& s) { return parseDouble(s, v) && std::isfinite(v); });
}

void ClassTable::sortNumeric(std::vector<std::int32_t>& labels) {
    if (m_names.empty() || !allNumeric(m_names)) return;
    std::vector<double> value(m_names.size());
    for (std::size_t k = 0; k < m_names.size(); ++k)
        parseDouble(m_names[k], value[k]);
    std::vector<std::int32_t> order(m_names.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::int32_t a, std::int32_t b) { return value[a] < value[b]; });
    std::vector<std::int32_t> newIndex(m_names.size());
    std::vector<std::string> names(m_names.size());
    for (std::size_t k = 0; k < order.size(); ++k) {
        newIndex[std::size_t(order[k])] = std::int32_t(k);
        names[k] = m_names[std::size_t(order[k])];
    }
    for (auto& l : labels)
        if (l >= 0) l = newIndex[std::size_t(l)];
    m_names = std::move(names);
    for (auto& [name, index] : m_index)
        index = newIndex[std::size_t(index)];
}

void checkPadding(const std::string& file, std::size_t n, std::size_t channels, std::size_t length,
                  std::size_t actual) {
    // Equal lengths cost nothing extra. Very unequal ones (one long series among many short)
    // could turn a small file into gigabytes of zeros: refuse past 32 times the real values,
    // with a floor so that ordinary unequal sets (PLAID, JapaneseVowels: 2-3x) always pass.
    constexpr std::size_t kFloor = std::size_t(1) << 25;
    const std::size_t limit = std::max(kFloor, actual * 32);
    if (length > UINT32_MAX)
        throw InputError(file, "holds a series of " + std::to_string(length) +
                                   " samples, more than this program supports");
    const bool overflow = channels != 0 && length != 0 &&
                          (n > SIZE_MAX / channels || n * channels > SIZE_MAX / length);
    if (overflow || n * channels * length > limit)
        throw InputError(file, "series lengths are too unequal to pad to the longest (" +
                                   std::to_string(length) + " samples x " + std::to_string(n) +
                                   " series x " + std::to_string(channels) + " channels, for " +
                                   std::to_string(actual) + " values read)");
}

SeriesSet assemble(const std::string& file, SeriesAccumulator&& acc,
                   std::vector<std::string> classNames) {
    const std::size_t n = acc.lengths.size();
    if (n == 0) throw InputError(file, "holds no series");
    const std::size_t channels = acc.channels;
    const std::size_t length = *std::max_element(acc.lengths.begin(), acc.lengths.end());
    checkPadding(file, n, channels, length, acc.flat.size());

    SeriesSet s;
    s.n = n;
    s.channels = channels;
    s.length = length;
    if (acc.flat.size() == n * channels * length) {
        s.values = std::move(acc.flat);  // equal lengths: already the padded layout
    } else {
        s.values.assign(n * channels * length, 0.0f);
        const float* from = acc.flat.data();
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t c = 0; c < channels; ++c) {
                std::copy_n(from, acc.lengths[i], s.values.data() + (i * channels + c) * length);
                from += acc.lengths[i];
            }
    }
    s.lengths = std::move(acc.lengths);
    s.labels = std::move(acc.labels);
    s.classNames = std::move(classNames);
    s.source = file;
    return s;
}

}  // namespace cs::io::detail
