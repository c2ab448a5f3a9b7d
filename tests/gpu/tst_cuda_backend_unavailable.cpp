// SPDX-License-Identifier: MIT
// Runs everywhere CUDA is built, also on machines without a GPU (CI): createCudaBackend() must
// either work (a usable device) or throw cs::BackendUnavailable with a reason a user can read,
// and the registry must fall back and report that reason.
#include <cuda_runtime_api.h>

#include <memory>
#include <string>

#include "compute/backend/backend_registry.h"
#include "compute/core/error.h"
#include "kernels/cuda_backend.h"
#include "tests/common/gpu_test.h"

namespace {

class FallbackBackend final : public cs::Backend {
public:
    std::string name() const override { return "fallback"; }
    cs::BackendInfo info() const override { return {.name = "fallback"}; }
};

}  // namespace

CS_TEST(probeExplainsItself) {
    const cs::kernels::CudaProbe probe = cs::kernels::probeCudaDevice();
    CS_CHECK((probe.device >= 0) == probe.reason.empty());
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    (void)cudaGetLastError();
    if (status != cudaSuccess) {
        CS_CHECK(probe.device < 0);
        CS_CHECK_MSG(probe.reason.find(cudaGetErrorName(status)) != std::string::npos,
                     probe.reason);
    }
    cs::test::info(probe.device >= 0 ? "device " + std::to_string(probe.device)
                                     : "no device: " + probe.reason);
}

CS_TEST(createCudaBackendMatchesTheMachine) {
    const cs::kernels::CudaProbe probe = cs::kernels::probeCudaDevice();
    if (probe.device >= 0) {
        const auto backend = cs::kernels::createCudaBackend();
        CS_CHECK(backend != nullptr);
        CS_CHECK_EQ(backend->name(), std::string("cuda"));
        cs::test::info(backend->info().summary());
        return;
    }
    try {
        (void)cs::kernels::createCudaBackend();
        CS_FAIL("createCudaBackend() succeeded on a machine without a usable device");
    } catch (const cs::BackendUnavailable& e) {
        const std::string reason = e.what();
        CS_CHECK(!reason.empty());
        CS_CHECK_EQ(reason, probe.reason);
        cs::test::info("BackendUnavailable: " + reason);
    }
}

CS_TEST(registryFallsBackWithTheReason) {
    const cs::kernels::CudaProbe probe = cs::kernels::probeCudaDevice();
    cs::BackendRegistry registry;
    registry.add("cuda", [] { return cs::kernels::createCudaBackend(); });
    registry.add("fallback", [] { return std::make_shared<FallbackBackend>(); });
    const auto statuses = registry.statuses();
    CS_CHECK_EQ(statuses.size(), std::size_t(2));
    CS_CHECK_EQ(statuses[0].name, std::string("cuda"));
    CS_CHECK_EQ(statuses[0].available, probe.device >= 0);
    if (probe.device < 0) CS_CHECK_EQ(statuses[0].detail, probe.reason);
    CS_CHECK_EQ(registry.get("auto")->name(), std::string(probe.device >= 0 ? "cuda" : "fallback"));
}

int main(int argc, char** argv) {
    return cs::test::runTests("tst_cuda_backend_unavailable", argc, argv);
}
