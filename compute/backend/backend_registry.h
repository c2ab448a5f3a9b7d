// SPDX-License-Identifier: MIT
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "compute/backend/backend.h"

namespace cs {

/// How one registered backend fares on this machine.
struct BackendStatus {
    std::string name;        ///< "cpu", "cuda"
    bool available = false;  ///< could be created here
    std::string detail;      ///< the chip text when available, else why not ("no CUDA driver ...")
    std::string versions;    ///< driver / runtime / library versions when available
};

/// The backends this build knows, in order of preference (the best first).
/// Each is created once, on first use, and shared; a factory that throws BackendUnavailable
/// marks it unavailable with its message as the reason.
/// @code
/// cs::BackendRegistry& r = cs::backendRegistry();
/// std::shared_ptr<cs::Backend> b = r.get("auto");   // CUDA when usable, else CPU
/// @endcode
class BackendRegistry {
public:
    using Factory = std::function<std::shared_ptr<Backend>()>;

    /// Registers a backend; earlier registrations are preferred by "auto".
    void add(std::string name, Factory factory);
    /// "auto" (the first available), or a name; throws BackendUnavailable with the reason.
    std::shared_ptr<Backend> get(std::string_view name);
    /// A new instance of "auto" (the first available) or of a name, for a caller that runs jobs
    /// concurrently with others (each instance has its own device stream and handles); throws
    /// BackendUnavailable as get() does.
    std::shared_ptr<Backend> create(std::string_view name);
    /// Every registered backend with its availability (creates them to find out).
    std::vector<BackendStatus> statuses();
    /// Names accepted by get(), "auto" first.
    std::vector<std::string> names() const;
    /// Destroys the created backends (their devices, streams, handles); call before main()
    /// returns, since device runtimes may already be unloading when statics are destroyed.
    void releaseAll();

private:
    struct Entry {
        std::string name;
        Factory factory;
        bool tried = false;
        std::shared_ptr<Backend> backend;
        std::string reason;
    };
    void ensureTried(Entry& entry);

    mutable std::mutex m_mutex;
    std::vector<Entry> m_entries;
};

/// The process-wide registry; registerBuiltinBackends() (app/) fills it at start-up.
BackendRegistry& backendRegistry();

}  // namespace cs
