// SPDX-License-Identifier: MIT
#include <charconv>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "compute/core/error.h"
#include "compute/io/series_parse.h"
#include "compute/io/series_readers.h"
#include "compute/io/text_input.h"

namespace cs::io {
namespace detail {
namespace {

using Unit = InputError::Unit;

// Far above any real set (UEA's widest has 1345 channels) and far below an allocation hazard;
// nothing is allocated from it anyway, it only rejects nonsense early.
constexpr std::uint64_t kMaxChannels = std::uint64_t(1) << 20;

// The @-lines before @data. Counts in it are checked against the data, never used to size
// anything: a header may promise @seriesLength 999999999 and hold three samples.
struct TsHeader {
    std::optional<bool> univariate, equalLength, classLabel, targetLabel;
    std::optional<std::uint64_t> dimensions, seriesLength;
    ClassTable classes;
};

class TsParser {
public:
    explicit TsParser(const std::string& file) : m_file(file) {}

    SeriesSet parse(std::string_view text) {
        text = stripBom(text);
        if (trim(text).empty()) throw InputError(m_file, "is empty");
        LineCursor cursor(text);
        std::string_view line;
        bool inData = false;
        while (cursor.next(line)) {
            const std::string_view t = trim(line);
            if (t.empty() || t.front() == '#') continue;
            m_line = cursor.lineNumber();
            if (!inData) {
                if (t.front() != '@')
                    fail("expected a header line ('@...') before @data, found " + io::quoted(t));
                inData = headerLine(t);
            } else {
                if (t.front() == '@') fail("header line " + io::quoted(t) + " after @data");
                dataLine(t);
            }
        }
        if (!inData) throw InputError(m_file, Unit::Line, cursor.lineNumber(), "has no @data line");
        if (m_acc.lengths.empty())
            throw InputError(m_file, Unit::Line, cursor.lineNumber(),
                             "holds no series after @data");
        if (!m_hasLabel) return assemble(m_file, std::move(m_acc), {});
        m_header.classes.sortNumeric(m_acc.labels);
        return assemble(m_file, std::move(m_acc), m_header.classes.names());
    }

private:
    [[noreturn]] void fail(const std::string& problem) const {
        throw InputError(m_file, Unit::Line, m_line, problem);
    }

    bool parseBool(std::string_view keyword, std::string_view value) const {
        const std::string v = lower(value);
        if (v == "true") return true;
        if (v == "false") return false;
        fail(std::string(keyword) + " expects true or false, not " + io::quoted(value));
    }

    std::uint64_t parseCount(std::string_view keyword, std::string_view value,
                             std::uint64_t max) const {
        std::uint64_t v = 0;
        const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
        if (ec != std::errc() || end != value.data() + value.size() || v == 0 || v > max)
            fail(std::string(keyword) + " expects a count from 1 to " + std::to_string(max) +
                 ", not " + io::quoted(value));
        return v;
    }

    // One header line; true when it is @data.
    bool headerLine(std::string_view t) {
        std::size_t blank = t.find_first_of(" \t");
        const std::string_view keywordText = t.substr(0, blank);
        const std::string keyword = lower(keywordText);
        const std::string_view args =
            blank == std::string_view::npos ? std::string_view() : trim(t.substr(blank));
        std::vector<std::string_view> words;
        for (std::size_t at = 0; at < args.size();) {
            const std::size_t end = std::min(args.find_first_of(" \t", at), args.size());
            if (end > at) words.push_back(args.substr(at, end - at));
            at = end + 1;
        }
        const auto single = [&]() {
            if (words.size() != 1)
                fail(std::string(keywordText) + " expects one value, found " + io::quoted(args));
            return words[0];
        };

        if (keyword == "@data") {
            startData();
            return true;
        }
        if (keyword == "@timestamps") {
            if (parseBool(keywordText, single()))
                fail("time-stamped series (@timeStamps true) are not supported");
        } else if (keyword == "@missing") {
            parseBool(keywordText, single());  // '?' is rejected in the data either way
        } else if (keyword == "@univariate") {
            m_header.univariate = parseBool(keywordText, single());
        } else if (keyword == "@dimensions" || keyword == "@dimension") {
            m_header.dimensions = parseCount(keywordText, single(), kMaxChannels);
        } else if (keyword == "@equallength") {
            m_header.equalLength = parseBool(keywordText, single());
        } else if (keyword == "@serieslength") {
            m_header.seriesLength = parseCount(keywordText, single(), UINT32_MAX);
        } else if (keyword == "@classlabel") {
            if (words.empty()) fail("@classLabel expects true or false");
            m_header.classLabel = parseBool(keywordText, words[0]);
            if (*m_header.classLabel && words.size() == 1)
                fail("@classLabel true declares no class labels");
            if (!*m_header.classLabel && words.size() > 1)
                fail("@classLabel false is followed by labels " + io::quoted(args));
            for (std::size_t k = 1; k < words.size(); ++k)
                m_header.classes.add(canonicalLabel(words[k]));
        } else if (keyword == "@targetlabel") {
            if (words.empty()) fail("@targetLabel expects true or false");
            m_header.targetLabel = parseBool(keywordText, words[0]);
        }
        // Other @-lines (@problemName, newer additions) say nothing the data does not.
        return false;
    }

