// SPDX-License-Identifier: MIT
#include "ui/views/points/point_cloud_view.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QKeyEvent>
#include <QLocale>
#include <QMouseEvent>
#include <QOpenGLContext>
#include <QOpenGLFramebufferObject>
#include <QOpenGLPaintDevice>
#include <QPainter>
#include <QRubberBand>
#include <QThreadPool>
#include <QVector2D>
#include <QWheelEvent>
#include <QtMath>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>

#include "compute/backend/gl_interop.h"
#include "compute/core/error.h"
#include "compute/core/geometry.h"
#include "ui/shell/logger.h"
#include "ui/views/colour_maps.h"
#include "ui/views/glsl_source.h"

namespace cs::ui {
namespace {

// A length for the edge filter: infinity is no uniform value everywhere, so the float maximum
// stands for it (in the shader and in the edge splat alike).
float floatOrMax(double v) {
    return float(std::min(v, double(std::numeric_limits<float>::max())));
}

// suggestedUpAxis's rule on the z range of a cloud.
PointCloudView::UpAxis upAxisForDepth(float lo, float hi) {
    const bool inFrontOfCamera = lo > 0.0f && lo >= 0.2f * (hi - lo);
    return inFrontOfCamera ? PointCloudView::UpAxis::MinusY : PointCloudView::UpAxis::PlusY;
}

// The depth range of the points in the world frame their sensor pose puts them in (the file's
// z range without one).
void worldDepthRange(const PointSet& points, float& lo, float& hi) {
    lo = std::numeric_limits<float>::infinity();
    hi = -lo;
    const std::size_t d = points.dims;
    std::array<double, 3> row{0.0, 0.0, 1.0};
    double shift = 0.0;
    if (points.sensorPose) {
        const auto r = points.sensorPose->rotation();
        row = {r[6], r[7], r[8]};
        shift = points.sensorPose->origin[2];
    }
    for (std::size_t i = 0; i < points.n; ++i) {
        const float* x = points.coords.data() + i * d;
        const float z = float(row[0] * x[0] + row[1] * x[1] + row[2] * x[2] + shift);
        if (!std::isfinite(z)) continue;
        lo = std::min(lo, z);
        hi = std::max(hi, z);
    }
}

// Desktop-GL enums that GLES headers do not define.
constexpr GLenum kProgramPointSize = 0x8642;     // GL_PROGRAM_POINT_SIZE
constexpr GLenum kPointSprite = 0x8861;          // GL_POINT_SPRITE (compatibility profiles)
constexpr GLenum kPrimitivesGenerated = 0x8C87;  // GL_PRIMITIVES_GENERATED (desktop GL 3.0+)

constexpr float kOrbitDegreesPerPixel = 0.4f;
constexpr float kOrbitDegreesPerKey = 5.0f;
constexpr float kZoomPerWheelStep = 0.85f;
constexpr float kPointSizeStep = 1.25f;

// The lasso's outline, drawn by a child widget: moving it never repaints the cloud below.
class LassoOverlay : public QWidget {
public:
    LassoOverlay(QWidget* parent, const QPolygonF& outline) : QWidget(parent), m_outline(outline) {
        setAttribute(Qt::WA_TransparentForMouseEvents);
        setAttribute(Qt::WA_NoSystemBackground);
    }

protected:
    void paintEvent(QPaintEvent*) override {
        QPainter painter(this);
        painter.setRenderHint(QPainter::Antialiasing, true);
        painter.setPen(QPen(palette().color(QPalette::Highlight), 1.5, Qt::DashLine));
        painter.drawPolygon(m_outline);
    }

private:
    const QPolygonF& m_outline;
};

// A press that moves less than this (Manhattan, logical pixels) before release is a click.
constexpr int kClickSlop = 4;
// The cursor must rest this long before a hover pick: a pick per mouse event would redraw the
// whole cloud for every pixel the mouse crosses.
constexpr int kHoverDelayMs = 150;
// glDrawElements takes a GLsizei count: larger graphs are drawn in slices of this many indices.
constexpr std::size_t kMaxIndicesPerDraw = std::size_t(1) << 30;
// The level of detail's permutation: fixed, so that a cloud shows the same sample every time.
constexpr std::uint64_t kLodSeed = 0x5eed'13;

QString glString(QOpenGLFunctions* f, GLenum name) {
    const auto* s = reinterpret_cast<const char*>(f->glGetString(name));
    return s ? QString::fromLatin1(s) : QString();
}

float defaultPointSize(std::size_t n) {
    if (n <= 20'000) return 5.0f;
    if (n <= 300'000) return 3.0f;
    if (n <= 3'000'000) return 2.0f;
    return 1.5f;
}

}  // namespace

PointCloudView::PointCloudView(QWidget* parent) : QOpenGLWidget(parent) {
    setFocusPolicy(Qt::StrongFocus);
    // The GL frame covers the whole widget: without this, each new frame also repaints what
    // lies beneath the view in the window's backing store (its parent's background, the view's
    // full size) before the view draws, for composition to hide again.
    setAttribute(Qt::WA_OpaquePaintEvent);
    m_lodSettle.setSingleShot(true);
    m_lodSettle.setInterval(kLodSettleMs);
    // The camera stopped: the next frame draws every point.
    connect(&m_lodSettle, &QTimer::timeout, this, [this] { update(); });
    m_deviceWait.setSingleShot(true);
    connect(&m_deviceWait, &QTimer::timeout, this, [this] {
        if (!m_awaitDevicePositions) return;
        m_awaitDevicePositions = false;
        logInfo(tr("The device copy of the points did not come in %1 s: uploading them from host "
                   "memory")
                    .arg(m_deviceWait.interval() / 1000.0));
        m_positionsDirty = true;
        contentChanged();
    });
    setMinimumSize(200, 150);
    setMouseTracking(true);  // hover picks
    m_hoverTimer.setSingleShot(true);
    m_hoverTimer.setInterval(kHoverDelayMs);
    connect(&m_hoverTimer, &QTimer::timeout, this, [this] {
        if (m_dragButton != Qt::NoButton) return;
        const auto picked = pickPoint(m_hoverPos);
        emit pointHovered(picked ? qint64(*picked) : -1, mapToGlobal(m_hoverPos));
    });
    connect(this, &QOpenGLWidget::frameSwapped, this, [this] {
        const bool wasDrawn = isContentDrawn();
        m_drawnGeneration = m_paintedGeneration;
        if (!wasDrawn && isContentDrawn()) emit contentDrawn();
    });
}

PointCloudView::~PointCloudView() {
    releaseGl();
    // ~QOpenGLWidget destroys the context after our members are gone: its aboutToBeDestroyed
    // must not reach releaseGl() then.
    if (context()) disconnect(context(), nullptr, this, nullptr);
}

QSurfaceFormat PointCloudView::defaultSurfaceFormat() {
    QSurfaceFormat format = QSurfaceFormat::defaultFormat();
    if (QOpenGLContext::openGLModuleType() == QOpenGLContext::LibGL) {
        format.setRenderableType(QSurfaceFormat::OpenGL);
        format.setVersion(3, 3);
        format.setProfile(QSurfaceFormat::CoreProfile);
    } else {
        format.setRenderableType(QSurfaceFormat::OpenGLES);
        format.setVersion(3, 0);
    }
    format.setDepthBufferSize(24);
    format.setStencilBufferSize(8);
    // No wait for the vertical blank in the window's swap: with an interval of 1 every
    // composition of the window (a progress bar's tick included) blocks the GUI thread for up to
    // a refresh period, and a result that lands meanwhile waits behind it. Frames are paced by
    // update requests instead.
    format.setSwapInterval(0);
    return format;
}

void PointCloudView::setPointSet(std::shared_ptr<const PointSet> points) {
    m_points = std::move(points);
    m_splatFailed = m_edgeSplatFailed = false;
    m_lodOrder.clear();
    m_lodUploaded = 0;
    m_colourOptions.clear();
    m_colours.clear();
    m_categoryColours.reset();
    m_legend = {};
    m_lo = m_hi = {};
    m_centre = {0.0, 0.0, 0.0};
    m_scale = 1.0;
    m_planar = false;
    m_suggestedUp = UpAxis::PlusY;
    m_sensorPose.reset();
    m_devicePositions.reset();
    m_awaitDevicePositions = false;
    m_deviceWait.stop();
    m_positionCount = 0;  // the buffer holds the previous set's positions until the upload
    // The edges were of the previous points: their indices must not reach the new buffers.
    m_edges = {};
    m_edgeHostIndices.reset();
    m_edgeIndexCount = 0;
    m_edgesDirty = true;
    m_edgeLengthSample.clear();
    m_edgeBounds = m_edgeColourRange = {0.0, 0.0};
    m_edgeLegend = {};
    m_mask.clear();
    m_maskDirty = true;
    m_marked.clear();
    if (m_points && m_points->n > 0) {
        const PointSet& p = *m_points;
        float lo[3] = {0, 0, 0};
        float hi[3] = {0, 0, 0};
        const std::size_t used = std::min<std::size_t>(p.dims, 3);
        for (std::size_t j = 0; j < used; ++j) {
            lo[j] = std::numeric_limits<float>::infinity();
            hi[j] = -lo[j];
        }
        for (std::size_t i = 0; i < p.n; ++i) {
            const float* x = p.coords.data() + i * p.dims;
            for (std::size_t j = 0; j < used; ++j) {
                // Readers drop non-finite points; this guard keeps a stray one from
                // poisoning the bounds of everything else.
                if (!std::isfinite(x[j])) continue;
                lo[j] = std::min(lo[j], x[j]);
                hi[j] = std::max(hi[j], x[j]);
            }
        }
        for (std::size_t j = 0; j < used; ++j)
            if (lo[j] > hi[j]) lo[j] = hi[j] = 0.0f;
        // The view draws around the box's midpoint, the centre recentredCoords() uses, so that
        // float32 keeps its precision on clouds far from the origin (georeferenced scans) and
        // the device copy of the algorithms is exactly what the view draws.
        // And at the scale the algorithms use (distanceScale): a cloud in units of 1e30 or
        // 1e-30 is drawn near 1, where the camera's float matrices work.
        float viewLo[3] = {0, 0, 0};
        float viewHi[3] = {0, 0, 0};
        double widest = 0.0;
        for (std::size_t j = 0; j < used; ++j) {
            m_centre[j] = 0.5 * (double(lo[j]) + double(hi[j]));
            widest = std::max(widest, double(hi[j]) - double(lo[j]));
        }
        m_scale = distanceScale(widest);
        for (std::size_t j = 0; j < used; ++j) {
            viewLo[j] = float((double(lo[j]) - m_centre[j]) * m_scale);
            viewHi[j] = float((double(hi[j]) - m_centre[j]) * m_scale);
        }
        m_lo = QVector3D(viewLo[0], viewLo[1], viewLo[2]);
        m_hi = QVector3D(viewHi[0], viewHi[1], viewHi[2]);
        m_planar = p.dims < 3 || hi[2] == lo[2];
        if (p.dims >= 3 && p.sensorPose && !p.sensorPose->isIdentity()) {
            m_sensorPose = p.sensorPose;
            float zLo = 0.0f, zHi = 0.0f;
            worldDepthRange(p, zLo, zHi);
            m_suggestedUp = upAxisForDepth(zLo, zHi);
        } else if (p.dims >= 3) {
            m_suggestedUp = upAxisForDepth(lo[2], hi[2]);
        }
        m_colourOptions = PointColouring::options(p);
        setPointSize(defaultPointSize(p.n));
    }
    resetCamera();
    m_positionsDirty = true;
    m_coloursDirty = true;
    const QString option =
        m_points ? PointColouring::defaultOption(*m_points) : QStringLiteral("uniform");
    if (m_points) {
        if (auto colouring = computeColouring(option))
            applyColouring(std::move(*colouring), option);
    } else {
        m_colourBy = QStringLiteral("uniform");
        emit colourByChanged(m_colourBy);
    }
    emit colourOptionsChanged();
    contentChanged();
}

bool PointCloudView::setColourBy(const QString& id) {
    if (!m_points) return false;
    auto colouring = computeColouring(id);
    if (!colouring) return false;
    applyColouring(std::move(*colouring), id);
    contentChanged();
    return true;
}

bool PointCloudView::setColours(std::span<const std::uint32_t> rgba, Legend legend) {
    if (rgba.size() != pointCount()) {
        logWarning(tr("point view: %1 colours given for %2 points; colours unchanged")
                       .arg(rgba.size())
                       .arg(pointCount()));
        return false;
    }
    PointColouring colouring;
    colouring.rgba.assign(rgba.begin(), rgba.end());
    colouring.legend = std::move(legend);
    applyColouring(std::move(colouring), QStringLiteral("custom"));
    contentChanged();
    return true;
}

bool PointCloudView::setCategories(PointCategories categories, CategoryPaint paint, Legend legend,
                                   std::vector<std::uint32_t> hostColours) {
    const std::size_t n = pointCount();
    if (!categories || categories.size() != n ||
        (!categories.primary.empty() && categories.primary.size() != n) ||
        (!hostColours.empty() && hostColours.size() != n)) {
        logWarning(tr("point view: categories of %1 points given for %2 points; colours "
                      "unchanged")
                       .arg(categories.size())
                       .arg(n));
        return false;
    }
    PointColouring colouring;
    colouring.rgba = std::move(hostColours);
    colouring.legend = std::move(legend);
    applyColouring(std::move(colouring), QStringLiteral("custom"));
    m_categoryColours = CategoryColours{std::move(categories), std::move(paint)};
    contentChanged();
    return true;
}

void PointCloudView::setInteropAllowed(bool allowed) {
    if (allowed == m_interop.allowed()) return;
    m_interop.setAllowed(allowed);
    if (m_categoryColours) m_coloursDirty = true;
    if (m_devicePositions) m_positionsDirty = true;
    if (m_edges.device) m_edgesDirty = true;
    if (m_coloursDirty || m_positionsDirty || m_edgesDirty) contentChanged();
}

bool PointCloudView::setEdges(PointEdges edges,
                              std::shared_ptr<const std::vector<std::uint32_t>> hostIndices) {
    if (edges) {
        const std::size_t entries = edges.n * std::size_t(std::max(edges.k, 0));
        if (edges.n != pointCount() || edges.k < 1 || edges.targets.size() != entries ||
            (!edges.values.empty() && edges.values.size() != entries) ||
            (hostIndices && hostIndices->size() != 2 * entries)) {
            logWarning(tr("point view: edges of %1 points given for %2 points; edges unchanged")
                           .arg(edges.n)
                           .arg(pointCount()));
            return false;
        }
    }
    m_edges = std::move(edges);
    m_edgeHostIndices = m_edges ? std::move(hostIndices) : nullptr;
    m_edgesDirty = true;
    updateEdgeStatistics();
    updateEdgeColourOption();
    contentChanged();
    return true;
}

void PointCloudView::updateEdgeColourOption() {
    const QString id = edgeValueColourId();
    const auto it = std::find_if(m_colourOptions.begin(), m_colourOptions.end(),
                                 [&](const ColourOption& o) { return o.id == id; });
    const bool offered = it != m_colourOptions.end();
    const bool wanted = m_edges && !m_edges.values.empty() && m_points;
    if (wanted && !offered)
        m_colourOptions.push_back(
            {id, tr("%1 (last edge)").arg(QString::fromStdString(m_edges.valueName))});
    if (!wanted && offered) m_colourOptions.erase(it);
    if (m_colourBy == id) {
        // The colours showed the previous edges: recolour by these, or go back to the points'
        // own colouring when the edges are gone.
        const QString option = wanted     ? id
                               : m_points ? PointColouring::defaultOption(*m_points)
                                          : QString();
        if (auto colouring = computeColouring(option))
            applyColouring(std::move(*colouring), option);
    }
    if (wanted != offered) emit colourOptionsChanged();
}

void PointCloudView::setEdgesVisible(bool visible) {
    if (visible == m_edgesVisible) return;
    m_edgesVisible = visible;
    contentChanged();
}

float PointCloudView::suggestedEdgeOpacity(std::size_t edges, QSize viewPixels) {
    if (edges == 0) return kDefaultEdgeOpacity;
    const double pixels = std::max(1.0, double(viewPixels.width()) * viewPixels.height());
    return float(std::clamp(std::sqrt(pixels / (4.0 * double(edges))), 0.06, 0.8));
}

void PointCloudView::setEdgeColouring(EdgeColouring colouring) {
    if (colouring == m_edgeColouring) return;
    m_edgeColouring = colouring;
    contentChanged();
}

void PointCloudView::setEdgeMap(ColourMaps::Map map) {
    if (map == m_edgeMap) return;
    m_edgeMap = map;
    m_edgeRange.map = map;
    m_edgeMapDirty = true;
    updateEdgeStatistics();
    contentChanged();
}

void PointCloudView::setEdgesOverPoints(bool over) {
    if (over == m_edgesOverPoints) return;
    m_edgesOverPoints = over;
    contentChanged();
    emit edgesOverPointsChanged(over);
}

void PointCloudView::setEdgeLengthFilter(double minimum, double maximum) {
    if (std::isnan(minimum) || minimum < 0.0) minimum = 0.0;
    if (std::isnan(maximum)) maximum = std::numeric_limits<double>::infinity();
    if (maximum < minimum) std::swap(minimum, maximum);
    if (minimum == m_edgeFilter[0] && maximum == m_edgeFilter[1]) return;
    m_edgeFilter = {minimum, maximum};
    contentChanged();
}

void PointCloudView::setEdgeColourRange(const ScalarStyle& range) {
    m_edgeRange = range;
    m_edgeRange.map = m_edgeMap;
    updateEdgeStatistics();
    contentChanged();
}

void PointCloudView::updateEdgeStatistics() {
    // Lengths over the coordinates drawn, in data units, of an even sample of the edges: what
    // the geometry shader measures, whatever the graph's own distances were computed over.
    m_edgeLengthSample.clear();
    m_edgeBounds = m_edgeColourRange = {0.0, 0.0};
    m_edgeLegend = {};
    if (!m_edges || !m_points || m_edges.n != m_points->n) return;
    const std::size_t count = m_edges.edgeCount();
    const std::size_t step = std::max<std::size_t>(1, count / kEdgeLengthSample);
    m_edgeLengthSample =
        m_edges.lengthSample ? *m_edges.lengthSample : edgeLengthSample(m_edges, *m_points);
    if (m_edgeLengthSample.empty()) return;
    const auto [lo, hi] = std::minmax_element(m_edgeLengthSample.begin(), m_edgeLengthSample.end());
    m_edgeBounds = {double(*lo), double(*hi)};
    // The legend is the colouring of the sample: the same range rule and histogram as points.
    PointColouring legend = PointColouring::fromScalars(
        m_edgeLengthSample, m_edgeLengthSample.size(), 1, 0, tr("edge length"), 0, m_edgeRange);
    m_edgeColourRange = {legend.legend.minimum, legend.legend.maximum};
    if (step > 1) {
        // Counted on the sample: scaled to every edge, to three significant digits.
        const double all = double(count) / double(m_edgeLengthSample.size());
        const auto scaled = [all](std::size_t n) {
            const double v = double(n) * all;
            if (v < 1.0) return std::size_t(std::lround(v));
            const double unit = std::pow(10.0, std::max(0.0, std::floor(std::log10(v)) - 2.0));
            return std::size_t(std::lround(v / unit) * unit);
        };
        legend.legend.below = scaled(legend.legend.below);
        legend.legend.above = scaled(legend.legend.above);
        for (std::size_t& bin : legend.legend.histogram)
            bin = scaled(bin);
        legend.legend.estimated = true;
    }
    m_edgeLegend = std::move(legend.legend);
}

void PointCloudView::setScalarStyle(const ScalarStyle& style) {
    if (style == m_scalarStyle) return;
    m_scalarStyle = style;
    // Labels and colours ignore the style; scalars are recoloured by it.
    if (m_points && m_colourBy != QLatin1String("custom") &&
        m_legend.kind == Legend::Kind::ColourBar)
        setColourBy(m_colourBy);
}

void PointCloudView::setEdgeOpacity(float opacity) {
    opacity = std::isfinite(opacity) ? std::clamp(opacity, 0.0f, 1.0f) : kDefaultEdgeOpacity;
    if (opacity == m_edgeOpacity) return;
    m_edgeOpacity = opacity;
    contentChanged();
}

void PointCloudView::applyColouring(PointColouring colouring, const QString& id) {
    m_categoryColours.reset();
    std::vector<std::uint32_t> old = std::exchange(m_colours, std::move(colouring.rgba));
    // Big colour arrays are freed on a pool thread: 120 MB at 30M points cost the GUI thread
    // 6 ms between a result and its frame.
    if (old.size() >= kFreeOffThreadColours)
        QThreadPool::globalInstance()->start([old = std::move(old)]() mutable { old = {}; });
    m_legend = std::move(colouring.legend);
    m_coloursDirty = true;
    if (m_colourBy != id) {
        m_colourBy = id;
        emit colourByChanged(id);
    }
}

std::optional<PointColouring> PointCloudView::computeColouring(const QString& id) const {
    if (!m_points) return std::nullopt;
    if (id == edgeValueColourId()) {
        if (!m_edges || m_edges.n != m_points->n || m_edges.k < 1 ||
            m_edges.values.size() != m_edges.n * std::size_t(m_edges.k))
            return std::nullopt;
        const auto k = std::size_t(m_edges.k);
        return PointColouring::fromScalars(
            m_edges.values, m_edges.n, k, k - 1,
            tr("%1 (k = %2)").arg(QString::fromStdString(m_edges.valueName)).arg(k),
            ColourMaps::packRgba(noiseColour()), m_scalarStyle);
    }
    return PointColouring::compute(*m_points, id, ColourMaps::packRgba(uniformColour()),
                                   ColourMaps::packRgba(noiseColour()), m_scalarStyle);
}

QColor PointCloudView::noiseColour() const {
    QColor c = ColourMaps::noiseColour(backgroundColour());
    c.setAlpha(ColourMaps::kBehindAlpha);
    return c;
}

QColor PointCloudView::backgroundColour() const {
    return palette().color(QPalette::Base);
}

QColor PointCloudView::uniformColour() const {
    return palette().color(QPalette::Highlight);
}

void PointCloudView::resetCamera() {
    QVector3D lo, hi;
    worldBox(lo, hi);
    m_camera.reset(lo, hi, aspect(), m_planar && m_upAxis == UpAxis::PlusY);
    update();
}

void PointCloudView::setCameraPose(const QVector3D& target, float distance, float yawDegrees,
                                   float pitchDegrees) {
    m_camera.setTarget(target);
    m_camera.setDistance(distance);
    m_camera.setAngles(yawDegrees, pitchDegrees);
    update();
}

void PointCloudView::fitToData() {
    QVector3D lo, hi;
    worldBox(lo, hi);
    m_camera.fitBox(lo, hi, aspect());
    update();
}

void PointCloudView::setUpAxis(UpAxis axis) {
    m_upAxis = axis;
    resetCamera();
}

PointCloudView::UpAxis PointCloudView::suggestedUpAxis(const PointSet& points) {
    if (points.dims < 3 || points.n == 0) return UpAxis::PlusY;
    float lo = 0.0f, hi = 0.0f;
    worldDepthRange(points, lo, hi);
    return upAxisForDepth(lo, hi);
}

QMatrix4x4 PointCloudView::model() const {
    // Rotations about x that carry the chosen data axis onto the screen's up (+y).
    QMatrix4x4 m;
    switch (m_upAxis) {
        case UpAxis::PlusY:
            break;
        case UpAxis::MinusY:
            m.rotate(180.0f, 1, 0, 0);
            break;
        case UpAxis::PlusZ:
            m.rotate(-90.0f, 1, 0, 0);
            break;
        case UpAxis::MinusZ:
            m.rotate(90.0f, 1, 0, 0);
            break;
    }
    if (m_sensorPose) {
        // The sensor's rotation about the view's centre; its translation only moves the
        // recentred cloud, which the view does not need (the sensor preset places the eye).
        const auto r = m_sensorPose->rotation();
        m *= QMatrix4x4(float(r[0]), float(r[1]), float(r[2]), 0, float(r[3]), float(r[4]),
                        float(r[5]), 0, float(r[6]), float(r[7]), float(r[8]), 0, 0, 0, 0, 1);
    }
    return m;
}

QString PointCloudView::viewPresetName(ViewPreset preset) {
    switch (preset) {
        case ViewPreset::Front:
            return QStringLiteral("front");
        case ViewPreset::Top:
            return QStringLiteral("top");
        case ViewPreset::Side:
            return QStringLiteral("side");
        case ViewPreset::Sensor:
            return QStringLiteral("sensor");
        case ViewPreset::Fit:
            return QStringLiteral("fit");
    }
    return {};
}

QStringList PointCloudView::viewPresetNames() {
    QStringList names;
    for (ViewPreset p : {ViewPreset::Front, ViewPreset::Top, ViewPreset::Side, ViewPreset::Sensor,
                         ViewPreset::Fit})
        names << viewPresetName(p);
    return names;
}

std::optional<PointCloudView::ViewPreset> PointCloudView::viewPresetFromName(const QString& name) {
    for (ViewPreset p : {ViewPreset::Front, ViewPreset::Top, ViewPreset::Side, ViewPreset::Sensor,
                         ViewPreset::Fit})
        if (name.compare(viewPresetName(p), Qt::CaseInsensitive) == 0) return p;
    return std::nullopt;
}

void PointCloudView::setViewPreset(ViewPreset preset) {
    QVector3D lo, hi;
    worldBox(lo, hi);
    switch (preset) {
        case ViewPreset::Front:
            m_camera.setAngles(0.0f, 0.0f);
            break;
        case ViewPreset::Side:
            m_camera.setAngles(90.0f, 0.0f);
            break;
        case ViewPreset::Top:
            m_camera.setAngles(0.0f, OrbitCamera::kMaxPitch);
            break;
        case ViewPreset::Fit:
            break;
        case ViewPreset::Sensor: {
            // The sensor sits at the file's origin, looks along its +z, with -y up (PCL's
            // camera frame), all carried into the frame shown by model().
            const QMatrix4x4 m = model();
            const QVector3D eye =
                m.map(QVector3D(float(-m_centre[0] * m_scale), float(-m_centre[1] * m_scale),
                                float(-m_centre[2] * m_scale)));
            const QVector3D forward = m.mapVector(QVector3D(0, 0, 1)).normalized();
            m_camera.fitBox(lo, hi, aspect());  // the scene sphere: clip planes and zoom bounds
            // The orbit camera has no roll: it takes the sensor's direction, and the up of the
            // frame shown (the sensor's own up whenever the up axis suits the cloud).
            const float pitch = qRadiansToDegrees(std::asin(std::clamp(-forward.y(), -1.0f, 1.0f)));
            const float yaw = qRadiansToDegrees(std::atan2(-forward.x(), -forward.z()));
            // The target on the line of sight, as deep as the data's centre.
            const float depth = QVector3D::dotProduct((lo + hi) / 2 - eye, forward);
            const float distance = std::max(depth, 0.05f * (hi - lo).length());
            m_camera.setAngles(yaw, pitch);
            m_camera.setDistance(distance);
            m_camera.setTarget(eye + forward * m_camera.distance());
            update();
            return;
        }
    }
    m_camera.fitBox(lo, hi, aspect());
    update();
}

QMatrix4x4 PointCloudView::modelViewProjection() const {
    return m_camera.projection(aspect()) * m_camera.view() * model();
}

void PointCloudView::worldBox(QVector3D& lo, QVector3D& hi) const {
    const QMatrix4x4 m = model();
    lo = hi = m.map(m_lo);
    for (int corner = 1; corner < 8; ++corner) {
        const QVector3D p =
            m.map(QVector3D(corner & 1 ? m_hi.x() : m_lo.x(), corner & 2 ? m_hi.y() : m_lo.y(),
                            corner & 4 ? m_hi.z() : m_lo.z()));
        for (int k = 0; k < 3; ++k) {
            lo[k] = std::min(lo[k], p[k]);
            hi[k] = std::max(hi[k], p[k]);
        }
    }
}

void PointCloudView::cameraMoved() {
    m_lodSettle.start();
    update();
}

void PointCloudView::setLevelOfDetail(std::size_t budget, int settleMs) {
    m_lodBudget = budget;
    m_lodBudgetSet = true;
    m_lodSettle.setInterval(std::max(settleMs, 0));
    update();
}

bool PointCloudView::isSoftwareRenderer() const {
    const QString& r = m_glInfo.renderer;
    return r.contains(QLatin1String("llvmpipe"), Qt::CaseInsensitive) ||
           r.contains(QLatin1String("softpipe"), Qt::CaseInsensitive) ||
           r.contains(QLatin1String("SwiftShader"), Qt::CaseInsensitive);
}

void PointCloudView::orbit(float dYawDegrees, float dPitchDegrees) {
    m_camera.orbit(dYawDegrees, dPitchDegrees);
    cameraMoved();
}

void PointCloudView::pan(float dx, float dy) {
    m_camera.pan(dx, dy, float(std::max(height(), 1)));
    cameraMoved();
}

void PointCloudView::zoom(float factor, QPointF pixel) {
    const QPointF ndc(2.0 * pixel.x() / std::max(width(), 1) - 1.0,
                      1.0 - 2.0 * pixel.y() / std::max(height(), 1));
    m_camera.zoom(factor, ndc, aspect());
    cameraMoved();
}

QPointF PointCloudView::project(const QVector3D& world) const {
    const QVector3D view(float((double(world.x()) - m_centre[0]) * m_scale),
                         float((double(world.y()) - m_centre[1]) * m_scale),
                         float((double(world.z()) - m_centre[2]) * m_scale));
    const QVector3D ndc = modelViewProjection().map(view);
    return {(ndc.x() + 1.0) * 0.5 * width(), (1.0 - ndc.y()) * 0.5 * height()};
}

int PointCloudView::pickRadius() const {
    // A sprite is hit anywhere on it; small sprites get a margin a hand can aim at.
    return int(std::ceil(m_pointSize / 2.0f)) + 4;
}

std::optional<std::size_t> PointCloudView::pickPoint(QPointF pixel) {
    QElapsedTimer clock;
    clock.start();
    if (!m_glReady || !m_pickProgram || !context() || pointCount() == 0) return std::nullopt;
    makeCurrent();
    upload();
    if (m_uploadedCount == 0) {
        doneCurrent();
        return std::nullopt;
    }
    const qreal dpr = devicePixelRatioF();
    const int radius = int(std::ceil(pickRadius() * dpr));
    const int side = 2 * radius + 1;
    if (!m_pickTarget || m_pickTarget->width() != side) {
        m_pickTarget =
            std::make_unique<QOpenGLFramebufferObject>(side, side, QOpenGLFramebufferObject::Depth);
    }
    // A pick matrix: the side x side pixels around the cursor fill the small target, at the
    // screen's own pixel scale, so sprites keep their size and only those pixels are shaded.
    const double width = std::max(1.0, double(this->width()) * dpr);
    const double height = std::max(1.0, double(this->height()) * dpr);
    const double px = std::floor(pixel.x() * dpr) + 0.5, py = std::floor(pixel.y() * dpr) + 0.5;
    const double cx = 2.0 * px / width - 1.0, cy = 1.0 - 2.0 * py / height;
    const double sx = width / side, sy = height / side;
    const QMatrix4x4 pick(float(sx), 0, 0, float(-sx * cx), 0, float(sy), 0, float(-sy * cy), 0, 0,
                          1, 0, 0, 0, 0, 1);

    // Point ids per pixel, as the GL pass encodes them: 0 none, else the index + 1.
    std::vector<std::uint32_t> ids =
        splatsWanted() ? pickBySplat(pick, side) : std::vector<std::uint32_t>{};
    m_pickSplatted = !ids.empty();
    if (ids.empty()) ids = pickByGl(pick, side);
    doneCurrent();

    // The drawn pixel nearest to the cursor wins (the centre pixel when a point covers it).
    std::optional<std::size_t> best;
    int bestDist2 = std::numeric_limits<int>::max();
    for (int y = 0; y < side; ++y)
        for (int x = 0; x < side; ++x) {
            const std::uint32_t id = ids[std::size_t(y) * side + x];
            const int dist2 = (x - radius) * (x - radius) + (y - radius) * (y - radius);
            if (id == 0 || id > m_uploadedCount || dist2 > radius * radius || dist2 >= bestDist2)
                continue;
            bestDist2 = dist2;
            best = id - 1;
        }
    m_pickMs = double(clock.nsecsElapsed()) / 1e6;
    return best;
}

std::vector<std::uint32_t> PointCloudView::pickBySplat(const QMatrix4x4& pick, int side) {
    const PointSplatView view = splatView(pick * modelViewProjection(), std::uint32_t(side),
                                          std::uint32_t(side), backgroundColour());
    const PointSplatPass::Points points = splatInputs();
    std::vector<SplatPixel> keys;
    if (!m_interop.run(
            points.linkedBuffers(),
            [&](GlInterop& gl) { keys = gl.splatKeys(points.links(), view); },
            tr("picking a point"), tr("picking with GL"))) {
        m_splatFailed = true;  // GL draws and picks from now on, for these points
        return {};
    }
    std::vector<std::uint32_t> ids(keys.size(), 0);
    for (std::size_t i = 0; i < keys.size(); ++i)
        if (keys[i] != kEmptySplatPixel) ids[i] = splatKeyIndex(keys[i]) + 1;
    return ids;
}

std::vector<std::uint32_t> PointCloudView::pickByGl(const QMatrix4x4& pick, int side) {
    const qreal dpr = devicePixelRatioF();
    m_pickTarget->bind();
    glViewport(0, 0, side, side);
    glClearColor(0, 0, 0, 0);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LEQUAL);
    glDepthMask(GL_TRUE);
    glDisable(GL_BLEND);
    if (!context()->isOpenGLES()) {
        glEnable(kProgramPointSize);
        if (context()->format().profile() != QSurfaceFormat::CoreProfile) glEnable(kPointSprite);
    }
    m_pickProgram->bind();
    m_pickProgram->setUniformValue("u_mvp", pick * modelViewProjection());
    m_pickProgram->setUniformValue("u_pointSize", float(m_pointSize * dpr));
    {
        QOpenGLVertexArrayObject::Binder vaoBinder(&m_vao);
        bindMask(m_uploadedCount);
        glDrawArrays(GL_POINTS, 0, GLsizei(m_uploadedCount));
    }
    m_pickProgram->release();
    glDisable(GL_DEPTH_TEST);
    std::vector<std::uint8_t> rgba(std::size_t(side) * side * 4);
    glReadPixels(0, 0, side, side, GL_RGBA, GL_UNSIGNED_BYTE, rgba.data());
    glBindFramebuffer(GL_FRAMEBUFFER, defaultFramebufferObject());
    std::vector<std::uint32_t> ids(std::size_t(side) * side);
    for (std::size_t i = 0; i < ids.size(); ++i) {
        const std::uint8_t* c = &rgba[i * 4];
        ids[i] = std::uint32_t(c[0]) | std::uint32_t(c[1]) << 8 | std::uint32_t(c[2]) << 16 |
                 std::uint32_t(c[3]) << 24;
    }
    return ids;
}

std::size_t PointCloudView::drawLevelOfDetail() {
    // Called with the VAO bound.
    const std::size_t n = m_uploadedCount;
    if (m_lodBudget == 0 || n <= m_lodBudget || !m_lodSettle.isActive() || !m_lodBuffer.isCreated())
        return 0;
    if (m_lodOrder.size() != m_lodBudget) {
        // A partial Fisher-Yates shuffle, once per set of points (not per frame): its first
        // budget entries are a uniform sample without replacement, and a smaller budget's
        // sample is a prefix of a larger one's.
        std::vector<std::uint32_t> order(n);
        std::iota(order.begin(), order.end(), 0u);
        std::mt19937_64 rng(kLodSeed);
        for (std::size_t i = 0; i < m_lodBudget; ++i)
            std::swap(order[i], order[std::uniform_int_distribution<std::size_t>(i, n - 1)(rng)]);
        order.resize(m_lodBudget);
        order.shrink_to_fit();
        m_lodOrder = std::move(order);
        m_lodUploaded = 0;
    }
    // The VAO's element binding belongs to the edges: borrowed for this draw, then given back.
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, m_lodBuffer.bufferId());
    if (m_lodUploaded != m_lodOrder.size()) {
        glBufferData(GL_ELEMENT_ARRAY_BUFFER, GLsizeiptr(m_lodOrder.size() * sizeof(std::uint32_t)),
                     m_lodOrder.data(), GL_STATIC_DRAW);
        m_lodUploaded = m_lodOrder.size();
    }
    glDrawElements(GL_POINTS, GLsizei(m_lodUploaded), GL_UNSIGNED_INT, nullptr);
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, m_edgeBuffer.bufferId());
    return m_lodUploaded;
}

