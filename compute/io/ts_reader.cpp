// SPDX-License-Identifier: MIT
//
// The .ts header and data rules, as the two reference readers apply them, and what we do.
// aeon: aeon/datasets/_data_loaders.py, _load_header_info and _load_data (load_from_ts_file).
// sktime: sktime/datasets/_readers_writers/ts.py, load_from_tsfile_to_dataframe.
// Both lower-case every line before looking at it. We accept what either accepts, keep an
// error (file, line, problem) where both reject, and say in SeriesSet::notes whenever we read
// past a header that disagrees with the data or ignore something a user may care about.
//
// - Comments and stray text before @data: aeon skips '#' lines and ignores any line whose first
//   word is not a tag it knows; sktime ignores any line that is not a tag it knows. So '%'
//   comments (aeon's own UnitTest_TRAIN.ts opens with them), '#' comments and other text are
//   all ignored before @data; we do the same. After @data neither skips comments (a '#' line
//   fails as a number); we still skip '#' lines there, as this reader always has.
// - Blank lines: sktime skips them anywhere, aeon in the header; we skip them anywhere.
// - Case: tags are case-insensitive in both. Both lower-case class labels too, so "Walking"
//   in the data matches "walking" in @classLabel; we match a label exactly first, then
//   ignoring case, and keep the declared spelling as the class name.
// - Unknown tags (@problemDescription, @dimensions/@seriesLength for aeon, @missing/
//   @equalLength/@seriesLength/@dimensions for sktime): ignored by both; ignored here.
// - @problemName with no name: both reject (aeon fails on the missing token, sktime says so).
// - @data with a value after it: both reject ("data tag should not have an associated value").
// - A tag after @data: both reject (sktime: "metadata must come before data"; aeon reads it as
//   a case and fails on the number). Missing tags (sktime wants @problemName, @timeStamps,
//   @univariate, @classLabel or @targetLabel): aeon does not; accepted.
// - @timeStamps, @univariate with other than one value: both reject. With one value that is
//   neither true nor false: sktime rejects, aeon ignores it; ignored, with a note.
// - @missing: sktime ignores it, aeon ignores a value that is not true/false; ignored.
// - @equalLength: aeon wants one value; sktime ignores it; used only to check the data.
// - @dimension(s), @seriesLength, @univariate, @equalLength against the data: neither reader
//   checks @dimensions or @seriesLength; sktime checks none of them; aeon refuses a second case
//   with several channels under @univariate true and unequal lengths under @equalLength true.
//   The data decides; a header that disagrees with it is named in a note, not an error.
//   Cases with different numbers of channels: both reject; so do we.
// - Channels of one case with different lengths: aeon rejects, sktime keeps them (a nested
//   frame holds per-channel lengths); SeriesSet has one length per case, so we reject, saying
//   it is not supported.
// - @classLabel: no value, a first value other than true/false, or true without labels: both
//   reject. false followed by labels: both accept (the labels are unused); ignored, with a
//   note. Labels in the list are separated by blanks; we also split on commas and drop empty
//   pieces ("1,2," or "1, 2" are the classes 1 and 2), since a declared "1,2" would be a class
//   no case could match. Labels in the data that the list does not declare: neither reader
//   checks them (sktime does only for time-stamped data); they become classes after the
//   declared ones, with a note. An empty label, '?' or NaN: both keep it as a value; it is
//   the unknown label (-1) here, with a note.
// - A case without its label field under @classLabel true ("1,2,3"): both read nonsense (no
//   channels, the values as the label); refused here ("a case is channels, then the label").
// - @targetLabel: no value or more than one: both reject. true makes the last field a
//   regression target (aeon also turns @classLabel off, so with both true the target wins:
//   so here, with a note). aeon casts targets to float and fails on text; sktime keeps text;
//   we keep them as numbers in SeriesSet::targets and reject text (a target must be a number
//   for any use here). An empty target, '?' or NaN is an unknown target (NaN).
// - @timeStamps true: sktime reads "(t,v),(t,v):..." tuples (the value after the last comma of
//   a tuple; integer or date-time stamps, one kind in a file); aeon's regex pulls every decimal
//   number out of the line, so it gets the values when the stamps are dates or integers (its
//   UnitTestTimeStamps_TRAIN.ts: "(2007-01-01 00:00:00,241.97),...") and nonsense otherwise.
//   We read the tuples as sktime does, with stamps that are numbers or ISO dates
//   ("YYYY-MM-DD", optionally " HH:MM[:SS[.s]]" or with 'T'; other date formats are refused as
//   unsupported), one kind per file, and order each channel's values by time stamp (stably;
//   the spacing between stamps is not kept: a SeriesSet is regularly sampled), with a note.
//   Tuples in the data without @timeStamps true: both fail on them; so do we, naming the tag.
// - Missing values ('?' or NaN, @missing or not): both read them as NaN. SeriesSet holds
//   finite values only, so, as in the UCR and ARFF readers, a run of missing values at the end
//   of a case's channels ends its true length (the case is shorter), with a note; a missing
//   value followed by values is refused as unsupported. Infinite values: refused likewise.
// - An empty value ("1,,3" or a trailing comma "1,2,"): both fail converting it; so do we.
// - Line ends: \n and \r\n (Python's universal newlines); a UTF-8 byte-order mark is skipped.
//   Old Mac files with a lone \r are not split into lines here.
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <utility>
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
    std::optional<bool> timestamps, univariate, equalLength, classLabel, targetLabel;
    std::optional<std::uint64_t> dimensions, seriesLength;
    ClassTable classes;
};

