// Typed access to the fields of a model file's TOML document: every getter knows the dotted key
// it reads and fails with one line naming the file, line, column and key (ModelError). The model
// reader (model_file.cpp) and the [channel] reader (channel_file.cpp) both read through it, so a
// missing key or a value of the wrong type reads the same wherever it sits in the file.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <toml++/toml.h>

namespace laddu::cli {

/// "a string", "an integer", ... : the kind of `node`, for messages.
[[nodiscard]] std::string type_name(const toml::node& node);

/// `message` with control characters written as escapes (\n, \t, \x01), so it stays one line.
[[nodiscard]] std::string one_line(std::string_view message);

/// The names separated by ", " ("none" when there are none), for messages.
[[nodiscard]] std::string join(const std::vector<std::string>& names);

/// The typed getters of one TOML document read from `source` (a path or "<builtin:name>").
class TomlFields {
public:
    explicit TomlFields(std::string source) : source_(std::move(source)) {}

    /// Throws ModelError "source:line:column: key: what" as one line (control characters in
    /// quoted names are escaped); at the top level when `node` is null or `key` is empty.
    [[noreturn]] void fail(const toml::node* node, const std::string& key,
                           const std::string& what) const;

    /// `path.key`, the key quoted as TOML writes it when it is not bare (spaces, dots, ...).
    [[nodiscard]] static std::string dotted(const std::string& path, std::string_view key);

    /// Fails at the first key of `t` that `allowed` does not list.
    void check_keys(const toml::table& t, const std::string& path,
                    const std::vector<std::string>& allowed) const;

    /// The table under `key`; when it is missing, fails if `required`, else an empty table.
    [[nodiscard]] const toml::table& table(const toml::table& t, const std::string& key,
                                           const std::string& path, bool required) const;

    /// `node` as a table (`key` names it).
    [[nodiscard]] const toml::table& as_table(const toml::node& node, const std::string& key) const;

    /// The array under `key` (required).
    [[nodiscard]] const toml::array& array(const toml::table& t, const std::string& key,
                                           const std::string& path) const;

    /// The string under `key` (required), or `fallback` when `key` is missing.
    [[nodiscard]] std::string string(const toml::table& t, const std::string& key,
                                     const std::string& path) const;
    [[nodiscard]] std::string string_or(const toml::table& t, const std::string& key,
                                        const std::string& path, const std::string& fallback) const;
    [[nodiscard]] std::string as_string(const toml::node* node, const std::string& key) const;

    /// An integer or floating-point value as a double.
    [[nodiscard]] double number(const toml::node* node, const std::string& key) const;
    [[nodiscard]] double number_or(const toml::table& t, const std::string& key,
                                   const std::string& path, double fallback) const;

    /// An integer in [-1000, 1000] (angular momenta, projections, signs).
    [[nodiscard]] int integer_or(const toml::table& t, const std::string& key,
                                 const std::string& path, int fallback) const;

    [[nodiscard]] bool boolean_or(const toml::table& t, const std::string& key,
                                  const std::string& path, bool fallback) const;

    /// [low, high] of two numbers.
    [[nodiscard]] std::pair<double, double> pair(const toml::node* node,
                                                 const std::string& key) const;

    /// A non-empty array of strings: `node`, or the one under `key` (required).
    [[nodiscard]] std::vector<std::string> strings(const toml::node* node,
                                                   const std::string& key) const;
    [[nodiscard]] std::vector<std::string> strings(const toml::table& t, const std::string& key,
                                                   const std::string& path) const;

    [[nodiscard]] const std::string& source() const noexcept { return source_; }

private:
    std::string source_;
};

}  // namespace laddu::cli
