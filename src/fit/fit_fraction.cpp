#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <laddu/base/error.hpp>
#include <laddu/fit/fit_fraction.hpp>

namespace laddu::fit {

FitFraction fit_fraction(const FitResult& result, const likelihood::UnbinnedNll& term,
                         const std::vector<std::string>& tags) {
    const std::size_t n = result.names.size();
    std::vector<std::size_t> to_fit;
    std::vector<double> params;
    for (const expr::Parameter& p : term.parameters()) {
        std::size_t index = 0;
        while (index < n && result.names[index] != p.name) {
            ++index;
        }
        if (index == n) {
            throw FitError(fmt::format("the fit result has no parameter '{}' of term '{}'; it "
                                       "has [{}]",
                                       p.name, term.name(), fmt::join(result.names, ", ")));
        }
        to_fit.push_back(index);
        params.push_back(result.values[index]);
    }
    const runtime::Evaluation f = term.fit_fraction(params, tags);
    double variance = 0.0;
    for (std::size_t i = 0; i < to_fit.size(); ++i) {
        for (std::size_t j = 0; j < to_fit.size(); ++j) {
            variance +=
                f.gradient[i] * result.covariance[to_fit[i] * n + to_fit[j]] * f.gradient[j];
        }
    }
    return {f.value, std::sqrt(variance)};
}

}  // namespace laddu::fit
