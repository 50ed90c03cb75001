// ParquetWriter: PLAIN data pages (v1) of REQUIRED or OPTIONAL columns, row group by row group.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <laddu/base/atomic_file.hpp>
#include <laddu/base/error.hpp>
#include <laddu/data/event_data.hpp>
#include <laddu/data/parquet.hpp>

#include "compression.hpp"
#include "metadata.hpp"

namespace laddu::data {

using parquet::Codec;
using parquet::PhysicalType;

namespace {

// Pages of at most this many values keep every page well below the 2 GiB header limit and let
// readers stream.
constexpr std::size_t kPageRows = std::size_t{1} << 16;

PhysicalType physical_of(ColumnType type) {
    switch (type) {
    case ColumnType::kFloat64:
        return PhysicalType::kDouble;
    case ColumnType::kFloat32:
        return PhysicalType::kFloat;
    case ColumnType::kInt64:
        return PhysicalType::kInt64;
    case ColumnType::kInt32:
        return PhysicalType::kInt32;
    case ColumnType::kOther:
        break;
    }
    throw DataError("laddu-cpp writes only float64, float32, int64 and int32 columns");
}

Codec codec_of(Compression compression) {
    switch (compression) {
    case Compression::kUncompressed:
        return Codec::kUncompressed;
    case Compression::kSnappy:
        return Codec::kSnappy;
    case Compression::kGzip:
        return Codec::kGzip;
    case Compression::kZstd:
        return Codec::kZstd;
    }
    return Codec::kUncompressed;
}

template <typename T>
void append(std::vector<std::uint8_t>& out, T value) {
    std::uint8_t bytes[sizeof(T)];
    std::memcpy(bytes, &value, sizeof(T));
    out.insert(out.end(), bytes, bytes + sizeof(T));
}

void append_value(std::vector<std::uint8_t>& out, ColumnType type, double value) {
    switch (type) {
    case ColumnType::kFloat64:
        append(out, value);
        break;
    case ColumnType::kFloat32:
        append(out, static_cast<float>(value));
        break;
    case ColumnType::kInt64:
        append(out, static_cast<std::int64_t>(value));
        break;
    case ColumnType::kInt32:
        append(out, static_cast<std::int32_t>(value));
        break;
    case ColumnType::kOther:
        break;
    }
}

void check_integers(const ParquetWriteColumn& column) {
    const bool is32 = column.type == ColumnType::kInt32;
    const double lo = is32 ? -2147483648.0 : -9223372036854775808.0;
    const double hi = is32 ? 2147483647.0 : 9223372036854775807.0;
    for (std::size_t i = 0; i < column.values.size(); ++i) {
        if (!column.valid.empty() && column.valid[i] == 0) {
            continue;
        }
        const double v = column.values[i];
        if (!(v >= lo && v <= hi) || std::trunc(v) != v || (!is32 && v == hi)) {
            throw DataError(fmt::format("cannot write column '{}' as {}: row {} holds {}, which "
                                        "is not an integer in range",
                                        column.name, column_type_name(column.type), i, v));
        }
    }
}

/// Appends definition levels (0/1) as one bit-packed RLE-hybrid run, with its 4-byte length.
void append_levels(std::vector<std::uint8_t>& out, std::span<const std::uint8_t> valid) {
    const std::size_t groups = (valid.size() + 7) / 8;
    std::vector<std::uint8_t> run;
    std::uint64_t header = (static_cast<std::uint64_t>(groups) << 1U) | 1U;
    while (header >= 0x80U) {
        run.push_back(static_cast<std::uint8_t>((header & 0x7FU) | 0x80U));
        header >>= 7U;
    }
    run.push_back(static_cast<std::uint8_t>(header));
    run.resize(run.size() + groups, 0);
    const std::size_t base = run.size() - groups;
    for (std::size_t i = 0; i < valid.size(); ++i) {
        if (valid[i] != 0) {
            run[base + i / 8] = static_cast<std::uint8_t>(run[base + i / 8] | (1U << (i % 8)));
        }
    }
    append(out, static_cast<std::uint32_t>(run.size()));
    out.insert(out.end(), run.begin(), run.end());
}

// The format's rule for zero bounds (PARQUET-1222): a zero min is written -0.0 and a zero max
// +0.0, whichever zeros the data holds, so readers may filter with either sign.
void sign_zero_bounds(double& lo, double& hi) {
    if (lo == 0.0) {
        lo = -0.0;
    }
    if (hi == 0.0) {
        hi = 0.0;
    }
}

}  // namespace

// The open file, the footer being built and the rows of the row group not yet written.
struct ParquetWriter::Impl {
    std::string path;
    std::vector<Column> columns;
    ParquetWriteOptions options;
    Codec codec = Codec::kUncompressed;
    AtomicFile file;
    parquet::FileMetaData meta;
    std::vector<std::vector<double>> values;       ///< per column, the pending rows
    std::vector<std::vector<std::uint8_t>> valid;  ///< per optional column, the pending flags
    std::vector<std::uint8_t> out;
    std::vector<std::uint8_t> plain;
    bool closed = false;

