// The ROOT file header, TDirectory records and TKey lists (io/io/src/TFile.cxx, TDirectoryFile,
// TKey): small files use 4-byte offsets, files past 2 GB (version >= 1000000, key and directory
// versions > 1000) 8-byte ones.
#include "root_file.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <laddu/base/error.hpp>

#include "compression.hpp"
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace laddu::data::root {

namespace {

constexpr std::uint64_t kHeaderBytes = 64;
constexpr std::size_t kDirectoryBytes = 42;  // the big-file layout, the longer one
constexpr std::int64_t kMaxKeys = 1 << 24;
constexpr int kMaxDepth = 16;

}  // namespace

bool is_tree_class(const std::string& class_name) noexcept {
    return class_name == "TTree" || class_name == "TNtuple" || class_name == "TNtupleD";
}

Key read_key(Cursor& cursor) {
    Key key;
    key.nbytes = cursor.i32();
    key.version = cursor.i16();
    key.objlen = cursor.i32();
    cursor.skip(4);  // fDatime
    key.keylen = cursor.i16();
    key.cycle = cursor.i16();
    if (key.version > 1000) {
        key.seek_key = cursor.i64();
        cursor.skip(8);  // fSeekPdir
    } else {
        key.seek_key = cursor.i32();
        cursor.skip(4);
    }
    key.class_name = cursor.tstring();
    key.name = cursor.tstring();
    key.title = cursor.tstring();
    return key;
}

RootFile::RootFile(std::string path, int fd, std::uint64_t size)
    : path_(std::move(path)), fd_(fd), size_(size) {}

RootFile::~RootFile() {
    if (fd_ >= 0) {
        ::close(fd_);
    }
}

std::shared_ptr<const RootFile> RootFile::open(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        throw DataError(fmt::format("cannot open ROOT file '{}': {}", path, std::strerror(errno)));
    }
    struct stat info{};
    if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
        ::close(fd);
        throw DataError(fmt::format("'{}' is not a regular file", path));
    }
    // The constructor is private, so make_shared cannot reach it.
    std::shared_ptr<RootFile> file(
        new RootFile(path, fd, static_cast<std::uint64_t>(info.st_size)));
    const ErrorSite site{path, "the file header", true, 0};
    if (file->size_ < 4) {
        fail(site, 0, fmt::format("the file has only {} bytes", file->size_));
    }
    const std::vector<std::uint8_t> head =
        file->read_at(0, std::min(kHeaderBytes, file->size_), "the file header");
    Cursor cursor(head, site);
    const auto magic = cursor.bytes(4);
    if (std::memcmp(magic.data(), "root", 4) != 0) {
        fail(site, 0, "the file does not start with 'root' (not a ROOT file)");
    }
    const std::int32_t version = cursor.i32();
    const std::int32_t begin = cursor.i32();
    const bool big = version >= 1000000;
    const std::uint64_t end = big ? cursor.u64() : cursor.u32();
    cursor.skip(big ? 8 : 4);  // fSeekFree
    // fEND is where the writer stopped: a shorter file lost its end (a copy or a job that was
    // cut short), and even when the TTree happens to be readable its data may not be complete.
    if (end > file->size_) {
        fail(site, 12,
             fmt::format("the header says the file ends at byte {}, but it has {} bytes "
                         "(truncated)",
                         end, file->size_));
    }
    cursor.skip(8);  // fNbytesFree, nfree
    const std::int32_t nbytes_name = cursor.i32();
    if (begin <= 0 || nbytes_name <= 0 ||
        static_cast<std::uint64_t>(begin) + static_cast<std::uint64_t>(nbytes_name) >=
            file->size_) {
        fail(site, 8,
             fmt::format("fBEGIN {} + fNbytesName {} is outside the file of {} bytes", begin,
                         nbytes_name, file->size_));
    }
    file->keys_ = file->read_directory(static_cast<std::uint64_t>(begin) +
                                           static_cast<std::uint64_t>(nbytes_name),
                                       "the top directory");
    return file;
}

