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

#include "compression.hpp"
#include "encodings.hpp"
#include "metadata.hpp"
#include <fcntl.h>
#include <unistd.h>

namespace laddu::data {

using parquet::Codec;
using parquet::Encoding;
using parquet::ErrorSite;
using parquet::fail_at;
using parquet::PageType;
using parquet::PhysicalType;
using parquet::Repetition;

namespace {

constexpr std::uint8_t kMagic[4] = {'P', 'A', 'R', '1'};
constexpr int kMaxSchemaDepth = 64;

/// A leaf column as the decoder needs it.
struct Leaf {
    PhysicalType type = PhysicalType::kBoolean;
    int max_def = 0;
    int max_rep = 0;
};

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

std::string encoding_name(std::int32_t e) {
    switch (static_cast<Encoding>(e)) {
    case Encoding::kPlain:
        return "PLAIN";
    case Encoding::kPlainDictionary:
        return "PLAIN_DICTIONARY";
    case Encoding::kRle:
        return "RLE";
    case Encoding::kBitPacked:
        return "BIT_PACKED";
    case Encoding::kDeltaBinaryPacked:
        return "DELTA_BINARY_PACKED";
    case Encoding::kDeltaLengthByteArray:
        return "DELTA_LENGTH_BYTE_ARRAY";
    case Encoding::kDeltaByteArray:
        return "DELTA_BYTE_ARRAY";
    case Encoding::kRleDictionary:
        return "RLE_DICTIONARY";
    case Encoding::kByteStreamSplit:
        return "BYTE_STREAM_SPLIT";
    }
    return fmt::format("ENCODING({})", e);
}

}  // namespace

struct ParquetFileReader::Impl {
    std::string path;
    int fd = -1;
    std::vector<std::uint8_t> memory;
    std::uint64_t size = 0;
    std::uint64_t footer_start = 0;
    parquet::FileMetaData meta;
    std::vector<ParquetColumnInfo> columns;
    std::vector<Leaf> leaves;
    std::vector<std::uint64_t> group_first_row;

    Impl() = default;
    Impl(const Impl&) = delete;
    Impl& operator=(const Impl&) = delete;
    Impl(Impl&&) = delete;
    Impl& operator=(Impl&&) = delete;

    ~Impl() {
        if (fd >= 0) {
            ::close(fd);
        }
    }

