#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>

#include <fmt/format.h>

#include <laddu/base/error.hpp>
#include <laddu/fit/adam.hpp>
#include <laddu/fit/transform.hpp>

namespace laddu::fit {

namespace {

void check_options(const AdamOptions& o) {
    const auto unit = [](double x) {
        return x >= 0.0 && x < 1.0;
    };
    if (!(o.alpha > 0.0 && std::isfinite(o.alpha)) ||
        !(o.epsilon > 0.0 && std::isfinite(o.epsilon)) || !unit(o.beta_1) || !unit(o.beta_2) ||
        !unit(o.ema_beta) || !(o.ema_eps_loss >= 0.0) || o.ema_patience == 0 || o.max_steps == 0) {
        throw ModelError(fmt::format(
            "Adam needs alpha > 0, epsilon > 0, beta_1, beta_2 and the EMA beta in [0, 1), "
            "eps_loss >= 0 and positive patience and max_steps; got alpha={}, beta_1={}, "
            "beta_2={}, epsilon={}, beta_c={}, eps_loss={}, patience={}, max_steps={}",
            o.alpha, o.beta_1, o.beta_2, o.epsilon, o.ema_beta, o.ema_eps_loss, o.ema_patience,
            o.max_steps));
    }
}

}  // namespace

FitResult adam(const Objective& objective, std::vector<std::string> names,
               std::span<const double> start, const AdamOptions& options) {
    check_options(options);
    if (names.size() != objective.dimension || start.size() != objective.dimension) {
        throw FitError(fmt::format("Adam: {} names and {} start values for {} parameters",
                                   names.size(), start.size(), objective.dimension));
    }
    const auto clock = std::chrono::steady_clock::now();
    // Steps act on the parameters themselves (periodic ones wrapped) and are projected onto
    // the bounds: a bounds transform (transform.hpp) would scale each step by dx/du, up to
    // several times the noise of a batch near a bound in the stochastic fits this serves.
    const ParameterTransform transform(objective.bounds, objective.periodic, objective.dimension,
                                       TransformScope::kPeriodicOnly);
    const Objective inner = transform.internal_objective(objective);
    const auto project = [&inner](std::vector<double>& point) {
        for (std::size_t k = 0; k < inner.bounds.size(); ++k) {
            point[k] = std::clamp(point[k], inner.bounds[k].lower, inner.bounds[k].upper);
        }
    };
    const std::size_t n = objective.dimension;
    std::vector<double> u = transform.to_internal(start);
    project(u);
    std::vector<double> m(n, 0.0);
    std::vector<double> v(n, 0.0);
    FitResult result;
    result.names = std::move(names);
    result.start.assign(start.begin(), start.end());
    runtime::Evaluation current = inner.value_and_gradient(u);
    ++result.value_evaluations;
    ++result.gradient_evaluations;
    double ema = 0.0;
    std::size_t calm = 0;
    result.termination = Termination::kMaxIterations;
    double best = current.value;
    for (std::size_t step = 1; step <= options.max_steps; ++step) {
        const auto t = static_cast<double>(step);
        const double alpha = options.alpha * std::sqrt(1.0 - std::pow(options.beta_2, t)) /
                             (1.0 - std::pow(options.beta_1, t));
        for (std::size_t k = 0; k < n; ++k) {
            const double g = current.gradient[k];
            m[k] = options.beta_1 * m[k] + (1.0 - options.beta_1) * g;
            v[k] = options.beta_2 * v[k] + (1.0 - options.beta_2) * g * g;
            u[k] -= alpha * m[k] / (std::sqrt(v[k]) + options.epsilon);
        }
        project(u);
        current = inner.value_and_gradient(u);
        ++result.value_evaluations;
        ++result.gradient_evaluations;
        result.iterations = step;
        if (!std::isfinite(current.value)) {
            throw EvaluationError(fmt::format("Adam step {}: the objective is {} at the new point; "
                                              "lower alpha",
                                              step, current.value));
        }
        best = std::min(best, current.value);
        if (options.progress) {
            const std::vector<double> x = transform.to_external(u);
            const double elapsed =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - clock).count();
            if (!options.progress(
                    {step, current.value, x, result.value_evaluations, best, elapsed})) {
                result.termination = Termination::kStopped;
                break;
            }
        }
        if (options.use_ema) {
            const double previous = ema;
            ema = options.ema_beta * previous + (1.0 - options.ema_beta) * current.value;
            calm = std::abs(ema - previous) < options.ema_eps_loss ? calm + 1 : 0;
            if (calm >= options.ema_patience) {
                result.termination = Termination::kValueChange;
                result.converged = true;
                break;
            }
        }
    }
    result.values = transform.to_external(u);
    result.value = current.value;
    result.uncertainties.assign(n, std::numeric_limits<double>::quiet_NaN());
    result.covariance.assign(n * n, std::numeric_limits<double>::quiet_NaN());
    result.correlation.assign(n * n, std::numeric_limits<double>::quiet_NaN());
    result.at_bound.assign(n, false);
    result.message =
        result.converged
            ? fmt::format("the moving average of the value changed by less than {} (Adam, {} "
                          "steps); no uncertainties from a stochastic fit",
                          options.ema_eps_loss, result.iterations)
            : fmt::format("{} after {} Adam steps; no uncertainties from a stochastic fit",
                          termination_name(result.termination), result.iterations);
    result.wall_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - clock).count();
    return result;
}

FitResult fit_stochastic(const likelihood::Likelihood& likelihood, std::span<const double> start,
                         double fraction, std::uint64_t seed, const AdamOptions& options) {
    if (!(fraction > 0.0 && fraction <= 1.0)) {
        throw ModelError(fmt::format("fraction must be in (0, 1], got {}", fraction));
    }
    Objective objective = objective_of(likelihood);
    auto next = std::make_shared<std::uint64_t>(seed);
    objective.value_and_gradient = [&likelihood, fraction, next](std::span<const double> x) {
        return likelihood.stochastic_value_and_gradient(x, fraction, (*next)++);
    };
    objective.value = {};
    return adam(objective, likelihood.parameter_names(), start, options);
}

}  // namespace laddu::fit
