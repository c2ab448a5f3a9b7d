// SPDX-License-Identifier: MIT
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "compute/core/error.h"
#include "compute/io/series_readers.h"
#include "tests/common/test_paths.h"

namespace {

using cs::test::sharedData;
using cs::test::testSource;

std::string joined(const std::vector<std::string>& names) {
    std::string out;
    for (const auto& n : names)
        out += (out.empty() ? "" : " ") + n;
    return out;
}

std::vector<std::string> splitOn(const std::string& s, char sep) {
    std::vector<std::string> out;
    std::string part;
    std::istringstream in(s);
    while (std::getline(in, part, sep))
        out.push_back(part);
    if (!s.empty() && s.back() == sep) out.emplace_back();
    return out;
}

// The data lines of a real file, split the plain way, as an oracle independent of the readers:
// per case the label and, per channel, the value tokens.
struct RawCase {
    std::string label;
    std::vector<std::vector<std::string>> channels;
};

std::vector<RawCase> rawCases(const std::filesystem::path& file) {
    const bool ts = file.extension() == ".ts";
    std::ifstream in(file);
    std::vector<RawCase> cases;
    std::string line;
    bool data = !ts;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') continue;
        if (!data) {
            data = line.rfind("@data", 0) == 0;
            continue;
        }
        RawCase c;
        if (ts) {
            auto fields = splitOn(line, ':');
            c.label = fields.back();
            fields.pop_back();
            for (const auto& f : fields)
                c.channels.push_back(splitOn(f, ','));
        } else {
            auto tokens = splitOn(line, ',');
            c.label = tokens.front();
            tokens.erase(tokens.begin());
            c.channels.push_back(tokens);
        }
        cases.push_back(std::move(c));
    }
    return cases;
}

// Checks a read against the raw text, value by value.
void compareWithRaw(const cs::SeriesSet& s, const std::vector<RawCase>& raw, std::size_t first) {
    for (std::size_t k = 0; k < raw.size(); ++k) {
        const std::size_t i = first + k;
        const RawCase& r = raw[k];
        QCOMPARE(s.channels, r.channels.size());
        QCOMPARE(std::size_t(s.lengths[i]), r.channels[0].size());
        QCOMPARE(s.classNames.at(std::size_t(s.labels[i])), r.label);
        for (std::size_t c = 0; c < s.channels; ++c) {
            const auto x = s.channel(i, c);
            for (std::size_t t = 0; t < r.channels[c].size(); ++t)
                if (x[t] != std::strtof(r.channels[c][t].c_str(), nullptr))
                    QFAIL(qPrintable(QString("series %1 channel %2 sample %3: %4 vs '%5'")
                                         .arg(i)
                                         .arg(c)
                                         .arg(t)
                                         .arg(double(x[t]))
                                         .arg(QString::fromStdString(r.channels[c][t]))));
            for (std::size_t t = s.lengths[i]; t < s.length; ++t)
                QCOMPARE(x[t], 0.0f);
        }
    }
}

std::filesystem::path writeFile(const QTemporaryDir& dir, const std::string& name,
                                const std::string& text) {
    const std::filesystem::path file = dir.filePath(QString::fromStdString(name)).toStdString();
    std::ofstream(file, std::ios::binary) << text;
    return file;
}

// A read as one line of text, for data-driven checks: shape, classes, labels, targets and
// values (padding included), e.g. "c=1 lengths=3,3 classes=1,2 labels=0,1 targets= values=...".
std::string summary(const cs::SeriesSet& s) {
    const auto list = [](const auto& v) {
        std::ostringstream out;
        for (std::size_t k = 0; k < v.size(); ++k)
            out << (k ? "," : "") << v[k];
        return out.str();
    };
    std::vector<int> lengths(s.lengths.begin(), s.lengths.end());
    return "c=" + std::to_string(s.channels) + " lengths=" + list(lengths) +
           " classes=" + list(s.classNames) + " labels=" + list(s.labels) +
           " targets=" + list(s.targets) + " values=" + list(s.values);
}

}  // namespace

