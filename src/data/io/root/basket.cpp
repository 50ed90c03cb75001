// A TBasket on file: a TKey whose last 19 bytes are the basket header (version, buffer size,
// entry size, entry count, fLast, flag), then the compressed entries. A flat branch's entries
// are fixed-size big-endian values with no offset table. A basket kept inside the TTree has its
// values in Branch::embedded (tree.cpp), uncompressed.
#include "basket.hpp"

#include <bit>
#include <cstring>

#include <fmt/format.h>

#include "compression.hpp"

namespace laddu::data::root {

namespace {

constexpr std::size_t kBasketHeader = 19;  // after the TKey part of the basket's key
constexpr std::uint64_t kMaxExpansion = 1000;
constexpr std::uint64_t kSlackBytes = 4096;

// A big-endian value: memcpy and a byte swap, which compilers turn into vector shuffles over
// a whole basket (a byte-at-a-time shift loop is not vectorised and costs a third of a read).
template <class T>
T load(const std::uint8_t* p) noexcept {
    using Bits = std::conditional_t<
        sizeof(T) == 1, std::uint8_t,
        std::conditional_t<sizeof(T) == 2, std::uint16_t,
                           std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>>;
    Bits bits = 0;
    std::memcpy(&bits, p, sizeof(T));
    if constexpr (std::endian::native == std::endian::little) {
        if constexpr (sizeof(T) == 2) {
            bits = __builtin_bswap16(bits);
        } else if constexpr (sizeof(T) == 4) {
            bits = __builtin_bswap32(bits);
        } else if constexpr (sizeof(T) == 8) {
            bits = __builtin_bswap64(bits);
        }
    }
    return std::bit_cast<T>(bits);
}

template <class T>
void convert(const std::uint8_t* p, AlignedVector<double>& out) {
    for (std::size_t i = 0; i < out.size(); ++i) {
        out[i] = static_cast<double>(load<T>(p + i * sizeof(T)));
    }
}

// The `entries` big-endian values of `branch`'s type at `p`, as doubles in `out`.
void convert_values(const Branch& branch, const std::uint8_t* p, std::size_t entries,
                    AlignedVector<double>& out, const ErrorSite& site) {
    out.resize(entries);
    switch (branch.type) {
    case LeafType::kFloat32:
        convert<float>(p, out);
        break;
    case LeafType::kFloat64:
        convert<double>(p, out);
        break;
    case LeafType::kInt8:
        convert<std::int8_t>(p, out);
        break;
    case LeafType::kUInt8:
    case LeafType::kBool:
        convert<std::uint8_t>(p, out);
        break;
    case LeafType::kInt16:
        convert<std::int16_t>(p, out);
        break;
    case LeafType::kUInt16:
        convert<std::uint16_t>(p, out);
        break;
    case LeafType::kInt32:
        convert<std::int32_t>(p, out);
        break;
    case LeafType::kUInt32:
        convert<std::uint32_t>(p, out);
        break;
    case LeafType::kInt64:
        convert<std::int64_t>(p, out);
        break;
    case LeafType::kUInt64:
        convert<std::uint64_t>(p, out);
        break;
    case LeafType::kUnsupported:
        fail(site, 0,
             fmt::format("branch '{}' cannot be read: {}", branch.name, branch.unsupported));
    }
}

}  // namespace

void read_basket(const RootFile& file, const Branch& branch, std::size_t basket,
                 BasketScratch& scratch, AlignedVector<double>& out) {
    const auto seek = static_cast<std::uint64_t>(branch.basket_seek[basket]);
    const auto stored = static_cast<std::uint64_t>(branch.basket_bytes[basket]);
    const auto entries =
        static_cast<std::size_t>(branch.basket_entry[basket + 1] - branch.basket_entry[basket]);
    const std::size_t item = leaf_size(branch.type);
    const std::string object = fmt::format("basket {} of branch '{}'", basket, branch.name);
    const ErrorSite site{file.path(), object, true, seek};
    if (item == 0) {
        fail(site, 0,
             fmt::format("branch '{}' cannot be read: {}", branch.name, branch.unsupported));
    }
    if (seek == 0) {  // the basket kept inside the TTree (tree.cpp checked its size)
        convert_values(branch, branch.embedded.data(), entries, out, site);
        return;
    }
    file.read_into(seek, stored, object, scratch.stored);
    const std::span<const std::uint8_t> bytes = scratch.stored;
    Cursor cursor(bytes, site);
    const Key key = read_key(cursor);
    if (key.class_name != "TBasket") {
        fail(site, 0, fmt::format("the key is a '{}', not a TBasket", key.class_name));
    }
    if (static_cast<std::uint64_t>(key.nbytes) != stored || key.keylen < 0 ||
        static_cast<std::size_t>(key.keylen) < cursor.pos() + kBasketHeader ||
        key.nbytes < key.keylen) {
        fail(site, 0,
             fmt::format("the basket key's sizes (fNbytes {}, fKeylen {}) disagree with the "
                         "branch's fBasketBytes {}",
                         key.nbytes, key.keylen, stored));
    }
    const auto keylen = static_cast<std::size_t>(key.keylen);
    cursor.seek(keylen - kBasketHeader);
    cursor.skip(2 + 4);  // fVersion, fBufferSize
    cursor.skip(4);      // fNevBufSize
    const std::int32_t count = cursor.i32();
    const std::int32_t last = cursor.i32();
    // As for any object, no more than 1000 times the stored bytes (tree.cpp bounds the entry
    // count the same way, so the product cannot overflow).
    if (entries > (kMaxExpansion * stored + kSlackBytes) / item) {
        fail(site, 0,
             fmt::format("the basket claims {} entries of {} bytes for {} stored bytes", entries,
                         item, stored));
    }
    const std::size_t want = entries * item;
    if (count < 0 || static_cast<std::size_t>(count) != entries) {
        fail(site, 0,
             fmt::format("the basket holds {} entries, but the branch's fBasketEntry says {}",
                         count, entries));
    }
    // A flat branch's basket is exactly its values; more would be an offset table (a
    // variable-length branch), less is damage.
    if (last < key.keylen || static_cast<std::size_t>(last) - keylen != want || key.objlen < 0 ||
        static_cast<std::size_t>(key.objlen) != want) {
        fail(site, 0,
             fmt::format("the basket has {} bytes of data (fObjlen {}, fLast {}), but {} "
                         "entries of {} bytes need {}",
                         static_cast<std::int64_t>(last) - key.keylen, key.objlen, last, entries,
                         item, want));
    }
    // Stored bytes of exactly the uncompressed size are the values as is (no copy needed).
    std::span<const std::uint8_t> data = bytes.subspan(keylen);
    if (data.size() != want) {
        decompress_into(data, want, ErrorSite{file.path(), object, true, seek + keylen},
                        scratch.data);
        data = scratch.data;
    }
    convert_values(branch, data.data(), entries, out, site);
}

}  // namespace laddu::data::root
