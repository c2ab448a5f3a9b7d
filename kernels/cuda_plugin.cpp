// SPDX-License-Identifier: MIT
// libclusterscope-cuda.so: the CUDA backend and CUDA–GL interop, loaded by app/common/
// cuda_plugin.cpp at run time. Only the entry point is exported; everything else (the static
// libraries inside, cs_compute's copy included) stays private to the plugin.
#include "compute/backend/backend_plugin.h"
#include "kernels/cuda_backend.h"
#ifdef CS_HAVE_GL_INTEROP
#include "kernels/interop/cuda_gl_interop.h"
#endif

extern "C" __attribute__((visibility("default"))) const cs::BackendPlugin*
clusterscope_backend_plugin() {
    static const cs::BackendPlugin plugin{
        .build = cs::kBackendPluginBuild,
        .name = "cuda",
        .createBackend = &cs::kernels::createCudaBackend,
#ifdef CS_HAVE_GL_INTEROP
        .createGlInterop = &cs::kernels::createCudaGlInterop,
#else
        .createGlInterop = nullptr,
#endif
    };
    return &plugin;
}
