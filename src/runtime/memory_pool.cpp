#include <algorithm>
#include <limits>
#include <utility>

#include <fmt/format.h>

#include <laddu/base/error.hpp>
#include <laddu/runtime/memory_pool.hpp>

#include "chunk_kernel.hpp"

namespace laddu::runtime {

namespace {

constexpr std::size_t kUnlimited = std::numeric_limits<std::size_t>::max();

std::string mib(std::size_t bytes) {
    if (bytes == kUnlimited) {
        return "unlimited";
    }
    return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
}

}  // namespace

MemoryLease::MemoryLease(MemoryLease&& other) noexcept
    : pool_(std::move(other.pool_)), id_(other.id_), bytes_(std::exchange(other.bytes_, 0)) {}

MemoryLease& MemoryLease::operator=(MemoryLease&& other) noexcept {
    if (this != &other) {
        release();
        pool_ = std::move(other.pool_);
        id_ = other.id_;
        bytes_ = std::exchange(other.bytes_, 0);
    }
    return *this;
}

MemoryLease::~MemoryLease() {
    release();
}

void MemoryLease::release() noexcept {
    if (pool_) {
        pool_->give_back(id_, 0);
        pool_.reset();
    }
    bytes_ = 0;
}

void MemoryLease::shrink_to(std::size_t bytes) noexcept {
    if (bytes == 0) {
        release();
    } else if (pool_ && bytes < bytes_) {
        pool_->give_back(id_, bytes);
        bytes_ = bytes;
    }
}

MemoryPool::MemoryPool(const MemoryPlan& plan) : MemoryPool(plan.resolve(), plan.to_string()) {}

namespace {

// The host budget, or the device's when it is the smaller (both resolved once).
std::pair<std::size_t, std::string> execution_budget(const Execution& execution) {
    const std::size_t host = execution.memory.resolve();
    const std::size_t device = detail::device_budget(execution);
    if (device < host) {
        return {device, fmt::format("{} of GPU {}", execution.device_memory.to_string(),
                                    execution.device_index)};
    }
    return {host, execution.memory.to_string()};
}

}  // namespace

MemoryPool::MemoryPool(const Execution& execution) : MemoryPool(execution_budget(execution)) {}

MemoryPool::MemoryPool(std::pair<std::size_t, std::string> budget)
    : MemoryPool(budget.first, std::move(budget.second)) {}

MemoryPool::MemoryPool(std::size_t budget, std::string budget_text)
    : budget_(budget), budget_text_(std::move(budget_text)) {}

MemoryPool::~MemoryPool() = default;

bool MemoryPool::is_unlimited() const noexcept {
    return budget_ == kUnlimited;
}

std::size_t MemoryPool::leased() const {
    const std::lock_guard lock(mutex_);
    return leased_;
}

std::size_t MemoryPool::available() const {
    if (is_unlimited()) {
        return kUnlimited;
    }
    const std::lock_guard lock(mutex_);
    return budget_ - leased_;
}

std::optional<MemoryLease> MemoryPool::try_lease(std::size_t bytes, std::string label) {
    const std::lock_guard lock(mutex_);
    if (!is_unlimited() && bytes > budget_ - leased_) {
        log({LeaseDecision::Kind::kRefused, std::move(label), bytes, leased_});
        return std::nullopt;
    }
    // An unlimited pool counts its leases too, saturating, for the log.
    leased_ = bytes > kUnlimited - leased_ ? kUnlimited : leased_ + bytes;
    const std::uint64_t id = next_id_++;
    held_.push_back({id, ActiveLease{label, bytes}});
    log({LeaseDecision::Kind::kGranted, std::move(label), bytes, leased_});
    return MemoryLease(shared_from_this(), id, bytes);
}

MemoryLease MemoryPool::lease(std::size_t bytes, std::string label) {
    std::optional<MemoryLease> granted = try_lease(bytes, label);
    if (granted) {
        return std::move(*granted);
    }
    const std::lock_guard lock(mutex_);
    const std::size_t leased = leased_;
    throw DataError(fmt::format(
        "{} needs {} but only {} of the {} memory budget ({}) is left: {}; raise the budget "
        "(Execution::memory) to at least {}, or drop work prepared with this execution",
        label, mib(bytes), mib(budget_ - leased), mib(budget_), budget_text_, holders_locked(),
        mib(bytes > kUnlimited - leased ? kUnlimited : leased + bytes)));
}

std::string MemoryPool::holders() const {
    const std::lock_guard lock(mutex_);
    return holders_locked();
}

std::string MemoryPool::remainder_text() const {
    const std::lock_guard lock(mutex_);
    if (held_.empty()) {
        return budget_text_;
    }
    return fmt::format("what is left of the {} budget ({}) once {}", mib(budget_), budget_text_,
                       holders_locked());
}

std::string MemoryPool::holders_locked() const {
    if (held_.empty()) {
        return "nothing is leased";
    }
    std::string out;
    for (const Held& h : held_) {
        out += fmt::format("{}{} holds {}", out.empty() ? "" : ", ", h.lease.label,
                           mib(h.lease.bytes));
    }
    return out;
}

std::vector<ActiveLease> MemoryPool::leases() const {
    const std::lock_guard lock(mutex_);
    std::vector<ActiveLease> out;
    out.reserve(held_.size());
    for (const Held& h : held_) {
        out.push_back(h.lease);
    }
    return out;
}

std::vector<LeaseDecision> MemoryPool::decisions() const {
    const std::lock_guard lock(mutex_);
    return {decisions_.begin(), decisions_.end()};
}

void MemoryPool::log(LeaseDecision decision) {
    if (decisions_.size() == kLoggedDecisions) {
        decisions_.pop_front();
    }
    decisions_.push_back(std::move(decision));
}

void MemoryPool::record(const MemoryReport& report) {
    const std::lock_guard lock(mutex_);
    reports_.push_back(report);
}

std::vector<MemoryReport> MemoryPool::reports() const {
    const std::lock_guard lock(mutex_);
    return reports_;
}

void MemoryPool::give_back(std::uint64_t id, std::size_t keep) noexcept {
    const std::lock_guard lock(mutex_);
    const auto it =
        std::find_if(held_.begin(), held_.end(), [&](const Held& h) { return h.id == id; });
    if (it == held_.end() || keep > it->lease.bytes) {
        return;
    }
    const std::size_t returned = it->lease.bytes - keep;
    leased_ -= std::min(leased_, returned);
    // A log entry may need memory; a release must not throw, so it goes unlogged then.
    try {
        log({LeaseDecision::Kind::kReleased, it->lease.label, returned, leased_});
        // NOLINTNEXTLINE(bugprone-empty-catch): see above
    } catch (...) {
    }
    if (keep == 0) {
        held_.erase(it);
    } else {
        it->lease.bytes = keep;
    }
}

std::shared_ptr<MemoryPool> pool_of(const Execution& execution) {
    if (execution.memory_pool) {
        return execution.memory_pool;
    }
    return std::make_shared<MemoryPool>(execution);
}

}  // namespace laddu::runtime
