// SPDX-License-Identifier: MIT
#include "app/common/backend_plugin_loader.h"

#include <dlfcn.h>
#include <link.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <system_error>

namespace cs::app {
namespace {

namespace fs = std::filesystem;

constexpr char kCudaPluginFile[] = "libclusterscope-cuda.so";
constexpr int kParentsSearched = 4;

// The executable, or the shared object (the Python module) this code was linked into: plugins
// are found relative to what the user installed, not to the current directory.
fs::path binaryContainingThisCode() {
    Dl_info info{};
    link_map* map = nullptr;
    if (dladdr1(reinterpret_cast<void*>(&binaryContainingThisCode), &info,
                reinterpret_cast<void**>(&map), RTLD_DL_LINKMAP) != 0 &&
        map != nullptr && map->l_name != nullptr && map->l_name[0] != '\0') {
        std::error_code ec;
        const fs::path p = fs::canonical(map->l_name, ec);
        if (!ec) return p;
    }
    std::error_code ec;
    return fs::read_symlink("/proc/self/exe", ec);  // the main program has no l_name
}

bool isFile(const fs::path& p) {
    std::error_code ec;
    return fs::is_regular_file(p, ec);
}

LoadedPlugin findAndLoadCudaPlugin() {
    if (const char* forced = std::getenv("CLUSTERSCOPE_CUDA_PLUGIN"); forced && *forced) {
        if (!isFile(forced))
            return {.path = forced,
                    .whyNot = std::string("CUDA plugin not installed: CLUSTERSCOPE_CUDA_PLUGIN "
                                          "names ") +
                              forced + ", which does not exist"};
        return loadBackendPlugin(forced);
    }
    const auto candidates = cudaPluginCandidates();
    for (const auto& candidate : candidates)
        if (isFile(candidate)) return loadBackendPlugin(candidate);
    std::string where;
    for (const auto& candidate : candidates)
        where += (where.empty() ? "" : ", ") + fs::path(candidate).parent_path().string();
    return {.whyNot = std::string("CUDA plugin not installed (no ") + kCudaPluginFile + " in " +
                      where + ")"};
}

}  // namespace

std::vector<std::string> cudaPluginCandidates() {
    const fs::path dir = binaryContainingThisCode().parent_path();
    std::vector<std::string> out;
    auto add = [&](const fs::path& p) {
        const std::string s = p.lexically_normal().string();
        for (const auto& existing : out)
            if (existing == s) return;
        out.push_back(s);
    };
    if (!dir.empty()) add(dir / kCudaPluginFile);
    // The nearest lib/clusterscope above the binary: <prefix>/bin/.. for an installed executable,
    // <prefix>/lib/python3/dist-packages/clusterscope/../../../.. for the Python module, the
    // build tree's root for anything built there (which so takes its own tree's plugin, even
    // where a package is installed).
    fs::path ancestor = dir;
    for (int up = 0; up <= kParentsSearched && !ancestor.empty(); ++up) {
        add(ancestor / "lib" / "clusterscope" / kCudaPluginFile);
        add(ancestor / CS_INSTALL_LIBDIR / "clusterscope" / kCudaPluginFile);
        if (ancestor == ancestor.root_path()) break;
        ancestor = ancestor.parent_path();
    }
    add(fs::path(CS_INSTALL_FULL_LIBDIR) / "clusterscope" / kCudaPluginFile);
    return out;
}

std::string explainLoadError(const std::string& text) {
    static constexpr char kMissing[] = ": cannot open shared object file";
    const auto at = text.find(kMissing);
    if (at == std::string::npos || at == 0) return text;
    // dlopen names the first library it could not find, which may be the plugin's dependency.
    std::string library = text.substr(0, at);
    if (const auto slash = library.rfind('/'); slash != std::string::npos)
        library = library.substr(slash + 1);
    std::string hint = "the CUDA runtime libraries are not installed or not on the library path";
    if (library.rfind("libcuda.so", 0) == 0) hint = "no CUDA driver on this machine";
    return library + " not found (" + hint + ")";
}

LoadedPlugin loadBackendPlugin(const std::string& path) {
    LoadedPlugin loaded{.path = path};
    // RTLD_NODELETE: backends, results and interop objects it made may outlive any handle.
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (!handle) {
        // The cause first: the status chip shows the start of it.
        const char* text = dlerror();
        const std::string error = text ? text : "unknown error";
        const std::string explained = explainLoadError(error);
        loaded.whyNot = explained != error
                            ? explained + ", needed by the CUDA plugin " + path
                            : "the CUDA plugin " + path + " cannot be loaded: " + error;
        return loaded;
    }
    auto entry = reinterpret_cast<BackendPluginEntry>(dlsym(handle, kBackendPluginEntry));
    if (!entry) {
        loaded.whyNot = path + " is not a Clusterscope plugin (it has no " +
                        std::string(kBackendPluginEntry) + ")";
        return loaded;
    }
    const BackendPlugin* plugin = entry();
    if (!plugin || !plugin->build || std::strcmp(plugin->build, kBackendPluginBuild) != 0) {
        loaded.whyNot = "CUDA plugin " + path + " is from another build (" +
                        (plugin && plugin->build ? plugin->build : "unknown") + "; this is " +
                        kBackendPluginBuild + ")";
        return loaded;
    }
    loaded.plugin = plugin;
    return loaded;
}

const LoadedPlugin& cudaPlugin() {
    static const LoadedPlugin loaded = findAndLoadCudaPlugin();
    return loaded;
}

}  // namespace cs::app
