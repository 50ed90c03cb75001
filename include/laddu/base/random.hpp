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

/// The wyrand generator of the Rust crate fastrand 2.5 (W. Yi's wyhash v4.2 constants), which
/// laddu draws parameter start values from: the same stream for a seed as fastrand::Rng.
class WyRand {
public:
    /// The stream of `seed` (fastrand::Rng::with_seed).
    explicit WyRand(std::uint64_t seed) noexcept : state_(seed) {}

    /// The next 64 random bits: s += 0x2d358dccaa6c78a5, t = s · (s ^ 0x8bb84b93962eacc9) in 128
    /// bits, lo(t) ^ hi(t).
    std::uint64_t next() noexcept {
        state_ += 0x2d358dccaa6c78a5ULL;
        const std::uint64_t a = state_;
        const std::uint64_t b = state_ ^ 0x8bb84b93962eacc9ULL;
        // The 128-bit product from 32-bit halves (no __int128 under -Wpedantic).
        const std::uint64_t a_lo = a & 0xFFFFFFFFULL;
        const std::uint64_t a_hi = a >> 32U;
        const std::uint64_t b_lo = b & 0xFFFFFFFFULL;
        const std::uint64_t b_hi = b >> 32U;
        const std::uint64_t lo_lo = a_lo * b_lo;
        const std::uint64_t hi_lo = a_hi * b_lo;
        const std::uint64_t lo_hi = a_lo * b_hi;
        const std::uint64_t hi_hi = a_hi * b_hi;
        const std::uint64_t cross = (lo_lo >> 32U) + (hi_lo & 0xFFFFFFFFULL) + lo_hi;
        const std::uint64_t high = hi_hi + (hi_lo >> 32U) + (cross >> 32U);
        const std::uint64_t low = (cross << 32U) | (lo_lo & 0xFFFFFFFFULL);
        return low ^ high;
    }

    /// Uniform on [0, 1): fastrand's f64(), (next() >> 1) · 2^-63 drawn again until below 1.
    double uniform() noexcept {
        while (true) {
            const double x = static_cast<double>(next() >> 1U) * 0x1.0p-63;
            if (x < 1.0) {
                return x;
            }
        }
    }

    /// Uniform on [low, high): fastrand-contrib's f64_range(low..high), u · (high − low) + low
    /// for a finite width.
    double uniform(double low, double high) noexcept { return uniform() * (high - low) + low; }

private:
    std::uint64_t state_;
};

}  // namespace laddu
