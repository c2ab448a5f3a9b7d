// SPDX-License-Identifier: MIT
// Sparse readers: SciPy .npz CSR (written here with minizip, as save_npz does, and one file
// NumPy wrote) and libsvm text; every malformed file gets an error naming the file and problem.
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "compute/backend/backend.h"
#include "compute/core/error.h"
#include "compute/core/item_subset.h"
#include "compute/core/job_control.h"
#include "compute/core/random.h"
#include "compute/core/sparse_pca.h"
#include "compute/core/sparse_set.h"
#include "compute/io/dataset.h"
#include "compute/io/sparse_readers.h"
#include "compute/io/text_input.h"
#include "tests/common/error_of.h"
#include "tests/common/test_paths.h"

namespace {

namespace fs = std::filesystem;
using cs::SparseSet;
using cs::test::errorOf;

// [[0, 1.5, 0, 0, -2], [0, 0, 0, 0, 0], [3, 0, 0, 0.25, 0]]
SparseSet small() {
    SparseSet s;
    s.n = 3;
    s.dims = 5;
    s.indptr = {0, 2, 2, 4};
    s.indices = {1, 4, 0, 3};
    s.values = {1.5f, -2.0f, 3.0f, 0.25f};
    return s;
}

void compareRows(const SparseSet& got, const SparseSet& want) {
    QCOMPARE(got.n, want.n);
    QCOMPARE(got.dims, want.dims);
    QCOMPARE(got.indptr, want.indptr);
    QCOMPARE(got.indices, want.indices);
    QCOMPARE(got.values, want.values);
    QCOMPARE(got.labels, want.labels);
}

void writeText(const fs::path& file, const std::string& text) {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out << text;
}

// Asserts the reader refuses the file with a message naming the file and containing `problem`.
void expectRefusal(const fs::path& file, const std::string& problem) {
    const std::string message = errorOf([&] { (void)cs::io::readSparse(file); });
    QVERIFY2(message.find(file.string()) != std::string::npos, message.c_str());
    QVERIFY2(message.find(problem) != std::string::npos,
             (message + "  [expected: " + problem + "]").c_str());
}

}  // namespace

class TestSparseReaders : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    fs::path path(const char* name) const { return fs::path(m_dir.path().toStdString()) / name; }

