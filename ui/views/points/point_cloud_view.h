// SPDX-License-Identifier: MIT
#pragma once

#include <QMatrix4x4>
#include <QOpenGLBuffer>
#include <QOpenGLExtraFunctions>
#include <QOpenGLShaderProgram>
#include <QOpenGLVertexArrayObject>
#include <QOpenGLWidget>
#include <QPoint>
#include <QPolygonF>
#include <QStringList>
#include <QSurfaceFormat>
#include <QTimer>
#include <array>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "compute/core/point_quantities.h"
#include "compute/core/point_set.h"
#include "ui/views/colour_maps.h"
#include "ui/views/legend.h"
#include "ui/views/points/edge_splat_pass.h"
#include "ui/views/points/orbit_camera.h"
#include "ui/views/points/point_colouring.h"
#include "ui/views/points/point_splat_pass.h"
#include "ui/views/upload_path.h"
#include "ui/views/view_interop.h"

namespace cs {
class GlBufferLink;
}  // namespace cs

class QOpenGLFramebufferObject;
class QRubberBand;

namespace cs::ui {

/// The 3-D point view: every point of a PointSet as a round sprite, coloured per point, under
/// an orbit camera, with a legend overlay. Positions are the first three columns (a 1-D set
/// gets y = z = 0, a 2-D set z = 0); they and the RGBA8 colours are uploaded once to vertex
/// buffers and drawn with one glDrawArrays or, for big clouds where CUDA–GL interop works,
/// splatted from the same buffers by CUDA (pointRenderer()), so a frame costs no CPU work
/// proportional to N and 30 million points stay interactive on a GPU.
///
/// Needs OpenGL 3.3 core (or GLES 3.0): call QSurfaceFormat::setDefaultFormat(
/// PointCloudView::defaultSurfaceFormat()) before the QApplication is created.
///
/// Colours reach the GPU one of two ways (colourPath(), logged when it changes): uploaded from
/// host memory, or, for clusterings computed by the CUDA backend, painted by a CUDA kernel
/// straight into the colour buffer (CUDA–GL interop, compute/backend/gl_interop.h). Interop
/// thread rule: the GUI thread maps, writes and unmaps inside paintGL, with this view's context
/// current; the compute worker only hands over finished device-resident results. The buffer's
/// registration is dropped before the buffer is reallocated and before the context goes away
/// (releaseGl), and a recreated context is repainted from the same device data.
///
/// The view draws quantities (compute/core/point_quantities.h), never an algorithm's result:
/// per-point categories (setCategories) as colours, and per-point edges (setEdges, a kNN graph)
/// as GL_LINES before the points: an element buffer of (point, target) index pairs over the same
/// position and colour buffers, so edges follow the points, take their colours at
/// edgeOpacity(), vanish with hidden points, and cost no CPU work per frame. The indices are
/// uploaded once per set of edges, or written by CUDA through interop when the edges were
/// computed on the GPU (edgePath()).
///
/// Highlights are quantities too: a per-point mask (setPointMask: shown, dimmed toward the
/// background and behind the rest, or hidden) and marked points (setMarkedPoints: rings drawn
/// over everything, the inspected point and its neighbours).
///
/// Picking is a GPU pass (pickPoint): the points are drawn once more into a small offscreen
/// framebuffer around the cursor in colours that encode their indices, and the pixels are read
/// back, so a pick costs no CPU work proportional to N. While the points are splatted, the
/// splat's first pass over those pixels names the points instead (lastPickSplatted()).
///
/// Mouse: left drag orbits, right/middle or Shift+left drag pans, the wheel zooms toward the
/// cursor; a left click picks the point under the cursor (pointClicked), resting the cursor on
/// a point reports it (pointHovered), Ctrl+left drag draws a selection box (boxSelected; with
/// Shift it adds, with Alt it removes). Keys: arrows orbit, R resets the camera, F fits the
/// data, 1 / 3 / 7 / 0 look from the front, the side, the top and the sensor (setViewPreset),
/// + / - change point size.
class PointCloudView : public QOpenGLWidget, protected QOpenGLExtraFunctions {
    Q_OBJECT
public:
    explicit PointCloudView(QWidget* parent = nullptr);
    ~PointCloudView() override;

    /// OpenGL 3.3 core profile with a depth buffer, swapping without waiting for the vertical
    /// blank.
    static QSurfaceFormat defaultSurfaceFormat();

    /// Shows points (nullptr clears the view), coloured by PointColouring::defaultOption, with
    /// the camera reset to frame them.
    void setPointSet(std::shared_ptr<const PointSet> points);
    std::shared_ptr<const PointSet> pointSet() const { return m_points; }
    std::size_t pointCount() const { return m_points ? m_points->n : 0; }