    Impl(std::string p, std::vector<Column> c, const ParquetWriteOptions& o)
        : path(std::move(p)), columns(std::move(c)), options(o), codec(codec_of(o.compression)),
          file(path), values(columns.size()), valid(columns.size()) {}

    [[nodiscard]] std::size_t pending() const { return values.empty() ? 0 : values[0].size(); }

    // Writes the first `count` pending rows as one row group.
    void flush(std::size_t count);

    // Writes `rows` of `column` as PLAIN data pages of at most kPageRows values, adding their
    // sizes to `cm`.
    void write_pages(const Column& column, std::span<const double> rows,
                     std::span<const std::uint8_t> flags, parquet::ColumnMetaData& cm);
};

namespace {

// The min/max and null count of one column chunk (no min/max when it holds a NaN).
void add_statistics(ColumnType type, std::span<const double> rows,
                    std::span<const std::uint8_t> flags, parquet::ColumnMetaData& cm) {
    bool has_nan = false;
    double lo = 0.0;
    double hi = 0.0;
    std::size_t nulls = 0;
    bool first = true;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        if (!flags.empty() && flags[i] == 0) {
            ++nulls;
            continue;
        }
        const double v = rows[i];
        if (first) {
            lo = v;
            hi = v;
            first = false;
        }
        has_nan = has_nan || std::isnan(v);
        lo = std::min(lo, v);
        hi = std::max(hi, v);
    }
    cm.statistics.null_count = static_cast<std::int64_t>(nulls);
    if (!has_nan && !first) {
        sign_zero_bounds(lo, hi);
        cm.statistics.min_value.emplace();
        cm.statistics.max_value.emplace();
        append_value(*cm.statistics.min_value, type, lo);
        append_value(*cm.statistics.max_value, type, hi);
    }
}

}  // namespace

void ParquetWriter::Impl::write_pages(const Column& column, std::span<const double> rows,
                                      std::span<const std::uint8_t> flags,
                                      parquet::ColumnMetaData& cm) {
    for (std::size_t p = 0; p < rows.size(); p += kPageRows) {
        const std::size_t n = std::min(kPageRows, rows.size() - p);
        plain.clear();
        if (flags.empty()) {
            for (std::size_t i = 0; i < n; ++i) {
                append_value(plain, column.type, rows[p + i]);
            }
        } else {
            const auto page_flags = flags.subspan(p, n);
            append_levels(plain, page_flags);
            for (std::size_t i = 0; i < n; ++i) {
                if (page_flags[i] != 0) {
                    append_value(plain, column.type, rows[p + i]);
                }
            }
        }
        const std::vector<std::uint8_t> body =
            parquet::compress(codec, plain, options.compression_level);
        parquet::PageHeader header;
        header.type = static_cast<std::int32_t>(parquet::PageType::kDataPage);
        header.uncompressed_page_size = static_cast<std::int32_t>(plain.size());
        header.compressed_page_size = static_cast<std::int32_t>(body.size());
        header.data = parquet::DataPageHeader{static_cast<std::int32_t>(n), 0, 3, 3};
        parquet::encode_page_header(header, out);
        const std::size_t header_size = out.size();
        out.insert(out.end(), body.begin(), body.end());
        file.write(out);
        out.clear();
        cm.total_uncompressed_size += static_cast<std::int64_t>(header_size + plain.size());
        cm.total_compressed_size += static_cast<std::int64_t>(header_size + body.size());
    }
}

