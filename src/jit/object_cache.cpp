#include "object_cache.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <system_error>
#include <unordered_set>
#include <utility>
#include <vector>

#include <llvm/ADT/ArrayRef.h>
#include <llvm/ADT/StringRef.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Support/xxhash.h>

#include <laddu/base/atomic_file.hpp>
#include <laddu/base/error.hpp>
#include <laddu/base/log.hpp>

#include <dlfcn.h>
#include <sys/stat.h>

namespace laddu::jit::detail {

namespace {

constexpr std::array<char, 8> kMagic = {'L', 'A', 'D', 'D', 'U', 'O', 'B', '2'};

// The fixed-size header before the object bytes; the checksum covers the header (with the
// checksum zeroed) and the object.
struct Header {
    std::array<char, 8> magic{};
    std::uint64_t object_bytes = 0;
    std::uint64_t instructions = 0;
    std::uint64_t vectorized = 0;
    std::uint64_t prefetched_streams = 0;
    std::array<std::uint8_t, 16> checksum{};
};

// XXH3's 128 bits, as bytes. A check against files cut short or damaged and a key against
// accidental collisions, which is all either needs (a process that can write the directory
// could write any object anyway), at about 20 GB/s: SHA-256 (0.36 GB/s here) over the keys'
// program texts and the objects would add 0.3 ms to a warm 10,000-event K-matrix preparation.
std::array<std::uint8_t, 16> digest(llvm::ArrayRef<std::uint8_t> bytes) {
    const llvm::XXH128_hash_t hash = llvm::xxh3_128bits(bytes);
    std::array<std::uint8_t, 16> out{};
    for (std::size_t i = 0; i < 8; ++i) {
        out[i] = static_cast<std::uint8_t>(hash.high64 >> (56U - 8U * i));
        out[8 + i] = static_cast<std::uint8_t>(hash.low64 >> (56U - 8U * i));
    }
    return out;
}

std::array<std::uint8_t, 16> checksum_of(Header header, llvm::ArrayRef<std::uint8_t> object) {
    header.checksum.fill(0);
    std::vector<std::uint8_t> bytes(sizeof(Header) + object.size());
    std::memcpy(bytes.data(), &header, sizeof(Header));
    std::copy(object.begin(), object.end(), bytes.begin() + sizeof(Header));
    return digest(bytes);
}

// Canonical path, size and modification time of the binary (executable or shared library) this
// code is in: a rebuilt laddu-cpp, whose lowering or pipeline may differ, has another identity.
std::string code_identity() {
    static const std::string identity = [] {
        Dl_info info{};
        // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): dladdr takes a void*
        if (dladdr(reinterpret_cast<void*>(&code_identity), &info) == 0 ||
            info.dli_fname == nullptr) {
            return std::string("unknown");
        }
        std::error_code error;
        const std::filesystem::path path = std::filesystem::canonical(info.dli_fname, error);
        struct stat st{};
        if (error || stat(path.c_str(), &st) != 0) {
            return std::string(info.dli_fname);
        }
        return path.string() + " " + std::to_string(st.st_size) + " " +
               std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec);
    }();
    return identity;
}

// Removes cached objects not written for kStaleDays (objects of earlier builds, which no key
// reaches any more, and of programs no longer run), and then the oldest-written ones beyond
// kMaxObjects (a day of rebuilds can leave thousands: every rebuild of laddu-cpp changes every
// key). An object still in use is compiled and written again the next time. A sweep reads every
// entry of the directory, so it runs at most once per process and directory, and only when the
// marker file kSweepMarker is missing or older than kSweepHours (the last sweep touched it).
constexpr int kStaleDays = 30;
constexpr int kSweepHours = 24;
constexpr char kSweepMarker[] = ".swept";

void remove_stale_objects(const std::string& directory) {
    static std::mutex mutex;
    static std::unordered_set<std::string> swept;
    {
        const std::lock_guard lock(mutex);
        if (!swept.insert(directory).second) {
            return;
        }
    }
    const auto now = std::filesystem::file_time_type::clock::now();
    const std::filesystem::path marker = std::filesystem::path(directory) / kSweepMarker;
    std::error_code error;
    const auto last_sweep = std::filesystem::last_write_time(marker, error);
    if (!error && now - last_sweep < std::chrono::hours(kSweepHours)) {
        return;
    }
    std::vector<std::pair<std::filesystem::file_time_type, std::filesystem::path>> kept;
    for (std::filesystem::directory_iterator it(directory, error), end; !error && it != end;
         it.increment(error)) {
        const std::filesystem::path& path = it->path();
        if (path.extension() != ".o") {
            continue;
        }
        std::error_code ignored;
        const auto written = std::filesystem::last_write_time(path, ignored);
        if (ignored) {
            continue;
        }
        if (now - written > std::chrono::hours(24 * kStaleDays)) {
            std::filesystem::remove(path, ignored);
        } else {
            kept.emplace_back(written, path);
        }
    }
    if (kept.size() > kMaxObjects) {
        const auto oldest_end =
            kept.begin() + static_cast<std::ptrdiff_t>(kept.size() - kMaxObjects);
        std::nth_element(kept.begin(), oldest_end, kept.end());
        for (auto it = kept.begin(); it != oldest_end; ++it) {
            std::error_code ignored;
            std::filesystem::remove(it->second, ignored);
        }
    }
    // The marker is written even when nothing was removed; a directory it cannot be written to
    // is swept again by the next process, as before there was a marker.
    std::ofstream(marker.string(), std::ios::trunc).flush();
    std::error_code ignored;
    std::filesystem::last_write_time(marker, now, ignored);
}

std::string hex(llvm::ArrayRef<std::uint8_t> bytes) {
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string out;
    out.reserve(2 * bytes.size());
    for (const std::uint8_t b : bytes) {
        out.push_back(kDigits[b >> 4U]);
        out.push_back(kDigits[b & 15U]);
    }
    return out;
}

std::string path_of(const std::string& directory, const std::string& key) {
    return directory + "/" + key + ".o";
}

}  // namespace

