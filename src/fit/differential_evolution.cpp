// Differential evolution (Method::kDifferentialEvolution), DE/rand/1/bin of R. Storn and
// K. Price, "Differential evolution - a simple and efficient heuristic for global optimization
// over continuous spaces", J. Global Optim. 11 (1997) 341: for each member i a mutant
// a + F (b − c) from three other members (of the generation's start), binomial crossover with
// probability CR and one coordinate always taken from the mutant, and the trial replaces i when
// it is no worse. ganesh 0.28's start population (the start point and start ± initial_scale),
// names and defaults.
#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <utility>
#include <vector>

#include <laddu/base/random.hpp>
#include <laddu/fit/minimizer.hpp>

#include "minimizer_support.hpp"

namespace laddu::fit::detail {
namespace {

// A uniform index of {0, ..., size − 1} not in `taken` (size > taken.size()).
std::size_t pick(SplitMix64& random, std::size_t size, std::initializer_list<std::size_t> taken) {
    std::size_t k = random.below(size);
    while (std::find(taken.begin(), taken.end(), k) != taken.end()) {
        k = random.below(size);
    }
    return k;
}

// The trial point of member i: DE/rand/1 mutant of three other members of the generation's
// start `snapshot`, crossed over binomially with member i (coordinate `forced` always mutant).
void make_trial(SplitMix64& random, const DifferentialEvolutionOptions& o,
                const std::vector<std::vector<double>>& snapshot, const std::vector<double>& member,
                std::size_t i, std::vector<double>& trial) {
    const std::size_t size = snapshot.size();
    const std::size_t a = pick(random, size, {i});
    const std::size_t b = pick(random, size, {i, a});
    const std::size_t c = pick(random, size, {i, a, b});
    const std::size_t forced = random.below(trial.size());
    for (std::size_t k = 0; k < trial.size(); ++k) {
        trial[k] = k == forced || random.uniform() < o.crossover_probability
                       ? snapshot[a][k] + o.differential_weight * (snapshot[b][k] - snapshot[c][k])
                       : member[k];
    }
}

}  // namespace

MinimizerResult differential_evolution(const Objective& objective, std::vector<double> x,
                                       const MinimizerOptions& options) {
    const DifferentialEvolutionOptions& o = options.differential_evolution;
    MinimizerResult result;
    const Counted f(objective, result);
    SplitMix64 random(o.seed);
    const std::size_t n = x.size();
    const std::size_t size =
        o.population_size == 0 ? std::max<std::size_t>(10 * n, 4) : o.population_size;
    std::vector<double> values(size);
    values[0] = f.value(x);
    std::vector<std::vector<double>> members(size, x);
    std::size_t best = 0;
    for (std::size_t i = 1; i < size; ++i) {
        for (double& v : members[i]) {
            v += (2.0 * random.uniform() - 1.0) * o.initial_scale;
        }
        values[i] = f.try_value(members[i]);
        best = values[i] < values[best] ? i : best;
    }
    std::vector<double> trial(n);
    while (true) {
        if (result.iterations >= options.max_iterations) {
            stop(result, Termination::kMaxIterations);
            break;
        }
        const std::vector<std::vector<double>> snapshot = members;
        for (std::size_t i = 0; i < size; ++i) {
            make_trial(random, o, snapshot, members[i], i, trial);
            const double value = f.try_value(trial);
            if (value <= values[i]) {
                members[i] = trial;
                values[i] = value;
                best = value < values[best] ? i : best;
            }
        }
        ++result.iterations;
        if (!report(options, result, values[best], members[best])) {
            stop(result, Termination::kStopped);
            break;
        }
        if (values_agree(values, o.spread_tolerance)) {
            stop(result, Termination::kPopulationSpread);
            break;
        }
    }
    result.x = members[best];
    result.value = values[best];
    return result;
}

}  // namespace laddu::fit::detail
