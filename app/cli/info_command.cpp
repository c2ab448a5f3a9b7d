// SPDX-License-Identifier: MIT
#include "app/cli/info_command.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>

#include "app/cli/cli_common.h"
#include "compute/backend/backend_registry.h"
#include "compute/core/sparse_set.h"
#include "compute/io/dataset.h"

namespace cs::cli {
namespace {

nlohmann::json describe(const PointSet& points) {
    nlohmann::json attributes = nlohmann::json::array();
    for (const auto& a : points.attributes) {
        const char* kind = a.kind == PointAttribute::Kind::Scalar  ? "scalar"
                           : a.kind == PointAttribute::Kind::Label ? "label"
                                                                   : "colour";
        attributes.push_back({{"name", a.name}, {"kind", kind}});
    }
    nlohmann::json lo = nlohmann::json::array(), hi = nlohmann::json::array();
    for (std::size_t j = 0; j < points.dims && points.n > 0; ++j) {
        float mn = points.coords[j], mx = points.coords[j];
        for (std::size_t i = 1; i < points.n; ++i) {
            mn = std::min(mn, points.coords[i * points.dims + j]);
            mx = std::max(mx, points.coords[i * points.dims + j]);
        }
        lo.push_back(mn);
        hi.push_back(mx);
    }
    nlohmann::json j = {{"kind", "points"},
                        {"n", points.n},
                        {"dims", points.dims},
                        {"dropped_nan", points.droppedNonFinite},
                        {"dim_names", points.dimNames},
                        {"attributes", attributes},
                        {"min", lo},
                        {"max", hi},
                        {"source", points.source}};
    if (points.sparse) {
        // The rows themselves; the points are their 3-D principal-component view.
        const SparseSet& s = *points.sparse;
        std::size_t widest = 0, empty = 0;
        for (std::size_t i = 0; i < s.n; ++i) {
            widest = std::max(widest, s.rowIndices(i).size());
            empty += s.rowIndices(i).empty();
        }
        j["kind"] = "sparse";
        j["sparse"] = {{"rows", s.n},
                       {"dims", s.dims},
                       {"nnz", s.nnz()},
                       {"density", s.density()},
                       {"max_row_nnz", widest},
                       {"empty_rows", empty},
                       {"labels", !s.labels.empty()},
                       {"view", "first three principal components (pc1..pc3)"}};
    }
    return j;
}

nlohmann::json describe(const SeriesSet& series) {
    std::uint32_t minLength = series.n ? series.lengths[0] : 0;
    for (auto l : series.lengths)
        minLength = std::min(minLength, l);
    const auto tests = std::count(series.isTest.begin(), series.isTest.end(), std::uint8_t(1));
    nlohmann::json j = {{"kind", "series"},
                        {"n", series.n},
                        {"channels", series.channels},
                        {"length", series.length},
                        {"min_length", minLength},
                        {"equal_length", series.equalLength()},
                        {"classes", series.classCount()},
                        {"class_names", series.classNames},
                        {"source", series.source}};
    if (!series.isTest.empty()) {
        j["train"] = series.n - std::size_t(tests);
        j["test"] = std::size_t(tests);
    }
    if (!series.targets.empty()) {
        // Regression targets: how many are known and their range (NaN is unknown).
        std::size_t known = 0;
        double lo = 0, hi = 0;
        for (double t : series.targets) {
            if (std::isnan(t)) continue;
            lo = known ? std::min(lo, t) : t;
            hi = known ? std::max(hi, t) : t;
            ++known;
        }
        j["targets"] = known;
        if (known) {
            j["target_min"] = lo;
            j["target_max"] = hi;
        }
    }
    if (!series.notes.empty()) j["notes"] = series.notes;
    return j;
}

}  // namespace

void addInfoCommand(CLI::App& app, int& exitCode) {
    auto* cmd = app.add_subcommand(
        "info", "Describe a point cloud, sparse matrix or time-series file as JSON");
    auto file = std::make_shared<std::string>();
    auto kind = std::make_shared<std::string>("auto");
    cmd->add_option("FILE", *file,
                    "Data file (csv/tsv/txt/xyz/ply/pcd/npy, sparse npz/svm, ts/arff/UCR)")
        ->required();
    cmd->add_option("--as", *kind, "Read the file as points or series (default: from its name)")
        ->check(CLI::IsMember({"auto", "points", "series"}));
    cmd->callback([file, kind, &exitCode] {
        exitCode = runReportingErrors([&] {
            const io::Dataset data = io::loadDataset(*file, io::parseDataKind(*kind));
            std::visit([](const auto& d) { printJson(describe(d)); }, data);
            return kExitOk;
        });
    });
}

void addBackendsCommand(CLI::App& app, int& exitCode) {
    auto* cmd =
        app.add_subcommand("backends", "List the compute backends and whether each is usable");
    cmd->callback([&exitCode] {
        exitCode = runReportingErrors([] {
            nlohmann::json list = nlohmann::json::array();
            for (const auto& s : backendRegistry().statuses())
                list.push_back(
                    {{"name", s.name}, {"available", s.available}, {"detail", s.detail}});
            std::string chosen;
            try {
                chosen = backendRegistry().get("auto")->name();
            } catch (const std::exception&) {
            }
            printJson({{"backends", list}, {"auto", chosen}});
            return kExitOk;
        });
    });
}

}  // namespace cs::cli
