// SPDX-License-Identifier: MIT
#include "kernels/interop/cuda_gl_interop.h"

// GL's types before CUDA's interop header, which uses them.
#include <GL/gl.h>
#include <cuda_gl_interop.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "compute/core/error.h"
#include "kernels/common/cuda_error.h"
#include "kernels/common/device_buffer.h"
#include "kernels/common/device_points.h"
#include "kernels/common/device_quantities.h"
#include "kernels/common/device_scope.h"
#include "kernels/common/device_series.h"
#include "kernels/common/stream_handles.h"
#include "kernels/cuda_backend.h"
#include "kernels/interop/interop_launch.h"

namespace cs::kernels {
namespace {

/// The device, and the stream every interop write runs on. High priority: a write is a few
/// hundred microseconds that a frame waits for, while the compute worker's kernels may keep
/// the device busy for tens of milliseconds.
class InteropDevice {
public:
    explicit InteropDevice(int device) : m_device(device) {
        DeviceScope scope(device);
        cudaDeviceProp prop{};
        CS_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
        m_name = prop.name;
        int least = 0;
        int greatest = 0;
        CS_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
        CS_CUDA_CHECK(cudaStreamCreateWithPriority(&m_stream, cudaStreamNonBlocking, greatest));
    }
    ~InteropDevice() {
        if (m_stream) CS_CUDA_CHECK_NOTHROW(cudaStreamDestroy(m_stream));
    }
    InteropDevice(const InteropDevice&) = delete;
    InteropDevice& operator=(const InteropDevice&) = delete;

    int device() const { return m_device; }
    const std::string& name() const { return m_name; }
    cudaStream_t stream() const { return m_stream; }

private:
    int m_device;
    std::string m_name;
    cudaStream_t m_stream = nullptr;
};

/// Registered buffers mapped together for the scope (one map call): the pointers are valid
/// until the scope ends, and the unmap orders every GL command issued afterwards behind the
/// work queued before it.
class MappedGlBuffers {
public:
    MappedGlBuffers(std::vector<cudaGraphicsResource_t> resources, cudaStream_t stream)
        : m_resources(std::move(resources)), m_stream(stream) {
        CS_CUDA_CHECK(
            cudaGraphicsMapResources(int(m_resources.size()), m_resources.data(), m_stream));
        for (cudaGraphicsResource_t resource : m_resources) {
            std::size_t size = 0;
            void* pointer = nullptr;
            const cudaError_t status =
                cudaGraphicsResourceGetMappedPointer(&pointer, &size, resource);
            if (status != cudaSuccess) {
                unmap();
                CS_CUDA_CHECK(status);
            }
            m_pointers.push_back(pointer);
            m_sizes.push_back(size);
        }
    }
    ~MappedGlBuffers() { unmap(); }
    MappedGlBuffers(const MappedGlBuffers&) = delete;
    MappedGlBuffers& operator=(const MappedGlBuffers&) = delete;

    void* pointer(std::size_t i) const { return m_pointers[i]; }
    std::size_t size(std::size_t i) const { return m_sizes[i]; }

private:
    void unmap() {
        if (m_resources.empty()) return;
        CS_CUDA_CHECK_NOTHROW(
            cudaGraphicsUnmapResources(int(m_resources.size()), m_resources.data(), m_stream));
        m_resources.clear();
    }

    std::vector<cudaGraphicsResource_t> m_resources;
    cudaStream_t m_stream;
    std::vector<void*> m_pointers;
    std::vector<std::size_t> m_sizes;
};

/// A GL buffer reallocated behind its link's back: refuse rather than overrun.
void requireMappedSize(std::size_t mapped, std::size_t registered) {
    if (mapped < registered)
        throw cs::Error("GL interop: the GL buffer holds " + std::to_string(mapped) + " bytes, " +
                        std::to_string(registered) + " were registered");
}

class CudaGlBufferLink final : public cs::GlBufferLink {
public:
    CudaGlBufferLink(std::shared_ptr<const InteropDevice> device, std::uint32_t glBuffer,
                     std::size_t bytes)
        : m_device(std::move(device)), m_glBuffer(glBuffer), m_bytes(bytes) {
        DeviceScope scope(m_device->device());
        // Read and written: the splat renderer reads the buffers that the writes fill (one
        // registration a buffer, for both).
        CS_CUDA_CHECK(cudaGraphicsGLRegisterBuffer(&m_resource, GLuint(glBuffer),
                                                   cudaGraphicsRegisterFlagsNone));
    }
    ~CudaGlBufferLink() override {
        if (!m_resource) return;
        const DeviceScopeNoThrow scope(m_device->device());
        CS_CUDA_CHECK_NOTHROW(cudaGraphicsUnregisterResource(m_resource));
    }

