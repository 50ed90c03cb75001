#include <algorithm>
#include <cctype>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <laddu/base/error.hpp>
#include <laddu/data/schema.hpp>

namespace laddu::data {

namespace {

constexpr std::array<std::string_view, 4> kSuffixes = {"_e", "_px", "_py", "_pz"};

std::string lower(std::string_view text) {
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

/// Splits `name` into (prefix, component) when it ends in a p4 suffix in any letter case.
std::optional<std::pair<std::string, std::size_t>> split_component(const std::string& name) {
    const std::string low = lower(name);
    for (std::size_t c = 0; c < kSuffixes.size(); ++c) {
        const std::string_view suffix = kSuffixes[c];
        if (low.size() > suffix.size() && low.ends_with(suffix)) {
            return std::pair{name.substr(0, name.size() - suffix.size()), c};
        }
    }
    return std::nullopt;
}

void check_unique(const std::vector<std::string>& names, std::string_view kind) {
    std::set<std::string_view> seen;
    for (const std::string& name : names) {
        if (name.empty()) {
            throw DataError(fmt::format("empty {} name in a schema", kind));
        }
        if (!seen.insert(name).second) {
            throw DataError(fmt::format("duplicate {} column '{}' in a schema", kind, name));
        }
    }
}

std::string join(const std::vector<std::string>& names) {
    return fmt::format("{}", fmt::join(names, ", "));
}

}  // namespace

std::string_view column_type_name(ColumnType type) noexcept {
    switch (type) {
    case ColumnType::kFloat64:
        return "float64";
    case ColumnType::kFloat32:
        return "float32";
    case ColumnType::kInt64:
        return "int64";
    case ColumnType::kInt32:
        return "int32";
    case ColumnType::kOther:
        break;
    }
    return "other";
}

bool is_float(ColumnType type) noexcept {
    return type == ColumnType::kFloat64 || type == ColumnType::kFloat32;
}

bool is_numeric(ColumnType type) noexcept {
    return type != ColumnType::kOther;
}

Schema::Schema(std::vector<std::string> p4s, std::vector<std::string> scalars, bool has_weight)
    : p4s_(std::move(p4s)), scalars_(std::move(scalars)), has_weight_(has_weight) {
    check_unique(p4s_, "p4");
    check_unique(scalars_, "scalar");
    for (const std::string& p4 : p4s_) {
        p4_columns_.push_back({p4 + "_e", p4 + "_px", p4 + "_py", p4 + "_pz"});
    }
    scalar_columns_ = scalars_;
}

Schema Schema::infer(std::span<const ColumnInfo> columns, const SchemaInferenceOptions& options) {
    std::map<std::string, std::array<std::string, 4>> groups;
    std::vector<std::string> scalars;
    std::string weight;
    std::vector<std::string> weight_like;
    const std::string weight_lower = lower(options.weight_column);
    for (const ColumnInfo& column : columns) {
        const bool usable = is_float(column.type) ||
                            (options.integer_columns_are_scalars && is_numeric(column.type));
        if (!usable) {
            continue;
        }
        if (column.name == options.weight_column) {
            weight = column.name;
            continue;
        }
        if (lower(column.name) == weight_lower) {
            weight_like.push_back(column.name);
            continue;
        }
        if (const auto split = split_component(column.name)) {
            std::string& slot = groups[split->first][split->second];
            if (!slot.empty()) {
                throw DataError(fmt::format(
                    "columns '{}' and '{}' both name component {} of four-momentum '{}'; "
                    "rename one of them",
                    slot, column.name, kSuffixes[split->second], split->first));
            }
            slot = column.name;
            continue;
        }
        scalars.push_back(column.name);
    }
    if (weight.empty() && weight_like.size() > 1) {
        throw DataError(fmt::format("columns {} could each be the weight column '{}'; rename all "
                                    "but one",
                                    join(weight_like), options.weight_column));
    }
    if (weight.empty() && weight_like.size() == 1) {
        weight = weight_like.front();
    } else {
        scalars.insert(scalars.end(), weight_like.begin(), weight_like.end());
    }
    if (options.require_weight && weight.empty()) {
        throw DataError(fmt::format("the weight column '{}' is missing (the data has no "
                                    "weights and require_weight is set)",
                                    options.weight_column));
    }
    std::vector<std::string> p4s;
    std::vector<std::array<std::string, 4>> p4_columns;
    std::vector<std::string> incomplete;
    for (const auto& [prefix, components] : groups) {
        const bool complete = std::all_of(components.begin(), components.end(),
                                          [](const std::string& c) { return !c.empty(); });
        if (complete) {
            p4s.push_back(prefix);
            p4_columns.push_back(components);
        } else if (options.incomplete_p4_components_are_scalars) {
            for (const std::string& c : components) {
                if (!c.empty()) {
                    incomplete.push_back(c);
                }
            }
        }
    }
    scalars.insert(scalars.end(), incomplete.begin(), incomplete.end());
    Schema schema(p4s, scalars, !weight.empty());
    schema.set_physical_columns(std::move(p4_columns), scalars,
                                weight.empty() ? options.weight_column : weight);
    return schema;
}

void Schema::set_physical_columns(std::vector<std::array<std::string, 4>> p4_columns,
                                  std::vector<std::string> scalar_columns,
                                  std::string weight_column) {
    if (p4_columns.size() != p4s_.size() || scalar_columns.size() != scalars_.size()) {
        throw DataError("physical column lists do not match the schema's names");
    }
    p4_columns_ = std::move(p4_columns);
    scalar_columns_ = std::move(scalar_columns);
    weight_column_ = std::move(weight_column);
}

std::optional<std::size_t> Schema::p4_index(std::string_view name) const {
    const auto it = std::find(p4s_.begin(), p4s_.end(), name);
    if (it != p4s_.end()) {
        return static_cast<std::size_t>(it - p4s_.begin());
    }
    const auto alias = aliases_.find(name);
    if (alias != aliases_.end()) {
        const auto target = std::find(p4s_.begin(), p4s_.end(), alias->second);
        if (target != p4s_.end()) {
            return static_cast<std::size_t>(target - p4s_.begin());
        }
    }
    return std::nullopt;
}

std::optional<std::size_t> Schema::scalar_index(std::string_view name) const {
    const auto it = std::find(scalars_.begin(), scalars_.end(), name);
    if (it != scalars_.end()) {
        return static_cast<std::size_t>(it - scalars_.begin());
    }
    const auto alias = aliases_.find(name);
    if (alias != aliases_.end()) {
        const auto target = std::find(scalars_.begin(), scalars_.end(), alias->second);
        if (target != scalars_.end()) {
            return static_cast<std::size_t>(target - scalars_.begin());
        }
    }
    return std::nullopt;
}

std::size_t Schema::require_p4(std::string_view name) const {
    if (const auto index = p4_index(name)) {
        return *index;
    }
    throw DataError(fmt::format("four-momentum '{}' is not in the data; available p4s: [{}] "
                                "(a p4 NAME needs columns NAME_e, NAME_px, NAME_py, NAME_pz)",
                                name, join(p4s_)));
}

std::size_t Schema::require_scalar(std::string_view name) const {
    if (const auto index = scalar_index(name)) {
        return *index;
    }
    throw DataError(fmt::format("scalar column '{}' is not in the data; available scalars: [{}]",
                                name, join(scalars_)));
}

void Schema::add_alias(const std::string& alias, const std::string& target) {
    if (alias.empty() || p4_index(alias) || scalar_index(alias)) {
        throw DataError(
            fmt::format("cannot add alias '{}': the name is empty or already used", alias));
    }
    const bool is_p4 = std::find(p4s_.begin(), p4s_.end(), target) != p4s_.end();
    const bool is_scalar = std::find(scalars_.begin(), scalars_.end(), target) != scalars_.end();
    if (!is_p4 && !is_scalar) {
        throw DataError(fmt::format("cannot alias '{}' to '{}': no such column; the schema has {}",
                                    alias, target, describe()));
    }
    aliases_.emplace(alias, target);
}

std::vector<std::string> Schema::physical_columns() const {
    std::vector<std::string> out;
    for (const auto& group : p4_columns_) {
        out.insert(out.end(), group.begin(), group.end());
    }
    out.insert(out.end(), scalar_columns_.begin(), scalar_columns_.end());
    if (has_weight_) {
        out.push_back(weight_column_);
    }
    return out;
}

std::vector<std::string> Schema::batch_column_names() const {
    std::vector<std::string> out;
    for (const std::string& p4 : p4s_) {
        for (const std::string_view suffix : kSuffixes) {
            out.push_back(p4 + std::string(suffix));
        }
    }
    out.insert(out.end(), scalars_.begin(), scalars_.end());
    out.emplace_back("weight");
    return out;
}

Schema Schema::project(std::span<const std::string> names) const {
    if (names.empty()) {
        return *this;
    }
    std::vector<bool> keep_p4(p4s_.size(), false);
    std::vector<bool> keep_scalar(scalars_.size(), false);
    for (const std::string& name : names) {
        const auto p4 = p4_index(name);
        const auto scalar = scalar_index(name);
        if (!p4 && !scalar) {
            throw DataError(fmt::format("cannot read column '{}': not in the data, which has {}",
                                        name, describe()));
        }
        if (p4) {
            keep_p4[*p4] = true;
        }
        if (scalar) {
            keep_scalar[*scalar] = true;
        }
    }
    std::vector<std::string> p4s;
    std::vector<std::array<std::string, 4>> p4_columns;
    std::vector<std::string> scalars;
    std::vector<std::string> scalar_columns;
    for (std::size_t i = 0; i < p4s_.size(); ++i) {
        if (keep_p4[i]) {
            p4s.push_back(p4s_[i]);
            p4_columns.push_back(p4_columns_[i]);
        }
    }
    for (std::size_t i = 0; i < scalars_.size(); ++i) {
        if (keep_scalar[i]) {
            scalars.push_back(scalars_[i]);
            scalar_columns.push_back(scalar_columns_[i]);
        }
    }
    Schema out(p4s, scalars, has_weight_);
    out.set_physical_columns(std::move(p4_columns), std::move(scalar_columns), weight_column_);
    for (const auto& [alias, target] : aliases_) {
        if (std::find(p4s.begin(), p4s.end(), target) != p4s.end() ||
            std::find(scalars.begin(), scalars.end(), target) != scalars.end()) {
            out.aliases_.emplace(alias, target);
        }
    }
    return out;
}

std::string Schema::describe() const {
    return fmt::format("p4s [{}], scalars [{}], {}", join(p4s_), join(scalars_),
                       has_weight_ ? "weight" : "no weight");
}

bool same_event_columns(const Schema& a, const Schema& b) {
    const auto sorted = [](std::vector<std::string> names) {
        std::sort(names.begin(), names.end());
        return names;
    };
    return a.has_weight() == b.has_weight() && sorted(a.p4_names()) == sorted(b.p4_names()) &&
           sorted(a.scalar_names()) == sorted(b.scalar_names());
}

}  // namespace laddu::data