float PointCloudView::rimShading() const {
    // Rim shading helps big sprites and only muddies points a few pixels wide.
    return 0.3f * std::clamp((m_pointSize - 2.0f) / 6.0f, 0.0f, 1.0f);
}

void PointCloudView::setPointRenderer(PointRenderer renderer) {
    if (renderer == m_renderer) return;
    m_renderer = renderer;
    m_splatFailed = m_edgeSplatFailed = false;
    update();
}

QString PointCloudView::rendererName(PointRenderer renderer) {
    switch (renderer) {
        case PointRenderer::GlPoints:
            return QStringLiteral("gl");
        case PointRenderer::Splats:
            return QStringLiteral("splat");
        case PointRenderer::Automatic:
            break;
    }
    return QStringLiteral("automatic");
}

std::optional<PointCloudView::PointRenderer> PointCloudView::rendererFromName(const QString& name) {
    for (PointRenderer r :
         {PointRenderer::Automatic, PointRenderer::GlPoints, PointRenderer::Splats})
        if (name == rendererName(r)) return r;
    return std::nullopt;
}

bool PointCloudView::splatsWanted() const {
    if (m_renderer == PointRenderer::GlPoints || m_splatFailed || !m_splat.isInitialized() ||
        !m_interop.usable() || context()->isOpenGLES())
        return false;
    const std::size_t n = m_uploadedCount;
    if (n == 0 || n > kMaxSplatPoints || m_pointSize * devicePixelRatioF() > kMaxSplatDiameter)
        return false;
    return m_renderer == PointRenderer::Splats || n >= kSplatFrom;
}