    void startData() {
        const TsHeader& h = m_header;
        if (h.univariate.value_or(false) && h.dimensions && *h.dimensions != 1)
            fail("@univariate true contradicts @dimensions " + std::to_string(*h.dimensions));
        if (h.classLabel.value_or(false) && h.targetLabel.value_or(false))
            fail("both @classLabel true and @targetLabel true: a case has only one label field");
        m_hasLabel = h.classLabel.value_or(false);
        // Regression sets (@targetLabel true) are read for their series; the numeric target is
        // checked and dropped, since nothing here regresses on it.
        m_hasTarget = h.targetLabel.value_or(false);
        m_acc.channels = h.dimensions                   ? std::size_t(*h.dimensions)
                         : h.univariate.value_or(false) ? 1
                                                        : 0;  // 0: the first case decides
    }

    void dataLine(std::string_view t) {
        const std::string series = "series " + std::to_string(m_acc.lengths.size() + 1);
        if (t.find('(') != std::string_view::npos)
            fail(series + " has time stamps '(t,v)', which are not supported");
        m_fields.clear();
        for (std::size_t at = 0;;) {
            const std::size_t end = t.find(':', at);
            m_fields.push_back(t.substr(at, end == std::string_view::npos ? end : end - at));
            if (end == std::string_view::npos) break;
            at = end + 1;
        }
        const std::size_t labelFields = (m_hasLabel || m_hasTarget) ? 1 : 0;
        if (m_fields.size() <= labelFields)
            fail(series + " has no values" +
                 (labelFields ? " before its label (a case is channels, then the label)" : ""));
        const std::size_t channels = m_fields.size() - labelFields;
        if (m_acc.channels == 0) m_acc.channels = channels;
        if (channels != m_acc.channels)
            fail(series + " has " + std::to_string(channels) + " channel(s), expected " +
                 std::to_string(m_acc.channels) +
                 (labelFields ? " (plus the label as the last ':' field)" : ""));

        std::size_t length = 0;
        for (std::size_t c = 0; c < channels; ++c) {
            const std::size_t count = parseChannel(series, c, m_fields[c]);
            if (c == 0) length = count;
            if (count != length)
                fail(series + " has ragged channels: channel " + std::to_string(c + 1) + " has " +
                     std::to_string(count) + " values, channel 1 has " + std::to_string(length));
        }
        if (length > UINT32_MAX) fail(series + " is longer than this program supports");
        checkLength(series, length);
        m_acc.lengths.push_back(static_cast<std::uint32_t>(length));

        if (labelFields) {
            const std::string_view token = trim(m_fields.back());
            if (token.empty()) fail(series + " has an empty label");
            if (m_hasLabel) {
                const std::int32_t index = m_header.classes.find(canonicalLabel(token));
                if (index < 0)
                    fail(series + " has the class label " + io::quoted(token) +
                         ", which @classLabel does not declare");
                m_acc.labels.push_back(index);
            } else {
                double target = 0;
                if (!parseDouble(token, target) || !std::isfinite(target))
                    fail(series + " has the regression target " + io::quoted(token) +
                         ", which is not a finite number");
            }
        }
    }

    std::size_t parseChannel(const std::string& series, std::size_t c, std::string_view field) {
        std::size_t count = 0;
        for (std::size_t at = 0;;) {
            const std::size_t end = field.find(',', at);
            const std::string_view token =
                trim(field.substr(at, end == std::string_view::npos ? end : end - at));
            ++count;
            const auto where = [&]() {
                return " at sample " + std::to_string(count) + " of channel " +
                       std::to_string(c + 1);
            };
            if (token.empty()) fail(series + " has an empty value" + where());
            float v = 0;
            const bool number = token != "?" && parseFloat(token, v);
            if (token == "?" || (number && std::isnan(v)))
                fail(series + " has a missing/NaN value" + where() + " (not supported)");
            if (!number)
                fail(series + " has the value " + io::quoted(token) + where() +
                     ", which is not a number (or is out of float range)");
            if (std::isinf(v)) fail(series + " has an infinite value" + where());
            m_acc.flat.push_back(v);
            if (end == std::string_view::npos) break;
            at = end + 1;
        }
        return count;
    }

    void checkLength(const std::string& series, std::size_t length) {
        const TsHeader& h = m_header;
        if (h.equalLength.value_or(false) && !m_acc.lengths.empty() &&
            length != m_acc.lengths.front())
            fail(series + " has " + std::to_string(length) + " samples, series 1 has " +
                 std::to_string(m_acc.lengths.front()) + ", but @equalLength is true");
        if (h.seriesLength && h.equalLength.value_or(true) && length != *h.seriesLength)
            fail(series + " has " + std::to_string(length) + " samples, but @seriesLength is " +
                 std::to_string(*h.seriesLength));
    }

    const std::string& m_file;
    std::size_t m_line = 0;
    TsHeader m_header;
    bool m_hasLabel = false;
    bool m_hasTarget = false;
    SeriesAccumulator m_acc;
    std::vector<std::string_view> m_fields;
};

}  // namespace

SeriesSet readTsText(const std::string& file, std::string_view text) {
    return TsParser(file).parse(text);
}

}  // namespace detail

SeriesSet readTs(const std::filesystem::path& file) {
    const std::string bytes = readFileBytes(file);
    return detail::readTsText(file.string(), bytes);
}

}  // namespace cs::io
