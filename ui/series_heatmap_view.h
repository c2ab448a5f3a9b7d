// SPDX-License-Identifier: MIT
#pragma once

#include <QOpenGLExtraFunctions>
#include <QOpenGLShaderProgram>
#include <QOpenGLVertexArrayObject>
#include <QOpenGLWidget>
#include <cstdint>
#include <memory>
#include <vector>

#include "compute/core/device_resident.h"
#include "compute/core/series_matrix.h"
#include "compute/core/series_set.h"
#include "ui/upload_path.h"
#include "ui/view_interop.h"

namespace cs {
class GlBufferLink;
}  // namespace cs

namespace cs::ui {

/// A heat map of a series set: one row per series (grouped by class, a band of class colours at
/// the left), one column per sample, each row z-normalised (compute/core/series_matrix.h) and
/// coloured by viridis over ±3 standard deviations; samples past a series' end are background.
/// The matrix is a float texture filled from a pixel buffer: with a device copy of the series
/// (Backend::keepSeriesResident) and GL interop, a CUDA kernel writes the pixel buffer; else the
/// host computes the matrix and uploads it. Interop rules as in PointCloudView: the GUI thread
/// maps inside this widget's context, the registration goes before the buffer or the context.
class SeriesHeatmapView : public QOpenGLWidget, protected QOpenGLExtraFunctions {
    Q_OBJECT
public:
    explicit SeriesHeatmapView(QWidget* parent = nullptr);
    ~SeriesHeatmapView() override;

    /// Shows channel `channel` of series order[0], order[1], ... (heatmapRows()); nullptr
    /// clears. A device copy given before stays in use when it is of the same set.
    void setRows(std::shared_ptr<const SeriesSet> series, std::vector<std::uint32_t> order,
                 std::size_t channel);
    /// The device copy of the series shown (or about to be), or nullptr.
    void setDeviceSeries(std::shared_ptr<const SeriesSet> series,
                         std::shared_ptr<const DeviceResident> copy);
    /// Allows GL interop (default) or forces host uploads.
    void setInteropAllowed(bool allowed);

    std::size_t rowCount() const { return m_order.size(); }
    const std::vector<std::uint32_t>& rows() const { return m_order; }
    /// How the matrix on screen reached the GPU.
    UploadPath matrixPath() const { return m_path; }
    /// The largest texture side this GL offers (0 before initialisation).
    int maxTextureSize() const { return m_maxTextureSize; }
    /// Rows at most: the texture limit, and no more than a screen can tell apart.
    int maxRows() const;
    /// Why nothing is drawn (series too long for a texture, GL error), or empty.
    QString problem() const { return m_problem; }
    /// The pixel buffer as the GPU holds it (rows x length floats, after pending writes).
    std::vector<float> readMatrixBuffer();
    /// The screen rectangle of the matrix (widget coordinates) and of row r, column t in it.
    QRectF plotRect() const;
    QPointF cellCentre(std::size_t row, std::size_t column) const;
    /// What the mouse at pos (widget coordinates) points at: "series 12 · class up · t = 40 ·
    /// z = 1.23" (the series' index in the set), or empty outside the matrix.
    QString describe(QPointF pos) const;
    /// True once the latest rows were drawn and the frame swapped.
    bool isContentDrawn() const { return m_drawnGeneration == m_contentGeneration; }

    /// The colour scale spans this many standard deviations either side of the mean.
    static constexpr float kRange = 3.0f;
    static constexpr int kDefaultMaxRows = 8192;

signals:
    void contentDrawn();

protected:
    void initializeGL() override;
    void paintGL() override;
    void mouseMoveEvent(QMouseEvent* event) override;

private:
    void releaseGl();
    void upload();
    bool writeOnDevice(std::size_t bytes);
    void paintOverlay(QPainter& painter);
    void contentChanged();

    std::shared_ptr<const SeriesSet> m_series;
    std::vector<std::uint32_t> m_order;
    std::size_t m_channel = 0;
    std::shared_ptr<const SeriesSet> m_deviceOf;  // the set m_device copies
    std::shared_ptr<const DeviceResident> m_device;
    ViewInterop m_interop{QObject::tr("series heat map")};
    std::unique_ptr<GlBufferLink> m_link;  // m_pixelBuffer registered with the device

    std::unique_ptr<QOpenGLShaderProgram> m_program;
    QOpenGLVertexArrayObject m_vao;
    GLuint m_texture = 0;
    GLuint m_colourMap = 0;
    GLuint m_pixelBuffer = 0;
    std::size_t m_pixelBytes = 0;
    std::size_t m_texRows = 0;
    std::size_t m_texCols = 0;
    int m_maxTextureSize = 0;
    bool m_glReady = false;
    bool m_dirty = false;
    UploadPath m_path = UploadPath::None;
    QString m_problem;

    std::uint64_t m_contentGeneration = 1;
    std::uint64_t m_paintedGeneration = 0;
    std::uint64_t m_drawnGeneration = 0;
};

}  // namespace cs::ui
