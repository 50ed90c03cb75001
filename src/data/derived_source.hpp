// src/data/derived_source.hpp (private): a lazily transformed view of another EventSource.
//
// EventData's subsample, bootstrap and row selections on file-backed events build one of these
// instead of reading the events: it keeps the rows it takes from its base (8 bytes per event),
// the replica index of each (the counter its bootstrap and subsample draws are keyed on, see
// Dataset::replica_index) and the bootstrap seeds whose Poisson(1) multiplicities scale the
// weights, and applies them to every batch it reads.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <laddu/data/event_source.hpp>

namespace laddu::data::detail {

/// Rows of a base source, in the base's order, with their replica indices and bootstrap seeds.
class DerivedSource final : public EventSource {
public:
    /// `rows` (nullptr: every base row) are ascending base rows; `replica` (nullptr: the derived
    /// row itself) holds one replica index per derived row; each of `bootstrap_seeds` multiplies
    /// the weight of derived row i by bootstrap_multiplicity(seed, replica index of i).
    DerivedSource(std::shared_ptr<const EventSource> base,
                  std::shared_ptr<const std::vector<std::uint64_t>> rows,
                  std::shared_ptr<const std::vector<std::uint64_t>> replica,
                  std::vector<std::uint64_t> bootstrap_seeds);

    [[nodiscard]] const Schema& schema() const override { return base_->schema(); }

    [[nodiscard]] std::uint64_t num_events() const override;

    [[nodiscard]] std::unique_ptr<BatchStream> read(const ReadPlan& plan) const override;

    /// The base's fragments restricted to the rows taken (empty ones dropped).
    [[nodiscard]] std::vector<std::size_t> fragment_sizes() const override;

    /// The base's buffers plus the base batch held while its rows are gathered.
    [[nodiscard]] std::size_t stream_buffer_bytes(const ReadPlan& plan) const override;

    /// The replica index of derived row `row`.
    [[nodiscard]] std::uint64_t replica_index(std::uint64_t row) const noexcept {
        return replica_ ? (*replica_)[row] : row;
    }

    /// The base source.
    [[nodiscard]] const std::shared_ptr<const EventSource>& base() const noexcept { return base_; }

    /// The base rows taken (nullptr: all).
    [[nodiscard]] const std::shared_ptr<const std::vector<std::uint64_t>>& rows() const noexcept {
        return rows_;
    }

    /// The replica indices (nullptr: the derived row).
    [[nodiscard]] const std::shared_ptr<const std::vector<std::uint64_t>>&
    replica() const noexcept {
        return replica_;
    }

    /// The bootstrap seeds applied, in order.
    [[nodiscard]] const std::vector<std::uint64_t>& bootstrap_seeds() const noexcept {
        return seeds_;
    }

private:
    std::shared_ptr<const EventSource> base_;
    std::shared_ptr<const std::vector<std::uint64_t>> rows_;
    std::shared_ptr<const std::vector<std::uint64_t>> replica_;
    std::vector<std::uint64_t> seeds_;
};

}  // namespace laddu::data::detail
