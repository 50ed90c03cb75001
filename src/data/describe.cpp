#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include <fmt/format.h>

#include <laddu/base/accurate_sum.hpp>
#include <laddu/base/error.hpp>
#include <laddu/data/describe.hpp>
#include <laddu/data/parquet.hpp>
#include <laddu/data/read_events.hpp>
#include <laddu/data/root.hpp>
#include <laddu/data/schema.hpp>

namespace laddu::data {

namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

std::string json_string(std::string_view text) {
    std::string out = "\"";
    for (const char c : text) {
        switch (c) {
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\t':
            out += "\\t";
            break;
        default:
            if (static_cast<unsigned char>(c) < 0x20) {
                out += fmt::format("\\u{:04x}", static_cast<unsigned>(c));
            } else {
                out += c;
            }
        }
    }
    return out + "\"";
}

std::string json_number(double value) {
    return std::isfinite(value) ? fmt::format("{}", value) : "null";
}

// A column with no values yet.
ColumnSummary empty_column(std::string name, bool numeric, std::string type) {
    ColumnSummary s;
    s.name = std::move(name);
    s.numeric = numeric;
    s.type = std::move(type);
    s.min = kNan;
    s.max = kNan;
    s.sum = numeric ? 0.0 : kNan;
    return s;
}

// The compensated sums into the numeric columns.
void finish_sums(FileSummary& summary, const std::vector<AccurateSum>& sums) {
    for (std::size_t c = 0; c < summary.columns.size(); ++c) {
        if (summary.columns[c].numeric) {
            summary.columns[c].sum = sums[c].finish();
        }
    }
}

void add_value(ColumnSummary& s, AccurateSum& sum, double v) {
    s.min = std::isnan(s.min) ? v : std::min(s.min, v);
    s.max = std::isnan(s.max) ? v : std::max(s.max, v);
    sum.push(v);
}

// ROOT files: every numeric branch is read (integers too, as a data info should show them),
// through the reader's own streaming path; RootSource checks that the files agree.
FileSummary describe_root(FileSummary summary) {
    RootReadOptions options;
    options.schema.integer_columns_are_scalars = true;
    const RootSource source(summary.files, options);
    const std::vector<ColumnInfo> infos = source.branch_columns();
    summary.laddu_schema = Schema::infer(infos).describe();
    std::vector<AccurateSum> sums(infos.size());
    for (const ColumnInfo& info : infos) {
        summary.columns.push_back(empty_column(info.name, is_numeric(info.type),
                                               std::string(column_type_name(info.type))));
    }
    // Batch column k holds physical column names[k]; the weight of a tree without one is
    // made up (1.0) and matches no branch.
    const std::vector<std::string> names = source.schema().physical_columns();
    std::vector<std::size_t> column_of(names.size());
    for (std::size_t k = 0; k < names.size(); ++k) {
        column_of[k] = static_cast<std::size_t>(
            std::find_if(infos.begin(), infos.end(),
                         [&](const ColumnInfo& info) { return info.name == names[k]; }) -
            infos.begin());
    }
    const auto stream = source.read(ReadPlan{});
    while (const auto batch = stream->next()) {
        for (std::size_t k = 0; k < names.size(); ++k) {
            for (const double v : batch->column_at(k)) {
                add_value(summary.columns[column_of[k]], sums[column_of[k]], v);
            }
        }
    }
    summary.events = source.num_events();
    finish_sums(summary, sums);
    return summary;
}

// One Parquet file's columns into `summary` (the first file names the columns).
void add_parquet_file(FileSummary& summary, std::vector<AccurateSum>& sums, std::size_t f) {
    const ParquetFileReader reader = ParquetFileReader::open(summary.files[f]);
    const auto& columns = reader.columns();
    if (f == 0) {
        std::vector<ColumnInfo> infos;
        for (const ParquetColumnInfo& c : columns) {
            const bool numeric = is_numeric(c.type);
            summary.columns.push_back(
                empty_column(c.name, numeric,
                             numeric ? std::string(column_type_name(c.type)) : c.physical_type));
            infos.push_back({c.name, c.type});
        }
        sums.resize(columns.size());
        summary.laddu_schema = Schema::infer(infos).describe();
    } else if (columns.size() != summary.columns.size()) {
        throw DataError(fmt::format("'{}' has {} columns but '{}' has {}; data info needs "
                                    "files with the same columns",
                                    summary.files[f], columns.size(), summary.files[0],
                                    summary.columns.size()));
    }
    for (std::size_t c = 0; c < columns.size(); ++c) {
        ColumnSummary& s = summary.columns[c];
        if (columns[c].name != s.name || is_numeric(columns[c].type) != s.numeric) {
            throw DataError(fmt::format("'{}' column {} is '{}' but in '{}' it is '{}'",
                                        summary.files[f], c, columns[c].name, summary.files[0],
                                        s.name));
        }
        if (!s.numeric) {
            continue;
        }
        const RawColumn raw = reader.read_column(c);
        for (std::size_t i = 0; i < raw.values.size(); ++i) {
            if (raw.valid.empty() || raw.valid[i] != 0) {
                add_value(s, sums[c], raw.values[i]);
            }
        }
        s.nulls += raw.null_count;
    }
    summary.events += reader.num_rows();
}

}  // namespace

FileSummary describe_files(std::span<const std::string> paths) {
    FileSummary summary;
    summary.files = expand_paths(paths);
    if (are_root_files(summary.files)) {
        return describe_root(std::move(summary));
    }
    std::vector<AccurateSum> sums;
    for (std::size_t f = 0; f < summary.files.size(); ++f) {
        add_parquet_file(summary, sums, f);
    }
    finish_sums(summary, sums);
    return summary;
}

std::string format_summary_text(const FileSummary& summary) {
    std::string out;
    for (const std::string& file : summary.files) {
        out += fmt::format("file:   {}\n", file);
    }
    out += fmt::format("events: {}\n", summary.events);
    out += fmt::format("schema: {}\n", summary.laddu_schema);
    out += fmt::format("{:<24} {:<10} {:>24} {:>24} {:>24} {:>8}\n", "column", "type", "min", "max",
                       "sum", "nulls");
    for (const ColumnSummary& c : summary.columns) {
        if (!c.numeric) {
            out += fmt::format("{:<24} {:<10} (not numeric)\n", c.name, c.type);
            continue;
        }
        out += fmt::format("{:<24} {:<10} {:>24} {:>24} {:>24} {:>8}\n", c.name, c.type, c.min,
                           c.max, c.sum, c.nulls);
    }
    return out;
}

std::string format_summary_json(const FileSummary& summary) {
    std::string out = "{\"files\": [";
    for (std::size_t i = 0; i < summary.files.size(); ++i) {
        out += (i > 0 ? ", " : "") + json_string(summary.files[i]);
    }
    out += fmt::format("], \"events\": {}, \"columns\": [", summary.events);
    for (std::size_t i = 0; i < summary.columns.size(); ++i) {
        const ColumnSummary& c = summary.columns[i];
        out += fmt::format("{}{{\"name\": {}, \"type\": {}, \"min\": {}, \"max\": {}, \"sum\": {}, "
                           "\"nulls\": {}}}",
                           i > 0 ? ", " : "", json_string(c.name), json_string(c.type),
                           json_number(c.min), json_number(c.max), json_number(c.sum), c.nulls);
    }
    out += "]}\n";
    return out;
}

}  // namespace laddu::data
