#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>
#include <thread>

#include <fmt/format.h>

#include <laddu/base/error.hpp>
#include <laddu/runtime/execution.hpp>
#include <laddu/runtime/thread_pool.hpp>

namespace laddu::runtime {

namespace {

std::string lower(std::string_view text) {
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

std::string_view trim(std::string_view text) {
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())) != 0) {
        text.remove_prefix(1);
    }
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())) != 0) {
        text.remove_suffix(1);
    }
    return text;
}

[[noreturn]] void bad_budget(std::string_view text, std::string_view why) {
    throw ModelError(fmt::format("cannot parse memory budget '{}': {}; write e.g. \"2 GiB\", "
                                 "\"512 MiB\", \"1.5 GB\", \"4096\" (bytes), \"70% available\", "
                                 "\"50% total\" or \"auto\"",
                                 text, why));
}

std::uint64_t unit_factor(std::string_view unit, std::string_view text) {
    struct Unit {
        std::string_view name;
        std::uint64_t factor;
    };

    static constexpr Unit kUnits[] = {
        {"", 1},
        {"b", 1},
        {"byte", 1},
        {"bytes", 1},
        {"kb", 1'000},
        {"mb", 1'000'000},
        {"gb", 1'000'000'000},
        {"tb", 1'000'000'000'000},
        {"kib", std::uint64_t{1} << 10U},
        {"mib", std::uint64_t{1} << 20U},
        {"gib", std::uint64_t{1} << 30U},
        {"tib", std::uint64_t{1} << 40U},
    };
    for (const Unit& u : kUnits) {
        if (unit == u.name) {
            return u.factor;
        }
    }
    bad_budget(text, fmt::format("unknown unit '{}'", unit));
}

bool all_digits(std::string_view digits) {
    return std::all_of(digits.begin(), digits.end(),
                       [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
}

// laddu's byte arithmetic, exact in integers: "18446744073709551.615 KB" is 2^64 - 1 bytes,
// which a double would round.
std::size_t parse_byte_count(std::string_view norm, std::string_view text) {
    const std::size_t split = norm.find_first_not_of("0123456789.");
    const std::string_view number = norm.substr(0, split);
    const std::string_view unit = trim(split == std::string_view::npos ? "" : norm.substr(split));
    if (number.empty()) {
        bad_budget(text, norm.starts_with('-') ? "the number must be non-negative"
                                               : "expected a number first");
    }
    const std::uint64_t factor = unit_factor(unit, text);
    const std::size_t dot = number.find('.');
    const std::string_view whole = number.substr(0, dot);
    const std::string_view fraction =
        dot == std::string_view::npos ? std::string_view{} : number.substr(dot + 1);
    if (!all_digits(fraction)) {
        bad_budget(text, "more than one decimal point");
    }
    if (number.find_first_not_of("0.") == std::string_view::npos) {
        bad_budget(text, "the budget must be greater than zero");
    }
    std::uint64_t whole_value = 0;
    if (!whole.empty()) {
        const auto [end, ec] =
            std::from_chars(whole.data(), whole.data() + whole.size(), whole_value);
        if (ec != std::errc() || end != whole.data() + whole.size()) {
            bad_budget(text, "the budget does not fit in 64 bits");
        }
    }
    std::uint64_t total = 0;
    if (__builtin_mul_overflow(whole_value, factor, &total)) {
        bad_budget(text, "the budget does not fit in 64 bits");
    }
    // Σ d_i · factor / 10^i, rounded down, digit by digit from the last one.
    std::uint64_t carry = 0;
    for (auto digit = fraction.rbegin(); digit != fraction.rend(); ++digit) {
        std::uint64_t term = 0;
        if (__builtin_mul_overflow(static_cast<std::uint64_t>(*digit - '0'), factor, &term) ||
            __builtin_add_overflow(term, carry, &term)) {
            bad_budget(text, "the budget does not fit in 64 bits");
        }
        carry = term / 10;
    }
    if (__builtin_add_overflow(total, carry, &total)) {
        bad_budget(text, "the budget does not fit in 64 bits");
    }
    return total;
}

std::size_t scaled(std::size_t bytes, double fraction) {
    const double value = std::floor(static_cast<double>(bytes) * fraction);
    if (value >= static_cast<double>(std::numeric_limits<std::size_t>::max())) {
        return std::numeric_limits<std::size_t>::max();
    }
    return static_cast<std::size_t>(value);
}

double checked_percent(double percent) {
    if (!(std::isfinite(percent) && percent > 0.0 && percent <= 100.0)) {
        throw ModelError(
            fmt::format("memory budget percentage must be in (0, 100], got {}", percent));
    }
    return percent;
}

}  // namespace

MemoryPlan MemoryPlan::bytes(std::size_t bytes) {
    MemoryPlan plan;
    plan.kind_ = Kind::kBytes;
    plan.bytes_ = bytes;
    return plan;
}

MemoryPlan MemoryPlan::automatic() {
    MemoryPlan plan;
    plan.kind_ = Kind::kAuto;
    return plan;
}

MemoryPlan MemoryPlan::fraction_of_available(double percent) {
    MemoryPlan plan;
    plan.kind_ = Kind::kOfAvailable;
    plan.fraction_ = checked_percent(percent) / 100.0;
    return plan;
}

MemoryPlan MemoryPlan::fraction_of_total(double percent) {
    MemoryPlan plan;
    plan.kind_ = Kind::kOfTotal;
    plan.fraction_ = checked_percent(percent) / 100.0;
    return plan;
}

MemoryPlan MemoryPlan::parse(std::string_view text) {
    const std::string norm = lower(trim(text));
    if (norm == "auto") {
        return automatic();
    }
    const std::size_t percent_sign = norm.find('%');
    if (percent_sign == std::string::npos) {
        return bytes(parse_byte_count(norm, text));
    }
    const std::string_view number = trim(std::string_view(norm).substr(0, percent_sign));
    const std::string_view basis = trim(std::string_view(norm).substr(percent_sign + 1));
    double percent = 0.0;
    const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), percent);
    if (number.empty() || ec != std::errc() || end != number.data() + number.size()) {
        bad_budget(text, "expected a number before '%'");
    }
    if (!(std::isfinite(percent) && percent > 0.0 && percent <= 100.0)) {
        bad_budget(text, "a percentage must be in (0, 100]");
    }
    if (basis.empty() || basis == "total") {
        return fraction_of_total(percent);
    }
    if (basis == "available" || basis == "free" || basis == "remaining" ||
        basis == "of available") {
        return fraction_of_available(percent);
    }
    bad_budget(text, fmt::format("unexpected '{}' after the percentage (write 'available' or "
                                 "'total')",
                                 basis));
}

std::size_t MemoryPlan::resolve() const {
    switch (kind_) {
    case Kind::kUnlimited:
        return std::numeric_limits<std::size_t>::max();
    case Kind::kBytes:
        return bytes_;
    case Kind::kAuto: {
        // laddu's rule: 80% of what is available, or half the total when that is unknown.
        const Expected<std::size_t> available = available_host_memory();
        if (available.has_value()) {
            return scaled(*available, 0.8);
        }
        return scaled(total_host_memory().value(), 0.5);
    }
    case Kind::kOfAvailable:
        return scaled(available_host_memory().value(), fraction_);
    case Kind::kOfTotal:
        return scaled(total_host_memory().value(), fraction_);
    }
    return 0;
}

std::size_t MemoryPlan::resolve_against(std::size_t total, std::size_t available) const noexcept {
    switch (kind_) {
    case Kind::kUnlimited:
        return std::numeric_limits<std::size_t>::max();
    case Kind::kBytes:
        return bytes_;
    case Kind::kAuto:
        return scaled(available, 0.8);
    case Kind::kOfAvailable:
        return scaled(available, fraction_);
    case Kind::kOfTotal:
        return scaled(total, fraction_);
    }
    return 0;
}

std::string MemoryPlan::to_string() const {
    switch (kind_) {
    case Kind::kUnlimited:
        return "unlimited";
    case Kind::kAuto:
        return "auto";
    case Kind::kBytes:
        return fmt::format("{} B", bytes_);
    case Kind::kOfAvailable:
        return fmt::format("{}% available", fraction_ * 100.0);
    case Kind::kOfTotal:
        return fmt::format("{}% total", fraction_ * 100.0);
    }
    return "invalid";
}

Expected<std::size_t> meminfo_bytes(const std::string& path, std::string_view key) {
    std::ifstream meminfo(path);
    if (!meminfo) {
        return failure(ErrorKind::kBackend,
                       fmt::format("cannot open {} to read {} (only Linux has it); give the "
                                   "memory budget in bytes instead, e.g. \"2 GiB\"",
                                   path, key));
    }
    const std::string label = fmt::format("{}:", key);
    std::string name;
    std::size_t value = 0;
    std::string unit;
    while (meminfo >> name >> value) {
        std::getline(meminfo, unit);
        if (name == label) {
            return value * 1024;  // /proc/meminfo reports kB (KiB)
        }
    }
    return failure(ErrorKind::kBackend,
                   fmt::format("{} has no {} line; give the memory budget in bytes instead, "
                               "e.g. \"2 GiB\"",
                               path, key));
}

Expected<std::size_t> available_host_memory() {
    return meminfo_bytes("/proc/meminfo", "MemAvailable");
}

Expected<std::size_t> total_host_memory() {
    return meminfo_bytes("/proc/meminfo", "MemTotal");
}

std::size_t Execution::resolved_threads() const noexcept {
    if (threads > 0) {
        return threads;
    }
    return std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, kMaxThreads);
}

}  // namespace laddu::runtime
