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

/// A malformed command line (exit code 1; other errors give 2).
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

/// A positive integer option value; UsageError naming the option otherwise.
[[nodiscard]] std::size_t parse_count(std::string_view option, const std::string& text);

/// A non-negative integer option value (a seed).
[[nodiscard]] std::uint64_t parse_seed(std::string_view option, const std::string& text);

/// A comma-separated list of non-negative integers ("0,5,7").
[[nodiscard]] std::vector<std::size_t> parse_indices(std::string_view option,
                                                     const std::string& text);

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

/// Runs `body` and maps what it throws to one stderr line "laddu-cpp COMMAND: message" and an
/// exit code: 1 for UsageError, 2 for every other error. Returns body's exit code otherwise.
[[nodiscard]] int run_command(const std::string& command, const std::function<int()>& body);

}  // namespace laddu::cli
