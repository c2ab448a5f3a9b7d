// SPDX-License-Identifier: MIT
#pragma once

#include <string>
#include <vector>

#include "compute/backend/backend_plugin.h"

namespace cs::app {

/// A backend plugin looked for (and loaded, when found and usable) once per process.
struct LoadedPlugin {
    const BackendPlugin* plugin = nullptr;  ///< nullptr when not usable here
    std::string path;                       ///< the file loaded, or that failed to load
    std::string whyNot;                     ///< empty when loaded, else a sentence for a user
};

/// The CUDA plugin, libclusterscope-cuda.so. Looked for, in order: the file named by
/// $CLUSTERSCOPE_CUDA_PLUGIN; next to the binary that contains this code (the executable, or the
/// Python module); in lib/clusterscope (or lib/<arch>/clusterscope) of the nearest of its
/// directory's ancestors up to four levels up (an install prefix, a build tree's root); at the
/// configured install path. Never unloaded: objects it made may live until exit.
const LoadedPlugin& cudaPlugin();

/// Where cudaPlugin() looks, in order (for messages and tests).
std::vector<std::string> cudaPluginCandidates();

/// Loads a plugin file (not cached): for tests and for cudaPlugin().
LoadedPlugin loadBackendPlugin(const std::string& path);

/// dlerror()'s text made readable: "libcudart.so.13: cannot open shared object file: ..." becomes
/// "libcudart.so.13 not found (...)"; other texts are kept.
std::string explainLoadError(const std::string& dlerrorText);

}  // namespace cs::app
