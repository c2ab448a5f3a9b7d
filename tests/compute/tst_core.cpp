// SPDX-License-Identifier: MIT
// The foundation pieces every algorithm builds on: data model checks, errors, JobControl,
// the backend registry, number parsing and the points/series dispatch.
#include <QtTest>

#include <atomic>
#include <cmath>
#include <limits>
#include <new>
#include <thread>
#include <vector>

#include "compute/backend/backend_registry.h"
#include "compute/backend/cpu_backend.h"
#include "compute/core/error.h"
#include "compute/core/finite.h"
#include "compute/core/job_control.h"
#include "compute/core/memory.h"
#include "compute/core/point_set.h"
#include "compute/core/series_matrix.h"
#include "compute/core/series_set.h"
#include "compute/dbscan/dbscan_descriptor.h"
#include "compute/io/dataset.h"
#include "compute/io/text_input.h"
#include "compute/knn/knn_descriptor.h"
#include "compute/kshape/kshape_descriptor.h"
#include "compute/rocket/rocket_descriptor.h"

namespace {

class NamedBackend final : public cs::Backend {
public:
    explicit NamedBackend(std::string name) : m_name(std::move(name)) {}
    std::string name() const override { return m_name; }
    cs::BackendInfo info() const override { return {.name = m_name, .device = "test device"}; }

private:
    std::string m_name;
};

}  // namespace

class TestCore : public QObject {
    Q_OBJECT

private slots:
    void seriesMatrixRowsAndValues() {
        // Three series of up to 4 samples, the last one 2 long; classes 1, 0, 1 and unlabelled.
        cs::SeriesSet s;
        s.n = 4;
        s.channels = 1;
        s.length = 4;
        s.values = {1,  2,  3, 4,  //
                    5,  5,  5, 5,  //
                    -1, 1,  0, 0,  //
                    0,  10, 0, 10};
        s.lengths = {4, 4, 2, 4};
        s.labels = {1, 0, 1, -1};
        s.classNames = {"a", "b"};
        // Grouped by class, unlabelled last; a filter and a row cap.
        QCOMPARE(cs::heatmapRows(s, {}, 100), std::vector<std::uint32_t>({1, 0, 2, 3}));
        const std::vector<std::uint8_t> keep{1, 1, 1, 0};
        QCOMPARE(cs::heatmapRows(s, keep, 100), std::vector<std::uint32_t>({1, 0, 2}));
        QCOMPARE(cs::heatmapRows(s, {}, 2).size(), std::size_t(2));

        const std::vector<std::uint32_t> order{0, 1, 2};
        const cs::SeriesMatrix m = cs::seriesMatrix(s, order, 0);
        QCOMPARE(m.rows, std::size_t(3));
        QCOMPARE(m.cols, std::size_t(4));
        // Row 0: 1..4, mean 2.5, population sd sqrt(1.25).
        const double sd = std::sqrt(1.25);
        for (int t = 0; t < 4; ++t)
            QCOMPARE(m.values[std::size_t(t)], float((t + 1 - 2.5) / sd));
        // Row 1: constant, all 0. Row 2: -1, 1 over its 2 samples, then NaN padding.
        for (int t = 0; t < 4; ++t)
            QCOMPARE(m.values[std::size_t(4 + t)], 0.0f);
        QCOMPARE(m.values[8], -1.0f);
        QCOMPARE(m.values[9], 1.0f);
        QVERIFY(std::isnan(m.values[10]) && std::isnan(m.values[11]));
        QVERIFY_THROWS_EXCEPTION(cs::Error, cs::seriesMatrix(s, order, 1));
        QVERIFY_THROWS_EXCEPTION(cs::Error, cs::seriesMatrix(s, std::vector<std::uint32_t>{9}, 0));
    }

