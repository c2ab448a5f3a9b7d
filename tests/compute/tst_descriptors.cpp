// SPDX-License-Identifier: MIT
// The algorithms' descriptors: one declaration per parameter, parsed the same way everywhere
// (no silent coercion), ranges bounded by the data, defaults equal to the params structs', and
// exports routed by the most specific file-name ending.
#include <QtTest>
#include <set>

#include "compute/core/algorithm_descriptor.h"
#include "compute/dbscan/dbscan_descriptor.h"
#include "compute/knn/knn_descriptor.h"
#include "compute/kshape/kshape_descriptor.h"
#include "compute/rocket/rocket_descriptor.h"

namespace {

std::vector<const cs::AlgorithmDescriptor*> all() {
    return {&cs::dbscanDescriptor(), &cs::knnDescriptor(), &cs::rocketDescriptor(),
            &cs::kshapeDescriptor()};
}

}  // namespace

class TestDescriptors : public QObject {
    Q_OBJECT

private slots:
    void declarationsAreComplete() {
        for (const cs::AlgorithmDescriptor* d : all()) {
            std::set<std::string> names, options;
            for (const cs::ParameterSpec& p : d->parameters) {
                QVERIFY2(names.insert(p.name).second, p.name.c_str());
                QVERIFY2(options.insert(p.option).second, p.option.c_str());
                QVERIFY2(!p.help.empty() && !p.label.empty(), p.name.c_str());
                // Help never states a default: that comes from the declaration itself.
                QVERIFY2(p.help.find("default") == std::string::npos, p.help.c_str());
                // Every default is valid and reads back from its own text.
                QVERIFY2(p.check(p.defaultValue, nullptr, d->defaults()).empty(), p.name.c_str());
                std::string error;
                const auto back = p.parse(p.format(p.defaultValue), &error);
                QVERIFY2(back && *back == p.defaultValue, error.c_str());
            }
            QVERIFY(!d->exports.empty());
        }
    }

    void defaultsAreTheParamsStructs() {
        const cs::DbscanParams db = cs::dbscanParams(cs::dbscanDescriptor().defaults());
        const cs::DbscanParams dbDefault;
        QCOMPARE(db.eps, dbDefault.eps);
        QCOMPARE(db.minPts, dbDefault.minPts);
        QVERIFY(db.path == dbDefault.path);
        QCOMPARE(db.star, dbDefault.star);
        const cs::KnnParams knn = cs::knnParams(cs::knnDescriptor().defaults());
        const cs::KnnParams knnDefault;
        QCOMPARE(knn.k, knnDefault.k);
        QCOMPARE(knn.trees, knnDefault.trees);
        QCOMPARE(knn.leafSize, knnDefault.leafSize);
        QCOMPARE(knn.targetRecall, knnDefault.targetRecall);
        QCOMPARE(knn.recallSample, knnDefault.recallSample);
        QCOMPARE(knn.seed, knnDefault.seed);
        const cs::KShapeParams ks = cs::kshapeParams(cs::kshapeDescriptor().defaults());
        QCOMPARE(ks.k, cs::KShapeParams{}.k);
        QCOMPARE(ks.maxIterations, cs::KShapeParams{}.maxIterations);
        QCOMPARE(ks.channel, cs::KShapeParams{}.channel);  // all channels
        QVERIFY(!ks.channel);
        // The channel, a number or all, there and back.
        QCOMPARE(cs::kshapeParams(cs::kshapeValues({.channel = 3})).channel,
                 std::optional<std::size_t>(3));
        QCOMPARE(cs::kshapeValues({}).integer("channel"), cs::kKShapeAllChannels);
        const cs::RocketParams rk = cs::rocketParams(cs::rocketDescriptor().defaults());
        QCOMPARE(rk.kernels, cs::RocketParams{}.kernels);
        // And back: values of a params struct make the same struct.
        cs::KnnParams p;
        p.k = 7, p.trees = 3, p.leafSize = 100, p.targetRecall = 0.5, p.seed = 99;
        const cs::KnnParams q = cs::knnParams(cs::knnValues(p));
        QCOMPARE(q.k, 7);
        QCOMPARE(q.leafSize, 100);
        QCOMPARE(q.seed, std::uint64_t(99));
    }

