// ParquetFileReader: footer, schema tree and column-chunk decoding.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>

#include <fmt/format.h>

#include <laddu/base/error.hpp>
#include <laddu/data/parquet.hpp>

#include "column_cursor.hpp"
#include "metadata.hpp"
#include "reader_impl.hpp"
#include <fcntl.h>
#include <unistd.h>

namespace laddu::data {

using parquet::ErrorSite;
using parquet::fail_at;
using parquet::Leaf;
using parquet::PhysicalType;
using parquet::Repetition;

namespace {

constexpr std::uint8_t kMagic[4] = {'P', 'A', 'R', '1'};
constexpr int kMaxSchemaDepth = 64;

ColumnType column_type_of(PhysicalType type) {
    switch (type) {
    case PhysicalType::kDouble:
        return ColumnType::kFloat64;
    case PhysicalType::kFloat:
        return ColumnType::kFloat32;
    case PhysicalType::kInt32:
        return ColumnType::kInt32;
    case PhysicalType::kInt64:
        return ColumnType::kInt64;
    default:
        return ColumnType::kOther;
    }
}

}  // namespace

ParquetFileReader::Impl::~Impl() {
    if (fd >= 0) {
        ::close(fd);
    }
}

void ParquetFileReader::Impl::read_bytes(std::uint64_t offset, std::span<std::uint8_t> out,
                                         const ErrorSite& site) const {
    if (offset > size || out.size() > size - offset) {
        fail_at(
            site, offset,
            fmt::format("{} bytes requested past the end of the {}-byte file", out.size(), size));
    }
    if (fd < 0) {
        if (!out.empty()) {
            std::memcpy(out.data(), memory.data() + offset, out.size());
        }
        return;
    }
    std::size_t done = 0;
    while (done < out.size()) {
        const ssize_t n =
            ::pread(fd, out.data() + done, out.size() - done, static_cast<off_t>(offset + done));
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            fail_at(site, offset + done,
                    fmt::format("cannot read the file: {}",
                                n < 0 ? std::strerror(errno) : "unexpected end of file"));
        }
        done += static_cast<std::size_t>(n);
    }
}

void ParquetFileReader::Impl::walk_schema(std::size_t& index, int depth, const std::string& prefix,
                                          int max_def, int max_rep, const ErrorSite& site) {
    if (depth > kMaxSchemaDepth) {
        fail_at(site, footer_start, "schema nested too deeply");
    }
    if (index >= meta.schema.size()) {
        fail_at(site, footer_start, "schema has fewer elements than its groups declare");
    }
    const parquet::SchemaElement& e = meta.schema[index++];
    const std::string name = prefix.empty() ? e.name : prefix + "." + e.name;
    const auto repetition = static_cast<Repetition>(e.repetition.value_or(0));
    if (repetition == Repetition::kOptional) {
        ++max_def;
    } else if (repetition == Repetition::kRepeated) {
        ++max_def;
        ++max_rep;
    }
    if (e.num_children > 0) {
        for (std::int32_t i = 0; i < e.num_children; ++i) {
            walk_schema(index, depth + 1, name, max_def, max_rep, site);
        }
        return;
    }
    if (!e.type) {
        fail_at(site, footer_start, fmt::format("schema leaf '{}' has no type", name));
    }
    Leaf leaf;
    leaf.type = static_cast<PhysicalType>(*e.type);
    leaf.max_def = max_def;
    leaf.max_rep = max_rep;
    ParquetColumnInfo info;
    info.name = name;
    info.physical_type = parquet::physical_type_name(*e.type);
    info.optional = max_def > 0;
    info.flat = depth == 1 && max_rep == 0;
    info.type = info.flat ? column_type_of(leaf.type) : ColumnType::kOther;
    leaves.push_back(leaf);
    columns.push_back(std::move(info));
}

void ParquetFileReader::Impl::parse_footer() {
    const ErrorSite site{path, {}};
    if (size < 12) {
        fail_at(site, 0,
                fmt::format("file of {} bytes is too small to be Parquet (it needs at least "
                            "12 bytes: two 'PAR1' magics and a footer length)",
                            size));
    }
    std::uint8_t head[4];
    read_bytes(0, head, site);
    if (std::memcmp(head, kMagic, 4) != 0) {
        fail_at(site, 0, "bad magic: the file does not start with 'PAR1' (not Parquet?)");
    }
    std::uint8_t tail[8];
    read_bytes(size - 8, tail, site);
    if (std::memcmp(tail + 4, kMagic, 4) != 0) {
        fail_at(site, size - 4,
                "bad magic: the file does not end with 'PAR1' (truncated or not Parquet?)");
    }
    std::uint32_t footer_length = 0;
    std::memcpy(&footer_length, tail, 4);
    if (footer_length > size - 12) {
        fail_at(site, size - 8,
                fmt::format("footer length {} exceeds the {} bytes before it (truncated "
                            "file?)",
                            footer_length, size - 12));
    }
    footer_start = size - 8 - footer_length;
    std::vector<std::uint8_t> footer(footer_length);
    read_bytes(footer_start, footer, site);
    meta = parquet::decode_file_metadata(footer, footer_start, site);
    if (meta.schema.empty()) {
        fail_at(site, footer_start, "footer has an empty schema");
    }
    std::size_t index = 1;
    const parquet::SchemaElement& root = meta.schema[0];
    for (std::int32_t i = 0; i < root.num_children; ++i) {
        walk_schema(index, 1, {}, 0, 0, site);
    }
    if (index != meta.schema.size()) {
        fail_at(site, footer_start,
                fmt::format("schema lists {} elements but its root describes {}",
                            meta.schema.size(), index));
    }
    std::uint64_t rows = 0;
    for (std::size_t g = 0; g < meta.row_groups.size(); ++g) {
        const parquet::RowGroup& group = meta.row_groups[g];
        if (group.columns.size() != leaves.size()) {
            fail_at(site, footer_start,
                    fmt::format("row group {} has {} column chunks but the schema has {} "
                                "columns",
                                g, group.columns.size(), leaves.size()));
        }
        group_first_row.push_back(rows);
        rows += static_cast<std::uint64_t>(group.num_rows);
    }
    if (rows != static_cast<std::uint64_t>(meta.num_rows)) {
        fail_at(site, footer_start,
                fmt::format("row groups hold {} rows but the footer says {}", rows, meta.num_rows));
    }
}

