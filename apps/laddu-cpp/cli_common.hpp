// Helpers shared by the laddu-cpp subcommands: option values, parameter values from the
// command line, the error funnel that turns exceptions into one line and an exit code.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <laddu/expr/model.hpp>

namespace laddu::cli {

/// Exit codes of every subcommand (docs/cli.md).
inline constexpr int kExitOk = 0;
inline constexpr int kExitInternal = 1;      ///< a bug in laddu-cpp (InternalError)
inline constexpr int kExitError = 2;         ///< a bad command line, input, output or resource
inline constexpr int kExitNotConverged = 3;  ///< the fit did not converge (fit, demo)

/// The largest event count an option accepts before the memory check (10^10 events of the
/// K_S K_S reaction are 1.5 TB).
inline constexpr std::uint64_t kMaxEvents = 10'000'000'000ULL;

/// A malformed command line or option value (exit code kExitError).
class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// Walks the arguments of one subcommand: flags, options with a value, positionals.
class ArgReader {
public:
    /// Reads `args` of the subcommand `command` ("fit", ...; named in errors).
    ArgReader(std::string command, std::span<const std::string_view> args)
        : command_(std::move(command)), args_(args) {}

    /// True while arguments remain.
    [[nodiscard]] bool more() const { return index_ < args_.size(); }

    /// The next argument (and advances).
    [[nodiscard]] std::string_view next() { return args_[index_++]; }

    /// The value of option `option` (the next argument); UsageError when there is none.
    [[nodiscard]] std::string value(std::string_view option);

    /// The UsageError for an unknown option.
    [[nodiscard]] UsageError unknown(std::string_view arg) const;

private:
    std::string command_;
    std::span<const std::string_view> args_;
    std::size_t index_ = 0;
};

/// The one parser of numeric option values: a decimal integer in [min, max], digits only.
/// UsageError naming the option, the range and what is wrong otherwise (empty, negative,
/// trailing characters as in "3x", too large for 64 bits, outside the range).
[[nodiscard]] std::uint64_t parse_integer(std::string_view option, std::string_view text,
                                          std::uint64_t min, std::uint64_t max);

/// A count in [1, max] (events, starts, repeats).
[[nodiscard]] std::size_t parse_count(std::string_view option, std::string_view text,
                                      std::uint64_t max);

/// A thread count in [1, runtime::kMaxThreads].
[[nodiscard]] std::size_t parse_threads(std::string_view option, std::string_view text);

/// A seed: any 64-bit unsigned integer.
[[nodiscard]] std::uint64_t parse_seed(std::string_view option, std::string_view text);

/// A finite decimal number ("25", "1.5e3"); UsageError naming the option otherwise.
[[nodiscard]] double parse_number(std::string_view option, std::string_view text);

/// A comma-separated list of non-negative integers ("0,5,7").
[[nodiscard]] std::vector<std::size_t> parse_indices(std::string_view option,
                                                     std::string_view text);

/// UsageError when `count` items of `bytes_each` bytes need more memory than the host has
/// available (MemAvailable), naming the option, the need, the limit and `remedy`; nothing when
/// the available memory cannot be read. Called before anything of that size is allocated.
void check_memory(std::string_view option, std::uint64_t count, std::uint64_t bytes_each,
                  std::string_view remedy);

/// Parameter values from --params: "name=value,name=value", or a JSON file holding either an
/// object {name: value} or the output of `laddu-cpp fit --json` (its "parameters").
[[nodiscard]] std::map<std::string, double> parse_params(const std::string& spec);

/// `model` with `values` applied: a free parameter starts there (returned in free order), a
/// fixed one is re-fixed at the value. ModelError naming an unknown name and the known ones.
struct ModelPoint {
    expr::Model model;
    std::vector<double> free_values;
};

[[nodiscard]] ModelPoint apply_params(const expr::Model& model,
                                      const std::map<std::string, double>& values);

/// apply_params with the values of a --params option (parse_params), none when it is empty.
[[nodiscard]] ModelPoint apply_params(const expr::Model& model, const std::string& params);

/// Runs `body` and maps what it throws to one stderr line "laddu-cpp COMMAND: message" and an
/// exit code: kExitInternal for InternalError (and exceptions that are not std::exceptions),
/// kExitError for every other error. Standard output is flushed and checked at the end: an
/// output that could not be written (a full disk) is kExitError too. Returns body's exit code
/// otherwise.
[[nodiscard]] int run_command(const std::string& command, const std::function<int()>& body);

}  // namespace laddu::cli
