// SPDX-License-Identifier: MIT
// clusterscope-cli: the batch face of Clusterscope. Every subcommand prints JSON on stdout and
// exits 0, or prints the error on stderr and exits 2.
#include <cerrno>
#include <csignal>
#include <iostream>

#include <CLI/CLI.hpp>

#include "app/cli/bench_command.h"
#include "app/cli/cli_common.h"
#include "app/cli/dbscan_command.h"
#include "app/cli/info_command.h"
#include "app/cli/knn_command.h"
#include "app/cli/kshape_command.h"
#include "app/cli/rocket_command.h"
#include "app/cli/sweep_command.h"
#include "app/common/register_backends.h"
#include "compute/backend/backend_registry.h"
#include "compute/io/atomic_output.h"

namespace {

// Ctrl-C or a kill ends a run at once, as it would without a handler, but first removes the
// temporaries of outputs not yet complete (outputs appear whole, by rename, or not at all).
// The signal then takes its default course, so the shell sees "killed by SIGINT".
extern "C" void stopOnSignal(int signal) {
    cs::io::removePendingOutputs();
    std::signal(signal, SIG_DFL);
    std::raise(signal);
}

}  // namespace

int main(int argc, char** argv) {
    std::signal(SIGINT, stopOnSignal);
    std::signal(SIGTERM, stopOnSignal);
    // A file past the size limit (ulimit -f) is then a failed write, reported like a full disk,
    // instead of a signal that would end the run before it removes its temporaries.
    std::signal(SIGXFSZ, SIG_IGN);
    cs::app::registerBuiltinBackends();
    CLI::App app("Clusterscope command line: inspect data, run the GPU algorithms, benchmark",
                 "clusterscope-cli");
    app.set_version_flag("--version", std::string("clusterscope-cli ") + CS_VERSION);
    app.require_subcommand(1);
    int exitCode = cs::cli::kExitOk;
    cs::cli::addInfoCommand(app, exitCode);
    cs::cli::addBackendsCommand(app, exitCode);
    cs::cli::addDbscanCommand(app, exitCode);
    cs::cli::addKdistCommand(app, exitCode);
    cs::cli::addKnnCommand(app, exitCode);
    cs::cli::addRocketCommand(app, exitCode);
    cs::cli::addKShapeCommand(app, exitCode);
    cs::cli::addSweepCommand(app, exitCode);
    cs::cli::addBenchCommand(app, exitCode);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        errno = 0;
        const int rc = app.exit(e);
        exitCode = rc == 0 ? 0 : cs::cli::kExitError;
        // Help and version text go out without printLine's check.
        if (const std::string error = cs::cli::standardOutputError(); !error.empty()) {
            std::cerr << "clusterscope-cli: " << error << '\n';
            exitCode = cs::cli::kExitError;
        }
    }
    cs::backendRegistry().releaseAll();
    return exitCode;
}