class TestSeriesReaders : public QObject {
    Q_OBJECT

private slots:
    // Every real set in ../shared/data/ucr, each half on its own; shapes from SOURCES.md.
    void realSets_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("n");
        QTest::addColumn<int>("channels");
        QTest::addColumn<int>("length");
        QTest::addColumn<int>("minLength");
        QTest::addColumn<QString>("classes");
        const QString digits9 = "1 2 3 4 5 6 7 8 9";
        struct Row {
            const char* file;
            int n, channels, length, minLength;
            QString classes;
        };
        const Row rows[] = {
            {"GunPoint/GunPoint_TRAIN.ts", 50, 1, 150, 150, "1 2"},
            {"GunPoint/GunPoint_TEST.ts", 150, 1, 150, 150, "1 2"},
            {"ItalyPowerDemand/ItalyPowerDemand_TRAIN.ts", 67, 1, 24, 24, "1 2"},
            {"ItalyPowerDemand/ItalyPowerDemand_TEST.ts", 1029, 1, 24, 24, "1 2"},
            {"ArrowHead/ArrowHead_TRAIN.ts", 36, 1, 251, 251, "0 1 2"},
            {"ArrowHead/ArrowHead_TEST.ts", 175, 1, 251, 251, "0 1 2"},
            {"OSULeaf/OSULeaf_TRAIN.ts", 200, 1, 427, 427, "1 2 3 4 5 6"},
            {"OSULeaf/OSULeaf_TEST.ts", 242, 1, 427, 427, "1 2 3 4 5 6"},
            {"ACSF1/ACSF1_TRAIN.ts", 100, 1, 1460, 1460, "0 1 2 3 4 5 6 7 8 9"},
            {"ACSF1/ACSF1_TEST.ts", 100, 1, 1460, 1460, "0 1 2 3 4 5 6 7 8 9"},
            {"PLAID/PLAID_TRAIN.ts", 537, 1, 1344, 100, "0 1 2 3 4 5 6 7 8 9 10"},
            {"PLAID/PLAID_TEST.ts", 537, 1, 1000, 134, "0 1 2 3 4 5 6 7 8 9 10"},
            {"BasicMotions/BasicMotions_TRAIN.ts", 40, 6, 100, 100,
             "Standing Running Walking Badminton"},
            {"BasicMotions/BasicMotions_TEST.ts", 40, 6, 100, 100,
             "Standing Running Walking Badminton"},
            {"JapaneseVowels/JapaneseVowels_TRAIN.ts", 270, 12, 26, 7, digits9},
            {"JapaneseVowels/JapaneseVowels_TEST.ts", 370, 12, 29, 7, digits9},
            {"Crop/Crop_TRAIN", 7200, 1, 46, 46,
             "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24"},
            {"InlineSkate/InlineSkate_TRAIN", 100, 1, 1882, 1882, "1 2 3 4 5 6 7"},
        };
        for (const auto& r : rows)
            QTest::newRow(r.file) << r.file << r.n << r.channels << r.length << r.minLength
                                  << r.classes;
    }
    void realSets() {
        QFETCH(QString, file);
        QFETCH(int, n);
        QFETCH(int, channels);
        QFETCH(int, length);
        QFETCH(int, minLength);
        QFETCH(QString, classes);
        const auto path = sharedData("ucr/" + file.toStdString());
        const cs::SeriesSet s = cs::io::readSeries(path);
        s.validate();
        QCOMPARE(s.n, std::size_t(n));
        QCOMPARE(s.channels, std::size_t(channels));
        QCOMPARE(s.length, std::size_t(length));
        QCOMPARE(int(*std::min_element(s.lengths.begin(), s.lengths.end())), minLength);
        QCOMPARE(QString::fromStdString(joined(s.classNames)), classes);
        QVERIFY(s.isTest.empty());
        QVERIFY(s.targets.empty());
        // Their headers agree with their data: nothing to say.
        QVERIFY2(s.notes.empty(), s.notes.empty() ? "" : s.notes.front().c_str());
        QCOMPARE(s.source, path.string());
        compareWithRaw(s, rawCases(path), 0);
        // Every class is used in these sets.
        std::vector<int> used(s.classCount());
        for (auto l : s.labels)
            ++used.at(std::size_t(l));
        QVERIFY(std::all_of(used.begin(), used.end(), [](int u) { return u > 0; }));
    }

    void splitGunPoint() {
        const auto train = sharedData("ucr/GunPoint/GunPoint_TRAIN.ts");
        const auto test = sharedData("ucr/GunPoint/GunPoint_TEST.ts");
        for (const auto& given : {train, test}) {
            const cs::SeriesSet s = cs::io::readSeriesWithSplit(given);
            s.validate();
            QCOMPARE(s.n, std::size_t(200));
            QCOMPARE(std::count(s.isTest.begin(), s.isTest.end(), 0), 50);
            QVERIFY(
                std::all_of(s.isTest.begin(), s.isTest.begin() + 50, [](auto t) { return !t; }));
            QCOMPARE(s.length, std::size_t(150));
            QCOMPARE(joined(s.classNames), std::string("1 2"));
            QCOMPARE(s.source, train.string() + " + " + test.string());
            compareWithRaw(s, rawCases(train), 0);
            compareWithRaw(s, rawCases(test), 50);
        }
    }

    void splitVariableLength() {
        // The halves have different longest series; the merge pads both to the longer.
        const auto s = cs::io::readSeriesWithSplit(sharedData("ucr/PLAID/PLAID_TEST.ts"));
        s.validate();
        QCOMPARE(s.n, std::size_t(1074));
        QCOMPARE(s.length, std::size_t(1344));
        compareWithRaw(s, rawCases(sharedData("ucr/PLAID/PLAID_TEST.ts")), 537);
        const auto v =
            cs::io::readSeriesWithSplit(sharedData("ucr/JapaneseVowels/JapaneseVowels_TRAIN.ts"));
        v.validate();
        QCOMPARE(v.n, std::size_t(640));
        QCOMPARE(v.channels, std::size_t(12));
        QCOMPARE(v.length, std::size_t(29));
        compareWithRaw(v, rawCases(sharedData("ucr/JapaneseVowels/JapaneseVowels_TRAIN.ts")), 0);
    }

    void splitWithoutSibling() {
        const auto s = cs::io::readSeriesWithSplit(sharedData("ucr/Crop/Crop_TRAIN"));
        QCOMPARE(s.n, std::size_t(7200));
        QVERIFY(s.isTest.empty());
    }

    void splitMergesClasses() {
        // series_pair_TEST has class 3, unknown to TRAIN, and longer series.
        const auto s = cs::io::readSeriesWithSplit(testSource("io/data/series_pair_TRAIN.tsv"));
        s.validate();
        QCOMPARE(s.n, std::size_t(4));
        QCOMPARE(s.length, std::size_t(3));
        QCOMPARE(joined(s.classNames), std::string("1 2 3"));
        QCOMPARE(s.labels, (std::vector<std::int32_t>{0, 1, 2, 0}));
        QCOMPARE(s.isTest, (std::vector<std::uint8_t>{0, 0, 1, 1}));
        QCOMPARE(s.lengths, (std::vector<std::uint32_t>{2, 2, 3, 1}));
        QCOMPARE(s.values, (std::vector<float>{0.5f, 1.5f, 0, 2, 3, 0, 1, 2, 3, 4, 0, 0}));
    }

    void splitCaseInsensitive_data() {
        QTest::addColumn<QString>("trainName");
        QTest::addColumn<QString>("testName");
        QTest::newRow("lower") << "gp_train.ts"
                               << "gp_test.ts";
        QTest::newRow("title") << "gp_Train.ts"
                               << "gp_Test.ts";
        QTest::newRow("no extension") << "gp_TRAIN"
                                      << "gp_TEST";
        QTest::newRow("mixed") << "gp_train.ts"
                               << "gp_TEST.ts";
    }
    void splitCaseInsensitive() {
        QFETCH(QString, trainName);
        QFETCH(QString, testName);
        QTemporaryDir dir;
        const auto train = dir.filePath(trainName).toStdString();
        const auto test = dir.filePath(testName).toStdString();
        std::filesystem::copy_file(sharedData("ucr/GunPoint/GunPoint_TRAIN.ts"), train);
        std::filesystem::copy_file(sharedData("ucr/GunPoint/GunPoint_TEST.ts"), test);
        const auto s = cs::io::readSeriesWithSplit(test);
        QCOMPARE(s.n, std::size_t(200));
        QCOMPARE(s.source, train + " + " + test);
    }

    void splitChannelMismatch() {
        QTemporaryDir dir;
        const auto train = dir.filePath("M_TRAIN.ts").toStdString();
        const auto test = dir.filePath("M_TEST.ts").toStdString();
        std::filesystem::copy_file(sharedData("ucr/GunPoint/GunPoint_TRAIN.ts"), train);
        std::filesystem::copy_file(sharedData("ucr/BasicMotions/BasicMotions_TEST.ts"), test);
        try {
            cs::io::readSeriesWithSplit(train);
            QFAIL("no error for halves with different channels");
        } catch (const cs::InputError& e) {
            const std::string what = e.what();
            QVERIFY2(what.find(train) != std::string::npos, e.what());
            QVERIFY2(what.find(test) != std::string::npos, e.what());
            QVERIFY2(what.find("channel") != std::string::npos, e.what());
        }
    }

    void arffSmall() {
        const auto file = testSource("io/data/series_small.arff");
        const auto s = cs::io::readArff(file);
        s.validate();
        QCOMPARE(s.n, std::size_t(4));
        QCOMPARE(s.channels, std::size_t(1));
        QCOMPARE(s.length, std::size_t(5));
        QCOMPARE(s.lengths, (std::vector<std::uint32_t>{5, 5, 3, 5}));
        QCOMPARE(joined(s.classNames), std::string("up down flat"));
        QCOMPARE(s.labels, (std::vector<std::int32_t>{0, 1, 2, -1}));
        QCOMPARE(s.channel(1, 0)[0], -0.1f);
        QCOMPARE(s.channel(2, 0)[2], 3.0f);
        QCOMPARE(s.channel(2, 0)[3], 0.0f);
        QCOMPARE(cs::io::readSeries(file).values, s.values);
    }

    void ucrNanPadding() {
        const auto s = cs::io::readUcr(testSource("io/data/series_nan_padded.tsv"));
        s.validate();
        QCOMPARE(s.n, std::size_t(4));
        QCOMPARE(s.length, std::size_t(4));
        QCOMPARE(s.lengths, (std::vector<std::uint32_t>{4, 3, 1, 4}));
        // "1.0", "1.0000000e+00" and "1" are one class; numeric names in numeric order.
        QCOMPARE(joined(s.classNames), std::string("-1 1 2"));
        QCOMPARE(s.labels, (std::vector<std::int32_t>{1, 0, 2, 1}));
        QCOMPARE(s.values,
                 (std::vector<float>{0.25f, 0.5f, 0.75f, 1, 3, 2, 1, 0, -5, 0, 0, 0, 7, 8, 9, 10}));
    }

    void ucrHeaderAndTextLabels() {
        const auto s = cs::io::readSeries(testSource("io/data/series_header.csv"));
        s.validate();
        QCOMPARE(s.n, std::size_t(4));
        QCOMPARE(s.length, std::size_t(4));
        QCOMPARE(joined(s.classNames), std::string("walk run sit"));  // first appearance
        QCOMPARE(s.labels, (std::vector<std::int32_t>{0, 1, 0, 2}));
        QCOMPARE(s.channel(2, 0)[3], 0.8f);
    }

    void ucrWhitespace() {
        // The pre-2018 UCR layout: runs of spaces, labels in exponent notation.
        QTemporaryDir dir;
        const auto file = writeFile(dir, "old_TRAIN",
                                    "  1.0000000e+00  -6.4e-01  2.5e-01\n"
                                    "  2.0000000e+00   1.0e+00  3.0e+00  \n");
        const auto s = cs::io::readSeriesWithSplit(file);
        s.validate();
        QCOMPARE(joined(s.classNames), std::string("1 2"));
        QCOMPARE(s.values, (std::vector<float>{-0.64f, 0.25f, 1, 3}));
    }

    void tsRegression() {
        const auto s = cs::io::readTs(testSource("io/data/series_regression.ts"));
        s.validate();
        QCOMPARE(s.n, std::size_t(2));
        QCOMPARE(s.channels, std::size_t(2));
        QCOMPARE(s.length, std::size_t(3));
        QVERIFY(s.labels.empty());
        QVERIFY(s.classNames.empty());
        QCOMPARE(s.values, (std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}));
        QCOMPARE(s.targets, (std::vector<double>{0.5, -2.25}));
        QVERIFY(s.notes.empty());
    }

    // One file per header rule of ts_reader.cpp (the rules aeon and sktime apply): what it
    // reads, and a fragment of the notes (empty: there must be no notes).
    void tsHeaderRules_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("expected");
        QTest::addColumn<QString>("note");
        const auto row = [](const char* tag, const QString& text, const char* expected,
                            const char* note) {
            QTest::newRow(tag) << text << QString(expected) << QString(note);
        };
        // The header of aeon's aeon/datasets/data/UnitTest/UnitTest_TRAIN.ts, shortened data.
        row("aeon UnitTest header",
            "%# This is a cut down version of the problem ChinaTown, useful for code examples "
            "and very slow unit tests\n"
            "% The Train set is the same as ChinaTown, but the test set is reduced from 340 "
            "cases to 22 cases\n%\n"
            "@problemName UnitTest\n@timeStamps false\n@missing false\n@univariate true\n"
            "@equalLength true\n@seriesLength 3\n@classLabel true 1 2\n@data\n"
            "573.0,375.0,301.0:1\n144.0,73.0,21.0:2\n",
            "c=1 lengths=3,3 classes=1,2 labels=0,1 targets= values=573,375,301,144,73,21", "");
        row("hash comments, blank lines",
            "# c\n\n@problemName x\n  # indented\n@classLabel true a b\n\n@data\n1,2:a\n\n"
            "# in the data\n3,4:b\n",
            "c=1 lengths=2,2 classes=a,b labels=0,1 targets= values=1,2,3,4", "");
        row("stray text before @data", "some free text\n@classLabel true 1\n@data\n1,2:1\n",
            "c=1 lengths=2 classes=1 labels=0 targets= values=1,2", "not a header line");
        row("tag and label case", "@PROBLEMNAME X\n@ClassLabel TRUE Up down\n@DATA\n1:up\n2:DOWN\n",
            "c=1 lengths=1,1 classes=Up,down labels=0,1 targets= values=1,2", "");
        row("unknown tags",
            "@problemName x\n@problemDescription anything at all\n@source UEA 2018\n"
            "@classLabel true 1\n@data\n1,2:1\n",
            "c=1 lengths=2 classes=1 labels=0 targets= values=1,2", "");
        row("no tags at all", "@data\n1,2,3\n",
            "c=1 lengths=3 classes= labels= targets= values=1,2,3", "no @classLabel");
        row("classLabel false with labels", "@classLabel false 1 2\n@data\n1,2\n",
            "c=1 lengths=2 classes= labels= targets= values=1,2", "ignored the labels");
        row("class list with commas", "@classLabel true 1,2, 3,\n@data\n5:3\n6:1\n7:2\n",
            "c=1 lengths=1,1,1 classes=1,2,3 labels=2,0,1 targets= values=5,6,7", "");
        row("undeclared label", "@classLabel true a\n@data\n1:a\n2:b\n",
            "c=1 lengths=1,1 classes=a,b labels=0,1 targets= values=1,2", "not declared");
        row("unknown labels", "@classLabel true a\n@data\n1:a\n2:?\n3: \n4:NaN\n",
            "c=1 lengths=1,1,1,1 classes=a labels=0,-1,-1,-1 targets= values=1,2,3,4",
            "3 series have an empty");
        row("regression targets", "@targetLabel true\n@data\n1,2:0.5\n3,4:-2.25\n5,6:?\n",
            "c=1 lengths=2,2,2 classes= labels= targets=0.5,-2.25,nan values=1,2,3,4,5,6",
            "target, read as unknown");
        row("label and target", "@classLabel true 1 2\n@targetLabel true\n@data\n1,2:1.5\n",
            "c=1 lengths=2 classes= labels= targets=1.5 values=1,2", "both @classLabel");
        row("dimensions disagree", "@dimensions 3\n@classLabel false\n@data\n1,2:3,4\n",
            "c=2 lengths=2 classes= labels= targets= values=1,2,3,4",
            "@dimensions 3, but the series have 2");
        row("univariate disagrees", "@univariate true\n@classLabel false\n@data\n1,2:3,4\n",
            "c=2 lengths=2 classes= labels= targets= values=1,2,3,4", "@univariate true, but");
        row("seriesLength disagrees", "@seriesLength 999999999\n@classLabel false\n@data\n1,2,3\n",
            "c=1 lengths=3 classes= labels= targets= values=1,2,3",
            "@seriesLength 999999999, but the series have 3");
        row("equalLength disagrees", "@equalLength true\n@classLabel false\n@data\n1,2,3\n1,2\n",
            "c=1 lengths=3,2 classes= labels= targets= values=1,2,3,1,2,0",
            "@equalLength true, but the series have 2 to 3");
        row("counts not counts", "@dimensions many\n@seriesLength 0\n@classLabel false\n@data\n1\n",
            "c=1 lengths=1 classes= labels= targets= values=1", "ignored @dimensions");
        row("booleans not booleans",
            "@univariate maybe\n@missing perhaps not\n@classLabel false\n@data\n1\n",
            "c=1 lengths=1 classes= labels= targets= values=1", "ignored @univariate 'maybe'");
        row("trailing missing values",
            "@missing true\n@classLabel false\n@data\n1,2,?:4,5,NaN\n7,8,9:1,2,3\n",
            "c=2 lengths=2,3 classes= labels= targets= values=1,2,0,4,5,0,7,8,9,1,2,3",
            "1 series end in missing values");
        row("time stamps",
            "@timeStamps true\n@classLabel true a b\n@data\n"
            "(2,20),(0,0),(1,10):(0,5),(1,6),(2,7):a\n(0, 1) , (1, 2):(5,3),(7,4):b\n",
            "c=2 lengths=3,2 classes=a,b labels=0,1 targets= values=0,10,20,5,6,7,1,2,0,3,4,0",
            "time-stamp order");
        // As aeon's UnitTestTimeStamps_TRAIN.ts, with the stamps of the first case shuffled.
        row("date-time stamps",
            "@problemName UnitTestTimeStamps\n@timeStamps True\n@missing false\n"
            "@univariate true\n@equalLength true\n@seriesLength 4\n@classLabel true 1 2\n@data\n"
            "(2007-01-01 00:02:00,241.64),(2007-01-01 00:00:00,241.97),(2007-01-01 "
            "00:03:00,241.71),"
            "(2007-01-01 00:01:00,241.75):1\n"
            "(2008-09-09T20:56:00.5,4.0),(2008-09-09 20:57:00,0.0),(2008-09-10,1.0),"
            "(2008-09-09 20:59,11.0):2\n",
            "c=1 lengths=4,4 classes=1,2 labels=0,1 targets= "
            "values=241.97,241.75,241.64,241.71,4,0,11,1",
            "time-stamp order");
        row("time stamps, no labels", "@timeStamps true\n@classLabel false\n@data\n(0,1),(1.5,2)\n",
            "c=1 lengths=2 classes= labels= targets= values=1,2", "time-stamp order");
        row("windows line ends",
            "@problemName w\r\n@classLabel true 1 2\r\n@data\r\n1,2:1\r\n3,4:2\r\n",
            "c=1 lengths=2,2 classes=1,2 labels=0,1 targets= values=1,2,3,4", "");
    }
    void tsHeaderRules() {
        QFETCH(QString, text);
        QFETCH(QString, expected);
        QFETCH(QString, note);
        QTemporaryDir dir;
        const auto s = cs::io::readSeries(writeFile(dir, "rule.ts", text.toStdString()));
        s.validate();
        QCOMPARE(s.n, s.lengths.size());
        QCOMPARE(QString::fromStdString(summary(s)), expected);
        std::string notes;
        for (const auto& n : s.notes)
            notes += n + "\n";
        if (note.isEmpty())
            QVERIFY2(notes.empty(), notes.c_str());
        else
            QVERIFY2(QString::fromStdString(notes).contains(note), notes.c_str());
    }

    // A TRAIN/TEST pair keeps its targets in order and names each half in its notes.
    void splitTargets() {
        QTemporaryDir dir;
        writeFile(dir, "R_TRAIN.ts", "@targetLabel true\n@data\n1,2:0.5\n");
        const auto test =
            writeFile(dir, "R_TEST.ts", "@univariate maybe\n@classLabel false\n@data\n3,4\n");
        const auto s = cs::io::readSeriesWithSplit(test);
        s.validate();
        QCOMPARE(s.n, std::size_t(2));
        QCOMPARE(s.targets.size(), std::size_t(2));
        QCOMPARE(s.targets[0], 0.5);
        QVERIFY(std::isnan(s.targets[1]));
        QCOMPARE(s.notes.size(), std::size_t(1));
        QVERIFY2(s.notes[0].rfind(test.string() + ": ignored @univariate", 0) == 0,
                 s.notes[0].c_str());
    }

    void tsOddHeaders() {
        const auto s = cs::io::readTs(testSource("io/data/series_odd_headers.ts"));
        s.validate();
        QCOMPARE(s.n, std::size_t(3));
        QCOMPARE(s.length, std::size_t(4));
        QCOMPARE(s.lengths, (std::vector<std::uint32_t>{3, 2, 4}));
        QCOMPARE(joined(s.classNames), std::string("-1 2 10"));
        QCOMPARE(s.labels, (std::vector<std::int32_t>{2, 0, 1}));
        QCOMPARE(s.values, (std::vector<float>{1.5f, 2.5f, 3.5f, 0, -1, -2, 0, 0, 4, 5, 6, 7}));
    }

    void tsUnequalMultivariate() {
        const auto s = cs::io::readTs(testSource("io/data/series_unequal_multi.ts"));
        s.validate();
        QCOMPARE(s.n, std::size_t(3));
        QCOMPARE(s.channels, std::size_t(3));
        QCOMPARE(s.length, std::size_t(5));
        QCOMPARE(s.lengths, (std::vector<std::uint32_t>{3, 2, 5}));
        QCOMPARE(joined(s.classNames), std::string("a b"));
        QCOMPARE(s.labels, (std::vector<std::int32_t>{1, 0, 0}));
        QCOMPARE(s.channel(1, 2)[1], 6.0f);
        QCOMPARE(s.channel(1, 2)[2], 0.0f);
        QCOMPARE(s.channel(2, 2)[0], 5.0f);
    }

    void dispatchByContent_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("n");
        QTest::newRow("ts in .txt") << "a.txt"
                                    << "@classLabel true x\n@data\n1,2:x\n"
                                    << 1;
        QTest::newRow("ts with % comments in .txt") << "u.txt"
                                                    << "% aeon style\n%\n@problemName u\n"
                                                       "@classLabel true 1\n@data\n1,2:1\n"
                                                    << 1;
        QTest::newRow("arff in .csv") << "b.csv"
                                      << "% c\n@relation r\n@attribute a numeric\n@data\n1\n2\n"
                                      << 2;
        QTest::newRow("ucr, no extension") << "c"
                                           << "1,2,3\n4,5,6\n7,8,9\n"
                                           << 3;
        QTest::newRow("ucr in .dat") << "d.dat"
                                     << "1 2 3\n"
                                     << 1;
    }
    void dispatchByContent() {
        QFETCH(QString, name);
        QFETCH(QString, text);
        QFETCH(int, n);
        QTemporaryDir dir;
        const auto s = cs::io::readSeries(writeFile(dir, name.toStdString(), text.toStdString()));
        s.validate();
        QCOMPARE(s.n, std::size_t(n));
    }

    // Each bad file: the error is an InputError naming the file, the line (0: the file as a
    // whole) and a problem containing `fragment`.
    void errors_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("line");
        QTest::addColumn<QString>("fragment");
        const auto row = [](const char* tag, const char* name, const QString& text, int line,
                            const char* fragment) {
            QTest::newRow(tag) << QString(name) << text << line << QString(fragment);
        };
        const QString ts = "@problemName t\n@univariate true\n@classLabel true 1 2\n@data\n";
        const QString arff =
            "@relation r\n@attribute a numeric\n@attribute b numeric\n"
            "@attribute c {x,y}\n@data\n";
        row("ts empty", "e.ts", "", 0, "is empty");
        row("ts blank", "e.ts", "\n \n", 0, "is empty");
        row("ts no @data", "e.ts", "@univariate true\n", 1, "no @data");
        row("ts no series", "e.ts", ts, 4, "no series");
        const QString stamped = "@timeStamps true\n@classLabel false\n@data\n";
        row("ts bad date stamp", "e.ts", stamped + "(2020-02-30,1)\n", 4, "neither a number nor");
        row("ts other date format", "e.ts", stamped + "(01/02/2020,1)\n", 4,
            "neither a number nor");
        row("ts mixed stamps", "e.ts", stamped + "(0,1),(2020-01-01,2)\n", 4,
            "mixes numeric and date-time");
        row("ts tuple without comma", "e.ts", stamped + "(1 2)\n", 4, "without a comma");
        row("ts tuple unclosed", "e.ts", stamped + "(1,2),(2,3\n", 4, "without its ')'");
        row("ts tuple missing", "e.ts", stamped + "(0,1),(1,?)\n", 4,
            "not supported in time-stamped");
        row("ts plain under @timeStamps", "e.ts", stamped + "1,2,3\n", 4,
            "does not start with '('");
        row("ts tuple then comma", "e.ts", stamped + "(0,1),\n", 4, "not followed by another");
        row("ts stamped no label", "e.ts", "@timeStamps true\n@classLabel true a\n@data\n(0,1)\n",
            4, "no label");
        row("ts problemName without name", "e.ts", "@problemName\n@data\n1\n", 1, "expects a name");
        row("ts @data with value", "e.ts", "@data now\n1\n", 1, "takes no value");
        row("ts classLabel maybe", "e.ts", "@classLabel maybe 1 2\n", 1, "true or false");
        row("ts targetLabel two values", "e.ts", "@targetLabel true 1\n", 1, "expects one value");
        row("ts timeStamps no value", "e.ts", "@timeStamps\n", 1, "expects one value");
        row("ts trailing comma", "e.ts", ts + "1,2,3,:1\n", 5, "empty value");
        row("ts all missing", "e.ts", ts + "?,?,?:1\n", 5, "all missing");
        row("ts ragged by missing", "e.ts", "@classLabel false\n@data\n1,2,?:4,5,6\n", 3, "ragged");
        row("ts missing ?", "e.ts", ts + "1,2,3:1\n1,?,3:2\n", 6, "missing/NaN");
        row("ts NaN", "e.ts", ts + "1,NaN,3:1\n", 5, "missing/NaN");
        row("ts inf", "e.ts", ts + "1,-inf,3:1\n", 5, "infinite");
        row("ts not a number", "e.ts", ts + "1,abc,3:1\n", 5, "not a number");
        row("ts huge number", "e.ts", ts + "1,1e400,3:1\n", 5, "out of float range");
        row("ts channels", "e.ts", ts + "1,2,3:1\n1,2,3:4,5,6:1\n", 6, "2 channel(s), expected 1");
        row("ts ragged", "e.ts", "@dimensions 2\n@classLabel false\n@data\n1,2,3:4,5\n", 4,
            "ragged");
        row("ts truncated", "e.ts", ts + "1,2,3:1\n1,2,3", 6, "no values before its label");
        row("ts empty value", "e.ts", ts + "1,,3:1\n", 5, "empty value");
        row("ts data before @data", "e.ts", "@univariate true\n1,2,3\n", 2, "no @data");
        row("ts header after @data", "e.ts", ts + "1:1\n@dimensions 2\n", 6, "after @data");
        row("ts (t,v)", "e.ts", "@data\n(0,1),(1,2)\n", 2, "time stamps");
        row("ts two bools", "e.ts", "@univariate true false\n", 1, "expects one value");
        row("ts no labels declared", "e.ts", "@classLabel true\n", 1, "declares no class labels");
        row("ts bad target", "e.ts", "@targetLabel true\n@data\n1,2:high\n", 3,
            "regression target");
        row("ucr empty", "e.tsv", "", 0, "is empty");
        row("ucr comments only", "e.tsv", "# nothing\n", 0, "holds no series");
        row("ucr NaN inside", "e.tsv", "1\t1\t2\n1\t1\tNaN\t3\n", 2, "followed by values");
        row("ucr all NaN", "e.tsv", "1\tNaN\tNaN\n", 1, "no values");
        row("ucr label only", "e.csv", "1,2\n3\n", 2, "no values");
        row("ucr empty value", "e.csv", "1,2,,3\n", 1, "empty value");
        row("ucr NaN label", "e.csv", "nan,2,3\n", 1, "not a class");
        row("ucr garbage", "e.csv", "1,2,3\n1,2,x\n", 2, "not a number");
        row("ucr inf", "e", "1 2 inf\n", 1, "infinite");
        row("ucr mixed delimiters", "e.tsv", "1\t2\t3\n1,2,3\n", 2, "no values");
        row("arff empty", "e.arff", "", 0, "is empty");
        row("arff comment only", "e.arff", "% only a comment\n", 1, "no @data");
        row("arff no @data", "e.arff", "@relation r\n@attribute a numeric\n", 2, "no @data");
        row("arff no series", "e.arff", arff, 5, "no series");
        row("arff relational", "e.arff",
            "@relation r\n@attribute bag relational\n@attribute a numeric\n@end bag\n", 2,
            "multivariate ARFF is not supported");
        row("arff string", "e.arff", "@attribute s string\n", 1, "not supported");
        row("arff nominal not last", "e.arff", "@attribute c {1,2}\n@attribute a numeric\n", 2,
            "only the last attribute");
        row("arff row length", "e.arff", arff + "1,2,x\n1,x\n", 7, "expected 3");
        row("arff undeclared class", "e.arff", arff + "1,2,z\n", 6, "does not declare");
        row("arff sparse", "e.arff", arff + "{0 1, 2 x}\n", 6, "sparse");
        row("arff missing inside", "e.arff", arff + "?,2,x\n", 6, "followed by values");
        row("arff unclosed nominal", "e.arff", "@attribute c {1,2\n", 1, "not closed");
        row("arff data first", "e.arff", "1,2,3\n", 1, "expected @relation");
        row("binary", "e.tsv", QString::fromLatin1("\x01\x02\t\x03\n\x7f\tabc\n"), 2,
            "not a number");
    }

    void errors() {
        QFETCH(QString, name);
        QFETCH(QString, text);
        QFETCH(int, line);
        QFETCH(QString, fragment);
        QTemporaryDir dir;
        const auto file = writeFile(dir, name.toStdString(), text.toStdString());
        try {
            cs::io::readSeriesWithSplit(file);
            QFAIL("no error");
        } catch (const cs::InputError& e) {
            const QString what = QString::fromStdString(e.what());
            QCOMPARE(e.file(), file.string());
            QVERIFY2(what.startsWith(QString::fromStdString(file.string())), e.what());
            QVERIFY2(what.contains(fragment), e.what());
            if (line > 0) {
                QCOMPARE(e.unit(), cs::InputError::Unit::Line);
                QCOMPARE(int(e.where()), line);
            } else {
                QCOMPARE(e.unit(), cs::InputError::Unit::None);
            }
        }
    }

    void paddingBlowUpRefused() {
        // One long series among many short ones must not become gigabytes of zeros.
        QTemporaryDir dir;
        std::string text;
        for (int i = 0; i < 3000; ++i)
            text += "1,1\n";
        text += "1";
        for (int t = 0; t < 12000; ++t)
            text += ",1";
        text += "\n";
        const auto file = writeFile(dir, "long.csv", text);
        QVERIFY_THROWS_EXCEPTION(cs::InputError, cs::io::readSeries(file));
    }

    void unreadable() {
        QTemporaryDir dir;
        QVERIFY_THROWS_EXCEPTION(cs::InputError,
                                 cs::io::readSeries(dir.filePath("missing.ts").toStdString()));
        QVERIFY_THROWS_EXCEPTION(cs::InputError, cs::io::readSeries(dir.path().toStdString()));
        QVERIFY_THROWS_EXCEPTION(
            cs::InputError, cs::io::readSeriesWithSplit(dir.filePath("x_TRAIN").toStdString()));
    }
};

QTEST_GUILESS_MAIN(TestSeriesReaders)
#include "tst_series_readers.moc"
