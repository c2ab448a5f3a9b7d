// SPDX-License-Identifier: MIT
#pragma once

#include <QOpenGLExtraFunctions>
#include <QOpenGLShaderProgram>
#include <QOpenGLVertexArrayObject>
#include <QOpenGLWidget>
#include <QRectF>
#include <QString>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "ui/views/upload_path.h"
#include "ui/views/view_interop.h"

namespace cs {
class GlBufferLink;
}  // namespace cs

namespace cs::ui {

/// What a MatrixHeatmapView draws: a rows x columns matrix of z-values (NaN: background), the
/// class of each row, and how to read a cell. SeriesHeatmapView fills it with a series matrix,
/// FeatureMatrixView with a feature matrix (ROCKET's features). Called on the GUI thread only.
class HeatmapFill {
public:
    virtual ~HeatmapFill() = default;
    /// Rows of the matrix.
    virtual std::size_t rows() const = 0;
    /// Columns of the whole matrix.
    virtual std::size_t columns() const = 0;
    /// True when the view may draw only the first columns that fit a texture (a feature map);
    /// false when a matrix wider than a texture cannot be drawn at all (a series).
    virtual bool mayCapColumns() const { return false; }
    /// Class index of row r, for the band at the left (-1: none).
    virtual int rowClass(std::size_t row) const = 0;
    /// The first `columns` columns of every row on the host: rows x columns floats, row-major.
    /// Throws cs::Error when they cannot be computed.
    virtual std::vector<float> hostMatrix(std::size_t columns) const = 0;
    /// True when writeOnDevice() can write the matrix from a device copy (GL interop).
    virtual bool hasDeviceSource() const { return false; }
    /// Writes the first `columns` columns into the linked pixel buffer on the device.
    virtual void writeOnDevice(GlBufferLink& link, std::size_t columns) const;
    /// Names the data in log lines: "the series", "the ROCKET features" (lower case).
    virtual QString what() const = 0;
    /// The line above the matrix, given the columns drawn.
    virtual QString title(std::size_t columnsShown) const = 0;
    /// The caption under the matrix: "time →".
    virtual QString columnCaption() const = 0;
    /// The read-out for one cell (row, column of the matrix).
    virtual QString describe(std::size_t row, std::size_t column) const = 0;
    /// The name of a class of rowClass(), for the label beside its band.
    virtual QString className(int label) const { return QString::number(label); }
    /// Rows of a summary drawn above the matrix in the same columns (per-class means of a
    /// feature map), 0 for none.
    virtual std::size_t summaryRows() const { return 0; }
    /// The summary's z-values for the first `columns` columns: summaryRows() x columns,
    /// row-major (NaN: background).
    virtual std::vector<float> summaryMatrix(std::size_t columns) const;
    /// The class a summary row stands for (its label and colour), -1 for none.
    virtual int summaryClass(std::size_t) const { return -1; }
    /// What the summary is, drawn above it: "class means".
    virtual QString summaryTitle() const { return {}; }
};

/// A heat map of a float matrix with a class band: the matrix is a float texture filled from a
/// pixel buffer, coloured by viridis over ±kRange. With a fill that has a device copy and with
/// GL interop, a CUDA kernel writes the pixel buffer; else the host computes the matrix and
/// uploads it. The log says which path. Interop rules as in PointCloudView: the GUI thread maps
/// inside this widget's context; the registration goes before the buffer is reallocated and
/// before the context goes away. Rows are the fill's (callers cap them, maxRows()); columns are
/// capped at the texture limit when the fill allows it, and the title says so.
class MatrixHeatmapView : public QOpenGLWidget, protected QOpenGLExtraFunctions {
    Q_OBJECT
public:
    /// viewName names the view in the log: "series heat map", "feature map".
    explicit MatrixHeatmapView(QString viewName, QWidget* parent = nullptr);
    ~MatrixHeatmapView() override;

    /// What to draw (nullptr clears). Redraws; a new fill object is a new matrix.
    void setFill(std::shared_ptr<const HeatmapFill> fill);
    const std::shared_ptr<const HeatmapFill>& fill() const { return m_fill; }
    /// Allows GL interop (default) or forces host uploads.
    void setInteropAllowed(bool allowed);
    /// The text shown without a fill ("No series to show.").
    void setEmptyText(const QString& text);

