// src/generation/channel_generator_detail.hpp (private): what channel_generator.cpp (the plan,
// single events, weighted runs) and channel_unweighted.cpp (unweighted runs) share.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <limits>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include <laddu/data/dataset.hpp>
#include <laddu/generation/channel_generator.hpp>

#include "adaptive_proposals.hpp"

namespace laddu::generation {

/// The proposal densities an unweighted run learned from its pilot (none: the channel's own).
struct ChannelGenerator::Adaptations {
    std::vector<std::optional<detail::AdaptiveMass>> masses;     // by edge
    std::vector<std::optional<detail::AdaptiveDecay>> vertices;  // by generation step

    [[nodiscard]] bool any() const {
        return std::any_of(masses.begin(), masses.end(),
                           [](const auto& m) { return m.has_value(); }) ||
               std::any_of(vertices.begin(), vertices.end(),
                           [](const auto& v) { return v.has_value(); });
    }
};

struct ChannelGenerator::Proposal {
    GeneratedEvent event;  // event.weight: the proposal weight
    double model_weight = 1.0;
    double target_weight = 1.0;
    std::uint64_t index = 0;
};

// Constants of channel generation (internal).
// The object numbers of proposal_rng.hpp's streams.
constexpr std::uint64_t kInitialObject = 0;
constexpr std::uint64_t kMassObject = 1;
constexpr std::uint64_t kVertexObject = 10'000;
constexpr std::uint64_t kScalarObject = 20'000;
constexpr std::size_t kDefaultChunk = 4096;
// Events per batch of a streamed weighted run (ChannelGenerator::weighted_to).
constexpr std::size_t kDefaultStreamBatch = std::size_t{1} << 16;
// laddu's random streams: production proposals, the adaptation pilot, the envelope pilot; the
// acceptance uniforms use stream 2 with object 0.
constexpr std::uint64_t kProductionStream = 0;
constexpr std::uint64_t kAdaptationPilotStream = 1;
constexpr std::uint64_t kEnvelopePilotStream = 2;
constexpr std::uint64_t kAcceptanceStream = 2;
// laddu's on-shell and conservation tolerance, relative to the energy scale.
constexpr double kTolerance = 1e-9;

namespace detail {

/// Generated events as columns: the four-momenta of the edges `edges` (four columns each, E, px,
/// py, pz, in that order) and every scalar. set() of distinct events may run on several threads.
class EventColumns {
public:
    EventColumns(std::vector<std::size_t> edges, std::size_t scalars, std::size_t events)
        : edges_(std::move(edges)), p4_(4 * edges_.size(), std::vector<double>(events)),
          scalars_(scalars, std::vector<double>(events)) {}

    /// Stores event `e` (its four-momenta by edge index, its scalars) as row `i`.
    void set(std::size_t i, const GeneratedEvent& e) {
        for (std::size_t k = 0; k < edges_.size(); ++k) {
            const FourMomentum& p = e.p4s[edges_[k]];
            p4_[4 * k][i] = p.e;
            p4_[4 * k + 1][i] = p.px;
            p4_[4 * k + 2][i] = p.py;
            p4_[4 * k + 3][i] = p.pz;
        }
        for (std::size_t s = 0; s < scalars_.size(); ++s) {
            scalars_[s][i] = e.scalars[s];
        }
    }

    /// The edge index of four-momentum slot k.
    [[nodiscard]] const std::vector<std::size_t>& edges() const noexcept { return edges_; }

    /// Four-momentum slot k as a dataset input named `name`.
    [[nodiscard]] data::P4Input p4(std::size_t k, std::string name) const {
        return {std::move(name), p4_[4 * k], p4_[4 * k + 1], p4_[4 * k + 2], p4_[4 * k + 3]};
    }

    /// Scalar column s.
    [[nodiscard]] std::span<const double> scalar(std::size_t s) const { return scalars_[s]; }

private:
    std::vector<std::size_t> edges_;
    std::vector<std::vector<double>> p4_;
    std::vector<std::vector<double>> scalars_;
};

// Calls body(i) for every i in [0, count) on `threads` workers that take chunks of `chunk`
// indices in turn. Each index is written by one call only, so the results do not depend on the
// thread count; after a failure, the exception of the lowest failing index is rethrown (chunks
// after it are skipped: they cannot change which error is reported). A thread the system refuses
// leaves fewer workers, with the same results.
template <typename Body>
void for_each_index(std::size_t count, std::size_t chunk, std::size_t threads, const Body& body) {
    const std::size_t chunks = (count + chunk - 1) / chunk;
    threads = std::max<std::size_t>(1, std::min(threads, chunks));
    std::atomic<std::size_t> next_chunk{0};
    std::mutex failure_mutex;
    std::size_t failed = std::numeric_limits<std::size_t>::max();
    std::exception_ptr failure;
    const auto work = [&] {
        for (std::size_t c = next_chunk.fetch_add(1); c < chunks; c = next_chunk.fetch_add(1)) {
            const std::size_t begin = c * chunk;
            const std::size_t end = std::min(count, begin + chunk);
            {
                const std::lock_guard lock(failure_mutex);
                if (begin > failed) {
                    continue;
                }
            }
            for (std::size_t i = begin; i < end; ++i) {
                try {
                    body(i);
                } catch (...) {
                    const std::lock_guard lock(failure_mutex);
                    if (i < failed) {
                        failed = i;
                        failure = std::current_exception();
                    }
                    break;
                }
            }
        }
    };
    std::vector<std::thread> pool;
    pool.reserve(threads - 1);
    try {
        for (std::size_t t = 1; t < threads; ++t) {
            pool.emplace_back(work);
        }
        // NOLINTNEXTLINE(bugprone-empty-catch): the threads that started share the work
    } catch (const std::system_error&) {
    }
    work();
    for (std::thread& thread : pool) {
        thread.join();
    }
    if (failure) {
        std::rethrow_exception(failure);
    }
}

}  // namespace detail

}  // namespace laddu::generation
