// Thrift compact protocol, hand-decoded: only what the Parquet footer and page headers need.
//
// Every read is bounds-checked against the buffer; nesting depth and list sizes are limited so a
// corrupt footer can neither over-read nor make the decoder allocate without bound.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "error_site.hpp"

namespace laddu::data::parquet {

/// Compact-protocol type codes (the low nibble of a field header).
enum class ThriftType : std::uint8_t {
    kStop = 0,
    kBoolTrue = 1,
    kBoolFalse = 2,
    kByte = 3,
    kI16 = 4,
    kI32 = 5,
    kI64 = 6,
    kDouble = 7,
    kBinary = 8,
    kList = 9,
    kSet = 10,
    kMap = 11,
    kStruct = 12,
};

/// One field header inside a struct.
struct ThriftField {
    std::int16_t id = 0;
    ThriftType type = ThriftType::kStop;
};

/// A list or set header.
struct ThriftList {
    std::size_t size = 0;
    ThriftType element = ThriftType::kStop;
};

/// Reads compact-protocol values from a byte span that starts at file offset `base_offset`.
class ThriftReader {
public:
    ThriftReader(std::span<const std::uint8_t> bytes, std::uint64_t base_offset,
                 const ErrorSite& site)
        : bytes_(bytes), base_(base_offset), site_(site) {}

    /// Enters a struct (call before the first next_field of that struct).
    void begin_struct();

    /// Reads the next field header; false at the struct's stop byte (which also leaves it).
    bool next_field(ThriftField& field);

    /// Integer of any integral wire type, checked to lie in [lo, hi].
    std::int64_t read_int(const ThriftField& field, std::int64_t lo, std::int64_t hi);

    /// A 32-bit integer field (I32, or a narrower integer type).
    std::int32_t read_i32(const ThriftField& field);

    /// A 64-bit integer field.
    std::int64_t read_i64(const ThriftField& field);

    /// A bool field (its value is in the field header).
    [[nodiscard]] bool read_bool(const ThriftField& field) const;

    /// A binary or string field; the span points into the buffer.
    std::span<const std::uint8_t> read_binary(const ThriftField& field);

    /// A string field.
    std::string read_string(const ThriftField& field);

    /// A list header; `field` must be of list type.
    ThriftList read_list(const ThriftField& field);

    /// A list element that is an integer (zigzag varint).
    std::int64_t read_list_int(ThriftType element, std::int64_t lo, std::int64_t hi);

    /// A list element that is a string.
    std::string read_list_string(ThriftType element);

    /// Checks a list element type before reading structs from it.
    void expect_element(ThriftType element, ThriftType wanted) const;

    /// Skips a value of `type` (unknown fields), recursing into containers with a depth limit.
    void skip(ThriftType type);

    /// Reads one struct: `on_field(field)` reads the fields it knows and returns true; the
    /// fields it returns false for are skipped.
    template <typename OnField>
    void read_struct(OnField&& on_field) {
        begin_struct();
        ThriftField field;
        while (next_field(field)) {
            if (!on_field(field)) {
                skip(field.type);
            }
        }
    }

    /// A non-negative 32-bit count or size field.
    std::int32_t read_count32(const ThriftField& field) {
        return static_cast<std::int32_t>(read_int(field, 0, INT32_MAX));
    }

    /// A non-negative 64-bit count, size or offset field.
    std::int64_t read_count64(const ThriftField& field) { return read_int(field, 0, INT64_MAX); }

    /// A list field of structs, each read by `read_element()` into `out`.
    template <typename T, typename ReadElement>
    void read_struct_list(const ThriftField& field, std::vector<T>& out,
                          ReadElement&& read_element) {
        const ThriftList list = read_list(field);
        expect_element(list.element, ThriftType::kStruct);
        out.reserve(list.size);
        for (std::size_t i = 0; i < list.size; ++i) {
            out.push_back(read_element());
        }
    }

    /// Checks that `field` has the wire type `wanted`.
    void expect(const ThriftField& field, ThriftType wanted) const;

    /// Bytes consumed so far.
    [[nodiscard]] std::size_t position() const noexcept { return pos_; }

    /// The absolute file offset of the next byte.
    [[nodiscard]] std::uint64_t offset() const noexcept { return base_ + pos_; }

    /// Throws DataError at the current offset.
    [[noreturn]] void fail(const std::string& what) const;

private:
    std::uint8_t read_byte();
    std::uint64_t read_varint();
    std::int64_t read_zigzag();
    std::int64_t read_integer(ThriftType type);
    void skip_value(ThriftType type, int depth);

    std::span<const std::uint8_t> bytes_;
    std::uint64_t base_;
    const ErrorSite& site_;
    std::size_t pos_ = 0;
    std::vector<std::int16_t> last_ids_;
};

/// Writes compact-protocol values into a growing byte vector.
class ThriftWriter {
public:
    explicit ThriftWriter(std::vector<std::uint8_t>& out) : out_(out) {}

    void begin_struct();
    void end_struct();
    void field_i32(std::int16_t id, std::int32_t value);
    void field_i64(std::int16_t id, std::int64_t value);
    void field_bool(std::int16_t id, bool value);
    void field_binary(std::int16_t id, std::span<const std::uint8_t> value);
    void field_string(std::int16_t id, const std::string& value);
    /// Starts a struct-typed field; follow with the struct's fields and end_struct().
    void field_struct(std::int16_t id);
    /// Starts a list-typed field of `size` elements of `element` type.
    void field_list(std::int16_t id, ThriftType element, std::size_t size);
    void list_i32(std::int32_t value);
    void list_string(const std::string& value);

private:
    void field_header(std::int16_t id, ThriftType type);
    void varint(std::uint64_t value);
    void zigzag(std::int64_t value);

    std::vector<std::uint8_t>& out_;
    std::vector<std::int16_t> last_ids_;
};

}  // namespace laddu::data::parquet