    /// What the current points can be coloured by.
    const std::vector<ColourOption>& colourOptions() const { return m_colourOptions; }
    /// Colours by an option id of colourOptions(); false (and nothing changes) for other ids.
    bool setColourBy(const QString& id);
    /// The option coloured by, or "custom" after setColours().
    QString colourBy() const { return m_colourBy; }
    /// Replaces the per-point colours (packed RGBA8, see ColourMaps), e.g. with cluster labels;
    /// rgba must hold one entry per point. Alpha 0 hides a point; alpha between 0 and 255
    /// de-emphasises it: it is drawn behind every opaque point (noise never hides clusters).
    bool setColours(std::span<const std::uint32_t> rgba, Legend legend = {});
    /// Colours by per-point categories of these points (a clustering: dbscanCategories()) with
    /// paint's rule. When categories.device is set (a CUDA result) and GL interop works here, a
    /// CUDA kernel paints the colour buffer at the next frame, with no per-point work on the
    /// host; otherwise the colours are painted on the host (hostColours when given, computed
    /// otherwise) and uploaded. False (and nothing changes) when they do not match the points.
    bool setCategories(PointCategories categories, CategoryPaint paint, Legend legend,
                       std::vector<std::uint32_t> hostColours = {});
    /// True when categories with device data would be painted on the device (interop allowed
    /// and not known to fail): callers may then skip painting on the host.
    bool mayPaintOnDevice() const { return m_interop.usable(); }
    /// Allows CUDA–GL interop (default) or forces host uploads (to compare the two paths, or as
    /// a way around a misbehaving driver); repaints with the new path.
    void setInteropAllowed(bool allowed);
    bool interopAllowed() const { return m_interop.allowed(); }
    /// Why interop is not used, once it was tried and failed (empty otherwise).
    QString interopError() const { return m_interop.error(); }
    using UploadPath = cs::ui::UploadPath;
    /// How the colours on screen reached the GPU.
    UploadPath colourPath() const { return m_colourPath; }
    /// How the positions reached the GPU.
    UploadPath positionPath() const { return m_positionPath; }

    /// Draws per-point edges of these points (a kNN graph: knnEdges(); empty edges clear them,
    /// and loading other points clears them too). When edges.device is set (a CUDA graph) and
    /// GL interop works here, CUDA writes the element buffer at the next frame; otherwise
    /// hostIndices (when given: edgeIndexPairs(edges), built on a worker thread) or, failing
    /// that, edgeIndexPairs(edges) made here are uploaded once. False (and nothing changes) when
    /// the edges are not of these points (edges.n != pointCount()).
    /// @code view->setEdges(cs::knnEdges(graph)); @endcode
    bool setEdges(PointEdges edges,
                  std::shared_ptr<const std::vector<std::uint32_t>> hostIndices = nullptr);
    /// The edges drawn (empty when none).
    const PointEdges& edges() const { return m_edges; }
    /// Shows or hides the edges (the buffer stays).
    void setEdgesVisible(bool visible);
    bool edgesVisible() const { return m_edgesVisible; }
    /// Edge opacity in [0, 1] (clamped): 1 draws an edge in its points' colours. Mutual
    /// neighbours have an edge each way, drawn over each other, so below 1 they show stronger.
    void setEdgeOpacity(float opacity);
    float edgeOpacity() const { return m_edgeOpacity; }
    static constexpr float kDefaultEdgeOpacity = 0.35f;
    /// An opacity at which this many edges neither vanish nor flood a view of this many pixels:
    /// about one edge's worth of ink per pixel (the inverse square root of edges per pixel),
    /// between 0.06 and 0.8. 1.3 million edges in a 900 x 500 view get about 0.2.
    static float suggestedEdgeOpacity(std::size_t edges, QSize viewPixels);

