// SPDX-License-Identifier: MIT
#pragma once

#include <chrono>
#include <functional>
#include <initializer_list>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "compute/backend/backend.h"
#include "compute/core/error.h"
#include "compute/core/item_subset.h"
#include "compute/core/job_control.h"
#include "compute/core/job_cost.h"
#include "compute/core/memory.h"
#include "compute/core/point_set.h"

namespace cs::cli {

/// Exit codes shared by every subcommand.
inline constexpr int kExitOk = 0;
inline constexpr int kExitError = 2;  ///< bad input, bad parameters, a failed job

/// Runs a subcommand body; any exception becomes "clusterscope-cli: <what>" on stderr and
/// kExitError, so every subcommand reports errors the same way.
int runReportingErrors(const std::function<int()>& body);

/// A failure another MPI rank reports (mpirun): runReportingErrors returns kExitError without
/// a message, so the error is said once. Not a cs::Error, so nothing wraps it on the way.
class AlreadyReported : public std::runtime_error {
public:
    AlreadyReported() : std::runtime_error("reported by another rank") {}
};

/// Runs a method's job on the data read from `file`: refuses up front a run that cannot fit this
/// machine's memory (checkMemoryFits), turns running out of memory into a sentence saying what,
/// how much and what to change (explainingOutOfMemory), and puts the file's name in front of
/// every cs::Error, since parameters and sizes are judged against that file. cs::Cancelled
/// passes through unchanged.
template <class Body>
auto runOnFile(const std::string& file, std::string_view method, const MemoryNeed& need,
               const JobControl& job, Body&& body) -> decltype(body()) {
    try {
        checkMemoryFits(method, need);
        return explainingOutOfMemory(method, need, job, body);
    } catch (const Cancelled&) {
        throw;
    } catch (const Error& e) {
        throw Error(file + ": " + e.what());
    }
}

/// The point cloud in file (any point format; io::loadDataset), or cs::Error when it holds
/// time series. A sparse file's 3-D view is computed on backend (Backend::sparseView).
PointSet loadPointCloud(const std::string& file, Backend& backend);

/// --rows: the points at these indices (ranges "0-99,120", 0-based among the points kept, as
/// the GUI numbers them), or all of them when rows is empty. The file rows stay the file's, so
/// outputs name the rows of the file; *droppedNan gets the points the reader dropped (the
/// subset counts the rows left out as dropped too). Throws cs::Error naming file and --rows.
PointSet selectRows(PointSet points, const std::string& rows, const std::string& file,
                    std::size_t* droppedNan);
/// Adds the --rows option to a point command.
void addRowsOption(CLI::App& command, std::string& rows);
/// Adds --rows to a command with its own help (what the rows select there).
void addRowsOption(CLI::App& command, std::string& rows, const std::string& help);

/// --devices as given on a command line (an empty value given is an error, not "not given").
struct DevicesOption {
    std::string text;
    bool given = false;
};
/// Adds --devices to a command whose job can run on several CUDA devices.
void addDevicesOption(CLI::App& command, DevicesOption& devices);
/// Applies --devices, when given, to backend: the syntax first (parseDeviceList), then a clear
/// cs::Error for a backend with no devices (the CPU backend), then the ordinals against this
/// machine's devices; a repeated ordinal only with CS_ALLOW_SHARED_DEVICE=1. Throws cs::Error.
void applyDevices(Backend& backend, const DevicesOption& devices);

/// --rows parsed against a set of `total` items (ItemSubset::parse's ranges), or nullopt when
/// rows is empty. Throws cs::Error naming file and --rows, as selectRows does.
std::optional<ItemSubset> parseRows(const std::string& rows, std::size_t total,
                                    const std::string& file);

/// Checks every output path given (empty ones are options not used) with
/// io::checkOutputTarget once the inputs are read, so that an output naming an input is refused
/// before the job rather than after it.
void checkOutputs(std::initializer_list<std::string> paths);

/// Prints one line to stdout and flushes it; throws cs::Error with the system's reason when
/// stdout cannot take it (a full disk, a closed pipe), so that the run cannot end with 0.
void printLine(const std::string& line);

/// Prints one JSON object on one line to stdout (printLine).
void printJson(const nlohmann::json& object);

/// The error of writing stdout ("standard output: could not be written: No space left on
/// device"), or empty when everything written so far reached it; for what was printed outside
/// printLine (help, version), called with errno as that printing left it.
std::string standardOutputError();

/// Wall milliseconds from start to now.
double millisecondsSince(std::chrono::steady_clock::time_point start);

/// Distance evaluations from which a job warns before it starts (the GUI asks from there too).
inline constexpr double kCostWarnEvaluations = kCostlyEvaluations;

/// Says on stderr, in one line, what a job is about to cost when `evaluations` reaches
/// kCostWarnEvaluations: "clusterscope-cli: <what>: " then JobCost::text(), "about <formula> =
/// 2.8e10 distance evaluations, this may take minutes". Returns whether it warned.
bool warnIfCostly(const std::string& what, const std::string& formula, double evaluations);

/// n with thousands separators: 167,198.
std::string groupedCount(std::size_t n);

/// " (300 dropped for NaN/Inf)" when the reader dropped points, else empty: for one-line
/// summaries, which must not hide that the points are fewer than the file's rows.
std::string droppedText(const PointSet& points);
/// The same for a count of dropped points, plus ", 100 of 3,000 selected by --rows" when
/// selected < total.
std::string droppedText(std::size_t dropped, std::size_t selected, std::size_t total);

/// The last component of a path ("bunny.pcd"), for one-line summaries.
std::string fileName(const std::string& path);

}  // namespace cs::cli
