// SPDX-License-Identifier: MIT
// clusterscope._core: the engine for Python. The package beside it (app/python/clusterscope/)
// wraps these functions in scikit-learn-style estimators. Every run goes the way the CLI's
// subcommands go (app/cli/*_command.cpp): the parameters checked by the algorithm's descriptor
// against the data's shape, the memory need checked up front, then the backend's entry point.
// Arrays come in as C-ordered float32 (converted when they are not) and go out without a copy;
// the GIL is released from the moment the backend is looked up until the result is made.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "app/common/register_backends.h"
#include "compute/backend/backend_registry.h"
#include "compute/core/algorithm_descriptor.h"
#include "compute/core/error.h"
#include "compute/core/memory.h"
#include "compute/core/parallel.h"
#include "compute/dbscan/dbscan_cpu.h"
#include "compute/dbscan/dbscan_descriptor.h"
#include "compute/knn/knn_descriptor.h"
#include "compute/kshape/kshape_descriptor.h"
#include "compute/rocket/ridge.h"
#include "compute/rocket/rocket_descriptor.h"
#include "compute/rocket/rocket_pipeline.h"

namespace py = pybind11;

namespace {

using FloatArray = py::array_t<float, py::array::c_style | py::array::forcecast>;
using IntArray = py::array_t<std::int32_t, py::array::c_style | py::array::forcecast>;

// Hands a vector to NumPy without copying it: the array owns it through a capsule.
template <class T, class A>
py::array_t<T> toArray(std::vector<T, A>&& values, std::vector<py::ssize_t> shape) {
    auto* owned = new std::vector<T, A>(std::move(values));
    py::capsule release(owned, [](void* p) { delete static_cast<std::vector<T, A>*>(p); });
    return py::array_t<T>(std::move(shape), owned->data(), release);
}

// --- parameters --------------------------------------------------------------------------------

// The estimators' keyword names for the descriptors' parameter names (minPts is min_samples).
using NameMap = std::vector<std::pair<std::string, std::string>>;  // (python, descriptor)

cs::ParameterValue toParameterValue(const py::handle& value, const std::string& name) {
    PyObject* o = value.ptr();
    if (PyBool_Check(o)) return value.cast<bool>();
    if (PyUnicode_Check(o)) return value.cast<std::string>();
    if (PyIndex_Check(o)) {  // int and NumPy integers
        const py::int_ index = py::reinterpret_steal<py::int_>(PyNumber_Index(o));
        int overflow = 0;
        const long long v = PyLong_AsLongLongAndOverflow(index.ptr(), &overflow);
        if (overflow != 0)
            throw cs::Error(name + " = " + std::string(py::str(value)) + " is outside its range");
        return std::int64_t(v);
    }
    if (PyFloat_Check(o) || PyNumber_Check(o)) {
        const double v = PyFloat_AsDouble(o);
        if (v == -1.0 && PyErr_Occurred()) throw py::error_already_set();
        return v;
    }
    throw cs::Error(name + " must be a number, a bool or a string, not " +
                    std::string(py::str(py::type::handle_of(value).attr("__name__"))));
}

// The descriptor's defaults with the given values, checked the way the CLI checks its options
// (ParameterOptions::values): against each parameter's range and against what these data allow.
// A problem becomes cs::Error "<keyword>: <the descriptor's sentence>".
cs::ParameterValues checkedValues(const cs::AlgorithmDescriptor& algorithm, const NameMap& names,
                                  const py::dict& given, const cs::DataShape* shape) {
    cs::ParameterValues values = algorithm.defaults();
    auto keyword = [&](const std::string& parameter) {
        for (const auto& [python, name] : names)
            if (name == parameter) return python;
        return parameter;
    };
    for (const auto& [key, value] : given) {
        const auto python = key.cast<std::string>();
        std::string parameter;
        for (const auto& [p, name] : names)
            if (p == python) parameter = name;
        if (parameter.empty() || !algorithm.parameter(parameter))
            throw cs::Error(algorithm.title + " has no parameter " + python);
        values.set(parameter, toParameterValue(value, python));
    }
    for (const cs::ParameterSpec& p : algorithm.parameters) {
        const std::string why = p.check(*values.find(p.name), shape, values);
        if (!why.empty()) throw cs::Error(keyword(p.name) + ": " + why);
    }
    return values;
}

const NameMap kDbscanNames{
    {"eps", "eps"}, {"min_samples", "minPts"}, {"path", "path"}, {"star", "star"}};
const NameMap kKnnNames{{"k", "k"},
                        {"trees", "trees"},
                        {"leaf_size", "leafSize"},
                        {"target_recall", "targetRecall"},
                        {"recall_sample", "recallSample"},
                        {"seed", "seed"},
                        {"exact", "exact"}};
const NameMap kKShapeNames{
    {"n_clusters", "k"}, {"max_iter", "maxIterations"}, {"seed", "seed"}, {"channel", "channel"}};
const NameMap kRocketNames{{"num_kernels", "kernels"},
                           {"seed", "seed"},
                           {"variant", "variant"},
                           {"normalise", "normalise"}};

const std::map<std::string, std::pair<const cs::AlgorithmDescriptor*, const NameMap*>>&
algorithms() {
    static const std::map<std::string, std::pair<const cs::AlgorithmDescriptor*, const NameMap*>>
        table{{"dbscan", {&cs::dbscanDescriptor(), &kDbscanNames}},
              {"knn", {&cs::knnDescriptor(), &kKnnNames}},
              {"kshape", {&cs::kshapeDescriptor(), &kKShapeNames}},
              {"rocket", {&cs::rocketDescriptor(), &kRocketNames}}};
    return table;
}

// The descriptor's defaults by keyword, for the package's tests (its signatures repeat them).
py::dict defaults(const std::string& algorithm) {
    const auto it = algorithms().find(algorithm);
    if (it == algorithms().end()) throw cs::Error("no algorithm " + algorithm);
    const auto& [descriptor, names] = it->second;
    const cs::ParameterValues values = descriptor->defaults();
    py::dict out;
    for (const auto& [python, name] : *names)
        std::visit([&](const auto& v) { out[py::str(python)] = v; }, *values.find(name));
    return out;
}

// --- running -----------------------------------------------------------------------------------

// A backend runs one job at a time (the CUDA backend's stream and handles are its own), and the
// registry hands every caller the same instance: Python threads that compute at once take turns.
std::mutex& turnOf(const std::string& backend) {
    static std::mutex guard;
    static std::map<std::string, std::unique_ptr<std::mutex>> turns;
    std::lock_guard lock(guard);
    auto& turn = turns[backend];
    if (!turn) turn = std::make_unique<std::mutex>();
    return *turn;
}

// body(backend, job) without the GIL, on the registry's backend of that name, after the memory
// check; running out of memory becomes cs::Error saying what and how much (as in the CLI).
// Ctrl-C stops a run: at the job's progress reports (after every chunk of work), at most every
// 50 ms, this thread takes the GIL for a moment and lets Python run its signal handlers; an
// exception one raises (KeyboardInterrupt) cancels the job, which stops at its next checkpoint,
// and is what the call raises.
template <class Body>
auto run(const std::string& backendName, std::string_view method, const cs::MemoryNeed& need,
         std::string* usedName, Body&& body) {
    std::optional<py::error_already_set> interrupted;  // released with the GIL held
    try {
        py::gil_scoped_release release;
        const std::shared_ptr<cs::Backend> backend = cs::backendRegistry().get(backendName);
        if (usedName) *usedName = backend->name();
        std::lock_guard turn(turnOf(backend->name()));
        auto lastLook = std::chrono::steady_clock::now();
        cs::JobControl job([&](double, std::string_view) {
            const auto now = std::chrono::steady_clock::now();
            if (interrupted || now - lastLook < std::chrono::milliseconds(50)) return;
            lastLook = now;
            py::gil_scoped_acquire gil;
            if (PyErr_CheckSignals() != 0) {
                interrupted.emplace();  // takes the exception the handler raised
                job.cancel();
            }
        });
        cs::checkMemoryFits(method, need);
        return cs::explainingOutOfMemory(method, need, job, [&] { return body(*backend, job); });
    } catch (const cs::Cancelled&) {
        if (interrupted) throw *interrupted;
        throw;
    }
}

// A run of kCostlyEvaluations or more says so before it starts, as the CLI does on stderr: a
// RuntimeWarning pointing at the caller's line (or, where warnings are errors, the exception
// instead of the run). Called without the GIL.
void warnIfCostly(const std::string& what, const cs::JobCost& cost) {
    if (!cost.costly()) return;
    py::gil_scoped_acquire gil;
    const std::string text = what + ": " + cost.text();
    if (PyErr_WarnEx(PyExc_RuntimeWarning, text.c_str(), 2) != 0) throw py::error_already_set();
}

cs::PointSet pointsOf(const FloatArray& x) {
    if (x.ndim() != 2)
        throw cs::Error("X must be a 2-D array of points (n_samples, n_features), not " +
                        std::to_string(x.ndim()) + "-D");
    const auto n = std::size_t(x.shape(0)), dims = std::size_t(x.shape(1));
    if (dims == 0 && n > 0) throw cs::Error("X has no features: points need at least one");
    cs::PointSet points =
        cs::PointSet::fromCoords(dims, std::vector<float>(x.data(), x.data() + n * dims));
    points.source = "array";
    points.validate();  // NaN and infinities are refused, as sklearn does
    return points;
}

// (n_series, n_channels, length) C-ordered float32: the SeriesSet layout, every series full length.
cs::SeriesSet seriesOf(const FloatArray& x) {
    if (x.ndim() != 3)
        throw cs::Error("X must be a 3-D array of series (n_series, n_channels, length), not " +
                        std::to_string(x.ndim()) + "-D");
    cs::SeriesSet s;
    s.n = std::size_t(x.shape(0));
    s.channels = std::size_t(x.shape(1));
    s.length = std::size_t(x.shape(2));
    s.values.assign(x.data(), x.data() + s.n * s.channels * s.length);
    s.lengths.assign(s.n, std::uint32_t(s.length));
    s.source = "array";
    s.validate();
    return s;
}

cs::DataShape pointShape(const cs::PointSet& p) {
    return {.items = p.n, .dims = p.dims};
}

cs::DataShape seriesShape(const cs::SeriesSet& s) {
    return {.items = s.n, .length = s.length, .channels = s.channels};
}

py::dict timingsOf(const std::vector<cs::StageTiming>& timings) {
    py::dict stages;
    for (const auto& t : timings) {
        const py::str key(t.name);
        stages[key] = (stages.contains(key) ? stages[key].cast<double>() : 0.0) + t.milliseconds;
    }
    return stages;
}

// --- the methods -------------------------------------------------------------------------------

py::dict dbscan(const FloatArray& x, const py::dict& params, const std::string& backendName) {
    const cs::PointSet points = pointsOf(x);
    const cs::DataShape shape = pointShape(points);
    const cs::ParameterValues values =
        checkedValues(cs::dbscanDescriptor(), kDbscanNames, params, &shape);
    const cs::DbscanParams p = cs::dbscanParams(values);
    std::string used;
    std::vector<cs::StageTiming> timings;
    cs::DbscanResult r =
        run(backendName, "DBSCAN", cs::dbscanDescriptor().memoryNeed(shape, values), &used,
            [&](cs::Backend& backend, cs::JobControl& job) {
                // The CLI's estimate (dbscanCost), for the backend that runs it.
                const cs::DbscanCost c = cs::dbscanCost(points, p, backend.name());
                std::string what = "DBSCAN (" + std::string(cs::toString(c.path)) + " search) of " +
                                   std::to_string(points.n) + " points";
                if (c.path == cs::DbscanPath::KdTree)
                    what += " (eps reaches ~" + std::to_string(int(std::lround(100 * c.share))) +
                            "% of the cloud)";
                warnIfCostly(what, c.cost);
                auto result = backend.dbscan(points, p, job);
                timings = job.timings();
                return result;
            });
    py::dict out;
    const auto n = py::ssize_t(points.n);
    out["labels"] = toArray(std::move(r.labels), {n});
    out["is_core"] = toArray(std::move(r.isCore), {n}).attr("astype")("bool");
    out["n_clusters"] = r.clusterCount;
    out["path"] = std::string(cs::toString(r.pathUsed));
    out["backend"] = used;
    out["stages_ms"] = timingsOf(timings);
    return out;
}

py::dict knnGraph(const FloatArray& x, const py::dict& params, const std::string& backendName) {
    const cs::PointSet points = pointsOf(x);
    const cs::DataShape shape = pointShape(points);
    const cs::ParameterValues values =
        checkedValues(cs::knnDescriptor(), kKnnNames, params, &shape);
    const cs::KnnParams p = cs::knnParams(values);
    std::string used;
    std::vector<cs::StageTiming> timings;
    cs::KnnGraph g =
        run(backendName, "the kNN graph", cs::knnDescriptor().memoryNeed(shape, values), &used,
            [&](cs::Backend& backend, cs::JobControl& job) {
                cs::validateKnnInput(points, p);
                auto graph = backend.knnGraph(points, p, job);
                timings = job.timings();
                return graph;
            });
    py::dict out;
    const std::vector<py::ssize_t> shape2{py::ssize_t(g.n), py::ssize_t(g.k)};
    out["recall"] = g.recall();
    out["indices"] = toArray(std::move(g.indices), shape2);
    out["distances"] = toArray(std::move(g.distances), shape2);
    out["trees_built"] = g.treesBuilt;
    out["exact"] = g.exact;
    out["recall_by_tree"] = g.recallByTree;
    out["backend"] = used;
    out["stages_ms"] = timingsOf(timings);
    return out;
}

py::dict kshape(const FloatArray& x, const py::dict& params, const std::string& backendName) {
    const cs::SeriesSet series = seriesOf(x);
    const cs::DataShape shape = seriesShape(series);
    const cs::ParameterValues values =
        checkedValues(cs::kshapeDescriptor(), kKShapeNames, params, &shape);
    const cs::KShapeParams p = cs::kshapeParams(values);
    std::string used;
    std::vector<cs::StageTiming> timings;
    cs::KShapeResult r =
        run(backendName, "k-Shape", cs::kshapeDescriptor().memoryNeed(shape, values), &used,
            [&](cs::Backend& backend, cs::JobControl& job) {
                cs::validateKShape(series, p);
                auto result = backend.kshape(series, p, job);
                timings = job.timings();
                return result;
            });
    const cs::KShapeClusterSizes sizes = cs::kshapeClusterSizes(r);
    py::dict out;
    const auto n = py::ssize_t(series.n);
    out["labels"] = toArray(std::move(r.labels), {n});
    // k x m for one channel, k x C x m for all channels together (the CLI's .npy alike).
    std::vector<py::ssize_t> centroidShape{py::ssize_t(r.k), py::ssize_t(r.length)};
    if (r.channels > 1) centroidShape.insert(centroidShape.begin() + 1, py::ssize_t(r.channels));
    out["centroids"] = toArray(std::move(r.centroids), std::move(centroidShape));
    out["distances"] = toArray(std::move(r.distances), {n});
    out["shifts"] = toArray(std::move(r.shifts), {n});
    out["iterations"] = r.iterations;
    out["converged"] = r.converged;
    out["cluster_sizes"] = sizes.sizes;
    out["empty_clusters"] = sizes.empty;
    out["backend"] = used;
    out["stages_ms"] = timingsOf(timings);
    return out;
}

// The SBD (compute/kshape/kshape.h) of every series' clustered channel (channel < 0: all of them
// together), z-normalised as k-Shape takes it (kshapeInput), to every centroid (k x m, or
// k x C x m for all channels), computed directly (sbdDirect): n x k distances.
py::array_t<double> kshapeDistances(const FloatArray& x, const FloatArray& centroids,
                                    std::int64_t channel) {
    const cs::SeriesSet series = seriesOf(x);
    const bool all = channel < 0;
    const std::size_t channels = all ? series.channels : 1;
    const bool shaped =
        all && series.channels > 1
            ? centroids.ndim() == 3 && std::size_t(centroids.shape(1)) == series.channels &&
                  std::size_t(centroids.shape(2)) == series.length
            : centroids.ndim() == 2 && std::size_t(centroids.shape(1)) == series.length;
    if (!shaped)
        throw cs::Error("the centroids (" + std::to_string(centroids.ndim()) +
                        "-D) were not found on series of " + std::to_string(series.channels) +
                        " channel(s) x " + std::to_string(series.length) + " samples clustered " +
                        (all ? "with all channels together" : "one channel at a time"));
    if (!all && std::size_t(channel) >= series.channels)
        throw cs::Error("channel " + std::to_string(channel) + " is not below the " +
                        std::to_string(series.channels) + " channel(s) of the series");
    const std::size_t k = std::size_t(centroids.shape(0)), m = series.length * channels;
    const std::vector<float> c(centroids.data(), centroids.data() + k * m);
    std::vector<double> d(series.n * k);
    {
        py::gil_scoped_release release;
        const std::vector<float> input = cs::kshapeInput(
            series, all ? std::nullopt : std::optional<std::size_t>(std::size_t(channel)));
        cs::parallelFor(series.n, nullptr, {}, [&](std::size_t i, unsigned) {
            const std::span<const float> s(input.data() + i * m, m);
            for (std::size_t j = 0; j < k; ++j)
                d[i * k + j] = cs::sbdDirect(std::span<const float>(c.data() + j * m, m), s,
                                             nullptr, channels);
        });
    }
    return toArray(std::move(d), {py::ssize_t(series.n), py::ssize_t(k)});
}

// ROCKET: the transform fitted once (ROCKET's kernels for the training set's length and
// channels; MiniRocket's and MultiRocket's model and biases on the training series) and used for
// every transform after, as the CLI uses one fit for its training and test halves.
struct PyRocketKernels {
    cs::RocketKernels kernels;                         ///< ROCKET
    std::shared_ptr<const cs::MiniRocketModel> model;  ///< MiniRocket, MultiRocket
    cs::ParameterValues values;

