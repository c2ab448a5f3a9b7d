// SPDX-License-Identifier: MIT
#include "app/cli/cli_common.h"

#include <cerrno>
#include <cstdio>
#include <exception>
#include <iostream>
#include <new>
#include <system_error>

#include "compute/backend/device_set.h"
#include "compute/core/error.h"
#include "compute/core/item_subset.h"
#include "compute/core/memory.h"
#include "compute/io/atomic_output.h"
#include "compute/io/dataset.h"
#include "compute/io/text_input.h"

namespace cs::cli {

int runReportingErrors(const std::function<int()>& body) {
    try {
        return body();
    } catch (const AlreadyReported&) {
        return kExitError;
    } catch (const std::bad_alloc&) {
        // The methods and readers explain their own (runOnFile, loadDataset); this is the rest.
        std::cerr << "clusterscope-cli: out of memory: the data or the parameters need more "
                     "memory than the "
                  << formatBytes(double(availableMemoryBytes())) << " available now\n";
    } catch (const std::exception& e) {
        std::cerr << "clusterscope-cli: " << e.what() << '\n';
    } catch (...) {
        std::cerr << "clusterscope-cli: unknown error\n";
    }
    return kExitError;
}

PointSet loadPointCloud(const std::string& file, Backend& backend) {
    const io::ReadScope scope(nullptr, &backend);
    io::Dataset data = io::loadDataset(file);
    if (auto* points = std::get_if<PointSet>(&data)) return std::move(*points);
    throw Error(file + ": holds time series, not points; this command needs a point cloud");
}

PointSet selectRows(PointSet points, const std::string& rows, const std::string& file,
                    std::size_t* droppedNan) {
    if (droppedNan) *droppedNan = points.droppedNonFinite;
    const std::optional<ItemSubset> subset = parseRows(rows, points.n, file);
    return subset ? subsetOf(points, *subset) : std::move(points);
}

std::optional<ItemSubset> parseRows(const std::string& rows, std::size_t total,
                                    const std::string& file) {
    if (rows.empty()) return std::nullopt;
    try {
        return ItemSubset::parse(rows, total);
    } catch (const Error& e) {
        throw Error(file + ": --rows " + rows + ": " + e.what());
    }
}

void addRowsOption(CLI::App& command, std::string& rows) {
    addRowsOption(command, rows,
                  "Run on these points only: 0-based indices among the points read, as ranges "
                  "(0-999,1500); outputs keep the rows of the file");
}

void addRowsOption(CLI::App& command, std::string& rows, const std::string& help) {
    command.add_option("--rows", rows, help);
}

void addDevicesOption(CLI::App& command, DevicesOption& devices) {
    command.add_option_function<std::string>(
        "--devices",
        [&devices](const std::string& text) {
            devices.text = text;
            devices.given = true;
        },
        "CUDA devices to spread the job over: ordinals (0,1) or all (--backend cuda; default: "
        "the first usable device). Results are identical to one device's");
}

void applyDevices(Backend& backend, const DevicesOption& devices) {
    if (!devices.given) return;
    const bool shared = sharedDeviceAllowed();
    (void)parseDeviceList(devices.text, -1, shared);  // a typo is a typo on any backend
    if (backend.devices().empty())
        throw Error("--devices chooses CUDA devices, but the " + backend.name() +
                    " backend runs on no device; use --backend cuda");
    backend.setDevices(parseDeviceList(devices.text, backend.deviceCount(), shared));
}

void checkOutputs(std::initializer_list<std::string> paths) {
    for (const auto& path : paths)
        if (!path.empty()) io::checkOutputTarget(path);
}

namespace {

std::string outputError(int error) {
    return "standard output: could not be written" +
           (error != 0 ? ": " + std::generic_category().message(error) : std::string());
}

}  // namespace

void printLine(const std::string& line) {
    errno = 0;
    std::cout << line << '\n';
    std::cout.flush();
    if (!std::cout) throw Error(outputError(errno));
}

void printJson(const nlohmann::json& object) {
    // Replace invalid UTF-8 (names from a damaged file) instead of throwing while printing.
    printLine(object.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

std::string standardOutputError() {
    // A write that already failed left its reason in errno, and nothing for this flush to do.
    const int earlier = errno;
    errno = 0;
    std::cout.flush();
    const int error = errno != 0 ? errno : earlier;
    return std::cout && !std::ferror(stdout) ? std::string() : outputError(error);
}

double millisecondsSince(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
        .count();
}

bool warnIfCostly(const std::string& what, const std::string& formula, double evaluations) {
    const JobCost cost{evaluations, formula};
    if (!cost.costly()) return false;
    std::cerr << "clusterscope-cli: " << what << ": " << cost.text() << std::endl;
    return true;
}

std::string groupedCount(std::size_t n) {
    std::string digits = std::to_string(n), out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

std::string droppedText(const PointSet& points) {
    if (points.droppedNonFinite == 0) return {};
    return " (" + groupedCount(points.droppedNonFinite) + " dropped for NaN/Inf)";
}

std::string droppedText(std::size_t dropped, std::size_t selected, std::size_t total) {
    std::string text;
    if (dropped > 0) text = " (" + groupedCount(dropped) + " dropped for NaN/Inf)";
    if (selected < total)
        text +=
            ", " + groupedCount(selected) + " of " + groupedCount(total) + " selected by --rows";
    return text;
}

std::string fileName(const std::string& path) {
    const auto slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace cs::cli
