// Simulated annealing (Method::kSimulatedAnnealing): S. Kirkpatrick, C. D. Gelatt, M. P. Vecchi,
// "Optimization by simulated annealing", Science 220 (1983) 671. Each step proposes
// x + s · N(0, 1) per coordinate, accepts it with the Metropolis probability min(1, e^{−Δf/T})
// (N. Metropolis et al., J. Chem. Phys. 21 (1953) 1087) and cools T ← rate · T. The best point
// seen is the result; the run ends when T falls below min_temperature (ganesh 0.28's
// SimulatedAnnealingTerminator), after max_iterations steps or when the callback stops it.
#include <cmath>
#include <utility>
#include <vector>

#include <laddu/base/random.hpp>
#include <laddu/fit/minimizer.hpp>

#include "minimizer_support.hpp"

namespace laddu::fit::detail {

MinimizerResult simulated_annealing(const Objective& objective, std::vector<double> x,
                                    const MinimizerOptions& options) {
    const SimulatedAnnealingOptions& o = options.simulated_annealing;
    MinimizerResult result;
    const Counted f(objective, result);
    SplitMix64 random(o.seed);
    double value = f.value(x);
    std::vector<double> best = x;
    double best_value = value;
    double temperature = o.initial_temperature;
    std::vector<double> proposal(x.size());
    while (true) {
        if (o.min_temperature > 0.0 && temperature < o.min_temperature) {
            stop(result, Termination::kTemperature);
            break;
        }
        if (result.iterations >= options.max_iterations) {
            stop(result, Termination::kMaxIterations);
            break;
        }
        for (std::size_t k = 0; k < x.size(); ++k) {
            proposal[k] = x[k] + o.proposal_scale * random.normal();
        }
        const double next = f.try_value(proposal);
        const double delta = next - value;
        if (delta <= 0.0 || random.uniform() < std::exp(-delta / temperature)) {
            x = proposal;
            value = next;
            if (value < best_value) {
                best = x;
                best_value = value;
            }
        }
        temperature *= o.cooling_rate;
        ++result.iterations;
        if (!report(options, result, best_value, best)) {
            stop(result, Termination::kStopped);
            break;
        }
    }
    result.x = std::move(best);
    result.value = best_value;
    return result;
}

}  // namespace laddu::fit::detail
