// ParquetSource: several files and row groups as one stream of EventBatch chunks.
#include <algorithm>
#include <atomic>
#include <optional>

#include <fmt/format.h>

#include <laddu/base/error.hpp>
#include <laddu/data/parquet.hpp>

#include "../../range_cursor.hpp"
#include <glob.h>

namespace laddu::data {

std::vector<std::string> expand_paths(std::span<const std::string> patterns) {
    std::vector<std::string> out;
    for (const std::string& pattern : patterns) {
        if (pattern.find_first_of("*?[") == std::string::npos) {
            out.push_back(pattern);
            continue;
        }
        glob_t matches{};
        const int status = ::glob(pattern.c_str(), 0, nullptr, &matches);
        if (status == 0) {
            // glob(3) returns the matches sorted, which fixes the global row order.
            for (std::size_t i = 0; i < matches.gl_pathc; ++i) {
                out.emplace_back(matches.gl_pathv[i]);
            }
        }
        ::globfree(&matches);
        if (status != 0) {
            throw DataError(fmt::format("no file matches '{}'", pattern));
        }
    }
    if (out.empty()) {
        throw DataError("no Parquet files given");
    }
    return out;
}

namespace {

/// One opened file and, for each physical column of the full schema, its column index there.
struct OpenFile {
    std::shared_ptr<const ParquetFileReader> reader;
    std::map<std::string, std::size_t, std::less<>> index;
};

std::vector<ColumnInfo> column_infos(const ParquetFileReader& reader) {
    std::vector<ColumnInfo> out;
    for (const ParquetColumnInfo& column : reader.columns()) {
        out.push_back({column.name, column.type});
    }
    return out;
}

// A column laddu cannot read (a string, INT96, a list, or an integer when integers are not
// scalars) is normally skipped. It is an error when, read as a number, it would be the weight or
// complete a four-momentum: skipping it would silently drop a p4 or set every weight to 1.
void check_skipped_columns(const ParquetFileReader& reader, const SchemaInferenceOptions& options) {
    const std::vector<ColumnInfo> infos = column_infos(reader);
    const bool integers = options.integer_columns_are_scalars;
    for (std::size_t c = 0; c < infos.size(); ++c) {
        const ParquetColumnInfo& info = reader.columns()[c];
        if (is_float(info.type) || (integers && is_numeric(info.type))) {
            continue;
        }
        // A nested column is judged by its top-level field name (`p4_0_E.list.element`).
        const std::string name = info.flat ? info.name : info.name.substr(0, info.name.find('.'));
        std::vector<ColumnInfo> as_float = infos;
        as_float[c] = {name, ColumnType::kFloat64};
        std::optional<Schema> would_be;
        try {
            would_be = Schema::infer(as_float, options);
        } catch (const DataError&) {
            continue;  // it would clash with another column, so it cannot be one that is missing
        }
        std::string role;
        if (would_be->has_weight() && would_be->weight_column() == name) {
            role = "the weight column";
        }
        for (std::size_t p = 0; p < would_be->n_p4s(); ++p) {
            const auto& components = would_be->p4_columns(p);
            if (std::find(components.begin(), components.end(), name) != components.end()) {
                role = fmt::format("a component of four-momentum '{}'", would_be->p4_names()[p]);
            }
        }
        if (role.empty()) {
            continue;
        }
        const std::string type =
            info.flat ? info.physical_type : info.physical_type + " nested in a list or struct";
        throw DataError(fmt::format("Parquet file '{}', column '{}': by its name it is {}, but "
                                    "its type {} is not FLOAT or DOUBLE{}; cast the column or "
                                    "rename it",
                                    reader.path(), name, role, type,
                                    integers ? " (or INT32/INT64)" : ""));
    }
}

/// The opened files behind a ParquetSource, shared with its streams.
struct SourceState {
    std::vector<std::string> paths;
    ParquetReadOptions options;
    std::shared_ptr<Schema> schema;
    std::vector<OpenFile> files;
    std::uint64_t num_events = 0;
    mutable std::atomic<std::uint64_t> fragments_decoded{0};
};

class ParquetStream final : public BatchStream {
public:
    ParquetStream(std::shared_ptr<const SourceState> impl, std::shared_ptr<const Schema> projected,
                  std::size_t chunk, NullPolicy nulls, detail::RangeCursor cursor)
        : impl_(std::move(impl)), projected_(std::move(projected)), chunk_(chunk), nulls_(nulls),
          cursor_(std::move(cursor)) {}

    std::optional<EventBatch> next() override {
        while (true) {
            if (current_) {
                const auto piece =
                    cursor_.next_piece(start_ + row_, start_ + current_->size(), chunk_);
                if (piece) {
                    const auto first = static_cast<std::size_t>(piece->first - start_);
                    const auto count = static_cast<std::size_t>(piece->second);
                    row_ = first + count;
                    return current_->slice(first, count);
                }
                start_ += current_->size();
                current_.reset();
            }
            if (!load_next_fragment()) {
                return std::nullopt;
            }
        }
    }

private:
    // Decodes the next (file, row group) fragment that overlaps the plan's ranges (skipping the
    // others unread); false when none is left.
    bool load_next_fragment();

