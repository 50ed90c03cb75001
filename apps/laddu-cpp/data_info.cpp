// `laddu-cpp data info`: thin wrapper over laddu::data::describe_files.
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include <laddu/base/error.hpp>
#include <laddu/data/describe.hpp>

#include "commands.hpp"

namespace laddu::cli {

int data_info(std::span<const std::string_view> args) {
    bool json = false;
    std::vector<std::string> files;
    for (const std::string_view arg : args) {
        if (arg == "--help" || arg == "-h") {
            std::fputs("usage: laddu-cpp data info FILE... [--json]\n"
                       "Prints the schema (names, types), the event count and per-column min, max "
                       "and compensated sum of Parquet files; --json prints one JSON object.\n",
                       stdout);
            return 0;
        }
        if (arg == "--json") {
            json = true;
        } else if (arg.starts_with("-")) {
            std::fprintf(stderr, "laddu-cpp data info: unknown option '%.*s'\n",
                         static_cast<int>(arg.size()), arg.data());
            return 1;
        } else {
            files.emplace_back(arg);
        }
    }
    if (files.empty()) {
        std::fputs("usage: laddu-cpp data info FILE... [--json]\n", stderr);
        return 1;
    }
    try {
        const data::FileSummary summary = data::describe_files(files);
        const std::string text =
            json ? data::format_summary_json(summary) : data::format_summary_text(summary);
        std::fputs(text.c_str(), stdout);
        return 0;
    } catch (const DataError& e) {
        // One line naming the file and the problem (DataError messages name the file).
        std::fprintf(stderr, "laddu-cpp data info: %s\n", e.what());
        return 2;
    }
}

}  // namespace laddu::cli
