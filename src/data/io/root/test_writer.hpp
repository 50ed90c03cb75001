// A minimal ROOT file writer for the tests: one TTree (class version 20) of flat double and
// float branches in the top directory, baskets stored as is or zlib-compressed. It writes
// exactly the members the reader walks, so tests can also damage any one of them.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <zlib.h>

namespace laddu::data::root::testing {

using Bytes = std::vector<std::uint8_t>;

/// Big-endian writes with byte-count headers patched in when an object ends.
class Buffer {
public:
    Bytes bytes;

    void u8(std::uint8_t v) { bytes.push_back(v); }

    void be(std::uint64_t v, int n) {
        for (int i = n - 1; i >= 0; --i) {
            bytes.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
        }
    }

    void i16(std::int64_t v) { be(static_cast<std::uint64_t>(v), 2); }

    void i32(std::int64_t v) { be(static_cast<std::uint64_t>(v), 4); }

    void i64(std::int64_t v) { be(static_cast<std::uint64_t>(v), 8); }

    void f64(double v) {
        std::uint64_t bits = 0;
        std::memcpy(&bits, &v, 8);
        be(bits, 8);
    }

    void f32(float v) {
        std::uint32_t bits = 0;
        std::memcpy(&bits, &v, 4);
        be(bits, 4);
    }

    void str(const std::string& s) {
        u8(static_cast<std::uint8_t>(s.size()));
        bytes.insert(bytes.end(), s.begin(), s.end());
    }

    void cstr(const std::string& s) {
        bytes.insert(bytes.end(), s.begin(), s.end());
        u8(0);
    }

    /// Starts an object: a byte count (patched by end()) and the version.
    std::size_t begin(int version) {
        const std::size_t at = bytes.size();
        i32(0);
        i16(version);
        return at;
    }

    void end(std::size_t at) {
        const auto count = static_cast<std::uint32_t>(bytes.size() - at - 4) | 0x40000000U;
        for (int i = 0; i < 4; ++i) {
            bytes[at + static_cast<std::size_t>(i)] =
                static_cast<std::uint8_t>(count >> (8 * (3 - i)));
        }
    }

    void tobject() {
        i16(1);
        i32(0);
        i32(0x03000000);
    }

    void tnamed(const std::string& name, const std::string& title) {
        const std::size_t at = begin(1);
        tobject();
        str(name);
        str(title);
        end(at);
    }

