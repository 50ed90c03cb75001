#include <fmt/format.h>

#include <laddu/compile/cache_plan.hpp>

namespace laddu::compile {

std::size_t CachePlan::real_columns() const {
    return static_cast<std::size_t>(std::count_if(
        columns.begin(), columns.end(), [](const CacheColumn& c) { return !c.is_complex; }));
}

std::size_t CachePlan::complex_columns() const {
    return columns.size() - real_columns();
}

std::size_t CachePlan::inverse_row_columns() const {
    return static_cast<std::size_t>(
        std::count_if(columns.begin(), columns.end(), [](const CacheColumn& c) {
            return c.source == CacheColumnSource::kInverseRow;
        }));
}

std::size_t CachePlan::bytes_per_event() const {
    std::size_t bytes = 0;
    for (const CacheColumn& c : columns) {
        bytes += c.bytes();
    }
    return bytes;
}

std::string CachePlan::summary() const {
    return fmt::format("{} columns ({} real, {} complex; {} inverse-row), {} bytes/event",
                       columns.size(), real_columns(), complex_columns(), inverse_row_columns(),
                       bytes_per_event());
}

}  // namespace laddu::compile