    std::uint32_t glBuffer() const override { return m_glBuffer; }
    std::size_t bytes() const override { return m_bytes; }
    cudaGraphicsResource_t resource() const { return m_resource; }
    const InteropDevice& device() const { return *m_device; }

    void paintCategories(const cs::DeviceResident& data, const cs::CategoryPaint& paint) override {
        const DeviceCategories& c = onThisDevice<DeviceCategories>(data, "categories");
        const std::size_t n = c.count();
        if (n * sizeof(std::uint32_t) != m_bytes)
            throw cs::Error("GL interop: " + std::to_string(n) +
                            " categorised points for a colour buffer of " +
                            std::to_string(m_bytes / sizeof(std::uint32_t)) + " points");
        DeviceScope scope(m_device->device());
        DeviceBuffer<std::uint32_t> table(paint.categoryRgba.size(), m_device->stream());
        table.copyFromHost(paint.categoryRgba);
        writeMapped([&](void* out, cudaStream_t s) {
            launchPaintCategories(
                c.labels(), c.primary(), n, table.data(), paint.categoryRgba.size(),
                {paint.noneRgba, paint.showPrimary, paint.showSecondary, paint.showNone},
                static_cast<std::uint32_t*>(out), s);
        });
    }

    void writePositions(const cs::DeviceResident& data, double scale) override {
        const DevicePoints& points = onThisDevice<DevicePoints>(data, "points");
        if (points.n * 3 * sizeof(float) != m_bytes ||
            points.coords.size() != points.n * points.dims)
            throw cs::Error("GL interop: " + std::to_string(points.n) +
                            " points for a position buffer of " +
                            std::to_string(m_bytes / (3 * sizeof(float))) + " points");
        DeviceScope scope(m_device->device());
        writeMapped([&](void* out, cudaStream_t s) {
            launchPackPositions(points.coords.data(), points.n, points.dims, scale / points.scale,
                                static_cast<float*>(out), s);
        });
    }

    void writeSeriesMatrix(const cs::DeviceResident& data, std::span<const std::uint32_t> order,
                           std::size_t channel) override {
        const DeviceSeries& series = onThisDevice<DeviceSeries>(data, "series");
        if (order.size() * series.length * sizeof(float) != m_bytes ||
            channel >= std::max<std::size_t>(series.channels, 1))
            throw cs::Error("GL interop: " + std::to_string(order.size()) + " rows of " +
                            std::to_string(series.length) + " samples (channel " +
                            std::to_string(channel) + ") for a pixel buffer of " +
                            std::to_string(m_bytes) + " bytes");
        for (const std::uint32_t i : order)
            if (i >= series.n)
                throw cs::Error("GL interop: no series " + std::to_string(i) + " of " +
                                std::to_string(series.n));
        DeviceScope scope(m_device->device());
        DeviceBuffer<std::uint32_t> rows(order.size(), m_device->stream());
        rows.copyFromHost(order);
        writeMapped([&](void* out, cudaStream_t s) {
            launchSeriesMatrix(series.values.data(), series.lengths.data(), series.channels,
                               series.length, channel, rows.data(), order.size(),
                               static_cast<float*>(out), s);
        });
    }