    // No silent coercion: what is not exactly a value in range is refused with the reason.
    void parseRefusesWhatItCannotRepresent_data() {
        QTest::addColumn<QString>("algorithm");
        QTest::addColumn<QString>("parameter");
        QTest::addColumn<QString>("text");
        QTest::addColumn<bool>("accepted");
        QTest::newRow("seed -1") << "knn"
                                 << "seed"
                                 << "-1" << false;
        QTest::newRow("seed 2^64") << "knn"
                                   << "seed"
                                   << "18446744073709551616" << false;
        QTest::newRow("seed 1e23") << "rocket"
                                   << "seed"
                                   << "1e23" << false;
        QTest::newRow("seed 2.5") << "kshape"
                                  << "seed"
                                  << "2.5" << false;
        QTest::newRow("seed max") << "kshape"
                                  << "seed"
                                  << "2147483647" << true;
        QTest::newRow("seed max+1") << "kshape"
                                    << "seed"
                                    << "2147483648" << false;
        QTest::newRow("eps nan") << "dbscan"
                                 << "eps"
                                 << "nan" << false;
        QTest::newRow("eps inf") << "dbscan"
                                 << "eps"
                                 << "inf" << false;
        QTest::newRow("eps -1") << "dbscan"
                                << "eps"
                                << "-1" << false;
        QTest::newRow("eps 0.017") << "dbscan"
                                   << "eps"
                                   << "0.017" << true;
        QTest::newRow("eps trailing") << "dbscan"
                                      << "eps"
                                      << "0.5x" << false;
        QTest::newRow("minPts 0") << "dbscan"
                                  << "minPts"
                                  << "0" << false;
        QTest::newRow("path grid") << "dbscan"
                                   << "path"
                                   << "grid" << true;
        QTest::newRow("path fast") << "dbscan"
                                   << "path"
                                   << "fast" << false;
        QTest::newRow("star yes") << "dbscan"
                                  << "star"
                                  << "yes" << true;
        QTest::newRow("star maybe") << "dbscan"
                                    << "star"
                                    << "maybe" << false;
        QTest::newRow("kernels 0") << "rocket"
                                   << "kernels"
                                   << "0" << false;
        QTest::newRow("kernels 100001") << "rocket"
                                        << "kernels"
                                        << "100001" << false;
        QTest::newRow("recall 1.5") << "knn"
                                    << "targetRecall"
                                    << "1.5" << false;
        QTest::newRow("empty") << "knn"
                               << "k"
                               << "" << false;
        QTest::newRow("channel all") << "kshape"
                                     << "channel"
                                     << "all" << true;
        QTest::newRow("channel 5") << "kshape"
                                   << "channel"
                                   << "5" << true;
        QTest::newRow("channel every") << "kshape"
                                       << "channel"
                                       << "every" << false;
        QTest::newRow("channel -2") << "kshape"
                                    << "channel"
                                    << "-2" << false;
        QTest::newRow("seed all") << "kshape"
                                  << "seed"
                                  << "all" << false;
    }
    void parseRefusesWhatItCannotRepresent() {
        QFETCH(QString, algorithm);
        QFETCH(QString, parameter);
        QFETCH(QString, text);
        QFETCH(bool, accepted);
        const cs::AlgorithmDescriptor* d = nullptr;
        for (const auto* a : all())
            if (a->name == algorithm.toStdString()) d = a;
        QVERIFY(d);
        const cs::ParameterSpec* p = d->parameter(parameter.toStdString());
        QVERIFY(p);
        std::string error;
        const auto value = p->parse(text.toStdString(), &error);
        QCOMPARE(value.has_value(), accepted);
        if (!accepted) {
            QVERIFY2(error.find(p->name) != std::string::npos, error.c_str());
            QVERIFY2(error.find("expected") != std::string::npos, error.c_str());
        }
    }

