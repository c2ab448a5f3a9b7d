// SPDX-License-Identifier: MIT
#pragma once

namespace cs::app {

/// Fills cs::backendRegistry() with the backends, best first: CUDA (from the plugin
/// libclusterscope-cuda.so; unavailable, with the reason, when the plugin, its CUDA libraries,
/// the driver or a usable device are missing), then CPU. Safe to call more than once.
void registerBuiltinBackends();

/// Installs the CUDA plugin's GL interop as the process's (cs::setGlInteropFactory); views fall
/// back to host uploads, with the reason, where the plugin or a device is missing.
void installGlInterop();

}  // namespace cs::app