    void pointSetFromCoords() {
        const auto s = cs::PointSet::fromCoords(2, {0, 1, 2, 3, 4, 5});
        QCOMPARE(s.n, std::size_t(3));
        QCOMPARE(s.point(2)[1], 5.0f);
        QCOMPARE(s.dimNames, (std::vector<std::string>{"x", "y"}));
        QCOMPARE(cs::PointSet::fromCoords(5, std::vector<float>(10)).dimNames.back(), "c4");
        QVERIFY_THROWS_EXCEPTION(cs::Error, cs::PointSet::fromCoords(2, {1, 2, 3}));
        QVERIFY_THROWS_EXCEPTION(cs::Error, cs::PointSet::fromCoords(0, {1}));
        QCOMPARE(cs::PointSet::fromCoords(0, {}).n, std::size_t(0));
    }

    void pointSetValidate() {
        auto s = cs::PointSet::fromCoords(3, {0, 0, 0, 1, 1, 1});
        s.validate();
        s.attributes.push_back(
            {.name = "w", .kind = cs::PointAttribute::Kind::Scalar, .scalars = {1.0f}});
        QVERIFY_THROWS_EXCEPTION(cs::Error, s.validate());  // 1 value for 2 points
        s.attributes.back().scalars.push_back(2.0f);
        s.validate();
        QCOMPARE(s.attribute("w")->scalars[1], 2.0f);
        QVERIFY(s.attribute("nope") == nullptr);
        QVERIFY(s.groundTruth() == nullptr);
        s.coords[4] = std::numeric_limits<float>::quiet_NaN();
        QVERIFY_THROWS_EXCEPTION(cs::Error, s.validate());
    }

    void seriesSetValidate() {
        cs::SeriesSet s;
        s.n = 2;
        s.channels = 1;
        s.length = 3;
        s.values = {1, 2, 3, 4, 5, 0};
        s.lengths = {3, 2};
        s.labels = {0, 1};
        s.classNames = {"a", "b"};
        s.validate();
        QVERIFY(!s.equalLength());
        QCOMPARE(s.channel(1, 0)[1], 5.0f);
        s.labels[1] = 2;  // no such class
        QVERIFY_THROWS_EXCEPTION(cs::Error, s.validate());
        s.labels[1] = 1;
        s.lengths[1] = 4;  // longer than the set
        QVERIFY_THROWS_EXCEPTION(cs::Error, s.validate());
        s.lengths[1] = 2;
        s.values[0] = std::numeric_limits<float>::infinity();
        QVERIFY_THROWS_EXCEPTION(cs::Error, s.validate());
    }

