#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
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
                                 "\"512 MiB\", \"1.5 GB\", \"4096\" (bytes) or \"70% available\"",
                                 text, why));
}

double unit_factor(std::string_view unit, std::string_view text) {
    struct Unit {
        std::string_view name;
        double factor;
    };

    static constexpr Unit kUnits[] = {
        {"", 1.0},
        {"b", 1.0},
        {"kib", 1024.0},
        {"mib", 1048576.0},
        {"gib", 1073741824.0},
        {"tib", 1099511627776.0},
        {"kb", 1e3},
        {"mb", 1e6},
        {"gb", 1e9},
        {"tb", 1e12},
    };
    for (const Unit& u : kUnits) {
        if (unit == u.name) {
            return u.factor;
        }
    }
    bad_budget(text, fmt::format("unknown unit '{}'", unit));
}

}  // namespace

MemoryPlan MemoryPlan::bytes(std::size_t bytes) {
    MemoryPlan plan;
    plan.kind_ = Kind::kBytes;
    plan.bytes_ = bytes;
    return plan;
}

MemoryPlan MemoryPlan::fraction_of_available(double percent) {
    if (!(percent > 0.0 && percent <= 100.0)) {
        throw ModelError(
            fmt::format("memory budget percentage must be in (0, 100], got {}", percent));
    }
    MemoryPlan plan;
    plan.kind_ = Kind::kFraction;
    plan.percent_ = percent;
    return plan;
}

MemoryPlan MemoryPlan::parse(std::string_view text) {
    const std::string norm = lower(trim(text));
    std::string_view rest = norm;
    double number = 0.0;
    const auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), number);
    if (ec != std::errc() || end == rest.data()) {
        bad_budget(text, "expected a number first");
    }
    rest.remove_prefix(static_cast<std::size_t>(end - rest.data()));
    rest = trim(rest);
    if (!std::isfinite(number) || number < 0.0) {
        bad_budget(text, "the number must be finite and non-negative");
    }
    if (!rest.empty() && rest.front() == '%') {
        rest.remove_prefix(1);
        rest = trim(rest);
        if (!rest.empty() && rest != "available" && rest != "of available") {
            bad_budget(text, fmt::format("unexpected '{}' after the percentage", rest));
        }
        if (!(number > 0.0 && number <= 100.0)) {
            bad_budget(text, "a percentage must be in (0, 100]");
        }
        return fraction_of_available(number);
    }
    const double total = number * unit_factor(rest, text);
    if (total >= static_cast<double>(std::numeric_limits<std::size_t>::max())) {
        bad_budget(text, "the budget does not fit in 64 bits");
    }
    return bytes(static_cast<std::size_t>(total));
}

std::size_t MemoryPlan::resolve() const {
    switch (kind_) {
    case Kind::kUnlimited:
        return std::numeric_limits<std::size_t>::max();
    case Kind::kBytes:
        return bytes_;
    case Kind::kFraction: {
        const std::size_t available = available_host_memory().value();
        return static_cast<std::size_t>(static_cast<double>(available) * percent_ / 100.0);
    }
    }
    return 0;
}

std::string MemoryPlan::to_string() const {
    switch (kind_) {
    case Kind::kUnlimited:
        return "unlimited";
    case Kind::kBytes:
        return fmt::format("{} bytes", bytes_);
    case Kind::kFraction:
        return fmt::format("{}% of available", percent_);
    }
    return "invalid";
}

Expected<std::size_t> available_host_memory() {
    std::ifstream meminfo("/proc/meminfo");
    if (!meminfo) {
        return failure(ErrorKind::kData, "cannot open /proc/meminfo to read MemAvailable; set "
                                         "the memory budget in bytes instead");
    }
    std::string key;
    std::size_t value = 0;
    std::string unit;
    while (meminfo >> key >> value) {
        std::getline(meminfo, unit);
        if (key == "MemAvailable:") {
            return value * 1024;  // /proc/meminfo reports kB (KiB)
        }
    }
    return failure(ErrorKind::kData, "/proc/meminfo has no MemAvailable line; set the memory "
                                     "budget in bytes instead");
}

std::size_t Execution::resolved_threads() const noexcept {
    if (threads > 0) {
        return threads;
    }
    return std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, kMaxThreads);
}

}  // namespace laddu::runtime