std::vector<std::uint8_t> RootFile::read_at(std::uint64_t offset, std::uint64_t size,
                                            const std::string& object) const {
    std::vector<std::uint8_t> out;
    read_into(offset, size, object, out);
    return out;
}

void RootFile::read_into(std::uint64_t offset, std::uint64_t size, const std::string& object,
                         std::vector<std::uint8_t>& out) const {
    if (offset > size_ || size > size_ - offset) {
        fail(ErrorSite{path_, object, true, 0}, offset,
             fmt::format("{} bytes from here run past the end of the file ({} bytes; "
                         "truncated?)",
                         size, size_));
    }
    out.resize(static_cast<std::size_t>(size));
    std::size_t done = 0;
    while (done < out.size()) {
        const ::ssize_t got =
            ::pread(fd_, out.data() + done, out.size() - done, static_cast<::off_t>(offset + done));
        if (got <= 0) {
            fail(ErrorSite{path_, object, true, 0}, offset + done,
                 got == 0 ? std::string("unexpected end of file")
                          : fmt::format("read error: {}", std::strerror(errno)));
        }
        done += static_cast<std::size_t>(got);
    }
}

std::vector<std::uint8_t> RootFile::object_data(const Key& key) const {
    const std::string object = fmt::format("{} '{}'", key.class_name, key.name);
    const ErrorSite key_site{path_, object, true, static_cast<std::uint64_t>(key.seek_key)};
    if (key.seek_key <= 0 || key.keylen <= 0 || key.nbytes < key.keylen || key.objlen < 0) {
        fail(key_site, 0,
             fmt::format("the key's sizes are invalid (fNbytes {}, fKeylen {}, fObjlen {}, "
                         "fSeekKey {})",
                         key.nbytes, key.keylen, key.objlen, key.seek_key));
    }
    const auto compressed = static_cast<std::uint64_t>(key.nbytes - key.keylen);
    const auto start =
        static_cast<std::uint64_t>(key.seek_key) + static_cast<std::uint64_t>(key.keylen);
    // Compression ratios past 1000 do not occur in event data; a larger claim is damage, and
    // refusing it bounds what a damaged key can make us allocate.
    if (static_cast<std::uint64_t>(key.objlen) > 1000 * compressed + 4096) {
        fail(key_site, 0,
             fmt::format("the key claims {} uncompressed bytes for {} stored ones", key.objlen,
                         compressed));
    }
    const std::vector<std::uint8_t> stored = read_at(start, compressed, object);
    return decompress(stored, static_cast<std::size_t>(key.objlen),
                      ErrorSite{path_, object, true, start});
}