    // The first NaN or infinity wherever it lies: in a block's first or last value, in the last
    // short block, and in spans long enough to be checked by several threads, where a later
    // thread's find must not win over an earlier one's. Subnormals and the largest floats are
    // finite.
    void firstNonFinite() {
        QCOMPARE(cs::firstNonFinite({}), std::size_t(0));
        const float nan = std::numeric_limits<float>::quiet_NaN();
        const float inf = std::numeric_limits<float>::infinity();
        for (const std::size_t n : {std::size_t(1), std::size_t(4096), std::size_t(4097),
                                    std::size_t(100'003), std::size_t(30'000'017)}) {
            std::vector<float> v(n, 1.0f);
            v[0] = std::numeric_limits<float>::denorm_min();
            v[n - 1] = -std::numeric_limits<float>::max();
            QCOMPARE(cs::firstNonFinite(v), n);
            for (const std::size_t at : {std::size_t(0), n / 2, n - 1, std::size_t(4095)}) {
                if (at >= n) continue;
                for (const float bad : {nan, inf, -inf, -nan}) {
                    const float kept = v[at];
                    v[at] = bad;
                    QCOMPARE(cs::firstNonFinite(v), at);
                    if (at + 1 < n) {  // a second one later changes nothing
                        v[n - 1] = nan;
                        QCOMPARE(cs::firstNonFinite(v), at);
                        v[n - 1] = -std::numeric_limits<float>::max();
                    }
                    v[at] = kept;
                }
            }
        }
    }

    void inputErrorNamesFileAndPlace() {
        const cs::InputError line("a.csv", cs::InputError::Unit::Line, 12, "ragged row");
        QCOMPARE(QString(line.what()), QString("a.csv:12: ragged row"));
        const cs::InputError byte("b.ply", cs::InputError::Unit::Byte, 812, "truncated");
        QCOMPARE(QString(byte.what()), QString("b.ply (byte 812): truncated"));
        QCOMPARE(QString(cs::InputError("c.npy", "is empty").what()), QString("c.npy: is empty"));
        QCOMPARE(byte.where(), std::uint64_t(812));
    }

    void jobControlProgressAndTimings() {
        std::vector<std::pair<double, std::string>> seen;
        cs::JobControl job([&](double f, std::string_view stage) { seen.emplace_back(f, stage); });
        job.setProgress(1.5, "clamped");
        job.setProgress(-1.0);
        {
            auto s = job.stage("sort");
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        job.addTiming("kernel", 2.5);
        QCOMPARE(seen.front().first, 1.0);
        QCOMPARE(seen[1].first, 0.0);
        QCOMPARE(seen.back().second, std::string("sort"));  // a stage announces itself
        const auto t = job.timings();
        QCOMPARE(t.size(), std::size_t(2));
        QCOMPARE(t[0].name, std::string("sort"));
        QVERIFY(t[0].milliseconds >= 4.0);
        QCOMPARE(t[1].milliseconds, 2.5);
    }

    void jobControlCancelFromAnotherThread() {
        cs::JobControl job;
        job.checkpoint();  // not cancelled: no throw
        std::atomic<bool> started{false};
        std::thread canceller([&] {
            while (!started)
                std::this_thread::yield();
            job.cancel();
        });
        started = true;
        bool cancelled = false;
        for (int i = 0; i < 10'000'000 && !cancelled; ++i) {
            try {
                job.checkpoint();
            } catch (const cs::Cancelled&) {
                cancelled = true;
            }
        }
        canceller.join();
        QVERIFY(cancelled);
        QVERIFY(job.isCancelled());
    }

    // Running out of memory says what, how much and what to change, with the stage it
    // happened in, instead of a bare "std::bad_alloc".
    void outOfMemoryIsExplained() {
        const cs::MemoryNeed need{3.2e9, "the spectra (n x m complex floats)",
                                  "use fewer or shorter series"};
        cs::JobControl job;
        try {
            cs::explainingOutOfMemory("k-Shape", need, job, [&]() -> int {
                auto stage = job.stage("shapes");
                throw std::bad_alloc();
            });
            QFAIL("no error");
        } catch (const cs::Error& e) {
            const QString text = QString::fromUtf8(e.what());
            for (const char* part : {"k-Shape ran out of memory", "stage \"shapes\"",
                                     "about 3.2 GB", "the spectra", "use fewer or shorter series"})
                QVERIFY2(text.contains(QString::fromUtf8(part)), qPrintable(text));
        }
        QCOMPARE(job.lastStage(), std::string("shapes"));
        // Without an estimate the message still names the method.
        cs::JobControl bare;
        QVERIFY_THROWS_EXCEPTION(
            cs::Error, cs::explainingOutOfMemory("DBSCAN", {}, bare,
                                                 [&]() -> int { throw std::bad_alloc(); }));
        QCOMPARE(cs::formatBytes(999), std::string("999 bytes"));
        QCOMPARE(cs::formatBytes(6.4e9), std::string("6.4 GB"));
        QCOMPARE(cs::formatBytes(1.5e12), std::string("1.5 TB"));
    }

    // A run that cannot fit the machine at all is refused before it starts, with the amount.
    void memoryCheckRefusesTheImpossible() {
        if (cs::totalMemoryBytes() == 0) QSKIP("no /proc/meminfo here");
        QVERIFY(cs::availableMemoryBytes() > 0);
        QVERIFY(cs::availableMemoryBytes() <= cs::totalMemoryBytes());
        cs::checkMemoryFits("DBSCAN", {1e6, "x", "y"});  // fits
        try {
            cs::checkMemoryFits("ROCKET", {1e18, "the features", "use fewer kernels"});
            QFAIL("not refused");
        } catch (const cs::Error& e) {
            const QString text = QString::fromUtf8(e.what());
            QVERIFY2(text.contains("ROCKET needs about 1000.0 PB") &&
                         text.contains("more than the") && text.contains("use fewer kernels"),
                     qPrintable(text));
        }
    }

    // Every method's estimate grows with its data and its parameters, and is in the range a
    // measurement gives (peak resident memory of clusterscope-cli, README "Limits").
    void methodMemoryEstimates() {
        const cs::DataShape cloud{.items = 1'000'000, .dims = 3};
        const double dbscan =
            cs::dbscanDescriptor().memoryNeed(cloud, cs::dbscanDescriptor().defaults()).bytes;
        QVERIFY2(dbscan > 50e6 && dbscan < 200e6, qPrintable(QString::number(dbscan)));
        cs::ParameterValues knn = cs::knnDescriptor().defaults();
        const double k10 = cs::knnDescriptor().memoryNeed(cloud, knn).bytes;
        knn.set("k", std::int64_t(64));
        QVERIFY(cs::knnDescriptor().memoryNeed(cloud, knn).bytes > 3 * k10);
        const cs::DataShape series{.items = 20'000, .length = 20'000, .channels = 1};
        const double kshape =
            cs::kshapeDescriptor().memoryNeed(series, cs::kshapeDescriptor().defaults()).bytes;
        QVERIFY2(kshape > 8e9 && kshape < 20e9, qPrintable(QString::number(kshape)));
        cs::ParameterValues rocket = cs::rocketDescriptor().defaults();
        const cs::DataShape crop{.items = 16'800, .length = 46, .channels = 1};
        const double r10k = cs::rocketDescriptor().memoryNeed(crop, rocket).bytes;
        rocket.set("kernels", std::int64_t(100));
        QVERIFY(cs::rocketDescriptor().memoryNeed(crop, rocket).bytes < r10k / 50);
        QVERIFY(!cs::rocketDescriptor().memoryNeed(crop, rocket).advice.empty());
        QVERIFY(cs::kDistanceMemoryNeed(cloud).bytes > 20e6);
    }

    void registryPrefersFirstAvailableAndKeepsReasons() {
        cs::BackendRegistry registry;
        int created = 0;
        registry.add("gpu", []() -> std::shared_ptr<cs::Backend> {
            throw cs::BackendUnavailable("no device (test)");
        });
        registry.add("cpu", [&] {
            ++created;
            return std::make_shared<NamedBackend>("cpu");
        });
        QCOMPARE(registry.get("auto")->name(), std::string("cpu"));
        QCOMPARE(registry.get("cpu").get(), registry.get("auto").get());  // created once, shared
        QCOMPARE(created, 1);
        const auto statuses = registry.statuses();
        QCOMPARE(statuses.size(), std::size_t(2));
        QVERIFY(!statuses[0].available);
        QCOMPARE(statuses[0].detail, std::string("no device (test)"));
        QVERIFY(statuses[1].available);
        try {
            registry.get("gpu");
            QFAIL("an unavailable backend was returned");
        } catch (const cs::BackendUnavailable& e) {
            QVERIFY(QString(e.what()).contains("no device (test)"));
        }
        try {
            registry.get("tpu");
            QFAIL("an unknown backend was returned");
        } catch (const cs::BackendUnavailable& e) {
            QVERIFY(QString(e.what()).contains("gpu, cpu"));
        }
        QCOMPARE(registry.names(), (std::vector<std::string>{"auto", "gpu", "cpu"}));
        registry.releaseAll();
        registry.get("cpu");
        QCOMPARE(created, 2);  // released backends are created afresh
    }

    void registryWithNothingAvailable() {
        cs::BackendRegistry registry;
        registry.add("gpu", []() -> std::shared_ptr<cs::Backend> {
            throw cs::BackendUnavailable("no driver");
        });
        QVERIFY_THROWS_EXCEPTION(cs::BackendUnavailable, registry.get("auto"));
    }

    void cpuBackendInfo() {
        const cs::CpuBackend cpu(3);
        QCOMPARE(cpu.threads(), 3);
        QCOMPARE(QString::fromStdString(cpu.info().summary()), QString("CPU · 3 threads"));
        QVERIFY(cs::CpuBackend().threads() >= 1);
        cs::BackendInfo cuda{.name = "cuda",
                             .device = "NVIDIA H200",
                             .memoryFree = 139'400'000'000,
                             .memoryTotal = 150'000'000'000};
        QCOMPARE(QString::fromStdString(cuda.summary()),
                 QString("CUDA · NVIDIA H200 · 139 GB free"));
    }

    void parseNumbers_data() {
        QTest::addColumn<QString>("token");
        QTest::addColumn<bool>("ok");
        QTest::addColumn<double>("value");
        QTest::newRow("plain") << "1.5" << true << 1.5;
        QTest::newRow("blanks") << " \t-2e3\r" << true << -2000.0;
        QTest::newRow("plus") << "+7" << true << 7.0;
        QTest::newRow("text") << "abc" << false << 0.0;
        QTest::newRow("trailing") << "1.5x" << false << 0.0;
        QTest::newRow("empty") << "" << false << 0.0;
        QTest::newRow("too big for float") << "1e400" << false << 0.0;
        QTest::newRow("two signs") << "+-1" << false << 0.0;
    }
    void parseNumbers() {
        QFETCH(QString, token);
        QFETCH(bool, ok);
        QFETCH(double, value);
        const std::string text = token.toStdString();
        float f = 0;
        QCOMPARE(cs::io::parseFloat(text, f), ok);
        if (ok) QCOMPARE(double(f), value);
        float nan = 0;
        QVERIFY(cs::io::parseFloat("nan", nan) && std::isnan(nan));
    }

    void lineCursor() {
        cs::io::LineCursor lines("a\r\nb\n\nc");
        std::string_view line;
        std::vector<std::string> got;
        while (lines.next(line))
            got.emplace_back(line);
        QCOMPARE(got, (std::vector<std::string>{"a", "b", "", "c"}));
        QCOMPARE(lines.lineNumber(), std::size_t(4));
    }

    void guessKind_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("kind");
        QTest::newRow("ts") << "GunPoint_TRAIN.ts"
                            << "series";
        QTest::newRow("arff") << "x.ARFF"
                              << "series";
        QTest::newRow("ucr pair") << "Crop_TEST.tsv"
                                  << "series";
        QTest::newRow("no extension") << "Crop_TRAIN"
                                      << "series";
        QTest::newRow("csv") << "cloud.csv"
                             << "points";
        QTest::newRow("pcd") << "bunny.pcd"
                             << "points";
        QTest::newRow("npy") << "features.npy"
                             << "points";
    }
    void guessKind() {
        QFETCH(QString, name);
        QFETCH(QString, kind);
        QCOMPARE(QString::fromUtf8(cs::io::toString(cs::io::guessKind(name.toStdString())).data()),
                 kind);
        QVERIFY(cs::io::parseDataKind(kind.toStdString()) == cs::io::guessKind(name.toStdString()));
        QVERIFY_THROWS_EXCEPTION(cs::Error, cs::io::parseDataKind("pictures"));
    }
};

QTEST_APPLESS_MAIN(TestCore)
#include "tst_core.moc"
