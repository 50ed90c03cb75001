// EventRootWriter: a new ROOT file with one flat TTree in its top directory, laid out as ROOT
// and uproot write it:
//   [0, 100)    the file header (patched on close: fEND, fSeekFree, fSeekInfo, ...)
//   100         the TFile key, its name and title, and the top directory's record
//   ...         TBasket keys and their (compressed) data, branch after branch per cluster
//   close():    the TTree key, the StreamerInfo key, the directory's keys list, the free
//               segments record; then the header and directory record are patched in place.
// Every key after the first is written in the 64-bit form (key version 1004), so nothing has to
// move when a file grows past 2 GB; the header and directory switch to the 64-bit layout
// (file version 1062400, directory version 1005) when the file ends beyond ROOT's 2e9 bytes.
#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <ctime>
#include <exception>
#include <filesystem>
#include <limits>
#include <mutex>
#include <random>
#include <string_view>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <laddu/base/atomic_file.hpp>
#include <laddu/base/error.hpp>
#include <laddu/data/root.hpp>

#include "compress.hpp"
#include "out_buffer.hpp"
#include "streamers.hpp"

namespace laddu::data {

namespace {

using root::OutBuffer;
using root::string_bytes;

constexpr std::int32_t kFileVersion = 62400;         // ROOT 6.24/00, as uproot writes
constexpr std::int32_t kBigFileVersion = 1062400;    // + 1000000: 8-byte offsets in the header
constexpr std::uint64_t kBegin = 100;                // fBEGIN: the first key
constexpr std::uint64_t kBigFileStart = 2000000000;  // ROOT's kStartBigFile
constexpr std::size_t kDirectoryRecord = 60;         // TDirectory record, either layout
constexpr std::size_t kSmallKeyFixed = 26;           // TKey before its strings, 4-byte seeks
constexpr std::size_t kBigKeyFixed = 34;             // ... 8-byte seeks
constexpr std::size_t kBasketHeader = 19;            // TBasket members after the key
constexpr std::size_t kMaxKeyLength = 32767;         // fKeylen is a 16-bit count
constexpr std::size_t kMaxEntriesPerBasket = std::size_t{1} << 24;
constexpr std::array<std::uint8_t, 4> kMagic{'r', 'o', 'o', 't'};

struct KeyHeader {
    std::int64_t nbytes = 0;
    std::int32_t objlen = 0;
    std::uint32_t datime = 0;
    std::size_t keylen = 0;
    std::int16_t cycle = 1;
    std::int64_t seek = 0;
    std::int64_t parent = 0;
    bool big = true;
    std::string_view class_name;
    std::string_view name;
    std::string_view title;
};

std::size_t key_length(bool big, std::string_view class_name, std::string_view name,
                       std::string_view title) {
    return (big ? kBigKeyFixed : kSmallKeyFixed) + string_bytes(class_name.size()) +
           string_bytes(name.size()) + string_bytes(title.size());
}

void write_key(OutBuffer& out, const KeyHeader& k) {
    out.i32(static_cast<std::int32_t>(k.nbytes));
    out.i16(k.big ? 1004 : 4);
    out.i32(k.objlen);
    out.u32(k.datime);
    out.i16(static_cast<std::int16_t>(k.keylen));
    out.i16(k.cycle);
    if (k.big) {
        out.i64(k.seek);
        out.i64(k.parent);
    } else {
        out.i32(static_cast<std::int32_t>(k.seek));
        out.i32(static_cast<std::int32_t>(k.parent));
    }
    out.str(k.class_name);
    out.str(k.name);
    out.str(k.title);
}

// ROOT's TDatime: the local date and time packed into 32 bits from 1995.
std::uint32_t datime_now() {
    const std::time_t now = std::time(nullptr);
    std::tm t{};
    ::localtime_r(&now, &t);
    const auto year = static_cast<std::uint32_t>(std::max(t.tm_year + 1900, 1995) - 1995);
    return (year << 26U) | (static_cast<std::uint32_t>(t.tm_mon + 1) << 22U) |
           (static_cast<std::uint32_t>(t.tm_mday) << 17U) |
           (static_cast<std::uint32_t>(t.tm_hour) << 12U) |
           (static_cast<std::uint32_t>(t.tm_min) << 6U) | static_cast<std::uint32_t>(t.tm_sec);
}

std::int32_t compression_code(RootCompression codec, int level) {
    switch (codec) {
    case RootCompression::kZlib:
        return 100 + level;
    case RootCompression::kLz4:
        return 400 + level;
    case RootCompression::kZstd:
        return 500 + level;
    case RootCompression::kNone:
        return 0;
    }
    return 0;
}

void check_options(const std::string& path, const RootWriteOptions& o) {
    const auto fail = [&](const std::string& what) {
        throw DataError(fmt::format("cannot write ROOT file '{}': {}", path, what));
    };
    if (o.tree.empty()) {
        fail("the tree name is empty; set RootWriteOptions::tree (laddu's default is \"tree\")");
    }
    if (o.tree.find_first_of("/;") != std::string::npos) {
        fail(fmt::format("the tree name '{}' contains '/' or ';', which ROOT reads as a "
                         "directory or cycle; choose a plain name",
                         o.tree));
    }
    if (o.precision != ColumnType::kFloat64 && o.precision != ColumnType::kFloat32) {
        fail("RootWriteOptions::precision must be kFloat64 or kFloat32");
    }
    const int max_level = o.compression == RootCompression::kZlib   ? 9
                          : o.compression == RootCompression::kLz4  ? 12
                          : o.compression == RootCompression::kZstd ? 22
                                                                    : 9;
    if (o.compression != RootCompression::kNone &&
        (o.compression_level < 1 || o.compression_level > max_level)) {
        fail(fmt::format("compression level {} is out of range; use 1..{} for this codec",
                         o.compression_level, max_level));
    }
    if (o.entries_per_basket == 0 || o.entries_per_basket > kMaxEntriesPerBasket) {
        fail(fmt::format("entries_per_basket {} is out of range; use 1..{}", o.entries_per_basket,
                         kMaxEntriesPerBasket));
    }
}

std::vector<std::string> written_names(const Schema& schema, bool always_write_weight) {
    std::vector<std::string> names = schema.batch_column_names();
    if (!schema.has_weight() && !always_write_weight) {
        names.pop_back();  // the weight column comes last
    }
    return names;
}

struct BranchState {
    std::string name;
    std::vector<std::uint8_t> staged;  // big-endian values of the pending basket
    std::vector<std::uint8_t> packed;  // ... compressed, when `compressed`
    bool compressed = false;
    std::vector<std::int32_t> basket_bytes;
    std::vector<std::int64_t> basket_entry;
    std::vector<std::int64_t> basket_seek;
    std::int64_t tot_bytes = 0;
    std::int64_t zip_bytes = 0;
};

}  // namespace

struct EventRootWriter::Impl {
    std::vector<std::string> names;
    RootWriteOptions options;
    std::size_t item = 8;  // bytes per value
    std::string file_name;
    AtomicFile file;
    std::vector<BranchState> branches;
    std::size_t pending = 0;
    std::uint64_t entries = 0;
    std::uint32_t datime = datime_now();
    std::array<std::uint8_t, 16> uuid{};
    std::size_t name_bytes = 0;  // fNbytesName
    std::vector<std::uint8_t> packed;
    bool closed = false;

