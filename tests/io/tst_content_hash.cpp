// SPDX-License-Identifier: MIT
// The content hash sessions keep of their data files: the same bytes give the same text whether
// hashed at once or read in chunks, and any change (one bit, a byte more, a byte less) gives
// another.
#include <QTemporaryDir>
#include <QTest>

#include <fstream>
#include <random>
#include <string>

#include "compute/core/error.h"
#include "compute/io/content_hash.h"

class TestContentHash : public QObject {
    Q_OBJECT

private slots:
    void fileHashIsTheBytesHash() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        // Larger than one 4 MiB read chunk, with a tail that is not a multiple of 8.
        std::mt19937 rng(7);
        std::string bytes((std::size_t(1) << 22) + 1000 + 3, '\0');
        for (char& c : bytes)
            c = char(rng());
        const std::filesystem::path file = dir.filePath(QStringLiteral("data.bin")).toStdString();
        std::ofstream(file, std::ios::binary).write(bytes.data(), std::streamsize(bytes.size()));
        char expected[32];
        std::snprintf(expected, sizeof expected, "cs64:%016llx",
                      static_cast<unsigned long long>(cs::io::contentHash(bytes)));
        QCOMPARE(cs::io::fileContentHash(file), std::string(expected));
    }

    void everyChangeShows() {
        const std::string base = "0.5 1.5 2.5\n3 4 5\n";
        const std::uint64_t h = cs::io::contentHash(base);
        std::string flipped = base;
        flipped[5] ^= 1;
        QVERIFY(cs::io::contentHash(flipped) != h);
        QVERIFY(cs::io::contentHash(base + '\0') != h);
        QVERIFY(cs::io::contentHash(base.substr(0, base.size() - 1)) != h);
        QVERIFY(cs::io::contentHash("") != cs::io::contentHash(std::string(1, '\0')));
        QCOMPARE(cs::io::contentHash(base), h);
    }

    void missingFileNamesIt() {
        try {
            cs::io::fileContentHash("/nonexistent/cloud.pcd");
            QFAIL("no error for a missing file");
        } catch (const cs::InputError& e) {
            QVERIFY(std::string(e.what()).find("/nonexistent/cloud.pcd") != std::string::npos);
        }
    }
};

QTEST_GUILESS_MAIN(TestContentHash)
#include "tst_content_hash.moc"
