// SPDX-License-Identifier: MIT
#pragma once

#include <QOpenGLBuffer>
#include <QOpenGLExtraFunctions>
#include <QOpenGLShaderProgram>
#include <QOpenGLVertexArrayObject>
#include <QString>
#include <cstdint>
#include <memory>
#include <vector>

#include "compute/backend/gl_interop.h"
#include "compute/core/point_splat.h"
#include "ui/views/view_interop.h"

namespace cs::ui {

/// The point view's CUDA renderer: the points splatted by GlInterop::splatPoints into a pixel
/// buffer (compute/core/point_splat.h: the rule of GL's round points, written once for CUDA and
/// the CPU), copied into an integer texture on the GPU and drawn by one full-screen triangle
/// that writes each pixel's colour and depth, so that the edges and markers drawn with GL meet
/// the points as they meet GL's points. The GPU's rasteriser draws a few hundred million points
/// a second (an H200: 28 ms for 10 million); a splat keeps them on the CUDA cores.
///
/// Used on the GUI thread with the view's context current; release() before that context goes.
class PointSplatPass : protected QOpenGLExtraFunctions {
public:
    PointSplatPass();
    ~PointSplatPass();
    PointSplatPass(const PointSplatPass&) = delete;
    PointSplatPass& operator=(const PointSplatPass&) = delete;

    /// Builds the shaders and GL objects in the current context (after release() of an earlier
    /// one); false (and why) when they do not build.
    bool initialize(bool gles, QString* why);
    bool isInitialized() const { return bool(m_program); }
    /// Drops the image's registration and frees the GL objects; GL calls only when the context
    /// is current (else it is gone, and its objects with it).
    void release(bool contextCurrent);

    /// The view's point buffers (ViewInterop::LinkedBuffer each; mask.link null: no mask).
    struct Points {
        ViewInterop::LinkedBuffer positions;
        ViewInterop::LinkedBuffer colours;
        ViewInterop::LinkedBuffer mask;
        std::size_t n = 0;
        /// The buffers to link before a splat (the mask only when there is one).
        std::vector<ViewInterop::LinkedBuffer> linkedBuffers() const;
        /// The links, once linkedBuffers() are linked, as GlInterop takes them.
        PointSplatBuffers links() const;
    };
    /// Splats the points for view (its width and height: the framebuffer's) and draws them with
    /// the depth test as set; false when interop failed (logged; the view draws with GL).
    bool draw(ViewInterop& interop, const Points& points, const PointSplatView& view);

    /// The pixel buffer CUDA splats into (width() x height() SplatPixels once drawn).
    const QOpenGLBuffer& imageBuffer() const { return m_image; }
    std::uint32_t width() const { return m_width; }
    std::uint32_t height() const { return m_height; }

private:
    void resize(std::uint32_t width, std::uint32_t height);

    std::unique_ptr<QOpenGLShaderProgram> m_program;
    QOpenGLVertexArrayObject m_vao;  // none of the view's attributes: the triangle needs none
    QOpenGLBuffer m_image{QOpenGLBuffer::PixelUnpackBuffer};
    std::unique_ptr<GlBufferLink> m_imageLink;
    GLuint m_texture = 0;
    std::uint32_t m_width = 0;
    std::uint32_t m_height = 0;
};

}  // namespace cs::ui
