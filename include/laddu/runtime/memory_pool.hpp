// laddu/runtime/memory_pool.hpp: one host-memory budget shared by all the work prepared with an
// Execution, handed out as leases.
//
// A MemoryPool holds the budget of an Execution's MemoryPlan, resolved once when the pool is
// made. Work that holds memory takes a MemoryLease and gives the bytes back when the lease is
// destroyed: a PreparedModel leases its resident cache with the scratch (its planned peak while
// the cache is read), or, streaming, its read buffers, scratch and a window of one chunk, for
// as long as it lives, and each streaming pass borrows the rest of its window while it runs;
// the normalisation matrix leases its read windows while it runs. Each plans against
// available() (the budget less what is leased), so an NLL's data, its accepted Monte Carlo and
// every other term prepared with the same Execution (or a copy of it) fit the one budget
// together.
//
// The pool is also the execution's decision log: the leases granted, released or refused, and
// the MemoryReport of every PreparedModel prepared with it.
//
// Example:
//   runtime::Execution execution{.memory = runtime::MemoryPlan::parse("2 GiB")};
//   execution.memory_pool = std::make_shared<runtime::MemoryPool>(execution.memory);
//   const runtime::MemoryLease lease = execution.memory_pool->lease(bytes, "a staging buffer");
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <laddu/runtime/execution.hpp>
#include <laddu/runtime/prepared_model.hpp>

namespace laddu::runtime {

class MemoryPool;

/// Bytes of a MemoryPool held by one piece of work; destroying (or releasing) the lease gives
/// them back. Move-only; a default-constructed lease holds nothing.
class MemoryLease {
public:
    MemoryLease() = default;
    MemoryLease(MemoryLease&& other) noexcept;
    MemoryLease& operator=(MemoryLease&& other) noexcept;
    MemoryLease(const MemoryLease&) = delete;
    MemoryLease& operator=(const MemoryLease&) = delete;
    ~MemoryLease();

    /// The bytes held (0 once released).
    [[nodiscard]] std::size_t bytes() const noexcept { return bytes_; }

    /// Gives the bytes back now (nothing when already released).
    void release() noexcept;

    /// Gives back all but `bytes` (nothing when it holds no more), e.g. a resident cache's read
    /// buffers once the cache is built.
    void shrink_to(std::size_t bytes) noexcept;

private:
    friend class MemoryPool;

    MemoryLease(std::shared_ptr<MemoryPool> pool, std::uint64_t id, std::size_t bytes) noexcept
        : pool_(std::move(pool)), id_(id), bytes_(bytes) {}

    std::shared_ptr<MemoryPool> pool_;
    std::uint64_t id_ = 0;
    std::size_t bytes_ = 0;
};

/// One entry of a pool's decision log.
struct LeaseDecision {
    enum class Kind : std::uint8_t {
        kGranted,   ///< the bytes were leased
        kReleased,  ///< a lease gave its bytes back
        kRefused,   ///< more bytes were asked for than were available
    };

    Kind kind = Kind::kGranted;
    std::string label;       ///< who asked, e.g. "the data (resident cache)"
    std::size_t bytes = 0;   ///< the bytes asked for, or given back
    std::size_t leased = 0;  ///< the pool's leased bytes after the decision
};

/// A lease that is held now.
struct ActiveLease {
    std::string label;
    std::size_t bytes = 0;
};

/// The host-memory budget of an Execution and its copies, handed out as leases, and the record
/// of what was leased, released and refused. Thread-safe. Make it with std::make_shared (a
/// lease keeps its pool alive).
class MemoryPool : public std::enable_shared_from_this<MemoryPool> {
public:
    /// How many decisions the log keeps.
    static constexpr std::size_t kLoggedDecisions = 1024;

    /// A pool of `plan`'s budget, resolved now (MemoryPlan::resolve: BackendError for a
    /// percentage where /proc/meminfo cannot be read).
    explicit MemoryPool(const MemoryPlan& plan);