    cs::RocketTransform transform() const {
        cs::RocketTransform t;
        t.params = cs::rocketParams(values);
        if (model)
            t.model = model;
        else
            t.kernels = std::shared_ptr<const cs::RocketKernels>(std::shared_ptr<void>(), &kernels);
        return t;
    }
    std::size_t features() const {
        return model ? model->featureCount() * model->layers() : 2 * kernels.count();
    }
};

PyRocketKernels rocketKernels(const py::dict& params, std::size_t length, std::size_t channels) {
    const cs::ParameterValues values =
        checkedValues(cs::rocketDescriptor(), kRocketNames, params, nullptr);
    const cs::RocketParams p = cs::rocketParams(values);
    if (p.variant != cs::RocketVariant::Rocket)
        throw cs::Error(std::string(cs::rocketVariantName(p.variant)) +
                        " fits its biases on series: use rocket_fit_kernels");
    py::gil_scoped_release release;
    return {cs::makeRocketKernels(p, length, channels), nullptr, values};
}

cs::MemoryNeed rocketNeed(const cs::SeriesSet& series, const cs::ParameterValues& values) {
    return cs::rocketDescriptor().memoryNeed(seriesShape(series), values);
}

// The transform of any variant fitted on X (every series a training one).
PyRocketKernels rocketFitKernels(const FloatArray& x, const py::dict& params,
                                 const std::string& backendName) {
    const cs::SeriesSet series = seriesOf(x);
    const cs::ParameterValues values =
        checkedValues(cs::rocketDescriptor(), kRocketNames, params, nullptr);
    const cs::RocketParams p = cs::rocketParams(values);
    if (p.variant == cs::RocketVariant::Rocket) {
        py::gil_scoped_release release;
        return {cs::makeRocketKernels(p, series.length, series.channels), nullptr, values};
    }
    PyRocketKernels k;
    k.values = values;
    k.model = run(backendName, "ROCKET", rocketNeed(series, values), nullptr,
                  [&](cs::Backend& backend, cs::JobControl& job) {
                      return cs::fitRocketTransform(backend, p, series, job).model;
                  });
    return k;
}

py::array_t<float> rocketTransform(const FloatArray& x, const PyRocketKernels& k,
                                   const std::string& backendName) {
    const cs::SeriesSet series = seriesOf(x);
    cs::RocketFeatures f =
        run(backendName, "ROCKET", rocketNeed(series, k.values), nullptr,
            [&](cs::Backend& backend, cs::JobControl& job) {
                return cs::applyRocketTransform(backend, k.transform(), series, job);
            });
    const auto columns = py::ssize_t(f.columns());
    return toArray(std::move(f.values), {py::ssize_t(f.n), columns});
}

// Transform and ridge fit in one run, so that a backend fits from the features it left on its
// device (RocketFeatures::device) as the CLI's run does.
cs::RidgeModel rocketFit(const FloatArray& x, const IntArray& labels, int classes,
                         const PyRocketKernels& k, std::vector<double> alphas,
                         const std::string& backendName) {
    const cs::SeriesSet series = seriesOf(x);
    if (labels.ndim() != 1 || std::size_t(labels.shape(0)) != series.n)
        throw cs::Error("y must hold one label per series (" + std::to_string(series.n) + ")");
    const std::vector<std::int32_t> train(labels.data(), labels.data() + series.n);
    cs::RidgeParams ridge;
    ridge.alphas = std::move(alphas);
    return run(backendName, "ROCKET", rocketNeed(series, k.values), nullptr,
               [&](cs::Backend& backend, cs::JobControl& job) {
                   const cs::RocketFeatures f =
                       cs::applyRocketTransform(backend, k.transform(), series, job);
                   return backend.ridgeFit(f, train, classes, ridge, job);
               });
}

std::pair<py::array_t<std::int32_t>, py::array_t<double>> rocketPredict(
    const FloatArray& x, const PyRocketKernels& k, const cs::RidgeModel& model,
    const std::string& backendName) {
    const cs::SeriesSet series = seriesOf(x);
    std::vector<std::int32_t> predicted;
    std::vector<double> scores;
    run(backendName, "ROCKET", rocketNeed(series, k.values), nullptr,
        [&](cs::Backend& backend, cs::JobControl& job) {
            const cs::RocketFeatures f =
                cs::applyRocketTransform(backend, k.transform(), series, job);
            auto stage = job.stage("predict");
            predicted = cs::ridgePredict(model, f.values, f.n);
            scores = cs::ridgeScores(model, f.values, f.n);
            return 0;
        });
    const auto n = py::ssize_t(series.n);
    return {toArray(std::move(predicted), {n}), toArray(std::move(scores), {n, model.classes})};
}

// A MiniRocket model as a tuple of its fields, and back (pickling).
py::tuple miniModelState(const cs::MiniRocketModel& m) {
    py::list reps;
    for (const auto& r : m.representations)
        reps.append(py::make_tuple(r.referenceLength, r.dilations, r.featuresPerDilation,
                                   r.featureStart, r.channelCounts, r.channelStart, r.channelIndex,
                                   r.biasExample, r.quantiles, r.biases));
    return py::make_tuple(int(m.variant), m.channels, reps);
}

std::shared_ptr<const cs::MiniRocketModel> miniModelFromState(const py::tuple& t) {
    if (t.size() != 3) throw cs::Error("not a pickled MiniRocket model");
    auto m = std::make_shared<cs::MiniRocketModel>();
    m->variant = cs::RocketVariant(t[0].cast<int>());
    m->channels = t[1].cast<std::size_t>();
    for (const auto& item : t[2].cast<py::list>()) {
        const auto r = item.cast<py::tuple>();
        if (r.size() != 10) throw cs::Error("not a pickled MiniRocket model");
        cs::MiniRocketRepresentation rep;
        using I = std::vector<std::int32_t>;
        rep.referenceLength = r[0].cast<std::int32_t>();
        rep.dilations = r[1].cast<I>();
        rep.featuresPerDilation = r[2].cast<I>();
        rep.featureStart = r[3].cast<I>();
        rep.channelCounts = r[4].cast<I>();
        rep.channelStart = r[5].cast<I>();
        rep.channelIndex = r[6].cast<I>();
        rep.biasExample = r[7].cast<I>();
        rep.quantiles = r[8].cast<std::vector<float>>();
        rep.biases = r[9].cast<std::vector<float>>();
        m->representations.push_back(std::move(rep));
    }
    return m;
}

py::list backendStatuses() {
    std::vector<cs::BackendStatus> statuses;
    {
        py::gil_scoped_release release;
        statuses = cs::backendRegistry().statuses();
    }
    py::list out;
    for (const auto& s : statuses) {
        py::dict d;
        d["name"] = s.name;
        d["available"] = s.available;
        d["detail"] = s.detail;
        d["versions"] = s.versions;
        out.append(d);
    }
    return out;
}

}  // namespace

