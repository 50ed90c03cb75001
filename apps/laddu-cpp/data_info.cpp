// `laddu-cpp data info`: thin wrapper over laddu::data::describe_files.
#include <cstdio>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <laddu/data/describe.hpp>

#include "cli_common.hpp"
#include "commands.hpp"

namespace laddu::cli {

int data_info(std::span<const std::string_view> args) {
    return run_command("data info", [&] {
        bool json = false;
        std::vector<std::string> files;
        for (const std::string_view arg : args) {
            if (arg == "--help" || arg == "-h") {
                std::fputs("usage: laddu-cpp data info FILE... [--json]\n"
                           "Prints the schema (names, types), the event count and per-column min, "
                           "max and compensated sum of Parquet files, or of ROOT files (.root: "
                           "the first TTree, every numeric branch); --json prints one JSON "
                           "object.\n",
                           stdout);
                return kExitOk;
            }
            if (arg == "--json") {
                json = true;
            } else if (arg.starts_with("-")) {
                throw UsageError(
                    fmt::format("unknown option '{}' (see laddu-cpp data info --help)", arg));
            } else {
                files.emplace_back(arg);
            }
        }
        if (files.empty()) {
            throw UsageError("no FILE given (usage: laddu-cpp data info FILE... [--json])");
        }
        const data::FileSummary summary = data::describe_files(files);
        const std::string text =
            json ? data::format_summary_json(summary) : data::format_summary_text(summary);
        std::fputs(text.c_str(), stdout);
        return kExitOk;
    });
}

}  // namespace laddu::cli