void ParquetWriter::Impl::flush(std::size_t count) {
    parquet::RowGroup group;
    group.num_rows = static_cast<std::int64_t>(count);
    for (std::size_t c = 0; c < columns.size(); ++c) {
        const Column& column = columns[c];
        const std::span<const double> rows(values[c].data(), count);
        const std::span<const std::uint8_t> flags =
            column.optional ? std::span<const std::uint8_t>(valid[c].data(), count)
                            : std::span<const std::uint8_t>{};
        parquet::ColumnMetaData cm;
        cm.type = static_cast<std::int32_t>(physical_of(column.type));
        cm.encodings = {static_cast<std::int32_t>(parquet::Encoding::kPlain),
                        static_cast<std::int32_t>(parquet::Encoding::kRle)};
        cm.path = {column.name};
        cm.codec = static_cast<std::int32_t>(codec);
        cm.num_values = static_cast<std::int64_t>(count);
        cm.data_page_offset = static_cast<std::int64_t>(file.offset());
        write_pages(column, rows, flags, cm);
        if (options.write_statistics && count > 0) {
            add_statistics(column.type, rows, flags, cm);
        }
        group.total_byte_size += cm.total_uncompressed_size;
        parquet::ColumnChunk chunk;
        chunk.file_offset = cm.data_page_offset;
        chunk.meta = std::move(cm);
        group.columns.push_back(std::move(chunk));
        values[c].erase(values[c].begin(), values[c].begin() + static_cast<std::ptrdiff_t>(count));
        if (column.optional) {
            valid[c].erase(valid[c].begin(), valid[c].begin() + static_cast<std::ptrdiff_t>(count));
        }
    }
    meta.num_rows += static_cast<std::int64_t>(count);
    meta.row_groups.push_back(std::move(group));
}

ParquetWriter::ParquetWriter(std::string path, std::vector<Column> columns,
                             const ParquetWriteOptions& options) {
    std::set<std::string, std::less<>> names;
    for (const Column& column : columns) {
        if (column.name.empty() || !names.insert(column.name).second) {
            throw DataError(fmt::format("cannot write Parquet file '{}': column name '{}' is "
                                        "empty or repeated",
                                        path, column.name));
        }
        physical_of(column.type);
    }
    if (options.row_group_size == 0) {
        throw DataError("ParquetWriteOptions::row_group_size must be positive");
    }
    impl_ = std::make_unique<Impl>(std::move(path), std::move(columns), options);
    Impl& w = *impl_;
    w.out = {'P', 'A', 'R', '1'};
    w.file.write(w.out);
    w.out.clear();
    w.meta.version = 1;
    w.meta.num_rows = 0;
    w.meta.created_by = "laddu-cpp version 0.1.0";
    w.meta.type_defined_order = true;
    parquet::SchemaElement root;
    root.name = "schema";
    root.num_children = static_cast<std::int32_t>(w.columns.size());
    w.meta.schema.push_back(root);
    for (const Column& column : w.columns) {
        parquet::SchemaElement leaf;
        leaf.name = column.name;
        leaf.type = static_cast<std::int32_t>(physical_of(column.type));
        leaf.repetition = static_cast<std::int32_t>(
            column.optional ? parquet::Repetition::kOptional : parquet::Repetition::kRequired);
        w.meta.schema.push_back(leaf);
    }
}

ParquetWriter::ParquetWriter(ParquetWriter&&) noexcept = default;
ParquetWriter& ParquetWriter::operator=(ParquetWriter&&) noexcept = default;
ParquetWriter::~ParquetWriter() = default;

