// Particle swarm (Method::kParticleSwarm): J. Kennedy, R. Eberhart, "Particle swarm
// optimization", Proc. ICNN 1995, with the inertia weight of Y. Shi, R. Eberhart, "A modified
// particle swarm optimizer", 1998: v ← ω v + c₁ r₁ (p − x) + c₂ r₂ (g − x), x ← x + v, with r₁, r₂
// uniform on [0, 1) per coordinate, p the particle's best and g its neighbourhood's best (the
// whole swarm, or a ring; J. Kennedy, R. Mendes 2002). ganesh 0.28's initialisation, names and
// defaults. The asynchronous update lets a particle see the improvements of the particles moved
// before it in the same iteration (A. Carlisle, G. Dozier 2001); ganesh's "asynchronous" instead
// scales the random pulls by 0.1, which is not what the name says.
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

struct Particle {
    std::vector<double> x;
    std::vector<double> velocity;
    std::vector<double> best_x;
    double best_value = kInf;
};

// The index of the particle whose best the particle `index` follows.
std::size_t leader(const std::vector<Particle>& swarm, std::size_t index,
                   const ParticleSwarmOptions& o, std::size_t global) {
    if (o.topology == SwarmTopology::kGlobal) {
        return global;
    }
    const std::size_t count = swarm.size();
    std::size_t best = index;
    for (std::size_t offset = 1; offset <= std::min(o.ring_radius, count - 1); ++offset) {
        for (const std::size_t other :
             {(index + offset) % count, (index + count - offset) % count}) {
            if (swarm[other].best_value < swarm[best].best_value) {
                best = other;
            }
        }
    }
    return best;
}

// The swarm at the start: particle 0 at `start` and the others uniform in start ± initial_scale,
// or all uniform in the position bounds; velocities 0 or uniform in ± velocity_scale.
std::vector<Particle> initial_swarm(const Counted& f, SplitMix64& random,
                                    const ParticleSwarmOptions& o, const std::vector<double>& start,
                                    std::size_t count) {
    const std::size_t n = start.size();
    std::vector<Particle> swarm(count);
    for (std::size_t p = 0; p < count; ++p) {
        Particle& particle = swarm[p];
        particle.x = start;
        for (std::size_t k = 0; k < n; ++k) {
            if (!o.position_bounds.empty()) {
                const expr::Bounds& b = o.position_bounds[k];
                particle.x[k] = b.lower + (b.upper - b.lower) * random.uniform();
            } else if (p > 0) {
                particle.x[k] += (2.0 * random.uniform() - 1.0) * o.initial_scale;
            }
        }
        particle.velocity.assign(n, 0.0);
        if (o.velocity_scale > 0.0) {
            for (double& v : particle.velocity) {
                v = (2.0 * random.uniform() - 1.0) * o.velocity_scale;
            }
        }
        // The start point's failure propagates (as for every minimiser); later points are +∞.
        particle.best_value =
            p == 0 && o.position_bounds.empty() ? f.value(particle.x) : f.try_value(particle.x);
        particle.best_x = particle.x;
    }
    return swarm;
}

// Moves `particle` towards its best and `social` (Shi & Eberhart's velocity update).
void move(Particle& particle, const std::vector<double>& social, const ParticleSwarmOptions& o,
          SplitMix64& random) {
    for (std::size_t k = 0; k < particle.x.size(); ++k) {
        const double r1 = random.uniform();
        const double r2 = random.uniform();
        particle.velocity[k] = o.inertia * particle.velocity[k] +
                               o.cognitive * r1 * (particle.best_x[k] - particle.x[k]) +
                               o.social * r2 * (social[k] - particle.x[k]);
        particle.x[k] += particle.velocity[k];
    }
}

// True when the particles' best values agree within `tolerance` (values_agree()).
bool bests_agree(const std::vector<Particle>& swarm, double tolerance) {
    std::vector<double> bests(swarm.size());
    for (std::size_t p = 0; p < swarm.size(); ++p) {
        bests[p] = swarm[p].best_value;
    }
    return values_agree(bests, tolerance);
}

}  // namespace

MinimizerResult particle_swarm(const Objective& objective, std::vector<double> x,
                               const MinimizerOptions& options) {
    const ParticleSwarmOptions& o = options.particle_swarm;
    MinimizerResult result;
    const Counted f(objective, result);
    SplitMix64 random(o.seed);
    const std::vector<double> start = std::move(x);
    const std::size_t count =
        o.particles == 0 ? std::max<std::size_t>(10 * start.size(), 20) : o.particles;
    std::vector<Particle> swarm = initial_swarm(f, random, o, start, count);
    std::size_t global = 0;
    for (std::size_t p = 1; p < count; ++p) {
        global = swarm[p].best_value < swarm[global].best_value ? p : global;
    }
    std::vector<std::size_t> leaders(count);
    while (true) {
        if (result.iterations >= options.max_iterations) {
            stop(result, Termination::kMaxIterations);
            break;
        }
        for (std::size_t p = 0; p < count; ++p) {
            leaders[p] = leader(swarm, p, o, global);
        }
        for (std::size_t p = 0; p < count; ++p) {
            if (o.asynchronous) {
                leaders[p] = leader(swarm, p, o, global);
            }
            Particle& particle = swarm[p];
            // A copy: the leader may be this particle, whose best changes below.
            const std::vector<double> social = swarm[leaders[p]].best_x;
            move(particle, social, o, random);
            const double value = f.try_value(particle.x);
            if (value < particle.best_value) {
                particle.best_value = value;
                particle.best_x = particle.x;
                global = value < swarm[global].best_value ? p : global;
            }
        }
        ++result.iterations;
        if (!report(options, result, swarm[global].best_value, swarm[global].best_x)) {
            stop(result, Termination::kStopped);
            break;
        }
        if (bests_agree(swarm, o.spread_tolerance)) {
            stop(result, Termination::kPopulationSpread);
            break;
        }
    }
    result.x = swarm[global].best_x;
    result.value = swarm[global].best_value;
    return result;
}

}  // namespace laddu::fit::detail
