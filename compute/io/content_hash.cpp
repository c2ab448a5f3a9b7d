// SPDX-License-Identifier: MIT
#include "compute/io/content_hash.h"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <vector>

#include "compute/core/error.h"

namespace cs::io {
namespace {

constexpr std::uint64_t kMultiplier = 0x9E3779B97F4A7C15ull;

std::uint64_t rotl(std::uint64_t x, int r) {
    return (x << r) | (x >> (64 - r));
}

// The state of a hash fed in pieces whose sizes are multiples of 8 (the last one excepted), so
// that a file hashed chunk by chunk gives the same value as its bytes hashed at once.
class Hasher {
public:
    void add(std::string_view bytes) {
        std::size_t i = 0;
        for (; i + 8 <= bytes.size(); i += 8) {
            std::uint64_t word;
            std::memcpy(&word, bytes.data() + i, 8);
            mix(word);
        }
        if (i < bytes.size()) {
            std::uint64_t word = 0;
            std::memcpy(&word, bytes.data() + i, bytes.size() - i);
            mix(word ^ 0x80);  // marks the tail, so "a" and "a\0" differ
        }
        m_length += bytes.size();
    }

    std::uint64_t value() const {
        // splitmix64's finaliser over the state and the length.
        std::uint64_t z = m_state ^ (m_length * kMultiplier);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }

private:
    void mix(std::uint64_t word) { m_state = rotl((m_state ^ word) * kMultiplier, 29); }

    std::uint64_t m_state = 0x243F6A8885A308D3ull;
    std::uint64_t m_length = 0;
};

}  // namespace

std::uint64_t contentHash(std::string_view bytes) {
    Hasher h;
    h.add(bytes);
    return h.value();
}

std::string fileContentHash(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw InputError(file.string(), "cannot be read (missing, or no permission)");
    Hasher h;
    std::vector<char> chunk(std::size_t(1) << 22);  // a multiple of 8
    while (in) {
        in.read(chunk.data(), std::streamsize(chunk.size()));
        const auto got = std::size_t(in.gcount());
        if (got > 0) h.add(std::string_view(chunk.data(), got));
    }
    if (in.bad()) throw InputError(file.string(), "a read error stopped the content hash");
    char text[32];
    std::snprintf(text, sizeof text, "cs64:%016llx", static_cast<unsigned long long>(h.value()));
    return text;
}

}  // namespace cs::io
