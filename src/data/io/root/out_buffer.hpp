// Big-endian serialisation of ROOT objects for the writer: numbers, strings, and the byte-count
// headers that ROOT puts before every versioned object (patched once the object is complete).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>
#include <vector>

namespace laddu::data::root {

/// ROOT's flag on a byte count (it distinguishes a count from a class tag).
inline constexpr std::uint32_t kByteCountMask = 0x40000000U;
/// The tag before a class name written for the first time.
inline constexpr std::uint32_t kNewClassTag = 0xFFFFFFFFU;
/// TObject's fBits as ROOT writes them for an object on the heap (kNotDeleted | kIsOnHeap).
inline constexpr std::uint32_t kObjectBits = 0x03000000U;

/// A growing byte buffer written in ROOT's (big-endian) order.
class OutBuffer {
public:
    [[nodiscard]] std::size_t size() const noexcept { return bytes_.size(); }

    [[nodiscard]] std::span<const std::uint8_t> bytes() const noexcept { return bytes_; }

    [[nodiscard]] std::vector<std::uint8_t>& storage() noexcept { return bytes_; }

    void clear() noexcept { bytes_.clear(); }

    void u8(std::uint8_t v) { bytes_.push_back(v); }

    void u16(std::uint16_t v) { be(v, 2); }

    void u32(std::uint32_t v) { be(v, 4); }

    void u64(std::uint64_t v) { be(v, 8); }

    void i16(std::int16_t v) { be(static_cast<std::uint16_t>(v), 2); }

    void i32(std::int32_t v) { be(static_cast<std::uint32_t>(v), 4); }

    void i64(std::int64_t v) { be(static_cast<std::uint64_t>(v), 8); }

    void f32(float v) {
        std::uint32_t bits = 0;
        std::memcpy(&bits, &v, sizeof bits);
        u32(bits);
    }

    void f64(double v) {
        std::uint64_t bits = 0;
        std::memcpy(&bits, &v, sizeof bits);
        u64(bits);
    }

    void raw(std::span<const std::uint8_t> data) {
        bytes_.insert(bytes_.end(), data.begin(), data.end());
    }

    void zeros(std::size_t n) { bytes_.insert(bytes_.end(), n, 0); }

    /// A TString: one length byte, or 255 and a 4-byte length for 255 bytes and more.
    void str(std::string_view s) {
        if (s.size() < 255) {
            u8(static_cast<std::uint8_t>(s.size()));
        } else {
            u8(255);
            u32(static_cast<std::uint32_t>(s.size()));
        }
        bytes_.insert(bytes_.end(), s.begin(), s.end());
    }

    /// A NUL-terminated class name (after a new-class tag).
    void cstr(std::string_view s) {
        bytes_.insert(bytes_.end(), s.begin(), s.end());
        u8(0);
    }

    /// Starts a versioned object: a byte count (patched by end()) and the class version.
    [[nodiscard]] std::size_t begin(std::uint16_t version) {
        const std::size_t at = size();
        u32(0);
        u16(version);
        return at;
    }

    /// Starts an object written through a pointer with its class name: byte count and new-class
    /// tag. Returns where the count goes (end() patches it); the object follows.
    [[nodiscard]] std::size_t begin_any(std::string_view class_name) {
        const std::size_t at = size();
        u32(0);
        u32(kNewClassTag);
        cstr(class_name);
        return at;
    }

    /// Patches the byte count at `at` to cover everything written after it.
    void end(std::size_t at) {
        patch_u32(at, static_cast<std::uint32_t>(size() - at - 4) | kByteCountMask);
    }

    void patch_u32(std::size_t at, std::uint32_t v) {
        for (std::size_t i = 0; i < 4; ++i) {
            bytes_[at + i] = static_cast<std::uint8_t>(v >> (8 * (3 - i)));
        }
    }

    /// TObject (version 1, no unique id).
    void tobject(std::uint32_t bits = kObjectBits) {
        u16(1);
        u32(0);
        u32(bits);
    }

    /// TNamed (version 1) with a TObject.
    void tnamed(std::string_view name, std::string_view title, std::uint32_t bits = kObjectBits) {
        const std::size_t at = begin(1);
        tobject(bits);
        str(name);
        str(title);
        end(at);
    }

private:
    void be(std::uint64_t v, int n) {
        for (int i = n - 1; i >= 0; --i) {
            bytes_.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
        }
    }

    std::vector<std::uint8_t> bytes_;
};

/// Bytes of a TString of `n` characters.
[[nodiscard]] inline std::size_t string_bytes(std::size_t n) noexcept {
    return (n < 255 ? 1 : 5) + n;
}

}  // namespace laddu::data::root
