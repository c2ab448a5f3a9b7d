// SPDX-License-Identifier: MIT
#include "app/common/register_backends.h"

#include <memory>

#include "app/common/backend_plugin_loader.h"
#include "compute/backend/backend_registry.h"
#include "compute/backend/cpu_backend.h"
#include "compute/backend/gl_interop.h"
#include "compute/core/error.h"

namespace cs::app {
namespace {

const BackendPlugin& usableCudaPlugin() {
    const LoadedPlugin& loaded = cudaPlugin();
    if (!loaded.plugin) throw BackendUnavailable(loaded.whyNot);
    return *loaded.plugin;
}

}  // namespace

void registerBuiltinBackends() {
    auto& registry = backendRegistry();
    registry.add("cuda", [] { return usableCudaPlugin().createBackend(); });
    registry.add("cpu", [] { return std::make_shared<CpuBackend>(); });
}

void installGlInterop() {
    setGlInteropFactory([]() -> std::shared_ptr<GlInterop> {
        const BackendPlugin& plugin = usableCudaPlugin();
        if (!plugin.createGlInterop)
            throw BackendUnavailable("the CUDA plugin was built without OpenGL headers");
        return plugin.createGlInterop();
    });
}

}  // namespace cs::app
