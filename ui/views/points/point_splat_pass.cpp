// SPDX-License-Identifier: MIT
#include "ui/views/points/point_splat_pass.h"

#include <QObject>
#include <vector>

#include "ui/views/glsl_source.h"

namespace cs::ui {

PointSplatPass::PointSplatPass() = default;

PointSplatPass::~PointSplatPass() = default;

std::vector<ViewInterop::LinkedBuffer> PointSplatPass::Points::linkedBuffers() const {
    std::vector<ViewInterop::LinkedBuffer> buffers{positions, colours};
    if (mask.link) buffers.push_back(mask);
    return buffers;
}

PointSplatBuffers PointSplatPass::Points::links() const {
    return {positions.link->get(), colours.link->get(), mask.link ? mask.link->get() : nullptr, n};
}

bool PointSplatPass::initialize(bool gles, QString* why) {
    initializeOpenGLFunctions();
    const QByteArray vert = glslSource(QStringLiteral(":/shaders/splat.vert"), gles);
    const QByteArray frag = glslSource(QStringLiteral(":/shaders/splat.frag"), gles);
    auto program = std::make_unique<QOpenGLShaderProgram>();
    if (vert.isEmpty() || frag.isEmpty() ||
        !program->addShaderFromSourceCode(QOpenGLShader::Vertex, vert) ||
        !program->addShaderFromSourceCode(QOpenGLShader::Fragment, frag) || !program->link()) {
        if (why)
            *why = vert.isEmpty() || frag.isEmpty()
                       ? QObject::tr("the splat shaders are missing from the resources")
                       : QObject::tr("the splat shaders did not build: %1")
                             .arg(program->log().trimmed());
        return false;
    }
    m_program = std::move(program);
    m_vao.create();
    m_image.create();
    glGenTextures(1, &m_texture);
    return true;
}

void PointSplatPass::release(bool contextCurrent) {
    m_imageLink.reset();  // before the buffer goes
    m_program.reset();
    if (m_vao.isCreated()) m_vao.destroy();
    if (m_image.isCreated()) m_image.destroy();
    if (m_texture && contextCurrent) glDeleteTextures(1, &m_texture);
    m_texture = 0;
    m_width = m_height = 0;
}

void PointSplatPass::resize(std::uint32_t width, std::uint32_t height) {
    if (width == m_width && height == m_height) return;
    m_imageLink.reset();  // new storage below
    m_image.bind();
    glBufferData(GL_PIXEL_UNPACK_BUFFER,
                 GLsizeiptr(std::size_t(width) * height * sizeof(SplatPixel)), nullptr,
                 GL_STREAM_DRAW);
    m_image.release();
    glBindTexture(GL_TEXTURE_2D, m_texture);
    // Integer textures are read with texelFetch: no filtering, no mipmaps.
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAX_LEVEL, 0);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RG32UI, GLsizei(width), GLsizei(height), 0, GL_RG_INTEGER,
                 GL_UNSIGNED_INT, nullptr);
    glBindTexture(GL_TEXTURE_2D, 0);
    m_width = width;
    m_height = height;
}

bool PointSplatPass::draw(ViewInterop& interop, const Points& points, const PointSplatView& view) {
    if (!m_program || view.width == 0 || view.height == 0) return false;
    resize(view.width, view.height);
    std::vector<ViewInterop::LinkedBuffer> buffers = points.linkedBuffers();
    buffers.push_back(
        {&m_imageLink, m_image.bufferId(), std::size_t(m_width) * m_height * sizeof(SplatPixel)});
    const bool splatted = interop.run(
        buffers, [&](GlInterop& gl) { gl.splatPoints(points.links(), view, *m_imageLink); },
        QObject::tr("drawing the points"), QObject::tr("drawing them with GL"));
    if (!splatted) return false;

    // The pixel buffer into the texture, on the GPU: little-endian words put the colour in red
    // and the depth in green.
    m_image.bind();
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, m_texture);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 8);
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, GLsizei(m_width), GLsizei(m_height), GL_RG_INTEGER,
                    GL_UNSIGNED_INT, nullptr);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    m_image.release();

    m_program->bind();
    m_program->setUniformValue("u_splat", 0);
    {
        QOpenGLVertexArrayObject::Binder binder(&m_vao);
        glDrawArrays(GL_TRIANGLES, 0, 3);
    }
    m_program->release();
    glBindTexture(GL_TEXTURE_2D, 0);
    return true;
}

}  // namespace cs::ui
