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
    if (!ready()) return false;
    try {
        if (!link) link = m_interop->link(buffer, bytes);
        write(*link);
        return true;
    } catch (const DeviceError& e) {
        // The driver refused the buffer (a renderer on another GPU, a software renderer) or the
        // device failed: host uploads from now on.
        link.reset();
        m_error = QString::fromUtf8(e.what());
        logWarning(QObject::tr("GL interop failed (%1): the %2 uploads from host memory")
                       .arg(m_error, m_viewName));
    } catch (const Error& e) {
        logWarning(QObject::tr("%1: writing %2 on the GPU failed (%3); uploading from host memory")
                       .arg(m_viewName, what, QString::fromUtf8(e.what())));
    }
    return false;
}

}  // namespace cs::ui
