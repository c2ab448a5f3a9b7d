// SPDX-License-Identifier: MIT
#include "ui/views/series/matrix_heatmap_view.h"

#include <QImage>
#include <QLinearGradient>
#include <QMouseEvent>
#include <QOpenGLContext>
#include <QOpenGLPaintDevice>
#include <QPainter>
#include <QToolTip>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "compute/backend/gl_interop.h"
#include "compute/core/error.h"
#include "ui/shell/logger.h"
#include "ui/views/colour_maps.h"
#include "ui/views/glsl_source.h"

namespace cs::ui {
namespace {

// Room around the matrix: the class band (and its labels) on the left, the title above, the
// colour bar on the right, the column caption below (logical pixels).
constexpr int kBandWidth = 10;
constexpr int kLeft = 12 + kBandWidth + 4;
constexpr int kMaxLabelWidth = 110;
constexpr int kTop = 30;
// The summary above the matrix: rows of this height at most, and no more than this share of
// the height in all.
constexpr double kSummaryRowHeight = 14.0;
constexpr double kSummaryShare = 0.3;
constexpr double kSummaryGap = 6.0;
constexpr int kRight = 64;
constexpr int kBottom = 26;

QString capitalised(QString text) {
    if (!text.isEmpty()) text[0] = text[0].toUpper();
    return text;
}

}  // namespace

void HeatmapFill::writeOnDevice(GlBufferLink&, std::size_t) const {
    throw Error("this heat map has no device copy to write from");
}

std::vector<float> HeatmapFill::summaryMatrix(std::size_t) const {
    return {};
}

MatrixHeatmapView::MatrixHeatmapView(QString viewName, QWidget* parent)
    : QOpenGLWidget(parent),
      m_viewName(std::move(viewName)),
      m_emptyText(tr("Nothing to show.")),
      m_interop(m_viewName) {
    setMinimumSize(200, 150);
    setMouseTracking(true);  // the read-out follows the pointer
    connect(this, &QOpenGLWidget::frameSwapped, this, [this] {
        const bool wasDrawn = isContentDrawn();
        m_drawnGeneration = m_paintedGeneration;
        if (!wasDrawn && isContentDrawn()) emit contentDrawn();
    });
}

MatrixHeatmapView::~MatrixHeatmapView() {
    releaseGl();
    if (context()) disconnect(context(), nullptr, this, nullptr);
}

void MatrixHeatmapView::setFill(std::shared_ptr<const HeatmapFill> fill) {
    m_fill = std::move(fill);
    contentChanged();
}

void MatrixHeatmapView::setEmptyText(const QString& text) {
    m_emptyText = text;
    contentChanged(false);
}

void MatrixHeatmapView::setInteropAllowed(bool allowed) {
    if (allowed == m_interop.allowed()) return;
    m_interop.setAllowed(allowed);
    contentChanged();
}

void MatrixHeatmapView::setColumnLimit(int columns) {
    m_columnLimit = std::max(0, columns);
    contentChanged();
}

int MatrixHeatmapView::maxRows() const {
    return m_maxTextureSize > 0 ? std::min(kDefaultMaxRows, m_maxTextureSize) : kDefaultMaxRows;
}

std::size_t MatrixHeatmapView::shownColumns() const {
    if (!m_fill) return 0;
    const std::size_t all = m_fill->columns();
    if (!m_fill->mayCapColumns()) return all;
    std::size_t limit = all;
    if (m_maxTextureSize > 0) limit = std::min(limit, std::size_t(m_maxTextureSize));
    if (m_columnLimit > 0) limit = std::min(limit, std::size_t(m_columnLimit));
    return limit;
}

bool MatrixHeatmapView::isColumnCapped() const {
    return m_fill && shownColumns() < m_fill->columns();
}

void MatrixHeatmapView::contentChanged(bool refill) {
    if (refill) {
        m_dirty = true;
        refreshLayout();
    }
    ++m_contentGeneration;
    update();
}

void MatrixHeatmapView::refreshLayout() {
    // The class labels take the room their longest name needs, within reason.
    m_left = kLeft;
    m_summary.clear();
    if (!m_fill || m_fill->rows() == 0) return;
    const QFontMetrics fm(font());
    int widest = 0;
    int previous = std::numeric_limits<int>::min();
    for (std::size_t r = 0; r < m_fill->rows(); ++r) {
        const int label = m_fill->rowClass(r);
        if (label == previous) continue;
        previous = label;
        if (label >= 0) widest = std::max(widest, fm.horizontalAdvance(m_fill->className(label)));
    }
    for (std::size_t r = 0; r < m_fill->summaryRows(); ++r)
        if (const int label = m_fill->summaryClass(r); label >= 0)
            widest = std::max(widest, fm.horizontalAdvance(m_fill->className(label)));
    if (widest > 0) m_left = kLeft + std::min(widest, kMaxLabelWidth) + 4;
    if (m_fill->summaryRows() > 0) {
        try {
            m_summary = m_fill->summaryMatrix(shownColumns());
        } catch (const Error& e) {
            logError(tr("%1: the summary: %2").arg(m_viewName, QString::fromUtf8(e.what())));
        }
        if (m_summary.size() != m_fill->summaryRows() * shownColumns()) m_summary.clear();
    }
}

double MatrixHeatmapView::topMargin() const {
    if (m_summary.empty() || !m_fill) return kTop;
    const double room = kSummaryShare * double(std::max(1, height() - kTop - kBottom));
    const double rows = std::min(kSummaryRowHeight * double(m_fill->summaryRows()), room);
    return kTop + 16.0 + rows + kSummaryGap;  // a caption line, the rows, a gap
}

QRectF MatrixHeatmapView::summaryRect() const {
    if (m_summary.empty() || !m_fill) return {};
    const double top = kTop + 16.0;
    return QRectF(m_left, top, std::max(1.0, width() - m_left - kRight),
                  std::max(1.0, topMargin() - kSummaryGap - top));
}

QRectF MatrixHeatmapView::summaryRowRect(std::size_t row) const {
    const QRectF all = summaryRect();
    if (all.isEmpty() || row >= m_fill->summaryRows()) return {};
    const double h = all.height() / double(m_fill->summaryRows());
    return QRectF(all.left(), all.top() + double(row) * h, all.width(), h);
}

std::vector<MatrixHeatmapView::ClassLabel> MatrixHeatmapView::classLabels() const {
    std::vector<ClassLabel> out;
    if (!m_fill || m_fill->rows() == 0) return out;
    const QRectF plot = plotRect();
    const std::size_t rows = m_fill->rows();
    const double rowHeight = plot.height() / double(rows);
    const QFontMetrics fm(font());
    const double width = m_left - kLeft - 2.0;
    if (width < 8.0) return out;
    std::size_t start = 0;
    for (std::size_t r = 1; r <= rows; ++r) {
        if (r < rows && m_fill->rowClass(r) == m_fill->rowClass(start)) continue;
        const int label = m_fill->rowClass(start);
        const double height = double(r - start) * rowHeight;
        if (label >= 0 && height >= fm.height()) {
            const QRectF rect(2.0, plot.top() + double(start) * rowHeight, width, height);
            out.push_back(
                {label, fm.elidedText(m_fill->className(label), Qt::ElideRight, int(width)), rect});
        }
        start = r;
    }
    return out;
}

QRectF MatrixHeatmapView::plotRect() const {
    const double top = topMargin();
    return QRectF(m_left, top, std::max(1.0, width() - m_left - kRight),
                  std::max(1.0, height() - top - kBottom));
}

QPointF MatrixHeatmapView::cellCentre(std::size_t row, std::size_t column) const {
    const QRectF plot = plotRect();
    const double rows = double(std::max<std::size_t>(m_fill ? m_fill->rows() : 1, 1));
    const double cols = double(std::max<std::size_t>(shownColumns(), 1));
    return {plot.left() + (double(column) + 0.5) * plot.width() / cols,
            plot.top() + (double(row) + 0.5) * plot.height() / rows};
}

QString MatrixHeatmapView::describe(QPointF pos) const {
    const QRectF plot = plotRect();
    const std::size_t cols = shownColumns();
    if (!m_fill || m_fill->rows() == 0 || cols == 0 || !plot.contains(pos)) return {};
    const std::size_t rows = m_fill->rows();
    const auto row =
        std::min(rows - 1, std::size_t((pos.y() - plot.top()) / plot.height() * double(rows)));
    const auto column =
        std::min(cols - 1, std::size_t((pos.x() - plot.left()) / plot.width() * double(cols)));
    return m_fill->describe(row, column);
}

qint64 MatrixHeatmapView::rowAt(QPointF pos) const {
    const QRectF plot = plotRect();
    if (!m_fill || m_fill->rows() == 0 || shownColumns() == 0 || !plot.contains(pos)) return -1;
    const std::size_t rows = m_fill->rows();
    return qint64(
        std::min(rows - 1, std::size_t((pos.y() - plot.top()) / plot.height() * double(rows))));
}

void MatrixHeatmapView::setMarkedRows(std::vector<std::uint8_t> marked) {
    m_markedRows = std::move(marked);
    update();  // the overlay only: the matrix itself is unchanged
}

void MatrixHeatmapView::mouseReleaseEvent(QMouseEvent* event) {
    if (event->button() == Qt::LeftButton) {
        const qint64 row = rowAt(event->position());
        if (row >= 0) emit rowClicked(row, event->modifiers());
    }
    QOpenGLWidget::mouseReleaseEvent(event);
}

void MatrixHeatmapView::mouseMoveEvent(QMouseEvent* event) {
    const QString text = describe(event->position());
    if (text.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(event->globalPosition().toPoint(), text, this);
    QOpenGLWidget::mouseMoveEvent(event);
}

void MatrixHeatmapView::initializeGL() {
    initializeOpenGLFunctions();
    connect(context(), &QOpenGLContext::aboutToBeDestroyed, this, &MatrixHeatmapView::releaseGl,
            Qt::UniqueConnection);
    const bool gles = context()->isOpenGLES();
    m_program = std::make_unique<QOpenGLShaderProgram>();
    const QByteArray vert = glslSource(QStringLiteral(":/shaders/heatmap.vert"), gles);
    const QByteArray frag = glslSource(QStringLiteral(":/shaders/heatmap.frag"), gles);
    m_glReady = !vert.isEmpty() && !frag.isEmpty() &&
                m_program->addShaderFromSourceCode(QOpenGLShader::Vertex, vert) &&
                m_program->addShaderFromSourceCode(QOpenGLShader::Fragment, frag) &&
                m_program->link();
    if (!m_glReady) {
        m_problem = tr("the heat map shaders did not build: %1").arg(m_program->log().trimmed());
        logError(tr("%1: %2").arg(m_viewName, m_problem));
        return;
    }
    m_vao.create();
    glGetIntegerv(GL_MAX_TEXTURE_SIZE, &m_maxTextureSize);
    GLuint textures[2] = {0, 0};
    glGenTextures(2, textures);
    m_texture = textures[0];
    m_colourMap = textures[1];
    std::vector<std::uint32_t> map(256);
    for (int i = 0; i < 256; ++i)
        map[std::size_t(i)] = ColourMaps::viridisRgba(float(i) / 255.0f);
    glBindTexture(GL_TEXTURE_2D, m_colourMap);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, 256, 1, 0, GL_RGBA, GL_UNSIGNED_BYTE, map.data());
    for (const GLuint t : {m_colourMap, m_texture}) {
        glBindTexture(GL_TEXTURE_2D, t);
        // Nearest: a cell is one value, and NaN padding must not bleed into its neighbours.
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    }
    glBindTexture(GL_TEXTURE_2D, 0);
    glGenBuffers(1, &m_pixelBuffer);
    m_pixelBytes = 0;
    m_texRows = m_texCols = 0;
    m_dirty = true;
}

void MatrixHeatmapView::releaseGl() {
    if (!m_glReady && !m_program) return;
    const bool current = context() && context()->isValid();
    if (current) makeCurrent();
    // Unregistered while the context is current and the buffer still exists.
    m_link.reset();
    if (current) {
        const GLuint textures[2] = {m_texture, m_colourMap};
        glDeleteTextures(2, textures);
        glDeleteBuffers(1, &m_pixelBuffer);
    }
    m_texture = m_colourMap = m_pixelBuffer = 0;
    m_vao.destroy();
    m_program.reset();
    m_pixelBytes = 0;
    m_texRows = m_texCols = 0;
    m_glReady = false;
    if (current) doneCurrent();
}

void MatrixHeatmapView::setPath(UploadPath path) {
    if (path == m_path) return;
    m_path = path;
    if (path == UploadPath::Interop)
        logInfo(tr("%1: written on the GPU into the pixel buffer (%2)")
                    .arg(capitalised(m_viewName), m_interop.description()));
    else if (path == UploadPath::HostUpload)
        logInfo(tr("%1: computed on the host and uploaded%2")
                    .arg(capitalised(m_viewName),
                         m_fill && m_fill->hasDeviceSource() && !m_interop.error().isEmpty()
                             ? tr(" (GL interop unavailable: %1)").arg(m_interop.error())
                         : m_fill && !m_fill->hasDeviceSource()
                             ? tr(" (no device copy of %1)").arg(m_fill->what())
                             : QString()));
}

bool MatrixHeatmapView::writeOnDevice(std::size_t bytes, std::size_t columns) {
    if (!m_fill->hasDeviceSource() || !m_interop.ready()) return false;
    if (bytes != m_pixelBytes) {
        m_link.reset();  // new storage: the old registration goes first
        glBindBuffer(GL_PIXEL_UNPACK_BUFFER, m_pixelBuffer);
        glBufferData(GL_PIXEL_UNPACK_BUFFER, GLsizeiptr(bytes), nullptr, GL_STREAM_DRAW);
        glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
        m_pixelBytes = bytes;
    }
    const auto fill = m_fill;  // kept alive through the write
    return m_interop.write(
        m_link, m_pixelBuffer, bytes,
        [&](GlBufferLink& link) { fill->writeOnDevice(link, columns); }, fill->what());
}

void MatrixHeatmapView::upload() {
    m_dirty = false;
    m_problem.clear();
    m_texRows = m_texCols = 0;
    const std::size_t rows = m_fill ? m_fill->rows() : 0;
    const std::size_t cols = shownColumns();
    if (rows == 0 || cols == 0) return;
    if (cols > std::size_t(m_maxTextureSize) || rows > std::size_t(m_maxTextureSize)) {
        m_problem = tr("%1 rows of %2 columns do not fit this GPU's largest texture (%3)")
                        .arg(rows)
                        .arg(cols)
                        .arg(m_maxTextureSize);
        return;
    }
    while (glGetError() != GL_NO_ERROR) {
    }
    const std::size_t bytes = rows * cols * sizeof(float);
    if (writeOnDevice(bytes, cols)) {
        setPath(UploadPath::Interop);
    } else {
        std::vector<float> matrix;
        try {
            matrix = m_fill->hostMatrix(cols);
            if (matrix.size() != rows * cols) throw Error("the matrix has the wrong size");
        } catch (const Error& e) {
            m_problem = QString::fromUtf8(e.what());
            return;
        }
        glBindBuffer(GL_PIXEL_UNPACK_BUFFER, m_pixelBuffer);
        if (bytes != m_pixelBytes) {
            m_link.reset();  // the registration goes before the storage it names
            glBufferData(GL_PIXEL_UNPACK_BUFFER, GLsizeiptr(bytes), matrix.data(), GL_STREAM_DRAW);
            m_pixelBytes = bytes;
        } else {
            glBufferSubData(GL_PIXEL_UNPACK_BUFFER, 0, GLsizeiptr(bytes), matrix.data());
        }
        glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
        setPath(UploadPath::HostUpload);
    }
    // The texture takes the pixel buffer's contents: no copy through host memory on either path.
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, m_pixelBuffer);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glBindTexture(GL_TEXTURE_2D, m_texture);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_R32F, GLsizei(cols), GLsizei(rows), 0, GL_RED, GL_FLOAT,
                 nullptr);
    glBindTexture(GL_TEXTURE_2D, 0);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    const GLenum error = glGetError();
    if (error != GL_NO_ERROR) {
        m_problem = error == GL_OUT_OF_MEMORY
                        ? tr("not enough GPU memory for a %1 × %2 heat map").arg(rows).arg(cols)
                        : tr("uploading the heat map failed (GL error 0x%1)").arg(error, 0, 16);
        logError(tr("%1: %2").arg(m_viewName, m_problem));
        return;
    }
    m_texRows = rows;
    m_texCols = cols;
}

