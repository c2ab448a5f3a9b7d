// SPDX-License-Identifier: MIT
#include "ui/views/points/edge_splat_pass.h"

#include <QObject>
#include <vector>

#include "ui/views/glsl_source.h"

namespace cs::ui {

EdgeSplatPass::EdgeSplatPass() = default;

EdgeSplatPass::~EdgeSplatPass() = default;

bool EdgeSplatPass::initialize(bool gles, QString* why) {
    initializeOpenGLFunctions();
    // The points' full-screen triangle serves the edges too.
    const QByteArray vert = glslSource(QStringLiteral(":/shaders/splat.vert"), gles);
    const QByteArray frag = glslSource(QStringLiteral(":/shaders/edge_splat.frag"), gles);
    auto program = std::make_unique<QOpenGLShaderProgram>();
    if (vert.isEmpty() || frag.isEmpty() ||
        !program->addShaderFromSourceCode(QOpenGLShader::Vertex, vert) ||
        !program->addShaderFromSourceCode(QOpenGLShader::Fragment, frag) || !program->link()) {
        if (why)
            *why = vert.isEmpty() || frag.isEmpty()
                       ? QObject::tr("the edge splat shaders are missing from the resources")
                       : QObject::tr("the edge splat shaders did not build: %1")
                             .arg(program->log().trimmed());
        return false;
    }
    m_program = std::move(program);
    m_vao.create();
    m_image.create();
    glGenTextures(1, &m_texture);
    return true;
}

void EdgeSplatPass::release(bool contextCurrent) {
    m_imageLink.reset();  // before the buffer goes
    m_program.reset();
    if (m_vao.isCreated()) m_vao.destroy();
    if (m_image.isCreated()) m_image.destroy();
    if (m_texture && contextCurrent) glDeleteTextures(1, &m_texture);
    m_texture = 0;
    m_width = m_height = 0;
}

void EdgeSplatPass::resize(std::uint32_t width, std::uint32_t height) {
    if (width == m_width && height == m_height) return;
    m_imageLink.reset();  // new storage below
    m_image.bind();
    glBufferData(GL_PIXEL_UNPACK_BUFFER,
                 GLsizeiptr(std::size_t(width) * height * sizeof(std::uint32_t)), nullptr,
                 GL_STREAM_DRAW);
    m_image.release();
    glBindTexture(GL_TEXTURE_2D, m_texture);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAX_LEVEL, 0);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, GLsizei(width), GLsizei(height), 0, GL_RGBA,
                 GL_UNSIGNED_BYTE, nullptr);
    glBindTexture(GL_TEXTURE_2D, 0);
    m_width = width;
    m_height = height;
}

EdgeSplatOutcome EdgeSplatPass::draw(ViewInterop& interop, const Edges& edges,
                                     const EdgeSplatView& view, bool* failed) {
    if (!m_program || view.width == 0 || view.height == 0) return {};
    resize(view.width, view.height);
    std::vector<ViewInterop::LinkedBuffer> buffers = edges.points.linkedBuffers();
    buffers.push_back(edges.indices);
    buffers.push_back({&m_imageLink, m_image.bufferId(),
                       std::size_t(m_width) * m_height * sizeof(std::uint32_t)});
    EdgeSplatOutcome outcome;
    const bool ran = interop.run(
        buffers,
        [&](GlInterop& gl) {
            outcome =
                gl.splatEdges({edges.points.links(), edges.indices.link->get(), edges.edgeCount},
                              view, *m_imageLink);
        },
        QObject::tr("drawing the edges"), QObject::tr("drawing them with GL"));
    if (!ran) {
        if (failed) *failed = true;
        return {};
    }
    if (!outcome.drawn) return outcome;

    // Little-endian RGBA8 words are GL_RGBA bytes.
    m_image.bind();
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, m_texture);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, GLsizei(m_width), GLsizei(m_height), GL_RGBA,
                    GL_UNSIGNED_BYTE, nullptr);
    m_image.release();

    m_program->bind();
    m_program->setUniformValue("u_edges", 0);
    {
        QOpenGLVertexArrayObject::Binder binder(&m_vao);
        glDrawArrays(GL_TRIANGLES, 0, 3);
    }
    m_program->release();
    glBindTexture(GL_TEXTURE_2D, 0);
    return outcome;
}

}  // namespace cs::ui