// '?' or NaN in any letter case; called per value, so it allocates nothing.
bool isMissing(std::string_view token) {
    const auto is = [&](std::size_t k, char c) { return token[k] == c || token[k] == c - 32; };
    return token == "?" || (token.size() == 3 && is(0, 'n') && is(1, 'a') && is(2, 'n'));
}

// "YYYY-MM-DD", optionally followed by ' ' or 'T' and "HH:MM", ":SS" and ".fraction", as
// seconds since 1970 (proleptic Gregorian, no time zone): enough to order the stamps.
bool parseDateTime(std::string_view text, double& seconds) {
    std::size_t at = 0;
    const auto digits = [&](std::size_t count, int& v) {
        if (text.size() - at < count) return false;
        v = 0;
        for (std::size_t k = 0; k < count; ++k) {
            const char c = text[at + k];
            if (c < '0' || c > '9') return false;
            v = v * 10 + (c - '0');
        }
        at += count;
        return true;
    };
    const auto sep = [&](char c) { return at < text.size() && text[at] == c && ++at; };
    int y = 0, m = 0, d = 0, hh = 0, mm = 0, ss = 0;
    if (!digits(4, y) || !sep('-') || !digits(2, m) || !sep('-') || !digits(2, d)) return false;
    const std::chrono::year_month_day date{std::chrono::year(y), std::chrono::month(unsigned(m)),
                                           std::chrono::day(unsigned(d))};
    if (!date.ok()) return false;
    double fraction = 0;
    if (at < text.size()) {
        if (text[at] != ' ' && text[at] != 'T') return false;
        ++at;
        if (!digits(2, hh) || !sep(':') || !digits(2, mm) || hh > 23 || mm > 59) return false;
        if (sep(':')) {
            if (!digits(2, ss) || ss > 60) return false;
            if (at < text.size() && text[at] == '.') {
                const std::string_view rest = text.substr(at);
                if (rest.size() < 2 || !parseDouble("0" + std::string(rest), fraction))
                    return false;
                at = text.size();
            }
        }
        if (at != text.size()) return false;
    }
    const auto days = std::chrono::sys_days(date).time_since_epoch().count();
    seconds = double(days) * 86400.0 + hh * 3600.0 + mm * 60.0 + ss + fraction;
    return true;
}

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
            if (t.empty()) continue;
            m_line = cursor.lineNumber();
            if (!inData) {
                if (t.front() == '@')
                    inData = headerLine(t);
                else if (t.front() != '#' && t.front() != '%' && m_strayLine == 0)
                    m_strayLine = m_line;
            } else {
                if (t.front() == '#') continue;
                if (t.front() == '@') fail("header line " + io::quoted(t) + " after @data");
                dataLine(t);
            }
        }
        if (!inData) throw InputError(m_file, Unit::Line, cursor.lineNumber(), "has no @data line");
        if (m_acc.lengths.empty())
            throw InputError(m_file, Unit::Line, cursor.lineNumber(),
                             "holds no series after @data");
        checkHeaderAgainstData();
        std::vector<double> targets = std::move(m_targets);
        SeriesSet s;
        if (m_hasLabel) {
            m_header.classes.sortNumeric(m_acc.labels);
            s = assemble(m_file, std::move(m_acc), m_header.classes.names());
        } else {
            s = assemble(m_file, std::move(m_acc), {});
        }
        s.targets = std::move(targets);
        s.notes = std::move(m_notes);
        return s;
    }