PointSplatView PointCloudView::splatView(const QMatrix4x4& mvp, std::uint32_t width,
                                         std::uint32_t height, const QColor& background) const {
    PointSplatView view;
    std::copy_n(mvp.constData(), 16, view.mvp);
    view.width = width;
    view.height = height;
    view.diameter = float(m_pointSize * devicePixelRatioF());
    view.shading = rimShading();
    view.background[0] = float(background.redF());
    view.background[1] = float(background.greenF());
    view.background[2] = float(background.blueF());
    return view;
}

PointSplatPass::Points PointCloudView::splatInputs() {
    const std::size_t n = m_uploadedCount;
    const bool masked = m_maskCount == n;
    return {{&m_positionLink, m_positions.bufferId(), m_positionBytes},
            {&m_colourLink, m_colourBuffer.bufferId(), m_colourBytes},
            {masked ? &m_maskLink : nullptr, m_maskBuffer.bufferId(), m_maskCount},
            n};
}

bool PointCloudView::drawSplats(const QColor& background) {
    // The viewport QOpenGLWidget set: the framebuffer's size in pixels.
    GLint viewport[4] = {0, 0, 0, 0};
    glGetIntegerv(GL_VIEWPORT, viewport);
    const PointSplatView view =
        splatView(modelViewProjection(), std::uint32_t(std::max(viewport[2], 0)),
                  std::uint32_t(std::max(viewport[3], 0)), background);
    if (m_splat.draw(m_interop, splatInputs(), view)) {
        m_lastSplatView = view;
        return true;
    }
    m_splatFailed = true;
    return false;
}