void ParquetWriter::write(std::span<const ParquetWriteColumn> rows) {
    if (!impl_ || impl_->closed) {
        throw DataError("ParquetWriter::write after close()");
    }
    Impl& w = *impl_;
    if (rows.size() != w.columns.size()) {
        throw DataError(fmt::format("cannot write Parquet file '{}': {} columns given, the file "
                                    "has {}",
                                    w.path, rows.size(), w.columns.size()));
    }
    const std::size_t n = rows.empty() ? 0 : rows[0].values.size();
    for (std::size_t c = 0; c < rows.size(); ++c) {
        const ParquetWriteColumn& column = rows[c];
        const Column& declared = w.columns[c];
        if (column.name != declared.name || column.type != declared.type ||
            column.valid.empty() == declared.optional) {
            throw DataError(fmt::format("cannot write Parquet file '{}': column {} is '{}' but "
                                        "the file declares '{}' of another type or nullability",
                                        w.path, c, column.name, declared.name));
        }
        if (column.values.size() != n) {
            throw DataError(fmt::format("cannot write Parquet file '{}': column '{}' has {} "
                                        "values but '{}' has {}",
                                        w.path, column.name, column.values.size(), rows[0].name,
                                        n));
        }
        if (!column.valid.empty() && column.valid.size() != n) {
            throw DataError(fmt::format("cannot write Parquet file '{}': column '{}' has {} "
                                        "validity flags for {} values",
                                        w.path, column.name, column.valid.size(), n));
        }
        if (column.type == ColumnType::kInt32 || column.type == ColumnType::kInt64) {
            check_integers(column);
        }
    }
    for (std::size_t c = 0; c < rows.size(); ++c) {
        w.values[c].insert(w.values[c].end(), rows[c].values.begin(), rows[c].values.end());
        if (w.columns[c].optional) {
            w.valid[c].insert(w.valid[c].end(), rows[c].valid.begin(), rows[c].valid.end());
        }
    }
    while (w.pending() >= w.options.row_group_size) {
        w.flush(w.options.row_group_size);
    }
}

void ParquetWriter::close() {
    if (!impl_ || impl_->closed) {
        throw DataError("ParquetWriter::close called twice");
    }
    Impl& w = *impl_;
    if (w.pending() > 0) {
        w.flush(w.pending());
    }
    parquet::encode_file_metadata(w.meta, w.out);
    append(w.out, static_cast<std::uint32_t>(w.out.size()));
    w.out.insert(w.out.end(), {'P', 'A', 'R', '1'});
    w.file.write(w.out);
    w.out.clear();
    w.file.commit();
    w.closed = true;
}

void write_parquet_columns(const std::string& path, std::span<const ParquetWriteColumn> columns,
                           const ParquetWriteOptions& options) {
    std::vector<ParquetWriter::Column> declared;
    declared.reserve(columns.size());
    for (const ParquetWriteColumn& column : columns) {
        declared.push_back({column.name, column.type, !column.valid.empty()});
    }
    ParquetWriter writer(path, std::move(declared), options);
    writer.write(columns);
    writer.close();
}

namespace {

std::vector<std::string> written_names(const Schema& schema, const ParquetWriteOptions& options) {
    if (options.precision != ColumnType::kFloat64 && options.precision != ColumnType::kFloat32) {
        throw DataError("ParquetWriteOptions::precision must be kFloat64 or kFloat32");
    }
    std::vector<std::string> names = schema.batch_column_names();
    if (!schema.has_weight() && !options.always_write_weight) {
        names.pop_back();  // the weight column comes last
    }
    return names;
}

std::vector<ParquetWriter::Column> declared_columns(const std::vector<std::string>& names,
                                                    ColumnType precision) {
    std::vector<ParquetWriter::Column> declared;
    declared.reserve(names.size());
    for (const std::string& name : names) {
        declared.push_back({name, precision, false});
    }
    return declared;
}

}  // namespace

EventParquetWriter::EventParquetWriter(const Schema& schema, std::string path,
                                       const ParquetWriteOptions& options)
    : names_(written_names(schema, options)), precision_(options.precision),
      writer_(std::move(path), declared_columns(names_, options.precision), options) {}

void EventParquetWriter::write(const EventBatch& batch) {
    const std::vector<std::string> names = batch.schema().batch_column_names();
    if (names.size() < names_.size() || !std::equal(names_.begin(), names_.end(), names.begin())) {
        throw DataError(fmt::format("cannot append a batch with columns [{}] to a Parquet file of "
                                    "[{}]",
                                    fmt::join(names, ", "), fmt::join(names_, ", ")));
    }
    std::vector<ParquetWriteColumn> columns;
    columns.reserve(names_.size());
    for (std::size_t i = 0; i < names_.size(); ++i) {
        columns.push_back({names_[i], precision_, batch.column_at(i)});
    }
    writer_.write(columns);
}

void EventParquetWriter::close() {
    writer_.close();
}

void write_parquet(const EventData& events, const std::string& path,
                   const ParquetWriteOptions& options) {
    EventParquetWriter writer(events.schema(), path, options);
    events.for_each_batch({}, [&](const EventBatch& batch, std::uint64_t) { writer.write(batch); });
    writer.close();
}

}  // namespace laddu::data
