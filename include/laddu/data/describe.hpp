// laddu/data/describe.hpp: summaries of Parquet or ROOT files for `laddu-cpp data info`.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace laddu::data {

/// Statistics of one column over every file.
struct ColumnSummary {
    std::string name;
    /// "float64", "float32", "int64", "int32", or the Parquet type of a column laddu cannot read
    /// ("other" for such a ROOT branch).
    std::string type;
    bool numeric = false;
    /// Over the non-null values; NaN when there are none (or the column is not numeric).
    double min = 0.0;
    double max = 0.0;
    /// Compensated (Sum2) sum of the non-null values.
    double sum = 0.0;
    std::uint64_t nulls = 0;
};

/// What `data info` reports for a set of files.
struct FileSummary {
    std::vector<std::string> files;
    std::uint64_t events = 0;
    std::vector<ColumnSummary> columns;
    /// The laddu schema inferred from the columns (Schema::describe()).
    std::string laddu_schema;
};

/// Reads every numeric column of `paths` (globs allowed): Parquet files, or ROOT files (".root",
/// the first TTree of each; every numeric branch, integers included). Files must have the same
/// columns; malformed files and a mix of Parquet and ROOT are DataError.
[[nodiscard]] FileSummary describe_files(std::span<const std::string> paths);

/// A human-readable table.
[[nodiscard]] std::string format_summary_text(const FileSummary& summary);

/// `{"files": [...], "events": N, "columns": [{"name", "type", "min", "max", "sum"}...]}`;
/// min, max and sum are null where undefined.
[[nodiscard]] std::string format_summary_json(const FileSummary& summary);

}  // namespace laddu::data
