// SPDX-License-Identifier: MIT
#pragma once

#include <QOpenGLBuffer>
#include <QOpenGLExtraFunctions>
#include <QOpenGLShaderProgram>
#include <QOpenGLVertexArrayObject>
#include <QString>
#include <cstdint>
#include <memory>

#include "compute/backend/gl_interop.h"
#include "compute/core/edge_splat.h"
#include "ui/views/points/point_splat_pass.h"
#include "ui/views/view_interop.h"

namespace cs::ui {

/// The point view's CUDA renderer for kNN edges: the edges splatted by GlInterop::splatEdges
/// into a pixel buffer of RGBA8 (compute/core/edge_splat.h: GL's one-pixel lines, their colours
/// and alphas, blended per pixel in no particular order), copied into a texture on the GPU and
/// drawn by one full-screen triangle with the blending the caller set. The H200's rasteriser
/// draws a 1M-point graph's 10 million lines in 37 ms; a splat keeps them on the CUDA cores.
///
/// Used on the GUI thread with the view's context current; release() before that context goes.
class EdgeSplatPass : protected QOpenGLExtraFunctions {
public:
    EdgeSplatPass();
    ~EdgeSplatPass();
    EdgeSplatPass(const EdgeSplatPass&) = delete;
    EdgeSplatPass& operator=(const EdgeSplatPass&) = delete;

    /// Builds the shaders and GL objects in the current context; false (and why) when they do
    /// not build.
    bool initialize(bool gles, QString* why);
    bool isInitialized() const { return bool(m_program); }
    /// Drops the image's registration and frees the GL objects (GL calls only when the context
    /// is current).
    void release(bool contextCurrent);

    /// The edges: the view's points and its element buffer of 2 * edgeCount indices.
    struct Edges {
        PointSplatPass::Points points;
        ViewInterop::LinkedBuffer indices;
        std::size_t edgeCount = 0;
    };
    /// Splats the edges for view and draws them; the outcome's drawn is false when they were
    /// not (too many pixels for a splat: GL draws them) or when interop failed (logged;
    /// *failed is then set).
    EdgeSplatOutcome draw(ViewInterop& interop, const Edges& edges, const EdgeSplatView& view,
                          bool* failed);

    /// The pixel buffer CUDA splats into (width() x height() RGBA8 words once drawn).
    const QOpenGLBuffer& imageBuffer() const { return m_image; }

private:
    void resize(std::uint32_t width, std::uint32_t height);

    std::unique_ptr<QOpenGLShaderProgram> m_program;
    QOpenGLVertexArrayObject m_vao;
    QOpenGLBuffer m_image{QOpenGLBuffer::PixelUnpackBuffer};
    std::unique_ptr<GlBufferLink> m_imageLink;
    GLuint m_texture = 0;
    std::uint32_t m_width = 0;
    std::uint32_t m_height = 0;
};

}  // namespace cs::ui
