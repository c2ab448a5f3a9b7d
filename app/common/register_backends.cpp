// SPDX-License-Identifier: MIT
#include "app/common/register_backends.h"

#include <memory>

#include "compute/backend/backend_registry.h"
#include "compute/backend/cpu_backend.h"
#ifdef CS_HAVE_CUDA
#include "kernels/cuda_backend.h"
#endif

namespace cs::app {

void registerBuiltinBackends() {
    auto& registry = backendRegistry();
#ifdef CS_HAVE_CUDA
    registry.add("cuda", [] { return kernels::createCudaBackend(); });
#endif
    registry.add("cpu", [] { return std::make_shared<CpuBackend>(); });
}

}  // namespace cs::app
