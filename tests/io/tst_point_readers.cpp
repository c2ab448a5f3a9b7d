// SPDX-License-Identifier: MIT
#include <QTemporaryDir>
#include <QTest>

#include <array>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "compute/core/error.h"
#include "compute/core/job_control.h"
#include "compute/core/point_set.h"
#include "compute/io/npy.h"
#include "compute/io/point_common.h"
#include "compute/io/point_readers.h"
#include "compute/io/text_input.h"
#include "point_test_files.h"
#include "tests/common/test_paths.h"

Q_DECLARE_METATYPE(cs::PointSet)
Q_DECLARE_METATYPE(cs::InputError::Unit)
Q_DECLARE_METATYPE(std::string)

namespace {

using cs::PointAttribute;
using cs::PointSet;
using cs::test::ByteWriter;
using Unit = cs::InputError::Unit;
namespace fs = std::filesystem;

void writeFile(const fs::path& file, const std::string& bytes) {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), std::streamsize(bytes.size()));
    QVERIFY2(out.good(), file.string().c_str());
}

QByteArray describe(const PointAttribute& a) {
    return QByteArray::fromStdString(a.name) + " (kind " + QByteArray::number(int(a.kind)) + ")";
}

// Compares everything a reader fills; coordinates and values bit for bit.
void compareSets(const PointSet& got, const PointSet& want) {
    QCOMPARE(got.n, want.n);
    QCOMPARE(got.dims, want.dims);
    QCOMPARE(got.droppedNonFinite, want.droppedNonFinite);
    // The file row of each point kept, listed only once a row was dropped.
    QCOMPARE(got.fileRows, want.droppedNonFinite > 0 ? want.fileRows : std::vector<std::size_t>{});
    QCOMPARE(got.dimNames, want.dimNames);
    QCOMPARE(got.coords.size(), want.coords.size());
    for (std::size_t k = 0; k < want.coords.size(); ++k)
        QVERIFY2(std::memcmp(&got.coords[k], &want.coords[k], sizeof(float)) == 0,
                 qPrintable(QString("coordinate %1 of point %2: got %3, want %4")
                                .arg(k % want.dims)
                                .arg(k / want.dims)
                                .arg(double(got.coords[k]), 0, 'g', 9)
                                .arg(double(want.coords[k]), 0, 'g', 9)));
    QCOMPARE(got.attributes.size(), want.attributes.size());
    for (std::size_t a = 0; a < want.attributes.size(); ++a) {
        const PointAttribute& g = got.attributes[a];
        const PointAttribute& w = want.attributes[a];
        QCOMPARE(describe(g), describe(w));
        QCOMPARE(g.scalars, w.scalars);
        QCOMPARE(g.labels, w.labels);
        QCOMPARE(g.categories, w.categories);
        QCOMPARE(g.colours, w.colours);
    }
    got.validate();
}

PointSet expectedSet(std::size_t dims, std::vector<std::string> names, std::vector<float> coords,
                     std::vector<PointAttribute> attributes = {}, std::size_t dropped = 0,
                     std::vector<std::size_t> fileRows = {}) {
    PointSet s;
    s.dims = dims;
    s.n = coords.size() / dims;
    s.dimNames = std::move(names);
    s.coords = std::move(coords);
    s.attributes = std::move(attributes);
    s.droppedNonFinite = dropped;
    s.fileRows = std::move(fileRows);
    return s;
}

bool containsNoCase(const std::string& text, const std::string& word) {
    return QString::fromStdString(text).contains(QString::fromStdString(word), Qt::CaseInsensitive);
}

// ---- byte builders for the error cases ----------------------------------------------------------

std::string plyHeader(const std::string& format, const std::string& elements) {
    return "ply\nformat " + format + " 1.0\n" + elements + "end_header\n";
}

const std::string kVertexXyz =
    "element vertex 10\nproperty float x\nproperty float y\nproperty float z\n";

std::string pcdHeader(const std::string& data, std::size_t points,
                      const std::string& fields =
                          "FIELDS x y z\nSIZE 4 4 4\nTYPE F F F\n"
                          "COUNT 1 1 1\n") {
    return "VERSION 0.7\n" + fields + "WIDTH " + std::to_string(points) + "\nHEIGHT 1\nPOINTS " +
           std::to_string(points) + "\nDATA " + data + "\n";
}

std::string npyFile(const std::string& dict, std::size_t bodyBytes) {
    return cs::test::npyBytes(1, dict,
                              [&](ByteWriter& w) { w.text(std::string(bodyBytes, '\0')); });
}

// Where the array data of a version 1.0 file starts.
std::size_t npyBody(const std::string& bytes) {
    return 10 + (std::uint8_t(bytes[8]) | std::size_t(std::uint8_t(bytes[9])) << 8);
}

}  // namespace

