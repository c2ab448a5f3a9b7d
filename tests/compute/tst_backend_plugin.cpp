// SPDX-License-Identifier: MIT
// The plugin loader (app/common/backend_plugin_loader.h): a usable plugin is loaded and its
// backend works; a stale one, a shared object without the entry point and a missing library are
// each refused with a sentence a user can act on; the build's own CUDA plugin is found in the
// build tree. Under tests/cli/without_cuda.sh (CS_EXPECT_NO_CUDA_LIBS=1) the CUDA plugin must
// be found but refused for its missing CUDA runtime.
#include <QtTest>

#include "app/common/backend_plugin_loader.h"
#include "app/common/register_backends.h"
#include "compute/backend/backend_registry.h"
#include "compute/core/error.h"

class TestBackendPlugin : public QObject {
    Q_OBJECT

    static std::string fake(const char* name) {
        return QDir(QCoreApplication::applicationDirPath()).filePath(name).toStdString();
    }

private slots:
    void usablePluginIsLoaded() {
        const auto loaded = cs::app::loadBackendPlugin(fake("libcs_fake_plugin.so"));
        QVERIFY2(loaded.plugin, loaded.whyNot.c_str());
        QVERIFY(loaded.whyNot.empty());
        QCOMPARE(std::string(loaded.plugin->name), std::string("fake"));
        const auto backend = loaded.plugin->createBackend();
        QCOMPARE(backend->name(), std::string("fake"));
        QCOMPARE(backend->info().device, std::string("fake device"));
        // Exceptions thrown in the plugin are caught here by type.
        QVERIFY_THROWS_EXCEPTION(cs::BackendUnavailable, loaded.plugin->createGlInterop());
    }

    void stalePluginIsRefused() {
        const auto loaded = cs::app::loadBackendPlugin(fake("libcs_stale_plugin.so"));
        QVERIFY(!loaded.plugin);
        QVERIFY2(loaded.whyNot.find("is from another build (clusterscope 0.0.0 / other") !=
                     std::string::npos,
                 loaded.whyNot.c_str());
    }

    void sharedObjectWithoutEntryIsRefused() {
        const auto loaded = cs::app::loadBackendPlugin(fake("libcs_not_a_plugin.so"));
        QVERIFY(!loaded.plugin);
        QVERIFY2(loaded.whyNot.find("is not a Clusterscope plugin") != std::string::npos,
                 loaded.whyNot.c_str());
    }

    void missingLibrariesAreNamed() {
        QCOMPARE(cs::app::explainLoadError(
                     "libcudart.so.13: cannot open shared object file: No such file or directory"),
                 std::string("libcudart.so.13 not found (the CUDA runtime libraries are not "
                             "installed or not on the library path)"));
        QCOMPARE(cs::app::explainLoadError(
                     "/usr/lib/libcuda.so.1: cannot open shared object file: No such file"),
                 std::string("libcuda.so.1 not found (no CUDA driver on this machine)"));
        const std::string other = "/x/y.so: undefined symbol: cublasCreate_v2";
        QCOMPARE(cs::app::explainLoadError(other), other);
    }

    void theCudaPluginIsFoundOrMissingForAReason() {
        const auto candidates = cs::app::cudaPluginCandidates();
        QVERIFY(!candidates.empty());
        // The build tree's copy is among the places looked at (this test lies in the tree).
        const std::string tree = QDir::cleanPath(QCoreApplication::applicationDirPath() +
                                                 "/../../lib/clusterscope/libclusterscope-cuda.so")
                                     .toStdString();
        QVERIFY2(std::find(candidates.begin(), candidates.end(), tree) != candidates.end(),
                 tree.c_str());

        cs::app::registerBuiltinBackends();
        const auto statuses = cs::backendRegistry().statuses();
        QCOMPARE(statuses.front().name, std::string("cuda"));
        const cs::app::LoadedPlugin& cuda = cs::app::cudaPlugin();
        const bool built = QFileInfo::exists(QString::fromStdString(tree));
        if (!built) {
            QVERIFY(!statuses.front().available);
            QVERIFY2(statuses.front().detail.starts_with("CUDA plugin not installed"),
                     statuses.front().detail.c_str());
        } else if (qEnvironmentVariableIsSet("CS_EXPECT_NO_CUDA_LIBS")) {
            QVERIFY(!cuda.plugin);
            QVERIFY2(cuda.whyNot.find("libcudart.so.") != std::string::npos &&
                         cuda.whyNot.find(" not found (") != std::string::npos,
                     cuda.whyNot.c_str());
            QCOMPARE(statuses.front().detail, cuda.whyNot);
        } else {
            // Loaded; whether a device is usable depends on the machine.
            QVERIFY2(cuda.plugin, cuda.whyNot.c_str());
            QCOMPARE(cuda.path, tree);
        }
        QCOMPARE(cs::backendRegistry().get("auto")->name(),
                 statuses.front().available ? std::string("cuda") : std::string("cpu"));
        cs::backendRegistry().releaseAll();
    }
};

QTEST_GUILESS_MAIN(TestBackendPlugin)
#include "tst_backend_plugin.moc"
