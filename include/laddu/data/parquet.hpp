// laddu/data/parquet.hpp: reading and writing Parquet event files (no Arrow needed).
//
// Reads: codecs UNCOMPRESSED, SNAPPY, GZIP, ZSTD; data pages v1 and v2; dictionary pages;
// encodings PLAIN, PLAIN_DICTIONARY/RLE_DICTIONARY, BYTE_STREAM_SPLIT, DELTA_BINARY_PACKED; flat
// REQUIRED and OPTIONAL columns of FLOAT, DOUBLE, INT32 and INT64 (as doubles). Writes: DOUBLE,
// FLOAT, INT32, INT64 columns (REQUIRED, or OPTIONAL with nulls), PLAIN data pages v1, any of the
// four codecs, several row groups, min/max statistics, through a temporary file renamed into
// place.
// Malformed input is a DataError naming the file, column and byte offset.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <laddu/base/aligned.hpp>
#include <laddu/data/dataset.hpp>
#include <laddu/data/event_data.hpp>
#include <laddu/data/event_source.hpp>
#include <laddu/data/schema.hpp>

namespace laddu::data {

namespace parquet {
class ColumnCursor;  // decodes a column chunk page by page (src/data/io/parquet/)
}  // namespace parquet

/// What to do with a null in a column that is read.
enum class NullPolicy : unsigned char {
    kError,  ///< a DataError naming the column and row (laddu's default)
    kNan,    ///< read as NaN
};

/// Page compression for writing.
enum class Compression : unsigned char { kUncompressed, kSnappy, kGzip, kZstd };

/// One leaf column of a Parquet file.
struct ParquetColumnInfo {
    std::string name;  ///< dotted path for nested columns
    ColumnType type = ColumnType::kOther;
    std::string physical_type;  ///< "DOUBLE", "BYTE_ARRAY", ...
    bool optional = false;      ///< OPTIONAL (may hold nulls)
    bool flat = true;           ///< a top-level, non-repeated column
};

/// A whole column read from a file: values as doubles (NaN at nulls) and the null count.
struct RawColumn {
    std::string name;
    ColumnType type = ColumnType::kOther;
    AlignedVector<double> values;
    /// 1 where a value is present; empty when the column has no nulls.
    std::vector<std::uint8_t> valid;
    std::uint64_t null_count = 0;
};

/// Low-level access to one Parquet file: its columns and row groups, decoded column by column.
/// Only the byte ranges of requested column chunks are read.
class ParquetFileReader {
public:
    /// Opens `path` and decodes its footer; a missing or malformed file is a DataError.
    [[nodiscard]] static ParquetFileReader open(const std::string& path);

    /// Reads from bytes in memory (`name` appears in error messages); copies the bytes.
    [[nodiscard]] static ParquetFileReader from_memory(std::span<const std::uint8_t> bytes,
                                                       const std::string& name);

    ParquetFileReader(ParquetFileReader&&) noexcept;
    ParquetFileReader& operator=(ParquetFileReader&&) noexcept;
    ParquetFileReader(const ParquetFileReader&) = delete;
    ParquetFileReader& operator=(const ParquetFileReader&) = delete;
    ~ParquetFileReader();

    /// The file's path (or memory name).
    [[nodiscard]] const std::string& path() const noexcept;

    /// Every leaf column, in file order.
    [[nodiscard]] const std::vector<ParquetColumnInfo>& columns() const noexcept;

    /// The index of column `name`, or nullopt.
    [[nodiscard]] std::optional<std::size_t> column_index(std::string_view name) const;

    /// Total rows.
    [[nodiscard]] std::uint64_t num_rows() const noexcept;

    [[nodiscard]] std::size_t num_row_groups() const noexcept;

    /// Rows in row group `group`.
    [[nodiscard]] std::uint64_t row_group_rows(std::size_t group) const;

    /// The writer's created_by string.
    [[nodiscard]] const std::string& created_by() const noexcept;

    /// Decodes column `column` of row group `group` into `out` (row_group_rows(group) values).
    /// `valid`, if given, receives 1/0 per row; nulls follow `nulls` (kError names the row).
    void read_column_chunk(std::size_t group, std::size_t column, std::span<double> out,
                           NullPolicy nulls, std::vector<std::uint8_t>* valid = nullptr) const;

