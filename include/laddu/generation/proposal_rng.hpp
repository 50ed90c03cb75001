// laddu/generation/proposal_rng.hpp: the counter-based random streams of channel generation.
//
// Every random number of a generated event comes from a ProposalRng seeded by
// derive_seed(seed, stream, event index, object), where `object` names the part of the event
// being drawn (0: initial momenta, 1 + e: the mass of edge e, 10000 + s: the s-th vertex in
// generation order, 20000 + c: scalar column c). An event is therefore a function of the seed
// and its index alone, so events can be generated in any order, in chunks, on any number of
// threads, and come out bit for bit the same. This is laddu's scheme (laddu-physics
// generation/rng.rs and laddu-generation's derive_seed): a SplitMix64 stream (Steele, Lea and
// Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014) whose start is the
// SplitMix64 output of the mixed (seed, stream, index, object).
#pragma once

#include <array>
#include <cstdint>

namespace laddu::generation {

/// A SplitMix64 stream of 64-bit integers and uniforms in (0, 1).
class ProposalRng {
public:
    /// A stream starting from `seed`.
    explicit ProposalRng(std::uint64_t seed) noexcept : state_(seed) {}

    /// The next 64-bit integer.
    std::uint64_t next_u64() noexcept {
        state_ += 0x9e3779b97f4a7c15ULL;
        std::uint64_t z = state_;
        z = (z ^ (z >> 30U)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27U)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31U);
    }

    /// A uniform double strictly between 0 and 1: the top 53 bits, centred in their cell.
    double uniform() noexcept {
        constexpr double kScale = 1.0 / 9007199254740992.0;  // 2^-53
        return (static_cast<double>(next_u64() >> 11U) + 0.5) * kScale;
    }

    /// A unit vector uniform on the sphere: cos θ = 2u₁ − 1, φ = 2πu₂ (in that order).
    std::array<double, 3> isotropic_direction() noexcept;

private:
    std::uint64_t state_;
};

/// The seed of the stream for (seed, stream, event index, object) (see the banner).
[[nodiscard]] inline std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t stream,
                                               std::uint64_t index, std::uint64_t object) noexcept {
    ProposalRng rng(seed ^ (stream * 0xd6e8feb86659fd93ULL) ^ (index * 0xa0761d6478bd642fULL) ^
                    (object * 0xe7037ed1a0b428dbULL));
    return rng.next_u64();
}

}  // namespace laddu::generation