    Impl(std::vector<std::string> columns, std::string path, const RootWriteOptions& o)
        : names(std::move(columns)), options(o), item(o.precision == ColumnType::kFloat32 ? 4 : 8),
          file_name(std::filesystem::path(path).filename().string()), file(open(path)) {
        for (const std::string& n : names) {
            const std::size_t keylen = key_length(true, "TBasket", n, options.tree) + kBasketHeader;
            if (keylen > kMaxKeyLength) {
                throw DataError(fmt::format(
                    "cannot write ROOT file '{}': branch '{}' of tree '{}' needs a basket key of "
                    "{} bytes, more than ROOT's {}; use a shorter tree name",
                    path, n.substr(0, 64), options.tree.substr(0, 64), keylen, kMaxKeyLength));
            }
            BranchState b;
            b.name = n;
            b.staged.resize(options.entries_per_basket * item);
            branches.push_back(std::move(b));
        }
        std::random_device random;
        for (std::uint8_t& byte : uuid) {
            byte = static_cast<std::uint8_t>(random());
        }
        write_start();
    }

    static std::string open(const std::string& path) {
        const std::filesystem::path target(path);
        const std::filesystem::path dir =
            target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
        std::error_code ec;
        if (!std::filesystem::is_directory(dir, ec)) {
            throw DataError(fmt::format("cannot write ROOT file '{}': directory '{}' does not "
                                        "exist; create it or choose another path",
                                        path, dir.string()));
        }
        return path;
    }

