// tests/support/scoped_env.hpp: environment variables set for one scope of a test.
#pragma once

#include <cstdlib>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace laddu::testing {

/// Sets or unsets environment variables for its lifetime and gives each back what it had (a
/// value, or none) when destroyed, however the scope ends (an ASSERT's early return, an
/// exception), so no test leaks a setting (the JIT cache directory, a dump switch) into the
/// next, nor clobbers one the caller had. setenv is not thread-safe: set before starting
/// threads, restore after joining them.
class ScopedEnv {
public:
    ScopedEnv() = default;

    /// Sets `name` to `value` for the scope.
    ScopedEnv(const char* name, const std::string& value) { set(name, value); }

    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;
    ScopedEnv(ScopedEnv&&) = delete;
    ScopedEnv& operator=(ScopedEnv&&) = delete;

    // NOLINTBEGIN(concurrency-mt-unsafe): see the class comment
    ~ScopedEnv() {
        for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {
            if (it->second) {
                ::setenv(it->first.c_str(), it->second->c_str(), 1);
            } else {
                ::unsetenv(it->first.c_str());
            }
        }
    }

    /// Sets `name` to `value` until the scope ends (again: the latest value wins).
    void set(const char* name, const std::string& value) {
        save(name);
        ::setenv(name, value.c_str(), 1);
    }

    /// Unsets `name` until the scope ends.
    void unset(const char* name) {
        save(name);
        ::unsetenv(name);
    }

private:
    void save(const char* name) {
        const char* was = std::getenv(name);
        saved_.emplace_back(name, was != nullptr ? std::optional<std::string>(was) : std::nullopt);
    }

    // NOLINTEND(concurrency-mt-unsafe)

    std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

}  // namespace laddu::testing
