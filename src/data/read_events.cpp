#include <algorithm>

#include <fmt/format.h>

#include <laddu/base/error.hpp>
#include <laddu/data/parquet.hpp>
#include <laddu/data/read_events.hpp>
#include <laddu/data/root.hpp>

namespace laddu::data {

namespace {

bool is_root(const std::string& pattern) {
    return pattern.size() >= 5 && pattern.compare(pattern.size() - 5, 5, ".root") == 0;
}

}  // namespace

bool are_root_files(std::span<const std::string> paths) {
    const auto roots = static_cast<std::size_t>(std::count_if(paths.begin(), paths.end(), is_root));
    if (roots != 0 && roots != paths.size()) {
        throw DataError(fmt::format("{} of the {} files are ROOT files (.root) and the others "
                                    "are not; give Parquet and ROOT files separately (or convert "
                                    "one kind)",
                                    roots, paths.size()));
    }
    return roots != 0;
}

Dataset read_events(std::span<const std::string> patterns) {
    return are_root_files(patterns) ? read_root(patterns) : read_parquet(patterns);
}

}  // namespace laddu::data