    // The header placeholder, the TFile key with its name and an empty directory record.
    void write_start() {
        const std::size_t keylen = key_length(false, "TFile", file_name, "");
        name_bytes = keylen + string_bytes(file_name.size()) + string_bytes(0);
        const std::size_t objlen = name_bytes - keylen + kDirectoryRecord;
        OutBuffer out;
        out.zeros(kBegin);
        write_key(out, {.nbytes = static_cast<std::int64_t>(keylen + objlen),
                        .objlen = static_cast<std::int32_t>(objlen),
                        .datime = datime,
                        .keylen = keylen,
                        .cycle = 1,
                        .seek = static_cast<std::int64_t>(kBegin),
                        .parent = 0,
                        .big = false,
                        .class_name = "TFile",
                        .name = file_name,
                        .title = ""});
        out.str(file_name);
        out.str("");
        out.zeros(kDirectoryRecord);
        file.write(out.bytes());
    }

    void append(const EventBatch& batch) {
        std::vector<std::span<const double>> columns;
        columns.reserve(names.size());
        for (std::size_t i = 0; i < names.size(); ++i) {
            columns.push_back(batch.column_at(i));
        }
        std::size_t done = 0;
        while (done < batch.size()) {
            const std::size_t take =
                std::min(batch.size() - done, options.entries_per_basket - pending);
            for (std::size_t c = 0; c < columns.size(); ++c) {
                stage(branches[c].staged.data() + pending * item, columns[c].subspan(done, take));
            }
            pending += take;
            done += take;
            if (pending == options.entries_per_basket) {
                flush();
            }
        }
    }

    void stage(std::uint8_t* out, std::span<const double> values) const {
        if (item == 8) {
            for (const double v : values) {
                std::uint64_t bits = 0;
                std::memcpy(&bits, &v, 8);
                bits = __builtin_bswap64(bits);
                std::memcpy(out, &bits, 8);
                out += 8;
            }
        } else {
            for (const double v : values) {
                const auto f = static_cast<float>(v);
                std::uint32_t bits = 0;
                std::memcpy(&bits, &f, 4);
                bits = __builtin_bswap32(bits);
                std::memcpy(out, &bits, 4);
                out += 4;
            }
        }
    }

    // Compresses every branch's pending basket into its `packed` buffer, on several threads
    // when there are several branches (compression is the writer's bottleneck: zlib runs at
    // about 80 MB/s per core).
    void compress_pending() {
        const std::size_t n = branches.size();
        std::size_t threads = options.threads != 0
                                  ? options.threads
                                  : std::max<std::size_t>(1, std::thread::hardware_concurrency());
        threads = std::min(threads, n);
        std::atomic<std::size_t> next{0};
        std::exception_ptr failure;
        std::mutex failure_mutex;
        const auto work = [&] {
            try {
                for (std::size_t b = next++; b < n; b = next++) {
                    BranchState& branch = branches[b];
                    const std::span<const std::uint8_t> data(branch.staged.data(), pending * item);
                    branch.compressed = root::compress_object(
                        data, options.compression, options.compression_level, branch.packed);
                }
            } catch (...) {
                const std::lock_guard lock(failure_mutex);
                failure = std::current_exception();
            }
        };
        if (threads <= 1 || options.compression == RootCompression::kNone) {
            work();
        } else {
            std::vector<std::jthread> pool;
            pool.reserve(threads - 1);
            for (std::size_t t = 1; t < threads; ++t) {
                pool.emplace_back(work);
            }
            work();
        }  // the jthreads join here
        if (failure) {
            std::rethrow_exception(failure);
        }
    }

