// SPDX-License-Identifier: MIT
#pragma once

// No GL or CUDA header here: app/gui and tests include this with a plain C++ compiler.

#include <memory>

#include "compute/backend/gl_interop.h"

namespace cs::kernels {

/// CUDA–GL interop (cs::GlInterop) on the device the CUDA backend uses: GL buffers registered
/// with cudaGraphicsGLRegisterBuffer, mapped on a high-priority stream of its own, written by a
/// kernel, unmapped. Throws cs::BackendUnavailable (with the reason) when there is no usable
/// CUDA device.
/// @code cs::setGlInteropFactory(&cs::kernels::createCudaGlInterop); @endcode
std::shared_ptr<cs::GlInterop> createCudaGlInterop();

}  // namespace cs::kernels
