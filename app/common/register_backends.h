// SPDX-License-Identifier: MIT
#pragma once

namespace cs::app {

/// Fills cs::backendRegistry() with this build's backends, best first: CUDA (when built with
/// it; unavailable, with the reason, on machines without a usable device), then CPU.
/// Safe to call more than once.
void registerBuiltinBackends();

}  // namespace cs::app