    /// How edges are coloured: by their length, with a colour map of their own (edgeMap(),
    /// over edgeColourRange()), or in the colours of the points they join.
    enum class EdgeColouring { Length, Points };
    void setEdgeColouring(EdgeColouring colouring);
    EdgeColouring edgeColouring() const { return m_edgeColouring; }
    /// The edges' colour map (magma by default: unlike the points' viridis).
    void setEdgeMap(ColourMaps::Map map);
    ColourMaps::Map edgeMap() const { return m_edgeMap; }
    /// Draws the edges over the points (true) or under them (the default); emits
    /// edgesOverPointsChanged() when that changes.
    void setEdgesOverPoints(bool over);
    bool edgesOverPoints() const { return m_edgesOverPoints; }
    /// Draws only edges whose length (data units, over the coordinates drawn) lies in
    /// [minimum, maximum]; 0 and infinity draw all.
    void setEdgeLengthFilter(double minimum, double maximum);
    double edgeLengthMinimum() const { return m_edgeFilter[0]; }
    double edgeLengthMaximum() const { return m_edgeFilter[1]; }
    /// The shortest and longest edge of the edges shown (data units; from an even sample of at
    /// most kEdgeLengthSample edges), {0, 0} without edges.
    std::array<double, 2> edgeLengthBounds() const { return m_edgeBounds; }
    /// The lengths at the ends of the edge colour map: the 2nd and 98th percentile of the
    /// lengths, or what setEdgeColourRange gave.
    std::array<double, 2> edgeColourRange() const { return m_edgeColourRange; }
    /// Sets the colour range of the edges by a ScalarStyle range (percentiles or lengths).
    void setEdgeColourRange(const ScalarStyle& range);
    /// What the edge colours mean (a colour bar with the lengths' histogram), drawn under the
    /// points' legend while edges are coloured by length.
    const Legend& edgeLegend() const { return m_edgeLegend; }
    /// False where the GL has no geometry shaders (GLES 3.0): edges are then drawn in their
    /// points' colours, unfiltered.
    bool edgeLengthStyleSupported() const { return !m_glReady || m_edgeLengthProgram != nullptr; }
    /// Counts the edges each frame draws (a GL query, which waits for the GPU: for tests and
    /// measurements); drawnEdgeCount() then holds the last frame's count.
    void setEdgeCounting(bool on) { m_edgeCounting = on; }
    /// Edges drawn in the last frame counted (-1 before one).
    qint64 drawnEdgeCount() const { return m_drawnEdges; }

    /// How scalar colourings (coordinates, scalar attributes, kNN distances) look: the map and
    /// the range; re-colours the points when such a colouring is on screen.
    void setScalarStyle(const ScalarStyle& style);
    const ScalarStyle& scalarStyle() const { return m_scalarStyle; }
    /// Lines in the element buffer, ready to draw (0 before the upload or without a graph).
    std::size_t edgeCount() const { return m_edgeIndexCount / 2; }
    /// How the edge indices reached the GPU.
    UploadPath edgePath() const { return m_edgePath; }
    /// The element buffer as the GPU holds it (read back from GL, after pending uploads):
    /// 2 uint32 per edge, edgeIndexPairs() order; empty before GL is initialised or without
    /// edges.
    std::vector<std::uint32_t> readEdgeBuffer();
    /// The Colour by option that colours each point by the value of its last edge (the k-th
    /// neighbour distance of a kNN graph); in colourOptions() while there are edges.
    static QString edgeValueColourId() { return QStringLiteral("edges:value"); }
    /// Draws the positions from the compute backend's device copy of these points
    /// (Backend::keepResident), written by CUDA into the position buffer through GL interop;
    /// without interop (or with nullptr) they are uploaded from host memory as usual.
    void setDevicePositions(std::shared_ptr<const DeviceResident> points);
    /// Holds the host upload of the current points back until setDevicePositions() brings them
    /// from the device, for at most timeoutMs: the points then cross the bus once, for the
    /// algorithms and the view together. No effect where interop is not usable.
    void expectDevicePositions(int timeoutMs = kDevicePositionsWaitMs);
    static constexpr int kDevicePositionsWaitMs = 3000;
    /// The position buffer as the GPU holds it: xyz per point, in the view's recentred space
    /// ((data coordinates minus viewCentre()) times viewScale()); empty before GL is
    /// initialised.
    std::vector<float> readPositionBuffer();
    /// The midpoint of the data's bounding box, which the view subtracts before drawing (the
    /// centre recentredCoords() uses, first three dimensions).
    std::array<double, 3> viewCentre() const { return m_centre; }
    /// The power of two the view multiplies recentred coordinates by (distanceScale() of the
    /// first three dimensions' widest extent; 1 for any cloud in ordinary units).
    double viewScale() const { return m_scale; }
    /// The per-point colours as last set on the host (empty when they were painted on the GPU:
    /// use readColourBuffer()).
    std::span<const std::uint32_t> colours() const { return m_colours; }
    /// The colour buffer as the GPU holds it (read back from GL, after pending uploads), whichever
    /// path wrote it; empty before GL is initialised.
    std::vector<std::uint32_t> readColourBuffer();
    /// The last splatted frame's image as CUDA left it (splat pixels, row 0 at the bottom) and
    /// the view it was splatted for; empty before a frame was splatted.
    std::vector<SplatPixel> readSplatImage();
    const PointSplatView& lastSplatView() const { return m_lastSplatView; }
    /// The same for the last splatted edges (RGBA8 words, row 0 at the bottom); empty before
    /// edges were splatted.
    std::vector<std::uint32_t> readEdgeSplatImage();
    const EdgeSplatView& lastEdgeSplatView() const { return m_lastEdgeSplatView; }
    const Legend& legend() const { return m_legend; }
    /// The clear colour (the palette's base colour).
    QColor backgroundColour() const;
    /// The colour of Colour by ▸ Uniform (the palette's highlight).
    QColor uniformColour() const;
    /// The colour of noise and unlabelled points (grey, toward the background; de-emphasised).
    QColor noiseColour() const;