class TestPointReaders : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;

    fs::path path(const std::string& name) const {
        return m_dir.filePath(QString::fromStdString(name)).toStdString();
    }

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void readsReportProgressAndStopWhenCancelled() {
        // 300,000 lines of CSV: progress through reading, then parsing, and a stop on request.
        const fs::path file = path("big.csv");
        {
            std::ofstream out(file);
            out << "x,y,z\n";
            for (int i = 0; i < 300'000; ++i)
                out << i << ',' << i % 97 << ',' << i % 13 << '\n';
        }
        std::vector<std::pair<double, std::string>> seen;
        cs::JobControl job(
            [&](double f, std::string_view stage) { seen.emplace_back(f, std::string(stage)); });
        {
            const cs::io::ReadScope scope(&job);
            const cs::PointSet p = cs::io::readPoints(file);
            QCOMPARE(p.n, std::size_t(300'000));
        }
        QVERIFY(seen.size() > 5);
        QCOMPARE(seen.front().second, std::string("reading"));
        QCOMPARE(seen.back().second, std::string("parsing"));
        for (std::size_t k = 1; k < seen.size(); ++k)
            QVERIFY(seen[k].first >= seen[k - 1].first);
        QVERIFY(seen.back().first > 0.9);

        // Cancelled half-way through parsing: cs::Cancelled, and no scope leaks out.
        cs::JobControl* self = nullptr;
        cs::JobControl cancelling([&](double f, std::string_view) {
            if (f > 0.75) self->cancel();
        });
        self = &cancelling;
        {
            const cs::io::ReadScope scope(&cancelling);
            QVERIFY_THROWS_EXCEPTION(cs::Cancelled, cs::io::readPoints(file));
        }
        QCOMPARE(cs::io::ReadScope::current(), nullptr);
        // Cancelled before it starts: nothing is read.
        cs::JobControl cancelled;
        cancelled.cancel();
        const cs::io::ReadScope scope(&cancelled);
        QVERIFY_THROWS_EXCEPTION(cs::Cancelled, cs::io::readPoints(file));
    }

    // ---- the real clouds of ../shared/data/points (PCL's test clouds, see SOURCES.md) ----------

    void realClouds_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<qulonglong>("points");
        QTest::addColumn<qulonglong>("dropped");
        QTest::addColumn<QVector<double>>("box");  // min x y z, max x y z, 3 decimals
        QTest::addColumn<QStringList>("attributes");
        QTest::newRow("bunny ascii")
            << "points/bunny.pcd" << 397ull << 0ull
            << QVector<double>{-0.094, 0.037, -0.055, 0.060, 0.184, 0.058} << QStringList{};
        QTest::newRow("cturtle compressed")
            << "points/cturtle.pcd" << 167198ull << 0ull
            << QVector<double>{-1.420, -1.050, 1.396, 1.420, 1.065, 2.000}
            << QStringList{"intensity"};
        QTest::newRow("table scene compressed, organised, NaN")
            << "points/table_scene_mug_stereo_textured.pcd" << 209280ull << 97920ull
            << QVector<double>{-0.456, -0.511, 0.690, 0.715, 0.179, 2.593} << QStringList{"rgba"};
    }
    void realClouds() {
        QFETCH(QString, file);
        QFETCH(qulonglong, points);
        QFETCH(qulonglong, dropped);
        QFETCH(QVector<double>, box);
        QFETCH(QStringList, attributes);
        const fs::path p = cs::test::sharedData(file.toStdString());
        if (!fs::exists(p)) CS_QSKIP_MISSING_DATA("missing " + QString::fromStdString(p.string()));
        for (const PointSet& s : {cs::io::readPcd(p), cs::io::readPoints(p)}) {
            s.validate();
            QCOMPARE(s.n, std::size_t(points));
            QCOMPARE(s.droppedNonFinite, std::size_t(dropped));
            // An organised cloud's outputs line up with its width x height grid through these
            // (validate() checks their order and range).
            QCOMPARE(s.fileRows.size(), dropped > 0 ? std::size_t(s.n) : std::size_t(0));
            QCOMPARE(s.dims, std::size_t(3));
            QCOMPARE(s.dimNames, (std::vector<std::string>{"x", "y", "z"}));
            QCOMPARE(s.source, p.string());
            float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
            for (std::size_t i = 0; i < s.n; ++i)
                for (int j = 0; j < 3; ++j) {
                    lo[j] = std::min(lo[j], s.coords[i * 3 + j]);
                    hi[j] = std::max(hi[j], s.coords[i * 3 + j]);
                }
            for (int j = 0; j < 3; ++j) {
                // SOURCES.md rounds to millimetres.
                QVERIFY2(std::abs(lo[j] - box[j]) <= 0.0005 + 1e-6,
                         qPrintable(QString::number(lo[j])));
                QVERIFY2(std::abs(hi[j] - box[3 + j]) <= 0.0005 + 1e-6,
                         qPrintable(QString::number(hi[j])));
            }
            QStringList names;
            for (const auto& a : s.attributes)
                names << QString::fromStdString(a.name);
            QCOMPARE(names, attributes);
        }
    }

    void realCloudAttributes() {
        const fs::path table = cs::test::sharedData("points/table_scene_mug_stereo_textured.pcd");
        const fs::path turtle = cs::test::sharedData("points/cturtle.pcd");
        if (!fs::exists(table) || !fs::exists(turtle))
            CS_QSKIP_MISSING_DATA(QStringLiteral("shared point data missing"));
        const PointSet s = cs::io::readPcd(table);
        const PointAttribute* rgba = s.attribute("rgba");
        QVERIFY(rgba);
        QCOMPARE(rgba->kind, PointAttribute::Kind::Colour);
        std::size_t distinct = 0;
        for (std::size_t i = 1; i < rgba->colours.size(); ++i)
            distinct += rgba->colours[i] != rgba->colours[0];
        QVERIFY(distinct > s.n / 2);  // a textured scan, not one flat colour
        for (std::uint32_t c : rgba->colours)
            QVERIFY(c <= 0xFFFFFFu);
        const PointSet t = cs::io::readPcd(turtle);
        const PointAttribute* intensity = t.attribute("intensity");
        QVERIFY(intensity);
        QCOMPARE(intensity->kind, PointAttribute::Kind::Scalar);
        QCOMPARE(intensity->scalars.size(), t.n);
    }

    void pcdViewpoint_data() {
        QTest::addColumn<QString>("values");
        QTest::addColumn<bool>("hasPose");
        QTest::addColumn<QList<double>>("origin");
        QTest::addColumn<QList<double>>("quaternion");
        QTest::newRow("none") << QString() << false << QList<double>{} << QList<double>{};
        QTest::newRow("identity") << "0 0 0 1 0 0 0" << true << QList<double>{0, 0, 0}
                                  << QList<double>{1, 0, 0, 0};
        QTest::newRow("turned about x")
            << "1.5 -2 0.25 0 1 0 0" << true << QList<double>{1.5, -2, 0.25}
            << QList<double>{0, 1, 0, 0};
        // Written with four digits: normalised, not refused.
        const double h = 0.7071 / std::sqrt(2 * 0.7071 * 0.7071);
        QTest::newRow("short digits") << "0 0 0 0.7071 0 0.7071 0" << true << QList<double>{0, 0, 0}
                                      << QList<double>{h, 0, h, 0};
    }

    void pcdViewpoint() {
        // The pose is kept beside the points; the coordinates stay as the file has them.
        QFETCH(QString, values);
        QFETCH(bool, hasPose);
        QFETCH(QList<double>, origin);
        QFETCH(QList<double>, quaternion);
        const std::string header =
            values.isEmpty() ? std::string() : "VIEWPOINT " + values.toStdString() + "\n";
        const std::string bytes =
            "VERSION 0.7\n" + header + pcdHeader("ascii", 2).substr(12) + "1 2 3\n4 5 6\n";
        const PointSet s = cs::io::detail::readPcdBytes("vp.pcd", bytes);
        QCOMPARE(s.coords, (std::vector<float>{1, 2, 3, 4, 5, 6}));
        QCOMPARE(s.sensorPose.has_value(), hasPose);
        if (!hasPose) return;
        for (int i = 0; i < 3; ++i)
            QCOMPARE(s.sensorPose->origin[std::size_t(i)], origin[i]);
        for (int i = 0; i < 4; ++i)
            QVERIFY(std::abs(s.sensorPose->orientation[std::size_t(i)] - quaternion[i]) < 1e-12);
        // The rotation of q = (0, 1, 0, 0) turns y and z over.
        if (values == QLatin1String("1.5 -2 0.25 0 1 0 0")) {
            const auto r = s.sensorPose->rotation();
            const std::array<double, 9> flip{1, 0, 0, 0, -1, 0, 0, 0, -1};
            for (std::size_t i = 0; i < 9; ++i)
                QCOMPARE(r[i], flip[i]);
            QVERIFY(!s.sensorPose->isIdentity());
        }
        if (values == QLatin1String("0 0 0 1 0 0 0")) QVERIFY(s.sensorPose->isIdentity());
    }

    void realCloudViewpoints() {
        // PCL's mug scene was saved with the camera turned over about x (VIEWPOINT 0 0 0 0 1 0 0);
        // the turtle with the identity.
        const fs::path table = cs::test::sharedData("points/table_scene_mug_stereo_textured.pcd");
        const fs::path turtle = cs::test::sharedData("points/cturtle.pcd");
        if (!fs::exists(table) || !fs::exists(turtle))
            CS_QSKIP_MISSING_DATA(QStringLiteral("shared point data missing"));
        const PointSet s = cs::io::readPcd(table);
        QVERIFY(s.sensorPose);
        QCOMPARE(s.sensorPose->orientation, (std::array<double, 4>{0, 1, 0, 0}));
        const PointSet t = cs::io::readPcd(turtle);
        QVERIFY(t.sensorPose && t.sensorPose->isIdentity());
        QVERIFY(!cs::io::readPcd(cs::test::sharedData("points/bunny.pcd")).sensorPose);
    }

    // ---- hand-made files under tests/io/data ---------------------------------------------------

    void handMade_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<PointSet>("expected");
        using cs::test::colourAttribute;
        using cs::test::labelAttribute;
        using cs::test::scalarAttribute;
        QTest::newRow("headerless UCI csv with a class column")
            << "points_iris.csv"
            << expectedSet(4, {"c0", "c1", "c2", "c3"},
                           {5.1f, 3.5f, 1.4f, 0.2f, 4.9f, 3.0f, 1.4f, 0.2f, 7.0f, 3.2f,
                            4.7f, 1.4f, 6.3f, 3.3f, 6.0f, 2.5f, 6.4f, 3.2f, 4.5f, 1.5f},
                           {labelAttribute("label", {0, 0, 1, 2, 1},
                                           {"Iris-setosa", "Iris-versicolor", "Iris-virginica"})});
        QTest::newRow("semicolons, numeric classes sorted")
            << "points_semicolon.txt"
            << expectedSet(2, {"a", "b"}, {1.5f, -2.f, 0.f, 0.f, 1e3f, 2.5e-3f, -0.f, 7.f},
                           {labelAttribute("class", {1, 0, 2, 1}, {"1", "3", "10"})});
        QTest::newRow("whitespace, no header, NaN and inf dropped")
            << "points_whitespace.txt"
            << expectedSet(3, {"x", "y", "z"}, {1, 2, 3, 4, 5, 6, -1.25e-3f, 2, 3}, {}, 2,
                           {0, 1, 4});
        QTest::newRow("quoted header names and labels")
            << "points_quoted.csv"
            << expectedSet(2, {"x, metres", "y"}, {1, 2, 3, 4, 5, 6, 7, 8},
                           {labelAttribute("label", {0, 1, -1, 0}, {"a b", "c,d"})});
        QTest::newRow("xyz with extra columns")
            << "points_extras.xyz"
            << expectedSet(3, {"x", "y", "z"}, {0, 0, 0, 1, 0.5f, -0.5f, 2, 1, -1},
                           {scalarAttribute("column4", {255, 0, 0}),
                            scalarAttribute("column5", {0, 255, 0}),
                            scalarAttribute("column6", {0, 0, 255})});
        QTest::newRow("ascii ply, colours, list element before the vertices")
            << "points_ascii.ply"
            << expectedSet(3, {"x", "y", "z"}, {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1},
                           {colourAttribute("rgb", {0xFF0000, 0x00FF00, 0x0000FF, 0x102030}),
                            scalarAttribute("alpha", {255, 128, 0, 255}),
                            scalarAttribute("confidence", {0.5f, 0.25f, 1, 0})});
        QTest::newRow("pcd v.6 ascii, float-printed rgb, no COUNT")
            << "points_v6.pcd"
            << expectedSet(
                   3, {"x", "y", "z"}, {1, 2, 3, -1, -2, -3},
                   {colourAttribute(
                       "rgb", {std::bit_cast<std::uint32_t>(4.2108e+06f) & 0xFFFFFF, 0xFF0000})},
                   1, {0, 2});
    }
    void handMade() {
        QFETCH(QString, file);
        QFETCH(PointSet, expected);
        const fs::path p = cs::test::testSource("io/data/" + file.toStdString());
        const PointSet s = cs::io::readPoints(p);
        QCOMPARE(s.source, p.string());
        compareSets(s, expected);
    }

    // ---- files written by the test-side encoders -----------------------------------------------

    void generated_data() {
        QTest::addColumn<std::string>("name");
        QTest::addColumn<std::string>("bytes");
        QTest::addColumn<PointSet>("expected");
        for (auto& f : cs::test::generatedPointFiles())
            QTest::newRow(f.name.c_str()) << f.name << f.bytes << f.expected;
    }
    void generated() {
        QFETCH(std::string, name);
        QFETCH(std::string, bytes);
        QFETCH(PointSet, expected);
        const fs::path p = path(name);
        writeFile(p, bytes);
        const PointSet s = cs::io::readPoints(p);
        QCOMPARE(s.source, p.string());
        compareSets(s, expected);
        // The format-specific entry point gives the same, and so does sniffing the content
        // under an extension that says nothing (except for text, which is the fallback anyway).
        const std::string ext = p.extension().string();
        PointSet direct;
        if (ext == ".ply") direct = cs::io::readPly(p);
        if (ext == ".pcd") direct = cs::io::readPcd(p);
        if (ext == ".npy") direct = cs::io::readNpyPoints(p);
        if (ext == ".xyz") direct = cs::io::readXyz(p);
        if (ext == ".csv" || ext == ".tsv") direct = cs::io::readPointsText(p);
        compareSets(direct, expected);
        if (ext == ".xyz") return;  // the xyz layout is chosen by extension only
        const fs::path unnamed = path(name + ".data");
        writeFile(unnamed, bytes);
        compareSets(cs::io::readPoints(unnamed), expected);
    }

    void npyArrays() {
        // readNpy keeps the shape and converts integers.
        const auto f = cs::test::npy(cs::test::NpyKind::I8Big);
        writeFile(path("arr.npy"), f.bytes);
        const cs::io::NpyArray a = cs::io::readNpy(path("arr.npy"));
        QCOMPARE(a.shape, (std::vector<std::size_t>{cs::test::kPoints, 2}));
        QCOMPARE(a.values, f.expected.coords);
        const auto g = cs::test::npy(cs::test::NpyKind::OneD);
        writeFile(path("arr1.npy"), g.bytes);
        const cs::io::NpyArray b = cs::io::readNpy(path("arr1.npy"));
        QCOMPARE(b.shape, (std::vector<std::size_t>{cs::test::kPoints}));
        QVERIFY(std::isnan(b.values[cs::test::kNanPoint]));  // readNpy drops nothing
    }

    void writeNpyRoundTrip() {
        std::vector<float> f{1.5f, -2.f, 3.25f, 1e-30f, 7.f, 8.f};
        std::vector<double> d{1.0 / 3.0, -1e300, 2.0};
        std::vector<std::int32_t> i{-5, 0, 2147483647, -2147483647 - 1};
        std::vector<std::int64_t> l{1, -1, 1ll << 40};
        cs::io::writeNpy(path("f.npy"), f, {2, 3});
        cs::io::writeNpy(path("d.npy"), d, {3});
        cs::io::writeNpy(path("i.npy"), i, {2, 2});
        cs::io::writeNpy(path("l.npy"), l, {1, 3});
        for (const char* name : {"f.npy", "d.npy", "i.npy", "l.npy"}) {
            const std::string bytes = cs::io::readFileBytes(path(name));
            QVERIFY(bytes.size() >= 64);
            QCOMPARE(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
            const std::size_t headerLength = std::uint8_t(bytes[8]) | std::uint8_t(bytes[9]) << 8;
            QCOMPARE((10 + headerLength) % 64, std::size_t(0));
            QCOMPARE(bytes[10 + headerLength - 1], '\n');
        }
        const std::string header = cs::io::readFileBytes(path("d.npy")).substr(10, 64);
        QVERIFY2(header.find("{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }") == 0,
                 header.c_str());
        auto a = cs::io::readNpy(path("f.npy"));
        QCOMPARE(a.shape, (std::vector<std::size_t>{2, 3}));
        QCOMPARE(a.values, f);
        a = cs::io::readNpy(path("d.npy"));
        QCOMPARE(a.values, (std::vector<float>{float(1.0 / 3.0), -INFINITY, 2.f}));
        a = cs::io::readNpy(path("i.npy"));
        QCOMPARE(a.values, (std::vector<float>{-5.f, 0.f, 2147483647.f, -2147483648.f}));
        a = cs::io::readNpy(path("l.npy"));
        QCOMPARE(a.shape, (std::vector<std::size_t>{1, 3}));
        QCOMPARE(a.values, (std::vector<float>{1.f, -1.f, float(1ll << 40)}));
        const PointSet s = cs::io::readPoints(path("f.npy"));
        QCOMPARE(s.n, std::size_t(2));
        QCOMPARE(s.coords, f);
        // The wrong shape is the caller's error, reported with the file name.
        try {
            cs::io::writeNpy(path("bad.npy"), f, {4, 2});
            QFAIL("writeNpy accepted a shape that does not match the data");
        } catch (const cs::Error& e) {
            QVERIFY(containsNoCase(e.what(), "bad.npy"));
            QVERIFY(containsNoCase(e.what(), "shape"));
        }
        try {
            cs::io::writeNpy(path("no/such/dir/x.npy"), f, {6});
            QFAIL("writeNpy wrote into a missing directory");
        } catch (const cs::Error& e) {
            QVERIFY(containsNoCase(e.what(), "x.npy"));
        }
    }

    void crlfAndTabs() {
        writeFile(path("crlf.tsv"), "x\ty\r\n1\t2\r\n3\t4");  // no final newline
        const PointSet s = cs::io::readPoints(path("crlf.tsv"));
        compareSets(s, expectedSet(2, {"x", "y"}, {1, 2, 3, 4}));
    }

    void missingFile() {
        const fs::path p = path("nothing-here.ply");
        try {
            cs::io::readPoints(p);
            QFAIL("read a missing file");
        } catch (const cs::InputError& e) {
            QCOMPARE(e.file(), p.string());
            QVERIFY(containsNoCase(e.what(), "nothing-here.ply"));
        }
        try {
            cs::io::readPoints(m_dir.path().toStdString());
            QFAIL("read a directory");
        } catch (const cs::InputError& e) {
            QVERIFY(containsNoCase(e.problem(), "directory"));
        }
    }

    // ---- errors: file, place and problem -------------------------------------------------------

    void errors_data() {
        QTest::addColumn<std::string>("name");
        QTest::addColumn<std::string>("bytes");
        QTest::addColumn<cs::InputError::Unit>("unit");
        QTest::addColumn<qulonglong>("where");
        QTest::addColumn<QString>("keyword");
        const auto row = [](const char* tag, std::string name, std::string bytes, Unit unit,
                            std::uint64_t where, const char* keyword) {
            QTest::newRow(tag) << std::move(name) << std::move(bytes) << unit << qulonglong(where)
                               << QString(keyword);
        };
        // text
        row("csv empty", "empty.csv", "", Unit::None, 0, "empty");
        row("csv only comments", "comments.csv", "# nothing\n\n# here\n", Unit::None, 0, "no data");
        row("csv ragged", "ragged.csv", "x,y\n1,2\n\n3\n", Unit::Line, 4,
            "1 comma-separated fields, expected 2");
        row("csv text in numeric column", "text.csv", "x,y\n1,2\n3,abc\n", Unit::Line, 3,
            "column 2 ('y') 'abc' is not a number");
        row("csv empty field", "hole.csv", "x,y,z\n1,,3\n", Unit::Line, 2,
            "column 2 ('y') is empty");
        row("csv header only", "header.csv", "# c\nx,y\n", Unit::Line, 2, "no data rows");
        row("csv all NaN", "nan.csv", "nan,1\n1,inf\n", Unit::None, 0, "all 2 points");
        row("csv only a label column", "labels.csv", "label\na\nb\n", Unit::Line, 1,
            "no numeric columns");
        row("tsv headerless text", "words.tsv", "1\t2\n3\tfour\n", Unit::Line, 2,
            "'four' is not a number");
        row("xyz two columns", "flat.xyz", "1 2\n3 4\n", Unit::Line, 1, "x y z");
        row("xyz ragged", "ragged.xyz", "1 2 3\n4 5 6 7\n", Unit::Line, 2,
            "has 4 fields, expected 3");
        // PLY
        const std::string plyLe = plyHeader("binary_little_endian", kVertexXyz);
        row("ply wrong magic", "magic.ply", "plx\nformat ascii 1.0\nend_header\n", Unit::Line, 1,
            "ply");
        row("ply empty", "empty.ply", "", Unit::None, 0, "empty");
        row("ply unknown format", "format.ply", plyHeader("binary_middle_endian", kVertexXyz),
            Unit::Line, 2, "binary_middle_endian");
        row("ply no end_header", "open.ply", "ply\nformat ascii 1.0\n" + kVertexXyz, Unit::Line, 6,
            "end_header");
        row("ply unknown type", "type.ply",
            plyHeader("ascii", "element vertex 1\nproperty float128 x\n"), Unit::Line, 4,
            "float128");
        row("ply list in vertex", "list.ply",
            plyHeader("ascii", kVertexXyz + "property list uchar int idx\n") + "0 0 0 0\n",
            Unit::Line, 3, "list");
        row("ply missing z", "noz.ply",
            plyHeader("ascii", "element vertex 1\nproperty float x\nproperty float y\n") + "1 2\n",
            Unit::Line, 3, "'z'");
        row("ply no vertex element", "novertex.ply",
            plyHeader("ascii", "element face 0\nproperty list uchar int idx\n"), Unit::Line, 5,
            "no vertex element");
        row("ply property before element", "orphan.ply", plyHeader("ascii", "property float x\n"),
            Unit::Line, 3, "before any element");
        row("ply bad element count", "count.ply", plyHeader("ascii", "element vertex -3\n"),
            Unit::Line, 3, "element <name> <count>");
        row("ply binary truncated", "short.ply", plyLe + std::string(3 * 12 + 5, '\0'), Unit::Byte,
            plyLe.size() + 36, "promises 10 vertices");
        {
            const std::string huge = plyHeader("binary_big_endian",
                                               "element vertex 4000000000\nproperty double "
                                               "x\nproperty double y\nproperty double z\n");
            row("ply binary huge count", "huge.ply", huge + std::string(48, '\0'), Unit::Byte,
                huge.size() + 48, "4000000000");
        }
        {
            // A face list before the vertices claims 200 indices but the file ends.
            const std::string h =
                plyHeader("binary_little_endian",
                          "element face 1\nproperty list uchar int idx\n" + kVertexXyz);
            row("ply binary list runs off the end", "list_short.ply",
                h + "\xC8" + std::string(20, '\0'), Unit::Byte, h.size() + 1, "list of 200 items");
        }
        row("ply ascii truncated", "short_ascii.ply",
            plyHeader("ascii", kVertexXyz) + "1 2 3\n4 5 6\n", Unit::Line, 9,
            "promises 10 vertices, the file holds 2");
        row("ply ascii text", "text_ascii.ply",
            plyHeader("ascii", kVertexXyz) + "1 2 3\n4 five 6\n", Unit::Line, 9,
            "'five' is not a number");
        row("ply ascii too many values", "wide_ascii.ply",
            plyHeader("ascii", kVertexXyz) + "1 2 3 4\n", Unit::Line, 8, "4 values, expected 3");
        row("ply ascii skipped element short", "faces.ply",
            plyHeader("ascii", "element face 5\nproperty list uchar int idx\n" + kVertexXyz) +
                "3 0 1 2\n",
            Unit::Line, 10, "element 'face' has 1 of its 5 lines");
        // PCD
        row("pcd empty", "empty.pcd", "", Unit::None, 0, "empty");
        // VIEWPOINT is line 2 of these headers.
        const auto viewpoint = [&](const std::string& values) {
            return "VERSION 0.7\nVIEWPOINT " + values + "\n" + pcdHeader("ascii", 1).substr(12) +
                   "1 2 3\n";
        };
        row("pcd VIEWPOINT short", "vp_short.pcd", viewpoint("0 0 0 1 0 0"), Unit::Line, 2,
            "7 numbers: tx ty tz qw qx qy qz (found 6)");
        row("pcd VIEWPOINT text", "vp_text.pcd", viewpoint("0 0 0 1 0 zero 0"), Unit::Line, 2,
            "'zero' is not a finite number");
        row("pcd VIEWPOINT nan", "vp_nan.pcd", viewpoint("nan 0 0 1 0 0 0"), Unit::Line, 2,
            "'nan' is not a finite number");
        row("pcd VIEWPOINT zero quaternion", "vp_zero.pcd", viewpoint("0 0 0 0 0 0 0"), Unit::Line,
            2, "quaternion (qw qx qy qz) has length 0; a rotation needs a unit quaternion");
        row("pcd VIEWPOINT long quaternion", "vp_long.pcd", viewpoint("1 2 3 1 1 0 0"), Unit::Line,
            2, "has length 1.41421");
        row("pcd unknown DATA", "lzw.pcd", pcdHeader("lzw", 1), Unit::Line, 9, "'lzw'");
        row("pcd unknown TYPE", "typex.pcd",
            pcdHeader("ascii", 1, "FIELDS x y z\nSIZE 4 4 4\nTYPE F X F\n") + "1 2 3\n", Unit::Line,
            4, "TYPE 'X'");
        row("pcd float of 2 bytes", "half.pcd",
            pcdHeader("ascii", 1, "FIELDS x y z\nSIZE 4 2 4\nTYPE F F F\n") + "1 2 3\n", Unit::Line,
            4, "SIZE 2");
        row("pcd SIZE count", "sizes.pcd",
            pcdHeader("ascii", 1, "FIELDS x y z\nSIZE 4 4\nTYPE F F F\n") + "1 2 3\n", Unit::Line,
            3, "SIZE lists 2 values for 3 fields");
        row("pcd no DATA", "nodata.pcd", "VERSION 0.7\nFIELDS x y z\nSIZE 4 4 4\nTYPE F F F\n",
            Unit::Line, 4, "no DATA line");
        row("pcd unsupported version", "v8.pcd", "VERSION 0.8\n" + pcdHeader("ascii", 0).substr(12),
            Unit::Line, 1, "version");
        row("pcd POINTS vs WIDTH", "wh.pcd",
            "VERSION 0.7\nFIELDS x y z\nSIZE 4 4 4\nTYPE F F F\nWIDTH 4\nHEIGHT 2\nPOINTS 9\nDATA "
            "ascii\n",
            Unit::Line, 7, "WIDTH x HEIGHT 8");
        row("pcd no x", "nox.pcd",
            pcdHeader("ascii", 1, "FIELDS a y z\nSIZE 4 4 4\nTYPE F F F\n") + "1 2 3\n", Unit::Line,
            2, "no 'x' field");
        row("pcd ascii short line", "ascii_short.pcd", pcdHeader("ascii", 2) + "1 2 3\n4 5\n",
            Unit::Line, 11, "2 values, expected 3");
        row("pcd ascii too few points", "ascii_few.pcd", pcdHeader("ascii", 3) + "1 2 3\n4 5 6\n",
            Unit::Line, 11, "promises 3 points, the file holds 2");
        row("pcd ascii huge COUNT", "count.pcd",
            pcdHeader("ascii", 1,
                      "FIELDS x y z n\nSIZE 4 4 4 4\nTYPE F F F F\nCOUNT 1 1 1 4294967296\n") +
                "1 2 3 4\n",
            Unit::Line, 9, "COUNT promises 4294967299 values");
        row("pcd ascii text", "ascii_text.pcd", pcdHeader("ascii", 1) + "1 2 zed\n", Unit::Line, 10,
            "'zed' is not a number");
        {
            const std::string h = pcdHeader("binary", 5);
            row("pcd binary truncated", "binary_short.pcd", h + std::string(12 * 3 + 7, '\0'),
                Unit::Byte, h.size() + 36, "promises 5 points of 12 bytes");
        }
        {
            // 358 million points of 12 bytes (4 GiB - 8) claimed from a few bytes of LZF.
            const std::string h = pcdHeader("binary_compressed", 357913941);
            ByteWriter w;
            w.text(h);
            w.put<std::uint32_t>(16);
            w.put<std::uint32_t>(357913941u * 12u);
            w.text(std::string(16, '\0'));
            row("pcd compressed impossible size", "bomb.pcd", w.bytes(), Unit::Byte, h.size() + 4,
                "impossible");
        }
        {
            const std::string h = pcdHeader("binary_compressed", 4);
            ByteWriter w;
            w.text(h);
            w.put<std::uint32_t>(10);
            w.put<std::uint32_t>(40);  // 4 points x 12 bytes would be 48
            w.text(std::string(10, '\0'));
            row("pcd compressed size mismatch", "mismatch.pcd", w.bytes(), Unit::Byte, h.size() + 4,
                "does not match POINTS");
        }
        {
            const std::string h = pcdHeader("binary_compressed", 4);
            ByteWriter w;
            w.text(h);
            w.put<std::uint32_t>(100);
            w.put<std::uint32_t>(48);
            w.text(std::string(10, '\0'));
            row("pcd compressed data missing", "cut.pcd", w.bytes(), Unit::Byte, h.size(),
                "only 10 bytes follow");
        }
        {
            const std::string h = pcdHeader("binary_compressed", 4);
            ByteWriter w;
            w.text(h);
            w.put<std::uint32_t>(4);
            w.put<std::uint32_t>(48);
            w.text("\xE0\xFF\xFF\xFF");  // a back reference before the start of the output
            row("pcd compressed corrupt LZF", "corrupt.pcd", w.bytes(), Unit::Byte, h.size() + 8,
                "LZF");
        }
        {
            const std::string h = pcdHeader("binary_compressed", 4);
            row("pcd compressed no sizes", "nosizes.pcd", h + "\x01\x02", Unit::Byte, h.size(),
                "two 32-bit sizes");
        }
        // NumPy
        const std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (4, 3), }";
        row("npy empty", "empty.npy", "", Unit::None, 0, "empty");
        row("npy bad magic", "magic.npy", "\x93NUMPX\x01\x00" + std::string(60, ' '), Unit::Byte, 0,
            "magic");
        row("npy version 4", "v4.npy",
            std::string("\x93NUMPY\x04\x00\x10\x00", 10) + std::string(16, ' '), Unit::Byte, 6,
            "version 4.0");
        const std::string shortNpy = npyFile(dict, 47);
        row("npy truncated body", "short.npy", shortNpy, Unit::Byte, npyBody(shortNpy),
            "needs 48 bytes, the file holds 47");
        row("npy trailing bytes", "long.npy", npyFile(dict, 50), Unit::Byte, npyBody(shortNpy) + 48,
            "2 unexpected bytes");
        const std::string hugeNpy = npyFile(
            "{'descr': '<f8', 'fortran_order': False, 'shape': (9999999999, 9999999999), }", 8);
        row("npy shape overflow", "huge.npy", hugeNpy, Unit::Byte, npyBody(hugeNpy), "truncated");
        row("npy complex dtype", "complex.npy",
            npyFile("{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }", 16), Unit::Byte,
            10, "dtype '<c8'");
        row("npy 3-D", "cube.npy",
            npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2, 2), }", 32),
            Unit::Byte, 10, "3 dimensions");
        row("npy no fortran_order", "noorder.npy", npyFile("{'descr': '<f4', 'shape': (2,), }", 8),
            Unit::Byte, 10 + 32, "fortran_order");
        row("npy structured", "struct.npy",
            npyFile("{'descr': [('x', '<f4')], 'fortran_order': False, 'shape': (2,), }", 8),
            Unit::Byte, 10 + 10, "structured");
        row("npy header longer than file", "cut.npy",
            std::string("\x93NUMPY\x01\x00\xFF\x7F", 10) + "{", Unit::Byte, 10, "truncated");
        row("npy no columns", "nocols.npy",
            npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 0), }", 0), Unit::None,
            0, "without coordinates");
        row("npy no points", "nopoints.npy",
            npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (0, 3), }", 0), Unit::None,
            0, "no points");
    }
    void errors() {
        QFETCH(std::string, name);
        QFETCH(std::string, bytes);
        QFETCH(cs::InputError::Unit, unit);
        QFETCH(qulonglong, where);
        QFETCH(QString, keyword);
        const fs::path p = path(name);
        writeFile(p, bytes);
        try {
            const PointSet s = cs::io::readPoints(p);
            QFAIL(qPrintable("read without an error: " + QString::number(s.n) + " points"));
        } catch (const cs::InputError& e) {
            const std::string what = e.what();
            QVERIFY2(containsNoCase(what, name), what.c_str());
            QCOMPARE(e.file(), p.string());
            QVERIFY2(e.unit() == unit, what.c_str());
            QVERIFY2(e.where() == where, what.c_str());
            QVERIFY2(containsNoCase(e.problem(), keyword.toStdString()), what.c_str());
            if (unit == Unit::Line)
                QVERIFY2(containsNoCase(what, name + ":" + std::to_string(where) + ":"),
                         what.c_str());
            if (unit == Unit::Byte)
                QVERIFY2(containsNoCase(what, "(byte " + std::to_string(where) + ")"),
                         what.c_str());
        }
    }

    void nonFiniteDropsAttributes() {
        // The attribute values of a dropped point go with it, whichever format.
        writeFile(path("drop.xyz"), "0 0 0 10\n1 nan 1 11\n2 2 -inf 12\n3 3 3 13\n");
        const PointSet s = cs::io::readXyz(path("drop.xyz"));
        compareSets(s, expectedSet(3, {"x", "y", "z"}, {0, 0, 0, 3, 3, 3},
                                   {cs::test::scalarAttribute("column4", {10, 13})}, 2, {0, 3}));
    }
};

QTEST_GUILESS_MAIN(TestPointReaders)
#include "tst_point_readers.moc"