void PointCloudView::setFrameRenderer(bool splatted) {
    m_lastFrameSplatted = splatted;
    if (m_loggedSplatted == splatted) return;
    m_loggedSplatted = splatted;
    if (splatted)
        logInfo(tr("Points: splatted by CUDA into the framebuffer, every point in every frame "
                   "(%1)")
                    .arg(m_interop.description()));
    else
        logInfo(tr("Points: drawn by GL as point sprites"));
}

void PointCloudView::bindMask(std::size_t n) {
    // Called with the VAO bound. Without a mask (or one of other points) every point reads the
    // constant 0: shown.
    if (m_maskCount == n && n > 0) {
        glEnableVertexAttribArray(2);
    } else {
        glDisableVertexAttribArray(2);
        glVertexAttrib1f(2, 0.0f);
    }
}

bool PointCloudView::setPointMask(std::vector<std::uint8_t> mask) {
    if (!mask.empty() && mask.size() != pointCount()) {
        logWarning(tr("point view: a mask of %1 values given for %2 points; mask unchanged")
                       .arg(mask.size())
                       .arg(pointCount()));
        return false;
    }
    m_mask = std::move(mask);
    m_maskDirty = true;
    contentChanged();
    return true;
}

void PointCloudView::setMarkedPoints(std::vector<std::uint32_t> indices) {
    std::erase_if(indices, [n = pointCount()](std::uint32_t i) { return i >= n; });
    m_marked = std::move(indices);
    contentChanged();
}

void PointCloudView::setHighlightedCategories(std::vector<std::int32_t> categories) {
    if (categories == m_legendMarks) return;
    m_legendMarks = std::move(categories);
    update();
}

void PointCloudView::drawMarkers() {
    if (!m_markerProgram || m_marked.empty() || m_positionCount != pointCount()) return;
    const QColor focus = palette().color(QPalette::Highlight);
    const QColor neighbour = palette().color(QPalette::Text);
    m_markerProgram->bind();
    m_markerProgram->setUniformValue("u_mvp", modelViewProjection());
    QOpenGLVertexArrayObject::Binder vaoBinder(&m_vao);
    const float dpr = float(devicePixelRatioF());
    const float base = std::max(m_pointSize, 4.0f) * dpr;
    // Neighbours first, so that the inspected point's ring stays on top.
    for (std::size_t i = m_marked.size(); i-- > 0;) {
        const bool first = i == 0;
        const QColor c = first ? focus : neighbour;
        m_markerProgram->setUniformValue("u_colour", QVector3D(c.redF(), c.greenF(), c.blueF()));
        m_markerProgram->setUniformValue("u_pointSize",
                                         first ? base + 14.0f * dpr : base + 6.0f * dpr);
        m_markerProgram->setUniformValue("u_inner", first ? 0.55f : 0.6f);
        glDrawArrays(GL_POINTS, GLint(m_marked[i]), 1);
    }
    m_markerProgram->release();
}

