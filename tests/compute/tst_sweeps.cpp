// SPDX-License-Identifier: MIT
// The one-parameter sweeps of the series methods (compute/kshape/kshape_sweep.h,
// compute/rocket/rocket_sweep.h) and `clusterscope-cli sweep kshape|rocket`: every cell equals a
// plain run with its parameter (k-Shape: the same labels, SBD sum and iterations; ROCKET: the
// same accuracy, alpha and features), the agreement scores equal scikit-learn's on the same
// labels, progress comes per step and cancellation stops the job, bad ranges are refused, and
// the CLI's JSON and CSV hold the same numbers as direct runs. Small sets (GunPoint: 50 train +
// 150 test series of length 150) keep it fast.
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "compute/backend/cpu_backend.h"
#include "compute/core/error.h"
#include "compute/io/series_readers.h"
#include "compute/kshape/kshape_sweep.h"
#include "compute/rocket/ridge.h"
#include "compute/rocket/rocket_pipeline.h"
#include "compute/rocket/rocket_sweep.h"
#include "tests/common/error_of.h"
#include "tests/common/test_paths.h"

using cs::test::errorOf;

namespace {

std::filesystem::path gunPointFile() {
    return cs::test::sharedData("ucr/GunPoint/GunPoint_TRAIN.ts");
}

// Two shapes without class labels, for the unlabelled cases.
cs::SeriesSet unlabelled(std::size_t n) {
    cs::SeriesSet s;
    s.n = n;
    s.channels = 1;
    s.length = 24;
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t t = 0; t < s.length; ++t)
            s.values.push_back(i % 2 ? float(std::sin(0.5 * double(t + i)))
                                     : float(t % 6 == 0) + 0.01f * float(i));
    s.lengths.assign(n, s.length);
    return s;
}

std::vector<std::string> lines(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        out.push_back(line);
    return out;
}

std::string readFile(const std::filesystem::path& file) {
    std::ifstream in(file);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The plain ROCKET pipeline, spelled out as rocket_command.cpp runs it: fit, transform, ridge on
// the training rows, accuracy on the labelled test rows.
struct PlainRocket {
    double testAccuracy = -1.0;
    double looAccuracy = 0.0;
    double alpha = 0.0;
    std::size_t features = 0;
};
PlainRocket plainRocket(cs::Backend& backend, const cs::SeriesSet& s, const cs::RocketParams& p) {
    cs::JobControl job;
    const cs::RocketTransform t = cs::fitRocketTransform(backend, p, s, job);
    const cs::RocketFeatures f = cs::applyRocketTransform(backend, t, s, job);
    std::vector<std::int32_t> train(s.n, -1);
    for (std::size_t i = 0; i < s.n; ++i)
        if (s.isTest.empty() || !s.isTest[i]) train[i] = s.labels[i];
    const cs::RidgeModel m = backend.ridgeFit(f, train, int(s.classCount()), {}, job);
    const std::vector<std::int32_t> predicted = cs::ridgePredict(m, f.values, f.n);
    std::size_t tests = 0, correct = 0;
    for (std::size_t i = 0; i < s.n; ++i)
        if (!s.isTest.empty() && s.isTest[i] && s.labels[i] >= 0) {
            ++tests;
            correct += predicted[i] == s.labels[i];
        }
    PlainRocket r;
    if (tests) r.testAccuracy = double(correct) / double(tests);
    r.looAccuracy = m.looAccuracy;
    r.alpha = m.alpha;
    r.features = f.columns();
    return r;
}

}  // namespace

class TestSweeps : public QObject {
    Q_OBJECT

    cs::CpuBackend m_cpu;
    cs::SeriesSet m_gun;
    QTemporaryDir m_tmp;

    // clusterscope-cli with args: its exit code, stdout and stderr.
    struct CliRun {
        int code = -1;
        std::string out, err;
    };
    CliRun cli(const QStringList& args) {
        QProcess p;
        p.start(QStringLiteral(CS_CLI_EXE), args);
        if (!p.waitForFinished(120000)) return {};
        return {p.exitCode(), p.readAllStandardOutput().toStdString(),
                p.readAllStandardError().toStdString()};
    }

private slots:
    void initTestCase() {
        QVERIFY(m_tmp.isValid());
        if (!std::filesystem::exists(gunPointFile()))
            CS_QSKIP_MISSING_DATA(QString::fromStdString("missing " + gunPointFile().string()));
        m_gun = cs::io::readSeriesWithSplit(gunPointFile());
        QCOMPARE(m_gun.n, std::size_t(200));
        QCOMPARE(m_gun.classCount(), std::size_t(2));
    }

