// laddu/base/log.hpp: minimal leveled logging to stderr.
//
// LADDU_LOG=debug|info|warn|error|off sets the threshold (default warn). log_once() prints a
// message the first time a key is seen, e.g. the reason a JIT fell back to the interpreter.
#pragma once

#include <string>
#include <string_view>

namespace laddu {

/// Severity of a log message.
enum class LogLevel : unsigned char { kDebug, kInfo, kWarn, kError, kOff };

/// The threshold from LADDU_LOG (read once; default kWarn).
[[nodiscard]] LogLevel log_threshold() noexcept;

/// Writes "laddu [level]: message" to stderr when `level` is at or above the threshold.
void log(LogLevel level, std::string_view message);

/// Logs `message` only the first time `key` is passed in this process (thread-safe).
void log_once(LogLevel level, std::string_view key, std::string_view message);

}  // namespace laddu