int PointCloudView::legendEntryAt(QPoint pos) const {
    // Where paintOverlay draws it, in the font it draws with.
    const QRect area = rect().adjusted(12, 12, -12, -12);
    return pointCount() == 0 ? -1 : m_legend.entryAt(glOverlayFont(font()), area.topRight(), pos);
}

PointCloudView::BoxProjection PointCloudView::boxProjection(const QRectF& box) const {
    const double w = std::max(width(), 1), h = std::max(height(), 1);
    BoxProjection p;
    p.centre = m_centre;
    p.scale = m_scale;
    p.mvp = modelViewProjection();
    // Widget y grows downward, NDC y upward.
    p.ndc = QRectF(QPointF(2.0 * box.left() / w - 1.0, 1.0 - 2.0 * box.bottom() / h),
                   QPointF(2.0 * box.right() / w - 1.0, 1.0 - 2.0 * box.top() / h));
    return p;
}

PointCloudView::BoxProjection PointCloudView::lassoProjection(const QPolygonF& lasso) const {
    BoxProjection p = boxProjection(lasso.boundingRect());
    const double w = std::max(width(), 1), h = std::max(height(), 1);
    for (const QPointF& q : lasso)
        p.lasso << QPointF(2.0 * q.x() / w - 1.0, 1.0 - 2.0 * q.y() / h);
    return p;
}

std::vector<std::uint32_t> PointCloudView::pointsInBox(const PointSet& points,
                                                       const BoxProjection& box) {
    std::vector<std::uint32_t> out;
    const std::size_t d = points.dims, used = std::min<std::size_t>(d, 3);
    for (std::size_t i = 0; i < points.n; ++i) {
        float v[3] = {0, 0, 0};
        for (std::size_t j = 0; j < used; ++j)
            v[j] = float((double(points.coords[i * d + j]) - box.centre[j]) * box.scale);
        const QVector4D clip = box.mvp.map(QVector4D(v[0], v[1], v[2], 1.0f));
        if (clip.w() <= 0.0f) continue;  // behind the camera
        const QPointF ndc(clip.x() / clip.w(), clip.y() / clip.w());
        if (box.ndc.contains(ndc) &&
            (box.lasso.isEmpty() || box.lasso.containsPoint(ndc, Qt::OddEvenFill)))
            out.push_back(std::uint32_t(i));
    }
    return out;
}

void PointCloudView::setPointSize(float pixels) {
    const float size = std::clamp(pixels, kMinPointSize, kMaxPointSize);
    if (size == m_pointSize) return;
    m_pointSize = size;
    update();
    emit pointSizeChanged(m_pointSize);
}

void PointCloudView::increasePointSize() {
    setPointSize(m_pointSize * kPointSizeStep);
}

void PointCloudView::decreasePointSize() {
    setPointSize(m_pointSize / kPointSizeStep);
}

float PointCloudView::aspect() const {
    return float(std::max(width(), 1)) / float(std::max(height(), 1));
}

void PointCloudView::contentChanged() {
    ++m_contentGeneration;
    // Painted once the caller's handler returns, for all its changes at once, and at once: not
    // by update(), whose request is posted at low priority and waits behind every other event of
    // the window, the panels' relayouts after a result among them (2 to 12 ms on the H200
    // machine at 1M points), and not by repaint(), which Qt turns into that same request when
    // the window presented a frame within the last refresh interval, as it always has in a live
    // drag. The relayouts follow the frame; one that moves a widget presents a second.
    if (m_paintPosted) return;
    m_paintPosted = true;
    QMetaObject::invokeMethod(
        this,
        [this] {
            m_paintPosted = false;
            if (isContentDrawn()) return;
            update();
            if (!isVisible() || !m_glReady) return;  // painted when it can be
            QEvent request(QEvent::UpdateRequest);
            QCoreApplication::sendEvent(window(), &request);
        },
        Qt::QueuedConnection);
}

void PointCloudView::initializeGL() {
    initializeOpenGLFunctions();
    // The context can go away without this widget (reparenting, a new top level): free the GL
    // objects while it is still current.
    connect(context(), &QOpenGLContext::aboutToBeDestroyed, this, &PointCloudView::releaseGl,
            Qt::UniqueConnection);

    const bool first = m_glInfo.renderer.isEmpty();
    m_glInfo = {glString(this, GL_VENDOR), glString(this, GL_RENDERER), glString(this, GL_VERSION),
                glString(this, GL_SHADING_LANGUAGE_VERSION)};
    if (first) {
        logInfo(QStringLiteral("GL_VENDOR: %1").arg(m_glInfo.vendor));
        logInfo(QStringLiteral("GL_RENDERER: %1").arg(m_glInfo.renderer));
        logInfo(QStringLiteral("GL_VERSION: %1").arg(m_glInfo.version));
    }

    // A software renderer draws every point on the CPU: moving, it draws a smaller sample.
    if (!m_lodBudgetSet) m_lodBudget = isSoftwareRenderer() ? kSoftwareLodBudget : kLodBudget;
    m_glError.clear();
    m_glReady = buildProgram();
    if (m_glReady) {
        // Without the splat pass every point is drawn by GL.
        QString splatError;
        if (!m_splat.initialize(context()->isOpenGLES(), &splatError))
            logWarning(tr("point view: %1; points are drawn by GL only").arg(splatError));
        else if (!m_edgeSplat.initialize(context()->isOpenGLES(), &splatError))
            logWarning(tr("point view: %1; edges are drawn by GL only").arg(splatError));
        m_vao.create();
        m_positions.create();
        m_colourBuffer.create();
        m_edgeBuffer.create();
        m_maskBuffer.create();
        m_lodBuffer.create();
        glGenTextures(1, &m_edgeMapTexture);
        m_edgeMapDirty = true;
        if (!context()->isOpenGLES()) glGenQueries(1, &m_edgeQuery);
    }
    m_pickTarget.reset();
    m_lodUploaded = 0;
    m_maskCount = 0;
    m_maskDirty = true;
    m_uploadedCount = 0;
    m_colourBytes = 0;
    m_colourCount = 0;
    m_positionBytes = 0;
    m_positionCount = 0;
    m_edgeBytes = 0;
    m_edgeIndexCount = 0;
    m_positionsDirty = m_coloursDirty = m_edgesDirty = true;
    emit glInitialized();
}

bool PointCloudView::buildProgram() {
    const bool gles = context()->isOpenGLES();
    const auto format = context()->format();
    if (!gles && format.version() < qMakePair(3, 3)) {
        m_glError = tr("OpenGL 3.3 is needed; this context offers %1.%2 (%3)")
                        .arg(format.majorVersion())
                        .arg(format.minorVersion())
                        .arg(m_glInfo.renderer);
        logError(tr("point view: %1").arg(m_glError));
        return false;
    }
    m_program = buildShaders(QStringLiteral("points"), tr("point"));
    if (!m_program) {
        logError(tr("point view: %1").arg(m_glError));
        return false;
    }
    // Without the edge shaders the points still draw; only the kNN edges are missing.
    const QString pointError = m_glError;
    m_edgeProgram = buildShaders(QStringLiteral("edges"), tr("edge"));
    if (!m_edgeProgram) {
        logWarning(tr("point view: %1; kNN edges are not drawn").arg(m_glError));
        m_glError = pointError;
    }
    // Length colouring and filtering need a geometry shader (desktop GL 3.3); without one the
    // edges keep their points' colours.
    m_edgeLengthProgram.reset();
    if (!context()->isOpenGLES()) {
        const QByteArray vert = glslSource(QStringLiteral(":/shaders/edges_length.vert"), false);
        const QByteArray geom = glslSource(QStringLiteral(":/shaders/edges_length.geom"), false);
        const QByteArray frag = glslSource(QStringLiteral(":/shaders/edges_length.frag"), false);
        auto program = std::make_unique<QOpenGLShaderProgram>();
        if (!vert.isEmpty() && !geom.isEmpty() && !frag.isEmpty() &&
            program->addShaderFromSourceCode(QOpenGLShader::Vertex, vert) &&
            program->addShaderFromSourceCode(QOpenGLShader::Geometry, geom) &&
            program->addShaderFromSourceCode(QOpenGLShader::Fragment, frag) && program->link())
            m_edgeLengthProgram = std::move(program);
        else
            logWarning(tr("point view: the edge length shaders did not build (%1); edges are "
                          "drawn in their points' colours, unfiltered")
                           .arg(program->log().trimmed()));
    }
    // Picking and markers are extras too: without them the view still draws.
    m_pickProgram = buildShaders(QStringLiteral("pick"), tr("pick"));
    if (!m_pickProgram) logWarning(tr("point view: %1; points cannot be picked").arg(m_glError));
    m_markerProgram = buildShaders(QStringLiteral("marker"), tr("marker"));
    if (!m_markerProgram)
        logWarning(tr("point view: %1; inspected points are not marked").arg(m_glError));
    m_glError = pointError;
    return true;
}

std::unique_ptr<QOpenGLShaderProgram> PointCloudView::buildShaders(const QString& name,
                                                                   const QString& what) {
    const bool gles = context()->isOpenGLES();
    const QByteArray vert = glslSource(QStringLiteral(":/shaders/%1.vert").arg(name), gles);
    const QByteArray frag = glslSource(QStringLiteral(":/shaders/%1.frag").arg(name), gles);
    auto program = std::make_unique<QOpenGLShaderProgram>();
    if (vert.isEmpty() || frag.isEmpty() ||
        !program->addShaderFromSourceCode(QOpenGLShader::Vertex, vert) ||
        !program->addShaderFromSourceCode(QOpenGLShader::Fragment, frag) || !program->link()) {
        m_glError =
            vert.isEmpty() || frag.isEmpty()
                ? tr("the %1 shaders are missing from the resources").arg(what)
                : tr("the %1 shaders did not build: %2").arg(what, program->log().trimmed());
        return nullptr;
    }
    return program;
}

void PointCloudView::releaseGl() {
    if (!m_vao.isCreated() && !m_positions.isCreated() && !m_program) return;
    const bool current = context() && context()->isValid();
    if (current) makeCurrent();
    // Unregistered while the context is current and the buffers still exist.
    m_colourLink.reset();
    m_positionLink.reset();
    m_edgeLink.reset();
    m_maskLink.reset();
    m_splat.release(current);
    m_edgeSplat.release(current);
    m_vao.destroy();
    m_positions.destroy();
    m_colourBuffer.destroy();
    m_edgeBuffer.destroy();
    m_maskBuffer.destroy();
    m_lodBuffer.destroy();
    m_lodUploaded = 0;
    if (m_edgeMapTexture && current) glDeleteTextures(1, &m_edgeMapTexture);
    if (m_edgeQuery && current) glDeleteQueries(1, &m_edgeQuery);
    m_edgeMapTexture = m_edgeQuery = 0;
    m_pickTarget.reset();
    m_program.reset();
    m_edgeProgram.reset();
    m_edgeLengthProgram.reset();
    m_pickProgram.reset();
    m_markerProgram.reset();
    m_maskCount = 0;
    m_edgeBytes = 0;
    m_edgeIndexCount = 0;
    m_uploadedCount = 0;
    m_colourBytes = 0;
    m_colourCount = 0;
    m_positionBytes = 0;
    m_positionCount = 0;
    m_glReady = false;
    if (current) doneCurrent();
}

