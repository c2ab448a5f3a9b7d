// SPDX-License-Identifier: MIT
#include "compute/backend/backend_registry.h"

#include "compute/core/error.h"

namespace cs {

void BackendRegistry::add(std::string name, Factory factory) {
    std::lock_guard lock(m_mutex);
    for (auto& e : m_entries)
        if (e.name == name) {
            e = Entry{std::move(name), std::move(factory)};
            return;
        }
    m_entries.push_back(Entry{std::move(name), std::move(factory)});
}

void BackendRegistry::ensureTried(Entry& entry) {
    if (entry.tried) return;
    entry.tried = true;
    try {
        entry.backend = entry.factory();
        if (!entry.backend) entry.reason = "the backend could not be created";
    } catch (const std::exception& e) {
        entry.reason = e.what();
    }
}

std::shared_ptr<Backend> BackendRegistry::get(std::string_view name) {
    std::lock_guard lock(m_mutex);
    std::string reasons;
    for (auto& e : m_entries) {
        if (name != "auto" && e.name != name) continue;
        ensureTried(e);
        if (e.backend) return e.backend;
        if (name != "auto") throw BackendUnavailable(e.name + " backend unavailable: " + e.reason);
        reasons += (reasons.empty() ? "" : "; ") + e.name + ": " + e.reason;
    }
    if (name == "auto")
        throw BackendUnavailable("no backend is available" +
                                 (reasons.empty() ? "" : " (" + reasons + ")"));
    std::string known;
    for (const auto& e : m_entries)
        known += (known.empty() ? "" : ", ") + e.name;
    throw BackendUnavailable("unknown backend '" + std::string(name) + "' (this build has: auto, " +
                             known + ")");
}

std::shared_ptr<Backend> BackendRegistry::create(std::string_view name) {
    // get() settles availability and the reasons once; the instance itself is a new one.
    const std::string chosen = get(name)->name();
    Factory factory;
    {
        std::lock_guard lock(m_mutex);
        for (const auto& e : m_entries)
            if (e.name == chosen) factory = e.factory;
    }
    std::shared_ptr<Backend> backend = factory();
    if (!backend) throw BackendUnavailable(chosen + " backend could not be created");
    return backend;
}

std::vector<BackendStatus> BackendRegistry::statuses() {
    std::lock_guard lock(m_mutex);
    std::vector<BackendStatus> out;
    for (auto& e : m_entries) {
        ensureTried(e);
        if (!e.backend) {
            out.push_back({e.name, false, e.reason, {}});
            continue;
        }
        const BackendInfo info = e.backend->info();
        out.push_back({e.name, true, info.summary(), info.versions});
    }
    return out;
}

std::vector<std::string> BackendRegistry::names() const {
    std::lock_guard lock(m_mutex);
    std::vector<std::string> out{"auto"};
    for (const auto& e : m_entries)
        out.push_back(e.name);
    return out;
}

void BackendRegistry::releaseAll() {
    std::lock_guard lock(m_mutex);
    for (auto& e : m_entries) {
        e.backend.reset();
        e.tried = false;
        e.reason.clear();
    }
}

BackendRegistry& backendRegistry() {
    static BackendRegistry registry;
    return registry;
}

}  // namespace cs
