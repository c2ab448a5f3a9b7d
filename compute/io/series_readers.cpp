// SPDX-License-Identifier: MIT
#include "compute/io/series_readers.h"

#include <algorithm>
#include <array>
#include <limits>
#include <system_error>

#include "compute/core/error.h"
#include "compute/io/series_parse.h"
#include "compute/io/text_input.h"

namespace cs::io {
namespace {

enum class Format { Ts, Ucr, Arff };

// The first line that is neither blank nor a comment tells the formats apart: ARFF and .ts
// both open with @-lines, but only ARFF has @relation/@attribute. '%' comments are ARFF's,
// but .ts files carry them too (aeon's UnitTest_TRAIN.ts), so they decide only when no
// @-line follows them.
Format sniff(std::string_view text) {
    LineCursor cursor(detail::stripBom(text));
    std::string_view line;
    bool percent = false;
    while (cursor.next(line)) {
        const std::string_view t = trim(line);
        if (t.empty() || t.front() == '#') continue;
        if (t.front() == '%') {
            percent = true;
            continue;
        }
        if (t.front() != '@') return percent ? Format::Arff : Format::Ucr;
        const std::string keyword = detail::lower(t.substr(0, t.find_first_of(" \t")));
        return keyword == "@relation" || keyword == "@attribute" ? Format::Arff : Format::Ts;
    }
    return percent ? Format::Arff : Format::Ucr;
}

bool endsWithNoCase(const std::string& s, std::string_view suffix) {
    return s.size() >= suffix.size() && detail::lower(s.substr(s.size() - suffix.size())) == suffix;
}

// "_TRAIN" -> "_TEST" in the same letter case as the original ("_train" -> "_test",
// "_Train" -> "_Test"), then the other spellings, for case-sensitive file systems.
std::vector<std::string> swapSuffixes(std::string_view original, std::string_view other) {
    const auto isUpper = [](char c) { return c >= 'A' && c <= 'Z'; };
    const std::string word(original.substr(1));
    std::string upper(other), lowerCase(other), title(other);
    for (auto& c : upper)
        if (c >= 'a' && c <= 'z') c = char(c - 'a' + 'A');
    title[1] = char(title[1] - 'a' + 'A');
    std::vector<std::string> out;
    if (std::all_of(word.begin(), word.end(), isUpper))
        out = {upper, title, lowerCase};
    else if (std::none_of(word.begin(), word.end(), isUpper))
        out = {lowerCase, upper, title};
    else
        out = {title, upper, lowerCase};
    return out;
}

SeriesSet merge(SeriesSet train, SeriesSet test) {
    if (train.channels != test.channels)
        throw InputError(train.source, "has " + std::to_string(train.channels) +
                                           " channel(s) but its test half " + test.source +
                                           " has " + std::to_string(test.channels));
    SeriesSet s;
    s.n = train.n + test.n;
    s.channels = train.channels;
    s.length = std::max(train.length, test.length);
    s.source = train.source + " + " + test.source;
    std::size_t actual = 0;
    for (auto l : train.lengths)
        actual += l;
    for (auto l : test.lengths)
        actual += l;
    detail::checkPadding(s.source, s.n, s.channels, s.length, actual * s.channels);

    s.values.assign(s.n * s.channels * s.length, 0.0f);
    std::size_t row = 0;
    for (const SeriesSet* half : {&train, &test})
        for (std::size_t i = 0; i < half->n; ++i, ++row)
            for (std::size_t c = 0; c < s.channels; ++c)
                std::copy_n(half->channel(i, c).data(), half->lengths[i],
                            s.values.data() + (row * s.channels + c) * s.length);
    s.lengths = std::move(train.lengths);
    s.lengths.insert(s.lengths.end(), test.lengths.begin(), test.lengths.end());
    s.isTest.assign(s.n, 0);
    std::fill(s.isTest.begin() + std::ptrdiff_t(train.n), s.isTest.end(), std::uint8_t(1));
    s.channelNames = train.channelNames.empty() ? test.channelNames : train.channelNames;

    // Targets: a half without them (a classification half beside a regression one is odd, but
    // each half was read on its own terms) has unknown targets, as a half without labels has -1.
    if (!train.targets.empty() || !test.targets.empty()) {
        const double unknown = std::numeric_limits<double>::quiet_NaN();
        for (const SeriesSet* half : {&train, &test})
            if (half->targets.empty())
                s.targets.insert(s.targets.end(), half->n, unknown);
            else
                s.targets.insert(s.targets.end(), half->targets.begin(), half->targets.end());
    }
    for (const SeriesSet* half : {&train, &test})
        for (const auto& note : half->notes)
            s.notes.push_back(half->source + ": " + note);

    // Classes: train's first, then any the test half adds; numbers in numeric order again.
    if (!train.labels.empty() || !test.labels.empty()) {
        detail::ClassTable classes;
        for (const auto& name : train.classNames)
            classes.add(name);
        std::vector<std::int32_t> testIndex;
        for (const auto& name : test.classNames)
            testIndex.push_back(classes.add(name));
        s.labels = train.labels.empty() ? std::vector<std::int32_t>(train.n, -1) : train.labels;
        for (std::size_t i = 0; i < test.n; ++i) {
            const std::int32_t l = test.labels.empty() ? -1 : test.labels[i];
            s.labels.push_back(l < 0 ? -1 : testIndex[std::size_t(l)]);
        }
        classes.sortNumeric(s.labels);
        s.classNames = classes.names();
    }
    return s;
}

}  // namespace

SeriesSet readSeries(const std::filesystem::path& file) {
    const std::string name = file.string();
    const std::string ext = detail::lower(file.extension().string());
    const std::string bytes = readFileBytes(file);
    const Format format = ext == ".ts" ? Format::Ts : ext == ".arff" ? Format::Arff : sniff(bytes);
    switch (format) {
        case Format::Ts:
            return detail::readTsText(name, bytes);
        case Format::Arff:
            return detail::readArffText(name, bytes);
        case Format::Ucr:
            break;
    }
    return detail::readUcrText(name, bytes);
}

SeriesSet readSeriesWithSplit(const std::filesystem::path& file) {
    // "Crop_TRAIN" has no extension; "My.Set_TRAIN" has none either, though the library
    // would call "._TRAIN"-like tails one.
    std::string stem = file.stem().string(), ext = file.extension().string();
    if (!endsWithNoCase(stem, "_train") && !endsWithNoCase(stem, "_test")) {
        stem = file.filename().string();
        ext.clear();
    }
    const bool isTrain = endsWithNoCase(stem, "_train");
    const bool isTestHalf = endsWithNoCase(stem, "_test");
    if (!isTrain && !isTestHalf) return readSeries(file);

    const std::size_t cut = stem.size() - (isTrain ? 6 : 5);
    const std::string base = stem.substr(0, cut);
    std::filesystem::path sibling;
    std::error_code ec;
    for (const auto& suffix :
         swapSuffixes(std::string_view(stem).substr(cut), isTrain ? "_test" : "_train")) {
        const std::filesystem::path candidate = file.parent_path() / (base + suffix + ext);
        if (std::filesystem::is_regular_file(candidate, ec)) {
            sibling = candidate;
            break;
        }
    }
    if (sibling.empty()) return readSeries(file);
    SeriesSet first = readSeries(file), second = readSeries(sibling);
    return isTrain ? merge(std::move(first), std::move(second))
                   : merge(std::move(second), std::move(first));
}

}  // namespace cs::io