void PointCloudView::upload() {
    if (!m_positionsDirty && !m_coloursDirty && !m_edgesDirty && !m_maskDirty) return;
    const std::size_t n = pointCount();
    while (glGetError() != GL_NO_ERROR) {
    }
    QOpenGLVertexArrayObject::Binder vaoBinder(&m_vao);

    if (m_positionsDirty && !(m_awaitDevicePositions && !m_devicePositions)) {
        m_positionsDirty = false;
        if (!(m_devicePositions && writePositionsOnDevice(n))) uploadPositionsFromHost(n);
    }
    if (m_coloursDirty) {
        m_coloursDirty = false;
        if (m_categoryColours && paintColoursOnDevice(n)) {
            m_colourCount = n;
        } else {
            if (m_categoryColours && m_colours.size() != n) {
                // Interop is off or failed: the same rule on the host.
                const PointCategories& c = m_categoryColours->categories;
                m_colours = paintCategories(c.labels, c.primary, m_categoryColours->paint);
            }
            allocateColourBuffer(m_colours.size() * sizeof(std::uint32_t), m_colours.data());
            m_colourCount = m_colours.size();
            if (n > 0)
                setColourPath(UploadPath::HostUpload,
                              m_categoryColours && !m_categoryColours->categories.device
                                  ? tr("the categories were computed on the CPU")
                                  : QString());
        }
    }
    if (m_maskDirty) {
        m_maskDirty = false;
        // A binder of its own: the nested uploads above release the VAO when they return.
        QOpenGLVertexArrayObject::Binder maskBinder(&m_vao);
        m_maskBuffer.bind();
        m_maskLink.reset();  // new storage below
        glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(m_mask.size()), m_mask.data(), GL_DYNAMIC_DRAW);
        glVertexAttribPointer(2, 1, GL_UNSIGNED_BYTE, GL_FALSE, 0, nullptr);
        m_maskCount = m_mask.size();
    }
    const GLenum error = glGetError();
    m_uploadedCount = error == GL_NO_ERROR && m_positionCount == n && m_colourCount == n ? n : 0;
    if (error != GL_NO_ERROR) {
        m_glError =
            error == GL_OUT_OF_MEMORY
                ? tr("not enough GPU memory for %1 points").arg(QLocale().toString(qulonglong(n)))
                : tr("uploading the points failed (GL error 0x%1)").arg(error, 0, 16);
        logError(tr("point view: %1").arg(m_glError));
    }
    if (m_edgesDirty) {
        // After the points' error check: a graph too big for the GPU costs only the edges.
        m_edgesDirty = false;
        uploadEdges();
        const GLenum edgeError = glGetError();
        if (edgeError != GL_NO_ERROR) {
            const std::size_t edges = m_edgeIndexCount / 2;
            m_edgeIndexCount = 0;
            logError(tr("point view: %1; the edges are not drawn")
                         .arg(edgeError == GL_OUT_OF_MEMORY
                                  ? tr("not enough GPU memory for %1 edges")
                                        .arg(QLocale().toString(qulonglong(edges)))
                                  : tr("uploading the edges failed (GL error 0x%1)")
                                        .arg(edgeError, 0, 16)));
        }
    }
}

void PointCloudView::uploadEdges() {
    const std::size_t indices = m_edges ? 2 * m_edges.edgeCount() : 0;
    m_edgeIndexCount = 0;
    if (indices == 0) {
        m_edgeHostIndices.reset();
        if (m_edgeBytes > 0) allocateEdgeBuffer(0, nullptr);  // give the GPU memory back
        m_edgePath = UploadPath::None;
        return;
    }
    if (m_edges.device && writeEdgesOnDevice(indices)) {
        m_edgeHostIndices.reset();
        m_edgeIndexCount = indices;
        return;
    }
    // Built once per set of edges (on the worker when the caller did; here after an interop
    // failure or a new context), uploaded once, then dropped: GL keeps the only copy.
    std::shared_ptr<const std::vector<std::uint32_t>> host = std::move(m_edgeHostIndices);
    if (!host || host->size() != indices)
        host = std::make_shared<const std::vector<std::uint32_t>>(edgeIndexPairs(m_edges));
    if (host->size() != indices) return;
    allocateEdgeBuffer(indices * sizeof(std::uint32_t), host->data());
    m_edgeIndexCount = indices;
    setEdgePath(UploadPath::HostUpload,
                m_edges.device ? QString() : tr("the edges were computed on the CPU"));
}

bool PointCloudView::writeEdgesOnDevice(std::size_t indices) {
    if (!m_interop.ready()) return false;
    const std::size_t bytes = indices * sizeof(std::uint32_t);
    allocateEdgeBuffer(bytes, nullptr);
    const DeviceResident& edges = *m_edges.device;
    if (!m_interop.write(
            m_edgeLink, m_edgeBuffer.bufferId(), bytes,
            [&](GlBufferLink& link) { link.writeEdgeIndices(edges); }, tr("the edges")))
        return false;
    setEdgePath(UploadPath::Interop, m_interop.description());
    return true;
}

void PointCloudView::allocateEdgeBuffer(std::size_t bytes, const void* data) {
    // The element buffer binding belongs to the VAO: bound inside it, it stays with it.
    QOpenGLVertexArrayObject::Binder vaoBinder(&m_vao);
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, m_edgeBuffer.bufferId());
    if (bytes == m_edgeBytes && bytes > 0) {
        if (data) glBufferSubData(GL_ELEMENT_ARRAY_BUFFER, 0, GLsizeiptr(bytes), data);
    } else {
        // New storage invalidates a registration of the old one.
        m_edgeLink.reset();
        glBufferData(GL_ELEMENT_ARRAY_BUFFER, GLsizeiptr(bytes), data, GL_STATIC_DRAW);
        m_edgeBytes = bytes;
    }
}

void PointCloudView::setEdgePath(UploadPath path, const QString& why) {
    if (path == m_edgePath) return;
    m_edgePath = path;
    if (path == UploadPath::Interop)
        logInfo(tr("Edges: written on the GPU into the GL element buffer (%1)").arg(why));
    else if (path == UploadPath::HostUpload)
        logInfo(why.isEmpty() ? tr("Edges: uploaded from host memory")
                              : tr("Edges: uploaded from host memory (%1)").arg(why));
}

std::vector<std::uint32_t> PointCloudView::readEdgeBuffer() {
    std::vector<std::uint32_t> out;
    readBuffer(
        m_edgeBuffer, [this] { return m_edgeIndexCount * sizeof(std::uint32_t); }, out);
    return out;
}

void PointCloudView::uploadEdgeMap() {
    if (!m_edgeMapDirty || !m_edgeMapTexture) return;
    m_edgeMapDirty = false;
    const auto& table = ColourMaps::table(m_edgeMap);
    glBindTexture(GL_TEXTURE_2D, m_edgeMapTexture);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, GLsizei(table.size()), 1, 0, GL_RGBA, GL_UNSIGNED_BYTE,
                 table.data());
    // Nearest: the shader addresses texel centres, and stepped maps keep their bands.
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    glBindTexture(GL_TEXTURE_2D, 0);
}

bool PointCloudView::drawEdgeSplats() {
    m_lastFrameEdgesSplatted = false;
    if (m_edgeSplatFailed || !m_edgeSplat.isInitialized() || !splatsWanted()) return false;
    // The viewport QOpenGLWidget set: the framebuffer's size in pixels.
    GLint viewport[4] = {0, 0, 0, 0};
    glGetIntegerv(GL_VIEWPORT, viewport);
    EdgeSplatView view;
    std::copy_n(modelViewProjection().constData(), 16, view.mvp);
    view.width = std::uint32_t(std::max(viewport[2], 0));
    view.height = std::uint32_t(std::max(viewport[3], 0));
    view.scale = float(m_scale);
    view.filter[0] = floatOrMax(m_edgeFilter[0]);
    view.filter[1] = floatOrMax(m_edgeFilter[1]);
    view.colourRange[0] = float(m_edgeColourRange[0]);
    view.colourRange[1] = float(m_edgeColourRange[1]);
    view.byLength = m_edgeColouring == EdgeColouring::Length ? 1 : 0;
    view.opacity = m_edgeOpacity;
    const auto& map = ColourMaps::table(m_edgeMap);
    std::copy(map.begin(), map.end(), view.map);
    bool failed = false;
    const EdgeSplatOutcome outcome = m_edgeSplat.draw(
        m_interop,
        {splatInputs(), {&m_edgeLink, m_edgeBuffer.bufferId(), m_edgeBytes}, m_edgeIndexCount / 2},
        view, &failed);
    m_edgeSplatFailed = failed;
    m_lastFrameEdgesSplatted = outcome.drawn;
    if (outcome.drawn) m_lastEdgeSplatView = view;
    if (outcome.drawn && m_edgeCounting) m_drawnEdges = qint64(outcome.edges);
    if (m_loggedEdgeSplats != int(outcome.drawn)) {
        m_loggedEdgeSplats = int(outcome.drawn);
        logInfo(outcome.drawn ? tr("Edges: splatted by CUDA into the framebuffer (%1)")
                                    .arg(m_interop.description())
                              : tr("Edges: drawn by GL as lines"));
    }
    return outcome.drawn;
}

void PointCloudView::drawEdges() {
    m_lastFrameEdgesSplatted = false;
    if (!m_edgesVisible || !m_edgeProgram || m_edgeIndexCount == 0 || m_edgeOpacity <= 0.0f) return;
    // Translucent lines: blended, and writing no depth. Under the points, every point (drawn
    // next) sits on top of every edge; over them (drawn after, without the depth test), every
    // edge shows. The framebuffer keeps alpha 1 (the widget is opaque).
    glDepthMask(GL_FALSE);
    if (m_edgesOverPoints) glDisable(GL_DEPTH_TEST);
    glEnable(GL_BLEND);
    glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ZERO, GL_ONE);
    if (!drawEdgeSplats()) drawEdgeLines();
    glDisable(GL_BLEND);
    glDepthMask(GL_TRUE);
    if (m_edgesOverPoints) glEnable(GL_DEPTH_TEST);
}

