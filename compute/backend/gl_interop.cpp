// SPDX-License-Identifier: MIT
#include "compute/backend/gl_interop.h"

#include <mutex>

#include "compute/core/error.h"

namespace cs {
namespace {

struct InteropState {
    std::mutex mutex;
    std::function<std::shared_ptr<GlInterop>()> factory;
    bool tried = false;
    std::shared_ptr<GlInterop> interop;
    std::string reason = "this build has no GPU backend with OpenGL interop";
};

InteropState& state() {
    static InteropState s;
    return s;
}

}  // namespace

void setGlInteropFactory(std::function<std::shared_ptr<GlInterop>()> factory) {
    InteropState& s = state();
    const std::lock_guard lock(s.mutex);
    s.factory = std::move(factory);
    s.tried = false;
    s.interop.reset();
}

std::shared_ptr<GlInterop> glInterop(std::string* whyNot) {
    InteropState& s = state();
    const std::lock_guard lock(s.mutex);
    if (!s.tried && s.factory) {
        s.tried = true;
        try {
            s.interop = s.factory();
        } catch (const std::exception& e) {
            s.reason = e.what();
        }
    }
    if (!s.interop && whyNot) *whyNot = s.reason;
    return s.interop;
}

void releaseGlInterop() {
    InteropState& s = state();
    const std::lock_guard lock(s.mutex);
    s.interop.reset();
    s.factory = nullptr;
    s.reason = "GL interop was released";
}

void GlBufferLink::writeOrderedColumnZScores(const DeviceResident&, std::span<const std::uint32_t>,
                                             std::size_t, std::span<const std::uint32_t>) {
    throw Error("this GL interop cannot write a feature map in another column order");
}

void GlInterop::splatPoints(const PointSplatBuffers&, const PointSplatView&, GlBufferLink&) {
    throw Error("this GL interop cannot draw points");
}

std::vector<SplatPixel> GlInterop::splatKeys(const PointSplatBuffers&, const PointSplatView&) {
    throw Error("this GL interop cannot pick points");
}

EdgeSplatOutcome GlInterop::splatEdges(const EdgeSplatBuffers&, const EdgeSplatView&,
                                       GlBufferLink&) {
    throw Error("this GL interop cannot splat edges");
}

}  // namespace cs
