// SPDX-License-Identifier: MIT
#pragma once
// A main() for the GUI suites: the GL surface format must be set before the QApplication
// exists (QTEST_MAIN offers no hook for that), settings go to a test-only place, and GL suites
// can ask whether GL works here at all.

#include <QApplication>
#include <QGuiApplication>
#include <QOffscreenSurface>
#include <QOpenGLContext>
#include <QStandardPaths>
#include <QSurfaceFormat>
#include <QtTest>

#include "ui/logger.h"
#include "ui/point_cloud_view.h"

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

#define CS_SKIP_WITHOUT_GL()                                 \
    do {                                                     \
        const QString why = cs::test::glUnavailableReason(); \
        if (!why.isEmpty()) QSKIP(qPrintable(why));          \
    } while (false)

#define CS_GUI_TEST_MAIN(TestObject)                                                      \
    int main(int argc, char** argv) {                                                     \
        QSurfaceFormat::setDefaultFormat(cs::ui::PointCloudView::defaultSurfaceFormat()); \
        QApplication app(argc, argv);                                                     \
        QApplication::setOrganizationName(QStringLiteral("ClusterscopeTests"));           \
        QApplication::setApplicationName(QStringLiteral(#TestObject));                    \
        QStandardPaths::setTestModeEnabled(true);                                         \
        cs::ui::Logger::instance().setMirrorToStderr(false);                              \
        QTEST_SET_MAIN_SOURCE_PATH                                                        \
        TestObject tc;                                                                    \
        return QTest::qExec(&tc, argc, argv);                                             \
    }