ParquetFileReader::ParquetFileReader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

ParquetFileReader::ParquetFileReader(ParquetFileReader&&) noexcept = default;
ParquetFileReader& ParquetFileReader::operator=(ParquetFileReader&&) noexcept = default;
ParquetFileReader::~ParquetFileReader() = default;

ParquetFileReader ParquetFileReader::open(const std::string& path) {
    auto impl = std::make_unique<Impl>();
    impl->path = path;
    impl->fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (impl->fd < 0) {
        throw DataError(
            fmt::format("cannot open Parquet file '{}': {}", path, std::strerror(errno)));
    }
    const off_t end = ::lseek(impl->fd, 0, SEEK_END);
    if (end < 0) {
        throw DataError(
            fmt::format("cannot read Parquet file '{}': {}", path, std::strerror(errno)));
    }
    impl->size = static_cast<std::uint64_t>(end);
    impl->parse_footer();
    return ParquetFileReader(std::move(impl));
}

ParquetFileReader ParquetFileReader::from_memory(std::span<const std::uint8_t> bytes,
                                                 const std::string& name) {
    auto impl = std::make_unique<Impl>();
    impl->path = name;
    impl->memory.assign(bytes.begin(), bytes.end());
    impl->size = bytes.size();
    impl->parse_footer();
    return ParquetFileReader(std::move(impl));
}

const std::string& ParquetFileReader::path() const noexcept {
    return impl_->path;
}

const std::vector<ParquetColumnInfo>& ParquetFileReader::columns() const noexcept {
    return impl_->columns;
}

std::optional<std::size_t> ParquetFileReader::column_index(std::string_view name) const {
    for (std::size_t i = 0; i < impl_->columns.size(); ++i) {
        if (impl_->columns[i].name == name) {
            return i;
        }
    }
    return std::nullopt;
}

std::uint64_t ParquetFileReader::num_rows() const noexcept {
    return static_cast<std::uint64_t>(impl_->meta.num_rows);
}

std::size_t ParquetFileReader::num_row_groups() const noexcept {
    return impl_->meta.row_groups.size();
}

std::uint64_t ParquetFileReader::row_group_rows(std::size_t group) const {
    return static_cast<std::uint64_t>(impl_->meta.row_groups.at(group).num_rows);
}

const std::string& ParquetFileReader::created_by() const noexcept {
    return impl_->meta.created_by;
}

void ParquetFileReader::read_column_chunk(std::size_t group, std::size_t column,
                                          std::span<double> out, NullPolicy nulls,
                                          std::vector<std::uint8_t>* valid) const {
    parquet::ColumnCursor cursor(*this, group, column, nulls);
    if (out.size() != cursor.remaining()) {
        throw DataError(fmt::format("Parquet file '{}', column '{}': output of {} values for a "
                                    "row group of {} rows",
                                    impl_->path, impl_->columns[column].name, out.size(),
                                    cursor.remaining()));
    }
    parquet::PageBuffers buffers;
    if (valid != nullptr) {
        valid->assign(out.size(), 1);
    }
    cursor.read(out, buffers,
                valid != nullptr ? std::span<std::uint8_t>(*valid) : std::span<std::uint8_t>());
}

RawColumn ParquetFileReader::read_column(std::size_t column) const {
    RawColumn result;
    result.name = impl_->columns.at(column).name;
    result.type = impl_->columns[column].type;
    result.values.resize(static_cast<std::size_t>(num_rows()));
    std::vector<std::uint8_t> all_valid(result.values.size(), 1);
    std::vector<std::uint8_t> valid;
    for (std::size_t g = 0; g < num_row_groups(); ++g) {
        const auto first = static_cast<std::size_t>(impl_->group_first_row[g]);
        const auto rows = static_cast<std::size_t>(row_group_rows(g));
        read_column_chunk(g, column, std::span<double>(result.values).subspan(first, rows),
                          NullPolicy::kNan, &valid);
        std::copy(valid.begin(), valid.end(),
                  all_valid.begin() + static_cast<std::ptrdiff_t>(first));
    }
    result.null_count =
        static_cast<std::uint64_t>(std::count(all_valid.begin(), all_valid.end(), 0));
    if (result.null_count > 0) {
        result.valid = std::move(all_valid);
    }
    return result;
}

}  // namespace laddu::data