    /// Which data axis points up on screen: +Y by default; −Y for camera clouds (PCL, depth
    /// sensors), +Z for LiDAR and most scans.
    enum class UpAxis { PlusY, MinusY, PlusZ, MinusZ };
    UpAxis upAxis() const { return m_upAxis; }
    /// Turns the data so that axis points up, and resets the camera.
    void setUpAxis(UpAxis axis);
    /// The up axis that shows these points as they were captured: −Y when every point lies in
    /// front of a camera at the origin looking along +z (z > 0 and the nearest point at least a
    /// fifth of the cloud's depth away: PCL's and depth sensors' camera frame, y down), which
    /// also puts the eye on the sensor's side; +Y otherwise. Points with a sensor pose (a PCD
    /// VIEWPOINT) are judged in the world frame the pose puts them in.
    static UpAxis suggestedUpAxis(const PointSet& points);
    /// suggestedUpAxis of the points shown, from the bounds setPointSet found (no second pass).
    UpAxis suggestedUpAxis() const { return m_suggestedUp; }

    /// The sensor pose the points are drawn through (PointSet::sensorPose, as PCL's viewer does:
    /// the file's coordinates stay in the sensor frame, the view shows them in the world frame);
    /// nullopt when the points have none or the identity.
    const std::optional<SensorPose>& sensorPose() const { return m_sensorPose; }

    /// Camera presets (View ▸ Camera, --view), in the frame shown (after the sensor pose and
    /// the up axis): Front looks along −z, Side along −x, Top down along −y, each framing the
    /// data; Sensor puts the eye where the sensor was, looking where it looked (the origin
    /// looking along +z for points without a pose); Fit keeps the orientation and frames the
    /// data.
    enum class ViewPreset { Front, Top, Side, Sensor, Fit };
    /// "front", "top", "side", "sensor", "fit".
    static QString viewPresetName(ViewPreset preset);
    /// The preset of a name (case-insensitive), or nullopt.
    static std::optional<ViewPreset> viewPresetFromName(const QString& name);
    static QStringList viewPresetNames();
    /// Places the camera as the preset says.
    /// @code view->setViewPreset(cs::ui::PointCloudView::ViewPreset::Top); @endcode
    void setViewPreset(ViewPreset preset);

    const OrbitCamera& camera() const { return m_camera; }
    /// Places the camera as camera() described it before (a saved session's): the target in the
    /// view's recentred space, the distance and the angles (degrees).
    void setCameraPose(const QVector3D& target, float distance, float yawDegrees,
                       float pitchDegrees);
    /// Default orientation, framing the data.
    void resetCamera();
    /// Keeps the orientation, centres and frames the data.
    void fitToData();
    /// Turns the camera by these angles (degrees).
    void orbit(float dYawDegrees, float dPitchDegrees);
    /// Pans by a drag of (dx, dy) widget pixels.
    void pan(float dx, float dy);
    /// Zooms by factor (< 1 zooms in) toward the point under pixel (widget coordinates).
    void zoom(float factor, QPointF pixel);
    void zoom(float factor) { zoom(factor, QPointF(width() / 2.0, height() / 2.0)); }
    /// Where a data point lands, in widget pixels (for tests and picking).
    QPointF project(const QVector3D& world) const;

    /// The point drawn under pixel (widget coordinates), or the drawn point nearest to it within
    /// pickRadius() pixels; nullopt when none is, or before GL is ready. Hidden points cannot
    /// be picked, and a dimmed one only where nothing shown covers it.
    std::optional<std::size_t> pickPoint(QPointF pixel);
    /// How far from the cursor a pick looks, in logical pixels.
    int pickRadius() const;
    /// Milliseconds the last pickPoint() took, GPU pass and read-back included.
    double lastPickMilliseconds() const { return m_pickMs; }
    /// True when the last pickPoint() read the points splatted by CUDA (as the frames are
    /// drawn), false when GL drew them for it.
    bool lastPickSplatted() const { return m_pickSplatted; }