    /// How the matrix on screen reached the GPU.
    UploadPath matrixPath() const { return m_path; }
    /// The largest texture side this GL offers (0 before initialisation).
    int maxTextureSize() const { return m_maxTextureSize; }
    /// Rows at most: the texture limit, and no more than a screen can tell apart.
    int maxRows() const;
    /// Caps the columns of a fill that allows it below the texture limit (0: the texture
    /// limit only); for tests and small GPUs.
    void setColumnLimit(int columns);
    /// Columns drawn: the fill's, or the first ones that fit when capped.
    std::size_t shownColumns() const;
    /// True when the fill has more columns than are drawn.
    bool isColumnCapped() const;
    /// Why nothing is drawn (a matrix too large for a texture, GL error), or empty.
    QString problem() const { return m_problem; }
    /// The pixel buffer as the GPU holds it (rows x shownColumns() floats, after pending
    /// writes).
    std::vector<float> readMatrixBuffer();
    /// The screen rectangle of the matrix (widget coordinates) and of row r, column c in it.
    QRectF plotRect() const;
    QPointF cellCentre(std::size_t row, std::size_t column) const;
    /// What the mouse at pos (widget coordinates) points at (HeatmapFill::describe), or empty
    /// outside the matrix.
    QString describe(QPointF pos) const;
    /// The matrix row under pos (widget coordinates), or -1 outside the matrix.
    qint64 rowAt(QPointF pos) const;
    /// The labels beside the class band: one per run of rows of one class that is tall enough
    /// for a line of text, with the rectangle it is drawn in (widget coordinates).
    struct ClassLabel {
        int label = -1;
        QString text;
        QRectF rect;
    };
    std::vector<ClassLabel> classLabels() const;
    /// The rectangle of the summary above the matrix (empty without one) and of its row r.
    QRectF summaryRect() const;
    QRectF summaryRowRect(std::size_t row) const;
    /// The summary as drawn (summaryRows() x shownColumns() z-values), recomputed with the fill.
    const std::vector<float>& summaryValues() const { return m_summary; }
    /// Rows drawn as selected (a highlight over the row), one flag per matrix row; empty: none.
    void setMarkedRows(std::vector<std::uint8_t> marked);
    const std::vector<std::uint8_t>& markedRows() const { return m_markedRows; }
    /// True once the latest content was drawn and the frame swapped.
    bool isContentDrawn() const { return m_drawnGeneration == m_contentGeneration; }
    /// The registration of the pixel buffer with the device, if any (for tests).
    bool hasDeviceLink() const { return m_link != nullptr; }
    /// The pixel buffer's GL name (0 before initialisation).
    GLuint pixelBufferId() const { return m_pixelBuffer; }
    /// Why interop is not used, once it failed (empty otherwise).
    QString interopError() const { return m_interop.error(); }

    /// The colour scale spans this many standard deviations either side of the mean.
    static constexpr float kRange = 3.0f;
    /// The summary's scale: ±this many standard deviations (class means of z-scores lie
    /// within ±1 for two balanced classes, and closer to 0 the more classes there are).
    static constexpr float kSummaryRange = 1.0f;
    static constexpr int kDefaultMaxRows = 8192;

signals:
    void contentDrawn();
    /// A left click on matrix row `row`, with these keyboard modifiers.
    void rowClicked(qint64 row, Qt::KeyboardModifiers modifiers);

protected:
    void initializeGL() override;
    void paintGL() override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    /// Subclasses call this when what the fill reads changed without a new fill object.
    void contentChanged(bool refill = true);

private:
    void releaseGl();
    void upload();
    void refreshLayout();
    double leftMargin() const { return m_left; }
    double topMargin() const;
    bool writeOnDevice(std::size_t bytes, std::size_t columns);
    void paintOverlay(QPainter& painter);
    void paintSummary(QPainter& painter);
    void setPath(UploadPath path);

    QString m_viewName;
    QString m_emptyText;
    std::shared_ptr<const HeatmapFill> m_fill;
    std::vector<std::uint8_t> m_markedRows;
    std::vector<float> m_summary;  // summaryRows() x shownColumns(), for the band above
    double m_left = 26.0;          // room left of the matrix: the class band and its labels
    ViewInterop m_interop;
    std::unique_ptr<GlBufferLink> m_link;  // m_pixelBuffer registered with the device
    int m_columnLimit = 0;

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
