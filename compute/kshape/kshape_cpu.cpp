// SPDX-License-Identifier: MIT
// k-Shape on the CPU (Paparrizos & Gravano 2015, sections 3.1-3.3; the loop of kshape-python's
// KShapeClusteringCPU). Cross-correlations come from FFTW3 in single precision: the spectrum of
// a centroid times the conjugate spectrum of a series, inverted, is NCC at every shift at once.
// Plans are made once per job under a process-wide mutex (FFTW's planner is not thread-safe) and
// executed by the workers on their own arrays (the new-array execute functions are).
#include "compute/kshape/kshape_cpu.h"

#include <fftw3.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <exception>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "compute/core/error.h"
#include "compute/core/parallel.h"
#include "compute/core/random.h"

namespace cs {
namespace {

std::mutex& fftwPlannerMutex() {
    static std::mutex mutex;
    return mutex;
}

// fftwf_malloc'd floats (the alignment the plans were made for).
struct FftwFree {
    void operator()(void* p) const { fftwf_free(p); }
};
using FloatBuffer = std::unique_ptr<float[], FftwFree>;
using ComplexBuffer = std::unique_ptr<fftwf_complex[], FftwFree>;

FloatBuffer allocFloats(std::size_t count) {
    auto* p = static_cast<float*>(fftwf_malloc(sizeof(float) * std::max<std::size_t>(count, 1)));
    if (!p) throw Error("out of memory for the k-Shape FFT buffers");
    return FloatBuffer(p);
}
ComplexBuffer allocComplex(std::size_t count) {
    auto* p = static_cast<fftwf_complex*>(
        fftwf_malloc(sizeof(fftwf_complex) * std::max<std::size_t>(count, 1)));
    if (!p) throw Error("out of memory for the k-Shape FFT buffers");
    return ComplexBuffer(p);
}

// The forward (real to complex) and inverse plans of one FFT size.
class FftPlans {
public:
    explicit FftPlans(std::size_t size) : m_size(size), m_bins(size / 2 + 1) {
        FloatBuffer real = allocFloats(size);
        ComplexBuffer spectrum = allocComplex(m_bins);
        std::lock_guard lock(fftwPlannerMutex());
        m_forward = fftwf_plan_dft_r2c_1d(int(size), real.get(), spectrum.get(), FFTW_ESTIMATE);
        m_inverse = fftwf_plan_dft_c2r_1d(int(size), spectrum.get(), real.get(), FFTW_ESTIMATE);
        if (!m_forward || !m_inverse) {
            destroy();
            throw Error("FFTW could not plan a transform of size " + std::to_string(size));
        }
    }
    ~FftPlans() {
        std::lock_guard lock(fftwPlannerMutex());
        destroy();
    }
    FftPlans(const FftPlans&) = delete;
    FftPlans& operator=(const FftPlans&) = delete;