    /// Decodes a whole column over all row groups, nulls as NaN with the validity mask.
    [[nodiscard]] RawColumn read_column(std::size_t column) const;

private:
    friend class parquet::ColumnCursor;
    struct Impl;
    explicit ParquetFileReader(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

/// Options for reading Parquet event files.
struct ParquetReadOptions {
    SchemaInferenceOptions schema;
    NullPolicy nulls = NullPolicy::kError;
};

/// Expands glob patterns (a plain path is kept as is), each pattern's matches sorted, in pattern
/// order. A pattern that matches nothing is a DataError.
[[nodiscard]] std::vector<std::string> expand_paths(std::span<const std::string> patterns);

/// An EventSource over one or many Parquet files, read as one stream of (file, row group)
/// fragments in path order. The schema is inferred from the first file, and every file is
/// checked to have its physical columns (as numbers) when the source is opened. Columns of other
/// types (strings, INT96, lists, ...) are skipped, except that one which by its name would be
/// the weight or complete a four-momentum is a DataError naming the file, column and type.
class ParquetSource final : public EventSource {
public:
    /// Opens `patterns` (paths or globs, see expand_paths).
    explicit ParquetSource(std::vector<std::string> patterns, ParquetReadOptions options = {});

    [[nodiscard]] const Schema& schema() const override;

    [[nodiscard]] std::uint64_t num_events() const override;

    [[nodiscard]] std::unique_ptr<BatchStream> read(const ReadPlan& plan) const override;

    /// The rows of every row group of every file, in global order.
    [[nodiscard]] std::vector<std::size_t> fragment_sizes() const override;

    /// The largest dictionary and data page of each projected column (summed over the columns)
    /// plus the read and decompression buffers of the largest page, over the row groups the
    /// plan's ranges meet: a stream decodes a row group page by page, a batch at a time, so this
    /// does not grow with the row-group size. Walks the page headers of those column chunks
    /// the first time (reading no page body).
    [[nodiscard]] std::size_t stream_buffer_bytes(const ReadPlan& plan) const override;

    /// The number of row groups decoded by this source's streams so far (a diagnostic: shows
    /// that ReadPlan::ranges skip the row groups outside them).
    [[nodiscard]] std::uint64_t fragments_decoded() const noexcept;

    /// The expanded file list.
    [[nodiscard]] const std::vector<std::string>& paths() const;

    /// The schema with `alias` naming `target` (affects later reads).
    void add_alias(const std::string& alias, const std::string& target);

private:
    struct Impl;
    std::shared_ptr<Impl> impl_;
};

/// laddu's read_parquet: the events of the files matching `pattern` in memory.
[[nodiscard]] Dataset read_parquet(const std::string& pattern,
                                   const ParquetReadOptions& options = {});

/// read_parquet over several paths or patterns.
[[nodiscard]] Dataset read_parquet(std::span<const std::string> patterns,
                                   const ParquetReadOptions& options = {});

/// Options for writing.
struct ParquetWriteOptions {
    Compression compression = Compression::kZstd;
    /// ZSTD (1..22) or GZIP (1..9) level.
    int compression_level = 3;
    /// Rows per row group.
    std::size_t row_group_size = std::size_t{1} << 20;
    /// Write per-chunk min/max statistics.
    bool write_statistics = true;
    /// Event columns as kFloat64 or kFloat32.
    ColumnType precision = ColumnType::kFloat64;
    /// Write the weight column even when the schema has none (laddu's default: unit weights).
    bool always_write_weight = true;
};

/// A column to write: name, storage type and values (integers must be exact in the type).
struct ParquetWriteColumn {
    std::string name;
    ColumnType type = ColumnType::kFloat64;
    std::span<const double> values;
    /// When non-empty (one entry per value), the column is OPTIONAL and rows with 0 are null.
    std::span<const std::uint8_t> valid = {};
};

/// A Parquet file written row group by row group: rows are appended with write() and held only
/// until a row group (options.row_group_size rows) is full. The file is a temporary in the same
/// directory until close() renames it over `path`; a writer destroyed before close() (an error
/// on the way) removes it and leaves any old file untouched.
class ParquetWriter {
public:
    /// A column of the file: its name, storage type and whether it may hold nulls.
    struct Column {
        std::string name;
        ColumnType type = ColumnType::kFloat64;
        bool optional = false;
    };

    /// Opens the temporary file. Empty or repeated names and a zero row-group size are
    /// DataError.
    ParquetWriter(std::string path, std::vector<Column> columns,
                  const ParquetWriteOptions& options = {});
    ParquetWriter(ParquetWriter&&) noexcept;
    ParquetWriter& operator=(ParquetWriter&&) noexcept;
    ParquetWriter(const ParquetWriter&) = delete;
    ParquetWriter& operator=(const ParquetWriter&) = delete;
    ~ParquetWriter();

    /// Appends rows: one entry per declared column, in order, with its name and type, equal
    /// lengths, `valid` flags exactly for the optional columns (DataError otherwise; integers
    /// must be exact in their type).
    void write(std::span<const ParquetWriteColumn> rows);

    /// Writes the pending rows and the footer and renames the file into place.
    void close();

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

/// Writes `columns` (equal lengths) to `path` with one ParquetWriter.
void write_parquet_columns(const std::string& path, std::span<const ParquetWriteColumn> columns,
                           const ParquetWriteOptions& options = {});

/// Events of one schema written to a Parquet file batch by batch, with laddu's physical names
/// (`name_e`, `name_px`, `name_py`, `name_pz` per four-momentum, the scalars, `weight` when the
/// schema has one or options.always_write_weight): only the pending row group is held. The file
/// appears at `path` on close() (ParquetWriter's temporary file and rename).
class EventParquetWriter {
public:
    /// Opens the temporary file; DataError for a precision other than kFloat64 or kFloat32.
    EventParquetWriter(const Schema& schema, std::string path,
                       const ParquetWriteOptions& options = {});

    /// Appends the events of `batch`; DataError unless it has the writer's column names.
    void write(const EventBatch& batch);

    /// Writes the pending rows and the footer and renames the file into place.
    void close();

private:
    std::vector<std::string> names_;
    ColumnType precision_;
    ParquetWriter writer_;
};

/// Writes `events` with one EventParquetWriter, batch by batch: file-backed events are read as
/// they are written, never held whole.
void write_parquet(const EventData& events, const std::string& path,
                   const ParquetWriteOptions& options = {});

}  // namespace laddu::data