    /// What a point's mask value does (setPointMask).
    enum PointMask : std::uint8_t { Shown = 0, Dimmed = 1, Hidden = 2 };
    /// A mask value per point (empty clears the mask); false (and nothing changes) when the size
    /// does not match the points.
    bool setPointMask(std::vector<std::uint8_t> mask);
    const std::vector<std::uint8_t>& pointMask() const { return m_mask; }
    /// Rings around these points: the first one large (the inspected point), the rest smaller
    /// (its neighbours); empty clears them. Indices beyond the points are ignored.
    void setMarkedPoints(std::vector<std::uint32_t> indices);
    const std::vector<std::uint32_t>& markedPoints() const { return m_marked; }
    /// Legend rows to mark (selected clusters), by Legend::Entry::category.
    void setHighlightedCategories(std::vector<std::int32_t> categories);
    const std::vector<std::int32_t>& highlightedCategories() const { return m_legendMarks; }

    /// What a selection box needs to find its points off the GUI thread (pointsInBox): the
    /// view's transform frozen at the moment the box was drawn.
    struct BoxProjection {
        std::array<double, 3> centre{};
        double scale = 1.0;
        QMatrix4x4 mvp;
        QRectF ndc;       ///< the box in normalised device coordinates
        QPolygonF lasso;  ///< a lasso's outline in the same coordinates (ndc: its bounds), or empty
    };
    /// The legend entry drawn at pos (widget coordinates), or -1.
    int legendEntryAt(QPoint pos) const;
    /// The projection of a box given in widget coordinates.
    BoxProjection boxProjection(const QRectF& box) const;
    /// The projection of a lasso (a closed outline) given in widget coordinates.
    BoxProjection lassoProjection(const QPolygonF& lasso) const;
    /// Ctrl+drag draws a lasso instead of a box (lassoSelected instead of boxSelected).
    void setLassoMode(bool lasso) { m_lassoMode = lasso; }
    bool lassoMode() const { return m_lassoMode; }
    /// The indices of the points that land inside the box (and the lasso, when it has one) and
    /// in front of the camera (a scan over all points: call it on a worker).
    static std::vector<std::uint32_t> pointsInBox(const PointSet& points, const BoxProjection& box);

    /// Point diameter in logical pixels.
    float pointSize() const { return m_pointSize; }
    void setPointSize(float pixels);
    void increasePointSize();
    void decreasePointSize();
    static constexpr float kMinPointSize = 1.0f;
    static constexpr float kMaxPointSize = 32.0f;

    /// Level of detail while the camera moves: above budget points, frames drawn while the
    /// camera orbits, pans or zooms (and for settleMs after the last move) draw only the first
    /// budget points of a fixed random permutation of the points (lodOrder()): a uniform sample
    /// that stays the same from frame to frame, drawn from the same colour buffer, so no colour
    /// jumps when full detail returns. 0 draws every point always.
    void setLevelOfDetail(std::size_t budget, int settleMs = kLodSettleMs);
    std::size_t lodBudget() const { return m_lodBudget; }
    /// Points drawn per frame while moving, by default: about 2 ms a frame on an H200; on a
    /// software renderer (Mesa's llvmpipe: every point costs CPU time) kSoftwareLodBudget.
    static constexpr std::size_t kLodBudget = 2'000'000;
    static constexpr std::size_t kSoftwareLodBudget = 250'000;
    static constexpr int kLodSettleMs = 150;
    /// True from a camera move until settleMs after the last.
    bool isCameraMoving() const { return m_lodSettle.isActive(); }
    /// True on a software GL renderer (llvmpipe, softpipe, SwiftShader), known once GL is up.
    bool isSoftwareRenderer() const;
    /// Points the last frame drew (all, or the subsample while moving).
    std::size_t lastDrawnPointCount() const { return m_drawnPoints; }
    /// The subsample drawn while moving: point indices, a prefix of a random permutation (seeded,
    /// the same for the same number of points); empty until a frame needed it.
    const std::vector<std::uint32_t>& lodOrder() const { return m_lodOrder; }

