// Subcommands of the laddu-cpp tool. Each takes the arguments after its name and returns the
// process exit code.
#pragma once

#include <span>
#include <string_view>

namespace laddu::cli {

/// `laddu-cpp data info FILE... [--json]`.
int data_info(std::span<const std::string_view> args);

/// `laddu-cpp bench kmatrix --data FILE [--params JSON] ... --json`.
int bench_kmatrix(std::span<const std::string_view> args);

/// `laddu-cpp demo [--events N] [--mc N] [--seed S] [--threads T] [--output DIR]`.
int demo(std::span<const std::string_view> args);

/// `laddu-cpp generate --model MODEL --output FILE [--events N] [--seed S] [--params P] ...`.
int generate(std::span<const std::string_view> args);

/// `laddu-cpp fit MODEL --data FILE... --accepted FILE... [--json OUT] ...`.
int fit(std::span<const std::string_view> args);

/// `laddu-cpp cross-section MODEL --data F... --accepted F... --generated F... --luminosity L`.
int cross_section(std::span<const std::string_view> args);

/// `laddu-cpp inspect MODEL [--data FILE --events 0,5] [--show SECTIONS] ...`.
int inspect(std::span<const std::string_view> args);

}  // namespace laddu::cli