std::vector<Key> RootFile::read_directory(std::uint64_t offset, const std::string& object) const {
    const ErrorSite site{path_, object, true, offset};
    const std::vector<std::uint8_t> record = read_at(
        offset, std::min<std::uint64_t>(kDirectoryBytes, size_ - std::min(offset, size_)), object);
    Cursor cursor(record, site);
    const std::int16_t version = cursor.i16();
    cursor.skip(8);  // fDatimeC, fDatimeM
    const std::int32_t nbytes_keys = cursor.i32();
    cursor.skip(4);  // fNbytesName
    std::int64_t seek_keys = 0;
    if (version > 1000) {
        cursor.skip(16);  // fSeekDir, fSeekParent
        seek_keys = cursor.i64();
    } else {
        cursor.skip(8);
        seek_keys = cursor.i32();
    }
    if (seek_keys == 0) {
        return {};
    }
    if (seek_keys < 0 || nbytes_keys <= 0 || static_cast<std::uint64_t>(seek_keys) >= size_ ||
        static_cast<std::uint64_t>(nbytes_keys) > size_ - static_cast<std::uint64_t>(seek_keys)) {
        fail(site, 0,
             fmt::format("the key list (fSeekKeys {}, fNbytesKeys {}) is outside the file of {} "
                         "bytes",
                         seek_keys, nbytes_keys, size_));
    }
    const std::string list_object = "the key list of " + object;
    const std::vector<std::uint8_t> list =
        read_at(static_cast<std::uint64_t>(seek_keys), static_cast<std::uint64_t>(nbytes_keys),
                list_object);
    const ErrorSite list_site{path_, list_object, true, static_cast<std::uint64_t>(seek_keys)};
    Cursor keys(list, list_site);
    (void)read_key(keys);  // the list's own key
    const std::int32_t count = keys.i32();
    if (count < 0 || count > kMaxKeys || static_cast<std::size_t>(count) > keys.remaining()) {
        keys.fail(fmt::format("the directory claims {} keys", count));
    }
    std::vector<Key> out;
    std::map<std::string, std::size_t> by_name;
    for (std::int32_t k = 0; k < count; ++k) {
        Key key = read_key(keys);
        // Several cycles of one name are snapshots of one object: the highest is the latest.
        const auto [at, fresh] = by_name.try_emplace(key.name, out.size());
        if (fresh) {
            out.push_back(std::move(key));
        } else if (key.cycle > out[at->second].cycle) {
            out[at->second] = std::move(key);
        }
    }
    return out;
}

std::vector<Key> RootFile::directory_keys(const Key& key) const {
    if (key.seek_key <= 0 || key.keylen <= 0) {
        fail(ErrorSite{path_, "directory '" + key.name + "'", true, 0}, 0,
             "the directory's key is invalid");
    }
    return read_directory(static_cast<std::uint64_t>(key.seek_key) +
                              static_cast<std::uint64_t>(key.keylen),
                          "directory '" + key.name + "'");
}

namespace {

// "events (TTree), dir (TDirectory)", or "nothing".
std::string key_names(const std::vector<Key>& keys) {
    std::vector<std::string> names;
    names.reserve(keys.size());
    for (const Key& key : keys) {
        names.push_back(fmt::format("{} ({})", key.name, key.class_name));
    }
    return names.empty() ? std::string("nothing") : fmt::format("{}", fmt::join(names, ", "));
}

}  // namespace

Key RootFile::find_tree(const std::string& path) const {
    if (path.empty()) {
        const auto found = std::find_if(keys_.begin(), keys_.end(), [](const Key& key) {
            return is_tree_class(key.class_name);
        });
        if (found == keys_.end()) {
            throw DataError(fmt::format("ROOT file '{}' has no TTree in its top directory (it "
                                        "has: {}); name one in a subdirectory with "
                                        "tree='dir/name' (an RNTuple cannot be read yet)",
                                        path_, key_names(keys_)));
        }
        return *found;
    }
    std::vector<Key> keys = keys_;
    std::string rest = path;
    std::string where = "the top directory";
    for (int depth = 0; depth < kMaxDepth; ++depth) {
        const std::size_t slash = rest.find('/');
        const bool last = slash == std::string::npos;
        const std::string name = rest.substr(0, slash);
        const auto found = std::find_if(keys.begin(), keys.end(), [&](const Key& key) {
            return key.name == name && (last ? is_tree_class(key.class_name)
                                             : key.class_name.rfind("TDirectory", 0) == 0);
        });
        if (found == keys.end()) {
            throw DataError(fmt::format("ROOT file '{}' has no {} '{}' in {} (it has: {})", path_,
                                        last ? "TTree" : "directory", name, where,
                                        key_names(keys)));
        }
        if (last) {
            return *found;
        }
        where = "directory '" + path.substr(0, path.size() - rest.size() + slash) + "'";
        keys = directory_keys(*found);
        rest = rest.substr(slash + 1);
    }
    throw DataError(
        fmt::format("ROOT file '{}': tree path '{}' is nested too deeply", path_, path));
}

}  // namespace laddu::data::root