    // Each k of the sweep is the plain run with that k: same labels, distances, iterations.
    void kshapeCellsEqualPlainRuns() {
        cs::KShapeSweepParams p{.kFrom = 2, .kTo = 5};
        p.run.seed = 7;
        p.run.maxIterations = 30;
        cs::JobControl job;
        const cs::KShapeSweepResult sweep = cs::kshapeSweep(m_cpu, m_gun, p, job);
        QCOMPARE(sweep.cells.size(), std::size_t(4));
        QCOMPARE(sweep.series, m_gun.n);
        for (int k = 2; k <= 5; ++k) {
            const cs::KShapeSweepCell* cell = sweep.find(k);
            QVERIFY(cell);
            cs::KShapeParams plain = p.run;
            plain.k = k;
            cs::JobControl own;
            const cs::KShapeResult r = m_cpu.kshape(m_gun, plain, own);
            QCOMPARE(cell->labels, r.labels);
            double sum = 0.0;
            for (float d : r.distances)
                sum += double(d);
            QCOMPARE(cell->sbdSum, sum);
            QCOMPARE(cell->iterations, r.iterations);
            QCOMPARE(cell->converged, r.converged);
            QCOMPARE(cell->emptyClusters, cs::kshapeClusterSizes(r).empty);
            const cs::ClusterAgreement a = cs::clusterAgreement(r.labels, m_gun.labels);
            QVERIFY(cell->hasAgreement);
            QCOMPARE(cell->adjustedRandIndex, a.adjustedRandIndex);
            QCOMPARE(cell->normalizedMutualInformation, a.normalizedMutualInformation);
            QCOMPARE(cell->randIndex, a.randIndex);
        }
        // More clusters fit the series at least as tightly here (the curve the panel draws).
        QVERIFY(sweep.cells.back().sbdSum < sweep.cells.front().sbdSum);
        // One "k-Shape" stage per k.
        const auto timings = job.timings();
        QCOMPARE(std::count_if(timings.begin(), timings.end(),
                               [](const cs::StageTiming& t) { return t.name == "k-Shape"; }),
                 4);
    }

    // ARI and NMI of the sweep's labels against the classes equal scikit-learn's. The oracle:
    // the labels of `clusterscope-cli kshape GunPoint_TRAIN.ts --k K --seed 1 --backend cpu
    // --out kK.csv` (kshapeCellsEqualPlainRuns ties the sweep's labels to plain runs), and the
    // class names read from GunPoint_TRAIN.ts and GunPoint_TEST.ts by a dozen lines of Python of
    // its own, scored by sklearn.metrics.adjusted_rand_score and normalized_mutual_info_score
    // (scikit-learn 1.2.1, /usr/bin/python3), printed with repr(). GunPoint at k = 2 splits
    // 100 / 100 across the classes (ARI slightly below 0, NMI 0) for every seed tried.
    void kshapeAgreementMatchesScikitLearn() {
        cs::KShapeSweepParams p{.kFrom = 2, .kTo = 4};
        p.run.seed = 1;
        cs::JobControl job;
        const cs::KShapeSweepResult sweep = cs::kshapeSweep(m_cpu, m_gun, p, job);
        struct Oracle {
            int k;
            double ari, nmi;
        };
        for (const Oracle& o : {Oracle{2, -0.005050505050505051, 0.0},
                                Oracle{3, 0.022939933594929067, 0.041540029358582344},
                                Oracle{4, 0.023176995270279492, 0.059608203605508954}}) {
            const cs::KShapeSweepCell* c = sweep.find(o.k);
            QVERIFY(c);
            QVERIFY2(std::abs(c->adjustedRandIndex - o.ari) < 1e-12,
                     qPrintable(QString::number(c->adjustedRandIndex, 'g', 17)));
            QVERIFY2(std::abs(c->normalizedMutualInformation - o.nmi) < 1e-12,
                     qPrintable(QString::number(c->normalizedMutualInformation, 'g', 17)));
        }
    }

