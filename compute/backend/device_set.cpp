// SPDX-License-Identifier: MIT
#include "compute/backend/device_set.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>

#include "compute/core/error.h"

namespace cs {
namespace {

std::string_view trimmed(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
        s.remove_suffix(1);
    return s;
}

}  // namespace

bool sharedDeviceAllowed() {
    const char* value = std::getenv(kAllowSharedDeviceEnv);
    return value && std::string_view(value) == "1";
}

std::vector<int> parseDeviceList(std::string_view text, int available, bool allowShared) {
    const std::string_view whole = trimmed(text);
    if (whole.empty()) throw Error("--devices: empty; give device ordinals (0,1) or all");
    if (whole == "all") {
        if (available == 0) throw Error("--devices all: this machine has no CUDA device");
        std::vector<int> all;
        for (int d = 0; d < available; ++d)
            all.push_back(d);
        return all;
    }
    std::vector<int> devices;
    std::string_view rest = whole;
    while (true) {
        const std::size_t comma = rest.find(',');
        const std::string_view entry = trimmed(rest.substr(0, comma));
        if (entry.empty())
            throw Error("--devices " + std::string(whole) + ": an empty entry between commas");
        int ordinal = -1;
        const auto [end, ec] = std::from_chars(entry.data(), entry.data() + entry.size(), ordinal);
        if (ec != std::errc() || end != entry.data() + entry.size() || ordinal < 0)
            throw Error("--devices " + std::string(whole) + ": '" + std::string(entry) +
                        "' is not a device ordinal (0, 1, ...) or all");
        if (available >= 0 && ordinal >= available)
            throw Error("--devices: device " + std::to_string(ordinal) + " does not exist; " +
                        (available == 0 ? std::string("this machine has no CUDA device")
                                        : "this machine has " + std::to_string(available) +
                                              " CUDA device" + (available == 1 ? "" : "s") +
                                              " (0-" + std::to_string(available - 1) + ")"));
        if (!allowShared && std::find(devices.begin(), devices.end(), ordinal) != devices.end())
            throw Error("--devices " + std::string(whole) + ": device " + std::to_string(ordinal) +
                        " is named twice (set " + kAllowSharedDeviceEnv +
                        "=1 to run several workers on one device, for testing)");
        devices.push_back(ordinal);
        if (comma == std::string_view::npos) break;
        rest.remove_prefix(comma + 1);
    }
    return devices;
}

std::string deviceListText(const std::vector<int>& devices) {
    std::string text;
    for (const int d : devices)
        text += (text.empty() ? "" : ",") + std::to_string(d);
    return text;
}

}  // namespace cs
