// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <random>
#include <string>

namespace cs::test {

/// Random damage to a valid file, for the readers' mutation tests: bit flips, byte
/// overwrites, truncation, inserted/deleted/duplicated chunks, digits replaced by huge or
/// negative numbers, and text tokens swapped into numeric positions. Deterministic per seed.
/// @code std::string bad = cs::test::mutate(valid, seed); @endcode
inline std::string mutate(std::string bytes, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    const auto pick = [&](std::size_t n) { return n == 0 ? 0 : std::size_t(rng() % n); };
    static const char* kTokens[] = {"nan",
                                    "-inf",
                                    "abc",
                                    "4294967296",
                                    "-1",
                                    "99999999999999999999",
                                    "0",
                                    "1e400",
                                    "\n",
                                    "\r\n",
                                    ",,",
                                    "\t",
                                    " ",
                                    "#",
                                    "\"",
                                    "@data",
                                    "end_header\n",
                                    "DATA binary\n",
                                    "POINTS 2147483647\n",
                                    "element vertex 4000000000\n",
                                    "\x93NUMPY",
                                    "{'shape': (9999999999, 3), }"};
    const int rounds = 1 + int(pick(4));
    for (int r = 0; r < rounds; ++r) {
        switch (pick(8)) {
            case 0:  // flip a bit
                if (!bytes.empty()) bytes[pick(bytes.size())] ^= char(1u << pick(8));
                break;
            case 1:  // overwrite a byte
                if (!bytes.empty()) bytes[pick(bytes.size())] = char(rng());
                break;
            case 2:  // truncate
                bytes.resize(pick(bytes.size() + 1));
                break;
            case 3: {  // delete a chunk
                const std::size_t at = pick(bytes.size() + 1);
                bytes.erase(at, pick(64));
                break;
            }
            case 4: {  // duplicate a chunk
                const std::size_t at = pick(bytes.size() + 1);
                bytes.insert(at, bytes.substr(at, pick(128)));
                break;
            }
            case 5: {  // insert random bytes
                std::string junk(pick(16) + 1, '\0');
                for (auto& c : junk)
                    c = char(rng());
                bytes.insert(pick(bytes.size() + 1), junk);
                break;
            }
            case 6: {  // replace a digit run with a hostile number
                for (int tries = 0; tries < 8 && !bytes.empty(); ++tries) {
                    std::size_t at = pick(bytes.size());
                    if (bytes[at] < '0' || bytes[at] > '9') continue;
                    std::size_t end = at;
                    while (end < bytes.size() && bytes[end] >= '0' && bytes[end] <= '9')
                        ++end;
                    bytes.replace(at, end - at, kTokens[pick(std::size(kTokens))]);
                    break;
                }
                break;
            }
            default:  // insert a hostile token
                bytes.insert(pick(bytes.size() + 1), kTokens[pick(std::size(kTokens))]);
                break;
        }
    }
    return bytes;
}

}  // namespace cs::test