void PointCloudView::drawEdgeLines() {
    QOpenGLShaderProgram* program =
        m_edgeLengthProgram ? m_edgeLengthProgram.get() : m_edgeProgram.get();
    program->bind();
    program->setUniformValue("u_mvp", modelViewProjection());
    program->setUniformValue("u_opacity", m_edgeOpacity);
    if (m_edgeLengthProgram) {
        uploadEdgeMap();
        glActiveTexture(GL_TEXTURE0);
        glBindTexture(GL_TEXTURE_2D, m_edgeMapTexture);
        program->setUniformValue("u_map", 0);
        program->setUniformValue("u_scale", float(m_scale));
        program->setUniformValue(
            "u_filter", QVector2D(floatOrMax(m_edgeFilter[0]), floatOrMax(m_edgeFilter[1])));
        program->setUniformValue(
            "u_colourRange", QVector2D(float(m_edgeColourRange[0]), float(m_edgeColourRange[1])));
        program->setUniformValue("u_byLength", m_edgeColouring == EdgeColouring::Length ? 1 : 0);
    }
    const bool counting = m_edgeCounting && m_edgeQuery && m_edgeLengthProgram;
    if (counting) glBeginQuery(kPrimitivesGenerated, m_edgeQuery);
    {
        QOpenGLVertexArrayObject::Binder vaoBinder(&m_vao);
        bindMask(m_uploadedCount);
        for (std::size_t first = 0; first < m_edgeIndexCount; first += kMaxIndicesPerDraw) {
            const std::size_t count = std::min(kMaxIndicesPerDraw, m_edgeIndexCount - first);
            glDrawElements(GL_LINES, GLsizei(count), GL_UNSIGNED_INT,
                           reinterpret_cast<const void*>(first * sizeof(std::uint32_t)));
        }
    }
    if (counting) {
        glEndQuery(kPrimitivesGenerated);
        GLuint drawn = 0;
        glGetQueryObjectuiv(m_edgeQuery, GL_QUERY_RESULT, &drawn);
        m_drawnEdges = qint64(drawn);
    }
    program->release();
    if (m_edgeLengthProgram) glBindTexture(GL_TEXTURE_2D, 0);
}

void PointCloudView::uploadPositionsFromHost(std::size_t n) {
    QOpenGLVertexArrayObject::Binder vaoBinder(&m_vao);
    m_positions.bind();
    m_positionLink.reset();  // new storage below
    // glBufferData rather than QOpenGLBuffer::allocate: its int size overflows at 2 GiB.
    const std::size_t bytes = n * 3 * sizeof(float);
    glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(bytes), nullptr, GL_STATIC_DRAW);
    m_positionBytes = bytes;
    if (n > 0) {
        // Recentred straight into the buffer: only the first three columns are drawn, missing
        // ones are 0.
        auto* out =
            static_cast<float*>(glMapBufferRange(GL_ARRAY_BUFFER, 0, GLsizeiptr(bytes),
                                                 GL_MAP_WRITE_BIT | GL_MAP_INVALIDATE_BUFFER_BIT));
        std::vector<float> staging;
        if (!out) {
            staging.resize(n * 3);
            out = staging.data();
        }
        const std::size_t dims = m_points->dims;
        const std::size_t used = std::min<std::size_t>(dims, 3);
        const float* in = m_points->coords.data();
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j < 3; ++j)
                out[i * 3 + j] =
                    j < used ? float((double(in[i * dims + j]) - m_centre[j]) * m_scale) : 0.0f;
        if (staging.empty())
            glUnmapBuffer(GL_ARRAY_BUFFER);
        else
            glBufferSubData(GL_ARRAY_BUFFER, 0, GLsizeiptr(bytes), staging.data());
    }
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 0, nullptr);
    m_positionCount = n;
    if (n > 0) setPositionPath(UploadPath::HostUpload);
}

bool PointCloudView::writePositionsOnDevice(std::size_t n) {
    if (n == 0 || !m_interop.ready()) return false;
    const std::size_t bytes = n * 3 * sizeof(float);
    QOpenGLVertexArrayObject::Binder vaoBinder(&m_vao);
    m_positions.bind();
    if (bytes != m_positionBytes) {
        m_positionLink.reset();  // new storage
        glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(bytes), nullptr, GL_STATIC_DRAW);
        m_positionBytes = bytes;
    }
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 0, nullptr);
    if (!m_interop.write(
            m_positionLink, m_positions.bufferId(), bytes,
            [&](GlBufferLink& link) { link.writePositions(*m_devicePositions, m_scale); },
            tr("the positions")))
        return false;
    m_positionCount = n;
    setPositionPath(UploadPath::Interop);
    return true;
}

void PointCloudView::setDevicePositions(std::shared_ptr<const DeviceResident> points) {
    const bool waiting = m_awaitDevicePositions;
    m_deviceWait.stop();
    m_awaitDevicePositions = false;
    m_devicePositions = std::move(points);
    // Positions already uploaded from the host stay, unless the device can write them.
    if (waiting || (m_devicePositions && mayPaintOnDevice())) {
        m_positionsDirty = true;
        contentChanged();
    }
}

void PointCloudView::expectDevicePositions(int timeoutMs) {
    if (!m_points || m_points->n == 0 || !mayPaintOnDevice()) return;
    m_awaitDevicePositions = true;
    m_deviceWait.start(timeoutMs);
}

void PointCloudView::setPositionPath(UploadPath path) {
    if (path == m_positionPath) return;
    m_positionPath = path;
    if (path == UploadPath::Interop)
        logInfo(tr("Point positions: written on the GPU from the compute copy (%1)")
                    .arg(m_interop.description()));
}

std::vector<float> PointCloudView::readPositionBuffer() {
    std::vector<float> out;
    readBuffer(
        m_positions, [this] { return m_positionCount * 3 * sizeof(float); }, out);
    return out;
}

void PointCloudView::allocateColourBuffer(std::size_t bytes, const void* data) {
    QOpenGLVertexArrayObject::Binder vaoBinder(&m_vao);
    m_colourBuffer.bind();
    if (bytes == m_colourBytes && bytes > 0) {
        if (data) glBufferSubData(GL_ARRAY_BUFFER, 0, GLsizeiptr(bytes), data);
    } else {
        // New storage invalidates a registration of the old one.
        m_colourLink.reset();
        glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(bytes), data, GL_DYNAMIC_DRAW);
        m_colourBytes = bytes;
    }
    glEnableVertexAttribArray(1);
    glVertexAttribPointer(1, 4, GL_UNSIGNED_BYTE, GL_TRUE, 0, nullptr);
}

bool PointCloudView::paintColoursOnDevice(std::size_t n) {
    const PointCategories& c = m_categoryColours->categories;
    if (!c.device || n == 0 || !m_interop.ready()) return false;
    allocateColourBuffer(n * sizeof(std::uint32_t), nullptr);
    if (!m_interop.write(
            m_colourLink, m_colourBuffer.bufferId(), m_colourBytes,
            [&](GlBufferLink& link) { link.paintCategories(*c.device, m_categoryColours->paint); },
            tr("the category colours")))
        return false;
    setColourPath(UploadPath::Interop, m_interop.description());
    return true;
}

void PointCloudView::setColourPath(UploadPath path, const QString& why) {
    if (path == m_colourPath) return;
    m_colourPath = path;
    if (path == UploadPath::Interop)
        logInfo(tr("Point colours: painted on the GPU into the GL buffer (%1)").arg(why));
    else if (path == UploadPath::HostUpload)
        logInfo(why.isEmpty() ? tr("Point colours: uploaded from host memory")
                              : tr("Point colours: uploaded from host memory (%1)").arg(why));
}

std::vector<SplatPixel> PointCloudView::readSplatImage() {
    std::vector<SplatPixel> out;
    if (!m_lastSplatView.width) return out;
    readBuffer(
        m_splat.imageBuffer(),
        [this] { return std::size_t(m_splat.width()) * m_splat.height() * sizeof(SplatPixel); },
        out);
    return out;
}

std::vector<std::uint32_t> PointCloudView::readEdgeSplatImage() {
    std::vector<std::uint32_t> out;
    if (!m_lastEdgeSplatView.width) return out;
    readBuffer(
        m_edgeSplat.imageBuffer(),
        [this] {
            return std::size_t(m_lastEdgeSplatView.width) * m_lastEdgeSplatView.height *
                   sizeof(std::uint32_t);
        },
        out);
    return out;
}

std::vector<std::uint32_t> PointCloudView::readColourBuffer() {
    std::vector<std::uint32_t> out;
    readBuffer(
        m_colourBuffer, [this] { return m_colourCount * sizeof(std::uint32_t); }, out);
    return out;
}

template <typename T>
void PointCloudView::readBuffer(const QOpenGLBuffer& buffer,
                                const std::function<std::size_t()>& bytesOf, std::vector<T>& out) {
    out.clear();
    if (!m_glReady || !context()) return;
    makeCurrent();
    upload();  // pending writes first: what the next frame would draw
    const std::size_t bytes = bytesOf();
    if (bytes > 0) {
        // The copy-read target fits every kind of buffer: binding an element buffer to its own
        // target would change the element binding of whichever VAO is bound.
        glBindBuffer(GL_COPY_READ_BUFFER, buffer.bufferId());
        const void* mapped =
            glMapBufferRange(GL_COPY_READ_BUFFER, 0, GLsizeiptr(bytes), GL_MAP_READ_BIT);
        if (mapped) {
            out.resize(bytes / sizeof(T));
            std::memcpy(out.data(), mapped, bytes);
            glUnmapBuffer(GL_COPY_READ_BUFFER);
        }
        glBindBuffer(GL_COPY_READ_BUFFER, 0);
    }
    doneCurrent();
}

