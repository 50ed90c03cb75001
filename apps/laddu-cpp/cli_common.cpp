#include "cli_common.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include <laddu/base/error.hpp>

#include <nlohmann/json.hpp>

namespace laddu::cli {

std::string ArgReader::value(std::string_view option) {
    if (!more()) {
        throw UsageError(
            fmt::format("option {} needs a value (see laddu-cpp {} --help)", option, command_));
    }
    return std::string(next());
}

UsageError ArgReader::unknown(std::string_view arg) const {
    return UsageError(fmt::format("unknown option '{}' (see laddu-cpp {} --help)", arg, command_));
}

namespace {

std::uint64_t parse_unsigned(std::string_view option, const std::string& text, const char* what) {
    std::size_t used = 0;
    unsigned long long value = 0;
    try {
        value = std::stoull(text, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used == 0 || used != text.size() || text.front() == '-') {
        throw UsageError(fmt::format("{} needs {}, got '{}'", option, what, text));
    }
    return value;
}

}  // namespace

std::size_t parse_count(std::string_view option, const std::string& text) {
    const std::uint64_t value = parse_unsigned(option, text, "a positive integer");
    if (value == 0) {
        throw UsageError(fmt::format("{} needs a positive integer, got '{}'", option, text));
    }
    return static_cast<std::size_t>(value);
}

std::uint64_t parse_seed(std::string_view option, const std::string& text) {
    return parse_unsigned(option, text, "a non-negative integer");
}

std::vector<std::size_t> parse_indices(std::string_view option, const std::string& text) {
    std::vector<std::size_t> out;
    std::size_t begin = 0;
    while (begin <= text.size()) {
        const std::size_t end = std::min(text.find(',', begin), text.size());
        out.push_back(static_cast<std::size_t>(
            parse_unsigned(option, text.substr(begin, end - begin), "a list like 0,5,7")));
        begin = end + 1;
    }
    return out;
}

std::map<std::string, double> parse_params(const std::string& spec) {
    std::map<std::string, double> values;
    if (std::filesystem::exists(spec) || spec.ends_with(".json")) {
        std::ifstream in(spec);
        if (!in) {
            throw UsageError(fmt::format("--params: cannot open '{}'", spec));
        }
        nlohmann::json json;
        try {
            json = nlohmann::json::parse(in);
        } catch (const nlohmann::json::exception& e) {
            throw UsageError(fmt::format("--params: '{}' is not valid JSON: {}", spec, e.what()));
        }
        // `laddu-cpp fit --json` output: {"parameters": {name: {"value": v, ...}}, "fixed": ...}.
        if (json.is_object() && json.contains("parameters") && json["parameters"].is_object()) {
            for (const auto& [name, entry] : json["parameters"].items()) {
                values[name] = entry.at("value").get<double>();
            }
            return values;
        }
        if (!json.is_object()) {
            throw UsageError(fmt::format("--params: '{}' must hold a JSON object", spec));
        }
        for (const auto& [name, value] : json.items()) {
            if (!value.is_number()) {
                throw UsageError(
                    fmt::format("--params: '{}': the value of '{}' is not a number", spec, name));
            }
            values[name] = value.get<double>();
        }
        return values;
    }
    std::size_t begin = 0;
    while (begin < spec.size()) {
        const std::size_t end = std::min(spec.find(',', begin), spec.size());
        const std::string item = spec.substr(begin, end - begin);
        const std::size_t eq = item.find('=');
        std::size_t used = 0;
        double value = 0.0;
        try {
            value = eq == std::string::npos ? 0.0 : std::stod(item.substr(eq + 1), &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (eq == std::string::npos || eq == 0 || used == 0 || used != item.size() - eq - 1) {
            throw UsageError(fmt::format(
                "--params: expected name=value[,name=value...] or a JSON file, got '{}'", item));
        }
        values[item.substr(0, eq)] = value;
        begin = end + 1;
    }
    return values;
}

ModelPoint apply_params(const expr::Model& model, const std::map<std::string, double>& values) {
    expr::Model out = model;
    for (const auto& [name, value] : values) {
        if (!model.parameters().contains(name)) {
            throw ModelError(fmt::format("unknown parameter '{}' in --params (the model has: {})",
                                         name, fmt::join(model.parameters().names(), ", ")));
        }
        if (model.parameters().parameters()[model.parameters().index_of(name)].is_fixed()) {
            out = out.fix(name, value);
        }
    }
    std::vector<double> free = out.parameters().free_defaults();
    const std::vector<std::string> names = out.parameters().free_names();
    for (std::size_t k = 0; k < names.size(); ++k) {
        if (const auto found = values.find(names[k]); found != values.end()) {
            free[k] = found->second;
        }
    }
    return {out, free};
}

int run_command(const std::string& command, const std::function<int()>& body) {
    try {
        return body();
    } catch (const UsageError& e) {
        std::fprintf(stderr, "laddu-cpp %s: %s\n", command.c_str(), e.what());
        return 1;
    } catch (const std::exception& e) {
        // One line, whatever the message holds.
        std::string message = e.what();
        std::replace(message.begin(), message.end(), '\n', ' ');
        std::fprintf(stderr, "laddu-cpp %s: %s\n", command.c_str(), message.c_str());
        return 2;
    }
}

}  // namespace laddu::cli
