#include "kmatrix_toy.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <map>
#include <random>

#include <fmt/format.h>

#include <laddu/amplitudes/kmatrix_benchmark.hpp>
#include <laddu/base/error.hpp>
#include <laddu/base/random.hpp>
#include <laddu/compile/compiled_model.hpp>
#include <laddu/generation/accept_reject.hpp>
#include <laddu/generation/ksks_acceptance.hpp>
#include <laddu/runtime/prepared_model.hpp>

namespace laddu::testing {

using fit::FitResult;

namespace {

// Seeds of the toy's independent streams, derived from the toy seed and a stream tag.
std::uint64_t stream_seed(std::uint64_t seed, std::uint64_t tag) {
    return splitmix64(splitmix64(seed) ^ (tag * 0x9E3779B97F4A7C15ULL));
}

enum Stream : std::uint64_t {
    kMcEvents = 1,
    kMcAcceptance,
    kDataCount,
    kDataAccept,
    kDataPool = 100,  // + round: pool events; + 2^20 + round: the pool's acceptance
};

std::vector<double> true_intensity(const compile::CompiledModel& model, const data::Dataset& events,
                                   std::span<const double> point,
                                   const runtime::Execution& execution) {
    const runtime::PreparedModel prepared =
        runtime::PreparedModel::prepare(model, events, execution);
    const std::vector<std::complex<double>> values = prepared.evaluate(point);
    std::vector<double> intensity(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) {
        intensity[i] = values[i].real();
    }
    return intensity;
}

std::size_t index_of(const FitResult& result, const std::string& name) {
    for (std::size_t k = 0; k < result.names.size(); ++k) {
        if (result.names[k] == name) {
            return k;
        }
    }
    throw FitError(fmt::format("the fit has no parameter '{}'; apply the K-matrix toy "
                               "conventions only to fits of kmatrix_toy_model()",
                               name));
}

// Flips the sign of parameters `flip` (values, covariance and correlation rows and columns).
void flip_signs(FitResult& result, const std::vector<std::size_t>& flip) {
    const std::size_t n = result.names.size();
    std::vector<double> sign(n, 1.0);
    for (const std::size_t k : flip) {
        sign[k] = -1.0;
        result.values[k] = -result.values[k];
    }
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = 0; j < n; ++j) {
            if (result.covariance.size() == n * n) {
                result.covariance[i * n + j] *= sign[i] * sign[j];
            }
            if (result.correlation.size() == n * n) {
                result.correlation[i * n + j] *= sign[i] * sign[j];
            }
        }
    }
}

}  // namespace

const std::vector<std::pair<std::string, double>>& kmatrix_toy_couplings() {
    // A dominant f0(980) in S+ (the reference), f0(1500) and a0(980) beside it, f2(1270) and
    // f2(1525) in D+, f0(980) in S- (the demo's true point).
    static const std::vector<std::pair<std::string, double>> couplings = {
        {"f0(980)+ re", 1.00},  {"f0(1500)+ re", 0.40}, {"f0(1500)+ im", 0.30},
        {"a0(980)+ re", 0.60},  {"a0(980)+ im", -0.30}, {"f2(1270) re", 0.50},
        {"f2(1270) im", -0.20}, {"f2(1525) re", 0.40},  {"f2(1525) im", 0.30},
        {"f0(980)- re", 0.50},
    };
    return couplings;
}

expr::Model kmatrix_toy_model() {
    expr::Model model = amplitudes::kmatrix_benchmark_model({.tag_waves = true});
    std::map<std::string, double> free(kmatrix_toy_couplings().begin(),
                                       kmatrix_toy_couplings().end());
    for (const std::string& name : model.parameters().free_names()) {
        if (!free.contains(name)) {
            model = model.fix(name, 0.0);
        }
    }
    return model;
}

KMatrixToy make_kmatrix_toy(const KMatrixToyOptions& options) {
    if (options.events == 0 || options.mc == 0) {
        throw ModelError(fmt::format("make_kmatrix_toy needs events > 0 and mc > 0 (got {} and "
                                     "{})",
                                     options.events, options.mc));
    }
    KMatrixToy toy{kmatrix_toy_model(), {}, {}, 1.0, {}, {}};
    toy.names = toy.model.parameters().free_names();
    const std::map<std::string, double> couplings(kmatrix_toy_couplings().begin(),
                                                  kmatrix_toy_couplings().end());
    std::vector<double> unscaled;
    for (const std::string& name : toy.names) {
        unscaled.push_back(couplings.at(name));
    }
    const compile::CompiledModel compiled = compile::compile_model(toy.model);
    toy.accepted = generation::accepted_ksks(
        options.mc,
        {.kk_mass_max = options.kk_mass_max, .seed = stream_seed(options.seed, kMcEvents)},
        stream_seed(options.seed, kMcAcceptance));
    double integral = 0.0;
    const std::vector<double> mc_intensity =
        true_intensity(compiled, toy.accepted, unscaled, options.execution);
    const std::span<const double> weights = toy.accepted.weights();
    for (std::size_t j = 0; j < mc_intensity.size(); ++j) {
        integral += weights[j] * mc_intensity[j];
    }
    toy.scale = std::sqrt(static_cast<double>(options.events) / integral);
    for (const double c : unscaled) {
        toy.truth.push_back(toy.scale * c);
    }

    std::size_t count = options.events;
    if (options.poisson) {
        std::mt19937_64 rng(stream_seed(options.seed, kDataCount));
        std::poisson_distribution<std::size_t> poisson(static_cast<double>(options.events));
        count = std::max<std::size_t>(1, poisson(rng));
    }
    const generation::CandidateSource source = [&](std::uint64_t round, std::size_t size) {
        return generation::accepted_ksks(
            size,
            {.kk_mass_max = options.kk_mass_max,
             .seed = stream_seed(options.seed, kDataPool + round)},
            stream_seed(options.seed, kDataPool + (std::uint64_t{1} << 20) + round));
    };
    const generation::IntensityFunction intensity = [&](const data::Dataset& pool) {
        return true_intensity(compiled, pool, unscaled, options.execution);
    };
    toy.data = generation::generate_unweighted(count, source, intensity,
                                               {.seed = stream_seed(options.seed, kDataAccept)});
    return toy;
}

std::vector<double> kmatrix_toy_start(const KMatrixToy& toy, std::uint64_t seed, double relative) {
    std::vector<double> start = toy.truth;
    for (std::size_t k = 0; k < start.size(); ++k) {
        const bool up = (stream_seed(seed, 1000 + k) & 1U) == 0;
        start[k] += (up ? relative : -relative) * toy.scale;
    }
    return start;
}

std::string apply_kmatrix_toy_conventions(FitResult& result) {
    std::string applied;
    if (result.values[index_of(result, "f0(980)- re")] < 0.0) {
        flip_signs(result, {index_of(result, "f0(980)- re")});
        applied += "S- sign flipped; ";
    }
    if (result.values[index_of(result, "f0(980)+ re")] < 0.0) {
        std::vector<std::size_t> positive;
        for (const auto& [name, value] : kmatrix_toy_couplings()) {
            if (name.find("- ") == std::string::npos) {
                positive.push_back(index_of(result, name));
            }
        }
        flip_signs(result, positive);
        applied += "positive-reflectivity signs flipped; ";
    }
    return applied;
}

}  // namespace laddu::testing
