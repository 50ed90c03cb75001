// bench/child_process.hpp: running a measurement in a child process, so its peak RSS (VmHWM,
// ru_maxrss) belongs to that measurement alone and not to what the parent did before, and
// reading that peak.
#pragma once

#include <cstddef>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <vector>

#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

namespace laddu::bench {

/// This process's peak resident set in MiB (ru_maxrss, the kernel's VmHWM).
inline double peak_rss_mib() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<double>(usage.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

/// Runs fn() in a forked child and returns the doubles it returned (sent through a pipe).
/// Throws std::runtime_error when the child fails (its exception is printed on stderr).
template <typename Fn>
std::vector<double> in_child(Fn fn) {
    int fds[2];
    if (pipe(fds) != 0) {
        throw std::runtime_error("pipe failed");
    }
    const pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        int status = 0;
        try {
            const std::vector<double> out = fn();
            const auto bytes = static_cast<ssize_t>(out.size() * sizeof(double));
            if (write(fds[1], out.data(), static_cast<std::size_t>(bytes)) != bytes) {
                status = 1;
            }
        } catch (const std::exception& e) {
            std::fprintf(stderr, "child: %s\n", e.what());
            status = 1;
        }
        close(fds[1]);
        _exit(status);
    }
    close(fds[1]);
    std::vector<double> out;
    double value = 0.0;
    while (read(fds[0], &value, sizeof(double)) == static_cast<ssize_t>(sizeof(double))) {
        out.push_back(value);
    }
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        throw std::runtime_error("child process failed");
    }
    return out;
}

}  // namespace laddu::bench