    void writeEdgeIndices(const cs::DeviceResident& data) override {
        const DeviceEdges& edges = onThisDevice<DeviceEdges>(data, "edges");
        const std::size_t slots = edges.points() * std::size_t(std::max(edges.edgesPerPoint(), 0));
        if (slots * 2 * sizeof(std::uint32_t) != m_bytes)
            throw cs::Error("GL interop: " + std::to_string(slots) +
                            " edges for an element buffer of " +
                            std::to_string(m_bytes / (2 * sizeof(std::uint32_t))) + " edges");
        DeviceScope scope(m_device->device());
        writeMapped([&](void* out, cudaStream_t s) {
            launchEdgeIndices(edges.targets(), edges.points(), edges.edgesPerPoint(),
                              static_cast<std::uint32_t*>(out), s);
        });
    }

    void writeColumnZScores(const cs::DeviceResident& data, std::span<const std::uint32_t> order,
                            std::size_t layer, std::size_t columns) override {
        writeZScores(data, order, layer, columns, {});
    }

    void writeOrderedColumnZScores(const cs::DeviceResident& data,
                                   std::span<const std::uint32_t> order, std::size_t layer,
                                   std::span<const std::uint32_t> columns) override {
        writeZScores(data, order, layer, columns.size(), columns);
    }

    // columnOrder empty: the first `columns` columns in their order.
    void writeZScores(const cs::DeviceResident& data, std::span<const std::uint32_t> order,
                      std::size_t layer, std::size_t columns,
                      std::span<const std::uint32_t> columnOrder) {
        const DeviceFeatureMatrix& m = onThisDevice<DeviceFeatureMatrix>(data, "feature values");
        if (order.size() * columns * sizeof(float) != m_bytes || columns > m.columns() ||
            layer >= m.layers())
            throw cs::Error("GL interop: " + std::to_string(order.size()) + " rows x " +
                            std::to_string(columns) + " columns (of " +
                            std::to_string(m.columns()) + ", layer " + std::to_string(layer) +
                            " of " + std::to_string(m.layers()) + ") for a pixel buffer of " +
                            std::to_string(m_bytes) + " bytes");
        for (const std::uint32_t i : order)
            if (i >= m.rows())
                throw cs::Error("GL interop: no row " + std::to_string(i) + " of " +
                                std::to_string(m.rows()));
        for (const std::uint32_t c : columnOrder)
            if (c >= m.columns())
                throw cs::Error("GL interop: no column " + std::to_string(c) + " of " +
                                std::to_string(m.columns()));
        DeviceScope scope(m_device->device());
        DeviceBuffer<std::uint32_t> rows(order.size(), m_device->stream());
        rows.copyFromHost(order);
        DeviceBuffer<std::uint32_t> ordered(std::max<std::size_t>(columnOrder.size(), 1),
                                            m_device->stream());
        if (!columnOrder.empty()) ordered.copyFromHost(columnOrder);
        DeviceBuffer<double> stats(2 * std::max<std::size_t>(columns, 1), m_device->stream());
        writeMapped([&](void* out, cudaStream_t s) {
            launchColumnZScores(m.matrixValues(), m.rows(), m.columns(), m.layers(), layer,
                                rows.data(), order.size(), columns,
                                columnOrder.empty() ? nullptr : ordered.data(), stats.data(),
                                static_cast<float*>(out), s);
        });
    }

    void writeTestPattern(std::uint32_t seed) override {
        DeviceScope scope(m_device->device());
        writeMapped([&](void* out, cudaStream_t s) {
            launchInteropTestPattern(static_cast<std::uint32_t*>(out),
                                     m_bytes / sizeof(std::uint32_t), seed, s);
        });
    }

private:
    /// DeviceScope for destructors: a failure only leaves the current device as it was.
    class DeviceScopeNoThrow {
    public:
        explicit DeviceScopeNoThrow(int device) {
            if (cudaGetDevice(&m_previous) != cudaSuccess || cudaSetDevice(device) != cudaSuccess) {
                (void)cudaGetLastError();
                m_previous = -1;
            }
        }
        ~DeviceScopeNoThrow() {
            if (m_previous >= 0) (void)cudaSetDevice(m_previous);
        }

    private:
        int m_previous = -1;
    };