    // Writes one basket per branch (all ending at the same entry: one cluster).
    void flush() {
        if (pending == 0) {
            return;
        }
        compress_pending();
        OutBuffer head;
        for (BranchState& b : branches) {
            const std::span<const std::uint8_t> data(b.staged.data(), pending * item);
            const std::span<const std::uint8_t> stored =
                b.compressed ? std::span<const std::uint8_t>(b.packed) : data;
            const std::size_t keylen =
                key_length(true, "TBasket", b.name, options.tree) + kBasketHeader;
            const auto seek = static_cast<std::int64_t>(file.offset());
            const auto nbytes = static_cast<std::int64_t>(keylen + stored.size());
            head.clear();
            // uproot and ROOT mark baskets as cycle 0 of the branch's name, titled by the tree.
            write_key(head, {.nbytes = nbytes,
                             .objlen = static_cast<std::int32_t>(data.size()),
                             .datime = datime,
                             .keylen = keylen,
                             .cycle = 0,
                             .seek = seek,
                             .parent = static_cast<std::int64_t>(kBegin),
                             .big = true,
                             .class_name = "TBasket",
                             .name = b.name,
                             .title = options.tree});
            head.i16(3);                                                // TBasket version
            head.i32(32000);                                            // fBufferSize
            head.i32(static_cast<std::int32_t>(item));                  // fNevBufSize
            head.i32(static_cast<std::int32_t>(pending));               // fNevBuf
            head.i32(static_cast<std::int32_t>(keylen + data.size()));  // fLast
            head.u8(0);  // no entry offsets: fixed-size values
            file.write(head.bytes());
            file.write(stored);
            b.basket_bytes.push_back(static_cast<std::int32_t>(nbytes));
            b.basket_entry.push_back(static_cast<std::int64_t>(entries));
            b.basket_seek.push_back(seek);
            b.tot_bytes += static_cast<std::int64_t>(keylen + data.size());
            b.zip_bytes += nbytes;
        }
        entries += pending;
        pending = 0;
    }

    // The streamed TTree (the object after a key of `keylen` bytes: object references count
    // from the key's start).
    [[nodiscard]] OutBuffer tree_object(std::size_t keylen) const;

    // Writes `object` under a new 64-bit key at the end of the file; returns the key's header.
    KeyHeader write_object(std::string_view class_name, std::string_view name,
                           std::string_view title, std::span<const std::uint8_t> object) {
        const std::size_t keylen = key_length(true, class_name, name, title);
        const bool compressed =
            root::compress_object(object, options.compression, options.compression_level, packed);
        const std::span<const std::uint8_t> stored =
            compressed ? std::span<const std::uint8_t>(packed) : object;
        const KeyHeader key{.nbytes = static_cast<std::int64_t>(keylen + stored.size()),
                            .objlen = static_cast<std::int32_t>(object.size()),
                            .datime = datime,
                            .keylen = keylen,
                            .cycle = 1,
                            .seek = static_cast<std::int64_t>(file.offset()),
                            .parent = static_cast<std::int64_t>(kBegin),
                            .big = true,
                            .class_name = class_name,
                            .name = name,
                            .title = title};
        OutBuffer head;
        write_key(head, key);
        file.write(head.bytes());
        file.write(stored);
        return key;
    }

