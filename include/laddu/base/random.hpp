// laddu/base/random.hpp: a small, fully specified random generator for reproducible draws.
//
// SplitMix64 (S. Vigna, "Further scramblings of Marsaglia's xorshift generators", 2017; the
// seeding generator of xoshiro) gives the same stream for a seed on every platform and compiler,
// which the standard library's distributions do not promise. uniform() uses the top 53 bits,
// below(n) rejects the top partial block so every value is equally likely, and normal() is
// Box-Muller (G. E. P. Box, M. E. Muller, Ann. Math. Statist. 29 (1958) 610), one value per call.
//
// Example:
//   SplitMix64 random(seed);
//   double u = random.uniform();  // [0, 1)
//   double z = random.normal();   // N(0, 1)
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <numbers>

namespace laddu {

/// The SplitMix64 output function of `x`: x + 0x9E3779B97F4A7C15, then Stafford's mix 13 (Steele,
/// Lea and Flood 2014). The mixer of laddu's counter-based generator (data::counter_uniform) and
/// of SplitMix64::next.
[[nodiscard]] constexpr std::uint64_t splitmix64(std::uint64_t x) noexcept {
    std::uint64_t z = x + 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30U)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27U)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31U);
}

/// The SplitMix64 stream of one seed (see the banner).
class SplitMix64 {
public:
    /// The stream of `seed`.
    explicit SplitMix64(std::uint64_t seed) noexcept : state_(seed) {}

    /// The next 64 random bits.
    std::uint64_t next() noexcept {
        const std::uint64_t out = splitmix64(state_);
        state_ += 0x9E3779B97F4A7C15ULL;
        return out;
    }

    /// Uniform on [0, 1).
    double uniform() noexcept { return static_cast<double>(next() >> 11U) * 0x1.0p-53; }

    /// Uniform on {0, ..., n − 1} for n ≥ 1.
    std::size_t below(std::size_t n) noexcept {
        const std::uint64_t bound = n;
        const std::uint64_t limit = std::numeric_limits<std::uint64_t>::max() -
                                    std::numeric_limits<std::uint64_t>::max() % bound;
        std::uint64_t x = next();
        while (x >= limit) {
            x = next();
        }
        return static_cast<std::size_t>(x % bound);
    }

    /// Standard normal.
    double normal() noexcept {
        double u = uniform();
        while (u <= 0.0) {
            u = uniform();
        }
        return std::sqrt(-2.0 * std::log(u)) * std::cos(2.0 * std::numbers::pi * uniform());
    }

private:
    std::uint64_t state_;
};

}  // namespace laddu
