// laddu-cpp: command-line entry point; dispatches `laddu-cpp <group> <command> ...`.
#include <cstdio>
#include <string_view>
#include <vector>

#include "cli_common.hpp"
#include "commands.hpp"

namespace {

constexpr std::string_view kUsage =
    "usage: laddu-cpp <command> [args]\n"
    "commands:\n"
    "  data info FILE... [--json]   schema, event count and per-column min/max/sum of Parquet "
    "or ROOT files\n"
    "  bench kmatrix --data FILE ... laddu's K-matrix benchmark NLL and gradient as JSON\n"
    "  demo [--events N] [--mc N]    generate, fit and project the K-matrix model (make demo)\n"
    "  generate --model M --output F events of a model (file or built-in) as Parquet\n"
    "  fit MODEL --data F --accepted F  fit table and fit fractions of a model file\n"
    "  cross-section MODEL --data F --accepted F --generated F --luminosity L\n"
    "                                cross sections in total and per wave, with bootstrap errors\n"
    "  inspect MODEL [--data F]      a model's graph, cache plan, IR and per-event values\n"
    "Model files (TOML) are described in docs/cli.md; examples in examples/models/.\n"
    "`laddu-cpp <command> --help` describes each command.\n"
    "Exit codes: 0 success, 2 an error (one line on stderr), 3 a fit that did not converge,\n"
    "1 an internal error.\n";

// A subcommand: `laddu-cpp [group] name args...`.
struct Command {
    std::string_view group;  // empty for top-level commands
    std::string_view name;
    int (*run)(std::span<const std::string_view>);
};

constexpr Command kCommands[] = {
    {"data", "info", laddu::cli::data_info},
    {"bench", "kmatrix", laddu::cli::bench_kmatrix},
    {"", "demo", laddu::cli::demo},
    {"", "generate", laddu::cli::generate},
    {"", "fit", laddu::cli::fit},
    {"", "cross-section", laddu::cli::cross_section},
    {"", "inspect", laddu::cli::inspect},
};

}  // namespace

int main(int argc, char** argv) {
    const std::vector<std::string_view> args(argv + 1, argv + argc);
    const std::span<const std::string_view> all(args);
    for (const Command& command : kCommands) {
        if (command.group.empty() && !args.empty() && args[0] == command.name) {
            return command.run(all.subspan(1));
        }
        if (!command.group.empty() && args.size() >= 2 && args[0] == command.group &&
            args[1] == command.name) {
            return command.run(all.subspan(2));
        }
    }
    if (!args.empty() && (args[0] == "--help" || args[0] == "-h")) {
        std::fputs(kUsage.data(), stdout);
        return 0;
    }
    std::fputs(kUsage.data(), stderr);
    return laddu::cli::kExitError;
}