std::vector<float> MatrixHeatmapView::readMatrixBuffer() {
    std::vector<float> out;
    if (!m_glReady || !context()) return out;
    makeCurrent();
    if (m_dirty) upload();
    const std::size_t bytes = m_texRows * m_texCols * sizeof(float);
    if (bytes > 0) {
        glBindBuffer(GL_PIXEL_UNPACK_BUFFER, m_pixelBuffer);
        const void* mapped =
            glMapBufferRange(GL_PIXEL_UNPACK_BUFFER, 0, GLsizeiptr(bytes), GL_MAP_READ_BIT);
        if (mapped) {
            out.resize(bytes / sizeof(float));
            std::memcpy(out.data(), mapped, bytes);
            glUnmapBuffer(GL_PIXEL_UNPACK_BUFFER);
        }
        glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    }
    doneCurrent();
    return out;
}

void MatrixHeatmapView::paintGL() {
    const QColor bg = palette().color(QPalette::Base);
    glClearColor(bg.redF(), bg.greenF(), bg.blueF(), 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    if (m_glReady) {
        if (m_dirty) upload();
        if (m_texRows > 0) {
            const qreal dpr = devicePixelRatioF();
            const QRectF plot = plotRect();
            GLint previous[4];
            glGetIntegerv(GL_VIEWPORT, previous);
            // GL's viewport origin is the bottom-left corner.
            glViewport(GLint(plot.left() * dpr), GLint((height() - plot.bottom()) * dpr),
                       GLsizei(plot.width() * dpr), GLsizei(plot.height() * dpr));
            glDisable(GL_DEPTH_TEST);
            glDisable(GL_BLEND);
            m_program->bind();
            glActiveTexture(GL_TEXTURE0);
            glBindTexture(GL_TEXTURE_2D, m_texture);
            glActiveTexture(GL_TEXTURE1);
            glBindTexture(GL_TEXTURE_2D, m_colourMap);
            m_program->setUniformValue("u_values", 0);
            m_program->setUniformValue("u_colourMap", 1);
            m_program->setUniformValue("u_lo", -kRange);
            m_program->setUniformValue("u_hi", kRange);
            m_program->setUniformValue("u_background",
                                       QVector3D(bg.redF(), bg.greenF(), bg.blueF()));
            {
                QOpenGLVertexArrayObject::Binder vaoBinder(&m_vao);
                glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
            }
            m_program->release();
            glBindTexture(GL_TEXTURE_2D, 0);
            glActiveTexture(GL_TEXTURE0);
            glBindTexture(GL_TEXTURE_2D, 0);
            glViewport(previous[0], previous[1], previous[2], previous[3]);
        }
    }
    const qreal dpr = devicePixelRatioF();
    QOpenGLPaintDevice device(QSize(qRound(width() * dpr), qRound(height() * dpr)));
    device.setDevicePixelRatio(dpr);
    QPainter painter(&device);
    painter.setFont(glOverlayFont(font()));
    paintOverlay(painter);
    painter.end();
    m_paintedGeneration = m_contentGeneration;
}

void MatrixHeatmapView::paintSummary(QPainter& painter) {
    const QRectF area = summaryRect();
    if (area.isEmpty() || !m_fill) return;
    const QPalette pal = palette();
    const std::size_t rows = m_fill->summaryRows();
    const std::size_t cols = m_summary.size() / rows;
    // One pixel per value, scaled without smoothing: a cell is one value, as in the matrix.
    QImage image(int(cols), int(rows), QImage::Format_RGB32);
    const QColor bg = pal.color(QPalette::Base);
    for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t c = 0; c < cols; ++c) {
            const float z = m_summary[r * cols + c];
            image.setPixelColor(
                int(c), int(r),
                std::isnan(z)
                    ? bg
                    : ColourMaps::viridis(std::clamp(
                          (double(z) + kSummaryRange) / (2.0 * kSummaryRange), 0.0, 1.0)));
        }
    painter.save();
    painter.setRenderHint(QPainter::SmoothPixmapTransform, false);
    painter.drawImage(area, image);
    painter.restore();
    const QFontMetrics fm(painter.font());
    painter.setPen(pal.color(QPalette::PlaceholderText));
    painter.drawText(QRectF(m_left, kTop, area.width(), 16.0), Qt::AlignLeft | Qt::AlignVCenter,
                     m_fill->summaryTitle());
    for (std::size_t r = 0; r < rows; ++r) {
        const QRectF row = summaryRowRect(r);
        const int label = m_fill->summaryClass(r);
        painter.fillRect(QRectF(m_left - 4 - kBandWidth, row.top(), kBandWidth, row.height()),
                         label >= 0 ? ColourMaps::categorical(label) : pal.color(QPalette::Mid));
        if (label >= 0 && row.height() >= fm.height() - 2) {
            painter.setPen(pal.color(QPalette::Text));
            const double w = m_left - kLeft - 2.0;
            painter.drawText(QRectF(2.0, row.top(), w, row.height()),
                             Qt::AlignRight | Qt::AlignVCenter,
                             fm.elidedText(m_fill->className(label), Qt::ElideRight, int(w)));
        }
    }
}

