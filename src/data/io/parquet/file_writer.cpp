// write_parquet_columns: PLAIN data pages (v1) of REQUIRED columns, one or more row groups.
#include <cmath>
#include <cstring>
#include <set>

#include <fmt/format.h>

#include <laddu/base/atomic_file.hpp>
#include <laddu/base/error.hpp>
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

void write_parquet_columns(const std::string& path, std::span<const ParquetWriteColumn> columns,
                           const ParquetWriteOptions& options) {
    std::set<std::string, std::less<>> names;
    const std::size_t rows = columns.empty() ? 0 : columns[0].values.size();
    for (const ParquetWriteColumn& column : columns) {
        if (column.name.empty() || !names.insert(column.name).second) {
            throw DataError(fmt::format("cannot write Parquet file '{}': column name '{}' is "
                                        "empty or repeated",
                                        path, column.name));
        }
        if (column.values.size() != rows) {
            throw DataError(fmt::format("cannot write Parquet file '{}': column '{}' has {} "
                                        "values but '{}' has {}",
                                        path, column.name, column.values.size(), columns[0].name,
                                        rows));
        }
        physical_of(column.type);
        if (!column.valid.empty() && column.valid.size() != rows) {
            throw DataError(fmt::format("cannot write Parquet file '{}': column '{}' has {} "
                                        "validity flags for {} values",
                                        path, column.name, column.valid.size(), rows));
        }
        if (column.type == ColumnType::kInt32 || column.type == ColumnType::kInt64) {
            check_integers(column);
        }
    }
    if (options.row_group_size == 0) {
        throw DataError("ParquetWriteOptions::row_group_size must be positive");
    }
    const Codec codec = codec_of(options.compression);

    AtomicFile file(path);
    std::vector<std::uint8_t> out = {'P', 'A', 'R', '1'};
    file.write(out);
    out.clear();
    parquet::FileMetaData meta;
    meta.version = 1;
    meta.num_rows = static_cast<std::int64_t>(rows);
    meta.created_by = "laddu-cpp version 0.1.0";
    meta.type_defined_order = true;
    parquet::SchemaElement root;
    root.name = "schema";
    root.num_children = static_cast<std::int32_t>(columns.size());
    meta.schema.push_back(root);
    for (const ParquetWriteColumn& column : columns) {
        parquet::SchemaElement leaf;
        leaf.name = column.name;
        leaf.type = static_cast<std::int32_t>(physical_of(column.type));
        leaf.repetition = static_cast<std::int32_t>(
            column.valid.empty() ? parquet::Repetition::kRequired : parquet::Repetition::kOptional);
        meta.schema.push_back(leaf);
    }

    std::vector<std::uint8_t> plain;
    for (std::size_t begin = 0; begin < rows; begin += options.row_group_size) {
        const std::size_t count = std::min(options.row_group_size, rows - begin);
        parquet::RowGroup group;
        group.num_rows = static_cast<std::int64_t>(count);
        for (const ParquetWriteColumn& column : columns) {
            parquet::ColumnMetaData cm;
            cm.type = static_cast<std::int32_t>(physical_of(column.type));
            cm.encodings = {static_cast<std::int32_t>(parquet::Encoding::kPlain),
                            static_cast<std::int32_t>(parquet::Encoding::kRle)};
            cm.path = {column.name};
            cm.codec = static_cast<std::int32_t>(codec);
            cm.num_values = static_cast<std::int64_t>(count);
            cm.data_page_offset = static_cast<std::int64_t>(file.offset());
            const auto values = column.values.subspan(begin, count);
            for (std::size_t p = 0; p < count; p += kPageRows) {
                const std::size_t n = std::min(kPageRows, count - p);
                plain.clear();
                if (column.valid.empty()) {
                    for (std::size_t i = 0; i < n; ++i) {
                        append_value(plain, column.type, values[p + i]);
                    }
                } else {
                    const auto valid = column.valid.subspan(begin + p, n);
                    append_levels(plain, valid);
                    for (std::size_t i = 0; i < n; ++i) {
                        if (valid[i] != 0) {
                            append_value(plain, column.type, values[p + i]);
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
            if (options.write_statistics && count > 0) {
                bool has_nan = false;
                double lo = values[0];
                double hi = values[0];
                std::size_t nulls = 0;
                bool first = true;
                for (std::size_t i = 0; i < count; ++i) {
                    if (!column.valid.empty() && column.valid[begin + i] == 0) {
                        ++nulls;
                        continue;
                    }
                    const double v = values[i];
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
                    append_value(*cm.statistics.min_value, column.type, lo);
                    append_value(*cm.statistics.max_value, column.type, hi);
                }
            }
            group.total_byte_size += cm.total_uncompressed_size;
            parquet::ColumnChunk chunk;
            chunk.file_offset = cm.data_page_offset;
            chunk.meta = std::move(cm);
            group.columns.push_back(std::move(chunk));
        }
        meta.row_groups.push_back(std::move(group));
    }
    parquet::encode_file_metadata(meta, out);
    append(out, static_cast<std::uint32_t>(out.size()));
    out.insert(out.end(), {'P', 'A', 'R', '1'});
    file.write(out);
    out.clear();
    file.commit();
}

void write_parquet(const Dataset& dataset, const std::string& path,
                   const ParquetWriteOptions& options) {
    if (options.precision != ColumnType::kFloat64 && options.precision != ColumnType::kFloat32) {
        throw DataError("ParquetWriteOptions::precision must be kFloat64 or kFloat32");
    }
    const Schema& schema = dataset.schema();
    const std::vector<std::string> names = schema.batch_column_names();
    std::vector<ParquetWriteColumn> columns;
    const std::size_t count =
        schema.has_weight() || options.always_write_weight ? names.size() : names.size() - 1;
    for (std::size_t i = 0; i < count; ++i) {
        columns.push_back({names[i], options.precision, dataset.batch().column_at(i)});
    }
    write_parquet_columns(path, columns, options);
}

}  // namespace laddu::data