void PointCloudView::paintGL() {
    using Clock = std::chrono::steady_clock;
    const auto sinceEpochNs = [] {
        return std::int64_t(
            std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch())
                .count());
    };
    if (m_drawTiming) m_frameTiming = {sinceEpochNs(), 0, 0.0, 0.0};
    m_drawnPoints = 0;
    const QColor bg = backgroundColour();
    glClearColor(bg.redF(), bg.greenF(), bg.blueF(), 1.0f);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);

    if (m_glReady) {
        QElapsedTimer uploadClock;
        if (m_drawTiming) {
            glFinish();
            uploadClock.start();
        }
        upload();
        if (m_drawTiming) {
            glFinish();
            m_frameTiming.uploadMs = double(uploadClock.nsecsElapsed()) / 1e6;
        }
        if (m_uploadedCount > 0) {
            QElapsedTimer drawClock;
            if (m_drawTiming) {
                glFinish();
                drawClock.start();
            }
            glEnable(GL_DEPTH_TEST);
            // De-emphasised points are drawn on the far plane (depth 1, as cleared): equal
            // passes, so they show where nothing nearer was drawn, in the same single pass.
            glDepthFunc(GL_LEQUAL);
            glDisable(GL_BLEND);
            if (!m_edgesOverPoints) drawEdges();
            const bool splatted = splatsWanted() && drawSplats(bg);
            if (splatted) {
                m_drawnPoints = m_uploadedCount;
            } else {
                if (!context()->isOpenGLES()) {
                    glEnable(kProgramPointSize);
                    if (context()->format().profile() != QSurfaceFormat::CoreProfile)
                        glEnable(kPointSprite);
                }
                m_program->bind();
                m_program->setUniformValue("u_mvp", modelViewProjection());
                m_program->setUniformValue("u_pointSize", float(m_pointSize * devicePixelRatioF()));
                m_program->setUniformValue("u_shading", rimShading());
                m_program->setUniformValue("u_background",
                                           QVector3D(bg.redF(), bg.greenF(), bg.blueF()));
                {
                    QOpenGLVertexArrayObject::Binder vaoBinder(&m_vao);
                    bindMask(m_uploadedCount);
                    m_drawnPoints = drawLevelOfDetail();
                    if (m_drawnPoints == 0) {
                        glDrawArrays(GL_POINTS, 0, GLsizei(m_uploadedCount));
                        m_drawnPoints = m_uploadedCount;
                    }
                }
                m_program->release();
            }
            setFrameRenderer(splatted);
            if (m_edgesOverPoints) drawEdges();
            glDisable(GL_DEPTH_TEST);
            drawMarkers();
            if (m_drawTiming) {
                glFinish();
                m_frameTiming.drawMs = double(drawClock.nsecsElapsed()) / 1e6;
            }
        }
    }

    // Painting on the framebuffer itself, not on the widget: QWidget::grab() redirects widget
    // painters to its pixmap and then covers them with the framebuffer, losing the overlay.
    const qreal dpr = devicePixelRatioF();
    QOpenGLPaintDevice device(QSize(qRound(width() * dpr), qRound(height() * dpr)));
    device.setDevicePixelRatio(dpr);
    QPainter painter(&device);
    painter.setFont(glOverlayFont(font()));
    paintOverlay(painter);
    painter.end();
    m_paintedGeneration = m_contentGeneration;
    if (m_drawTiming) {
        glFinish();
        m_frameTiming.endNs = sinceEpochNs();
    }
}

void PointCloudView::paintOverlay(QPainter& painter) {
    painter.setRenderHint(QPainter::TextAntialiasing, true);
    const QPalette pal = palette();
    const QRect area = rect().adjusted(12, 12, -12, -12);
    if (!m_glError.isEmpty()) {
        painter.setPen(pal.color(QPalette::Text));
        painter.drawText(area, Qt::AlignCenter | Qt::TextWordWrap,
                         tr("The point view cannot draw:\n%1").arg(m_glError));
        return;
    }
    if (pointCount() == 0) {
        painter.setPen(pal.color(QPalette::PlaceholderText));
        painter.drawText(area, Qt::AlignCenter | Qt::TextWordWrap,
                         tr("No points loaded.\nOpen a point cloud with File ▸ Open… (Ctrl+O), "
                            "drop a file here, or pick File ▸ Demo data."));
        return;
    }
    m_legend.paint(painter, area.topRight(), pal, m_legendMarks);
    if (m_edges && m_edgesVisible && m_edgeLengthProgram &&
        m_edgeColouring == EdgeColouring::Length && m_edgeLegend.kind != Legend::Kind::None) {
        // Under the points' legend where the view is tall enough for both, else beside it.
        const QSize points =
            m_legend.kind == Legend::Kind::None ? QSize(0, -8) : m_legend.sizeHint(painter);
        const QSize edges = m_edgeLegend.sizeHint(painter);
        const QPoint corner = points.height() + 8 + edges.height() <= area.height()
                                  ? QPoint(0, points.height() + 8)
                                  : QPoint(-points.width() - 8, 0);
        m_edgeLegend.paint(painter, area.topRight() + corner, pal);
    }

    // What is on screen and how to move it: small, in the bottom-left corner.
    const PointSet& p = *m_points;
    QString info = tr("%1 points · %2 dims").arg(QLocale().toString(qulonglong(p.n))).arg(p.dims);
    if (m_edges && m_edgesVisible)
        info += tr(" · %1 edges (k = %2)")
                    .arg(QLocale().toString(qulonglong(m_edges.edgeCount())))
                    .arg(m_edges.k);
    if (p.dims > 3)
        info += tr(" (showing %1, %2, %3)")
                    .arg(QString::fromStdString(p.dimNames.size() > 0 ? p.dimNames[0] : "c0"),
                         QString::fromStdString(p.dimNames.size() > 1 ? p.dimNames[1] : "c1"),
                         QString::fromStdString(p.dimNames.size() > 2 ? p.dimNames[2] : "c2"));
    const QString help =
        tr("drag: orbit · Shift/right drag: pan · wheel: zoom · click: inspect · Ctrl+drag: "
           "select · F: fit · R: reset · 1/3/7/0: front/side/top/sensor · +/−: point size");
    QFont small = painter.font();
    small.setPointSizeF(std::max(7.0, small.pointSizeF() * 0.9));
    painter.setFont(small);
    const QFontMetrics fm(small);
    painter.setPen(pal.color(QPalette::Text));
    painter.drawText(QPoint(area.left(), area.bottom() - fm.height() - fm.descent()), info);
    painter.setPen(pal.color(QPalette::PlaceholderText));
    painter.drawText(QPoint(area.left(), area.bottom() - fm.descent()), help);
}

void PointCloudView::mousePressEvent(QMouseEvent* event) {
    m_lastMouse = m_pressMouse = event->position().toPoint();
    m_dragButton = event->button();
    m_moved = false;
    m_hoverTimer.stop();
    const bool ctrl = event->modifiers() & Qt::ControlModifier;
    m_panning =
        m_dragButton == Qt::RightButton || m_dragButton == Qt::MiddleButton ||
        (m_dragButton == Qt::LeftButton && !ctrl && (event->modifiers() & Qt::ShiftModifier));
    if (m_dragButton == Qt::LeftButton && ctrl && m_lassoMode) {
        if (!m_lasso) m_lasso = new LassoOverlay(this, m_lassoPoints);
        m_lassoPoints = QPolygonF{QPointF(m_pressMouse)};
        m_lasso->setGeometry(rect());
        m_lasso->show();
    } else if (m_dragButton == Qt::LeftButton && ctrl) {
        // A child widget: the box moves without repainting the cloud under it.
        if (!m_box) m_box = new QRubberBand(QRubberBand::Rectangle, this);
        m_box->setGeometry(QRect(m_pressMouse, QSize()));
        m_box->show();
    }
    event->accept();
}

void PointCloudView::mouseMoveEvent(QMouseEvent* event) {
    const QPoint pos = event->position().toPoint();
    if (m_dragButton == Qt::NoButton) {
        m_hoverPos = pos;
        // Where a pick is slow (millions of points on a software renderer), hover picks wait
        // longer, so that the view keeps up with the mouse.
        m_hoverTimer.start(std::max(kHoverDelayMs, int(3.0 * m_pickMs)));
        return;
    }
    if ((pos - m_pressMouse).manhattanLength() >= kClickSlop) m_moved = true;
    if (m_box && m_box->isVisible()) {
        m_box->setGeometry(QRect(m_pressMouse, pos).normalized());
        event->accept();
        return;
    }
    if (m_lasso && m_lasso->isVisible()) {
        m_lassoPoints << QPointF(pos);
        m_lasso->update();
        event->accept();
        return;
    }
    const QPoint delta = pos - m_lastMouse;
    m_lastMouse = pos;
    if (m_panning)
        pan(float(delta.x()), float(delta.y()));
    else
        // Dragging right turns the scene right (the camera left); dragging down looks from above.
        orbit(-delta.x() * kOrbitDegreesPerPixel, delta.y() * kOrbitDegreesPerPixel);
    event->accept();
}

void PointCloudView::mouseReleaseEvent(QMouseEvent* event) {
    if (event->button() != m_dragButton) {
        event->accept();
        return;
    }
    m_dragButton = Qt::NoButton;
    const QPoint pos = event->position().toPoint();
    // A Ctrl+press that did not move is a click (Ctrl+click on the legend removes a cluster).
    const bool boxing = m_box && m_box->isVisible();
    if (boxing) m_box->hide();
    const bool lassoing = m_lasso && m_lasso->isVisible();
    if (lassoing) m_lasso->hide();
    if (lassoing && m_moved && m_lassoPoints.size() >= 3) {
        m_lassoPoints << QPointF(pos);
        emit lassoSelected(m_lassoPoints, event->modifiers());
    } else if (boxing && m_moved) {
        emit boxSelected(QRectF(QRect(m_pressMouse, pos).normalized()), event->modifiers());
    } else if (event->button() == Qt::LeftButton && !m_moved && legendEntryAt(pos) >= 0) {
        emit legendClicked(legendEntryAt(pos), event->modifiers());
    } else if (event->button() == Qt::LeftButton && !m_moved && !m_panning) {
        const auto picked = pickPoint(pos);
        emit pointClicked(picked ? qint64(*picked) : -1);
    }
    event->accept();
}

void PointCloudView::leaveEvent(QEvent* event) {
    m_hoverTimer.stop();
    emit pointHovered(-1, {});
    QOpenGLWidget::leaveEvent(event);
}

void PointCloudView::wheelEvent(QWheelEvent* event) {
    const double steps = event->angleDelta().y() / 120.0;
    if (steps != 0.0) zoom(float(std::pow(kZoomPerWheelStep, steps)), event->position());
    event->accept();
}

void PointCloudView::keyPressEvent(QKeyEvent* event) {
    switch (event->key()) {
        case Qt::Key_Left:
            orbit(kOrbitDegreesPerKey, 0);
            break;
        case Qt::Key_Right:
            orbit(-kOrbitDegreesPerKey, 0);
            break;
        case Qt::Key_Up:
            orbit(0, -kOrbitDegreesPerKey);
            break;
        case Qt::Key_Down:
            orbit(0, kOrbitDegreesPerKey);
            break;
        case Qt::Key_R:
            resetCamera();
            break;
        case Qt::Key_F:
            fitToData();
            break;
        case Qt::Key_1:
            setViewPreset(ViewPreset::Front);
            break;
        case Qt::Key_3:
            setViewPreset(ViewPreset::Side);
            break;
        case Qt::Key_7:
            setViewPreset(ViewPreset::Top);
            break;
        case Qt::Key_0:
            setViewPreset(ViewPreset::Sensor);
            break;
        case Qt::Key_Plus:
        case Qt::Key_Equal:
            increasePointSize();
            break;
        case Qt::Key_Minus:
        case Qt::Key_Underscore:
            decreasePointSize();
            break;
        default:
            QOpenGLWidget::keyPressEvent(event);
            return;
    }
    event->accept();
}

void PointCloudView::changeEvent(QEvent* event) {
    if (event->type() == QEvent::PaletteChange) {
        // Uniform and noise colours come from the palette; custom colours are the caller's.
        if (m_colourBy != QLatin1String("custom") && m_points) setColourBy(m_colourBy);
        update();
    }
    QOpenGLWidget::changeEvent(event);
}

}  // namespace cs::ui