    void finish();
};

OutBuffer EventRootWriter::Impl::tree_object(std::size_t keylen) const {
    const bool is_float = item == 4;
    std::int64_t tot_bytes = 0;
    std::int64_t zip_bytes = 0;
    for (const BranchState& b : branches) {
        tot_bytes += b.tot_bytes;
        zip_bytes += b.zip_bytes;
    }
    const auto n_entries = static_cast<std::int64_t>(entries);
    OutBuffer t;
    const std::size_t tree = t.begin(20);
    t.tnamed(options.tree, "");
    std::size_t at = t.begin(2);  // TAttLine: ROOT's defaults
    t.i16(602);
    t.i16(1);
    t.i16(1);
    t.end(at);
    at = t.begin(2);  // TAttFill
    t.i16(0);
    t.i16(1001);
    t.end(at);
    at = t.begin(2);  // TAttMarker
    t.i16(1);
    t.i16(1);
    t.f32(1.0F);
    t.end(at);
    t.i64(n_entries);
    t.i64(tot_bytes);
    t.i64(zip_bytes);
    t.i64(zip_bytes);      // fSavedBytes
    t.i64(0);              // fFlushedBytes
    t.f64(1.0);            // fWeight
    t.i32(0);              // fTimerInterval
    t.i32(25);             // fScanField
    t.i32(0);              // fUpdate
    t.i32(1000);           // fDefaultEntryOffsetLen
    t.i32(0);              // fNClusterRange: one range, of fAutoFlush entries per cluster
    t.i64(1000000000000);  // fMaxEntries
    t.i64(1000000000000);  // fMaxEntryLoop
    t.i64(0);              // fMaxVirtualSize
    t.i64(-300000000);     // fAutoSave
    t.i64(static_cast<std::int64_t>(options.entries_per_basket));  // fAutoFlush
    t.i64(1000000);                                                // fEstimate
    t.u8(0);                                                       // fClusterRangeEnd: none
    t.u8(0);                                                       // fClusterSize: none
    const auto io_features = [&t] {
        t.u32(root::kByteCountMask | 7U);
        t.u16(0);  // a versionless class: its checksum follows
        t.u32(root::class_checksum("ROOT::TIOFeatures"));
        t.u8(0);
    };
    const auto empty_array = [&t] {
        const std::size_t a = t.begin(3);
        t.tobject();
        t.str("");
        t.i32(0);
        t.i32(0);
        t.end(a);
    };
    io_features();
    const std::size_t list = t.begin(3);  // fBranches
    t.tobject();
    t.str("");
    t.i32(static_cast<std::int32_t>(branches.size()));
    t.i32(0);
    std::vector<std::uint32_t> leaf_refs;
    const auto baskets_max = [](const BranchState& b) {
        return static_cast<std::int32_t>(b.basket_seek.size() + 1);
    };
    for (const BranchState& b : branches) {
        const std::size_t any = t.begin_any("TBranch");
        const std::size_t br = t.begin(13);
        t.tnamed(b.name, b.name + (is_float ? "/F" : "/D"), root::kObjectBits | 0x00400000U);
        at = t.begin(2);  // TAttFill
        t.i16(0);
        t.i16(1001);
        t.end(at);
        // fCompress 0 as uproot writes: readers tell a compressed basket by its sizes.
        t.i32(0);
        t.i32(32000);                                            // fBasketSize
        t.i32(0);                                                // fEntryOffsetLen
        t.i32(static_cast<std::int32_t>(b.basket_seek.size()));  // fWriteBasket
        t.i64(n_entries);                                        // fEntryNumber
        io_features();
        t.i32(0);  // fOffset
        t.i32(baskets_max(b));
        t.i32(0);  // fSplitLevel
        t.i64(n_entries);
        t.i64(0);  // fFirstEntry
        t.i64(b.tot_bytes);
        t.i64(b.zip_bytes);
        empty_array();  // fBranches
        const std::size_t leaves = t.begin(3);
        t.tobject();
        t.str("");
        t.i32(1);
        t.i32(0);
        leaf_refs.push_back(static_cast<std::uint32_t>(keylen + t.size() + 2));
        const std::size_t leaf_any = t.begin_any(is_float ? "TLeafF" : "TLeafD");
        const std::size_t leaf = t.begin(1);
        const std::size_t leaf_base = t.begin(2);
        t.tnamed(b.name, b.name);
        t.i32(1);                                // fLen
        t.i32(static_cast<std::int32_t>(item));  // fLenType
        t.i32(0);                                // fOffset
        t.u8(0);                                 // fIsRange
        t.u8(0);                                 // fIsUnsigned
        t.u32(0);                                // fLeafCount: none
        t.end(leaf_base);
        if (is_float) {
            t.f32(0.0F);
            t.f32(0.0F);
        } else {
            t.f64(0.0);
            t.f64(0.0);
        }
        t.end(leaf);
        t.end(leaf_any);
        t.end(leaves);
        empty_array();  // fBaskets: none kept in memory
        const auto slots = static_cast<std::size_t>(baskets_max(b));
        t.u8(1);
        for (std::size_t i = 0; i < slots; ++i) {
            t.i32(i < b.basket_bytes.size() ? b.basket_bytes[i] : 0);
        }
        t.u8(1);
        for (std::size_t i = 0; i < slots; ++i) {
            t.i64(i < b.basket_entry.size() ? b.basket_entry[i] : n_entries);
        }
        t.u8(1);
        for (std::size_t i = 0; i < slots; ++i) {
            t.i64(i < b.basket_seek.size() ? b.basket_seek[i] : 0);
        }
        t.str("");  // fFileName: this file
        t.end(br);
        t.end(any);
    }
    t.end(list);
    const std::size_t leaves = t.begin(3);  // fLeaves: references to the branches' leaves
    t.tobject();
    t.str("");
    t.i32(static_cast<std::int32_t>(leaf_refs.size()));
    t.i32(0);
    for (const std::uint32_t ref : leaf_refs) {
        t.u32(ref);
    }
    t.end(leaves);
    // fAliases, fIndexValues (empty), fIndex (empty), fTreeIndex, fFriends, fUserInfo,
    // fBranchRef: null pointers and empty arrays.
    t.zeros(28);
    t.end(tree);
    return t;
}

void EventRootWriter::Impl::finish() {
    flush();
    const std::size_t tree_keylen = key_length(true, "TTree", options.tree, "");
    const OutBuffer tree = tree_object(tree_keylen);
    const KeyHeader tree_key = write_object("TTree", options.tree, "", tree.bytes());
    const std::vector<std::uint8_t> streamers = root::streamer_info_list();
    const KeyHeader info_key =
        write_object("TList", "StreamerInfo", "Doubly linked list", streamers);

    // The top directory's keys list (stored as is, as ROOT writes it).
    OutBuffer keys;
    keys.i32(1);
    write_key(keys, tree_key);
    const std::size_t list_keylen = key_length(true, "TFile", file_name, "");
    const auto keys_seek = static_cast<std::int64_t>(file.offset());
    const auto keys_nbytes = static_cast<std::int64_t>(list_keylen + keys.size());
    OutBuffer out;
    write_key(out, {.nbytes = keys_nbytes,
                    .objlen = static_cast<std::int32_t>(keys.size()),
                    .datime = datime,
                    .keylen = list_keylen,
                    .cycle = 1,
                    .seek = keys_seek,
                    .parent = static_cast<std::int64_t>(kBegin),
                    .big = true,
                    .class_name = "TFile",
                    .name = file_name,
                    .title = ""});
    out.raw(keys.bytes());
    file.write(out.bytes());

    // The free segments record: one free segment from the end of the file on.
    const auto free_seek = static_cast<std::int64_t>(file.offset());
    const bool big = file.offset() + list_keylen + 32 > kBigFileStart;
    const std::size_t free_objlen = big ? 18 : 10;
    const auto free_nbytes = static_cast<std::int64_t>(list_keylen + free_objlen);
    const std::int64_t end = free_seek + free_nbytes;
    out.clear();
    write_key(out, {.nbytes = free_nbytes,
                    .objlen = static_cast<std::int32_t>(free_objlen),
                    .datime = datime,
                    .keylen = list_keylen,
                    .cycle = 1,
                    .seek = free_seek,
                    .parent = static_cast<std::int64_t>(kBegin),
                    .big = true,
                    .class_name = "TFile",
                    .name = file_name,
                    .title = ""});
    if (big) {
        out.u16(1001);
        out.i64(end);
        out.i64(std::numeric_limits<std::int64_t>::max() / 4);
    } else {
        out.u16(1);
        out.i32(static_cast<std::int32_t>(end));
        out.i32(static_cast<std::int32_t>(kBigFileStart));
    }
    file.write(out.bytes());

    // The header.
    out.clear();
    const auto seek = [&out, big](std::int64_t v) {
        big ? out.i64(v) : out.i32(static_cast<std::int32_t>(v));
    };
    out.raw(kMagic);
    out.i32(big ? kBigFileVersion : kFileVersion);
    out.i32(static_cast<std::int32_t>(kBegin));
    seek(end);
    seek(free_seek);
    out.i32(static_cast<std::int32_t>(free_nbytes));
    out.i32(1);  // nfree
    out.i32(static_cast<std::int32_t>(name_bytes));
    out.u8(big ? 8 : 4);  // fUnits
    out.i32(compression_code(options.compression, options.compression_level));
    seek(info_key.seek);
    out.i32(static_cast<std::int32_t>(info_key.nbytes));
    out.u16(1);  // UUID version
    out.raw(uuid);
    file.write_at(0, out.bytes());

    // The top directory's record, after the TFile key and its name.
    out.clear();
    out.u16(big ? 1005 : 5);
    out.u32(datime);  // fDatimeC
    out.u32(datime);  // fDatimeM
    out.i32(static_cast<std::int32_t>(keys_nbytes));
    out.i32(static_cast<std::int32_t>(name_bytes));
    seek(static_cast<std::int64_t>(kBegin));  // fSeekDir
    seek(0);                                  // fSeekParent
    seek(keys_seek);
    out.u16(1);
    out.raw(uuid);
    out.zeros(kDirectoryRecord - out.size());  // the small layout's reserve for 8-byte seeks
    file.write_at(kBegin + name_bytes, out.bytes());
    file.commit();
}

EventRootWriter::EventRootWriter(const Schema& schema, std::string path,
                                 const RootWriteOptions& options) {
    check_options(path, options);
    std::vector<std::string> names = written_names(schema, options.always_write_weight);
    try {
        impl_ = std::make_unique<Impl>(std::move(names), std::move(path), options);
    } catch (const DataError& error) {
        const std::string message = error.what();
        if (message.find("temporary") != std::string::npos) {
            throw DataError(message + "; choose a writable directory");
        }
        throw;
    }
}

EventRootWriter::EventRootWriter(EventRootWriter&&) noexcept = default;
EventRootWriter& EventRootWriter::operator=(EventRootWriter&&) noexcept = default;
EventRootWriter::~EventRootWriter() = default;

void EventRootWriter::write(const EventBatch& batch) {
    if (!impl_ || impl_->closed) {
        throw DataError("cannot append to a ROOT file that is closed");
    }
    const std::vector<std::string> names = batch.schema().batch_column_names();
    if (names.size() < impl_->names.size() ||
        !std::equal(impl_->names.begin(), impl_->names.end(), names.begin())) {
        throw DataError(fmt::format("cannot append a batch with columns [{}] to a ROOT tree of "
                                    "[{}]",
                                    fmt::join(names, ", "), fmt::join(impl_->names, ", ")));
    }
    impl_->append(batch);
}

std::uint64_t EventRootWriter::entries() const noexcept {
    return impl_ ? impl_->entries + impl_->pending : 0;
}

void EventRootWriter::close() {
    if (!impl_ || impl_->closed) {
        throw DataError("cannot close a ROOT file twice");
    }
    impl_->closed = true;
    impl_->finish();
}

void write_root(const EventData& events, const std::string& path, const RootWriteOptions& options) {
    EventRootWriter writer(events.schema(), path, options);
    events.for_each_batch({}, [&](const EventBatch& batch, std::uint64_t) { writer.write(batch); });
    writer.close();
}

}  // namespace laddu::data