    // Without class labels: no agreement, empty CSV columns, JSON nulls.
    void kshapeWithoutLabels() {
        const cs::SeriesSet s = unlabelled(12);
        cs::KShapeSweepParams p{.kFrom = 1, .kTo = 3};
        cs::JobControl job;
        const cs::KShapeSweepResult sweep = cs::kshapeSweep(m_cpu, s, p, job);
        QCOMPARE(sweep.cells.size(), std::size_t(3));
        for (const auto& c : sweep.cells)
            QVERIFY(!c.hasAgreement);
        const auto csv = lines(cs::kshapeSweepCsv(sweep));
        QCOMPARE(csv.size(), std::size_t(4));
        QCOMPARE(csv[0], std::string("k,sbd_sum,mean_sbd,ari,nmi,rand_index,iterations,converged,"
                                     "empty_clusters,ms"));
        QVERIFY2(csv[2].rfind("2,", 0) == 0 && csv[2].find(",,,") != std::string::npos,
                 csv[2].c_str());
        const auto j = nlohmann::json::parse(cs::kshapeSweepJson(sweep));
        QCOMPARE(j["labelled"].get<bool>(), false);
        QVERIFY(j["cells"][0]["ari"].is_null());
        QCOMPARE(j["cells"][2]["k"].get<int>(), 3);
        QCOMPARE(j["cells"][2]["sbd_sum"].get<double>(), sweep.cells[2].sbdSum);
    }

    // Progress per k, in order, ending at 1; a cancel stops the sweep with cs::Cancelled.
    void kshapeProgressAndCancel() {
        cs::KShapeSweepParams p{.kFrom = 2, .kTo = 4};
        std::vector<std::string> stages;
        std::vector<double> fractions;
        cs::JobControl job([&](double f, std::string_view stage) {
            fractions.push_back(f);
            if (stages.empty() || stages.back() != stage) stages.emplace_back(stage);
        });
        (void)cs::kshapeSweep(m_cpu, m_gun, p, job);
        QVERIFY(std::is_sorted(fractions.begin(), fractions.end()));
        QCOMPARE(fractions.back(), 1.0);
        for (const char* want : {"k = 2 (1 of 3)", "k = 3 (2 of 3)", "k = 4 (3 of 3)"})
            QVERIFY2(std::find(stages.begin(), stages.end(), want) != stages.end(), want);

        // Cancelled as the second k's run starts: no result.
        cs::JobControl* self = nullptr;
        cs::JobControl watched([&](double, std::string_view stage) {
            if (stage == "k = 3 (2 of 3)") self->cancel();
        });
        self = &watched;
        bool cancelled = false;
        try {
            (void)cs::kshapeSweep(m_cpu, m_gun, p, watched);
        } catch (const cs::Cancelled&) {
            cancelled = true;
        }
        QVERIFY(cancelled);
    }

    void kshapeRefusesBadRanges() {
        auto refused = [&](int from, int to) {
            cs::KShapeSweepParams p{.kFrom = from, .kTo = to};
            cs::JobControl job;
            return errorOf([&] { (void)cs::kshapeSweep(m_cpu, m_gun, p, job); });
        };
        QVERIFY(refused(0, 3).find("k = 1 or more") != std::string::npos);
        QVERIFY(refused(5, 3).find("first k <= last k") != std::string::npos);
        QVERIFY2(refused(2, 201).find("201") != std::string::npos, refused(2, 201).c_str());
        QVERIFY(refused(1, 2000).find("at most 1024") != std::string::npos);
    }

