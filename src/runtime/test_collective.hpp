// src/runtime/test_collective.hpp (tests only): an in-process Collective. P threads, each
// holding a TestCollective of one rank over a shared Hub, behave like P MPI processes: chunks
// are owned by contiguous runs or round-robin, all_gather_chunks and check_all meet at
// barriers.
#pragma once

#include <algorithm>
#include <barrier>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <laddu/base/error.hpp>
#include <laddu/runtime/collective.hpp>
#include <laddu/runtime/reduce.hpp>

namespace laddu::runtime::testing {

enum class Partition { kContiguous, kRoundRobin };

/// The chunks rank `rank` of `size` owns among `chunks` chunks.
inline std::vector<std::size_t> owned_by(std::size_t chunks, int rank, int size,
                                         Partition partition) {
    std::vector<std::size_t> owned;
    const auto r = static_cast<std::size_t>(rank);
    const auto p = static_cast<std::size_t>(size);
    if (partition == Partition::kRoundRobin) {
        for (std::size_t c = r; c < chunks; c += p) {
            owned.push_back(c);
        }
        return owned;
    }
    const std::size_t base = chunks / p;
    const std::size_t extra = chunks % p;
    const std::size_t begin = r * base + std::min(r, extra);
    const std::size_t count = base + (r < extra ? 1 : 0);
    for (std::size_t c = begin; c < begin + count; ++c) {
        owned.push_back(c);
    }
    return owned;
}

/// What the ranks of one simulated communicator share.
class Hub {
public:
    explicit Hub(int size)
        : size_(size), barrier_(size), records_(static_cast<std::size_t>(size)),
          failures_(static_cast<std::size_t>(size)), fingerprints_(static_cast<std::size_t>(size)) {
    }

    [[nodiscard]] int size() const noexcept { return size_; }

    std::vector<double> gather(int rank, std::span<const double> local, std::size_t width,
                               std::size_t global_chunks, Partition partition) {
        records_[static_cast<std::size_t>(rank)].assign(local.begin(), local.end());
        barrier_.arrive_and_wait();
        std::vector<double> out(global_chunks * width, 0.0);
        for (int r = 0; r < size_; ++r) {
            const std::vector<std::size_t> owned = owned_by(global_chunks, r, size_, partition);
            const std::vector<double>& rec = records_[static_cast<std::size_t>(r)];
            for (std::size_t i = 0; i < owned.size() && (i + 1) * width <= rec.size(); ++i) {
                std::copy_n(rec.begin() + static_cast<std::ptrdiff_t>(i * width), width,
                            out.begin() + static_cast<std::ptrdiff_t>(owned[i] * width));
            }
        }
        barrier_.arrive_and_wait();
        return out;
    }

    void check(int rank, bool ok, ErrorKind kind, const std::string& message,
               std::uint64_t fingerprint) {
        failures_[static_cast<std::size_t>(rank)] =
            ok ? std::nullopt : std::optional<std::pair<ErrorKind, std::string>>({kind, message});
        fingerprints_[static_cast<std::size_t>(rank)] = fingerprint;
        barrier_.arrive_and_wait();
        std::optional<std::pair<int, std::pair<ErrorKind, std::string>>> first;
        for (int r = 0; r < size_ && !first; ++r) {
            if (const auto& f = failures_[static_cast<std::size_t>(r)]) {
                first = {r, *f};
            }
        }
        const bool same = std::adjacent_find(fingerprints_.begin(), fingerprints_.end(),
                                             std::not_equal_to<>()) == fingerprints_.end();
        barrier_.arrive_and_wait();
        if (first) {
            throw_error(first->second.first, fmt::format("rank {} of {}: {}", first->first, size_,
                                                         first->second.second));
        }
        if (!same) {
            throw BackendError("the ranks are not evaluating the same thing");
        }
    }

private:
    int size_;
    std::barrier<> barrier_;
    std::vector<std::vector<double>> records_;
    std::vector<std::optional<std::pair<ErrorKind, std::string>>> failures_;
    std::vector<std::uint64_t> fingerprints_;
};

/// Rank `rank` of a Hub.
class TestCollective final : public Collective {
public:
    TestCollective(Hub& hub, int rank, Partition partition)
        : hub_(&hub), rank_(rank), partition_(partition) {}

    [[nodiscard]] int rank() const noexcept override { return rank_; }

    [[nodiscard]] int size() const noexcept override { return hub_->size(); }

    [[nodiscard]] std::vector<std::size_t>
    owned_chunks(std::size_t events, std::span<const std::size_t> /*fragments*/) const override {
        const std::size_t chunks = (events + kReductionChunk - 1) / kReductionChunk;
        return owned_by(chunks, rank_, hub_->size(), partition_);
    }

    [[nodiscard]] std::vector<double> all_gather_chunks(std::span<const double> local,
                                                        std::size_t width,
                                                        std::size_t global_chunks) const override {
        return hub_->gather(rank_, local, width, global_chunks, partition_);
    }

    void check_all(bool ok, ErrorKind kind, const std::string& message,
                   std::uint64_t fingerprint = kAnyFingerprint) const override {
        hub_->check(rank_, ok, kind, message, fingerprint);
    }

private:
    Hub* hub_;
    int rank_;
    Partition partition_;
};

}  // namespace laddu::runtime::testing
