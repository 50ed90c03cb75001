// The minimisers beyond L-BFGS-B, Nelder-Mead and the variable metric: CMA-ES, particle swarm,
// differential evolution, simulated annealing, conjugate gradient and trust region. Each reaches
// the minimum of Rosenbrock's function and of a shifted quadratic, honours bounds and counts its
// evaluations; the population methods find Rastrigin's global minimum where L-BFGS-B from the
// same start stops in a local one and are deterministic by seed; and every option changes the
// run (a test fails if its option were ignored).
#include <algorithm>
#include <cmath>
#include <iostream>
#include <numbers>
#include <span>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/base/error.hpp>
#include <laddu/fit/minimizer.hpp>

namespace laddu::fit {
namespace {

Objective rosenbrock() {
    Objective objective;
    objective.dimension = 2;
    objective.value_and_gradient = [](std::span<const double> p) {
        const double x = p[0];
        const double y = p[1];
        return runtime::Evaluation{100.0 * (y - x * x) * (y - x * x) + (1 - x) * (1 - x),
                                   {-400.0 * x * (y - x * x) - 2.0 * (1 - x), 200.0 * (y - x * x)}};
    };
    return objective;
}

// Σ_k (k + 1) (x_k − 1 − k/2)²: minimum at x_k = 1 + k/2, value 0.
Objective shifted_quadratic(std::size_t n) {
    Objective objective;
    objective.dimension = n;
    objective.value_and_gradient = [](std::span<const double> x) {
        runtime::Evaluation e{0.0, std::vector<double>(x.size())};
        for (std::size_t k = 0; k < x.size(); ++k) {
            const double w = static_cast<double>(k + 1);
            const double d = x[k] - 1.0 - 0.5 * static_cast<double>(k);
            e.value += w * d * d;
            e.gradient[k] = 2.0 * w * d;
        }
        return e;
    };
    return objective;
}

// Rastrigin: 10 n + Σ (x_k² − 10 cos 2π x_k), global minimum 0 at 0, local minima near every
// integer point.
Objective rastrigin(std::size_t n) {
    Objective objective;
    objective.dimension = n;
    objective.value_and_gradient = [](std::span<const double> x) {
        runtime::Evaluation e{10.0 * static_cast<double>(x.size()), std::vector<double>(x.size())};
        for (std::size_t k = 0; k < x.size(); ++k) {
            const double w = 2.0 * std::numbers::pi * x[k];
            e.value += x[k] * x[k] - 10.0 * std::cos(w);
            e.gradient[k] = 2.0 * x[k] + 20.0 * std::numbers::pi * std::sin(w);
        }
        return e;
    };
    return objective;
}

MinimizerOptions with(Method method) {
    MinimizerOptions options;
    options.method = method;
    options.max_iterations = 20000;
    return options;
}

const std::vector<Method> kAll{Method::kCmaes,
                               Method::kParticleSwarm,
                               Method::kDifferentialEvolution,
                               Method::kSimulatedAnnealing,
                               Method::kConjugateGradient,
                               Method::kTrustRegion};

const std::vector<Method> kPopulation{Method::kCmaes, Method::kParticleSwarm,
                                      Method::kDifferentialEvolution};

TEST(GlobalMinimizers, ReachTheMinimumOfRosenbrockAndAShiftedQuadratic) {
    for (const Method method : kAll) {
        SCOPED_TRACE(static_cast<int>(method));
        MinimizerOptions options = with(method);
        if (method == Method::kSimulatedAnnealing) {
            // Annealing is a random walk: a long, slow schedule with a shrinking proposal is
            // needed for 1e-2; its optimum is only as good as the walk's resolution.
            options.simulated_annealing.cooling_rate = 0.9995;
            options.simulated_annealing.proposal_scale = 0.05;
            options.simulated_annealing.min_temperature = 1e-5;
            options.max_iterations = 50000;
        }
        const double tolerance = method == Method::kSimulatedAnnealing ? 0.1 : 1e-4;
        const MinimizerResult r = minimize(rosenbrock(), std::vector<double>{-1.2, 1.0}, options);
        EXPECT_NEAR(r.x[0], 1.0, tolerance) << termination_name(r.termination);
        EXPECT_NEAR(r.x[1], 1.0, 2.0 * tolerance);
        EXPECT_TRUE(r.converged) << termination_name(r.termination) << " " << r.message;
        EXPECT_GT(r.value_evaluations, r.iterations);
        const MinimizerResult q =
            minimize(shifted_quadratic(3), std::vector<double>{0.0, 0.0, 0.0}, options);
        for (std::size_t k = 0; k < 3; ++k) {
            EXPECT_NEAR(q.x[k], 1.0 + 0.5 * static_cast<double>(k), tolerance);
        }
        EXPECT_TRUE(q.converged);
    }
}

TEST(GlobalMinimizers, OnlyTheGradientMethodsUseTheGradient) {
    for (const Method method : kAll) {
        Objective objective = shifted_quadratic(2);
        objective.value = [](std::span<const double> x) {
            return (x[0] - 1.0) * (x[0] - 1.0) + 2.0 * (x[1] - 1.5) * (x[1] - 1.5);
        };
        const MinimizerResult r = minimize(objective, std::vector<double>{0.0, 0.0}, with(method));
        const bool gradient =
            method == Method::kConjugateGradient || method == Method::kTrustRegion;
        EXPECT_EQ(r.gradient_evaluations > 0, gradient) << static_cast<int>(method);
    }
}

TEST(GlobalMinimizers, PopulationMethodsFindRastriginsGlobalMinimumWhereLbfgsbDoesNot) {
    const std::vector<double> start{2.2, -3.1, 1.7};
    const MinimizerResult local = minimize(rastrigin(3), start, with(Method::kLbfgsb));
    EXPECT_GT(local.value, 1.0);  // a local minimum near an integer point
    for (const Method method : kPopulation) {
        MinimizerOptions options = with(method);
        // CMA-ES needs a large population on Rastrigin (Hansen & Kern 2004): with λ = 200 and
        // σ₀ = 3 seeds 0-19 all find 0 (λ = 40: 10 of 20).
        options.cmaes.initial_sigma = 3.0;
        options.cmaes.population_size = 200;
        options.particle_swarm.initial_scale = 5.0;
        options.differential_evolution.initial_scale = 5.0;
        const MinimizerResult r = minimize(rastrigin(3), start, options);
        // The numbers docs/likelihood.md quotes.
        std::cout << "Rastrigin 3D, method " << static_cast<int>(method) << ": f = " << r.value
                  << " after " << r.value_evaluations << " evaluations, " << r.iterations
                  << " iterations (" << termination_name(r.termination)
                  << "); L-BFGS-B: f = " << local.value << " after " << local.value_evaluations
                  << "\n";
        EXPECT_LT(r.value, 1e-6) << static_cast<int>(method) << " after " << r.value_evaluations
                                 << " evaluations";
        for (const double v : r.x) {
            EXPECT_NEAR(v, 0.0, 1e-3);
        }
    }
}

TEST(GlobalMinimizers, HonourBounds) {
    // The quadratic's minimum (1, 1.5) lies outside x_1 <= 1.2: every method ends on the bound,
    // and never evaluates outside the box.
    for (const Method method : kAll) {
        Objective objective = shifted_quadratic(2);
        bool outside = false;
        const auto inner = objective.value_and_gradient;
        objective.value_and_gradient = [inner, &outside](std::span<const double> x) {
            outside = outside || x[0] < -2.0 || x[0] > 3.0 || x[1] < -1.0 || x[1] > 1.2;
            return inner(x);
        };
        objective.bounds = {{-2.0, 3.0}, {-1.0, 1.2}};
        MinimizerOptions options = with(method);
        options.simulated_annealing.min_temperature = 1e-5;
        const MinimizerResult r = minimize(objective, std::vector<double>{0.0, 0.0}, options);
        EXPECT_FALSE(outside) << static_cast<int>(method);
        EXPECT_NEAR(r.x[0], 1.0, 0.05) << static_cast<int>(method);
        EXPECT_NEAR(r.x[1], 1.2, 0.01) << static_cast<int>(method);
        EXPECT_LE(r.x[1], 1.2);
    }
}

TEST(GlobalMinimizers, SwarmPositionBoundsAreInTheParameters) {
    // With and without parameter bounds (the transform maps the interval), the swarm starts
    // uniform in the position bounds, given in the parameters.
    for (const bool bounded : {false, true}) {
        Objective objective = shifted_quadratic(2);
        std::vector<std::vector<double>> seen;
        const auto inner = objective.value_and_gradient;
        objective.value_and_gradient = [inner, &seen](std::span<const double> x) {
            seen.emplace_back(x.begin(), x.end());
            return inner(x);
        };
        if (bounded) {
            objective.bounds = {{-2.0, 3.0}, {-1.0, 1.2}};
        }
        MinimizerOptions options = with(Method::kParticleSwarm);
        options.max_iterations = 0;
        options.particle_swarm.particles = 30;
        options.particle_swarm.position_bounds = {{0.0, 0.5}, {-0.5, 0.1}};
        (void)minimize(objective, std::vector<double>{2.0, 1.0}, options);
        ASSERT_EQ(seen.size(), 30U);
        double spread = 0.0;
        for (const std::vector<double>& x : seen) {
            EXPECT_GE(x[0], 0.0);
            EXPECT_LE(x[0], 0.5);
            EXPECT_GE(x[1], -0.5);
            EXPECT_LE(x[1], 0.1);
            spread = std::max(spread, std::abs(x[0] - seen.front()[0]));
        }
        EXPECT_GT(spread, 0.2);  // spread over the interval, not at the start point
    }
}

TEST(GlobalMinimizers, StochasticMethodsAreDeterministicBySeed) {
    for (const Method method : {Method::kCmaes, Method::kParticleSwarm,
                                Method::kDifferentialEvolution, Method::kSimulatedAnnealing}) {
        MinimizerOptions options = with(method);
        options.max_iterations = 30;
        const std::vector<double> start{2.2, -3.1};
        const MinimizerResult a = minimize(rastrigin(2), start, options);
        const MinimizerResult b = minimize(rastrigin(2), start, options);
        EXPECT_EQ(a.x, b.x);
        EXPECT_EQ(a.value_evaluations, b.value_evaluations);
        options.cmaes.seed = options.particle_swarm.seed = options.differential_evolution.seed =
            options.simulated_annealing.seed = 7;
        const MinimizerResult c = minimize(rastrigin(2), start, options);
        EXPECT_NE(a.x, c.x) << static_cast<int>(method);
    }
}

TEST(GlobalMinimizers, ReportProgressAndStopOnRequest) {
    for (const Method method : kAll) {
        MinimizerOptions options = with(method);
        std::size_t calls = 0;
        options.progress = [&calls](const Progress& p) {
            ++calls;
            EXPECT_EQ(p.x.size(), 2U);
            return p.iteration < 3;
        };
        const MinimizerResult r = minimize(rosenbrock(), std::vector<double>{-1.2, 1.0}, options);
        EXPECT_EQ(r.termination, Termination::kStopped) << static_cast<int>(method);
        EXPECT_FALSE(r.converged);
        EXPECT_GE(calls, 1U);
    }
}

TEST(GlobalMinimizers, HandleAnObjectiveWithoutParameters) {
    Objective constant;
    constant.dimension = 0;
    constant.value_and_gradient = [](std::span<const double>) {
        return runtime::Evaluation{2.5, {}};
    };
    for (const Method method : kAll) {
        const MinimizerResult r = minimize(constant, std::vector<double>{}, with(method));
        EXPECT_TRUE(r.converged);
        EXPECT_EQ(r.value, 2.5);
        EXPECT_TRUE(r.x.empty());
    }
}

TEST(GlobalMinimizers, RejectOptionsOutOfRange) {
    const std::vector<double> start{0.0, 0.0};
    const auto rejects = [&](const MinimizerOptions& options) {
        EXPECT_THROW((void)minimize(shifted_quadratic(2), start, options), FitError);
    };
    MinimizerOptions o = with(Method::kCmaes);
    o.cmaes.population_size = 1;
    rejects(o);
    o = with(Method::kCmaes);
    o.cmaes.initial_sigma = 0.0;
    rejects(o);
    o = with(Method::kParticleSwarm);
    o.particle_swarm.inertia = -0.1;
    rejects(o);
    o = with(Method::kParticleSwarm);
    o.particle_swarm.position_bounds = {{1.0, 0.0}, {0.0, 1.0}};
    rejects(o);
    o = with(Method::kDifferentialEvolution);
    o.differential_evolution.population_size = 3;
    rejects(o);
    o = with(Method::kDifferentialEvolution);
    o.differential_evolution.crossover_probability = 1.5;
    rejects(o);
    o = with(Method::kSimulatedAnnealing);
    o.simulated_annealing.cooling_rate = 1.0;
    rejects(o);
    o = with(Method::kTrustRegion);
    o.trust_region.eta = 1.0;
    rejects(o);
}

// ---- each option changes the run ----

MinimizerResult run(const MinimizerOptions& options, std::size_t n = 2) {
    std::vector<double> start(n, 0.0);
    start[0] = 2.2;
    start[n - 1] = -3.1;
    return minimize(rastrigin(n), start, options);
}

void expect_changes(const MinimizerOptions& base, const MinimizerOptions& changed, const char* what,
                    std::size_t n = 2) {
    const MinimizerResult a = run(base, n);
    const MinimizerResult b = run(changed, n);
    EXPECT_TRUE(a.x != b.x || a.value_evaluations != b.value_evaluations) << what;
}

TEST(GlobalMinimizerOptions, CmaesOptionsChangeTheRun) {
    MinimizerOptions base = with(Method::kCmaes);
    base.max_iterations = 40;
    MinimizerOptions o = base;
    o.cmaes.population_size = 12;
    expect_changes(base, o, "population_size");
    o = base;
    o.cmaes.initial_sigma = 2.0;
    expect_changes(base, o, "initial_sigma");
    // Each stopping rule: loosened so that it (and only it) ends the run early.
    base.max_iterations = 3000;
    const auto ends_with = [&](MinimizerOptions options, const char* message) {
        options.cmaes.sigma_tolerance =
            options.cmaes.sigma_tolerance == 1e-10 ? -1.0 : options.cmaes.sigma_tolerance;
        const MinimizerResult r = run(options);
        EXPECT_EQ(r.message, std::string("CMA-ES: ") + message);
    };
    MinimizerOptions off = base;
    off.cmaes.no_effect_axis = off.cmaes.no_effect_coord = off.cmaes.equal_fun_values =
        off.cmaes.stagnation = false;
    off.cmaes.max_condition = off.cmaes.max_growth = off.cmaes.tol_fun = -1.0;
    off.cmaes.tol_x = -1.0;
    o = off;
    o.cmaes.sigma_tolerance = 1e-3;
    ends_with(o, "SIGMA WITHIN TOLERANCE");
    o = off;
    o.cmaes.tol_fun = 1e-3;
    ends_with(o, "TOL FUN");
    o = off;
    o.cmaes.tol_x = 1e-3;
    ends_with(o, "TOL X");
    o = off;
    o.cmaes.max_growth = 1.5;
    o.cmaes.initial_sigma = 0.01;
    ends_with(o, "TOL X UP");
    o = off;
    o.cmaes.max_condition = 2.0;
    ends_with(o, "CONDITION COVARIANCE");
    o = off;
    o.cmaes.no_effect_coord = true;
    ends_with(o, "NO EFFECT COORD");
    o = off;
    o.cmaes.no_effect_axis = true;
    ends_with(o, "NO EFFECT AXIS");
    o = off;
    o.cmaes.equal_fun_values = true;
    ends_with(o, "EQUAL FUNCTION VALUES");
}

TEST(GlobalMinimizerOptions, CmaesStagnationEndsAFlatRun) {
    MinimizerOptions options = with(Method::kCmaes);
    options.cmaes = CmaesOptions{};
    options.cmaes.no_effect_axis = options.cmaes.no_effect_coord = false;
    options.cmaes.equal_fun_values = false;
    options.cmaes.sigma_tolerance = options.cmaes.max_condition = options.cmaes.max_growth = -1.0;
    options.cmaes.tol_fun = options.cmaes.tol_x = -1.0;
    Objective flat;
    flat.dimension = 2;
    flat.value_and_gradient = [](std::span<const double>) {
        return runtime::Evaluation{1.0, {0.0, 0.0}};
    };
    const MinimizerResult r = minimize(flat, std::vector<double>{0.0, 0.0}, options);
    EXPECT_EQ(r.message, "CMA-ES: STAGNATION");
    options.cmaes.stagnation = false;
    options.max_iterations = 500;
    EXPECT_EQ(minimize(flat, std::vector<double>{0.0, 0.0}, options).termination,
              Termination::kMaxIterations);
}

TEST(GlobalMinimizerOptions, ParticleSwarmOptionsChangeTheRun) {
    MinimizerOptions base = with(Method::kParticleSwarm);
    base.max_iterations = 30;
    const auto change = [&](auto edit, const char* what) {
        MinimizerOptions o = base;
        edit(o.particle_swarm);
        expect_changes(base, o, what);
    };
    change([](ParticleSwarmOptions& p) { p.particles = 7; }, "particles");
    change([](ParticleSwarmOptions& p) { p.inertia = 0.3; }, "inertia");
    change([](ParticleSwarmOptions& p) { p.cognitive = 0.5; }, "cognitive");
    change([](ParticleSwarmOptions& p) { p.social = 0.5; }, "social");
    change([](ParticleSwarmOptions& p) { p.initial_scale = 3.0; }, "initial_scale");
    change([](ParticleSwarmOptions& p) { p.position_bounds = {{-5.0, 5.0}, {-5.0, 5.0}}; },
           "position_bounds");
    change([](ParticleSwarmOptions& p) { p.topology = SwarmTopology::kRing; }, "topology");
    MinimizerOptions ring = base;
    ring.particle_swarm.topology = SwarmTopology::kRing;
    MinimizerOptions wide = ring;
    wide.particle_swarm.ring_radius = 4;
    expect_changes(ring, wide, "ring_radius");
    change([](ParticleSwarmOptions& p) { p.asynchronous = true; }, "asynchronous");
    change([](ParticleSwarmOptions& p) { p.velocity_scale = 0.5; }, "velocity_scale");
    MinimizerOptions loose = with(Method::kParticleSwarm);
    MinimizerOptions tight = loose;
    loose.particle_swarm.spread_tolerance = 1e-2;
    expect_changes(loose, tight, "spread_tolerance");
}

TEST(GlobalMinimizerOptions, DifferentialEvolutionOptionsChangeTheRun) {
    MinimizerOptions base = with(Method::kDifferentialEvolution);
    base.max_iterations = 30;
    const auto change = [&](auto edit, const char* what) {
        MinimizerOptions o = base;
        edit(o.differential_evolution);
        expect_changes(base, o, what);
    };
    change([](DifferentialEvolutionOptions& d) { d.population_size = 9; }, "population_size");
    change([](DifferentialEvolutionOptions& d) { d.differential_weight = 0.5; },
           "differential_weight");
    change([](DifferentialEvolutionOptions& d) { d.crossover_probability = 0.3; },
           "crossover_probability");
    change([](DifferentialEvolutionOptions& d) { d.initial_scale = 3.0; }, "initial_scale");
    MinimizerOptions loose = with(Method::kDifferentialEvolution);
    MinimizerOptions tight = loose;
    loose.differential_evolution.spread_tolerance = 1e-2;
    expect_changes(loose, tight, "spread_tolerance");
}

TEST(GlobalMinimizerOptions, SimulatedAnnealingOptionsChangeTheRun) {
    MinimizerOptions base = with(Method::kSimulatedAnnealing);
    base.max_iterations = 1000;
    const auto change = [&](auto edit, const char* what) {
        MinimizerOptions o = base;
        edit(o.simulated_annealing);
        expect_changes(base, o, what);
    };
    change([](SimulatedAnnealingOptions& s) { s.initial_temperature = 20.0; },
           "initial_temperature");
    change([](SimulatedAnnealingOptions& s) { s.cooling_rate = 0.9; }, "cooling_rate");
    change([](SimulatedAnnealingOptions& s) { s.proposal_scale = 0.5; }, "proposal_scale");
    change([](SimulatedAnnealingOptions& s) { s.min_temperature = 0.5; }, "min_temperature");
    const MinimizerResult cold = run([&] {
        MinimizerOptions o = base;
        o.simulated_annealing.min_temperature = 0.5;
        return o;
    }());
    EXPECT_EQ(cold.termination, Termination::kTemperature);
    EXPECT_TRUE(cold.converged);
    // T₀ 0.999ⁿ < 0.5 after n = 693 steps.
    EXPECT_EQ(cold.iterations, 693U);
}

TEST(GlobalMinimizerOptions, ConjugateGradientUpdatesChangeTheRun) {
    MinimizerOptions base = with(Method::kConjugateGradient);
    std::vector<std::size_t> counts;
    for (const ConjugateGradientUpdate update :
         {ConjugateGradientUpdate::kFletcherReeves, ConjugateGradientUpdate::kPolakRibierePlus,
          ConjugateGradientUpdate::kHestenesStiefelPlus, ConjugateGradientUpdate::kDaiYuan,
          ConjugateGradientUpdate::kHagerZhang}) {
        MinimizerOptions o = base;
        o.conjugate_gradient.update = update;
        const MinimizerResult r = minimize(rosenbrock(), std::vector<double>{-1.2, 1.0}, o);
        EXPECT_NEAR(r.x[0], 1.0, 1e-4) << static_cast<int>(update);
        for (const std::size_t c : counts) {
            EXPECT_NE(c, r.value_evaluations) << static_cast<int>(update);
        }
        counts.push_back(r.value_evaluations);
    }
    MinimizerOptions loose = base;
    loose.conjugate_gradient.gradient_norm_tolerance = 1.0;
    const MinimizerResult a = minimize(rosenbrock(), std::vector<double>{-1.2, 1.0}, base);
    const MinimizerResult b = minimize(rosenbrock(), std::vector<double>{-1.2, 1.0}, loose);
    EXPECT_LT(b.value_evaluations, a.value_evaluations);
    MinimizerOptions hz = base;
    hz.line_search.kind = LineSearchKind::kHagerZhang;
    EXPECT_NE(minimize(rosenbrock(), std::vector<double>{-1.2, 1.0}, hz).value_evaluations,
              a.value_evaluations);
}

TEST(GlobalMinimizerOptions, TrustRegionOptionsChangeTheRun) {
    MinimizerOptions base = with(Method::kTrustRegion);
    const auto evaluations = [](const MinimizerOptions& o) {
        const MinimizerResult r = minimize(rosenbrock(), std::vector<double>{-1.2, 1.0}, o);
        EXPECT_NEAR(r.x[0], 1.0, 1e-4);
        return r.value_evaluations;
    };
    const std::size_t reference = evaluations(base);
    MinimizerOptions o = base;
    o.trust_region.subproblem = TrustRegionSubproblem::kCauchyPoint;
    // Steepest descent in the valley: slow, and stopped by the value change far from (1, 1).
    const MinimizerResult cauchy = minimize(rosenbrock(), std::vector<double>{-1.2, 1.0}, o);
    EXPECT_NE(cauchy.value_evaluations, reference) << "subproblem";
    EXPECT_LT(cauchy.value, 24.2);
    o = base;
    o.trust_region.initial_radius = 0.05;
    EXPECT_NE(evaluations(o), reference) << "initial_radius";
    MinimizerOptions small = base;
    small.trust_region.initial_radius = 0.05;
    o = small;
    o.trust_region.max_radius = 0.1;  // (a max_radius below initial_radius is initial_radius)
    EXPECT_NE(evaluations(o), evaluations(small)) << "max_radius";
    o = base;
    o.trust_region.eta = 0.9;
    EXPECT_NE(evaluations(o), reference) << "eta";
    o = base;
    o.trust_region.gradient_norm_tolerance = 1e-1;
    EXPECT_LT(minimize(rosenbrock(), std::vector<double>{-1.2, 1.0}, o).value_evaluations,
              reference);
}

}  // namespace
}  // namespace laddu::fit
