#include "metadata.hpp"

#include <algorithm>
#include <cstdint>

#include <fmt/format.h>

#include "thrift.hpp"

namespace laddu::data::parquet {

std::string physical_type_name(std::int32_t type) {
    switch (static_cast<PhysicalType>(type)) {
    case PhysicalType::kBoolean:
        return "BOOLEAN";
    case PhysicalType::kInt32:
        return "INT32";
    case PhysicalType::kInt64:
        return "INT64";
    case PhysicalType::kInt96:
        return "INT96";
    case PhysicalType::kFloat:
        return "FLOAT";
    case PhysicalType::kDouble:
        return "DOUBLE";
    case PhysicalType::kByteArray:
        return "BYTE_ARRAY";
    case PhysicalType::kFixedLenByteArray:
        return "FIXED_LEN_BYTE_ARRAY";
    }
    return fmt::format("TYPE({})", type);
}

std::string codec_name(std::int32_t codec) {
    switch (static_cast<Codec>(codec)) {
    case Codec::kUncompressed:
        return "UNCOMPRESSED";
    case Codec::kSnappy:
        return "SNAPPY";
    case Codec::kGzip:
        return "GZIP";
    case Codec::kLzo:
        return "LZO";
    case Codec::kBrotli:
        return "BROTLI";
    case Codec::kLz4:
        return "LZ4";
    case Codec::kZstd:
        return "ZSTD";
    case Codec::kLz4Raw:
        return "LZ4_RAW";
    }
    return fmt::format("CODEC({})", codec);
}

namespace {

std::vector<std::uint8_t> to_vector(std::span<const std::uint8_t> bytes) {
    return {bytes.begin(), bytes.end()};
}

// One reader per Thrift struct of parquet.thrift; field ids are the spec's.

SchemaElement read_schema_element(ThriftReader& r) {
    SchemaElement e;
    r.read_struct([&](const ThriftField& f) {
        switch (f.id) {
        case 1:
            e.type = r.read_i32(f);
            return true;
        case 2:
            e.type_length = r.read_i32(f);
            return true;
        case 3:
            e.repetition = r.read_i32(f);
            return true;
        case 4:
            e.name = r.read_string(f);
            return true;
        case 5:
            e.num_children = r.read_count32(f);
            return true;
        case 6:
            e.converted_type = r.read_i32(f);
            return true;
        default:
            return false;
        }
    });
    return e;
}

Statistics read_statistics(ThriftReader& r) {
    Statistics s;
    r.read_struct([&](const ThriftField& f) {
        switch (f.id) {
        case 3:
            s.null_count = r.read_i64(f);
            return true;
        case 5:
            s.max_value = to_vector(r.read_binary(f));
            return true;
        case 6:
            s.min_value = to_vector(r.read_binary(f));
            return true;
        default:
            return false;
        }
    });
    return s;
}

ColumnMetaData read_column_metadata(ThriftReader& r) {
    ColumnMetaData m;
    r.read_struct([&](const ThriftField& f) {
        switch (f.id) {
        case 1:
            m.type = r.read_i32(f);
            return true;
        case 2: {
            const ThriftList list = r.read_list(f);
            for (std::size_t i = 0; i < list.size; ++i) {
                m.encodings.push_back(
                    static_cast<std::int32_t>(r.read_list_int(list.element, INT32_MIN, INT32_MAX)));
            }
            return true;
        }
        case 3: {
            const ThriftList list = r.read_list(f);
            for (std::size_t i = 0; i < list.size; ++i) {
                m.path.push_back(r.read_list_string(list.element));
            }
            return true;
        }
        case 4:
            m.codec = r.read_i32(f);
            return true;
        case 5:
            m.num_values = r.read_count64(f);
            return true;
        case 6:
            m.total_uncompressed_size = r.read_count64(f);
            return true;
        case 7:
            m.total_compressed_size = r.read_count64(f);
            return true;
        case 9:
            m.data_page_offset = r.read_count64(f);
            return true;
        case 11:
            m.dictionary_page_offset = r.read_count64(f);
            return true;
        case 12:
            r.expect(f, ThriftType::kStruct);
            m.statistics = read_statistics(r);
            return true;
        default:
            return false;
        }
    });
    return m;
}

ColumnChunk read_column_chunk(ThriftReader& r) {
    ColumnChunk c;
    r.read_struct([&](const ThriftField& f) {
        switch (f.id) {
        case 1:
            c.file_path = r.read_string(f);
            return true;
        case 2:
            c.file_offset = r.read_i64(f);
            return true;
        case 3:
            r.expect(f, ThriftType::kStruct);
            c.meta = read_column_metadata(r);
            return true;
        default:
            return false;
        }
    });
    return c;
}

RowGroup read_row_group(ThriftReader& r) {
    RowGroup g;
    r.read_struct([&](const ThriftField& f) {
        switch (f.id) {
        case 1:
            r.read_struct_list(f, g.columns, [&] { return read_column_chunk(r); });
            return true;
        case 2:
            g.total_byte_size = r.read_i64(f);
            return true;
        case 3:
            g.num_rows = r.read_count64(f);
            return true;
        default:
            return false;
        }
    });
    return g;
}

DataPageHeader read_data_page_header(ThriftReader& r) {
    DataPageHeader d;
    r.read_struct([&](const ThriftField& f) {
        switch (f.id) {
        case 1:
            d.num_values = r.read_count32(f);
            return true;
        case 2:
            d.encoding = r.read_i32(f);
            return true;
        case 3:
            d.definition_level_encoding = r.read_i32(f);
            return true;
        case 4:
            d.repetition_level_encoding = r.read_i32(f);
            return true;
        default:
            return false;
        }
    });
    return d;
}

DictionaryPageHeader read_dictionary_page_header(ThriftReader& r) {
    DictionaryPageHeader d;
    r.read_struct([&](const ThriftField& f) {
        switch (f.id) {
        case 1:
            d.num_values = r.read_count32(f);
            return true;
        case 2:
            d.encoding = r.read_i32(f);
            return true;
        default:
            return false;
        }
    });
    return d;
}

DataPageHeaderV2 read_data_page_header_v2(ThriftReader& r) {
    DataPageHeaderV2 d;
    r.read_struct([&](const ThriftField& f) {
        switch (f.id) {
        case 1:
            d.num_values = r.read_count32(f);
            return true;
        case 2:
            d.num_nulls = r.read_count32(f);
            return true;
        case 3:
            d.num_rows = r.read_count32(f);
            return true;
        case 4:
            d.encoding = r.read_i32(f);
            return true;
        case 5:
            d.definition_levels_byte_length = r.read_count32(f);
            return true;
        case 6:
            d.repetition_levels_byte_length = r.read_count32(f);
            return true;
        case 7:
            d.is_compressed = r.read_bool(f);
            return true;
        default:
            return false;
        }
    });
    return d;
}

}  // namespace

FileMetaData decode_file_metadata(std::span<const std::uint8_t> bytes, std::uint64_t base_offset,
                                  const ErrorSite& site) {
    ThriftReader r(bytes, base_offset, site);
    FileMetaData meta;
    r.read_struct([&](const ThriftField& f) {
        switch (f.id) {
        case 1:
            meta.version = r.read_i32(f);
            return true;
        case 2:
            r.read_struct_list(f, meta.schema, [&] { return read_schema_element(r); });
            return true;
        case 3:
            meta.num_rows = r.read_count64(f);
            return true;
        case 4:
            r.read_struct_list(f, meta.row_groups, [&] { return read_row_group(r); });
            return true;
        case 6:
            meta.created_by = r.read_string(f);
            return true;
        case 7:
            meta.type_defined_order = true;  // the reader needs to know no more than that
            return false;
        default:
            return false;
        }
    });
    return meta;
}

PageHeader decode_page_header(std::span<const std::uint8_t> bytes, std::uint64_t base_offset,
                              const ErrorSite& site, std::size_t& header_size) {
    ThriftReader r(bytes, base_offset, site);
    PageHeader h;
    r.read_struct([&](const ThriftField& f) {
        switch (f.id) {
        case 1:
            h.type = r.read_i32(f);
            return true;
        case 2:
            h.uncompressed_page_size = r.read_count32(f);
            return true;
        case 3:
            h.compressed_page_size = r.read_count32(f);
            return true;
        case 5:
            r.expect(f, ThriftType::kStruct);
            h.data = read_data_page_header(r);
            return true;
        case 7:
            r.expect(f, ThriftType::kStruct);
            h.dictionary = read_dictionary_page_header(r);
            return true;
        case 8:
            r.expect(f, ThriftType::kStruct);
            h.data_v2 = read_data_page_header_v2(r);
            return true;
        default:
            return false;
        }
    });
    header_size = r.position();
    return h;
}

namespace {

void write_statistics(ThriftWriter& w, const Statistics& s) {
    if (s.null_count) {
        w.field_i64(3, *s.null_count);
    }
    if (s.max_value) {
        w.field_binary(5, *s.max_value);
    }
    if (s.min_value) {
        w.field_binary(6, *s.min_value);
    }
}

void write_column_metadata(ThriftWriter& w, const ColumnMetaData& m) {
    w.field_i32(1, m.type);
    w.field_list(2, ThriftType::kI32, m.encodings.size());
    for (const std::int32_t e : m.encodings) {
        w.list_i32(e);
    }
    w.field_list(3, ThriftType::kBinary, m.path.size());
    for (const std::string& p : m.path) {
        w.list_string(p);
    }
    w.field_i32(4, m.codec);
    w.field_i64(5, m.num_values);
    w.field_i64(6, m.total_uncompressed_size);
    w.field_i64(7, m.total_compressed_size);
    w.field_i64(9, m.data_page_offset);
    if (m.dictionary_page_offset) {
        w.field_i64(11, *m.dictionary_page_offset);
    }
    if (m.statistics.null_count || m.statistics.min_value || m.statistics.max_value) {
        w.field_struct(12);
        write_statistics(w, m.statistics);
        w.end_struct();
    }
}

}  // namespace

void encode_file_metadata(const FileMetaData& meta, std::vector<std::uint8_t>& out) {
    ThriftWriter w(out);
    w.begin_struct();
    w.field_i32(1, meta.version);
    w.field_list(2, ThriftType::kStruct, meta.schema.size());
    for (const SchemaElement& e : meta.schema) {
        w.begin_struct();
        if (e.type) {
            w.field_i32(1, *e.type);
        }
        if (e.repetition) {
            w.field_i32(3, *e.repetition);
        }
        w.field_string(4, e.name);
        if (e.num_children > 0) {
            w.field_i32(5, e.num_children);
        }
        w.end_struct();
    }
    w.field_i64(3, meta.num_rows);
    w.field_list(4, ThriftType::kStruct, meta.row_groups.size());
    for (const RowGroup& g : meta.row_groups) {
        w.begin_struct();
        w.field_list(1, ThriftType::kStruct, g.columns.size());
        for (const ColumnChunk& c : g.columns) {
            w.begin_struct();
            w.field_i64(2, c.file_offset);
            if (c.meta) {
                w.field_struct(3);
                write_column_metadata(w, *c.meta);
                w.end_struct();
            }
            w.end_struct();
        }
        w.field_i64(2, g.total_byte_size);
        w.field_i64(3, g.num_rows);
        w.end_struct();
    }
    w.field_string(6, meta.created_by);
    if (meta.type_defined_order) {
        const auto leaves = static_cast<std::size_t>(
            std::count_if(meta.schema.begin(), meta.schema.end(),
                          [](const SchemaElement& e) { return e.type.has_value(); }));
        w.field_list(7, ThriftType::kStruct, leaves);
        for (std::size_t i = 0; i < leaves; ++i) {
            w.begin_struct();   // ColumnOrder, a union
            w.field_struct(1);  // TYPE_ORDER: TypeDefinedOrder, an empty struct
            w.end_struct();
            w.end_struct();
        }
    }
    w.end_struct();
}

void encode_page_header(const PageHeader& header, std::vector<std::uint8_t>& out) {
    ThriftWriter w(out);
    w.begin_struct();
    w.field_i32(1, header.type);
    w.field_i32(2, header.uncompressed_page_size);
    w.field_i32(3, header.compressed_page_size);
    if (header.data) {
        w.field_struct(5);
        w.field_i32(1, header.data->num_values);
        w.field_i32(2, header.data->encoding);
        w.field_i32(3, header.data->definition_level_encoding);
        w.field_i32(4, header.data->repetition_level_encoding);
        w.end_struct();
    }
    w.end_struct();
}

}  // namespace laddu::data::parquet