    std::size_t size() const { return m_size; }
    std::size_t bins() const { return m_bins; }
    // x (m values) zero-padded into `real` (size floats), transformed into `out` (bins).
    void forward(const float* x, std::size_t m, float* real, fftwf_complex* out) const {
        std::copy(x, x + m, real);
        std::fill(real + m, real + m_size, 0.0f);
        fftwf_execute_dft_r2c(m_forward, real, out);
    }
    // in (bins, destroyed) to `real` (size floats, unscaled).
    void inverse(fftwf_complex* in, float* real) const {
        fftwf_execute_dft_c2r(m_inverse, in, real);
    }

private:
    void destroy() {
        if (m_forward) fftwf_destroy_plan(m_forward);
        if (m_inverse) fftwf_destroy_plan(m_inverse);
        m_forward = m_inverse = nullptr;
    }
    std::size_t m_size, m_bins;
    fftwf_plan m_forward = nullptr;
    fftwf_plan m_inverse = nullptr;
};

// Spectra of the series kept for the whole job up to this size; beyond it they are recomputed
// by the workers every iteration.
constexpr std::size_t kSpectraCacheBytes = std::size_t(1) << 30;

double norm2(const float* x, std::size_t m) {
    double s = 0.0;
    for (std::size_t t = 0; t < m; ++t)
        s += double(x[t]) * double(x[t]);
    return std::sqrt(s);
}

// The best NCC of c against x over shifts -(m-1) .. m-1 (first of the maximum) from the
// unscaled inverse transform cc of C conj(X); den = size ||c|| ||x||.
void bestShift(const float* cc, std::size_t m, std::size_t size, double den, double& best,
               int& shift) {
    const std::ptrdiff_t mm = std::ptrdiff_t(m), n = std::ptrdiff_t(size);
    best = -std::numeric_limits<double>::infinity();
    shift = int(-(mm - 1));
    if (!(den > 0.0)) {
        best = 0.0;
        return;
    }
    for (std::ptrdiff_t w = -(mm - 1); w <= mm - 1; ++w) {
        const double v = double(cc[w < 0 ? n + w : w]) / den;
        if (v > best) {
            best = v;
            shift = int(w);
        }
    }
}

// The best NCC of c against x (kshape.h: x shifted by `shift` aligns to c) from the spectra of
// their `channels` channels (`stride` apart): the inverse transform of the sum over channels of
// C_d conj(X_d) is the channels' summed cross-correlation at every shift, in one inverse
// transform. norms = ||c|| ||x|| over all the channels.
void bestCorrelation(const FftPlans& plans, const fftwf_complex* cs, const fftwf_complex* xs,
                     std::size_t channels, std::size_t stride, std::size_t m, double norms,
                     fftwf_complex* product, float* real, double& ncc, int& shift) {
    for (std::size_t d = 0; d < channels; ++d) {
        const fftwf_complex* c = cs + d * stride;
        const fftwf_complex* x = xs + d * stride;
        for (std::size_t f = 0; f < plans.bins(); ++f) {
            const float ar = c[f][0], ai = c[f][1];
            const float br = x[f][0], bi = x[f][1];
            const float re = ar * br + ai * bi, im = ai * br - ar * bi;
            product[f][0] = d == 0 ? re : product[f][0] + re;
            product[f][1] = d == 0 ? im : product[f][1] + im;
        }
    }
    plans.inverse(product, real);
    bestShift(real, m, plans.size(), double(plans.size()) * norms, ncc, shift);
}

// The dominant unit eigenvector of the symmetric matrix a (lower triangle read) and its
// eigenvalue, by Eigen's dense solver.
double denseTop(const Eigen::MatrixXd& a, Eigen::VectorXd& u) {
    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> solver(a);
    if (solver.info() != Eigen::Success)
        throw Error("the k-Shape centroid's eigensolver did not converge");
    const Eigen::Index last = a.rows() - 1;  // eigenvalues ascend
    u = solver.eigenvectors().col(last);
    return solver.eigenvalues()(last);
}

// S's dominant unit eigenvector from the smaller side of Y, formed and solved densely: S = Y^T Y
// itself when m <= count, else the Gram Y Y^T, whose dominant u gives v = Y^T u / ||Y^T u||
// (kshape.h). Memory: min(count, m)^2 doubles.
void smallerSideTop(const Eigen::MatrixXd& y, Eigen::VectorXd& v) {
    const Eigen::Index count = y.rows(), m = y.cols();
    if (m <= count) {
        Eigen::MatrixXd s = Eigen::MatrixXd::Zero(m, m);
        s.selfadjointView<Eigen::Lower>().rankUpdate(y.transpose());
        denseTop(s, v);
        return;
    }
    Eigen::MatrixXd gram = Eigen::MatrixXd::Zero(count, count);
    gram.selfadjointView<Eigen::Lower>().rankUpdate(y);
    Eigen::VectorXd u;
    denseTop(gram, u);
    v.noalias() = y.transpose() * u;
    const double norm = v.norm();
    if (norm > 0.0) v /= norm;
}

// Power iteration on S v = Y^T (Y v) (kshape.h's rule), from v as it is, for up to `steps` more
// steps (counted in `done`). True when it passes the check. Memory: count + 2 m doubles.
bool powerIterate(const Eigen::MatrixXd& y, Eigen::VectorXd& v, int steps, int& done,
                  const JobControl& job) {
    Eigen::VectorXd t(y.rows()), w(y.cols());
    bool settled = false;
    for (int step = 0; step < steps && !settled; step += kKShapePowerCheckEvery) {
        double change = 0.0;
        for (int q = 0; q < kKShapePowerCheckEvery; ++q) {
            t.noalias() = y * v;
            w.noalias() = y.transpose() * t;
            const double norm = w.norm();
            if (norm > 0.0)
                w /= norm;
            else
                w.setZero();
            change = (w - v).squaredNorm();
            v.swap(w);
        }
        done += kKShapePowerCheckEvery;
        settled = change <= kKShapePowerSettled;
        job.checkpoint();
    }
    t.noalias() = y * v;
    w.noalias() = y.transpose() * t;
    const double lambda = v.dot(w);
    return settled && lambda > 0.0 && (w - lambda * v).norm() <= kKShapePowerResidual * lambda;
}

// One cluster's new centroid (kshape.h, iteration step 1) into c (m floats). alignedRow(r, out)
// writes member r aligned (m floats, not z-normalised). Memory: the z-normalised members
// (count x m doubles) and at most min(count, m)^2 doubles more: never m^2 for a long series.
template <class AlignedRow>
KShapeShapeInfo shapeOf(std::size_t countIn, std::size_t m, AlignedRow&& alignedRow,
                        KShapeShapeSolver solver, std::size_t fallbackSide, float* c,
                        const JobControl& job) {
    KShapeShapeInfo info;
    info.solver = solver;
    if (countIn == 0) {
        std::fill(c, c + m, 0.0f);
        return info;
    }
    const Eigen::Index mm = Eigen::Index(m), count = Eigen::Index(countIn);
    Eigen::MatrixXd y(count, mm);  // aligned members z-normalised
    std::vector<float> row(m);
    bool varying = false;
    for (Eigen::Index r = 0; r < count; ++r) {
        if (r % 256 == 255) job.checkpoint();
        alignedRow(std::size_t(r), row.data());
        double sum = 0.0;
        for (std::size_t t = 0; t < m; ++t)
            sum += double(row[t]);
        const double mean = sum / double(m);
        double sq = 0.0;
        for (std::size_t t = 0; t < m; ++t)
            sq += (double(row[t]) - mean) * (double(row[t]) - mean);
        const double sd = std::sqrt(sq / double(m));
        varying = varying || sd > 0.0;
        for (Eigen::Index t = 0; t < mm; ++t)
            y(r, t) = sd > 0.0 ? (double(row[std::size_t(t)]) - mean) / sd : 0.0;
    }
    if (!varying) {  // M = 0 (kshape.h)
        std::fill(c, c + m, 0.0f);
        return info;
    }
    Eigen::VectorXd v;
    switch (solver) {
        case KShapeShapeSolver::Length: {
            // M formed and solved as before this change, so short series keep their results
            // (bit for bit on the UCR sets compared; the sign sums below add in another order,
            // which can matter only at an exact tie).
            Eigen::MatrixXd s = Eigen::MatrixXd::Zero(mm, mm);
            s.selfadjointView<Eigen::Lower>().rankUpdate(y.transpose());
            s = s.selfadjointView<Eigen::Lower>();
            // M = P S P with P = I - 11^T/m: subtract row and column means, add back the grand
            // mean.
            const Eigen::VectorXd rowMean = s.rowwise().mean();
            const Eigen::RowVectorXd colMean = s.colwise().mean();
            const double grand = rowMean.mean();
            Eigen::MatrixXd mat = s;
            mat.colwise() -= rowMean;
            mat.rowwise() -= colMean;
            mat.array() += grand;
            denseTop(mat, v);
            break;
        }
        case KShapeShapeSolver::Gram:
            smallerSideTop(y, v);
            break;
        case KShapeShapeSolver::Power: {
            const std::vector<double> start = kshapePowerStart(m);
            v = Eigen::Map<const Eigen::VectorXd>(start.data(), mm);
            v.normalize();
            info.powerPassed = powerIterate(y, v, kKShapePowerSteps, info.powerSteps, job);
            if (info.powerPassed) break;
            if (std::min(countIn, m) <= fallbackSide) {
                info.fallback = true;
                smallerSideTop(y, v);
            } else {
                // Too large to solve densely: more steps, then the vector is kept (kshape.h).
                info.powerPassed = powerIterate(y, v, kKShapePowerCapSteps - info.powerSteps,
                                                info.powerSteps, job);
            }
            break;
        }
    }
    double minus = 0.0, plus = 0.0;
    for (Eigen::Index r = 0; r < count; ++r) {
        alignedRow(std::size_t(r), row.data());
        double dm = 0.0, dp = 0.0;
        for (Eigen::Index t = 0; t < mm; ++t) {
            const double a = double(row[std::size_t(t)]);
            dm += (a - v(t)) * (a - v(t));
            dp += (a + v(t)) * (a + v(t));
        }
        minus += std::sqrt(dm);
        plus += std::sqrt(dp);
    }
    if (minus >= plus) v = -v;
    const double mean = v.mean();
    const double sd = std::sqrt((v.array() - mean).square().mean());
    for (Eigen::Index t = 0; t < mm; ++t)
        c[t] = sd > 0.0 ? float((v(t) - mean) / sd) : 0.0f;
    return info;
}

// Channel d of one cluster's new centroid from x (n x channels x m) into c (m floats).
// members: series indices in index order; shifts (n x channels): each series channel's
// alignment to the current centroid's channel (ignored when `aligned` is false).
void extractShape(const std::vector<float>& x, std::size_t channels, std::size_t d, std::size_t m,
                  const std::vector<std::size_t>& members, const std::vector<std::int32_t>& shifts,
                  bool aligned, float* c, const JobControl& job) {
    const auto alignedRow = [&](std::size_t r, float* out) {
        const std::size_t row = members[r] * channels + d;
        const float* xi = x.data() + row * m;
        const std::ptrdiff_t shift = aligned ? shifts[row] : 0, mm = std::ptrdiff_t(m);
        for (std::ptrdiff_t t = 0; t < mm; ++t) {
            const std::ptrdiff_t from = t - shift;
            out[t] = from >= 0 && from < mm ? xi[from] : 0.0f;
        }
    };
    shapeOf(members.size(), m, alignedRow, kshapeShapeSolverFor(members.size(), m),
            kKShapeFallbackSide, c, job);
}

// Series per parallelFor chunk: each is a few FFTs per cluster, so a worker looks at the
// cancel flag often and the chunks still outnumber the workers.
constexpr std::size_t kSeriesBlock = 16;
std::size_t blocksOf(std::size_t n) {
    return (n + kSeriesBlock - 1) / kSeriesBlock;
}

}  // namespace

KShapeShapeInfo kshapeShapeCpu(std::span<const float> aligned, std::size_t count, std::size_t m,
                               KShapeShapeSolver solver, std::span<float> centroid,
                               const JobControl& job, std::size_t fallbackSide) {
    if (aligned.size() != count * m || centroid.size() != m)
        throw Error("kshapeShapeCpu: " + std::to_string(aligned.size()) + " aligned values and " +
                    std::to_string(centroid.size()) + " centroid values for " +
                    std::to_string(count) + " members of length " + std::to_string(m));
    return shapeOf(
        count, m, [&](std::size_t r, float* out) { std::copy_n(aligned.data() + r * m, m, out); },
        solver, fallbackSide, centroid.data(), job);
}

double sbdFft(std::span<const float> x, std::span<const float> y, int* shift,
              std::size_t channels) {
    if (x.size() != y.size() || x.empty() || channels == 0 || x.size() % channels != 0)
        throw Error("SBD needs non-empty series of equal length in " + std::to_string(channels) +
                    " channel(s), got " + std::to_string(x.size()) + " and " +
                    std::to_string(y.size()) + " values");
    const std::size_t m = x.size() / channels;
    const FftPlans plans(kshapeFftSize(m));
    const std::size_t stride = (plans.bins() + 7) / 8 * 8;
    FloatBuffer real = allocFloats(plans.size());
    ComplexBuffer xs = allocComplex(channels * stride), ys = allocComplex(channels * stride),
                  product = allocComplex(plans.bins());
    for (std::size_t d = 0; d < channels; ++d) {
        plans.forward(x.data() + d * m, m, real.get(), &xs[d * stride]);
        plans.forward(y.data() + d * m, m, real.get(), &ys[d * stride]);
    }
    double ncc = 0.0;
    int best = 0;
    bestCorrelation(plans, xs.get(), ys.get(), channels, stride, m,
                    norm2(x.data(), x.size()) * norm2(y.data(), y.size()), product.get(),
                    real.get(), ncc, best);
    if (shift) *shift = best;
    return 1.0 - ncc;
}

KShapeResult kshapeCpu(const SeriesSet& series, const KShapeParams& params, JobControl& job,
                       int threads) {
    validateKShape(series, params);
    job.checkpoint();
    const unsigned workers = workersFor(threads);
    const std::size_t n = series.n, m = series.length, k = std::size_t(params.k);
    // Channels per series: rows of x are (series, channel) pairs, a series' rows adjacent.
    const std::size_t channels = kshapeChannelCount(series, params), rows = n * channels;
    const unsigned seriesWorkers = unsigned(std::min<std::size_t>(workers, n));

    const FftPlans plans(kshapeFftSize(m));
    // Spectra are stored `stride` apart so every one starts as aligned as fftwf_malloc's
    // memory: the plans' SIMD code requires the alignment they were made with.
    const std::size_t size = plans.size(), stride = (plans.bins() + 7) / 8 * 8;
    const bool cacheSpectra = rows * stride * sizeof(fftwf_complex) <= kSpectraCacheBytes;

    // Every worker's FFT arrays, made here: FFTW sanctions only its execute functions on other
    // threads, not its allocator.
    struct WorkerArrays {
        FloatBuffer real;
        ComplexBuffer own, product;
    };
    std::vector<WorkerArrays> work(seriesWorkers);
    for (auto& w : work) {
        w.real = allocFloats(size);
        if (!cacheSpectra) w.own = allocComplex(channels * stride);
        w.product = allocComplex(plans.bins());
    }

    std::vector<float> x;
    // ||x_i|| over all channels (the SBD's), and per channel (the channels' own alignment).
    std::vector<double> seriesNorms(n), rowNorms(rows);
    ComplexBuffer spectra;
    {
        auto stage = job.stage("normalise");
        x = kshapeInput(series, params.channel, &job);
        if (cacheSpectra) spectra = allocComplex(rows * stride);
        parallelFor(
            blocksOf(n), &job, {.threads = seriesWorkers}, [&](std::size_t block, unsigned t) {
                float* real = work[t].real.get();
                const std::size_t end = std::min(n, (block + 1) * kSeriesBlock);
                for (std::size_t i = block * kSeriesBlock; i < end; ++i) {
                    seriesNorms[i] = norm2(x.data() + i * channels * m, channels * m);
                    for (std::size_t row = i * channels; row < (i + 1) * channels; ++row) {
                        rowNorms[row] = norm2(x.data() + row * m, m);
                        if (cacheSpectra)
                            plans.forward(x.data() + row * m, m, real, &spectra[row * stride]);
                    }
                }
            });
    }
    job.setProgress(0.02, "normalise");

    KShapeResult r;
    r.length = m;
    r.channels = channels;
    r.k = params.k;
    r.labels.resize(n);
    r.distances.assign(n, 1.0f);
    r.shifts.assign(n, 0);
    r.centroids.assign(k * channels * m, 0.0f);
    {
        Random random(params.seed);
        for (auto& label : r.labels)
            label = std::int32_t(random.below(k));
    }
    // Per centroid channel: is it all zeros (the members' channel is then not aligned)?
    std::vector<char> centroidZero(k * channels, 1);
    std::vector<std::int32_t> labels(n), shifts(n);
    // Each series channel's own shift onto its centroid's channel (kshape.h, multivariate):
    // the shape step's alignment. With one channel it is the series' shift itself.
    std::vector<std::int32_t> channelShifts(channels > 1 ? rows : 0);
    std::vector<float> distances(n);
    ComplexBuffer centroidSpectra = allocComplex(k * channels * stride);
    std::vector<double> centroidNorms(k), centroidRowNorms(k * channels);

    for (int iteration = 0; iteration < params.maxIterations; ++iteration) {
        {
            auto stage = job.stage("shapes");
            std::vector<std::vector<std::size_t>> members(k);
            for (std::size_t i = 0; i < n; ++i)
                members[std::size_t(r.labels[i])].push_back(i);
            std::vector<float> next(k * channels * m);
            const std::vector<std::int32_t>& alignShifts = channels > 1 ? channelShifts : r.shifts;
            // Clusters in parallel, one at a time to whichever worker is free, and a cluster's
            // channels one after another: the members held at once stay n x m doubles at most.
            const unsigned clusterWorkers = unsigned(std::min<std::size_t>(workers, k));
            parallelFor(k, &job, {.threads = clusterWorkers}, [&](std::size_t j, unsigned) {
                for (std::size_t jd = j * channels; jd < (j + 1) * channels; ++jd)
                    extractShape(x, channels, jd % channels, m, members[j], alignShifts,
                                 !centroidZero[jd], next.data() + jd * m, job);
            });
            r.centroids = std::move(next);
            FloatBuffer real = allocFloats(size);
            for (std::size_t j = 0; j < k; ++j) {
                centroidNorms[j] = norm2(r.centroids.data() + j * channels * m, channels * m);
                for (std::size_t jd = j * channels; jd < (j + 1) * channels; ++jd) {
                    const float* c = r.centroids.data() + jd * m;
                    centroidZero[jd] = std::all_of(c, c + m, [](float v) { return v == 0.0f; });
                    centroidRowNorms[jd] = norm2(c, m);
                    plans.forward(c, m, real.get(), &centroidSpectra[jd * stride]);
                }
            }
        }
        {
            auto stage = job.stage("assign");
            parallelFor(
                blocksOf(n), &job, {.threads = seriesWorkers}, [&](std::size_t block, unsigned t) {
                    float* real = work[t].real.get();
                    fftwf_complex* own = work[t].own.get();
                    fftwf_complex* product = work[t].product.get();
                    const std::size_t end = std::min(n, (block + 1) * kSeriesBlock);
                    for (std::size_t i = block * kSeriesBlock; i < end; ++i) {
                        job.checkpoint();
                        const fftwf_complex* xs = own;
                        if (cacheSpectra)
                            xs = &spectra[i * channels * stride];
                        else
                            for (std::size_t d = 0; d < channels; ++d)
                                plans.forward(x.data() + (i * channels + d) * m, m, real,
                                              own + d * stride);
                        double bestSbd = std::numeric_limits<double>::infinity();
                        int bestCluster = 0, bestShiftValue = 0;
                        for (std::size_t j = 0; j < k; ++j) {
                            double ncc = 0.0;
                            int shift = 0;
                            bestCorrelation(plans, &centroidSpectra[j * channels * stride], xs,
                                            channels, stride, m, centroidNorms[j] * seriesNorms[i],
                                            product, real, ncc, shift);
                            const double sbd = 1.0 - ncc;
                            if (sbd < bestSbd) {
                                bestSbd = sbd;
                                bestCluster = int(j);
                                bestShiftValue = shift;
                            }
                        }
                        labels[i] = bestCluster;
                        distances[i] = float(bestSbd);
                        shifts[i] = bestShiftValue;
                        if (channels == 1) continue;
                        for (std::size_t d = 0; d < channels; ++d) {
                            const std::size_t jd = std::size_t(bestCluster) * channels + d;
                            const std::size_t row = i * channels + d;
                            double ncc = 0.0;
                            bestCorrelation(plans, &centroidSpectra[jd * stride], xs + d * stride,
                                            1, stride, m, centroidRowNorms[jd] * rowNorms[row],
                                            product, real, ncc, channelShifts[row]);
                        }
                    }
                });
        }
        std::int64_t moved = 0;
        for (std::size_t i = 0; i < n; ++i)
            moved += labels[i] != r.labels[i];
        r.labels = labels;
        r.distances = distances;
        r.shifts = shifts;
        r.iterations = iteration + 1;
        job.setIteration({.current = iteration + 1,
                          .max = params.maxIterations,
                          .changes = moved,
                          .changesUnit = "series moved"},
                         0.02 + 0.98 * double(iteration + 1) / double(params.maxIterations));
        if (moved == 0) {
            r.converged = true;
            break;
        }
    }
    job.setProgress(1.0, "assign");
    return r;
}

}  // namespace cs