    // Each kernel count of the sweep is the plain pipeline with that count.
    void rocketCellsEqualPlainRuns_data() {
        QTest::addColumn<QString>("variant");
        QTest::addColumn<std::vector<int>>("kernels");
        QTest::newRow("rocket") << "rocket" << std::vector<int>{50, 300};
        QTest::newRow("minirocket") << "minirocket" << std::vector<int>{84, 400};
        QTest::newRow("multirocket") << "multirocket" << std::vector<int>{84};
    }
    void rocketCellsEqualPlainRuns() {
        QFETCH(QString, variant);
        QFETCH(std::vector<int>, kernels);
        cs::RocketSweepParams p{.kernels = kernels};
        p.run.variant = cs::rocketVariantFromName(variant.toStdString());
        p.run.seed = 11;
        cs::JobControl job;
        const cs::RocketSweepResult sweep = cs::rocketSweep(m_cpu, m_gun, p, job);
        QVERIFY(sweep.testSplit);
        QCOMPARE(sweep.cells.size(), kernels.size());
        for (std::size_t i = 0; i < kernels.size(); ++i) {
            const cs::RocketSweepCell& c = sweep.cells[i];
            cs::RocketParams plain = p.run;
            plain.kernels = kernels[i];
            const PlainRocket want = plainRocket(m_cpu, m_gun, plain);
            QCOMPARE(c.kernels, kernels[i]);
            QCOMPARE(c.features, want.features);
            QCOMPARE(c.testAccuracy, want.testAccuracy);
            QCOMPARE(c.accuracy, want.testAccuracy);
            QCOMPARE(c.looAccuracy, want.looAccuracy);
            QCOMPARE(c.alpha, want.alpha);
            QCOMPARE(c.trainCount, std::size_t(50));
            QCOMPARE(c.testCount, std::size_t(150));
            QVERIFY(c.transformMs > 0.0 && c.fitMs > 0.0 && c.milliseconds >= c.transformMs);
        }
        const auto csv = lines(cs::rocketSweepCsv(sweep));
        QCOMPARE(csv.size(), kernels.size() + 1);
        QCOMPARE(csv[0], std::string("kernels,features,accuracy,test_accuracy,loo_accuracy,alpha,"
                                     "transform_ms,fit_ms,ms"));
        const auto j = nlohmann::json::parse(cs::rocketSweepJson(sweep));
        QCOMPARE(j["accuracy_on"].get<std::string>(), std::string("test"));
        QCOMPARE(j["variant"].get<std::string>(), variant.toStdString());
        QCOMPARE(j["cells"][0]["accuracy"].get<double>(), sweep.cells[0].accuracy);
    }

    // Without a split, the accuracy is the ridge's leave-one-out accuracy.
    void rocketWithoutSplitUsesLeaveOneOut() {
        const cs::SeriesSet train = cs::io::readSeries(gunPointFile());
        QVERIFY(train.isTest.empty());
        cs::RocketSweepParams p{.kernels = {100}};
        cs::JobControl job;
        const cs::RocketSweepResult sweep = cs::rocketSweep(m_cpu, train, p, job);
        QVERIFY(!sweep.testSplit);
        cs::RocketParams plain = p.run;
        plain.kernels = 100;
        const PlainRocket want = plainRocket(m_cpu, train, plain);
        QCOMPARE(sweep.cells[0].accuracy, want.looAccuracy);
        QCOMPARE(sweep.cells[0].testAccuracy, -1.0);
        QCOMPARE(sweep.cells[0].trainCount, std::size_t(50));
        QVERIFY(lines(cs::rocketSweepCsv(sweep))[1].find(",,") != std::string::npos);
        QVERIFY(nlohmann::json::parse(cs::rocketSweepJson(sweep))["cells"][0]["test_accuracy"]
                    .is_null());
    }

    void rocketRefusesBadInput() {
        auto refused = [&](const cs::SeriesSet& s, std::vector<int> kernels) {
            cs::RocketSweepParams p{.kernels = std::move(kernels)};
            cs::JobControl job;
            return errorOf([&] { (void)cs::rocketSweep(m_cpu, s, p, job); });
        };
        QVERIFY(refused(m_gun, {}).find("at least one kernel count") != std::string::npos);
        QVERIFY(refused(m_gun, {500, 100}).find("strictly ascending") != std::string::npos);
        QVERIFY(!refused(m_gun, {0}).empty());
        QVERIFY(!refused(m_gun, {cs::kRocketMaxKernels + 1}).empty());
        QVERIFY2(
            refused(unlabelled(10), {100}).find("labelled training series") != std::string::npos,
            refused(unlabelled(10), {100}).c_str());
    }

    void rocketKernelListParses() {
        QCOMPARE(cs::parseRocketKernelList("100,500, 2000"), (std::vector<int>{100, 500, 2000}));
        QCOMPARE(cs::parseRocketKernelList(" 10_000 , 1'000"), (std::vector<int>{10000, 1000}));
        for (const char* bad : {"", "100,,200", "1e3", "100;200", "-", "100,"})
            QVERIFY2(errorOf([&] {
                         (void)cs::parseRocketKernelList(bad);
                     }).find("whole numbers separated by commas") != std::string::npos,
                     bad);
        QCOMPARE(cs::defaultRocketSweepKernels(),
                 (std::vector<int>{100, 200, 500, 1000, 2000, 5000, 10000}));
    }

