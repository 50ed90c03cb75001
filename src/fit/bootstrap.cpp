#include <cmath>
#include <limits>
#include <memory>

#include <laddu/base/error.hpp>
#include <laddu/fit/bootstrap.hpp>
#include <laddu/likelihood/likelihood.hpp>
#include <laddu/likelihood/nll.hpp>

namespace laddu::fit {
namespace {

// The converged replicas' values of parameter k.
std::vector<double> converged_values(const std::vector<FitResult>& fits, std::size_t k) {
    std::vector<double> values;
    values.reserve(fits.size());
    for (const FitResult& fit : fits) {
        if (fit.converged) {
            values.push_back(fit.values[k]);
        }
    }
    return values;
}

double mean_of(const std::vector<double>& values) {
    double sum = 0.0;
    for (const double v : values) {
        sum += v;
    }
    return values.empty() ? std::numeric_limits<double>::quiet_NaN()
                          : sum / static_cast<double>(values.size());
}

}  // namespace

std::vector<double> BootstrapResult::mean() const {
    const std::size_t n = fits.empty() ? 0 : fits.front().values.size();
    std::vector<double> result(n);
    for (std::size_t k = 0; k < n; ++k) {
        result[k] = mean_of(converged_values(fits, k));
    }
    return result;
}

std::vector<double> BootstrapResult::standard_deviation() const {
    const std::size_t n = fits.empty() ? 0 : fits.front().values.size();
    std::vector<double> result(n, std::numeric_limits<double>::quiet_NaN());
    for (std::size_t k = 0; k < n; ++k) {
        const std::vector<double> values = converged_values(fits, k);
        if (values.size() < 2) {
            continue;
        }
        const double mean = mean_of(values);
        double sum = 0.0;
        for (const double v : values) {
            sum += (v - mean) * (v - mean);
        }
        result[k] = std::sqrt(sum / static_cast<double>(values.size() - 1));
    }
    return result;
}

BootstrapResult bootstrap_fits(const expr::Model& model, const data::Dataset& data,
                               const data::Dataset& accepted, std::span<const double> start,
                               const BootstrapOptions& options, const FitOptions& fit_options) {
    if (options.samples == 0) {
        throw FitError("bootstrap_fits needs at least one replica (BootstrapOptions::samples = 0)");
    }
    BootstrapResult result;
    result.seeds.reserve(options.samples);
    result.fits.reserve(options.samples);
    for (std::size_t k = 0; k < options.samples; ++k) {
        const std::uint64_t seed = options.seed + k;
        const data::Dataset replica = data.bootstrap(seed);
        std::shared_ptr<likelihood::UnbinnedNll> term;
        if (options.extended) {
            term = std::make_shared<likelihood::ExtendedNLL>(model, replica, accepted,
                                                             options.execution);
        } else {
            term = std::make_shared<likelihood::NLL>(model, replica, accepted, options.execution);
        }
        likelihood::Likelihood total;
        total.add(term);
        result.seeds.push_back(seed);
        result.fits.push_back(fit(total, start, fit_options));
        if (options.keep_terms) {
            result.terms.push_back(std::move(term));
        }
    }
    return result;
}

}  // namespace laddu::fit