    void rangesDependOnTheData() {
        const cs::AlgorithmDescriptor& db = cs::dbscanDescriptor();
        cs::ParameterValues v = db.defaults();
        v.set("minPts", std::int64_t(100000));
        const cs::DataShape cloud{.items = 397, .dims = 3};
        // Without data only the parameter's own range counts.
        QVERIFY(db.check(v, nullptr).empty());
        const auto problems = db.check(v, &cloud);
        QCOMPARE(problems.size(), std::size_t(1));
        QVERIFY2(problems.front().find("397") != std::string::npos, problems.front().c_str());
        const cs::ParameterSpec& minPts = *db.parameter("minPts");
        QCOMPARE(std::get<std::int64_t>(minPts.clamp(*v.find("minPts"), &cloud, v)),
                 std::int64_t(397));

        // The leaf size's lower bound follows k.
        const cs::AlgorithmDescriptor& knn = cs::knnDescriptor();
        cs::ParameterValues kv = knn.defaults();
        kv.set("k", std::int64_t(40));
        kv.set("leafSize", std::int64_t(64));
        const auto leaf = knn.check(kv, nullptr);
        QCOMPARE(leaf.size(), std::size_t(1));
        QVERIFY2(leaf.front().find("2 (k + 1) = 82") != std::string::npos, leaf.front().c_str());
        kv.set("leafSize", std::int64_t(82));
        QVERIFY(knn.check(kv, nullptr).empty());
        // k against the points.
        const cs::DataShape tiny{.items = 40, .dims = 2};
        QCOMPARE(knn.check(kv, &tiny).size(), std::size_t(1));

        // k-Shape: k against the series, the channel against the channels.
        const cs::AlgorithmDescriptor& ks = cs::kshapeDescriptor();
        cs::ParameterValues sv = ks.defaults();
        sv.set("k", std::int64_t(5));
        sv.set("channel", std::int64_t(6));
        const cs::DataShape motions{.items = 4, .length = 100, .channels = 6};
        QCOMPARE(ks.check(sv, &motions).size(), std::size_t(2));
        // All channels suits any set; written and read as the word.
        const cs::ParameterSpec& channel = *ks.parameter("channel");
        sv.set("k", std::int64_t(4));
        sv.set("channel", cs::kKShapeAllChannels);
        QVERIFY(ks.check(sv, &motions).empty());
        QCOMPARE(channel.format(cs::kKShapeAllChannels), std::string("all"));
        QCOMPARE(channel.format(std::int64_t(2)), std::string("2"));
        QCOMPARE(channel.expected(), std::string("all or an integer in [0, 65535]"));
        QVERIFY(ks.describe(sv).find("channel=all") != std::string::npos);
    }

    void exportsGoByTheMostSpecificEnding() {
        const auto d = all();
        auto match = [&](const char* path) -> std::string {
            const auto m = cs::matchExport(d, path);
            return m ? m->algorithm->name + ":" + m->spec->id : std::string("none");
        };
        QCOMPARE(match("a_knn.csv"), std::string("knn:edges"));
        QCOMPARE(match("A_KNN.CSV"), std::string("knn:edges"));
        QCOMPARE(match("labels.csv"), std::string("dbscan:labels-csv"));
        QCOMPARE(match("g_kshape_centroids.npy"), std::string("kshape:centroids"));
        QCOMPARE(match("g_kshape.csv"), std::string("kshape:labels"));
        QCOMPARE(match("g_rocket.npy"), std::string("rocket:features"));
        QCOMPARE(match("g_kshape_sweep.csv"), std::string("kshape:sweep-csv"));
        QCOMPARE(match("g_rocket_sweep.csv"), std::string("rocket:sweep-csv"));
        QCOMPARE(match("g_sweep.csv"), std::string("dbscan:sweep-csv"));
        QCOMPARE(match("data.npy"), std::string("none"));
        QCOMPARE(match("view.png"), std::string("none"));
    }

    void describeListsEveryValue() {
        const cs::AlgorithmDescriptor& db = cs::dbscanDescriptor();
        cs::DbscanParams p;
        p.eps = 0.017f;
        p.minPts = 8;
        QCOMPARE(db.describe(cs::dbscanValues(p)), std::string("dbscan eps=") +
                                                       db.parameter("eps")->format(double(0.017f)) +
                                                       " minPts=8 path=auto star=false");
    }
};

QTEST_MAIN(TestDescriptors)
#include "tst_descriptors.moc"
