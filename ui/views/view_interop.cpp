// SPDX-License-Identifier: MIT
#include "ui/views/view_interop.h"

#include <QObject>
#include <string>

#include "compute/backend/gl_interop.h"
#include "compute/core/error.h"
#include "ui/shell/logger.h"

namespace cs::ui {

ViewInterop::ViewInterop(QString viewName) : m_viewName(std::move(viewName)) {}

ViewInterop::~ViewInterop() = default;

QString ViewInterop::description() const {
    return m_interop ? QString::fromStdString(m_interop->description()) : QString();
}

bool ViewInterop::ready() {
    if (!usable()) return false;
    if (m_interop) return true;
    std::string whyNot;
    m_interop = glInterop(&whyNot);
    if (m_interop) return true;
    m_error = QString::fromStdString(whyNot);
    logInfo(QObject::tr("GL interop unavailable (%1): the %2 uploads from host memory")
                .arg(m_error, m_viewName));
    return false;
}

bool ViewInterop::write(std::unique_ptr<GlBufferLink>& link, GLuint buffer, std::size_t bytes,
                        const std::function<void(GlBufferLink&)>& write, const QString& what) {
    const LinkedBuffer linked[] = {{&link, buffer, bytes}};
    return run(
        linked, [&](GlInterop&) { write(*link); }, QObject::tr("writing %1").arg(what),
        QObject::tr("uploading from host memory"));
}

bool ViewInterop::run(std::span<const LinkedBuffer> buffers,
                      const std::function<void(GlInterop&)>& work, const QString& what,
                      const QString& fallback) {
    if (!ready()) return false;
    try {
        for (const LinkedBuffer& b : buffers)
            if (!*b.link) *b.link = m_interop->link(b.buffer, b.bytes);
        work(*m_interop);
        return true;
    } catch (const DeviceError& e) {
        // The driver refused a buffer (a renderer on another GPU, a software renderer) or the
        // device failed: host uploads and GL drawing from now on.
        for (const LinkedBuffer& b : buffers)
            b.link->reset();
        m_error = QString::fromUtf8(e.what());
        logWarning(QObject::tr("GL interop failed (%1): the %2 uploads from host memory")
                       .arg(m_error, m_viewName));
    } catch (const Error& e) {
        logWarning(QObject::tr("%1: %2 on the GPU failed (%3); %4")
                       .arg(m_viewName, what, QString::fromUtf8(e.what()), fallback));
    }
    return false;
}

}  // namespace cs::ui