    void read_bytes(std::uint64_t offset, std::span<std::uint8_t> out,
                    const ErrorSite& site) const {
        if (offset > size || out.size() > size - offset) {
            fail_at(site, offset,
                    fmt::format("{} bytes requested past the end of the {}-byte file", out.size(),
                                size));
        }
        if (fd < 0) {
            if (!out.empty()) {
                std::memcpy(out.data(), memory.data() + offset, out.size());
            }
            return;
        }
        std::size_t done = 0;
        while (done < out.size()) {
            const ssize_t n = ::pread(fd, out.data() + done, out.size() - done,
                                      static_cast<off_t>(offset + done));
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

    void walk_schema(std::size_t& index, int depth, const std::string& prefix, int max_def,
                     int max_rep, const ErrorSite& site) {
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

    void parse_footer() {
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
            fail_at(
                site, footer_start,
                fmt::format("row groups hold {} rows but the footer says {}", rows, meta.num_rows));
        }
    }
};

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

namespace {

/// Decodes the pages of one column chunk into doubles.
class ChunkDecoder {
public:
    ChunkDecoder(const ErrorSite& site, const Leaf& leaf, Codec codec, std::uint64_t first_row,
                 std::span<double> out, NullPolicy nulls, std::vector<std::uint8_t>* valid)
        : site_(site), leaf_(leaf), codec_(codec), first_row_(first_row), out_(out), nulls_(nulls),
          valid_(valid) {
        if (valid_ != nullptr) {
            valid_->assign(out.size(), 1);
        }
    }

    void run(std::span<const std::uint8_t> chunk, std::uint64_t chunk_offset) {
        std::size_t pos = 0;
        while (filled_ < out_.size()) {
            const std::uint64_t page_offset = chunk_offset + pos;
            if (pos >= chunk.size()) {
                fail_at(
                    site_, page_offset,
                    fmt::format("column chunk ends after {} of {} values", filled_, out_.size()));
            }
            std::size_t header_size = 0;
            const parquet::PageHeader header =
                parquet::decode_page_header(chunk.subspan(pos), page_offset, site_, header_size);
            pos += header_size;
            const auto compressed = static_cast<std::size_t>(header.compressed_page_size);
            if (compressed > chunk.size() - pos) {
                fail_at(site_, page_offset,
                        fmt::format("page of {} bytes runs past the end of its column chunk "
                                    "({} bytes left)",
                                    compressed, chunk.size() - pos));
            }
            const auto page = chunk.subspan(pos, compressed);
            const std::uint64_t data_offset = chunk_offset + pos;
            pos += compressed;
            switch (static_cast<PageType>(header.type)) {
            case PageType::kDictionaryPage:
                dictionary_page(header, page, data_offset);
                break;
            case PageType::kDataPage:
                data_page_v1(header, page, data_offset);
                break;
            case PageType::kDataPageV2:
                data_page_v2(header, page, data_offset);
                break;
            case PageType::kIndexPage:
                break;
            default:
                fail_at(site_, page_offset, fmt::format("unknown page type {}", header.type));
            }
        }
    }

private:
    // Bounds how much a header may ask us to allocate: a legitimate page never needs more than
    // this for its value count, however it is encoded.
    void check_page_size(std::int64_t uncompressed, std::size_t values, std::uint64_t offset) {
        const std::uint64_t limit = 4096 + static_cast<std::uint64_t>(values) * 24;
        if (static_cast<std::uint64_t>(uncompressed) > limit) {
            fail_at(site_, offset,
                    fmt::format("page header claims {} uncompressed bytes for {} values "
                                "(corrupt header)",
                                uncompressed, values));
        }
    }

    std::span<const std::uint8_t> inflate(std::span<const std::uint8_t> in,
                                          std::size_t uncompressed, std::uint64_t offset) {
        if (codec_ == Codec::kUncompressed && in.size() == uncompressed) {
            return in;
        }
        if (uncompressed > buffer_capacity_) {
            buffer_ = std::make_unique_for_overwrite<std::uint8_t[]>(uncompressed);
            buffer_capacity_ = uncompressed;
        }
        const std::span<std::uint8_t> target(buffer_.get(), uncompressed);
        parquet::decompress(codec_, in, target, site_, offset);
        return target;
    }

    void dictionary_page(const parquet::PageHeader& header, std::span<const std::uint8_t> page,
                         std::uint64_t offset) {
        if (!header.dictionary) {
            fail_at(site_, offset, "dictionary page without a dictionary page header");
        }
        if (have_dictionary_) {
            fail_at(site_, offset, "column chunk has a second dictionary page");
        }
        const auto encoding = static_cast<Encoding>(header.dictionary->encoding);
        if (encoding != Encoding::kPlain && encoding != Encoding::kPlainDictionary) {
            fail_at(site_, offset,
                    fmt::format("dictionary page encoding {} is not supported",
                                encoding_name(header.dictionary->encoding)));
        }
        const auto n = static_cast<std::size_t>(header.dictionary->num_values);
        // Dictionaries belong to one column chunk, so they never hold more values than its rows.
        if (n > std::max<std::size_t>(out_.size(), 1)) {
            fail_at(site_, offset,
                    fmt::format("dictionary of {} values for a row group of {} rows (corrupt "
                                "header)",
                                n, out_.size()));
        }
        check_page_size(header.uncompressed_page_size, n, offset);
        const auto data =
            inflate(page, static_cast<std::size_t>(header.uncompressed_page_size), offset);
        dictionary_.resize(n);
        parquet::decode_plain(leaf_.type, data, dictionary_, site_, offset);
        have_dictionary_ = true;
    }

    void data_page_v1(const parquet::PageHeader& header, std::span<const std::uint8_t> page,
                      std::uint64_t offset) {
        if (!header.data) {
            fail_at(site_, offset, "data page without a data page header");
        }
        const auto n = static_cast<std::size_t>(header.data->num_values);
        check_values(n, offset);
        check_page_size(header.uncompressed_page_size, n, offset);
        auto body = inflate(page, static_cast<std::size_t>(header.uncompressed_page_size), offset);
        if (leaf_.max_def > 0) {
            if (static_cast<Encoding>(header.data->definition_level_encoding) != Encoding::kRle) {
                fail_at(site_, offset,
                        fmt::format("definition level encoding {} is not supported",
                                    encoding_name(header.data->definition_level_encoding)));
            }
            if (body.size() < 4) {
                fail_at(site_, offset, "data page too short for its definition levels");
            }
            std::uint32_t length = 0;
            std::memcpy(&length, body.data(), 4);
            if (length > body.size() - 4) {
                fail_at(site_, offset,
                        fmt::format("definition levels of {} bytes run past the page end", length));
            }
            levels_.resize(n);
            parquet::decode_rle_hybrid(body.subspan(4, length), 1, levels_, site_, offset + 4);
            body = body.subspan(4 + length);
        }
        values(header.data->encoding, body, n, offset);
    }

    void data_page_v2(const parquet::PageHeader& header, std::span<const std::uint8_t> page,
                      std::uint64_t offset) {
        if (!header.data_v2) {
            fail_at(site_, offset, "data page v2 without its header");
        }
        const parquet::DataPageHeaderV2& h = *header.data_v2;
        const auto n = static_cast<std::size_t>(h.num_values);
        check_values(n, offset);
        const auto rep = static_cast<std::size_t>(h.repetition_levels_byte_length);
        const auto def = static_cast<std::size_t>(h.definition_levels_byte_length);
        if (rep + def > page.size() ||
            rep + def > static_cast<std::size_t>(header.uncompressed_page_size)) {
            fail_at(site_, offset, "data page v2 level lengths exceed the page size");
        }
        check_page_size(header.uncompressed_page_size, n, offset);
        if (leaf_.max_def > 0) {
            levels_.resize(n);
            parquet::decode_rle_hybrid(page.subspan(rep, def), 1, levels_, site_, offset + rep);
        }
        const auto raw = page.subspan(rep + def);
        const std::size_t value_bytes =
            static_cast<std::size_t>(header.uncompressed_page_size) - rep - def;
        std::span<const std::uint8_t> body = raw;
        if (h.is_compressed && codec_ != Codec::kUncompressed) {
            body = inflate(raw, value_bytes, offset + rep + def);
        }
        values(h.encoding, body, n, offset + rep + def);
    }

    void check_values(std::size_t n, std::uint64_t offset) const {
        if (n > out_.size() - filled_) {
            fail_at(site_, offset,
                    fmt::format("page holds {} values but only {} rows of the row group remain", n,
                                out_.size() - filled_));
        }
    }

    void values(std::int32_t encoding, std::span<const std::uint8_t> body, std::size_t n,
                std::uint64_t offset) {
        std::size_t present = n;
        if (leaf_.max_def > 0) {
            present = static_cast<std::size_t>(
                std::count(levels_.begin(), levels_.begin() + static_cast<std::ptrdiff_t>(n),
                           static_cast<std::uint32_t>(leaf_.max_def)));
        }
        const std::span<double> target = out_.subspan(filled_, n);
        std::span<double> decoded = target;
        if (present != n) {
            scratch_.resize(present);
            decoded = scratch_;
        }
        switch (static_cast<Encoding>(encoding)) {
        case Encoding::kPlain:
            parquet::decode_plain(leaf_.type, body, decoded, site_, offset);
            break;
        case Encoding::kPlainDictionary:
        case Encoding::kRleDictionary:
            dictionary_values(body, decoded, offset);
            break;
        case Encoding::kByteStreamSplit:
            parquet::decode_byte_stream_split(leaf_.type, body, decoded, site_, offset);
            break;
        case Encoding::kDeltaBinaryPacked:
            parquet::decode_delta_binary_packed(leaf_.type, body, decoded, site_, offset);
            break;
        default:
            fail_at(site_, offset,
                    fmt::format("value encoding {} is not supported for numeric columns",
                                encoding_name(encoding)));
        }
        if (present != n) {
            scatter(target, offset);
        }
        filled_ += n;
    }

    void dictionary_values(std::span<const std::uint8_t> body, std::span<double> out,
                           std::uint64_t offset) {
        if (!have_dictionary_) {
            fail_at(site_, offset, "dictionary-encoded page without a dictionary page");
        }
        if (out.empty()) {
            return;
        }
        if (body.empty()) {
            fail_at(site_, offset, "dictionary-encoded page has no bit width");
        }
        indices_.resize(out.size());
        parquet::decode_rle_hybrid(body.subspan(1), body[0], indices_, site_, offset + 1);
        for (std::size_t i = 0; i < out.size(); ++i) {
            if (indices_[i] >= dictionary_.size()) {
                fail_at(site_, offset,
                        fmt::format("dictionary index {} is out of range (dictionary has {} "
                                    "values)",
                                    indices_[i], dictionary_.size()));
            }
            out[i] = dictionary_[indices_[i]];
        }
    }

    void scatter(std::span<double> target, std::uint64_t offset) {
        std::size_t j = 0;
        const auto full = static_cast<std::uint32_t>(leaf_.max_def);
        for (std::size_t i = 0; i < target.size(); ++i) {
            if (levels_[i] == full) {
                target[i] = scratch_[j++];
                continue;
            }
            if (nulls_ == NullPolicy::kError) {
                fail_at(site_, offset,
                        fmt::format("null at row {}; laddu needs a value in every event column "
                                    "(fill the nulls, or read with NullPolicy::kNan)",
                                    first_row_ + filled_ + i));
            }
            target[i] = std::numeric_limits<double>::quiet_NaN();
            if (valid_ != nullptr) {
                (*valid_)[filled_ + i] = 0;
            }
        }
    }

    const ErrorSite& site_;
    Leaf leaf_;
    Codec codec_;
    std::uint64_t first_row_;
    std::span<double> out_;
    NullPolicy nulls_;
    std::vector<std::uint8_t>* valid_;
    std::size_t filled_ = 0;
    bool have_dictionary_ = false;
    std::vector<double> dictionary_;
    std::unique_ptr<std::uint8_t[]> buffer_;
    std::size_t buffer_capacity_ = 0;
    std::vector<std::uint32_t> levels_;
    std::vector<std::uint32_t> indices_;
    std::vector<double> scratch_;
};

}  // namespace

void ParquetFileReader::read_column_chunk(std::size_t group, std::size_t column,
                                          std::span<double> out, NullPolicy nulls,
                                          std::vector<std::uint8_t>* valid) const {
    const Impl& impl = *impl_;
    if (group >= impl.meta.row_groups.size() || column >= impl.columns.size()) {
        throw DataError(fmt::format("Parquet file '{}': no row group {} or column {}", impl.path,
                                    group, column));
    }
    const ParquetColumnInfo& info = impl.columns[column];
    const ErrorSite site{impl.path, info.name};
    const parquet::ColumnChunk& chunk = impl.meta.row_groups[group].columns[column];
    if (!info.flat || info.type == ColumnType::kOther) {
        fail_at(site, impl.footer_start,
                fmt::format("column type {}{} cannot be read as numbers (laddu-cpp reads flat "
                            "FLOAT, DOUBLE, INT32 and INT64 columns)",
                            info.physical_type, info.flat ? "" : " (nested or repeated)"));
    }
    if (!chunk.meta) {
        fail_at(site, impl.footer_start,
                fmt::format("row group {} has no column metadata for this column", group));
    }
    const parquet::ColumnMetaData& meta = *chunk.meta;
    if (!chunk.file_path.empty()) {
        fail_at(site, impl.footer_start, "column chunks in external files are not supported");
    }
    if (meta.type != static_cast<std::int32_t>(impl.leaves[column].type)) {
        fail_at(site, impl.footer_start,
                fmt::format("column chunk type {} does not match the schema type {}",
                            parquet::physical_type_name(meta.type), info.physical_type));
    }
    if (out.size() != row_group_rows(group)) {
        throw DataError(fmt::format("Parquet file '{}', column '{}': output of {} values for a "
                                    "row group of {} rows",
                                    impl.path, info.name, out.size(), row_group_rows(group)));
    }
    auto start = static_cast<std::uint64_t>(meta.data_page_offset);
    if (meta.dictionary_page_offset && *meta.dictionary_page_offset > 0 &&
        static_cast<std::uint64_t>(*meta.dictionary_page_offset) < start) {
        start = static_cast<std::uint64_t>(*meta.dictionary_page_offset);
    }
    const auto length = static_cast<std::uint64_t>(meta.total_compressed_size);
    if (start < 4 || start > impl.footer_start || length > impl.footer_start - start) {
        fail_at(site, start,
                fmt::format("column chunk of {} bytes at offset {} lies outside the data region "
                            "[4, {})",
                            length, start, impl.footer_start));
    }
    // Uninitialised: every byte is overwritten by the read, and zeroing showed up in profiles.
    const auto size = static_cast<std::size_t>(length);
    const auto bytes = std::make_unique_for_overwrite<std::uint8_t[]>(size);
    const std::span<std::uint8_t> chunk_bytes(bytes.get(), size);
    impl.read_bytes(start, chunk_bytes, site);
    ChunkDecoder decoder(site, impl.leaves[column], static_cast<Codec>(meta.codec),
                         impl.group_first_row[group], out, nulls, valid);
    decoder.run(chunk_bytes, start);
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