    void rocketCancel() {
        cs::RocketSweepParams p{.kernels = {100, 200, 400}};
        cs::JobControl* self = nullptr;
        std::vector<std::string> stages;
        cs::JobControl job([&](double, std::string_view stage) {
            if (stages.empty() || stages.back() != stage) stages.emplace_back(stage);
            if (stage == "200 kernels (2 of 3)") self->cancel();
        });
        self = &job;
        bool cancelled = false;
        try {
            (void)cs::rocketSweep(m_cpu, m_gun, p, job);
        } catch (const cs::Cancelled&) {
            cancelled = true;
        }
        QVERIFY(cancelled);
        QCOMPARE(stages.front(), std::string("100 kernels (1 of 3)"));
    }

    // The CLI's table and JSON hold what the direct sweep and the plain commands give.
    void cliKShapeSweep() {
        const std::string csv = m_tmp.filePath(QStringLiteral("gun_sweep.csv")).toStdString();
        const QString file = QString::fromStdString(gunPointFile().string());
        const CliRun run =
            cli({"sweep", "kshape", file, "--k-range", "2", "4", "--seed", "3", "--backend", "cpu",
                 "--out", QString::fromStdString(csv), "--json"});
        QVERIFY2(run.code == 0, run.err.c_str());
        const auto j = nlohmann::json::parse(run.out);
        QCOMPARE(j["algorithm"].get<std::string>(), std::string("kshape-sweep"));
        QCOMPARE(j["k_from"].get<int>(), 2);
        QCOMPARE(j["k_to"].get<int>(), 4);
        QCOMPARE(j["seed"].get<int>(), 3);
        QCOMPARE(j["n"].get<int>(), 200);
        QCOMPARE(j["labelled"].get<bool>(), true);
        QCOMPARE(j["cells"].size(), std::size_t(3));
        cs::KShapeSweepParams p{.kFrom = 2, .kTo = 4};
        p.run.seed = 3;
        cs::JobControl job;
        const cs::KShapeSweepResult want = cs::kshapeSweep(m_cpu, m_gun, p, job);
        for (std::size_t i = 0; i < 3; ++i) {
            const auto& c = j["cells"][i];
            QCOMPARE(c["k"].get<int>(), want.cells[i].k);
            QCOMPARE(c["sbd_sum"].get<double>(), want.cells[i].sbdSum);
            QCOMPARE(c["ari"].get<double>(), want.cells[i].adjustedRandIndex);
            QCOMPARE(c["nmi"].get<double>(), want.cells[i].normalizedMutualInformation);
            QCOMPARE(c["iterations"].get<int>(), want.cells[i].iterations);
        }
        // The table: the same rows as the direct sweep's, apart from the times.
        const auto got = lines(readFile(csv)), direct = lines(cs::kshapeSweepCsv(want));
        QCOMPARE(got.size(), direct.size());
        auto withoutTime = [](const std::string& row) { return row.substr(0, row.rfind(',')); };
        for (std::size_t i = 0; i < got.size(); ++i)
            QCOMPARE(withoutTime(got[i]), withoutTime(direct[i]));
        // And k = 3 of the sweep is what the plain command reports.
        const CliRun plain =
            cli({"kshape", file, "--k", "3", "--seed", "3", "--backend", "cpu", "--json"});
        QVERIFY2(plain.code == 0, plain.err.c_str());
        const auto pj = nlohmann::json::parse(plain.out);
        QCOMPARE(pj["ari"].get<double>(), j["cells"][1]["ari"].get<double>());
        QCOMPARE(pj["nmi"].get<double>(), j["cells"][1]["nmi"].get<double>());
        QCOMPARE(pj["iterations"].get<int>(), j["cells"][1]["iterations"].get<int>());

        // The text table.
        const CliRun text =
            cli({"sweep", "kshape", file, "--k-range", "2", "3", "--backend", "cpu"});
        QVERIFY2(text.code == 0, text.err.c_str());
        QVERIFY2(text.out.find("k-Shape for k = 2 to 3") != std::string::npos, text.out.c_str());
        QVERIFY2(text.out.find("SBD sum       ARI       NMI") != std::string::npos,
                 text.out.c_str());
    }

