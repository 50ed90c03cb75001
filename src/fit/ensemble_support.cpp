// What the ensemble samplers share (see ensemble_support.hpp).
#include "ensemble_support.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <limits>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <laddu/base/error.hpp>

namespace laddu::fit::detail {

void check_storage(const ChainStorage& s) {
    if ((s.kind == ChainStorage::Kind::kRolling && s.window == 0) ||
        (s.kind == ChainStorage::Kind::kSampled &&
         (s.keep_every == 0 || (s.max_samples && *s.max_samples == 0)))) {
        throw ModelError("chain storage needs a positive window, keep_every and max_samples");
    }
}

void check_walkers(const std::vector<std::vector<double>>& walkers, std::string_view family,
                   std::size_t minimum) {
    if (walkers.size() < minimum) {
        throw ModelError(
            fmt::format("{} needs at least {} walkers, got {}", family, minimum, walkers.size()));
    }
    const std::size_t dimension = walkers.front().size();
    if (dimension == 0 || std::any_of(walkers.begin(), walkers.end(),
                                      [&](const auto& w) { return w.size() != dimension; })) {
        throw ModelError(
            fmt::format("{} walkers must all have the same dimension, at least 1", family));
    }
}

void check_stop(const SamplerStop& stop) {
    if (!stop.max_steps && stop.autocorrelation == nullptr && stop.terminators.empty()) {
        throw ModelError("sampling needs a terminator (MaxSteps, an autocorrelation check or a "
                         "callable), else it would not end");
    }
    if (stop.autocorrelation != nullptr &&
        (stop.autocorrelation->n_check == 0 ||
         !(stop.autocorrelation->discard >= 0.0 && stop.autocorrelation->discard < 1.0))) {
        throw ModelError("the autocorrelation check needs n_check > 0 and 0 <= discard < 1");
    }
}

double checked(double value, std::span<const double> x) {
    if (std::isnan(value)) {
        throw EvaluationError(fmt::format("the log density is NaN at [{}]", fmt::join(x, ", ")));
    }
    return value;
}

void add_walk_direction(const std::vector<std::vector<double>>& walkers, std::size_t k,
                        SplitMix64& random, std::vector<double>& mean, std::span<double> out) {
    const std::size_t n = walkers.size();
    std::fill(mean.begin(), mean.end(), 0.0);
    for (std::size_t j = 0; j < n; ++j) {
        if (j != k) {
            for (std::size_t d = 0; d < mean.size(); ++d) {
                mean[d] += walkers[j][d] / static_cast<double>(n - 1);
            }
        }
    }
    for (std::size_t j = 0; j < n; ++j) {
        if (j != k) {
            const double g = random.normal();
            for (std::size_t d = 0; d < mean.size(); ++d) {
                out[d] += g * (walkers[j][d] - mean[d]);
            }
        }
    }
}

std::vector<double> evaluate_all(const LogDensity& log_density,
                                 const std::vector<std::vector<double>>& points,
                                 std::size_t threads, McmcChain& result) {
    const std::size_t n = points.size();
    std::vector<double> values(n);
    result.evaluations += n;
    if (threads <= 1 || n <= 1) {
        for (std::size_t k = 0; k < n; ++k) {
            values[k] = checked(log_density(points[k]), points[k]);
        }
        return values;
    }
    // Threads claim points one at a time; each value lands in its own slot, so the result is
    // the serial one. Threads live for one call: a step's evaluations (whole likelihood passes)
    // dwarf starting them.
    std::vector<std::exception_ptr> errors(n);
    std::atomic<std::size_t> next{0};
    const auto work = [&] {
        for (std::size_t k = next.fetch_add(1); k < n; k = next.fetch_add(1)) {
            try {
                values[k] = checked(log_density(points[k]), points[k]);
            } catch (...) {
                errors[k] = std::current_exception();
            }
        }
    };
    {
        std::vector<std::jthread> pool;
        for (std::size_t t = 1; t < std::min(threads, n); ++t) {
            pool.emplace_back(work);
        }
        work();
    }
    for (const std::exception_ptr& error : errors) {
        if (error) {
            std::rethrow_exception(error);
        }
    }
    return values;
}

std::vector<double> initial_log_densities(const LogDensity& log_density,
                                          const std::vector<std::vector<double>>& walkers,
                                          std::size_t threads, McmcChain& result) {
    std::vector<double> log_p = evaluate_all(log_density, walkers, threads, result);
    for (std::size_t k = 0; k < walkers.size(); ++k) {
        if (!std::isfinite(log_p[k])) {
            throw ModelError(fmt::format("walker {} starts where the log density is {} (outside "
                                         "the bounds?); start every walker inside",
                                         k, log_p[k]));
        }
    }
    return log_p;
}

void Chains::record(std::size_t step, const std::vector<std::vector<double>>& walkers) {
    if (storage_.kind == ChainStorage::Kind::kSampled && step != 0 &&
        step % storage_.keep_every != 0) {
        return;
    }
    std::optional<std::size_t> limit;
    if (storage_.kind == ChainStorage::Kind::kRolling) {
        limit = storage_.window;
    } else if (storage_.kind == ChainStorage::Kind::kSampled) {
        limit = storage_.max_samples;
    }
    for (std::size_t k = 0; k < walkers.size(); ++k) {
        samples_[k].push_back(walkers[k]);
        if (limit && samples_[k].size() > *limit) {
            samples_[k].erase(samples_[k].begin());
        }
    }
}

void Chains::fill(McmcChain& chain) const {
    chain.walkers = samples_.size();
    chain.steps = samples_.front().size();
    chain.dimension = dimension_;
    chain.values.clear();
    chain.values.reserve(chain.walkers * chain.steps * dimension_);
    for (const auto& walker : samples_) {
        for (const auto& point : walker) {
            chain.values.insert(chain.values.end(), point.begin(), point.end());
        }
    }
}

bool finish_step(std::size_t step, const char* move_name,
                 const std::vector<std::vector<double>>& walkers, Chains& chains,
                 const SamplerStop& stop, SamplerStatus& status, McmcChain& result) {
    chains.record(step, walkers);
    result.steps_taken = step;
    status = {step, false, move_name};
    for (const SamplerCallback& observer : stop.observers) {
        (void)observer(status);
    }
    bool done = false;
    AutocorrelationCheck* check = stop.autocorrelation;
    if (check != nullptr && step % check->n_check == 0) {
        McmcChain partial;
        chains.fill(partial);
        // The kept samples map to steps only for full storage; otherwise discard by count.
        const auto first =
            static_cast<std::size_t>(check->discard * static_cast<double>(partial.steps));
        if (partial.steps - first >= 2) {
            const std::vector<double> taus =
                integrated_autocorrelation_times(partial, first, check->sokal_window);
            double tau = 0.0;
            for (const double t : taus) {
                tau += t / static_cast<double>(taus.size());
            }
            const bool enough =
                tau * static_cast<double>(check->n_taus_threshold) < static_cast<double>(step);
            const double change = check->taus.empty() ? std::numeric_limits<double>::quiet_NaN()
                                                      : std::abs(check->taus.back() - tau) / tau;
            check->taus.push_back(tau);
            if (check->report) {
                check->report(fmt::format(
                    "Integrated Autocorrelation Analysis:\nτ = [{}]\nMinimum steps to "
                    "converge = {}\nSteps completed = {}\nΔτ/τ = {} (converges if < {})\n"
                    "Converged: {}\n",
                    fmt::join(taus, ", "),
                    static_cast<std::size_t>(tau * static_cast<double>(check->n_taus_threshold)),
                    step, change, check->dtau_threshold, enough && change < check->dtau_threshold));
            }
            if (enough && change < check->dtau_threshold && check->terminate) {
                status.success = true;
                status.message = fmt::format("converged: τ = {:.4g}, Δτ/τ = {:.3g}", tau, change);
                done = true;
            }
        }
    }
    if (!done && stop.max_steps && step >= *stop.max_steps) {
        status.success = true;
        status.message = "Maximum number of steps reached";
        done = true;
    }
    for (const SamplerCallback& terminator : stop.terminators) {
        if (!done && terminator(status)) {
            status.message = "stopped by a terminator";
            done = true;
        }
    }
    return done;
}

void finish_run(const Chains& chains, const SamplerStatus& status, McmcChain& result) {
    chains.fill(result);
    result.success = status.success;
    result.message = status.message;
}

}  // namespace laddu::fit::detail
