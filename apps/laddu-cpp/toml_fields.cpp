// Typed access to a model file's TOML fields (toml_fields.hpp).
#include "toml_fields.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>

#include <fmt/format.h>

#include <laddu/base/error.hpp>

namespace laddu::cli {

std::string type_name(const toml::node& node) {
    switch (node.type()) {
    case toml::node_type::table:
        return "a table";
    case toml::node_type::array:
        return "an array";
    case toml::node_type::string:
        return "a string";
    case toml::node_type::integer:
        return "an integer";
    case toml::node_type::floating_point:
        return "a floating-point number";
    case toml::node_type::boolean:
        return "a boolean";
    default:
        return "a date or time";
    }
}

// TOML keys and strings may contain any control character; an error must stay one line
// whatever the names it quotes hold.
std::string one_line(std::string_view message) {
    std::string out;
    out.reserve(message.size());
    for (const char c : message) {
        const auto u = static_cast<unsigned char>(c);
        if (c == '\n') {
            out += "\\n";
        } else if (c == '\r') {
            out += "\\r";
        } else if (c == '\t') {
            out += "\\t";
        } else if (u < 0x20 || u == 0x7f) {
            out += fmt::format("\\x{:02x}", u);
        } else {
            out += c;
        }
    }
    return out;
}

std::string join(const std::vector<std::string>& names) {
    return names.empty() ? std::string("none") : fmt::format("{}", fmt::join(names, ", "));
}

void TomlFields::fail(const toml::node* node, const std::string& key,
                      const std::string& what) const {
    const toml::source_position p =
        node != nullptr ? node->source().begin : toml::source_position{0, 0};
    throw ModelError(one_line(fmt::format("{}:{}:{}: {}: {}", source_, p.line, p.column,
                                          key.empty() ? std::string("(top level)") : key, what)));
}

std::string TomlFields::dotted(const std::string& path, std::string_view key) {
    const bool bare = std::all_of(key.begin(), key.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-';
    });
    const std::string k = bare ? std::string(key) : fmt::format("\"{}\"", key);
    return path.empty() ? k : path + "." + k;
}

void TomlFields::check_keys(const toml::table& t, const std::string& path,
                            const std::vector<std::string>& allowed) const {
    for (const auto& [key, node] : t) {
        if (std::find(allowed.begin(), allowed.end(), key.str()) == allowed.end()) {
            fail(&node, dotted(path, key.str()),
                 fmt::format("unknown key '{}' (expected one of: {})", key.str(), join(allowed)));
        }
    }
}

const toml::table& TomlFields::table(const toml::table& t, const std::string& key,
                                     const std::string& path, bool required) const {
    static const toml::table empty;
    const toml::node* node = t.get(key);
    if (node == nullptr) {
        if (required) {
            fail(&t, dotted(path, key), "missing (a table is required)");
        }
        return empty;
    }
    return as_table(*node, dotted(path, key));
}

const toml::table& TomlFields::as_table(const toml::node& node, const std::string& key) const {
    if (!node.is_table()) {
        fail(&node, key, fmt::format("expected a table, got {}", type_name(node)));
    }
    return *node.as_table();
}

const toml::array& TomlFields::array(const toml::table& t, const std::string& key,
                                     const std::string& path) const {
    const toml::node* node = t.get(key);
    if (node == nullptr) {
        fail(&t, dotted(path, key), "missing (an array is required)");
    }
    if (!node->is_array()) {
        fail(node, dotted(path, key), fmt::format("expected an array, got {}", type_name(*node)));
    }
    return *node->as_array();
}

std::string TomlFields::string(const toml::table& t, const std::string& key,
                               const std::string& path) const {
    const toml::node* node = t.get(key);
    if (node == nullptr) {
        fail(&t, dotted(path, key), "missing (a string is required)");
    }
    return as_string(node, dotted(path, key));
}

std::string TomlFields::string_or(const toml::table& t, const std::string& key,
                                  const std::string& path, const std::string& fallback) const {
    return t.contains(key) ? string(t, key, path) : fallback;
}

std::string TomlFields::as_string(const toml::node* node, const std::string& key) const {
    if (!node->is_string()) {
        fail(node, key, fmt::format("expected a string, got {}", type_name(*node)));
    }
    return std::string(node->as_string()->get());
}

double TomlFields::number(const toml::node* node, const std::string& key) const {
    if (node->is_integer()) {
        return static_cast<double>(node->as_integer()->get());
    }
    if (!node->is_floating_point()) {
        fail(node, key, fmt::format("expected a number, got {}", type_name(*node)));
    }
    return node->as_floating_point()->get();
}

double TomlFields::number_or(const toml::table& t, const std::string& key, const std::string& path,
                             double fallback) const {
    const toml::node* node = t.get(key);
    return node == nullptr ? fallback : number(node, dotted(path, key));
}

int TomlFields::integer_or(const toml::table& t, const std::string& key, const std::string& path,
                           int fallback) const {
    const toml::node* node = t.get(key);
    if (node == nullptr) {
        return fallback;
    }
    if (!node->is_integer()) {
        fail(node, dotted(path, key), fmt::format("expected an integer, got {}", type_name(*node)));
    }
    const std::int64_t v = node->as_integer()->get();
    if (v < -1000 || v > 1000) {
        fail(node, dotted(path, key), fmt::format("{} is out of range", v));
    }
    return static_cast<int>(v);
}

bool TomlFields::boolean_or(const toml::table& t, const std::string& key, const std::string& path,
                            bool fallback) const {
    const toml::node* node = t.get(key);
    if (node == nullptr) {
        return fallback;
    }
    if (!node->is_boolean()) {
        fail(node, dotted(path, key),
             fmt::format("expected true or false, got {}", type_name(*node)));
    }
    return node->as_boolean()->get();
}

std::pair<double, double> TomlFields::pair(const toml::node* node, const std::string& key) const {
    const toml::array* a = node->as_array();
    if (a == nullptr || a->size() != 2) {
        fail(node, key, "expected an array of two numbers [low, high]");
    }
    return {number(a->get(0), key), number(a->get(1), key)};
}

std::vector<std::string> TomlFields::strings(const toml::node* node, const std::string& key) const {
    const toml::array* a = node->as_array();
    if (a == nullptr) {
        fail(node, key, fmt::format("expected an array of strings, got {}", type_name(*node)));
    }
    std::vector<std::string> out;
    for (const toml::node& element : *a) {
        out.push_back(as_string(&element, key));
    }
    if (out.empty()) {
        fail(node, key, "expected at least one name");
    }
    return out;
}

std::vector<std::string> TomlFields::strings(const toml::table& t, const std::string& key,
                                             const std::string& path) const {
    const toml::node* node = t.get(key);
    if (node == nullptr) {
        fail(&t, dotted(path, key), "missing (an array of names is required)");
    }
    return strings(node, dotted(path, key));
}

}  // namespace laddu::cli