private:
    [[noreturn]] void fail(const std::string& problem) const {
        throw InputError(m_file, Unit::Line, m_line, problem);
    }

    // Notes are few and short: each says once what happened, with the first line it happened.
    void note(const std::string& text) {
        if (std::find(m_notes.begin(), m_notes.end(), text) == m_notes.end())
            m_notes.push_back(text);
    }
    std::string atLine() const { return " (line " + std::to_string(m_line) + ")"; }

    std::optional<bool> parseBool(std::string_view value) const {
        const std::string v = lower(value);
        if (v == "true") return true;
        if (v == "false") return false;
        return std::nullopt;
    }

    // A boolean that aeon ignores and sktime refuses when it is neither true nor false.
    std::optional<bool> lenientBool(std::string_view keyword, std::string_view value) {
        const auto b = parseBool(value);
        if (!b)
            note("ignored " + std::string(keyword) + " " + io::quoted(value) +
                 ": neither true nor false" + atLine());
        return b;
    }

    std::optional<std::uint64_t> parseCount(std::string_view keyword,
                                            const std::vector<std::string_view>& words,
                                            std::uint64_t max) {
        std::uint64_t v = 0;
        const std::string_view value = words.empty() ? std::string_view() : words[0];
        const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
        if (words.size() != 1 || ec != std::errc() || end != value.data() + value.size() ||
            v == 0 || v > max) {
            note("ignored " + std::string(keyword) + ": expected a count from 1 to " +
                 std::to_string(max) + atLine());
            return std::nullopt;
        }
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
            if (!words.empty()) fail("@data takes no value, found " + io::quoted(args));
            startData();
            return true;
        }
        if (keyword == "@problemname") {
            if (words.empty()) fail(std::string(keywordText) + " expects a name");
        } else if (keyword == "@timestamps") {
            m_header.timestamps = lenientBool(keywordText, single());
        } else if (keyword == "@univariate") {
            m_header.univariate = lenientBool(keywordText, single());
        } else if (keyword == "@missing") {
            // Says nothing the data does not: '?' and NaN are read the same either way.
        } else if (keyword == "@dimensions" || keyword == "@dimension") {
            m_header.dimensions = parseCount(keywordText, words, kMaxChannels);
        } else if (keyword == "@equallength") {
            if (words.size() == 1) m_header.equalLength = parseBool(words[0]);
        } else if (keyword == "@serieslength") {
            m_header.seriesLength = parseCount(keywordText, words, UINT32_MAX);
        } else if (keyword == "@classlabel") {
            if (words.empty()) fail(std::string(keywordText) + " expects true or false");
            m_header.classLabel = parseBool(words[0]);
            if (!m_header.classLabel)
                fail(std::string(keywordText) + " expects true or false first, not " +
                     io::quoted(words[0]));
            if (*m_header.classLabel && words.size() == 1)
                fail(std::string(keywordText) + " true declares no class labels");
            if (!*m_header.classLabel && words.size() > 1)
                note("ignored the labels after @classLabel false" + atLine());
            m_header.classes = ClassTable();
            for (std::size_t k = 1; k < words.size() && *m_header.classLabel; ++k)
                for (std::size_t at = 0; at <= words[k].size();) {
                    const std::size_t end = std::min(words[k].find(',', at), words[k].size());
                    if (end > at)
                        m_header.classes.add(canonicalLabel(words[k].substr(at, end - at)));
                    at = end + 1;
                }
        } else if (keyword == "@targetlabel") {
            m_header.targetLabel = lenientBool(keywordText, single());
        }
        // Other @-lines (@problemDescription, newer additions) say nothing the data does not.
        return false;
    }

    void startData() {
        const TsHeader& h = m_header;
        if (m_strayLine)
            note("ignored text before @data that is not a header line (first at line " +
                 std::to_string(m_strayLine) + ")");
        m_timestamps = h.timestamps.value_or(false);
        m_hasTarget = h.targetLabel.value_or(false);
        m_hasLabel = h.classLabel.value_or(false) && !m_hasTarget;
        if (m_hasTarget && h.classLabel.value_or(false))
            note(
                "both @classLabel true and @targetLabel true: the last field was read as a "
                "regression target, as aeon does");
        if (m_timestamps)
            note(
                "time-stamped series: each channel's values were read in time-stamp order; "
                "the spacing between stamps is not kept");
        if (!h.classLabel && !h.targetLabel)
            note(
                "no @classLabel or @targetLabel: read without labels (aeon would take the "
                "last ':' field as the label)");
    }

    // The data decides; a header that says otherwise gets a note (see the top of the file).
    void checkHeaderAgainstData() {
        const TsHeader& h = m_header;
        const std::size_t channels = m_acc.channels;
        const auto [shortest, longest] =
            std::minmax_element(m_acc.lengths.begin(), m_acc.lengths.end());
        const auto num = [](auto v) { return std::to_string(v); };
        if (h.univariate.value_or(false) && channels != 1)
            note("@univariate true, but the series have " + num(channels) + " channels");
        if (h.dimensions && *h.dimensions != channels)
            note("@dimensions " + num(*h.dimensions) + ", but the series have " + num(channels) +
                 " channel(s)");
        if (h.equalLength.value_or(false) && *shortest != *longest)
            note("@equalLength true, but the series have " + num(*shortest) + " to " +
                 num(*longest) + " samples");
        if (h.seriesLength && (*shortest != *h.seriesLength || *longest != *h.seriesLength) &&
            h.equalLength.value_or(true))
            note(
                "@seriesLength " + num(*h.seriesLength) + ", but the series have " +
                (*shortest == *longest ? num(*shortest) : num(*shortest) + " to " + num(*longest)) +
                " samples");
        if (m_unknownLabels)
            note(num(m_unknownLabels) + " series have an empty, '?' or NaN " +
                 (m_hasTarget ? "target, read as unknown (NaN)" : "label, read as unknown (-1)"));
        if (m_undeclaredClasses)
            note(num(m_undeclaredClasses) +
                 " class label(s) not declared by @classLabel were read as classes of their own "
                 "(first: " +
                 m_undeclared + ")");
        if (m_trailingMissing)
            note(num(m_trailingMissing) +
                 " series end in missing values ('?' or NaN), read as shorter series");
    }

    void dataLine(std::string_view t) {
        const std::string series = "series " + std::to_string(m_acc.lengths.size() + 1);
        const std::size_t labelFields = (m_hasLabel || m_hasTarget) ? 1 : 0;
        std::string_view labelToken;
        std::size_t channels = 0, length = 0;
        const auto addChannel = [&](std::size_t count) {
            if (channels == 0) length = count;
            ++channels;
            if (count != length)
                fail(series + " has ragged channels: channel " + std::to_string(channels) +
                     " has " + std::to_string(count) + " values, channel 1 has " +
                     std::to_string(length) + " (one length per case is supported)");
        };

        if (m_timestamps) {
            labelToken = timestampedLine(series, t, labelFields > 0, addChannel);
            if (labelFields && channels == 0)
                fail(series +
                     " has no values before its label (a case is channels, then the "
                     "label)");
            if (channels == 0) fail(series + " has no values");
        } else {
            if (t.find('(') != std::string_view::npos)
                fail(series + " has time stamps '(t,v)', but the header has no @timeStamps true");
            m_fields.clear();
            for (std::size_t at = 0;;) {
                const std::size_t end = t.find(':', at);
                m_fields.push_back(t.substr(at, end == std::string_view::npos ? end : end - at));
                if (end == std::string_view::npos) break;
                at = end + 1;
            }
            if (m_fields.size() <= labelFields)
                fail(series + " has no values" +
                     (labelFields ? " before its label (a case is channels, then the label)" : ""));
            for (std::size_t c = 0; c + labelFields < m_fields.size(); ++c)
                addChannel(parseChannel(series, c, m_fields[c]));
            if (labelFields) labelToken = m_fields.back();
        }

        if (m_acc.channels == 0) m_acc.channels = channels;
        if (channels != m_acc.channels)
            fail(series + " has " + std::to_string(channels) + " channel(s), expected " +
                 std::to_string(m_acc.channels) + " as in series 1" +
                 (labelFields ? " (plus the label as the last ':' field)" : ""));
        if (length > UINT32_MAX) fail(series + " is longer than this program supports");
        m_acc.lengths.push_back(static_cast<std::uint32_t>(length));
        if (m_caseEndsMissing) ++m_trailingMissing;
        m_caseEndsMissing = false;

        if (labelFields) label(series, trim(labelToken));
    }

    void label(const std::string& series, std::string_view token) {
        const bool unknown = token.empty() || isMissing(token);
        if (unknown) ++m_unknownLabels;
        if (m_hasTarget) {
            double target = std::numeric_limits<double>::quiet_NaN();
            if (!unknown && (!parseDouble(token, target) || !std::isfinite(target)))
                fail(series + " has the regression target " + io::quoted(token) +
                     ", which is not a finite number");
            m_targets.push_back(target);
            return;
        }
        if (unknown) {
            m_acc.labels.push_back(-1);
            return;
        }
        const std::string name = canonicalLabel(token);
        std::int32_t index = m_header.classes.find(name);
        if (index < 0) index = findIgnoringCase(name);
        if (index < 0) {
            if (m_undeclared.empty())
                m_undeclared =
                    io::quoted(token) + " in " + series + ", line " + std::to_string(m_line);
            index = m_header.classes.add(name);
            ++m_undeclaredClasses;
        }
        m_acc.labels.push_back(index);
    }

    std::int32_t findIgnoringCase(const std::string& name) const {
        const std::string key = lower(name);
        std::int32_t found = -1;
        const auto& names = m_header.classes.names();
        for (std::size_t k = 0; k < names.size(); ++k)
            if (lower(names[k]) == key) {
                if (found >= 0) return -1;  // "A" and "a" both declared: no guessing
                found = std::int32_t(k);
            }
        return found;
    }

    // One value; false (and nothing stored) for a missing one. where() names it in errors.
    template <typename Where>
    bool value(const std::string& series, std::string_view token, Where&& where) {
        if (token.empty()) fail(series + " has an empty value" + where());
        float v = 0;
        if (isMissing(token)) return false;
        if (!parseFloat(token, v))
            fail(series + " has the value " + io::quoted(token) + where() +
                 ", which is not a number (or is out of float range)");
        if (std::isnan(v)) return false;
        if (std::isinf(v)) fail(series + " has an infinite value" + where() + " (not supported)");
        m_acc.flat.push_back(v);
        return true;
    }

    // Values of one channel; trailing missing values end it early (see the top of the file).
    std::size_t parseChannel(const std::string& series, std::size_t c, std::string_view field) {
        std::size_t count = 0, missing = 0;
        for (std::size_t at = 0;;) {
            const std::size_t end = field.find(',', at);
            const std::string_view token =
                trim(field.substr(at, end == std::string_view::npos ? end : end - at));
            const auto where = [&]() {
                return " at sample " + std::to_string(count + missing + 1) + " of channel " +
                       std::to_string(c + 1);
            };
            if (value(series, token, where)) {
                if (missing)
                    fail(series + " has a missing/NaN value followed by values" + where() +
                         " (only missing values at the end of a series are supported)");
                ++count;
            } else {
                ++missing;
            }
            if (end == std::string_view::npos) break;
            at = end + 1;
        }
        if (count == 0)
            fail(series + " has no values in channel " + std::to_string(c + 1) +
                 " (all missing/NaN)");
        if (missing) m_caseEndsMissing = true;
        return count;
    }

    // "(t,v),(t,v):(t,v),...:label", as sktime reads it: the value is after the last comma of a
    // tuple, the stamp before it. Returns the label text (empty when there is none).
    template <typename AddChannel>
    std::string_view timestampedLine(const std::string& series, std::string_view t, bool wantLabel,
                                     AddChannel&& addChannel) {
        std::size_t at = 0, c = 0;
        const auto skipBlanks = [&]() {
            while (at < t.size() && (t[at] == ' ' || t[at] == '\t'))
                ++at;
        };
        for (;; ++c) {
            skipBlanks();
            if (at >= t.size()) {
                if (wantLabel) fail(series + " ends with ':' where its label should be");
                return {};
            }
            if (t[at] != '(') {
                if (wantLabel && c > 0) return t.substr(at);
                fail(series + " channel " + std::to_string(c + 1) +
                     " does not start with '(' although @timeStamps is true");
            }
            m_stamped.clear();
            for (;;) {
                const std::size_t close = t.find(')', at);
                if (close == std::string_view::npos)
                    fail(series + " channel " + std::to_string(c + 1) +
                         " has a '(' without its ')'");
                const std::string_view tuple = t.substr(at + 1, close - at - 1);
                const std::size_t comma = tuple.rfind(',');
                const auto where = [&]() {
                    return " in tuple " + std::to_string(m_stamped.size() + 1) + " of channel " +
                           std::to_string(c + 1);
                };
                if (comma == std::string_view::npos)
                    fail(series + " has a tuple without a comma" + where());
                double stamp = 0;
                const std::string_view stampText = trim(tuple.substr(0, comma));
                const int kind = parseDouble(stampText, stamp) && std::isfinite(stamp) ? 1
                                 : parseDateTime(stampText, stamp)                     ? 2
                                                                                       : 0;
                if (kind == 0)
                    fail(series + " has the time stamp " + io::quoted(stampText) + where() +
                         ", which is neither a number nor an ISO date-time (YYYY-MM-DD "
                         "HH:MM:SS); other formats are not supported");
                if (m_stampKind != 0 && kind != m_stampKind)
                    fail(series + " has the time stamp " + io::quoted(stampText) + where() +
                         ": the file mixes numeric and date-time stamps");
                m_stampKind = kind;
                const std::string_view valueText = trim(tuple.substr(comma + 1));
                const std::size_t before = m_acc.flat.size();
                if (!value(series, valueText, where))
                    fail(series + " has a missing/NaN value" + where() +
                         " (not supported in time-stamped series)");
                m_stamped.emplace_back(stamp, m_acc.flat[before]);
                m_acc.flat.pop_back();
                at = close + 1;
                skipBlanks();
                if (at < t.size() && t[at] == ',') {
                    ++at;
                    skipBlanks();
                    if (at >= t.size() || t[at] != '(')
                        fail(series + " channel " + std::to_string(c + 1) +
                             " has a ',' not followed by another tuple");
                    continue;
                }
                break;
            }
            std::stable_sort(m_stamped.begin(), m_stamped.end(),
                             [](const auto& a, const auto& b) { return a.first < b.first; });
            for (const auto& [stamp, v] : m_stamped)
                m_acc.flat.push_back(v);
            addChannel(m_stamped.size());
            if (at >= t.size()) {
                if (wantLabel) fail(series + " has no label after its last channel");
                return {};
            }
            if (t[at] != ':')
                fail(series + " has " + io::quoted(t.substr(at)) + " after a tuple of channel " +
                     std::to_string(c + 1) + " (expected ',', ':' or the end of the line)");
            ++at;
        }
    }

    const std::string& m_file;
    std::size_t m_line = 0;
    std::size_t m_strayLine = 0;
    int m_stampKind = 0;  // 0 none yet, 1 numbers, 2 date-times
    TsHeader m_header;
    bool m_timestamps = false;
    bool m_hasLabel = false;
    bool m_hasTarget = false;
    bool m_caseEndsMissing = false;
    std::size_t m_unknownLabels = 0;
    std::size_t m_trailingMissing = 0;
    std::size_t m_undeclaredClasses = 0;
    std::string m_undeclared;  // the first undeclared label, where it is
    SeriesAccumulator m_acc;
    std::vector<double> m_targets;
    std::vector<std::string> m_notes;
    std::vector<std::string_view> m_fields;
    std::vector<std::pair<double, float>> m_stamped;
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