void MatrixHeatmapView::paintOverlay(QPainter& painter) {
    const QPalette pal = palette();
    painter.setRenderHint(QPainter::TextAntialiasing, true);
    const QRectF plot = plotRect();
    if (!m_problem.isEmpty() || !m_fill || m_fill->rows() == 0) {
        painter.setPen(pal.color(m_problem.isEmpty() ? QPalette::PlaceholderText : QPalette::Text));
        painter.drawText(rect().adjusted(12, 12, -12, -12), Qt::AlignCenter | Qt::TextWordWrap,
                         m_problem.isEmpty()
                             ? m_emptyText
                             : tr("The heat map cannot be drawn:\n%1").arg(m_problem));
        return;
    }
    const HeatmapFill& fill = *m_fill;
    const std::size_t rows = fill.rows();
    painter.setPen(pal.color(QPalette::Text));
    painter.drawText(QRectF(m_left, 4, width() - m_left - kRight, kTop - 6),
                     Qt::AlignLeft | Qt::AlignVCenter, fill.title(shownColumns()));
    // The class band: one rectangle per run of rows of one class, named at its left.
    const double rowHeight = plot.height() / double(rows);
    std::size_t start = 0;
    for (std::size_t r = 1; r <= rows; ++r) {
        if (r < rows && fill.rowClass(r) == fill.rowClass(start)) continue;
        const int label = fill.rowClass(start);
        painter.fillRect(QRectF(m_left - 4 - kBandWidth, plot.top() + double(start) * rowHeight,
                                kBandWidth, double(r - start) * rowHeight),
                         label >= 0 ? ColourMaps::categorical(label) : pal.color(QPalette::Mid));
        start = r;
    }
    painter.setPen(pal.color(QPalette::Text));
    for (const ClassLabel& l : classLabels())
        painter.drawText(l.rect, Qt::AlignRight | Qt::AlignVCenter, l.text);
    paintSummary(painter);
    // Selected rows: a translucent highlight over the row, and a tick beside the class band.
    if (m_markedRows.size() == rows) {
        QColor over = pal.color(QPalette::Highlight);
        over.setAlpha(110);
        for (std::size_t r = 0; r < rows; ++r) {
            if (!m_markedRows[r]) continue;
            const QRectF row(plot.left(), plot.top() + double(r) * rowHeight, plot.width(),
                             std::max(rowHeight, 1.0));
            painter.fillRect(row, over);
            painter.fillRect(QRectF(m_left - 3, row.top(), 3, row.height()),
                             pal.color(QPalette::Highlight));
        }
    }
    // The colour bar and its scale.
    const QRectF bar(plot.right() + 10, plot.top(), 12, plot.height());
    QLinearGradient gradient(bar.bottomLeft(), bar.topLeft());
    for (int k = 0; k <= 8; ++k)
        gradient.setColorAt(k / 8.0, ColourMaps::viridis(k / 8.0));
    painter.fillRect(bar, gradient);
    painter.setPen(pal.color(QPalette::Text));
    const QFontMetrics fm(painter.font());
    painter.drawText(QPointF(bar.right() + 4, bar.top() + fm.ascent()), tr("+%1σ").arg(kRange));
    painter.drawText(QPointF(bar.right() + 4, bar.center().y() + fm.ascent() / 2.0), tr("0"));
    painter.drawText(QPointF(bar.right() + 4, bar.bottom()), tr("−%1σ").arg(kRange));
    painter.setPen(pal.color(QPalette::PlaceholderText));
    painter.drawText(QRectF(plot.left(), plot.bottom() + 4, plot.width(), kBottom - 4),
                     Qt::AlignLeft | Qt::AlignTop, fill.columnCaption());
}

}  // namespace cs::ui
