// SPDX-License-Identifier: MIT
// A sparse matrix through the GUI: opening a libsvm or SciPy .npz file shows its rows as a 3-D
// principal-component view, and the kNN panel, driven by keyboard and mouse, builds the graph of
// the sparse rows (not of the view), drawn as edges.
#include <QPushButton>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <fstream>
#include <set>

#include "app/common/register_backends.h"
#include "compute/core/random.h"
#include "compute/core/sparse_set.h"
#include "compute/io/sparse_readers.h"
#include "compute/knn/knn_sparse_cpu.h"
#include "tests/ui/gui_test_main.h"
#include "ui/jobs/job_runner.h"
#include "ui/panels/knn/knn_panel.h"
#include "ui/shell/main_window.h"
#include "ui/views/points/point_cloud_view.h"

namespace {

// Three groups of rows over their own columns of 500.
cs::SparseSet groupedRows(std::size_t n) {
    cs::Random random(5);
    cs::SparseSet s;
    s.n = n;
    s.dims = 500;
    s.indptr.push_back(0);
    for (std::size_t i = 0; i < n; ++i) {
        const std::int32_t base = std::int32_t(i % 3) * 150;
        std::set<std::int32_t> cols;
        while (cols.size() < 8)
            cols.insert(base + std::int32_t(random.below(40)));
        for (std::int32_t c : cols) {
            s.indices.push_back(c);
            s.values.push_back(float(random.uniform(0.5, 1.5)));
        }
        s.indptr.push_back(std::int64_t(s.indices.size()));
        s.labels.push_back(float(i % 3));
    }
    return s;
}

}  // namespace

class TestSparseOpen : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_tmp;
    std::unique_ptr<cs::ui::MainWindow> m_window;

    cs::ui::KnnPanel* panel() { return m_window->knnPanel(); }
    cs::ui::PointCloudView* view() { return m_window->pointView(); }

    // Types k into the panel's spin box and presses Enter, then clicks Run.
    void runWithK(int k) {
        QSpinBox* spin = panel()->kSpin();
        spin->setFocus();
        spin->selectAll();
        QTest::keyClicks(spin, QString::number(k));
        QTest::keyClick(spin, Qt::Key_Return);
        QCOMPARE(spin->value(), k);
        QTest::mouseClick(panel()->runButton(), Qt::LeftButton);
    }

    void checkGraphOfRows(const cs::SparseSet& rows, int k) {
        QTRY_VERIFY_WITH_TIMEOUT(
            !panel()->isBusy() && panel()->lastRun() && panel()->lastRun()->params.k == k, 60000);
        const auto run = panel()->lastRun();
        cs::JobControl job;
        const cs::KnnGraph want = cs::knnGraphSparseCpu(rows, run->params, job);
        QCOMPARE(run->graph->n, rows.n);
        QCOMPARE(run->graph->indices, want.indices);
        QCOMPARE(run->graph->distances, want.distances);
        // Edges of the sparse graph drawn over the 3-D view.
        QVERIFY(view()->edges().owner == run->graph);
        QTRY_VERIFY_WITH_TIMEOUT(view()->isContentDrawn(), 10000);
        QCOMPARE(view()->edgeCount(), rows.n * std::size_t(k));
    }

private slots:
    void initTestCase() {
        QVERIFY(m_tmp.isValid());
        QSettings().clear();
        cs::app::registerBuiltinBackends();
        m_window = std::make_unique<cs::ui::MainWindow>();
        m_window->resize(1400, 900);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
    }

    void libsvmFileGetsItsGraph() {
        const cs::SparseSet rows = groupedRows(600);
        const QString path = m_tmp.filePath(QStringLiteral("groups.svm"));
        {
            std::ofstream out(path.toStdString());
            out << "# three groups\n";
            for (std::size_t i = 0; i < rows.n; ++i) {
                out << rows.labels[i];
                for (std::int64_t e = rows.indptr[i]; e < rows.indptr[i + 1]; ++e)
                    out << ' ' << rows.indices[std::size_t(e)] + 1 << ':'
                        << rows.values[std::size_t(e)];
                out << '\n';
            }
        }
        m_window->openFile(path);
        QTRY_VERIFY_WITH_TIMEOUT(view()->pointCount() == rows.n, 30000);
        const auto points = view()->pointSet();
        QVERIFY(points->sparse);
        QCOMPARE(points->dims, std::size_t(3));
        QCOMPARE(points->sparse->nnz(), rows.nnz());
        // A libsvm file's dimension is its largest index.
        QVERIFY(points->sparse->dims > 300 && points->sparse->dims <= 340);
        QVERIFY(cs::test::logged(
            QStringLiteral("600 sparse rows × %1 columns").arg(points->sparse->dims)));
        // The view spreads the groups apart: not all on one spot.
        float spread = 0.0f;
        for (std::size_t i = 0; i < points->n; ++i)
            spread = std::max(spread, std::fabs(points->coords[i * 3]));
        QVERIFY(spread > 0.1f);
        runWithK(6);
        // The file's text rounds the values as the writer printed them: compare with the rows
        // the window read.
        checkGraphOfRows(*points->sparse, 6);
        // Most neighbours share their group (row i's group is i % 3).
        const auto run = panel()->lastRun();
        std::size_t same = 0;
        for (std::size_t e = 0; e < run->graph->indices.size(); ++e)
            same += std::size_t(run->graph->indices[e]) % 3 == (e / 6) % 3;
        QVERIFY(same > run->graph->indices.size() * 9 / 10);
    }

    void npzFileGetsItsGraph() {
        const cs::SparseSet rows = groupedRows(450);
        const QString path = m_tmp.filePath(QStringLiteral("groups.npz"));
        cs::io::writeSparseNpz(path.toStdString(), rows);
        m_window->openFile(path);
        QTRY_VERIFY_WITH_TIMEOUT(view()->pointCount() == rows.n, 30000);
        QVERIFY(view()->pointSet()->sparse);
        QCOMPARE(view()->pointSet()->sparse->values, rows.values);
        runWithK(4);
        checkGraphOfRows(rows, 4);
    }

    void brokenSparseFileIsReported() {
        const QString path = m_tmp.filePath(QStringLiteral("broken.svm"));
        std::ofstream(path.toStdString()) << "1 3:1 2:1\n";
        const auto before = view()->pointSet();
        m_window->openFile(path);
        QTRY_VERIFY_WITH_TIMEOUT(cs::test::logged(QStringLiteral("index 2 after 3")), 30000);
        QCOMPARE(view()->pointSet(), before);
    }
};

CS_GL_TEST_MAIN(TestSparseOpen)
#include "tst_sparse_open.moc"
