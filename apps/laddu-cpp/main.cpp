// laddu-cpp: command-line entry point; dispatches `laddu-cpp <group> <command> ...`.
#include <cstdio>
#include <string_view>
#include <vector>

#include "commands.hpp"

namespace {

constexpr std::string_view kUsage =
    "usage: laddu-cpp <command> [args]\n"
    "commands:\n"
    "  data info FILE... [--json]   schema, event count and per-column min/max/sum of Parquet "
    "files\n"
    "  bench kmatrix --data FILE ... laddu's K-matrix benchmark NLL and gradient as JSON\n"
    "  demo [--events N] [--mc N]    generate, fit and project the K-matrix model (make demo)\n";

}  // namespace

int main(int argc, char** argv) {
    const std::vector<std::string_view> args(argv + 1, argv + argc);
    if (args.size() >= 2 && args[0] == "data" && args[1] == "info") {
        return laddu::cli::data_info(std::span<const std::string_view>(args).subspan(2));
    }
    if (args.size() >= 2 && args[0] == "bench" && args[1] == "kmatrix") {
        return laddu::cli::bench_kmatrix(std::span<const std::string_view>(args).subspan(2));
    }
    if (!args.empty() && args[0] == "demo") {
        return laddu::cli::demo(std::span<const std::string_view>(args).subspan(1));
    }
    if (!args.empty() && (args[0] == "--help" || args[0] == "-h")) {
        std::fputs(kUsage.data(), stdout);
        return 0;
    }
    std::fputs(kUsage.data(), stderr);
    return 1;
}
