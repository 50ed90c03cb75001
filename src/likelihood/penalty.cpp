#include <cmath>
#include <set>
#include <utility>

#include <fmt/format.h>

#include <laddu/base/error.hpp>
#include <laddu/likelihood/penalty.hpp>

namespace laddu::likelihood {
namespace {

std::vector<expr::Parameter> bare_parameters(const std::string& term,
                                             const std::vector<std::string>& names, double lambda) {
    if (names.empty()) {
        throw ModelError(fmt::format("penalty '{}' names no parameters; pass at least one", term));
    }
    if (!std::isfinite(lambda) || lambda < 0.0) {
        throw ModelError(
            fmt::format("penalty '{}' has strength {}; it must be finite and >= 0", term, lambda));
    }
    std::set<std::string> seen;
    std::vector<expr::Parameter> parameters;
    for (const std::string& n : names) {
        if (!seen.insert(n).second) {
            throw ModelError(fmt::format("penalty '{}' names parameter '{}' twice", term, n));
        }
        parameters.push_back(expr::Parameter::make(n));
    }
    return parameters;
}

}  // namespace

ParameterPenalty::ParameterPenalty(const std::vector<std::string>& names, double lambda,
                                   std::string name)
    : name_(std::move(name)), parameters_(bare_parameters(name_, names, lambda)), lambda_(lambda) {}

double ParameterPenalty::value(std::span<const double> params) const {
    check_parameter_count(name_, parameters_.size(), params.size());
    double sum = 0.0;
    for (const double x : params) {
        sum += penalty(x);
    }
    return lambda_ * sum;
}

runtime::Evaluation ParameterPenalty::value_and_gradient(std::span<const double> params) const {
    runtime::Evaluation result{value(params), {}};
    for (const double x : params) {
        result.gradient.push_back(lambda_ * slope(x));
    }
    return result;
}

double LassoPenalty::penalty(double theta) const noexcept {
    return std::abs(theta);
}

double LassoPenalty::slope(double theta) const noexcept {
    return theta > 0.0 ? 1.0 : (theta < 0.0 ? -1.0 : 0.0);
}

}  // namespace laddu::likelihood
