#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <string>
#include <system_error>
#include <unordered_set>

#include <fmt/format.h>

#include <laddu/base/atomic_file.hpp>
#include <laddu/base/error.hpp>

#include <fcntl.h>
#include <sys/types.h>
#include <unistd.h>

namespace laddu {

namespace {

std::string host_name() {
    char name[256] = {};
    if (::gethostname(name, sizeof(name) - 1) != 0 || name[0] == '\0') {
        return "localhost";
    }
    return name;
}

// Parses "<pid>-<n>" (the tail of a temporary's name); 0 when it is not of that form.
pid_t temporary_owner(std::string_view tail) {
    const std::size_t dash = tail.find('-');
    if (dash == std::string_view::npos || dash == 0 || dash > 9 || dash + 1 == tail.size()) {
        return 0;
    }
    const auto digits = [](std::string_view text) {
        return std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
    };
    if (!digits(tail.substr(0, dash)) || !digits(tail.substr(dash + 1))) {
        return 0;
    }
    long pid = 0;
    for (const char c : tail.substr(0, dash)) {
        pid = pid * 10 + (c - '0');
    }
    return static_cast<pid_t>(pid);
}

// Removes the temporaries `<target>.tmp-<host>-<pid>-<n>` of this host in `dir`, of any target,
// whose process no longer exists. A directory is read once per process, at its first
// AtomicFile: a listing costs time in proportion to the directory (the JIT object cache holds
// thousands of objects and writes one file per new kernel), and a temporary can turn stale only
// when its process dies, which the next process cleans up. Best effort: errors (an unreadable
// directory, a file removed meanwhile) are ignored.
void remove_stale_temporaries(const std::filesystem::path& dir, const std::string& marker) {
    static std::mutex mutex;
    static std::unordered_set<std::string> listed;
    std::error_code ec;
    const std::filesystem::path absolute = std::filesystem::absolute(dir, ec).lexically_normal();
    {
        const std::lock_guard lock(mutex);
        if (!listed.insert((ec ? dir : absolute).string()).second) {
            return;
        }
    }
    for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        const std::size_t at = name.rfind(marker);
        if (at == std::string::npos || at == 0) {
            continue;
        }
        const pid_t pid = temporary_owner(std::string_view(name).substr(at + marker.size()));
        if (pid > 0 && pid != ::getpid() && ::kill(pid, 0) != 0 && errno == ESRCH) {
            std::error_code ignored;
            std::filesystem::remove(it->path(), ignored);
        }
    }
}

}  // namespace

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)) {
    static std::atomic<unsigned> counter{0};
    const std::filesystem::path target(path_);
    remove_stale_temporaries(target.has_parent_path() ? target.parent_path()
                                                      : std::filesystem::path("."),
                             fmt::format(".tmp-{}-", host_name()));
    temp_ = fmt::format("{}.tmp-{}-{}-{}", path_, host_name(), static_cast<long>(::getpid()),
                        counter++);
    fd_ = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd_ < 0) {
        throw DataError(fmt::format("cannot write '{}': cannot create its temporary '{}': {}",
                                    path_, temp_, std::strerror(errno)));
    }
}

AtomicFile::~AtomicFile() {
    if (fd_ >= 0) {
        ::close(fd_);
    }
    if (!committed_) {
        ::unlink(temp_.c_str());
    }
}

void AtomicFile::write(std::span<const std::uint8_t> bytes) {
    if (fd_ < 0) {
        throw DataError(fmt::format("cannot write '{}': the file was already committed", path_));
    }
    std::size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::write(fd_, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            // A short write of 0 bytes has no errno; report it as a full device.
            const int error = n < 0 ? errno : ENOSPC;
            throw DataError(fmt::format("cannot write '{}': {} (after {} bytes; the file is left "
                                        "unchanged)",
                                        path_, std::strerror(error), offset_ + done));
        }
        done += static_cast<std::size_t>(n);
    }
    offset_ += bytes.size();
}

void AtomicFile::write_at(std::uint64_t offset, std::span<const std::uint8_t> bytes) {
    if (fd_ < 0) {
        throw DataError(fmt::format("cannot write '{}': the file was already committed", path_));
    }
    if (offset > offset_ || bytes.size() > offset_ - offset) {
        throw DataError(fmt::format("cannot write '{}': bytes [{}, {}) lie beyond the {} written",
                                    path_, offset, offset + bytes.size(), offset_));
    }
    std::size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::pwrite(fd_, bytes.data() + done, bytes.size() - done,
                                   static_cast<off_t>(offset + done));
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            const int error = n < 0 ? errno : ENOSPC;
            throw DataError(fmt::format("cannot write '{}': {} (the file is left unchanged)", path_,
                                        std::strerror(error)));
        }
        done += static_cast<std::size_t>(n);
    }
}

void AtomicFile::write(std::string_view text) {
    // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): bytes of the text
    write(std::span(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()));
}

void AtomicFile::commit() {
    const int fd = fd_;
    fd_ = -1;
    if (fd < 0) {
        throw DataError(fmt::format("cannot write '{}': the file was already committed", path_));
    }
    const bool synced = ::fsync(fd) == 0;
    const int sync_error = errno;
    if (::close(fd) != 0 || !synced) {
        throw DataError(fmt::format("cannot write '{}': {} (the file is left unchanged)", path_,
                                    std::strerror(synced ? errno : sync_error)));
    }
    if (::rename(temp_.c_str(), path_.c_str()) != 0) {
        throw DataError(
            fmt::format("cannot move '{}' to '{}': {}", temp_, path_, std::strerror(errno)));
    }
    committed_ = true;
}

void write_file_atomically(const std::string& path, std::string_view contents) {
    AtomicFile file(path);
    file.write(contents);
    file.commit();
}

}  // namespace laddu
