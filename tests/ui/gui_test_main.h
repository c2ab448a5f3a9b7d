// SPDX-License-Identifier: MIT
#pragma once
// A main() for the GUI suites: the GL surface format must be set before the QApplication
// exists (QTEST_MAIN offers no hook for that), settings go to a test-only place, and a suite
// that needs GL checks once, before any test function runs, whether GL works here at all.

#include <QApplication>
#include <QGuiApplication>
#include <QOffscreenSurface>
#include <QOpenGLContext>
#include <QStandardPaths>
#include <QSurfaceFormat>
#include <QtTest>
#include <cstdio>

#include "ui/shell/logger.h"
#include "ui/views/points/point_cloud_view.h"

namespace cs::test {

/// Empty when a GL 3.3 (or GLES 3) context can be created on this platform, else why not.
/// Qt 6.4's offscreen platform crashes with QOpenGLWidget, so it counts as "no GL".
inline QString glUnavailableReason() {
    const QString platform = QGuiApplication::platformName();
    if (platform == QLatin1String("offscreen") || platform == QLatin1String("minimal"))
        return QStringLiteral("the '%1' platform cannot host a QOpenGLWidget (run under xvfb-run)")
            .arg(platform);
    QOpenGLContext context;
    if (!context.create()) return QStringLiteral("no OpenGL context can be created here");
    QOffscreenSurface surface;
    surface.create();
    if (!context.makeCurrent(&surface))
        return QStringLiteral("the OpenGL context cannot be made current");
    const auto f = context.format();
    if (!context.isOpenGLES() && f.version() < qMakePair(3, 3))
        return QStringLiteral("OpenGL %1.%2 < 3.3").arg(f.majorVersion()).arg(f.minorVersion());
    context.doneCurrent();
    return {};
}

/// True when a log line containing text was written in this run (the window logs errors and
/// results there).
inline bool logged(const QString& text) {
    for (const auto& e : cs::ui::Logger::instance().history())
        if (e.text.contains(text)) return true;
    return false;
}

}  // namespace cs::test

namespace cs::test {

/// True when the environment says a missing GL is a failure, not a skip (CI sets
/// CS_REQUIRE_GL=1: it has xvfb, so a GL suite that cannot run there is broken).
inline bool glRequired() {
    return qEnvironmentVariable("CS_REQUIRE_GL") == QLatin1String("1");
}

/// The exit code for a suite that needs GL when there is none, before any test function runs:
/// 77 (ctest: skipped), or 1 (failed) under CS_REQUIRE_GL=1. Prints why, Qt Test style.
inline int exitWithoutGl(const char* suite, const QString& why) {
    const bool fail = glRequired();
    std::printf("********* Start testing of %s *********\n", suite);
    std::printf("%s: %s::initTestCase() no GL: %s%s\n", fail ? "FAIL!  " : "SKIP   ", suite,
                qPrintable(why), fail ? " (CS_REQUIRE_GL=1)" : "");
    std::printf("Totals: 0 passed, %d failed, %d skipped\n", fail ? 1 : 0, fail ? 0 : 1);
    std::printf("********* Finished testing of %s *********\n", suite);
    std::fflush(stdout);
    return fail ? 1 : 77;
}

/// 0 when GL works here, else exitWithoutGl()'s code.
inline int glSuiteCheck(const char* suite) {
    const QString why = glUnavailableReason();
    return why.isEmpty() ? 0 : exitWithoutGl(suite, why);
}

}  // namespace cs::test

/// main() for a GUI suite; check is an expression run once the QApplication exists: 0 runs the
/// tests, anything else is returned as the exit code without running any.
#define CS_GUI_TEST_MAIN_CHECKED(TestObject, check)                                       \
    int main(int argc, char** argv) {                                                     \
        QSurfaceFormat::setDefaultFormat(cs::ui::PointCloudView::defaultSurfaceFormat()); \
        QApplication app(argc, argv);                                                     \
        QApplication::setOrganizationName(QStringLiteral("ClusterscopeTests"));           \
        QApplication::setApplicationName(QStringLiteral(#TestObject));                    \
        QStandardPaths::setTestModeEnabled(true);                                         \
        cs::ui::Logger::instance().setMirrorToStderr(false);                              \
        if (const int code = (check); code != 0) return code;                             \
        QTEST_SET_MAIN_SOURCE_PATH                                                        \
        TestObject tc;                                                                    \
        return QTest::qExec(&tc, argc, argv);                                             \
    }

/// main() for a GUI suite that needs no GL.
#define CS_GUI_TEST_MAIN(TestObject) CS_GUI_TEST_MAIN_CHECKED(TestObject, 0)

/// main() for a suite that needs GL: without it, exit 77 (or 1 under CS_REQUIRE_GL=1) before
/// any test function runs, so that no single function can skip while another fails.
#define CS_GL_TEST_MAIN(TestObject) \
    CS_GUI_TEST_MAIN_CHECKED(TestObject, cs::test::glSuiteCheck(#TestObject))