    /// The pool an execution plans in: `execution.memory`'s budget, or under Device::kGpu the
    /// smaller of it and the device budget (Execution::device_memory), so that the event cache
    /// is planned to fit the device and streams through it in windows when it does not.
    explicit MemoryPool(const Execution& execution);

    /// A pool of `budget` bytes (SIZE_MAX: unlimited), named `budget_text` in messages.
    MemoryPool(std::size_t budget, std::string budget_text);

    MemoryPool(const MemoryPool&) = delete;
    MemoryPool& operator=(const MemoryPool&) = delete;
    MemoryPool(MemoryPool&&) = delete;
    MemoryPool& operator=(MemoryPool&&) = delete;
    ~MemoryPool();

    /// The budget in bytes (SIZE_MAX: unlimited).
    [[nodiscard]] std::size_t budget() const noexcept { return budget_; }

    /// The budget as the plan spells it ("2147483648 B", "70% available", "unlimited").
    [[nodiscard]] const std::string& budget_text() const noexcept { return budget_text_; }

    /// True when the budget is unlimited: every lease is granted.
    [[nodiscard]] bool is_unlimited() const noexcept;

    /// The bytes leased now.
    [[nodiscard]] std::size_t leased() const;

    /// The budget less the bytes leased now (SIZE_MAX when unlimited).
    [[nodiscard]] std::size_t available() const;

    /// Leases `bytes` for `label` (who holds them, e.g. "the data (resident cache)"). Throws
    /// DataError when fewer are available, naming the request, the budget, what every current
    /// lease holds and the budget that would fit them all.
    [[nodiscard]] MemoryLease lease(std::size_t bytes, std::string label);

    /// Leases `bytes` for `label`, or nothing (logged as refused) when fewer are available.
    [[nodiscard]] std::optional<MemoryLease> try_lease(std::size_t bytes, std::string label);

    /// What the current leases hold, for messages: "the data (resident cache) holds 1.2 MiB,
    /// the accepted Monte Carlo (streaming windows) holds 0.5 MiB", or "nothing is leased".
    [[nodiscard]] std::string holders() const;

    /// The budget a plan made now may use, for messages: budget_text() when nothing is leased,
    /// else "what is left of the 2048.0 MiB budget (2147483648 B) once <holders()>".
    [[nodiscard]] std::string remainder_text() const;

    /// The leases held now, oldest first.
    [[nodiscard]] std::vector<ActiveLease> leases() const;

    /// The most recent kLoggedDecisions leases granted, released (wholly or in part) and
    /// refused, in order. A streaming pass borrows and returns its window each time, so the log
    /// keeps only the latest.
    [[nodiscard]] std::vector<LeaseDecision> decisions() const;

    /// Appends the report of a PreparedModel prepared with this pool's execution.
    void record(const MemoryReport& report);

    /// The reports recorded so far, in the order the models were prepared.
    [[nodiscard]] std::vector<MemoryReport> reports() const;

private:
    friend class MemoryLease;

    explicit MemoryPool(std::pair<std::size_t, std::string> budget);

    struct Held {
        std::uint64_t id = 0;
        ActiveLease lease;
    };

    void give_back(std::uint64_t id, std::size_t keep) noexcept;
    void log(LeaseDecision decision);
    [[nodiscard]] std::string holders_locked() const;

    const std::size_t budget_;
    const std::string budget_text_;
    mutable std::mutex mutex_;
    std::size_t leased_ = 0;
    std::uint64_t next_id_ = 1;
    std::vector<Held> held_;
    std::deque<LeaseDecision> decisions_;
    std::vector<MemoryReport> reports_;
};

/// The pool `execution` plans against: its memory_pool, or, when it has none, a new pool of its
/// budget that only the caller's work shares.
[[nodiscard]] std::shared_ptr<MemoryPool> pool_of(const Execution& execution);

}  // namespace laddu::runtime