    /// Who draws the points. GL's point pipeline (round sprites) everywhere; CUDA splats
    /// (PointSplatPass: the same round points, drawn by CUDA kernels into an image that GL
    /// composes) where CUDA–GL interop works, for kSplatFrom points or more (Automatic) or any
    /// number (Splats), at diameters up to kMaxSplatDiameter framebuffer pixels. Splats draw
    /// every point in every frame, so no level of detail is needed while the camera moves.
    enum class PointRenderer { Automatic, GlPoints, Splats };
    void setPointRenderer(PointRenderer renderer);
    PointRenderer pointRenderer() const { return m_renderer; }
    /// "automatic", "gl" or "splat", and back (nullopt for other names).
    static QString rendererName(PointRenderer renderer);
    static std::optional<PointRenderer> rendererFromName(const QString& name);
    /// True when the last frame's points were splatted by CUDA.
    bool lastFrameSplatted() const { return m_lastFrameSplatted; }
    /// True when the last frame's edges were splatted by CUDA (EdgeSplatPass): with the points,
    /// whenever they are splatted, unless the edges would cover more than
    /// kMaxEdgeSplatFragments pixels (then GL draws them as lines).
    bool lastFrameEdgesSplatted() const { return m_lastFrameEdgesSplatted; }
    static constexpr std::size_t kSplatFrom = 1'000'000;
    /// Host colour arrays of at least this many points are freed on a pool thread.
    static constexpr std::size_t kFreeOffThreadColours = 1'000'000;

