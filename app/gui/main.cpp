// SPDX-License-Identifier: MIT
// clusterscope: the desktop application. main() only wires things up; the command line is
// handled by cs::ui::Automation, the window by cs::ui::MainWindow.
#include <QApplication>
#include <QCoreApplication>
#include <QMessageBox>
#include <QPushButton>
#include <QSurfaceFormat>
#include <QThreadPool>
#include <cstdio>
#include <cstring>

#include "app/common/builtin_algorithms.h"
#include "app/common/register_backends.h"
#include "compute/backend/backend_registry.h"
#include "compute/backend/gl_interop.h"
#include "ui/shell/automation.h"
#include "ui/shell/autosave.h"
#include "ui/shell/main_window.h"
#include "ui/shell/theme.h"
#include "ui/views/points/point_cloud_view.h"

namespace {

void describeApplication() {
    QCoreApplication::setApplicationName(QStringLiteral("Clusterscope"));
    QCoreApplication::setOrganizationName(QStringLiteral("Clusterscope"));
    QCoreApplication::setApplicationVersion(QStringLiteral(CS_VERSION));
}

// --help and --version must work without a display, so they get no QApplication.
bool asksForTextOnly(int argc, char** argv) {
    for (int i = 1; i < argc; ++i)
        for (const char* flag : {"-h", "--help", "-v", "--version"})
            if (std::strcmp(argv[i], flag) == 0) return true;
    return false;
}

int printTextAndExit(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    describeApplication();
    QString error;
    const auto options = cs::ui::Automation::parse(QCoreApplication::arguments(), &error,
                                                   cs::app::builtinAlgorithms());
    if (!options) {
        std::fprintf(stderr, "clusterscope: error: %s\n", qPrintable(error));
        return cs::ui::Automation::kUsageError;
    }
    if (options->help)
        std::fputs(qPrintable(options->helpText), stdout);
    else
        std::printf("clusterscope %s (Qt %s)\n", CS_VERSION, qVersion());
    return 0;
}

// The command line as given: QGuiApplication takes -session and --session (X11 session
// management) out of arguments(), and this window's --session names a Clusterscope session.
QStringList rawArguments(int argc, char** argv) {
    QStringList arguments;
    for (int i = 0; i < argc; ++i)
        arguments << QString::fromLocal8Bit(argv[i]);
    return arguments;
}

// QApplication::arguments() with the --session option Qt removed put back from raw.
QStringList withSessionOption(QStringList arguments, const QStringList& raw) {
    for (const QString& a : arguments)
        if (a == QLatin1String("--session") || a.startsWith(QLatin1String("--session=")))
            return arguments;  // this platform left it there
    for (qsizetype i = 1; i < raw.size(); ++i) {
        const QString& a = raw[i];
        if ((a == QLatin1String("--session") || a == QLatin1String("-session")) &&
            i + 1 < raw.size())
            arguments << QStringLiteral("--session") << raw[++i];
        else if (a.startsWith(QLatin1String("--session=")))
            arguments << a;
    }
    return arguments;
}

// What to do with the session a run that did not exit cleanly autosaved: the command line's
// answer, none with --quit (a script never waits on a dialog), else the user's.
bool restoresCrashedSession(const cs::ui::AutomationOptions& options, QWidget* window) {
    if (!options.recover.isEmpty()) return options.recover == QLatin1String("yes");
    if (options.quit) return false;
    QMessageBox box(QMessageBox::Question, QObject::tr("Restore the last session?"),
                    QObject::tr("Clusterscope did not exit cleanly last time. Restore the session "
                                "it autosaved (its data, parameters and views)?"),
                    QMessageBox::NoButton, window);
    QPushButton* restore = box.addButton(QObject::tr("&Restore"), QMessageBox::AcceptRole);
    box.addButton(QObject::tr("&Not now"), QMessageBox::RejectRole);
    box.setDefaultButton(restore);
    box.exec();
    return box.clickedButton() == restore;
}

}  // namespace

int main(int argc, char** argv) {
    if (asksForTextOnly(argc, argv)) return printTextAndExit(argc, argv);

    // Before the QApplication: every GL context, the window's included, must be 3.3 core for
    // the point view's shaders and for context sharing to work.
    QSurfaceFormat::setDefaultFormat(cs::ui::PointCloudView::defaultSurfaceFormat());
    const QStringList raw = rawArguments(argc, argv);
    QApplication app(argc, argv);
    describeApplication();
    QApplication::setDesktopFileName(QStringLiteral("clusterscope"));

    QString error;
    const auto options =
        cs::ui::Automation::parse(withSessionOption(QApplication::arguments(), raw), &error);
    if (!options) {
        std::fprintf(stderr, "clusterscope: error: %s\n(see clusterscope --help)\n",
                     qPrintable(error));
        return cs::ui::Automation::kUsageError;
    }

    cs::app::registerBuiltinBackends();
    cs::app::installGlInterop();
    cs::ui::applyTheme(cs::ui::savedTheme());
    int exitCode = 0;
    {
        cs::ui::MainWindow window;
        // Unknown algorithms and parameters are refused before a window shows up.
        const QString invalid = cs::ui::Automation::validate(*options, window.algorithms());
        if (!invalid.isEmpty()) {
            std::fprintf(stderr, "clusterscope: error: %s\n", qPrintable(invalid));
            return cs::ui::Automation::kUsageError;
        }
        window.show();
        cs::ui::AutomationOptions opening = *options;
        cs::ui::Autosave autosave(window);
        if (const QString crashed = autosave.start(); !crashed.isEmpty()) {
            // Data named on the command line wins; the autosave stays where start() put it.
            if (!cs::ui::Automation::namesData(opening) && restoresCrashedSession(opening, &window))
                opening.session = crashed;
        }
        cs::ui::Automation automation(window, opening);
        QObject::connect(&automation, &cs::ui::Automation::finished, &app, &QCoreApplication::exit,
                         Qt::QueuedConnection);
        automation.start();
        exitCode = QApplication::exec();
    }
    // Device contexts go before static destruction, while the CUDA runtime is still loaded (the
    // window, whose results hold device memory, is gone by now); a backend probe still queued on
    // the pool would otherwise create one again afterwards.
    QThreadPool::globalInstance()->waitForDone();
    cs::releaseGlInterop();
    cs::backendRegistry().releaseAll();
    return exitCode;
}
