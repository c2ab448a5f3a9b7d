// SPDX-License-Identifier: MIT
#include <QTemporaryDir>
#include <QTest>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <new>
#include <string>

#include "compute/core/error.h"
#include "compute/io/series_readers.h"
#include "compute/io/text_input.h"
#include "tests/common/mutate.h"
#include "tests/common/test_paths.h"

// Mutation tests: damaged copies of valid files of every series format must either read into
// a valid SeriesSet or be refused with cs::InputError; any other exception fails, and a crash,
// an overflow or a leak shows under the sanitizers (build with -DCS_SANITIZE=address,undefined).
// CS_FUZZ_ITERATIONS overrides the number of variants per format (default 3000).

namespace {

// The header and the first `cases` cases of a real file: small enough to mutate thousands of
// times, and still the real layout.
std::string headAndCases(const std::filesystem::path& file, int cases) {
    const std::string text = cs::io::readFileBytes(file);
    cs::io::LineCursor cursor(text);
    std::string_view line;
    std::string out;
    bool data = file.extension() != ".ts";
    int kept = 0;
    while (cursor.next(line) && kept < cases) {
        out.append(line).append("\n");
        if (data && !line.empty() && line[0] != '#') ++kept;
        if (line.rfind("@data", 0) == 0) data = true;
    }
    return out;
}

void writeBytes(const std::filesystem::path& file, const std::string& bytes) {
    // A fresh file rather than a truncated one: ext4 flushes a file truncated and rewritten
    // (auto_da_alloc) on close, which made this test wait on the disk thousands of times.
    std::filesystem::remove(file);
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), std::streamsize(bytes.size()));
}

int iterations() {
    const char* env = std::getenv("CS_FUZZ_ITERATIONS");
    const int n = env ? std::atoi(env) : 0;
    return n > 0 ? n : 3000;
}

}  // namespace

class TestSeriesReaderFuzz : public QObject {
    Q_OBJECT

private slots:
    void mutations_data() {
        using cs::test::sharedData;
        using cs::test::testSource;
        QTest::addColumn<QByteArray>("seedText");
        QTest::addColumn<QString>("extension");
        QTest::addColumn<quint64>("seedBase");
        const auto add = [](const char* name, const std::string& text, const char* ext,
                            quint64 base) {
            QTest::newRow(name) << QByteArray::fromStdString(text) << QString(ext) << base;
        };
        const auto file = [](const std::filesystem::path& p) { return cs::io::readFileBytes(p); };
        add("ts univariate", headAndCases(sharedData("ucr/GunPoint/GunPoint_TRAIN.ts"), 6), ".ts",
            1'000'000);
        add("ts multivariate",
            headAndCases(sharedData("ucr/BasicMotions/BasicMotions_TRAIN.ts"), 2), ".ts",
            2'000'000);
        add("ts variable multivariate",
            headAndCases(sharedData("ucr/JapaneseVowels/JapaneseVowels_TRAIN.ts"), 6), ".ts",
            3'000'000);
        add("ts variable univariate", headAndCases(sharedData("ucr/PLAID/PLAID_TRAIN.ts"), 3),
            ".ts", 4'000'000);
        add("ts odd headers", file(testSource("io/data/series_odd_headers.ts")), ".ts", 5'000'000);
        add("ts regression", file(testSource("io/data/series_regression.ts")), ".ts", 6'000'000);
        add("ucr csv", headAndCases(sharedData("ucr/Crop/Crop_TRAIN"), 12), "", 7'000'000);
        add("ucr tsv nan padded", file(testSource("io/data/series_nan_padded.tsv")), ".tsv",
            8'000'000);
        add("ucr csv header", file(testSource("io/data/series_header.csv")), ".csv", 9'000'000);
        add("arff", file(testSource("io/data/series_small.arff")), ".arff", 10'000'000);
    }

    void mutations() {
        QFETCH(QByteArray, seedText);
        QFETCH(QString, extension);
        QFETCH(quint64, seedBase);
        QTemporaryDir dir;
        // The mutated file is the TRAIN half of a pair whose TEST half is the intact seed, so
        // that the split/merge path is damaged-input tested too.
        const std::string ext = extension.toStdString();
        const std::filesystem::path train = dir.filePath("fz_TRAIN").toStdString() + ext;
        const std::filesystem::path test = dir.filePath("fz_TEST").toStdString() + ext;
        const std::string valid = seedText.toStdString();
        writeBytes(test, valid);
        writeBytes(train, valid);
        cs::io::readSeriesWithSplit(train).validate();  // the seed itself is valid

        const int n = iterations();
        int accepted = 0, refused = 0;
        const auto start = std::chrono::steady_clock::now();
        for (int k = 0; k < n; ++k) {
            const std::uint64_t seed = seedBase + std::uint64_t(k);
            writeBytes(train, cs::test::mutate(valid, seed));
            const auto where = [&](const std::string& what) {
                return what + " (seed " + std::to_string(seed) + ", format '" +
                       QTest::currentDataTag() + "')";
            };
            try {
                const cs::SeriesSet s = cs::io::readSeriesWithSplit(train);
                try {
                    s.validate();
                } catch (const cs::Error& e) {
                    QFAIL(where(std::string("accepted an invalid set: ") + e.what()).c_str());
                }
                ++accepted;
            } catch (const cs::InputError& e) {
                if (std::string(e.what()).find("fz_T") == std::string::npos)
                    QFAIL(where(std::string("error without the file name: ") + e.what()).c_str());
                ++refused;
            } catch (const std::bad_alloc&) {
                QFAIL(where("std::bad_alloc").c_str());
            } catch (const std::exception& e) {
                QFAIL(where(std::string("unexpected exception: ") + e.what()).c_str());
            }
        }
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        qInfo("%d variants: %d read, %d refused with InputError, %.2f s", n, accepted, refused,
              seconds);
    }
};

QTEST_GUILESS_MAIN(TestSeriesReaderFuzz)
#include "tst_series_reader_fuzz.moc"
