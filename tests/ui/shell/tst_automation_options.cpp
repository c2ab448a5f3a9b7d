// SPDX-License-Identifier: MIT
// The GUI's command line without a window, so without GL (offscreen platform): parsing, bad
// command lines, and the algorithm registry's checks of --run and --param.
#include <QtTest>

#include "tests/ui/shell/automation_test_support.h"
#include "ui/panels/algorithm_registry.h"
#include "ui/shell/automation.h"

using cs::test::FakeAlgorithm;
using cs::test::parse;
using cs::ui::AlgorithmRegistry;
using cs::ui::Automation;

class TestAutomationOptions : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_tmp;

private slots:
    void parsesValidCommandLines() {
        auto o = parse({"data.pcd", "--as", "series", "--param", "dbscan.eps=0.5", "--param",
                        "dbscan.minPts=10", "--run", "dbscan", "--screenshot",
                        m_tmp.filePath("a.png"), "--quit", "--window-size", "1280x720"});
        QVERIFY(o);
        QCOMPARE(o->file, QStringLiteral("data.pcd"));
        QVERIFY(o->kind == cs::io::DataKind::Series);
        QCOMPARE(o->params, QStringList({"dbscan.eps=0.5", "dbscan.minPts=10"}));
        QCOMPARE(o->runs, QStringList({"dbscan"}));
        QCOMPARE(o->screenshot, m_tmp.filePath("a.png"));
        QVERIFY(o->quit);
        QCOMPARE(o->windowSize, QSize(1280, 720));
        QVERIFY(o->view.isEmpty() && o->colourMap.isEmpty() && !o->edges);
        QVERIFY(o->pointRenderer.isEmpty());
        for (const char* renderer : {"automatic", "gl", "splat"}) {
            o = parse({"--demo-points", "1M", "--point-renderer", renderer});
            QVERIFY(o);
            QCOMPARE(o->pointRenderer, QString::fromLatin1(renderer));
        }

        o = parse({"cloud.pcd", "--view", "Sensor", "--colour-map", "magma", "--colour-range",
                   "p5:p95", "--edges", "points,over,map=diverging,min=0.5,max=2,opacity=0.7"});
        QVERIFY(o);
        QCOMPARE(o->view, QStringLiteral("Sensor"));
        QCOMPARE(o->colourMap, QStringLiteral("magma"));
        QCOMPARE(o->colourRange, QStringLiteral("p5:p95"));
        QVERIFY(o->edges);
        QCOMPARE(o->edges->byLength, std::optional<bool>(false));
        QCOMPARE(o->edges->overPoints, std::optional<bool>(true));
        QCOMPARE(o->edges->map, std::optional<QString>(QStringLiteral("diverging")));
        QCOMPARE(o->edges->minLength, std::optional<double>(0.5));
        QCOMPARE(o->edges->maxLength, std::optional<double>(2.0));
        QCOMPARE(o->edges->opacity, std::optional<double>(0.7));
        o = parse({"--edges", "length"});
        QVERIFY(o && o->edges && o->edges->byLength == true && !o->edges->overPoints);

        o = parse({});
        QVERIFY(o);
        QVERIFY(o->file.isEmpty() && !o->demoPoints && !o->quit && o->screenshot.isEmpty());

        QCOMPARE(parse({"--demo-points", "20000"})->demoPoints, std::size_t(20000));
        QCOMPARE(parse({"--demo-points", "100k"})->demoPoints, std::size_t(100000));
        QCOMPARE(parse({"--demo-points", "10M"})->demoPoints, std::size_t(10000000));
        QCOMPARE(parse({"--demo-points", "1.5M"})->demoPoints, std::size_t(1500000));
        QVERIFY(parse({"--demo-series"})->demoSeries);
        QVERIFY(!parse({})->useSuggestedEps);
        QVERIFY(parse({"--demo-points", "1000", "--use-suggested-eps"})->useSuggestedEps);
        o = parse({"--session", "s.json", "--save-session", m_tmp.filePath("t.json")});
        QVERIFY(o);
        QCOMPARE(o->session, QStringLiteral("s.json"));
        QCOMPARE(o->saveSession, m_tmp.filePath("t.json"));
        QVERIFY(o->file.isEmpty());
        QVERIFY(parse({"--help"})->help);
        QVERIFY(parse({"--help"})->helpText.contains(QLatin1String("--screenshot")));
        QVERIFY(parse({"--version"})->version);
    }

    void rejectsBadCommandLines_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QTest::newRow("unknown option") << QStringList{"--frobnicate"} << "frobnicate";
        QTest::newRow("bad kind") << QStringList{"a.csv", "--as", "lines"}
                                  << "'points' or 'series'";
        QTest::newRow("kind without file") << QStringList{"--as", "points"} << "needs a FILE";
        QTest::newRow("two files") << QStringList{"a.pcd", "b.pcd"} << "at most one FILE";
        QTest::newRow("file and demo")
            << QStringList{"a.pcd", "--demo-points", "10"} << "only one of";
        QTest::newRow("session and file")
            << QStringList{"a.pcd", "--session", "s.json"} << "only one of";
        QTest::newRow("session and demo")
            << QStringList{"--demo-series", "--session", "s.json"} << "--session";
        QTest::newRow("save-session folder")
            << QStringList{"--save-session", "/nonexistent-folder/s.json"}
            << "save-session '/nonexistent";
        QTest::newRow("bad count") << QStringList{"--demo-points", "lots"} << "--demo-points";
        QTest::newRow("zero count") << QStringList{"--demo-points", "0"} << "--demo-points";
        QTest::newRow("huge count") << QStringList{"--demo-points", "500M"} << "--demo-points";
        QTest::newRow("missing value") << QStringList{"--screenshot"} << "screenshot";
        QTest::newRow("no such folder")
            << QStringList{"--screenshot", "/nonexistent-folder/x.png"} << "does not exist";
        QTest::newRow("measure folder")
            << QStringList{"--measure", "/nonexistent-folder/m.json"} << "measure '/nonexistent";
        QTest::newRow("export kind")
            << QStringList{"--export", "/tmp/labels.txt"} << "not '/tmp/labels.txt'";
        QTest::newRow("bad size") << QStringList{"--window-size", "big"} << "WIDTHxHEIGHT";
        QTest::newRow("bad timeout") << QStringList{"--timeout", "-3"} << "--timeout";
        QTest::newRow("bad view") << QStringList{"--view", "back"}
                                  << "--view takes front, top, side, sensor, fit, not 'back'";
        QTest::newRow("view of series")
            << QStringList{"--demo-series", "--view", "top"} << "--demo-series has no points";
        QTest::newRow("bad renderer")
            << QStringList{"--point-renderer", "vulkan"}
            << "--point-renderer takes automatic, gl or splat, not 'vulkan'";
        QTest::newRow("bad colour map")
            << QStringList{"--colour-map", "jet"}
            << "--colour-map takes viridis, magma, diverging, categorical, not 'jet'";
        QTest::newRow("bad colour range")
            << QStringList{"--colour-range", "p10:p5"} << "--colour-range: a colour range is";
        QTest::newRow("bad edges key") << QStringList{"--edges", "length,thick"} << "'thick'";
        QTest::newRow("bad edges opacity") << QStringList{"--edges", "opacity=2"} << "'opacity=2'";
        QTest::newRow("bad edges map") << QStringList{"--edges", "map=jet"} << "'map=jet'";
        QTest::newRow("suggested eps of series")
            << QStringList{"--demo-series", "--use-suggested-eps"}
            << "--use-suggested-eps sets DBSCAN's eps for points";
        QTest::newRow("edges min above max")
            << QStringList{"--edges", "min=3,max=1"} << "min=3 is above max=1";
    }
    void rejectsBadCommandLines() {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        QString error;
        QVERIFY(!parse(args, &error));
        QVERIFY2(error.contains(message), qPrintable(error));
    }

    void rejectsUnknownAlgorithms() {
        const AlgorithmRegistry none;
        auto o = parse({"--param", "dbscan.eps=1"});
        QVERIFY(o);
        QCOMPARE(Automation::validate(*o, none),
                 QStringLiteral(
                     "unknown algorithm 'dbscan' in --param dbscan.eps=1 (available: none yet)"));
        o = parse({"--run", "kshape"});
        QCOMPARE(Automation::validate(*o, none),
                 QStringLiteral("--run: unknown algorithm 'kshape' (available: none yet)"));
        o = parse({"--param", "eps"});
        QVERIFY(Automation::validate(*o, none).contains(QLatin1String("expected ALGO.NAME=VALUE")));
        QVERIFY(Automation::validate(*parse({}), none).isEmpty());
    }

    void checksParametersAgainstTheRegistry() {
        FakeAlgorithm fake;
        AlgorithmRegistry registry;
        registry.add(fake.spec());
        QCOMPARE(registry.availableText(), QStringLiteral("fake"));
        QString error;
        auto a = registry.parseAssignment(QStringLiteral("fake.eps=2.5"), &error);
        QVERIFY(a);
        QCOMPARE(std::get<double>(a->value), 2.5);
        QCOMPARE(std::get<std::int64_t>(
                     registry.parseAssignment(QStringLiteral("fake.minPts=7"), &error)->value),
                 std::int64_t(7));
        QCOMPARE(std::get<std::string>(
                     registry.parseAssignment(QStringLiteral("fake.metric=cosine"), &error)->value),
                 std::string("cosine"));
        QCOMPARE(std::get<bool>(
                     registry.parseAssignment(QStringLiteral("fake.exact=false"), &error)->value),
                 false);

        const struct {
            const char* text;
            const char* message;
        } bad[] = {
            {"fake.eps=11", "invalid value '11' for fake.eps: expected a number in [0, 10]"},
            {"fake.eps=abc", "expected a number in [0, 10]"},
            {"fake.minPts=2.5", "expected an integer in [1, 1000]"},
            {"fake.metric=l1", "one of: l2, cosine"},
            {"fake.exact=maybe", "true or false"},
            {"fake.epz=1",
             "unknown parameter 'epz' of algorithm 'fake' (its parameters: eps, minPts, "
             "metric, exact)"},
            {"dbscan.eps=1",
             "unknown algorithm 'dbscan' in --param dbscan.eps=1 (available: fake)"},
            {".eps=1", "expected ALGO.NAME=VALUE"},
            {"fake.=1", "expected ALGO.NAME=VALUE"},
        };
        for (const auto& b : bad) {
            QVERIFY2(!registry.parseAssignment(QString::fromUtf8(b.text), &error), b.text);
            QVERIFY2(error.contains(QString::fromUtf8(b.message)), qPrintable(error));
        }
        QCOMPARE(registry.checkAlgorithm(QStringLiteral("fake")), QString());
    }
};

QTEST_MAIN(TestAutomationOptions)
#include "tst_automation_options.moc"