    std::shared_ptr<const SourceState> impl_;
    std::shared_ptr<const Schema> projected_;
    std::size_t chunk_;
    NullPolicy nulls_;
    detail::RangeCursor cursor_;
    std::size_t file_ = 0;
    std::size_t group_ = 0;
    std::optional<EventBatch> current_;
    std::size_t row_ = 0;
    std::uint64_t start_ = 0;  ///< global index of the next fragment's (or current_'s) first row
};

bool ParquetStream::load_next_fragment() {
    while (file_ < impl_->files.size() && !cursor_.done(start_)) {
        const OpenFile& file = impl_->files[file_];
        if (group_ >= file.reader->num_row_groups()) {
            ++file_;
            group_ = 0;
            continue;
        }
        const std::size_t group = group_++;
        const auto rows = static_cast<std::size_t>(file.reader->row_group_rows(group));
        if (!cursor_.overlaps(start_, start_ + rows)) {
            start_ += rows;
            continue;
        }
        impl_->fragments_decoded.fetch_add(1, std::memory_order_relaxed);
        std::vector<AlignedVector<double>> columns;
        columns.reserve(projected_->n_batch_columns());
        const auto read = [&](const std::string& name) {
            AlignedVector<double>& column = columns.emplace_back(rows);
            file.reader->read_column_chunk(group, file.index.at(name), column, nulls_);
        };
        for (std::size_t p = 0; p < projected_->n_p4s(); ++p) {
            for (const std::string& name : projected_->p4_columns(p)) {
                read(name);
            }
        }
        for (std::size_t s = 0; s < projected_->n_scalars(); ++s) {
            read(projected_->scalar_column(s));
        }
        if (projected_->has_weight()) {
            read(projected_->weight_column());
        } else {
            columns.emplace_back(rows, 1.0);
        }
        current_ = EventBatch(projected_, std::move(columns));
        row_ = 0;
        return true;
    }
    return false;
}

}  // namespace

struct ParquetSource::Impl : SourceState {};

ParquetSource::ParquetSource(std::vector<std::string> patterns, ParquetReadOptions options)
    : impl_(std::make_shared<Impl>()) {
    impl_->paths = expand_paths(patterns);
    impl_->options = std::move(options);
    for (std::size_t f = 0; f < impl_->paths.size(); ++f) {
        const std::string& path = impl_->paths[f];
        OpenFile file;
        file.reader = std::make_shared<const ParquetFileReader>(ParquetFileReader::open(path));
        if (f == 0) {
            impl_->schema = std::make_shared<Schema>(
                Schema::infer(column_infos(*file.reader), impl_->options.schema));
            check_skipped_columns(*file.reader, impl_->options.schema);
        }
        for (const std::string& name : impl_->schema->physical_columns()) {
            const auto index = file.reader->column_index(name);
            if (!index) {
                throw DataError(fmt::format("Parquet file '{}' has no column '{}', which the "
                                            "first file '{}' has; all files must share a schema",
                                            path, name, impl_->paths.front()));
            }
            const ParquetColumnInfo& info = file.reader->columns()[*index];
            if (!is_numeric(info.type)) {
                throw DataError(fmt::format("Parquet file '{}', column '{}': type {} is not a "
                                            "numeric column laddu-cpp can read",
                                            path, name, info.physical_type));
            }
            file.index.emplace(name, *index);
        }
        impl_->num_events += file.reader->num_rows();
        impl_->files.push_back(std::move(file));
    }
}

const Schema& ParquetSource::schema() const {
    return *impl_->schema;
}

std::uint64_t ParquetSource::num_events() const {
    return impl_->num_events;
}

const std::vector<std::string>& ParquetSource::paths() const {
    return impl_->paths;
}

void ParquetSource::add_alias(const std::string& alias, const std::string& target) {
    impl_->schema->add_alias(alias, target);
}

std::unique_ptr<BatchStream> ParquetSource::read(const ReadPlan& plan) const {
    check_read_plan(plan, impl_->num_events);
    auto projected = std::make_shared<const Schema>(impl_->schema->project(plan.columns));
    return std::make_unique<ParquetStream>(impl_, std::move(projected), plan.chunk_size,
                                           impl_->options.nulls,
                                           detail::RangeCursor(plan.ranges, impl_->num_events));
}

std::vector<std::size_t> ParquetSource::fragment_sizes() const {
    std::vector<std::size_t> sizes;
    for (const OpenFile& file : impl_->files) {
        for (std::size_t group = 0; group < file.reader->num_row_groups(); ++group) {
            sizes.push_back(static_cast<std::size_t>(file.reader->row_group_rows(group)));
        }
    }
    return sizes;
}

std::uint64_t ParquetSource::fragments_decoded() const noexcept {
    return impl_->fragments_decoded.load(std::memory_order_relaxed);
}

Dataset read_parquet(const std::string& pattern, const ParquetReadOptions& options) {
    const std::string patterns[] = {pattern};
    return read_parquet(patterns, options);
}

Dataset read_parquet(std::span<const std::string> patterns, const ParquetReadOptions& options) {
    const ParquetSource source(std::vector<std::string>(patterns.begin(), patterns.end()), options);
    return Dataset::from_source(source);
}

}  // namespace laddu::data