PYBIND11_MODULE(_core, m) {
    m.doc() =
        "Clusterscope's engine (DBSCAN, kNN graphs, k-Shape, ROCKET); use the estimators "
        "of the clusterscope package";
    m.attr("__version__") = CS_VERSION;
    m.attr("ROCKET_VARIANTS") = py::make_tuple("rocket", "minirocket", "multirocket");

    // Engine errors keep the engine's sentence. Registered base first: the translator registered
    // last is tried first, so the derived classes are matched before cs::Error.
    static py::exception<cs::Error> error(m, "Error", PyExc_ValueError);
    static py::exception<cs::BackendUnavailable> unavailable(m, "BackendUnavailable",
                                                             PyExc_RuntimeError);
    static py::exception<cs::DeviceError> device(m, "DeviceError", PyExc_RuntimeError);
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const cs::BackendUnavailable& e) {
            unavailable(e.what());
        } catch (const cs::DeviceError& e) {
            device(e.what());
        } catch (const cs::Cancelled& e) {
            PyErr_SetString(PyExc_KeyboardInterrupt, e.what());
        } catch (const cs::Error& e) {
            error(e.what());
        }
    });

    cs::app::registerBuiltinBackends();
    // Devices go before the interpreter unloads the module (BackendRegistry::releaseAll).
    py::module_::import("atexit").attr("register")(
        py::cpp_function([] { cs::backendRegistry().releaseAll(); }));

    m.def("backends", &backendStatuses,
          "Every backend of this build, best first: name, available, detail (why not), versions");
    m.def("backend_names", [] { return cs::backendRegistry().names(); });
    m.def("defaults", &defaults, py::arg("algorithm"),
          "The engine's default parameters of 'dbscan', 'knn', 'kshape' or 'rocket'");
    m.def("dbscan", &dbscan, py::arg("X"), py::arg("params"), py::arg("backend"));
    m.def("knn_graph", &knnGraph, py::arg("X"), py::arg("params"), py::arg("backend"));
    m.def("kshape", &kshape, py::arg("X"), py::arg("params"), py::arg("backend"));
    m.def("kshape_distances", &kshapeDistances, py::arg("X"), py::arg("centroids"),
          py::arg("channel"));

    py::class_<PyRocketKernels>(m, "RocketKernels")
        .def_property_readonly("variant",
                               [](const PyRocketKernels& k) { return k.values.word("variant"); })
        .def_property_readonly("count",
                               [](const PyRocketKernels& k) {
                                   return k.model ? k.model->featureCount() : k.kernels.count();
                               })
        .def_property_readonly("features", &PyRocketKernels::features)
        .def_property_readonly("length", [](const PyRocketKernels& k) { return k.kernels.length; })
        .def_property_readonly("channels",
                               [](const PyRocketKernels& k) {
                                   return k.model ? k.model->channels : k.kernels.channels;
                               })
        .def_property_readonly("lengths",
                               [](const PyRocketKernels& k) { return k.kernels.lengths; })
        .def_property_readonly("dilations",
                               [](const PyRocketKernels& k) {
                                   return k.model ? k.model->representations.front().dilations
                                                  : k.kernels.dilations;
                               })
        .def_property_readonly("biases",
                               [](const PyRocketKernels& k) {
                                   return k.model ? k.model->representations.front().biases
                                                  : k.kernels.biases;
                               })
        .def_property_readonly("paddings",
                               [](const PyRocketKernels& k) { return k.kernels.paddings; })
        // ROCKET's kernels are pickled as what drew them (the count, seed, length, channels and
        // normalise: unpickling draws the same set again); a fitted MiniRocket model as its
        // fields. Four-field tuples are from before normalise, which was then always on.
        .def(py::pickle(
            [](const PyRocketKernels& k) {
                const bool normalise = k.values.flag("normalise");
                if (k.model)
                    return py::make_tuple(k.values.integer("kernels"), k.values.integer("seed"),
                                          k.values.word("variant"), miniModelState(*k.model),
                                          normalise);
                return py::make_tuple(k.values.integer("kernels"), k.values.integer("seed"),
                                      k.kernels.length, k.kernels.channels, normalise);
            },
            [](const py::tuple& t) {
                if (t.size() != 4 && t.size() != 5) throw cs::Error("not a pickled RocketKernels");
                py::dict params;
                params["num_kernels"] = t[0];
                params["seed"] = t[1];
                if (t.size() == 5) params["normalise"] = t[4];
                if (py::isinstance<py::str>(t[2])) {
                    params["variant"] = t[2];
                    PyRocketKernels k;
                    k.values = checkedValues(cs::rocketDescriptor(), kRocketNames, params, nullptr);
                    k.model = miniModelFromState(t[3].cast<py::tuple>());
                    return k;
                }
                return rocketKernels(params, t[2].cast<std::size_t>(), t[3].cast<std::size_t>());
            }));
    py::class_<cs::RidgeModel>(m, "RidgeModel")
        .def_readonly("alpha", &cs::RidgeModel::alpha)
        .def_readonly("alphas", &cs::RidgeModel::alphas)
        .def_readonly("loo_error", &cs::RidgeModel::looError)
        .def_readonly("loo_accuracy", &cs::RidgeModel::looAccuracy)
        .def_readonly("classes", &cs::RidgeModel::classes)
        .def_readonly("features", &cs::RidgeModel::features)
        .def_property_readonly(
            "weights",
            [](const cs::RidgeModel& r) {
                std::vector<double> w = r.weights;
                return toArray(std::move(w), {py::ssize_t(r.features), py::ssize_t(r.classes)});
            })
        .def_readonly("intercept", &cs::RidgeModel::intercept)
        .def(py::pickle(
            [](const cs::RidgeModel& r) {
                return py::make_tuple(r.features, r.classes, r.mean, r.scale, r.weights,
                                      r.intercept, r.alpha, r.alphas, r.looError, r.looAccuracy);
            },
            [](const py::tuple& t) {
                if (t.size() != 10) throw cs::Error("not a pickled RidgeModel");
                cs::RidgeModel r;
                r.features = t[0].cast<std::size_t>();
                r.classes = t[1].cast<int>();
                r.mean = t[2].cast<std::vector<double>>();
                r.scale = t[3].cast<std::vector<double>>();
                r.weights = t[4].cast<std::vector<double>>();
                r.intercept = t[5].cast<std::vector<double>>();
                r.alpha = t[6].cast<double>();
                r.alphas = t[7].cast<std::vector<double>>();
                r.looError = t[8].cast<std::vector<double>>();
                r.looAccuracy = t[9].cast<double>();
                if (r.mean.size() != r.features || r.scale.size() != r.features ||
                    r.weights.size() != r.features * std::size_t(r.classes) ||
                    r.intercept.size() != std::size_t(r.classes))
                    throw cs::Error("a pickled RidgeModel with inconsistent sizes");
                return r;
            }));
    m.def("rocket_kernels", &rocketKernels, py::arg("params"), py::arg("length"),
          py::arg("channels"));
    m.def("rocket_fit_kernels", &rocketFitKernels, py::arg("X"), py::arg("params"),
          py::arg("backend"));
    m.def("rocket_transform", &rocketTransform, py::arg("X"), py::arg("kernels"),
          py::arg("backend"));
    m.def("rocket_fit", &rocketFit, py::arg("X"), py::arg("labels"), py::arg("classes"),
          py::arg("kernels"), py::arg("alphas"), py::arg("backend"));
    m.def("rocket_predict", &rocketPredict, py::arg("X"), py::arg("kernels"), py::arg("model"),
          py::arg("backend"));
}
