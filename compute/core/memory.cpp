// SPDX-License-Identifier: MIT
#include "compute/core/memory.h"

#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>

namespace cs {
namespace {

// A field of /proc/meminfo in bytes (0 when absent: not Linux, or a sandbox without /proc).
std::size_t meminfo(std::string_view field) {
    std::ifstream in("/proc/meminfo");
    std::string line;
    while (std::getline(in, line)) {
        if (line.compare(0, field.size(), field) != 0 || line.size() <= field.size() ||
            line[field.size()] != ':')
            continue;
        std::istringstream values(line.substr(field.size() + 1));
        std::size_t kib = 0;
        values >> kib;
        return kib * 1024;
    }
    return 0;
}

// What the process's address-space limit (ulimit -v, RLIMIT_AS) leaves for new allocations,
// or nullopt without a limit: a limited process gets std::bad_alloc long before the machine runs
// out of memory.
std::optional<std::size_t> addressSpaceLeft() {
    rlimit limit{};
    if (getrlimit(RLIMIT_AS, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return std::nullopt;
    std::size_t used = 0;
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
        if (line.rfind("VmSize:", 0) == 0) {
            used = std::size_t(std::strtoull(line.c_str() + 7, nullptr, 10)) * 1024;
            break;
        }
    const std::size_t cap = std::size_t(limit.rlim_cur);
    return cap > used ? cap - used : 0;
}

std::size_t atMostAddressSpace(std::size_t bytes) {
    const std::optional<std::size_t> left = addressSpaceLeft();
    return left ? std::min(bytes, *left) : bytes;
}

}  // namespace

std::size_t availableMemoryBytes() {
    return atMostAddressSpace(meminfo("MemAvailable"));
}

std::size_t totalMemoryBytes() {
    // Fixed while the process runs: read once, not at every run a panel submits.
    static const std::size_t installed = meminfo("MemTotal") + meminfo("SwapTotal");
    return atMostAddressSpace(installed);
}

std::string formatBytes(double bytes) {
    const char* units[] = {"bytes", "KB", "MB", "GB", "TB", "PB"};
    int unit = 0;
    while (bytes >= 1000.0 && unit < 5) {
        bytes /= 1000.0;
        ++unit;
    }
    char text[32];
    std::snprintf(text, sizeof text, unit == 0 ? "%.0f %s" : "%.1f %s", bytes, units[unit]);
    return text;
}

namespace {

std::string needText(const MemoryNeed& need) {
    std::string text = "about " + formatBytes(need.bytes);
    if (!need.what.empty()) text += ", mostly " + need.what;
    return text;
}

std::string adviceText(const MemoryNeed& need) {
    return need.advice.empty() ? std::string() : "; " + need.advice;
}

}  // namespace

std::string outOfMemoryMessage(std::string_view method, const MemoryNeed& need,
                               std::string_view stage) {
    std::string text = std::string(method) + " ran out of memory";
    if (!stage.empty()) text += " (stage \"" + std::string(stage) + "\")";
    if (need.bytes > 0.0) text += ": it needs " + needText(need);
    const std::size_t available = availableMemoryBytes();
    if (available > 0)
        text += (need.bytes > 0.0 ? ", and " : ": ") + formatBytes(double(available)) +
                " are available now";
    return text + adviceText(need);
}

void checkMemoryFits(std::string_view method, const MemoryNeed& need) {
    const std::size_t total = totalMemoryBytes();
    if (total == 0 || !(need.bytes > double(total))) return;
    const bool limited = addressSpaceLeft().has_value();
    throw Error(std::string(method) + " needs " + needText(need) + ", more than the " +
                formatBytes(double(total)) +
                (limited ? " this process may still allocate (its address-space limit)"
                         : " of memory this machine has") +
                adviceText(need));
}

}  // namespace cs
