// SPDX-License-Identifier: MIT
#pragma once

#include <QOpenGLFunctions>
#include <QString>
#include <cstddef>
#include <functional>
#include <memory>
#include <span>

namespace cs {
class GlInterop;
class GlBufferLink;
}  // namespace cs

namespace cs::ui {

/// A GL view's side of CUDA–GL interop (compute/backend/gl_interop.h): the process's GlInterop,
/// made on first use; whether the view may use it; why not, once it failed; and the one way a
/// view writes a buffer through it, with the failure rules. Used on the GUI thread with the
/// view's context current.
/// @code
/// if (!m_interop.ready()) return false;          // host upload instead
/// allocate the buffer ...
/// return m_interop.write(m_link, bufferId, bytes, [&](GlBufferLink& l) { l.writePositions(p); },
///                        tr("the positions"));
/// @endcode
class ViewInterop {
public:
    /// viewName names the view in the log: "point view", "series heat map".
    explicit ViewInterop(QString viewName);
    ~ViewInterop();

    /// Allowed, and not known to fail here.
    bool usable() const { return m_allowed && m_error.isEmpty(); }
    bool allowed() const { return m_allowed; }
    void setAllowed(bool allowed) { m_allowed = allowed; }
    /// Why interop is not used, once it was tried and failed (empty otherwise).
    QString error() const { return m_error; }
    /// "CUDA–GL interop on NVIDIA H200" once made, else empty.
    QString description() const;

    /// Makes the interop on first use; false when it is not usable (not allowed, or none on this
    /// machine: the reason is logged once and kept in error()).
    bool ready();
    /// Registers buffer (bytes) once, in link, and runs write on it; false when that failed. A
    /// refused registration or a device fault turns interop off for the view (host uploads
    /// from then on); other errors fail only this write. Call after ready().
    bool write(std::unique_ptr<GlBufferLink>& link, GLuint buffer, std::size_t bytes,
               const std::function<void(GlBufferLink&)>& write, const QString& what);

    /// A GL buffer of a view and its registration, made on first use.
    struct LinkedBuffer {
        std::unique_ptr<GlBufferLink>* link;
        GLuint buffer;
        std::size_t bytes;
    };
    /// write() for work on several buffers: registers those not linked yet, then runs work;
    /// false when that failed, by write()'s rules. what names the work for the log ("drawing
    /// the points"), fallback what the view does instead ("drawing them with GL").
    bool run(std::span<const LinkedBuffer> buffers, const std::function<void(GlInterop&)>& work,
             const QString& what, const QString& fallback);

private:
    QString m_viewName;
    bool m_allowed = true;
    QString m_error;
    std::shared_ptr<GlInterop> m_interop;
};

}  // namespace cs::ui