    void cliRocketSweep() {
        const std::string csv = m_tmp.filePath(QStringLiteral("gun_rocket.csv")).toStdString();
        const QString file = QString::fromStdString(gunPointFile().string());
        const CliRun run =
            cli({"sweep", "rocket", file, "--kernels-list", "100, 300", "--seed", "4", "--backend",
                 "cpu", "--out", QString::fromStdString(csv), "--json"});
        QVERIFY2(run.code == 0, run.err.c_str());
        const auto j = nlohmann::json::parse(run.out);
        QCOMPARE(j["algorithm"].get<std::string>(), std::string("rocket-sweep"));
        QCOMPARE(j["variant"].get<std::string>(), std::string("rocket"));
        QCOMPARE(j["accuracy_on"].get<std::string>(), std::string("test"));
        QCOMPARE(j["cells"].size(), std::size_t(2));
        QCOMPARE(j["cells"][1]["kernels"].get<int>(), 300);
        QCOMPARE(j["cells"][1]["features"].get<int>(), 600);
        QCOMPARE(j["cells"][1]["n_test"].get<int>(), 150);
        // The 300 kernels' accuracy is the plain command's.
        const CliRun plain =
            cli({"rocket", file, "--kernels", "300", "--seed", "4", "--backend", "cpu", "--json"});
        QVERIFY2(plain.code == 0, plain.err.c_str());
        const auto pj = nlohmann::json::parse(plain.out);
        QCOMPARE(j["cells"][1]["accuracy"].get<double>(), pj["test_accuracy"].get<double>());
        QCOMPARE(j["cells"][1]["loo_accuracy"].get<double>(), pj["loo_accuracy"].get<double>());
        QCOMPARE(j["cells"][1]["alpha"].get<double>(), pj["alpha"].get<double>());
        const auto table = lines(readFile(csv));
        QCOMPARE(table.size(), std::size_t(3));
        QCOMPARE(table[0], std::string("kernels,features,accuracy,test_accuracy,loo_accuracy,"
                                       "alpha,transform_ms,fit_ms,ms"));
        QVERIFY2(table[2].rfind("300,600,", 0) == 0, table[2].c_str());

        // MiniRocket through --variant: the column count is a multiple of 84.
        const CliRun mini = cli({"sweep", "rocket", file, "--kernels-list", "200", "--variant",
                                 "minirocket", "--backend", "cpu", "--json"});
        QVERIFY2(mini.code == 0, mini.err.c_str());
        const auto mj = nlohmann::json::parse(mini.out);
        QCOMPARE(mj["variant"].get<std::string>(), std::string("minirocket"));
        QCOMPARE(mj["cells"][0]["features"].get<int>(), 168);
    }

    void cliRefusesBadInput() {
        const QString file = QString::fromStdString(gunPointFile().string());
        const CliRun reversed = cli({"sweep", "kshape", file, "--k-range", "5", "2"});
        QCOMPARE(reversed.code, 2);
        QVERIFY2(reversed.err.find("--k-range needs 1 <= FROM <= TO") != std::string::npos,
                 reversed.err.c_str());
        const CliRun tooMany = cli({"sweep", "kshape", file, "--k-range", "2", "500"});
        QCOMPARE(tooMany.code, 2);
        QVERIFY2(tooMany.err.find("GunPoint_TRAIN.ts") != std::string::npos, tooMany.err.c_str());
        const CliRun noK = cli({"sweep", "kshape", file, "--k", "3"});
        QCOMPARE(noK.code, 2);  // k is what the sweep varies: not an option
        const CliRun badList = cli({"sweep", "rocket", file, "--kernels-list", "100,abc"});
        QCOMPARE(badList.code, 2);
        QVERIFY2(badList.err.find("\"abc\" is not one") != std::string::npos, badList.err.c_str());
        const CliRun down = cli({"sweep", "rocket", file, "--kernels-list", "500,100"});
        QCOMPARE(down.code, 2);
        QVERIFY2(down.err.find("strictly ascending") != std::string::npos, down.err.c_str());
    }
};

QTEST_GUILESS_MAIN(TestSweeps)
#include "tst_sweeps.moc"