    /// data as this backend's T, on the device the GL buffers are shared with; throws cs::Error
    /// naming `what` otherwise.
    template <typename T>
    const T& onThisDevice(const cs::DeviceResident& data, const char* what) const {
        const auto* typed = dynamic_cast<const T*>(&data);
        if (!typed || !typed->context)
            throw cs::Error(std::string("GL interop: the ") + what +
                            " are not on a CUDA device (made by the " + data.backend() +
                            " backend)");
        if (typed->context->device() != m_device->device())
            throw cs::Error(std::string("GL interop: the ") + what + " are on CUDA device " +
                            std::to_string(typed->context->device()) +
                            ", the GL buffers are shared with device " +
                            std::to_string(m_device->device()));
        return *typed;
    }

    /// Maps the buffer on the interop stream, runs launch(pointer, stream), unmaps and waits:
    /// done on the device before returning, so the caller may drop the inputs right away (they
    /// are freed on the compute stream, which does not wait for this one).
    template <typename Launch>
    void writeMapped(Launch launch) {
        const cudaStream_t s = m_device->stream();
        {
            MappedGlBuffers mapped({m_resource}, s);
            requireMappedSize(mapped.size(0), m_bytes);
            launch(mapped.pointer(0), s);
        }
        CS_CUDA_CHECK(cudaStreamSynchronize(s));
    }

    std::shared_ptr<const InteropDevice> m_device;
    std::uint32_t m_glBuffer;
    std::size_t m_bytes;
    cudaGraphicsResource_t m_resource = nullptr;
};

class CudaGlInterop final : public cs::GlInterop {
public:
    explicit CudaGlInterop(int device) : m_device(std::make_shared<InteropDevice>(device)) {}

    std::string description() const override { return "CUDA–GL interop on " + m_device->name(); }

    std::unique_ptr<cs::GlBufferLink> link(std::uint32_t glBuffer, std::size_t bytes) override {
        if (glBuffer == 0 || bytes == 0)
            throw cs::Error("GL interop: nothing to link (buffer " + std::to_string(glBuffer) +
                            ", " + std::to_string(bytes) + " bytes)");
        return std::make_unique<CudaGlBufferLink>(m_device, glBuffer, bytes);
    }

    void splatPoints(const cs::PointSplatBuffers& points, const cs::PointSplatView& view,
                     cs::GlBufferLink& image) override {
        const CudaGlBufferLink& target = linked(
            &image, std::size_t(view.width) * view.height * sizeof(cs::SplatPixel), "splat image");
        withPoints(points, {target.resource()},
                   [&](const Mapped& p, const MappedGlBuffers& mapped, cudaStream_t s) {
                       requireMappedSize(mapped.size(p.extra), target.bytes());
                       launchSplatPoints(p.positions, p.colours, p.mask, points.n, view,
                                         static_cast<cs::SplatPixel*>(mapped.pointer(p.extra)), s);
                   });
    }

    std::vector<cs::SplatPixel> splatKeys(const cs::PointSplatBuffers& points,
                                          const cs::PointSplatView& view) override {
        DeviceScope scope(m_device->device());
        DeviceBuffer<cs::SplatPixel> keys(std::size_t(view.width) * view.height,
                                          m_device->stream());
        withPoints(points, {}, [&](const Mapped& p, const MappedGlBuffers&, cudaStream_t s) {
            launchSplatKeys(p.positions, p.colours, p.mask, points.n, view, keys.data(), s);
        });
        return keys.toHost();
    }