    void skipped(int version, std::size_t payload) {
        const std::size_t at = begin(version);
        bytes.insert(bytes.end(), payload, 0);
        end(at);
    }
};

/// One branch: its name, float (4-byte) or double values, and the entries per basket (0: the
/// file's).
struct TestBranch {
    std::string name;
    bool is_float = false;
    std::vector<double> values;
    std::size_t per_basket = 0;
};

/// How to write the file.
struct WriteOptions {
    bool zlib = false;        ///< zlib-compressed baskets (else stored as is)
    bool big = false;         ///< the > 2 GB layout: 8-byte offsets in header, directory, keys
    int tree_version = 20;    ///< TTree class version
    int branch_version = 13;  ///< TBranch class version
    int unwritten = 0;        ///< baskets left out of fWriteBasket (as if embedded)
    bool leaf_list = false;   ///< give the first branch a second leaf
};

/// Where the writer put things, for tests that damage them.
struct Layout {
    std::size_t tree_key = 0;      ///< file offset of the TTree's key
    std::size_t tree_data = 0;     ///< file offset of the TTree object
    std::size_t first_basket = 0;  ///< file offset of the first basket's key
    std::size_t keys_list = 0;
};

inline Bytes key_bytes(std::int64_t nbytes, std::int64_t objlen, std::int64_t keylen,
                       std::int64_t seek, const std::string& cls, const std::string& name,
                       bool big) {
    Buffer k;
    k.i32(nbytes);
    k.i16(big ? 1004 : 4);
    k.i32(objlen);
    k.i32(0);
    k.i16(keylen);
    k.i16(1);
    big ? k.i64(seek) : k.i32(seek);
    big ? k.i64(100) : k.i32(100);
    k.str(cls);
    k.str(name);
    k.str("");
    return k.bytes;
}

inline std::int64_t key_length(const std::string& cls, const std::string& name, bool big) {
    return (big ? 34 : 26) + 3 + static_cast<std::int64_t>(cls.size() + name.size());
}

/// The file bytes: a TTree "events" with `branches` (equal lengths), baskets of `per_basket`
/// entries (unless the branch says otherwise).
inline Bytes write_tree(const std::vector<TestBranch>& branches, std::size_t per_basket,
                        const WriteOptions& options = {}, Layout* layout = nullptr) {
    const bool big = options.big;
    Buffer file;
    file.bytes.assign(4, 0);
    std::memcpy(file.bytes.data(), "root", 4);
    file.i32(big ? 1062400 : 62400);
    file.i32(100);                   // fBEGIN
    file.bytes.resize(100 + 10, 0);  // fEND .. UUID and the TFile key, never read
    // fNbytesName follows fEND, fSeekFree (4 or 8 bytes each), fNbytesFree and nfree.
    file.bytes[big ? 39 : 31] = 10;
    const std::size_t directory = file.bytes.size();
    file.bytes.resize(directory + 42, 0);
    file.bytes[directory] = big ? 0x03 : 0;  // TDirectory version 1005 or 5
    file.bytes[directory + 1] = big ? 0xED : 5;

    const std::size_t entries = branches.front().values.size();
    std::vector<std::vector<std::int64_t>> seeks(branches.size());
    std::vector<std::vector<std::int64_t>> sizes(branches.size());
    std::vector<std::vector<std::int64_t>> starts(branches.size());
    for (std::size_t b = 0; b < branches.size(); ++b) {
        const std::size_t step = branches[b].per_basket != 0 ? branches[b].per_basket : per_basket;
        for (std::size_t first = 0; first < entries; first += step) {
            starts[b].push_back(static_cast<std::int64_t>(first));
        }
        for (const std::int64_t first : starts[b]) {
            const std::size_t n = std::min(step, entries - static_cast<std::size_t>(first));
            Buffer data;
            for (std::size_t i = 0; i < n; ++i) {
                const double v = branches[b].values[static_cast<std::size_t>(first) + i];
                branches[b].is_float ? data.f32(static_cast<float>(v)) : data.f64(v);
            }
            Bytes stored = data.bytes;
            if (options.zlib) {
                uLongf size = compressBound(static_cast<uLong>(data.bytes.size()));
                Bytes packed(size);
                compress(packed.data(), &size, data.bytes.data(), data.bytes.size());
                packed.resize(size);
                Buffer block;
                block.bytes = {'Z', 'L', 8};
                for (const std::size_t s : {packed.size(), data.bytes.size()}) {
                    for (int i = 0; i < 3; ++i) {
                        block.u8(static_cast<std::uint8_t>(s >> (8 * i)));
                    }
                }
                block.bytes.insert(block.bytes.end(), packed.begin(), packed.end());
                stored = block.bytes;
            }
            const std::int64_t keylen = key_length("TBasket", branches[b].name, big) + 19;
            const auto seek = static_cast<std::int64_t>(file.bytes.size());
            const std::int64_t nbytes = keylen + static_cast<std::int64_t>(stored.size());
            if (layout != nullptr && layout->first_basket == 0) {
                layout->first_basket = file.bytes.size();
            }
            Bytes key = key_bytes(nbytes, static_cast<std::int64_t>(data.bytes.size()), keylen,
                                  seek, "TBasket", branches[b].name, big);
            file.bytes.insert(file.bytes.end(), key.begin(), key.end());
            file.i16(3);
            file.i32(32000);
            file.i32(branches[b].is_float ? 4 : 8);
            file.i32(static_cast<std::int64_t>(n));
            file.i32(keylen + static_cast<std::int64_t>(data.bytes.size()));
            file.u8(0);
            file.bytes.insert(file.bytes.end(), stored.begin(), stored.end());
            seeks[b].push_back(seek);
            sizes[b].push_back(nbytes);
        }
    }

    const std::int64_t tree_keylen = key_length("TTree", "events", big);
    Buffer t;
    const std::size_t tree = t.begin(options.tree_version);
    t.tnamed("events", "");
    t.skipped(2, 6);
    t.skipped(2, 4);
    t.skipped(2, 8);
    t.i64(static_cast<std::int64_t>(entries));
    t.bytes.insert(t.bytes.end(), 56, 0);
    t.i32(0);  // fNClusterRange
    t.bytes.insert(t.bytes.end(), 48, 0);
    t.u8(1);
    t.u8(1);
    t.skipped(1, 1);  // TIOFeatures
    const std::size_t array = t.begin(3);
    t.tobject();
    t.str("");
    t.i32(static_cast<std::int64_t>(branches.size()));
    t.i32(0);
    std::size_t branch_tag = 0;
    std::size_t double_tag = 0;
    std::size_t float_tag = 0;
    auto tag = [&](std::size_t& seen, const std::string& cls) {
        if (seen == 0) {
            seen = t.bytes.size() + static_cast<std::size_t>(tree_keylen) + 2;
            t.i32(-1);
            t.cstr(cls);
        } else {
            t.be(0x80000000U | seen, 4);
        }
    };
    for (std::size_t b = 0; b < branches.size(); ++b) {
        const auto baskets = static_cast<std::int64_t>(starts[b].size());
        const std::size_t any = t.bytes.size();
        t.i32(0);
        tag(branch_tag, "TBranch");
        const std::size_t br = t.begin(options.branch_version);
        t.tnamed(branches[b].name, branches[b].name + (branches[b].is_float ? "/F" : "/D"));
        t.skipped(2, 4);
        t.i32(0);
        t.i32(32000);
        t.i32(0);
        t.i32(baskets - options.unwritten);  // fWriteBasket
        t.i64(static_cast<std::int64_t>(entries));
        t.skipped(1, 1);
        t.i32(0);
        t.i32(baskets + 1);  // fMaxBaskets
        t.i32(0);
        t.i64(static_cast<std::int64_t>(entries));
        t.i64(0);
        t.i64(0);
        t.i64(0);
        for (int list = 0; list < 3; ++list) {
            const std::size_t a = t.begin(3);
            t.tobject();
            t.str("");
            const int leaves = options.leaf_list && b == 0 ? 2 : 1;
            t.i32(list == 1 ? leaves : 0);
            t.i32(0);
            for (int l = 0; list == 1 && l < leaves; ++l) {
                const std::size_t leaf_any = t.bytes.size();
                t.i32(0);
                tag(branches[b].is_float ? float_tag : double_tag,
                    branches[b].is_float ? "TLeafF" : "TLeafD");
                const std::size_t leaf = t.begin(1);
                const std::size_t base = t.begin(2);
                t.tnamed(branches[b].name, branches[b].name);
                t.i32(1);
                t.i32(branches[b].is_float ? 4 : 8);
                t.i32(0);
                t.u8(0);
                t.u8(0);
                t.i32(0);  // fLeafCount: null
                t.end(base);
                branches[b].is_float ? (t.f32(0), t.f32(0)) : (t.f64(0), t.f64(0));
                t.end(leaf);
                t.end(leaf_any);
            }
            t.end(a);
        }
        t.u8(1);
        for (const std::int64_t s : sizes[b]) {
            t.i32(s);
        }
        t.i32(0);
        t.u8(1);
        for (const std::int64_t s : starts[b]) {
            t.i64(s);
        }
        t.i64(static_cast<std::int64_t>(entries));
        t.u8(1);
        for (const std::int64_t s : seeks[b]) {
            t.i64(s);
        }
        t.i64(0);
        t.str("");
        t.end(br);
        t.end(any);
    }
    t.end(array);
    t.bytes.insert(t.bytes.end(), 16, 0);  // the rest of a TTree is never read
    t.end(tree);

    const auto tree_seek = static_cast<std::int64_t>(file.bytes.size());
    const Bytes tree_key = key_bytes(tree_keylen + static_cast<std::int64_t>(t.bytes.size()),
                                     static_cast<std::int64_t>(t.bytes.size()), tree_keylen,
                                     tree_seek, "TTree", "events", big);
    if (layout != nullptr) {
        layout->tree_key = file.bytes.size();
        layout->tree_data = file.bytes.size() + tree_key.size();
    }
    file.bytes.insert(file.bytes.end(), tree_key.begin(), tree_key.end());
    file.bytes.insert(file.bytes.end(), t.bytes.begin(), t.bytes.end());

    const std::size_t list = file.bytes.size();
    const Bytes list_key = key_bytes(0, 0, 0, static_cast<std::int64_t>(list), "TFile", "f", big);
    file.bytes.insert(file.bytes.end(), list_key.begin(), list_key.end());
    file.i32(1);
    file.bytes.insert(file.bytes.end(), tree_key.begin(), tree_key.end());
    if (layout != nullptr) {
        layout->keys_list = list;
    }
    // The directory record: fNbytesKeys at +10, fSeekKeys at +26 (or +34 with 8-byte offsets).
    Buffer dir;
    dir.i32(static_cast<std::int64_t>(file.bytes.size() - list));
    std::copy(dir.bytes.begin(), dir.bytes.end(),
              file.bytes.begin() + static_cast<std::ptrdiff_t>(directory + 10));
    dir.bytes.clear();
    big ? dir.i64(static_cast<std::int64_t>(list)) : dir.i32(static_cast<std::int64_t>(list));
    std::copy(dir.bytes.begin(), dir.bytes.end(),
              file.bytes.begin() + static_cast<std::ptrdiff_t>(directory + (big ? 34 : 26)));
    return file.bytes;
}

}  // namespace laddu::data::root::testing
