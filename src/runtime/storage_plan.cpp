#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include <laddu/base/error.hpp>
#include <laddu/runtime/reduce.hpp>
#include <laddu/runtime/storage_plan.hpp>

namespace laddu::runtime {

namespace {

constexpr std::size_t kMax = std::numeric_limits<std::size_t>::max();

// Checked arithmetic: nullopt on overflow (or when an operand already overflowed).
using Bytes = std::optional<std::size_t>;

Bytes mul(Bytes a, Bytes b) noexcept {
    std::size_t out = 0;
    if (!a || !b || __builtin_mul_overflow(*a, *b, &out)) {
        return std::nullopt;
    }
    return out;
}

Bytes add(Bytes a, Bytes b) noexcept {
    std::size_t out = 0;
    if (!a || !b || __builtin_add_overflow(*a, *b, &out)) {
        return std::nullopt;
    }
    return out;
}

std::size_t saturating(Bytes value) noexcept {
    return value.value_or(kMax);
}

std::string mib(std::size_t bytes) {
    if (bytes == kMax) {
        return "unlimited";
    }
    return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
}

std::size_t chunks_of(std::size_t events) noexcept {
    return (events + kReductionChunk - 1) / kReductionChunk;
}

}  // namespace

std::optional<ResidentPlan> resident_cache_plan(std::size_t fixed_per_batch,
                                                std::size_t cache_per_event,
                                                std::size_t source_per_event, std::size_t events,
                                                std::size_t available) noexcept {
    if (events == 0) {
        return ResidentPlan{fixed_per_batch, 1};
    }
    const Bytes event_cache = mul(cache_per_event, events);
    const Bytes minimum = add(add(event_cache, fixed_per_batch), source_per_event);
    if (!minimum || *minimum > available) {
        return std::nullopt;
    }
    const auto resident_for = [&](std::size_t chunk) {
        return add(event_cache, mul(fixed_per_batch, (events + chunk - 1) / chunk));
    };
    std::size_t chunk = events;
    for (int iteration = 0; iteration < 16; ++iteration) {
        const Bytes resident = resident_for(chunk);
        if (!resident) {
            return std::nullopt;
        }
        const std::size_t left = available > *resident ? available - *resident : 0;
        const std::size_t next =
            std::min(left / std::max<std::size_t>(source_per_event, 1), events);
        if (next == 0) {
            return std::nullopt;
        }
        if (next == chunk) {
            return ResidentPlan{*resident, chunk};
        }
        chunk = next;
    }
    const Bytes resident = resident_for(chunk);
    const Bytes peak = add(resident, mul(source_per_event, chunk));
    if (!peak || *peak > available) {
        return std::nullopt;
    }
    return ResidentPlan{*resident, chunk};
}

StoragePlan plan_storage(data::MemoryPolicy requested, const StorageNeeds& needs,
                         std::size_t budget, std::string_view budget_text, std::size_t held) {
    const std::size_t events = needs.events;
    const std::size_t read_bpe = saturating(mul(2, needs.source_bpe));
    // Reading into a resident cache also holds each window's cache until it is placed.
    const std::size_t fill_bpe = saturating(add(read_bpe, needs.cache_bpe));
    // Held beside the cache whatever its size: the source stream's decode buffers and the
    // workers' scratch.
    const std::size_t overhead = saturating(add(needs.read_buffers, needs.scratch));
    const std::size_t whole = chunks_of(events) * kReductionChunk;
    const std::optional<ResidentPlan> resident = [&]() -> std::optional<ResidentPlan> {
        if (budget < overhead) {
            return std::nullopt;
        }
        const std::optional<ResidentPlan> r = resident_cache_plan(
            needs.cache_fixed, needs.cache_bpe, fill_bpe, events, budget - overhead);
        // Sources are read in whole chunks: a cache that leaves less than one chunk's reads
        // does not fit (resident_cache_plan alone would read fewer events at a time).
        const std::size_t reads = saturating(mul(fill_bpe, std::min(kReductionChunk, whole)));
        if (!r || saturating(add(add(r->resident_bytes, reads), overhead)) > budget) {
            return std::nullopt;
        }
        return r;
    }();
    const std::size_t cache_need = saturating(add(mul(needs.cache_bpe, events), needs.cache_fixed));
    const std::string overhead_text =
        fmt::format("{} of source read buffers and {} of kernel scratch", mib(needs.read_buffers),
                    mib(needs.scratch));
    StoragePlan plan;
    if (requested == data::MemoryPolicy::kResident && !resident) {
        throw DataError(fmt::format(
            "the event cache for {} events needs {} ({} bytes per event, plus {} bytes per event "
            "while reading and {}) but the memory budget is {} ({}); raise the budget "
            "(Execution::memory){} or use the streaming or fastest memory policy",
            events, mib(saturating(add(add(cache_need, fill_bpe), overhead))), needs.cache_bpe,
            fill_bpe, overhead_text, mib(budget), budget_text,
            held == 0 ? std::string()
                      : fmt::format(
                            " to at least {}",
                            mib(saturating(add(add(add(cache_need, fill_bpe), overhead), held))))));
    }
    if (requested != data::MemoryPolicy::kStreaming && resident) {
        plan.policy = data::MemoryPolicy::kResident;
        const std::size_t left =
            budget - overhead - std::min(budget - overhead, resident->resident_bytes);
        const std::size_t fit = left / std::max<std::size_t>(fill_bpe, 1);
        plan.window_events =
            std::min(std::max(fit / kReductionChunk, std::size_t{1}) * kReductionChunk, whole);
        plan.peak_bytes = saturating(
            add(add(resident->resident_bytes, mul(fill_bpe, plan.window_events)), overhead));
        plan.held_bytes = saturating(add(resident->resident_bytes, needs.scratch));
        plan.decision = fmt::format(
            "resident ({} policy): {} events, {} bytes/event, {} of {} budget{}, with {}",
            data::memory_policy_name(requested), events, needs.cache_bpe, mib(cache_need),
            mib(budget), held == 0 ? std::string() : fmt::format(" ({})", budget_text),
            overhead_text);
        return plan;
    }
    const std::size_t per_event = saturating(add(read_bpe, needs.cache_bpe));
    const std::size_t fixed = saturating(add(needs.cache_fixed, overhead));
    const std::size_t fit =
        budget > fixed ? (budget - fixed) / std::max<std::size_t>(per_event, 1) : 0;
    const std::size_t needed = std::min(events, kReductionChunk);
    if (fit < needed) {
        const std::size_t minimum = saturating(add(mul(per_event, needed), fixed));
        // Name the remedy for the largest part of the need.
        std::string remedy;
        if (needs.read_buffers > needs.scratch &&
            needs.read_buffers > saturating(mul(per_event, needed))) {
            remedy = ", or rewrite the Parquet files with smaller data pages";
        } else if (needs.scratch > saturating(mul(per_event, needed))) {
            remedy = ", or use fewer threads (Execution::threads)";
        }
        throw DataError(fmt::format(
            "streaming {} events needs at least {} for one window of {} events ({} bytes per "
            "event: {} for the cache, {} while reading) with {}, but the memory budget is {} "
            "({}); raise the budget (Execution::memory) to at least {}{}",
            events, mib(minimum), needed, per_event, needs.cache_bpe, read_bpe, overhead_text,
            mib(budget), budget_text, mib(saturating(add(minimum, held))), remedy));
    }
    plan.policy = data::MemoryPolicy::kStreaming;
    plan.window_events = std::min(std::max(fit / kReductionChunk, std::size_t{1}) * kReductionChunk,
                                  std::max(whole, kReductionChunk));
    plan.peak_bytes = saturating(
        add(mul(per_event, std::min(plan.window_events, std::max(events, std::size_t{1}))), fixed));
    plan.held_bytes = saturating(add(mul(per_event, std::max(needed, std::size_t{1})), fixed));
    plan.pass_bytes_per_event = per_event;
    plan.decision = fmt::format(
        "streaming ({} policy{}): {} events in windows of {} ({} chunks), {} bytes/event "
        "({} cache + {} reading), {}, peak {} of {} budget{}",
        data::memory_policy_name(requested),
        requested == data::MemoryPolicy::kFastest
            ? fmt::format(", the cache needs {}", mib(cache_need))
            : std::string(),
        events, plan.window_events, plan.window_events / kReductionChunk, per_event,
        needs.cache_bpe, read_bpe, overhead_text, mib(plan.peak_bytes), mib(budget),
        held == 0 ? std::string() : fmt::format(" ({})", budget_text));
    return plan;
}

}  // namespace laddu::runtime