    /// GL_VENDOR / GL_RENDERER / GL_VERSION once the context exists (empty before).
    struct GlInfo {
        QString vendor, renderer, version, glsl;
    };
    const GlInfo& glInfo() const { return m_glInfo; }
    /// Why drawing is impossible (shader, context or upload error), or empty.
    QString glError() const { return m_glError; }
    /// Points in the GPU buffers.
    std::size_t uploadedPointCount() const { return m_uploadedCount; }
    /// True once the latest data and colours have been drawn and the frame was swapped.
    bool isContentDrawn() const { return m_drawnGeneration == m_contentGeneration; }
    /// Times every frame with glFinish between its parts (costs the CPU/GPU overlap: for
    /// measurements only); lastFrameTiming() then describes the latest frame.
    void setDrawTiming(bool on) { m_drawTiming = on; }
    struct FrameTiming {
        std::int64_t startNs = 0;  ///< paintGL began (steady clock, ns since its epoch)
        std::int64_t endNs = 0;    ///< paintGL ended, everything finished on the GPU
        double uploadMs = 0.0;     ///< buffer writes (host upload or interop paint)
        double drawMs = 0.0;       ///< the draw calls (edges and points)
    };
    const FrameTiming& lastFrameTiming() const { return m_frameTiming; }
    double lastDrawMilliseconds() const { return m_frameTiming.drawMs; }
    /// The GL buffers (0 before initialisation), for writing colours from elsewhere later.
    GLuint positionBufferId() const { return m_positions.bufferId(); }
    GLuint colourBufferId() const { return m_colourBuffer.bufferId(); }
    GLuint edgeBufferId() const { return m_edgeBuffer.bufferId(); }

signals:
    /// The points changed, and with them colourOptions().
    void colourOptionsChanged();
    /// The colouring changed (id as colourBy()).
    void colourByChanged(const QString& id);
    /// The point size changed (logical pixels).
    void pointSizeChanged(float pixels);
    /// The edges moved over (true) or under the points, by whoever set it (the kNN panel's
    /// check box follows it).
    void edgesOverPointsChanged(bool over);
    /// The latest content reached the screen (after a data or colour change).
    void contentDrawn();
    /// The GL context was created; glInfo() is filled.
    void glInitialized();
    /// A left click picked this point (pickPoint), or -1 for a click where no point is.
    void pointClicked(qint64 index);
    /// The cursor rests on this point (-1: on none); globalPos is where, for a tooltip.
    void pointHovered(qint64 index, QPoint globalPos);
    /// A selection box was drawn (widget coordinates) with these modifiers (Shift: add, Alt:
    /// remove, else replace).
    void boxSelected(QRectF box, Qt::KeyboardModifiers modifiers);
    /// A lasso was drawn (widget coordinates, closed), with modifiers as boxSelected's.
    void lassoSelected(QPolygonF lasso, Qt::KeyboardModifiers modifiers);
    /// A click on a row of the legend: entry indexes legend().entries.
    void legendClicked(int entry, Qt::KeyboardModifiers modifiers);

protected:
    void initializeGL() override;
    void paintGL() override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void leaveEvent(QEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    void releaseGl();
    bool buildProgram();
    std::unique_ptr<QOpenGLShaderProgram> buildShaders(const QString& name, const QString& what);
    void upload();
    bool paintColoursOnDevice(std::size_t n);
    void allocateColourBuffer(std::size_t bytes, const void* data);
    void uploadPositionsFromHost(std::size_t n);
    bool writePositionsOnDevice(std::size_t n);
    template <typename T>
    void readBuffer(const QOpenGLBuffer& buffer, const std::function<std::size_t()>& bytesOf,
                    std::vector<T>& out);
    void setColourPath(UploadPath path, const QString& why);
    void setPositionPath(UploadPath path);
    void uploadEdges();
    bool writeEdgesOnDevice(std::size_t indices);
    void allocateEdgeBuffer(std::size_t bytes, const void* data);
    void setEdgePath(UploadPath path, const QString& why);
    void drawEdges();
    void updateEdgeStatistics();
    void uploadEdgeMap();
    void drawMarkers();
    void bindMask(std::size_t n);
    void updateEdgeColourOption();
    void paintOverlay(QPainter& painter);
    void contentChanged();
    void cameraMoved();
    std::size_t drawLevelOfDetail();
    float rimShading() const;
    bool splatsWanted() const;
    bool drawSplats(const QColor& background);
    PointSplatView splatView(const QMatrix4x4& mvp, std::uint32_t width, std::uint32_t height,
                             const QColor& background) const;
    PointSplatPass::Points splatInputs();
    bool drawEdgeSplats();
    void drawEdgeLines();
    std::vector<std::uint32_t> pickBySplat(const QMatrix4x4& pick, int side);
    std::vector<std::uint32_t> pickByGl(const QMatrix4x4& pick, int side);
    void setFrameRenderer(bool splatted);
    float aspect() const;
    QMatrix4x4 model() const;
    QMatrix4x4 modelViewProjection() const;
    void worldBox(QVector3D& lo, QVector3D& hi) const;
    void applyColouring(PointColouring colouring, const QString& id);
    std::optional<PointColouring> computeColouring(const QString& id) const;

    std::shared_ptr<const PointSet> m_points;
    std::vector<ColourOption> m_colourOptions;
    QString m_colourBy = QStringLiteral("uniform");
    std::vector<std::uint32_t> m_colours;
    Legend m_legend;
    // Set while the colours are categories that may be painted on the device.
    struct CategoryColours {
        PointCategories categories;
        CategoryPaint paint;
    };
    std::optional<CategoryColours> m_categoryColours;

    QVector3D m_lo;  // bounding box of the drawn positions (view space)
    QVector3D m_hi;
    std::array<double, 3> m_centre{};  // (data coordinates minus this) times m_scale = view space
    double m_scale = 1.0;
    bool m_planar = false;
    std::optional<SensorPose> m_sensorPose;  // not the identity
    UpAxis m_upAxis = UpAxis::PlusY;
    UpAxis m_suggestedUp = UpAxis::PlusY;  // for the points shown
    OrbitCamera m_camera;
    float m_pointSize = 3.0f;

    std::unique_ptr<QOpenGLShaderProgram> m_program;
    std::unique_ptr<QOpenGLShaderProgram> m_pickProgram;
    std::unique_ptr<QOpenGLShaderProgram> m_markerProgram;
    std::unique_ptr<QOpenGLFramebufferObject> m_pickTarget;
    double m_pickMs = 0.0;
    bool m_pickSplatted = false;
    std::vector<std::uint8_t> m_mask;
    QOpenGLBuffer m_maskBuffer{QOpenGLBuffer::VertexBuffer};
    bool m_maskDirty = false;
    std::size_t m_maskCount = 0;               // mask values written into m_maskBuffer
    std::unique_ptr<GlBufferLink> m_maskLink;  // m_maskBuffer registered with the device
    std::vector<std::uint32_t> m_marked;
    std::vector<std::int32_t> m_legendMarks;
    QOpenGLVertexArrayObject m_vao;
    QOpenGLBuffer m_positions{QOpenGLBuffer::VertexBuffer};
    QOpenGLBuffer m_colourBuffer{QOpenGLBuffer::VertexBuffer};
    bool m_glReady = false;
    bool m_positionsDirty = false;
    bool m_coloursDirty = false;
    std::size_t m_uploadedCount = 0;
    std::size_t m_colourBytes = 0;  // allocated size of m_colourBuffer
    std::size_t m_colourCount = 0;  // colours written into m_colourBuffer
    ViewInterop m_interop{QObject::tr("point view")};
    std::unique_ptr<GlBufferLink> m_colourLink;  // m_colourBuffer registered with the device
    UploadPath m_colourPath = UploadPath::None;
    std::size_t m_positionBytes = 0;  // allocated size of m_positions
    std::size_t m_positionCount = 0;  // points written into m_positions
    std::shared_ptr<const DeviceResident> m_devicePositions;
    bool m_awaitDevicePositions = false;
    QTimer m_deviceWait;
    std::unique_ptr<GlBufferLink> m_positionLink;  // m_positions registered with the device
    UploadPath m_positionPath = UploadPath::None;
    // Per-point edges: an element buffer over m_positions / m_colourBuffer.
    PointEdges m_edges;
    std::shared_ptr<const std::vector<std::uint32_t>> m_edgeHostIndices;  // until uploaded
    std::unique_ptr<QOpenGLShaderProgram> m_edgeProgram;
    QOpenGLBuffer m_edgeBuffer{QOpenGLBuffer::IndexBuffer};
    bool m_edgesDirty = false;
    bool m_edgesVisible = true;
    float m_edgeOpacity = kDefaultEdgeOpacity;
    EdgeColouring m_edgeColouring = EdgeColouring::Length;
    ColourMaps::Map m_edgeMap = ColourMaps::Map::Magma;
    bool m_edgesOverPoints = false;
    std::array<double, 2> m_edgeFilter{0.0, std::numeric_limits<double>::infinity()};
    std::array<double, 2> m_edgeBounds{0.0, 0.0};
    std::array<double, 2> m_edgeColourRange{0.0, 0.0};
    ScalarStyle m_edgeRange{ColourMaps::Map::Magma};
    std::vector<float> m_edgeLengthSample;  // data units, for the colour range and the legend
    Legend m_edgeLegend;
    std::unique_ptr<QOpenGLShaderProgram> m_edgeLengthProgram;
    GLuint m_edgeMapTexture = 0;
    bool m_edgeMapDirty = true;
    GLuint m_edgeQuery = 0;
    bool m_edgeCounting = false;
    qint64 m_drawnEdges = -1;
    ScalarStyle m_scalarStyle;
    std::size_t m_edgeBytes = 0;               // allocated size of m_edgeBuffer
    std::size_t m_edgeIndexCount = 0;          // indices written into m_edgeBuffer for m_edges
    std::unique_ptr<GlBufferLink> m_edgeLink;  // m_edgeBuffer registered with the device
    UploadPath m_edgePath = UploadPath::None;
    bool m_drawTiming = false;
    FrameTiming m_frameTiming;
    // Level of detail: m_lodOrder in m_lodBuffer, drawn while m_lodSettle runs.
    std::size_t m_lodBudget = kLodBudget;
    bool m_lodBudgetSet = false;  // by setLevelOfDetail: the renderer does not choose it
    QTimer m_lodSettle;
    std::vector<std::uint32_t> m_lodOrder;
    QOpenGLBuffer m_lodBuffer{QOpenGLBuffer::IndexBuffer};
    std::size_t m_lodUploaded = 0;  // indices in m_lodBuffer
    std::size_t m_drawnPoints = 0;
    PointSplatPass m_splat;
    PointRenderer m_renderer = PointRenderer::Automatic;
    bool m_splatFailed = false;  // for these points: GL draws them until new points come
    bool m_lastFrameSplatted = false;
    EdgeSplatPass m_edgeSplat;
    bool m_edgeSplatFailed = false;  // for these points: GL draws the edges
    bool m_lastFrameEdgesSplatted = false;
    EdgeSplatView m_lastEdgeSplatView;
    int m_loggedEdgeSplats = -1;  // the edge renderer the log last named (-1: none yet)
    PointSplatView m_lastSplatView;
    bool m_loggedSplatted = false;  // the renderer the log last named (GL at first)
    GlInfo m_glInfo;
    QString m_glError;

    std::uint64_t m_contentGeneration = 1;
    std::uint64_t m_paintedGeneration = 0;
    std::uint64_t m_drawnGeneration = 0;
    bool m_paintPosted = false;  // contentChanged() asked for a paint after the current event

    QPoint m_lastMouse;
    QPoint m_pressMouse;
    bool m_moved = false;  // the press became a drag: no click on release
    QRubberBand* m_box = nullptr;
    bool m_lassoMode = false;
    QWidget* m_lasso = nullptr;  // draws m_lassoPoints over the view without repainting it
    QPolygonF m_lassoPoints;
    QTimer m_hoverTimer;
    QPoint m_hoverPos;
    Qt::MouseButton m_dragButton = Qt::NoButton;
    bool m_panning = false;
};

}  // namespace cs::ui
