#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <set>
#include <string>

#include <fmt/core.h>

#include <laddu/base/log.hpp>

namespace laddu {

namespace {

LogLevel parse_threshold(const char* text) noexcept {
    if (text == nullptr) {
        return LogLevel::kWarn;
    }
    const std::string_view value(text);
    if (value == "debug") {
        return LogLevel::kDebug;
    }
    if (value == "info") {
        return LogLevel::kInfo;
    }
    if (value == "error") {
        return LogLevel::kError;
    }
    if (value == "off") {
        return LogLevel::kOff;
    }
    return LogLevel::kWarn;
}

std::string_view level_name(LogLevel level) noexcept {
    switch (level) {
    case LogLevel::kDebug:
        return "debug";
    case LogLevel::kInfo:
        return "info";
    case LogLevel::kWarn:
        return "warn";
    case LogLevel::kError:
        return "error";
    case LogLevel::kOff:
        break;
    }
    return "off";
}

}  // namespace

LogLevel log_threshold() noexcept {
    static const LogLevel threshold = parse_threshold(std::getenv("LADDU_LOG"));  // NOLINT
    return threshold;
}

void log(LogLevel level, std::string_view message) {
    if (level == LogLevel::kOff || level < log_threshold()) {
        return;
    }
    fmt::print(stderr, "laddu [{}]: {}\n", level_name(level), message);
}

void log_once(LogLevel level, std::string_view key, std::string_view message) {
    static std::mutex mutex;
    static std::set<std::string, std::less<>> seen;
    {
        const std::lock_guard<std::mutex> lock(mutex);
        if (!seen.emplace(key).second) {
            return;
        }
    }
    log(level, message);
}

}  // namespace laddu
