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

Dataset read_events(std::span<const std::string> patterns) {
    const auto roots =
        static_cast<std::size_t>(std::count_if(patterns.begin(), patterns.end(), is_root));
    if (roots == 0) {
        return read_parquet(patterns);
    }
    if (roots == patterns.size()) {
        return read_root(patterns);
    }
    throw DataError(fmt::format("{} of the {} files are ROOT files (.root) and the others are not; "
                                "give Parquet and ROOT files separately (or convert one kind)",
                                roots, patterns.size()));
}

}  // namespace laddu::data
