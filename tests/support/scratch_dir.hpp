// tests/support/scratch_dir.hpp: a temporary directory for one test.
#pragma once

#include <filesystem>
#include <random>
#include <string>
#include <system_error>

namespace laddu::testing {

/// A fresh directory under the system temp dir, removed (with what it holds) when the object
/// dies, however the test ends.
class ScratchDir {
public:
    ScratchDir() {
        std::random_device rd;
        path_ = std::filesystem::temp_directory_path() /
                ("laddu-test-" + std::to_string(rd()) + std::to_string(rd()));
        std::filesystem::create_directories(path_);
    }

    ScratchDir(const ScratchDir&) = delete;
    ScratchDir& operator=(const ScratchDir&) = delete;
    ScratchDir(ScratchDir&&) = delete;
    ScratchDir& operator=(ScratchDir&&) = delete;

    ~ScratchDir() {
        std::error_code ignored;
        std::filesystem::remove_all(path_, ignored);
    }

    /// The path of `name` inside the directory.
    [[nodiscard]] std::string file(const std::string& name) const {
        return (path_ / name).string();
    }

    [[nodiscard]] const std::filesystem::path& path() const noexcept { return path_; }

private:
    std::filesystem::path path_;
};

}  // namespace laddu::testing
