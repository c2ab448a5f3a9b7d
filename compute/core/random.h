// SPDX-License-Identifier: MIT
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <numbers>

namespace cs {

// Generated data (the demo scene, benchmark sets, test sets) must be the same on every platform,
// so randomness never goes through <random>'s distributions, whose algorithms differ between
// standard libraries. The maths is done in double and rounded to float, so a last-bit difference
// in a libm's log/sin/cos almost never reaches a stored value.

/// One SplitMix64 step (Steele, Lea, Flood 2014): advances `state` and returns 64 mixed bits.
/// Good for deriving independent seeds from one seed.
inline std::uint64_t splitMix64(std::uint64_t& state) {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/// xoshiro256** (Blackman & Vigna), seeded through SplitMix64 as its authors recommend, with
/// its own uniform, integer and normal draws.
/// @code cs::Random rng(42); double u = rng.uniform(); double g = rng.normal(); @endcode
class Random {
public:
    explicit Random(std::uint64_t seed) {
        for (auto& s : m_s)
            s = splitMix64(seed);
    }
    /// The next 64 random bits.
    std::uint64_t next() {
        const std::uint64_t result = rotl(m_s[1] * 5, 7) * 9;
        const std::uint64_t t = m_s[1] << 17;
        m_s[2] ^= m_s[0];
        m_s[3] ^= m_s[1];
        m_s[1] ^= m_s[2];
        m_s[0] ^= m_s[3];
        m_s[2] ^= t;
        m_s[3] = rotl(m_s[3], 45);
        return result;
    }
    /// Uniform in [0, 1) with 53 random bits.
    double uniform() { return double(next() >> 11) * 0x1.0p-53; }
    /// Uniform in [lo, hi).
    double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
    /// Uniform integer in [0, n), n >= 1 (Lemire's multiply-shift; bias below 2^-32 for n < 2^32).
    std::uint64_t below(std::uint64_t n) { return mulHigh(next(), n); }
    /// Standard normal by Box-Muller; the second value of each pair is kept for the next call.
    double normal() {
        if (m_haveSpare) {
            m_haveSpare = false;
            return m_spare;
        }
        const double u1 = 1.0 - uniform();  // (0, 1]: log stays finite
        const double u2 = uniform();
        const double r = std::sqrt(-2.0 * std::log(u1));
        const double a = 2.0 * std::numbers::pi * u2;
        m_spare = r * std::sin(a);
        m_haveSpare = true;
        return r * std::cos(a);
    }

private:
    static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
    // High 64 bits of a 64 x 64 product, from 32-bit halves (no __int128 under -Wpedantic).
    static std::uint64_t mulHigh(std::uint64_t x, std::uint64_t n) {
        const std::uint64_t xl = x & 0xffffffffu, xh = x >> 32, nl = n & 0xffffffffu, nh = n >> 32;
        const std::uint64_t ll = xl * nl, lh = xl * nh, hl = xh * nl, hh = xh * nh;
        const std::uint64_t mid = (ll >> 32) + (lh & 0xffffffffu) + (hl & 0xffffffffu);
        return hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
    }

    std::array<std::uint64_t, 4> m_s{};
    double m_spare = 0;
    bool m_haveSpare = false;
};

}  // namespace cs
