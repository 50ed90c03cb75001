// ParquetSource: several files and row groups as one stream of EventBatch chunks.
#include <algorithm>
#include <array>
#include <atomic>
#include <filesystem>
#include <iterator>
#include <map>
#include <mutex>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <laddu/base/error.hpp>
#include <laddu/data/parquet.hpp>

#include "../../range_cursor.hpp"
#include "column_cursor.hpp"
#include <glob.h>

namespace laddu::data {

std::vector<std::string> expand_paths(std::span<const std::string> patterns) {
    std::vector<std::string> out;
    for (const std::string& pattern : patterns) {
        // A path that names an existing file is that file, even when it contains glob
        // characters (`run[3].parquet`); only a path that names nothing is a pattern.
        std::error_code ignored;
        if (pattern.find_first_of("*?[") == std::string::npos ||
            std::filesystem::exists(pattern, ignored)) {
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

std::vector<std::string> sorted(std::vector<std::string> names) {
    std::sort(names.begin(), names.end());
    return names;
}

// " (no column 'p4_0_Py' here; ...)": the physical columns one schema reads and the other lacks.
std::string column_difference(const Schema& first, const Schema& here) {
    const std::vector<std::string> a = sorted(first.physical_columns());
    const std::vector<std::string> b = sorted(here.physical_columns());
    std::vector<std::string> missing;
    std::vector<std::string> extra;
    std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(missing));
    std::set_difference(b.begin(), b.end(), a.begin(), a.end(), std::back_inserter(extra));
    std::vector<std::string> parts;
    if (!missing.empty()) {
        parts.push_back(fmt::format("no column '{}' here", fmt::join(missing, "', '")));
    }
    if (!extra.empty()) {
        parts.push_back(fmt::format("column '{}' only here", fmt::join(extra, "', '")));
    }
    return parts.empty() ? std::string() : fmt::format(" ({})", fmt::join(parts, "; "));
}

/// The opened files behind a ParquetSource, shared with its streams.
struct SourceState {
    std::vector<std::string> paths;
    ParquetReadOptions options;
    std::shared_ptr<Schema> schema;
    std::vector<OpenFile> files;
    std::uint64_t num_events = 0;
    mutable std::atomic<std::uint64_t> fragments_decoded{0};
    /// The page sizes of each (file, row group, column) chunk walked so far.
    mutable std::mutex pages_mutex;
    mutable std::map<std::array<std::size_t, 3>, parquet::ChunkPages> pages;
};

// Reads each (file, row group) fragment a batch at a time through one ColumnCursor per
// projected column, so a large row group is never decoded whole: between batches the stream
// holds each column's dictionary and undelivered page, and one set of PageBuffers.
class ParquetStream final : public BatchStream {
public:
    ParquetStream(std::shared_ptr<const SourceState> impl, std::shared_ptr<const Schema> projected,
                  std::size_t chunk, NullPolicy nulls, detail::RangeCursor cursor)
        : impl_(std::move(impl)), projected_(std::move(projected)), chunk_(chunk), nulls_(nulls),
          cursor_(std::move(cursor)) {}

    std::optional<EventBatch> next() override {
        while (true) {
            if (open_) {
                const auto piece = cursor_.next_piece(start_ + row_, start_ + rows_, chunk_);
                if (piece) {
                    const auto first = static_cast<std::size_t>(piece->first - start_);
                    const auto count = static_cast<std::size_t>(piece->second);
                    for (parquet::ColumnCursor& column : columns_) {
                        column.skip(first - row_, buffers_);
                    }
                    row_ = first + count;
                    return read_rows(count);
                }
                start_ += rows_;
                columns_.clear();
                open_ = false;
            }
            if (!load_next_fragment()) {
                return std::nullopt;
            }
        }
    }

private:
    // Opens the next (file, row group) fragment that overlaps the plan's ranges (skipping the
    // others unread); false when none is left.
    bool load_next_fragment();

    // The next `count` rows of the open fragment.
    EventBatch read_rows(std::size_t count);

    std::shared_ptr<const SourceState> impl_;
    std::shared_ptr<const Schema> projected_;
    std::size_t chunk_;
    NullPolicy nulls_;
    detail::RangeCursor cursor_;
    std::size_t file_ = 0;
    std::size_t group_ = 0;
    bool open_ = false;                           ///< a fragment is open
    std::vector<parquet::ColumnCursor> columns_;  ///< its projected columns, in batch order
    parquet::PageBuffers buffers_;
    std::size_t rows_ = 0;     ///< rows of the open fragment
    std::size_t row_ = 0;      ///< rows of it read or skipped
    std::uint64_t start_ = 0;  ///< global index of the next (or open) fragment's first row
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
        for (const std::string& name : projected_->physical_columns()) {
            columns_.emplace_back(*file.reader, group, file.index.at(name), nulls_);
        }
        open_ = true;
        rows_ = rows;
        row_ = 0;
        return true;
    }
    return false;
}

EventBatch ParquetStream::read_rows(std::size_t count) {
    std::vector<AlignedVector<double>> columns;
    columns.reserve(projected_->n_batch_columns());
    for (parquet::ColumnCursor& column : columns_) {
        column.read(columns.emplace_back(count), buffers_);
    }
    if (!projected_->has_weight()) {
        columns.emplace_back(count, 1.0);
    }
    return EventBatch(projected_, std::move(columns));
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
        // Every file's own columns decide its schema, so the result cannot depend on the order
        // of the files (a weight column in the second file only is an error, not ignored).
        check_skipped_columns(*file.reader, impl_->options.schema);
        Schema schema = [&] {
            try {
                return Schema::infer(column_infos(*file.reader), impl_->options.schema);
            } catch (const DataError& error) {
                // Column names come from the file (an empty or repeated one is a damaged file).
                throw DataError(fmt::format("Parquet file '{}': {}", path, error.what()));
            }
        }();
        if (f == 0) {
            impl_->schema = std::make_shared<Schema>(std::move(schema));
        } else if (!same_event_columns(schema, *impl_->schema)) {
            throw DataError(fmt::format("Parquet file '{}' has schema {}, but the first file '{}' "
                                        "has {}{}; all files of a dataset must have the same "
                                        "four-momenta, scalars and weight column",
                                        path, schema.describe(), impl_->paths.front(),
                                        impl_->schema->describe(),
                                        column_difference(*impl_->schema, schema)));
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

std::size_t ParquetSource::stream_buffer_bytes(const ReadPlan& plan) const {
    check_read_plan(plan, impl_->num_events);
    const std::vector<std::string> names = impl_->schema->project(plan.columns).physical_columns();
    // Each column's cursor holds its largest page and dictionary; the stream's PageBuffers
    // hold what the largest page of any column needs.
    std::vector<parquet::ChunkPages> columns(names.size());
    parquet::ChunkPages largest;
    detail::RangeCursor ranges(plan.ranges, impl_->num_events);
    std::uint64_t start = 0;
    const std::lock_guard lock(impl_->pages_mutex);
    for (std::size_t f = 0; f < impl_->files.size(); ++f) {
        const OpenFile& file = impl_->files[f];
        for (std::size_t group = 0; group < file.reader->num_row_groups(); ++group) {
            const std::uint64_t rows = file.reader->row_group_rows(group);
            if (ranges.overlaps(start, start + rows)) {
                for (std::size_t c = 0; c < names.size(); ++c) {
                    const std::size_t column = file.index.at(names[c]);
                    auto [at, walk] = impl_->pages.try_emplace({f, group, column});
                    if (walk) {
                        try {
                            at->second = parquet::ColumnCursor::pages(*file.reader, group, column);
                        } catch (...) {
                            impl_->pages.erase(at);
                            throw;
                        }
                    }
                    columns[c].merge(at->second);
                    largest.merge(at->second);
                }
            }
            start += rows;
        }
    }
    std::size_t bytes = parquet::page_buffer_bytes(largest);
    for (const parquet::ChunkPages& column : columns) {
        bytes += parquet::cursor_bytes(column);
    }
    return bytes;
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
