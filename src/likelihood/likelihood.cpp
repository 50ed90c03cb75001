#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <laddu/base/error.hpp>
#include <laddu/likelihood/likelihood.hpp>

namespace laddu::likelihood {
Likelihood::Likelihood(std::vector<TermPtr> terms) {
    for (TermPtr& term : terms) {
        add(std::move(term));
    }
}

Likelihood& Likelihood::add(TermPtr term) {
    if (!term) {
        throw ModelError("Likelihood::add was given a null term; pass a constructed term");
    }
    // laddu's rule too: terms are told apart by name (diagnostics, fit fractions per term).
    for (const TermPtr& existing : terms_) {
        if (existing->name() == term->name()) {
            throw ModelError(fmt::format("duplicate likelihood term name: '{}'; give each term of "
                                         "a likelihood its own name (name=...)",
                                         term->name()));
        }
    }
    // laddu's rule: one name, one definition. Identical definitions merge; two different ones
    // are a ModelError naming both (checked before anything changes). A penalty only names
    // its parameters: it takes whatever definition a model gives.
    const bool defines = term->defines_parameters();
    const auto find = [&](const std::string& name) {
        return static_cast<std::size_t>(std::find(names_.begin(), names_.end(), name) -
                                        names_.begin());
    };
    for (const expr::Parameter& p : term->parameters()) {
        const std::size_t index = find(p.name);
        if (defines && index < names_.size() && defined_by_[index] && !(parameters_[index] == p)) {
            throw ModelError(fmt::format(
                "parameter '{}' has conflicting definitions in term '{}': {}, and in term "
                "'{}': {}; give both the same definition or different names",
                p.name, *defined_by_[index], parameters_[index].describe(), term->name(),
                p.describe()));
        }
    }
    std::vector<std::size_t> indices;
    for (const expr::Parameter& p : term->parameters()) {
        const std::size_t index = find(p.name);
        if (index == names_.size()) {
            names_.push_back(p.name);
            parameters_.push_back(p);
            defined_by_.push_back(defines ? std::optional<std::string>(term->name())
                                          : std::nullopt);
        } else if (defines && !defined_by_[index]) {
            parameters_[index] = p;
            defined_by_[index] = term->name();
        }
        indices.push_back(index);
    }
    indices_.push_back(std::move(indices));
    terms_.push_back(std::move(term));
    return *this;
}

std::vector<double> Likelihood::default_parameters() const {
    std::vector<double> values;
    values.reserve(parameters_.size());
    for (const expr::Parameter& p : parameters_) {
        values.push_back(p.default_value());
    }
    return values;
}

std::vector<expr::Bounds> Likelihood::bounds() const {
    constexpr double kInf = std::numeric_limits<double>::infinity();
    std::vector<expr::Bounds> result;
    result.reserve(parameters_.size());
    for (const expr::Parameter& p : parameters_) {
        result.push_back(p.bounds.value_or(expr::Bounds{-kInf, kInf}));
    }
    return result;
}

std::size_t Likelihood::index_of(const std::string& name) const {
    for (std::size_t k = 0; k < names_.size(); ++k) {
        if (names_[k] == name) {
            return k;
        }
    }
    throw ModelError(fmt::format("the likelihood has no parameter '{}'; its parameters are [{}]",
                                 name, fmt::join(names_, ", ")));
}

std::vector<double> Likelihood::values_from(const std::map<std::string, double>& values) const {
    std::vector<double> result = default_parameters();
    for (const auto& [name, value] : values) {
        result[index_of(name)] = value;
    }
    return result;
}

std::vector<double> Likelihood::gather(std::size_t term, std::span<const double> params) const {
    std::vector<double> local;
    local.reserve(indices_[term].size());
    for (const std::size_t index : indices_[term]) {
        local.push_back(params[index]);
    }
    return local;
}

double Likelihood::value(std::span<const double> params) const {
    objective_evaluations_.add();
    check_parameter_count("likelihood", names_.size(), params.size());
    double sum = 0.0;
    for (std::size_t t = 0; t < terms_.size(); ++t) {
        sum += terms_[t]->value(gather(t, params));
    }
    return sum;
}

std::vector<double> Likelihood::gradient(std::span<const double> params) const {
    return value_and_gradient(params).gradient;
}

runtime::Evaluation Likelihood::value_and_gradient(std::span<const double> params) const {
    gradient_evaluations_.add();
    check_parameter_count("likelihood", names_.size(), params.size());
    runtime::Evaluation total{0.0, std::vector<double>(names_.size(), 0.0)};
    for (std::size_t t = 0; t < terms_.size(); ++t) {
        const runtime::Evaluation e = terms_[t]->value_and_gradient(gather(t, params));
        total.value += e.value;
        for (std::size_t k = 0; k < indices_[t].size(); ++k) {
            total.gradient[indices_[t][k]] += e.gradient[k];
        }
    }
    return total;
}

runtime::Evaluation Likelihood::stochastic_value_and_gradient(std::span<const double> params,
                                                              double fraction,
                                                              std::uint64_t seed) const {
    gradient_evaluations_.add();
    check_parameter_count("likelihood", names_.size(), params.size());
    if (!(fraction > 0.0 && fraction <= 1.0)) {
        throw ModelError(
            fmt::format("the stochastic batch fraction must be in (0, 1], got {}", fraction));
    }
    runtime::Evaluation total{0.0, std::vector<double>(names_.size(), 0.0)};
    for (std::size_t t = 0; t < terms_.size(); ++t) {
        // Each term its own batch, as laddu: seed + t · 2⁶⁴/φ.
        const std::uint64_t term_seed =
            seed + static_cast<std::uint64_t>(t) * 0x9E3779B97F4A7C15ULL;
        const runtime::Evaluation e =
            terms_[t]->stochastic_value_and_gradient(gather(t, params), fraction, term_seed);
        total.value += e.value;
        for (std::size_t k = 0; k < indices_[t].size(); ++k) {
            total.gradient[indices_[t][k]] += e.gradient[k];
        }
    }
    return total;
}

EvaluationCounts Likelihood::evaluation_counts() const noexcept {
    return {.objective = objective_evaluations_.load(), .gradient = gradient_evaluations_.load()};
}

}  // namespace laddu::likelihood