std::optional<std::string> object_cache_directory() {
    // NOLINTBEGIN(concurrency-mt-unsafe): read-only lookups of the environment
    if (const char* set = std::getenv("LADDU_JIT_CACHE")) {
        const std::string_view value(set);
        if (value.empty() || value == "off" || value == "0") {
            return std::nullopt;
        }
        return std::string(value);
    }
    if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg == '/') {
        return std::string(xdg) + "/laddu-cpp/jit";
    }
    if (const char* home = std::getenv("HOME"); home != nullptr && *home == '/') {
        return std::string(home) + "/.cache/laddu-cpp/jit";
    }
    // NOLINTEND(concurrency-mt-unsafe)
    return std::nullopt;
}

std::string object_key(std::string_view source, const TargetKey& target,
                       std::string_view pipeline) {
    std::string text;
    llvm::raw_string_ostream out(text);
    out << "laddu-cpp jit object\n"
        << LLVM_VERSION_STRING << "\n"
        << code_identity() << "\n"
        << target.triple << "\n"
        << target.cpu << "\n"
        << target.features << "\n"
        << target.opt_level << "\n"
        << pipeline << "\n";
    out.flush();
    text.append(source);
    // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): a byte view of the text
    return hex(digest({reinterpret_cast<const std::uint8_t*>(text.data()), text.size()}));
}

std::optional<CachedObject> load_object(const std::string& directory, const std::string& key) {
    std::ifstream in(path_of(directory, key), std::ios::binary);
    if (!in) {
        return std::nullopt;
    }
    Header header;
    // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): a byte view of the header
    if (!in.read(reinterpret_cast<char*>(&header), sizeof(Header)) || header.magic != kMagic ||
        header.object_bytes == 0 || header.object_bytes > (std::uint64_t{1} << 32U)) {
        return std::nullopt;
    }
    std::vector<std::uint8_t> object(header.object_bytes);
    // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): a byte view of the buffer
    if (!in.read(reinterpret_cast<char*>(object.data()),
                 static_cast<std::streamsize>(object.size())) ||
        in.peek() != std::ifstream::traits_type::eof() ||
        checksum_of(header, object) != header.checksum) {
        return std::nullopt;
    }
    CachedObject cached;
    cached.object = llvm::MemoryBuffer::getMemBufferCopy(
        llvm::StringRef(reinterpret_cast<const char*>(object.data()), object.size()), key + ".o");
    cached.facts =
        ModuleFacts{static_cast<std::size_t>(header.instructions), header.vectorized != 0,
                    static_cast<std::size_t>(header.prefetched_streams)};
    return cached;
}

void store_object(const std::string& directory, const std::string& key,
                  llvm::MemoryBufferRef object, const ModuleFacts& facts) {
    try {
        std::error_code error;
        std::filesystem::create_directories(directory, error);
        if (error) {
            throw DataError("cannot create " + directory + ": " + error.message());
        }
        const llvm::ArrayRef<std::uint8_t> bytes(
            reinterpret_cast<const std::uint8_t*>(object.getBufferStart()), object.getBufferSize());
        Header header;
        header.magic = kMagic;
        header.object_bytes = bytes.size();
        header.instructions = facts.instructions;
        header.vectorized = facts.vectorized ? 1 : 0;
        header.prefetched_streams = facts.prefetched_streams;
        header.checksum = checksum_of(header, bytes);
        remove_stale_objects(directory);
        AtomicFile file(path_of(directory, key));
        // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): a byte view of the header
        file.write(std::span(reinterpret_cast<const std::uint8_t*>(&header), sizeof(Header)));
        file.write(std::span(bytes.data(), bytes.size()));
        file.commit();
    } catch (const std::exception& e) {
        log_once(LogLevel::kWarn, "jit.object_cache",
                 std::string("jit: not caching compiled code: ") + e.what() +
                     " (set LADDU_JIT_CACHE to a writable directory, or to off)");
    }
}

}  // namespace laddu::jit::detail
