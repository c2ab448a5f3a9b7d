// SPDX-License-Identifier: MIT
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace cs {

/// The environment variable that lets a device list name one ordinal more than once, so that
/// several logical workers share one GPU: for testing the multi-device paths on a one-GPU
/// machine ("CS_ALLOW_SHARED_DEVICE=1 clusterscope-cli knn ... --devices 0,0").
inline constexpr const char* kAllowSharedDeviceEnv = "CS_ALLOW_SHARED_DEVICE";

/// Whether kAllowSharedDeviceEnv is set to 1 in the environment.
bool sharedDeviceAllowed();

/// A --devices value parsed: "all" (every one of `available` devices) or ordinals separated by
/// commas ("0,1"), in the order given. available < 0 means not known yet: only the syntax is
/// checked, "all" gives an empty list. Throws cs::Error naming the problem: empty text or entry,
/// an entry that is not a non-negative integer, an ordinal >= available ("device 3 does not
/// exist; this machine has 2 CUDA devices (0-1)"), an ordinal repeated without allowShared.
/// @code std::vector<int> d = cs::parseDeviceList("0,1", 2, false);  // {0, 1} @endcode
std::vector<int> parseDeviceList(std::string_view text, int available, bool allowShared);

/// "0,1": a device list as --devices takes it.
std::string deviceListText(const std::vector<int>& devices);

}  // namespace cs
