#include <algorithm>
#include <cmath>
#include <utility>

#include <fmt/format.h>

#include <laddu/base/error.hpp>
#include <laddu/distributed/mpi_collective.hpp>
#include <laddu/runtime/reduce.hpp>

namespace laddu::distributed {

namespace {

// A rank that cannot send its records sends one marker record instead, whose id field is
// -1 - (rank · 256 + kind): every rank sees it in the same gathered buffer and fails alike.
constexpr double kKindsPerRank = 256.0;

double error_marker(int rank, ErrorKind kind) {
    return -1.0 - (static_cast<double>(rank) * kKindsPerRank + static_cast<double>(kind));
}

}  // namespace

MpiCollective::MpiCollective(const MpiContext& context, Partitioning partitioning,
                             std::vector<std::size_t> fragments)
    : context_(&context), partitioning_(partitioning), fragments_(std::move(fragments)) {}

std::vector<std::size_t> MpiCollective::owned_chunks(std::size_t events,
                                                     std::span<const std::size_t> given) const {
    const std::span<const std::size_t> fragments = fragments_.empty() ? given : fragments_;
    // One fragment (a resident dataset, a file of one row group) cannot be dealt out.
    const bool by_fragments = partitioning_ == Partitioning::kFileGroups && fragments.size() > 1;
    const Partitioning effective = partitioning_ == Partitioning::kFileGroups && !by_fragments
                                       ? Partitioning::kContiguous
                                       : partitioning_;
    if (!fragments.empty() && !by_fragments) {
        // Check the sizes for every partitioning, so a wrong fragment list never goes unseen.
        (void)partition_events(events, rank(), size(), Partitioning::kFileGroups, fragments);
    }
    std::vector<std::size_t> chunks =
        partition_events(events, rank(), size(), effective, fragments).chunks;
    if (partitioning_ == Partitioning::kFileGroups) {
        const std::size_t global_chunks =
            (events + runtime::kReductionChunk - 1) / runtime::kReductionChunk;
        const std::lock_guard lock(mutex_);
        const bool known = std::any_of(layouts_.begin(), layouts_.end(), [&](const auto& layout) {
            return layout.first == global_chunks && layout.second == chunks;
        });
        if (!known) {
            layouts_.emplace_back(global_chunks, chunks);
        }
    }
    return chunks;
}

std::vector<std::size_t> MpiCollective::own_chunks(std::size_t global_chunks,
                                                   std::size_t local_chunks) const {
    if (partitioning_ != Partitioning::kFileGroups) {
        // Contiguous and rows depend on the chunk count only.
        return partition_events(global_chunks * runtime::kReductionChunk, rank(), size(),
                                partitioning_)
            .chunks;
    }
    const std::lock_guard lock(mutex_);
    const std::vector<std::size_t>* found = nullptr;
    bool seen = false;
    for (const auto& [chunks_in_layout, mine] : layouts_) {
        if (chunks_in_layout != global_chunks) {
            continue;
        }
        seen = true;
        if (mine.size() != local_chunks) {
            continue;
        }
        if (found != nullptr && *found != mine) {
            throw BackendError(fmt::format(
                "file_groups partitioning: two datasets of {} chunks with different row-group "
                "layouts give this rank {} different chunks each, so their chunk records cannot "
                "be told apart; use the contiguous or rows partitioning for one of them",
                global_chunks, local_chunks));
        }
        found = &mine;
    }
    if (found == nullptr) {
        throw InternalError(
            fmt::format("file_groups partitioning: {} chunk records for a dataset of {} chunks {}",
                        local_chunks, global_chunks,
                        seen ? "match no layout owned_chunks() gave this rank"
                             : "but owned_chunks() was never asked about such a dataset"));
    }
    return *found;
}

std::vector<double> MpiCollective::all_gather_chunks(std::span<const double> local,
                                                     std::size_t width,
                                                     std::size_t global_chunks) const {
    if (width == 0) {
        throw InternalError("all_gather_chunks needs at least one value per chunk");
    }
    const std::size_t stride = width + 1;
    std::vector<double> records;
    ErrorKind failure_kind = ErrorKind::kInternal;
    std::string failure;
    try {
        if (local.size() % width != 0) {
            throw InternalError(
                fmt::format("all_gather_chunks: {} local values are not whole records of {}",
                            local.size(), width));
        }
        const std::vector<std::size_t> mine = own_chunks(global_chunks, local.size() / width);
        if (mine.size() * width != local.size()) {
            throw InternalError(fmt::format("all_gather_chunks: {} records for {} owned chunks",
                                            local.size() / width, mine.size()));
        }
        records.reserve(mine.size() * stride);
        for (std::size_t i = 0; i < mine.size(); ++i) {
            records.push_back(static_cast<double>(mine[i]));
            records.insert(records.end(), local.begin() + static_cast<std::ptrdiff_t>(i * width),
                           local.begin() + static_cast<std::ptrdiff_t>((i + 1) * width));
        }
    } catch (const Error& error) {
        failure_kind = error.kind();
        failure = error.what();
        records.assign(stride, 0.0);
        records[0] = error_marker(rank(), failure_kind);
    }

    const std::vector<double> gathered = context_->all_gather(records);
    if (gathered.size() % stride != 0) {
        throw InternalError(fmt::format("all_gather_chunks: ranks disagree about the record "
                                        "width ({} values gathered, width {})",
                                        gathered.size(), width));
    }
    // Every rank scans the same buffer, so every rank takes the same branch below.
    int failed_rank = -1;
    ErrorKind failed_kind = ErrorKind::kInternal;
    std::vector<double> ordered(global_chunks * width);
    std::vector<bool> filled(global_chunks, false);
    std::string problem;
    for (std::size_t at = 0; at < gathered.size(); at += stride) {
        const double id = gathered[at];
        if (id < 0.0) {
            const auto code = static_cast<long long>(-1.0 - id);
            const auto from = static_cast<int>(code / 256);
            if (failed_rank < 0 || from < failed_rank) {
                failed_rank = from;
                failed_kind = static_cast<ErrorKind>(code % 256);
            }
            continue;
        }
        const auto chunk = static_cast<std::size_t>(id);
        if (static_cast<double>(chunk) != id || chunk >= global_chunks || filled[chunk]) {
            problem = fmt::format("chunk record {} is out of range or repeated", id);
            continue;
        }
        filled[chunk] = true;
        std::copy_n(gathered.begin() + static_cast<std::ptrdiff_t>(at + 1), width,
                    ordered.begin() + static_cast<std::ptrdiff_t>(chunk * width));
    }
    if (failed_rank >= 0) {
        const std::string message = context_->broadcast(failure, failed_rank);
        throw_error(failed_kind, fmt::format("rank {} of {}: {}", failed_rank, size(), message));
    }
    if (problem.empty()) {
        const auto missing = std::find(filled.begin(), filled.end(), false);
        if (missing != filled.end()) {
            problem = fmt::format("no rank sent chunk {}", missing - filled.begin());
        }
    }
    if (!problem.empty()) {
        throw InternalError(fmt::format("all_gather_chunks over {} ranks and {} chunks: {}; the "
                                        "ranks do not agree about the partition",
                                        size(), global_chunks, problem));
    }
    return ordered;
}

void MpiCollective::check_all(bool ok, ErrorKind kind, const std::string& message,
                              std::uint64_t fingerprint) const {
    const Agreement agreement = context_->agree(ok, fingerprint);
    const int failed = agreement.first_failed;
    if (failed < 0) {
        if (!agreement.same_fingerprint) {
            throw BackendError(fmt::format(
                "the {} ranks are not evaluating the same thing (their programs, precisions or "
                "parameter values differ); every rank must make the same calls with the same "
                "arguments",
                size()));
        }
        return;
    }
    // One broadcast carries the class (first byte) and the message.
    const std::string mine = std::string(1, static_cast<char>(kind)) + message;
    const std::string received = context_->broadcast(mine, failed);
    const auto failed_kind = static_cast<ErrorKind>(static_cast<unsigned char>(received.at(0)));
    throw_error(failed_kind, fmt::format("rank {} of {}: {}", failed, size(), received.substr(1)));
}

std::shared_ptr<const runtime::Collective> mpi_collective(Partitioning partitioning,
                                                          std::vector<std::size_t> fragments) {
    return std::make_shared<const MpiCollective>(MpiContext::world(), partitioning,
                                                 std::move(fragments));
}

}  // namespace laddu::distributed
