// SPDX-License-Identifier: MIT
// Several devices in one process, the parts that need no GPU: the --devices list
// (compute/backend/device_set.h) and the merge of kNN lists built from parts of the candidates
// (knnMergeList), on which the multi-device kNN graph's identity with one device rests.
#include <QtTest>

#include <cstdlib>
#include <vector>

#include "compute/backend/cpu_backend.h"
#include "compute/backend/device_set.h"
#include "compute/core/error.h"
#include "compute/core/random.h"
#include "compute/knn/knn_list.h"

class TestDevices : public QObject {
    Q_OBJECT

private slots:
    void parses_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("available");
        QTest::addColumn<bool>("shared");
        QTest::addColumn<QString>("expected");  // deviceListText
        QTest::newRow("one") << "0" << 2 << false << "0";
        QTest::newRow("two, in the order given") << "1,0" << 2 << false << "1,0";
        QTest::newRow("spaces") << " 0 , 1 " << 2 << false << "0,1";
        QTest::newRow("all") << "all" << 3 << false << "0,1,2";
        QTest::newRow("shared when allowed") << "0,0" << 1 << true << "0,0";
        QTest::newRow("syntax only") << "5,7" << -1 << false << "5,7";
        QTest::newRow("all, count unknown") << "all" << -1 << false << "";
    }
    void parses() {
        QFETCH(QString, text);
        QFETCH(int, available);
        QFETCH(bool, shared);
        QFETCH(QString, expected);
        const std::vector<int> devices = cs::parseDeviceList(text.toStdString(), available, shared);
        QCOMPARE(QString::fromStdString(cs::deviceListText(devices)), expected);
    }

    void refuses_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("available");
        QTest::addColumn<QString>("message");  // a part of the error
        QTest::newRow("empty") << "" << 2 << "--devices: empty";
        QTest::newRow("blank") << "  " << 2 << "--devices: empty";
        QTest::newRow("empty entry") << "0,,1" << 2 << "an empty entry";
        QTest::newRow("trailing comma") << "0," << 2 << "an empty entry";
        QTest::newRow("word") << "gpu0" << 2 << "'gpu0' is not a device ordinal";
        QTest::newRow("negative") << "-1" << 2 << "'-1' is not a device ordinal";
        QTest::newRow("fraction") << "1.5" << 2 << "'1.5' is not a device ordinal";
        QTest::newRow("missing device") << "0,2" << 2
                                        << "device 2 does not exist; this machine has 2 CUDA "
                                           "devices (0-1)";
        QTest::newRow("one device") << "1" << 1 << "this machine has 1 CUDA device (0-0)";
        QTest::newRow("no device") << "0" << 0 << "this machine has no CUDA device";
        QTest::newRow("all without devices") << "all" << 0 << "no CUDA device";
        QTest::newRow("duplicate")
            << "0,1,0" << 2 << "device 0 is named twice (set CS_ALLOW_SHARED_DEVICE=1";
    }
    void refuses() {
        QFETCH(QString, text);
        QFETCH(int, available);
        QFETCH(QString, message);
        try {
            (void)cs::parseDeviceList(text.toStdString(), available, false);
            QFAIL("no error");
        } catch (const cs::Error& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(message), e.what());
        }
    }

    void sharedDeviceNeedsTheVariable() {
        qunsetenv(cs::kAllowSharedDeviceEnv);
        QVERIFY(!cs::sharedDeviceAllowed());
        qputenv(cs::kAllowSharedDeviceEnv, "0");
        QVERIFY(!cs::sharedDeviceAllowed());
        qputenv(cs::kAllowSharedDeviceEnv, "1");
        QVERIFY(cs::sharedDeviceAllowed());
        qunsetenv(cs::kAllowSharedDeviceEnv);
    }

    void cpuBackendHasNoDevices() {
        cs::CpuBackend cpu;
        QCOMPARE(cpu.deviceCount(), 0);
        QVERIFY(cpu.devices().empty());
        try {
            cpu.setDevices({0});
            QFAIL("no error");
        } catch (const cs::Error& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains("use --backend cuda"), e.what());
        }
    }

    // Candidates (with repeats, ties and coinciding distances) offered to one list, and the same
    // candidates dealt out to several lists that are merged: the same list, whichever way they
    // were dealt, as the leaves of one tree are dealt to several devices.
    void mergedListsEqualOneList_data() {
        QTest::addColumn<int>("k");
        QTest::addColumn<int>("parts");
        QTest::addColumn<int>("candidates");
        QTest::newRow("k=1, 2 parts") << 1 << 2 << 50;
        QTest::newRow("k=10, 2 parts") << 10 << 2 << 200;
        QTest::newRow("k=10, 3 parts") << 10 << 3 << 200;
        QTest::newRow("k=16, 5 parts, few candidates") << 16 << 5 << 9;
        QTest::newRow("k=64, 4 parts") << 64 << 4 << 1000;
    }
    void mergedListsEqualOneList() {
        QFETCH(int, k);
        QFETCH(int, parts);
        QFETCH(int, candidates);
        for (std::uint64_t seed = 1; seed <= 50; ++seed) {
            cs::Random rng(seed);
            // Distances from a few values only, so that ties by index are common; each candidate
            // index has one distance (the distances are deterministic).
            const int pool = candidates / 2 + 1;
            std::vector<float> distanceOf(std::size_t(pool), 0.0f);
            for (auto& d : distanceOf)
                d = float(rng.below(8));
            auto fresh = [k] {
                return std::pair{std::vector<float>(std::size_t(k), cs::kKnnEmptyDist2),
                                 std::vector<std::int32_t>(std::size_t(k), cs::kKnnEmptyIndex)};
            };
            auto offer = [k](auto& list, float d2, std::int32_t j) {
                if (d2 <= list.first[std::size_t(k - 1)])
                    cs::knnOffer(list.first.data(), list.second.data(), k, d2, j);
            };
            auto one = fresh();
            std::vector<decltype(one)> part(std::size_t(parts), fresh());
            for (int c = 0; c < candidates; ++c) {
                const auto j = std::int32_t(rng.below(std::uint64_t(pool)));
                const float d2 = distanceOf[std::size_t(j)];
                offer(one, d2, j);
                offer(part[std::size_t(rng.below(std::uint64_t(parts)))], d2, j);
            }
            auto merged = part[0];
            for (int w = 1; w < parts; ++w)
                cs::knnMergeList(merged.first.data(), merged.second.data(), k,
                                 part[std::size_t(w)].first.data(),
                                 part[std::size_t(w)].second.data());
            QVERIFY2(merged.second == one.second, qPrintable(QStringLiteral("seed %1").arg(seed)));
            QVERIFY2(merged.first == one.first, qPrintable(QStringLiteral("seed %1").arg(seed)));
        }
    }
};

QTEST_APPLESS_MAIN(TestDevices)
#include "tst_devices.moc"