private slots:
    void npzRoundTrip_data() {
        QTest::addColumn<bool>("compressed");
        QTest::addColumn<bool>("wide");
        QTest::addColumn<bool>("doubles");
        for (int c = 0; c < 8; ++c)
            QTest::addRow("%s, int%d, float%d", c & 1 ? "deflate" : "stored", c & 2 ? 64 : 32,
                          c & 4 ? 64 : 32)
                << bool(c & 1) << bool(c & 2) << bool(c & 4);
    }
    void npzRoundTrip() {
        QFETCH(bool, compressed);
        QFETCH(bool, wide);
        QFETCH(bool, doubles);
        const fs::path file = path("round.npz");
        cs::io::writeSparseNpz(
            file, small(),
            {.compressed = compressed, .wideIndices = wide, .doubleValues = doubles});
        const SparseSet got = cs::io::readSparseNpz(file);
        compareRows(got, small());
        QCOMPARE(got.source, file.string());
        QCOMPARE(got.nnz(), std::size_t(4));
    }

    void npzWrittenByNumpy() {
        // np.savez_compressed with save_npz's keys: the bytes SciPy's writer produces.
        const SparseSet got =
            cs::io::readSparseNpz(cs::test::testSource("io/data/sparse_scipy.npz"));
        compareRows(got, small());
    }

    void npzLarger() {
        // Many rows over several deflate blocks and read buffers.
        cs::Random random(7);
        SparseSet s;
        s.n = 3000;
        s.dims = 100000;
        s.indptr.push_back(0);
        for (std::size_t i = 0; i < s.n; ++i) {
            std::int32_t c = std::int32_t(random.below(1000));
            for (int e = 0; e < 20; ++e) {
                s.indices.push_back(c);
                s.values.push_back(float(random.normal()));
                c += 1 + std::int32_t(random.below(4000));
            }
            s.indptr.push_back(std::int64_t(s.indices.size()));
        }
        s.validate();
        const fs::path file = path("larger.npz");
        cs::io::writeSparseNpz(file, s, {.wideIndices = true, .doubleValues = true});
        compareRows(cs::io::readSparseNpz(file), s);
    }

    void npzRefusals() {
        const fs::path empty = path("empty.npz");
        writeText(empty, "");
        expectRefusal(empty, "is empty");

        // Truncated: the central directory at the end is gone.
        const fs::path whole = path("whole.npz"), cut = path("cut.npz");
        cs::io::writeSparseNpz(whole, small());
        std::ifstream in(whole, std::ios::binary);
        std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        writeText(cut, bytes.substr(0, bytes.size() / 2));
        expectRefusal(cut, "truncated");

        const fs::path notZip = path("text.npz");
        writeText(notZip, "label 1:2\n");
        expectRefusal(notZip, "not a zip archive");

        const fs::path csc = path("csc.npz");
        cs::io::writeSparseNpz(csc, small(), {.format = "csc"});
        expectRefusal(csc, "format 'csc'");

        SparseSet outside = small();
        outside.indices[1] = 5;
        const fs::path outsideFile = path("outside.npz");
        cs::io::writeSparseNpz(outsideFile, outside);
        expectRefusal(outsideFile, "outside the 5 columns");

        SparseSet unsorted = small();
        std::swap(unsorted.indices[2], unsorted.indices[3]);
        const fs::path unsortedFile = path("unsorted.npz");
        cs::io::writeSparseNpz(unsortedFile, unsorted);
        expectRefusal(unsortedFile, "must be sorted and distinct");

        SparseSet twice = small();
        twice.indices[3] = 0;
        const fs::path twiceFile = path("twice.npz");
        cs::io::writeSparseNpz(twiceFile, twice);
        expectRefusal(twiceFile, "column 0 twice");

        SparseSet nan = small();
        nan.values[2] = std::nanf("");
        const fs::path nanFile = path("nan.npz");
        cs::io::writeSparseNpz(nanFile, nan, {.doubleValues = true});
        expectRefusal(nanFile, "not a finite");

        SparseSet none;
        none.dims = 4;
        none.indptr = {0};
        const fs::path noneFile = path("none.npz");
        cs::io::writeSparseNpz(noneFile, none);
        expectRefusal(noneFile, "empty matrix");

        SparseSet shortPtr = small();
        shortPtr.indptr.pop_back();
        const fs::path shortFile = path("short.npz");
        cs::io::writeSparseNpz(shortFile, shortPtr);
        expectRefusal(shortFile, "offsets for 3 rows");

        expectRefusal(path("missing.npz"), "no such file");
    }

    void svmLight() {
        const fs::path file = path("rows.svm");
        writeText(file,
                  "# a comment line\n"
                  "1 qid:3 2:1.5 5:-2 # trailing comment\n"
                  "\n"
                  "-1\n"
                  "2 1:3 4:0.25\r\n");
        SparseSet want = small();
        want.labels = {1.0f, -1.0f, 2.0f};
        compareRows(cs::io::readSvmLight(file), want);
        // The dimension is the largest index used.
        QCOMPARE(cs::io::readSparse(file).dims, std::size_t(5));
    }

    void svmRefusals_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("problem");
        QTest::newRow("empty") << ""
                               << "is empty";
        QTest::newRow("comments only") << "# nothing\n\n"
                                       << "no rows";
        QTest::newRow("no entries") << "1\n2\n"
                                    << "without a single index:value";
        QTest::newRow("zero index") << "1 0:2\n"
                                    << ":1: index 0";
        QTest::newRow("unsorted") << "1 1:1\n1 3:1 2:1\n"
                                  << ":2: index 2 after 3";
        QTest::newRow("duplicate") << "1 3:1 3:2\n"
                                   << "index 3 appears twice";
        QTest::newRow("nan value") << "1 2:nan\n"
                                   << "not finite";
        QTest::newRow("no colon") << "1 2\n"
                                  << "expected index:value";
        QTest::newRow("no label") << "2:1 3:1\n"
                                  << "starts with its label";
        QTest::newRow("bad value") << "1 2:x\n"
                                   << "not a number";
        QTest::newRow("bad index") << "1 a:1\n"
                                   << "not an integer";
    }
    void svmRefusals() {
        QFETCH(QString, text);
        QFETCH(QString, problem);
        const fs::path file = path("bad.svm");
        writeText(file, text.toStdString());
        expectRefusal(file, problem.toStdString());
    }

    void sparsePointsCarryTheRows() {
        const fs::path file = path("labelled.svm");
        writeText(file, "3 1:1\n3 2:1\n7 3:1\n7 1:1 3:1\n3 2:2\n");
        const auto data = cs::io::loadDataset(file);
        const auto* points = std::get_if<cs::PointSet>(&data);
        QVERIFY(points);
        QVERIFY(points->sparse);
        QCOMPARE(points->n, std::size_t(5));
        QCOMPARE(points->dims, std::size_t(3));
        QCOMPARE(points->sparse->dims, std::size_t(3));
        points->validate();
        const cs::PointAttribute* label = points->groundTruth();
        QVERIFY(label);
        QCOMPARE(label->categories, (std::vector<std::string>{"3", "7"}));
        QCOMPARE(label->labels, (std::vector<std::int32_t>{0, 0, 1, 1, 0}));
        // A subset keeps the matching rows.
        const cs::PointSet part = cs::subsetOf(*points, cs::ItemSubset::of({1, 3}, 5));
        QVERIFY(part.sparse);
        QCOMPARE(part.sparse->n, std::size_t(2));
        QCOMPARE(part.sparse->indices, (std::vector<std::int32_t>{1, 0, 2}));
        part.validate();
    }

    // The loaders' backend (ReadScope) computes the view; an inner scope without one keeps it,
    // and without any the host does.
    void readScopeBackendComputesTheView() {
        struct MarkingBackend : cs::Backend {
            int calls = 0;
            std::string name() const override { return "marking"; }
            cs::BackendInfo info() const override { return {}; }
            std::vector<float> sparseView(const SparseSet& rows, cs::JobControl&) override {
                ++calls;
                return std::vector<float>(rows.n * 3, 7.0f);
            }
        } backend;
        const fs::path file = path("scoped.svm");
        writeText(file, "1 1:1 4:2\n2 2:1\n1 3:1 4:1\n2 1:2 2:1\n");
        auto coordsOf = [&] {
            const auto data = cs::io::loadDataset(file);
            return std::get<cs::PointSet>(data).coords;
        };
        {
            cs::JobControl job;
            const cs::io::ReadScope outer(&job, &backend);
            QCOMPARE(coordsOf(), std::vector<float>(12, 7.0f));
            const cs::io::ReadScope inner(&job);
            QCOMPARE(coordsOf(), std::vector<float>(12, 7.0f));
        }
        QCOMPARE(backend.calls, 2);
        QCOMPARE(coordsOf(), cs::sparsePcaCoords(cs::io::readSparse(file)));
        QCOMPARE(backend.calls, 2);
        // The base class's view is the host's.
        cs::JobControl job;
        QCOMPARE(backend.cs::Backend::sparseView(cs::io::readSparse(file), job),
                 cs::sparsePcaCoords(cs::io::readSparse(file)));
    }

    void pcaKeepsDistancesOfPlanarRows() {
        // Rows a u + b v with sparse u, v in 60 columns lie on a plane: the first two principal
        // components keep every distance between rows and the third is 0.
        cs::Random random(3);
        const std::vector<std::int32_t> uCols{2, 9, 30, 41}, vCols{9, 17, 55};
        const std::vector<float> u{1.0f, 2.0f, -1.0f, 0.5f}, v{-1.0f, 3.0f, 1.0f};
        SparseSet s;
        s.n = 200;
        s.dims = 60;
        s.indptr.push_back(0);
        std::vector<std::vector<float>> dense(s.n, std::vector<float>(s.dims, 0.0f));
        for (std::size_t i = 0; i < s.n; ++i) {
            const float a = float(random.normal()) * 3.0f, b = float(random.normal());
            for (std::size_t e = 0; e < u.size(); ++e)
                dense[i][std::size_t(uCols[e])] += a * u[e];
            for (std::size_t e = 0; e < v.size(); ++e)
                dense[i][std::size_t(vCols[e])] += b * v[e];
            for (std::size_t c = 0; c < s.dims; ++c)
                if (dense[i][c] != 0.0f) {
                    s.indices.push_back(std::int32_t(c));
                    s.values.push_back(dense[i][c]);
                }
            s.indptr.push_back(std::int64_t(s.indices.size()));
        }
        s.validate();
        const std::vector<float> xyz = cs::sparsePcaCoords(s);
        QCOMPARE(xyz.size(), s.n * 3);
        double worst = 0.0;
        for (std::size_t i = 0; i < s.n; ++i) {
            QVERIFY2(std::fabs(xyz[i * 3 + 2]) < 1e-3, qPrintable(QString::number(xyz[i * 3 + 2])));
            for (std::size_t j = i + 1; j < s.n; j += 7) {
                double d2 = 0.0, p2 = 0.0;
                for (std::size_t c = 0; c < s.dims; ++c)
                    d2 += double(dense[i][c] - dense[j][c]) * double(dense[i][c] - dense[j][c]);
                for (int a = 0; a < 3; ++a)
                    p2 += double(xyz[i * 3 + a] - xyz[j * 3 + a]) *
                          double(xyz[i * 3 + a] - xyz[j * 3 + a]);
                worst = std::max(
                    worst, std::fabs(std::sqrt(d2) - std::sqrt(p2)) / std::max(1.0, std::sqrt(d2)));
            }
        }
        QVERIFY2(worst < 1e-3, qPrintable(QString("worst relative distance error %1").arg(worst)));
        // The first axis carries the larger spread (a has three times b's deviation).
        double var0 = 0.0, var1 = 0.0;
        for (std::size_t i = 0; i < s.n; ++i) {
            var0 += double(xyz[i * 3]) * xyz[i * 3];
            var1 += double(xyz[i * 3 + 1]) * xyz[i * 3 + 1];
        }
        QVERIFY(var0 > var1);
        // Seeded: the same rows give the same view.
        QCOMPARE(cs::sparsePcaCoords(s), xyz);
    }
};

QTEST_GUILESS_MAIN(TestSparseReaders)
#include "tst_sparse_readers.moc"
