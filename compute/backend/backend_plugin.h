// SPDX-License-Identifier: MIT
#pragma once

// What a backend plugin (a shared object loaded at run time, e.g. libclusterscope-cuda.so)
// exports, so that the app and the CLI have no link-time dependency on an accelerator's
// libraries: without the plugin or its libraries they still start and run on the CPU.

#include <memory>

#include "compute/backend/backend.h"
#include "compute/backend/gl_interop.h"

namespace cs {

/// The one symbol a plugin exports (extern "C"): a function returning its BackendPlugin.
inline constexpr char kBackendPluginEntry[] = "clusterscope_backend_plugin";

/// C++ objects cross the boundary, so the app and the plugin must come from the same sources
/// and the same compiler: the plugin refuses to be used when its build differs.
inline constexpr char kBackendPluginBuild[] = "clusterscope " CS_VERSION " / " __VERSION__;

struct BackendPlugin {
    /// kBackendPluginBuild as the plugin was compiled.
    const char* build = nullptr;
    /// The registry name of its backend: "cuda".
    const char* name = nullptr;
    /// A new backend instance; throws cs::BackendUnavailable with a reason a user can read.
    std::shared_ptr<Backend> (*createBackend)() = nullptr;
    /// The GL interop maker (compute/backend/gl_interop.h), or nullptr when the plugin was built
    /// without OpenGL headers.
    std::shared_ptr<GlInterop> (*createGlInterop)() = nullptr;
};

using BackendPluginEntry = const BackendPlugin* (*)();

}  // namespace cs