    cs::EdgeSplatOutcome splatEdges(const cs::EdgeSplatBuffers& edges,
                                    const cs::EdgeSplatView& view,
                                    cs::GlBufferLink& image) override {
        const CudaGlBufferLink& target = linked(
            &image, std::size_t(view.width) * view.height * sizeof(std::uint32_t), "edge image");
        const CudaGlBufferLink& indices =
            linked(edges.edges, 2 * edges.edgeCount * sizeof(std::uint32_t), "edge indices");
        cs::EdgeSplatOutcome out;
        withPoints(edges.points, {target.resource(), indices.resource()},
                   [&](const Mapped& p, const MappedGlBuffers& mapped, cudaStream_t s) {
                       requireMappedSize(mapped.size(p.extra), target.bytes());
                       requireMappedSize(mapped.size(p.extra + 1), indices.bytes());
                       const EdgeSplatCounts counts = launchSplatEdges(
                           p.positions, p.colours, p.mask, edges.points.n,
                           static_cast<const std::uint32_t*>(mapped.pointer(p.extra + 1)),
                           edges.edgeCount, view, cs::kMaxEdgeSplatFragments,
                           static_cast<std::uint32_t*>(mapped.pointer(p.extra)), s);
                       out.drawn = counts.fragments <= cs::kMaxEdgeSplatFragments;
                       out.edges = std::size_t(counts.edges);
                   });
        return out;
    }

private:
    /// The point buffers of a PointSplatBuffers, mapped; extra: the index of the first extra
    /// resource in the MappedGlBuffers.
    struct Mapped {
        const float* positions;
        const std::uint32_t* colours;
        const std::uint8_t* mask;
        std::size_t extra;
    };
    /// Maps the point buffers (and `extra` resources after them) on the interop stream, runs
    /// launch, unmaps and waits.
    template <typename Launch>
    void withPoints(const cs::PointSplatBuffers& points, std::vector<cudaGraphicsResource_t> extra,
                    Launch launch) {
        const std::size_t n = points.n;
        if (n > cs::kMaxSplatPoints)
            throw cs::Error("GL interop: " + std::to_string(n) + " points are too many to splat");
        const CudaGlBufferLink& positions =
            linked(points.positions, n * 3 * sizeof(float), "point positions");
        const CudaGlBufferLink& colours =
            linked(points.colours, n * sizeof(std::uint32_t), "point colours");
        const CudaGlBufferLink* mask =
            points.mask ? &linked(points.mask, n, "point mask") : nullptr;
        DeviceScope scope(m_device->device());
        std::vector<cudaGraphicsResource_t> resources{positions.resource(), colours.resource()};
        if (mask) resources.push_back(mask->resource());
        const std::size_t first = resources.size();
        resources.insert(resources.end(), extra.begin(), extra.end());
        const cudaStream_t s = m_device->stream();
        {
            MappedGlBuffers mapped(std::move(resources), s);
            requireMappedSize(mapped.size(0), positions.bytes());
            requireMappedSize(mapped.size(1), colours.bytes());
            if (mask) requireMappedSize(mapped.size(2), mask->bytes());
            launch(
                Mapped{static_cast<const float*>(mapped.pointer(0)),
                       static_cast<const std::uint32_t*>(mapped.pointer(1)),
                       mask ? static_cast<const std::uint8_t*>(mapped.pointer(2)) : nullptr, first},
                mapped, s);
        }
        CS_CUDA_CHECK(cudaStreamSynchronize(s));
    }

    /// link as one of ours on this device, holding at least `bytes`; throws cs::Error naming
    /// `what` otherwise.
    const CudaGlBufferLink& linked(const cs::GlBufferLink* link, std::size_t bytes,
                                   const char* what) const {
        const auto* ours = dynamic_cast<const CudaGlBufferLink*>(link);
        if (!ours || &ours->device() != m_device.get())
            throw cs::Error(std::string("GL interop: the ") + what +
                            " are not linked by this interop");
        if (ours->bytes() < bytes)
            throw cs::Error(std::string("GL interop: the ") + what + " hold " +
                            std::to_string(ours->bytes()) + " bytes, " + std::to_string(bytes) +
                            " are needed");
        return *ours;
    }

    std::shared_ptr<const InteropDevice> m_device;
};

}  // namespace

std::shared_ptr<cs::GlInterop> createCudaGlInterop() {
    const CudaProbe probe = probeCudaDevice();
    if (probe.device < 0) throw cs::BackendUnavailable(probe.reason);
    try {
        return std::make_shared<CudaGlInterop>(probe.device);
    } catch (const CudaError& e) {
        throw cs::BackendUnavailable("CUDA device " + std::to_string(probe.device) +
                                     " could not be set up for GL interop: " + e.what());
    }
}

}  // namespace cs::kernels
