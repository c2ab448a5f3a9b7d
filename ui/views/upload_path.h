// SPDX-License-Identifier: MIT
#pragma once

namespace cs::ui {

/// How a view's GPU buffer got its contents: uploaded from host memory, or written by CUDA
/// through GL interop (compute/backend/gl_interop.h).
enum class UploadPath { None, HostUpload, Interop };

}  // namespace cs::ui
