// SPDX-License-Identifier: MIT
// Stand-ins for libclusterscope-cuda.so, so that the plugin loader's paths are tested on any
// machine: a usable plugin (FAKE_PLUGIN_BUILD unset: this build's string), a stale one (another
// build's string) and, with FAKE_PLUGIN_NO_ENTRY, a shared object that is no plugin at all.
#include "compute/backend/backend_plugin.h"
#include "compute/backend/cpu_backend.h"
#include "compute/core/error.h"

#ifndef FAKE_PLUGIN_NO_ENTRY
namespace {

class FakeBackend final : public cs::Backend {
public:
    std::string name() const override { return "fake"; }
    cs::BackendInfo info() const override { return {.name = "fake", .device = "fake device"}; }
};

std::shared_ptr<cs::Backend> createFake() {
    return std::make_shared<FakeBackend>();
}
std::shared_ptr<cs::GlInterop> noInterop() {
    throw cs::BackendUnavailable("the fake plugin has no GL interop");
}

}  // namespace

extern "C" __attribute__((visibility("default"))) const cs::BackendPlugin*
clusterscope_backend_plugin() {
#ifdef FAKE_PLUGIN_BUILD
    static const cs::BackendPlugin plugin{.build = FAKE_PLUGIN_BUILD, .name = "fake"};
#else
    static const cs::BackendPlugin plugin{.build = cs::kBackendPluginBuild,
                                          .name = "fake",
                                          .createBackend = &createFake,
                                          .createGlInterop = &noInterop};
#endif
    return &plugin;
}
#else
extern "C" __attribute__((visibility("default"))) int not_a_clusterscope_plugin() {
    return 1;
}
#endif
