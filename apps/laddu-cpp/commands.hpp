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

}  // namespace laddu::cli
