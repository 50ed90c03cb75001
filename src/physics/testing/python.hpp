// Test support: runs a snippet under Debian's /usr/bin/python3 (numpy, scipy) and returns the
// numbers it prints, whitespace-separated. Tests use it for independent reference values.
#pragma once

#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <unistd.h>

namespace laddu::testing {

/// True when /usr/bin/python3 can import scipy.
inline bool has_scipy() {
    return std::system("/usr/bin/python3 -c 'import scipy' > /dev/null 2>&1") == 0;
}

/// Runs `code` (a Python program) and parses every whitespace-separated token it prints as a
/// double. Throws std::runtime_error when python fails.
inline std::vector<double> run_python(const std::string& code) {
    char path[] = "/tmp/laddu_physics_test_XXXXXX";
    const int fd = mkstemp(path);
    if (fd < 0) {
        throw std::runtime_error("cannot create a temporary file for python");
    }
    close(fd);
    {
        std::ofstream file(path);
        file << code;
    }
    const std::string command = std::string("/usr/bin/python3 ") + path;
    FILE* pipe = popen(command.c_str(), "r");
    if (pipe == nullptr) {
        std::remove(path);
        throw std::runtime_error("cannot run /usr/bin/python3");
    }
    std::string output;
    char buffer[4096];
    std::size_t n = 0;
    while ((n = std::fread(buffer, 1, sizeof(buffer), pipe)) > 0) {
        output.append(buffer, n);
    }
    const int status = pclose(pipe);
    std::remove(path);
    if (status != 0) {
        throw std::runtime_error("python failed (status " + std::to_string(status) + "):\n" +
                                 output);
    }
    std::istringstream stream(output);
    std::vector<double> values;
    double value = 0.0;
    while (stream >> value) {
        values.push_back(value);
    }
    return values;
}

}  // namespace laddu::testing
