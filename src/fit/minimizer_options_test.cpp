// Each option of MinimizerOptions changes what the minimiser does: a test here fails if the
// option were ignored.
#include <cmath>
#include <span>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/base/error.hpp>
#include <laddu/fit/minimizer.hpp>

namespace laddu::fit {
namespace {

// 100 (y − x²)² + (1 − x)² + offset: minimum (1, 1).
Objective rosenbrock(double offset = 0.0) {
    Objective objective;
    objective.dimension = 2;
    objective.value_and_gradient = [offset](std::span<const double> p) {
        const double x = p[0];
        const double y = p[1];
        return runtime::Evaluation{100.0 * (y - x * x) * (y - x * x) + (1 - x) * (1 - x) + offset,
                                   {-400.0 * x * (y - x * x) - 2.0 * (1 - x), 200.0 * (y - x * x)}};
    };
    return objective;
}

// Σ_k x_k² + 3 sin²(1.5 x_k): bumps along every line, so the line searches bracket, bisect
// and shrink; minimum 0 at 0.
Objective bumpy(std::size_t n, double height = 3.0) {
    Objective objective;
    objective.dimension = n;
    objective.value_and_gradient = [height](std::span<const double> x) {
        runtime::Evaluation e{0.0, std::vector<double>(x.size())};
        for (std::size_t k = 0; k < x.size(); ++k) {
            const double s = std::sin(1.5 * x[k]);
            e.value += x[k] * x[k] + height * s * s;
            e.gradient[k] = 2.0 * x[k] + 3.0 * height * s * std::cos(1.5 * x[k]);
        }
        return e;
    };
    return objective;
}

// The evaluation counts over a few problems and starts (an option that matters somewhere
// changes this list).
std::vector<std::size_t> evaluation_profile(const MinimizerOptions& options) {
    std::vector<std::size_t> counts;
    const std::vector<std::vector<double>> starts{{-1.2, 1.0}, {2.0, 2.0}, {3.1, -2.7}};
    for (const std::vector<double>& start : starts) {
        counts.push_back(minimize(rosenbrock(), start, options).value_evaluations);
        counts.push_back(minimize(bumpy(2), start, options).value_evaluations);
        counts.push_back(minimize(bumpy(2, 40.0), start, options).value_evaluations);
        const std::vector<double> far{start[0] * 4.0};
        counts.push_back(minimize(bumpy(1, 40.0), far, options).value_evaluations);
    }
    return counts;
}

// Σ_k (k + 1) (x_k − 1)²: minimum at (1, …, 1), value 0.
Objective quadratic(std::size_t n) {
    Objective objective;
    objective.dimension = n;
    objective.value_and_gradient = [](std::span<const double> x) {
        runtime::Evaluation e{0.0, std::vector<double>(x.size())};
        for (std::size_t k = 0; k < x.size(); ++k) {
            const double w = static_cast<double>(k + 1);
            e.value += w * (x[k] - 1.0) * (x[k] - 1.0);
            e.gradient[k] = 2.0 * w * (x[k] - 1.0);
        }
        return e;
    };
    return objective;
}

const std::vector<double> kStart{-1.2, 1.0};

MinimizerResult run(const Objective& objective, const MinimizerOptions& options,
                    std::vector<double> start = kStart) {
    return minimize(objective, start, options);
}

void expect_at_rosenbrock_minimum(const MinimizerResult& r, double tolerance) {
    EXPECT_TRUE(r.converged) << termination_name(r.termination);
    EXPECT_NEAR(r.x[0], 1.0, tolerance);
    EXPECT_NEAR(r.x[1], 1.0, tolerance);
}

TEST(MinimizerOptions, MemoryChangesTheLbfgsPath) {
    MinimizerOptions options;
    const MinimizerResult ten = run(quadratic(6), options, std::vector<double>(6, 3.0));
    options.memory = 1;
    const MinimizerResult one = run(quadratic(6), options, std::vector<double>(6, 3.0));
    EXPECT_TRUE(ten.converged);
    EXPECT_TRUE(one.converged);
    EXPECT_GT(one.iterations, ten.iterations);
}

TEST(MinimizerOptions, MaxStepCapsTheStep) {
    MinimizerOptions options;
    options.max_iterations = 3;
    options.max_step = 1e-3;
    const MinimizerResult r = run(quadratic(1), options, {3.0});
    // Three steps of at most α = 1e-3 along d = −g (|g| = 4 at the start; memory scales later
    // steps by at most the curvature): far from the minimum at 1.
    EXPECT_GT(r.x[0], 2.9);
    options.max_step = 1e8;
    EXPECT_NEAR(run(quadratic(1), options, {3.0}).x[0], 1.0, 1e-6);
}

TEST(MinimizerOptions, EveryLineSearchReachesTheMinimumOnItsOwnPath) {
    MinimizerOptions options;
    const MinimizerResult backtracking = run(rosenbrock(), options);
    options.line_search.kind = LineSearchKind::kMoreThuente;
    const MinimizerResult more_thuente = run(rosenbrock(), options);
    options.line_search.kind = LineSearchKind::kHagerZhang;
    const MinimizerResult hager_zhang = run(rosenbrock(), options);
    for (const MinimizerResult* r : {&backtracking, &more_thuente, &hager_zhang}) {
        expect_at_rosenbrock_minimum(*r, 1e-5);
    }
    EXPECT_NE(backtracking.value_evaluations, more_thuente.value_evaluations);
    EXPECT_NE(more_thuente.value_evaluations, hager_zhang.value_evaluations);
}

TEST(MinimizerOptions, MoreThuenteSettingsChangeTheSearch) {
    MinimizerOptions options;
    options.line_search.kind = LineSearchKind::kMoreThuente;
    const MinimizerResult loose = run(rosenbrock(), options);
    options.line_search.c2 = 0.1;  // a stricter curvature condition: more trials per step
    const MinimizerResult strict = run(rosenbrock(), options);
    expect_at_rosenbrock_minimum(strict, 1e-5);
    EXPECT_GT(strict.value_evaluations, loose.value_evaluations);
    options.line_search.c2 = 0.9;
    options.line_search.c1 = 0.5;  // a stricter decrease condition
    EXPECT_NE(run(rosenbrock(), options).value_evaluations, loose.value_evaluations);
    options.line_search.c1 = 1e-4;
    options.line_search.max_zoom = 0;  // no bisection: the first zoom trial or failure
    EXPECT_NE(run(rosenbrock(), options).value_evaluations, loose.value_evaluations);
    options.line_search.max_zoom = 20;
    const std::vector<std::size_t> extrapolating = evaluation_profile(options);
    options.line_search.max_iterations = 0;  // no extrapolation beyond the first trial
    EXPECT_NE(evaluation_profile(options), extrapolating);
}

TEST(MinimizerOptions, HagerZhangSettingsChangeTheSearch) {
    MinimizerOptions options;
    options.line_search.kind = LineSearchKind::kHagerZhang;
    const std::vector<std::size_t> base = evaluation_profile(options);
    const auto profile = [&](auto change) {
        MinimizerOptions changed = options;
        change(changed.line_search);
        return evaluation_profile(changed);
    };
    EXPECT_NE(profile([](LineSearchOptions& o) { o.sigma = 0.2; }), base);
    EXPECT_NE(profile([](LineSearchOptions& o) { o.delta = 0.01; }), base);
    EXPECT_NE(profile([](LineSearchOptions& o) { o.epsilon = 0.5; }), base);
    EXPECT_NE(profile([](LineSearchOptions& o) { o.theta = 0.1; }), base);
    EXPECT_NE(profile([](LineSearchOptions& o) { o.gamma = 0.1; }), base);
    EXPECT_NE(profile([](LineSearchOptions& o) { o.max_iterations = 0; }), base);
    EXPECT_NE(profile([](LineSearchOptions& o) { o.max_bisects = 0; }), base);
}

TEST(MinimizerOptions, GaneshTerminatorsStopTheGradientMethod) {
    MinimizerOptions options;
    const MinimizerResult full = run(rosenbrock(), options);
    options.value_tolerance = -1.0;
    options.gradient_tolerance = -1.0;
    options.value_change_tolerance = 1e-2;  // |Δf| < 0.01
    const MinimizerResult f = run(rosenbrock(), options);
    EXPECT_EQ(f.termination, Termination::kValueChange);
    EXPECT_LT(f.iterations, full.iterations);
    options.value_change_tolerance = 0.0;
    options.gradient_norm_tolerance = 1.0;  // ‖g‖₂ < 1
    const MinimizerResult g = run(rosenbrock(), options);
    EXPECT_EQ(g.termination, Termination::kGradient);
    EXPECT_LT(g.iterations, full.iterations);
    double norm = 0.0;
    for (const double v : rosenbrock().value_and_gradient(g.x).gradient) {
        norm += v * v;
    }
    EXPECT_LT(std::sqrt(norm), 1.0);
}

TEST(MinimizerOptions, NelderMeadCoefficientsChangeThePath) {
    MinimizerOptions options;
    options.method = Method::kNelderMead;
    options.max_iterations = 400;
    expect_at_rosenbrock_minimum(run(rosenbrock(), options), 1e-4);
    const std::vector<std::size_t> base = evaluation_profile(options);
    const auto profile = [&](auto change) {
        MinimizerOptions changed = options;
        change(changed.nelder_mead);
        return evaluation_profile(changed);
    };
    EXPECT_NE(profile([](NelderMeadOptions& o) { o.reflection = 0.9; }), base);
    EXPECT_NE(profile([](NelderMeadOptions& o) { o.expansion = 3.0; }), base);
    EXPECT_NE(profile([](NelderMeadOptions& o) { o.contraction = 0.3; }), base);
    EXPECT_NE(profile([](NelderMeadOptions& o) { o.shrink = 0.8; }), base);
    EXPECT_NE(profile([](NelderMeadOptions& o) {
                  o.expansion_method = SimplexExpansion::kGreedyExpansion;
              }),
              base);
}

TEST(MinimizerOptions, NelderMeadStartSimplex) {
    MinimizerOptions options;
    options.method = Method::kNelderMead;
    options.max_iterations = 0;  // the start simplex only: its best vertex is returned
    const Objective q = quadratic(2);
    options.nelder_mead.initial_step = 0.5;  // ganesh's: x_k (1 + step); 0.25 when x_k = 0
    options.nelder_mead.initial_zero_step = 0.25;
    EXPECT_EQ(run(q, options, {0.8, 0.0}).x, (std::vector<double>{0.8, 0.25}));
    EXPECT_EQ(run(q, options, {0.0, 0.8}).x, (std::vector<double>{0.25, 0.8}));
    EXPECT_EQ(run(q, options, {0.5, 0.5}).x, (std::vector<double>{0.5, 0.75}));
    options.nelder_mead.vertices = {{5.0, 5.0}, {1.5, 1.0}, {4.0, 3.0}};
    const MinimizerResult given = run(q, options, {0.0, 0.0});
    EXPECT_EQ(given.x, (std::vector<double>{1.5, 1.0}));
    EXPECT_EQ(given.value_evaluations, 3U);
    options.max_iterations = 5000;
    EXPECT_NEAR(run(q, options, {0.0, 0.0}).x[0], 1.0, 1e-3);
}

TEST(MinimizerOptions, NelderMeadTerminatorsUseGaneshsDefinitions) {
    MinimizerOptions options;
    options.method = Method::kNelderMead;
    const MinimizerResult tight = run(rosenbrock(1.0), options);
    const auto stop_with = [&](SimplexCriterion criterion, double tolerance) {
        MinimizerOptions changed = options;
        changed.nelder_mead.terminators = {{criterion, tolerance}};
        return run(rosenbrock(1.0), changed);  // amoeba's relative test needs f != 0
    };
    for (const SimplexCriterion c :
         {SimplexCriterion::kValueStdDev, SimplexCriterion::kValueAbsolute,
          SimplexCriterion::kValueAmoeba}) {
        const MinimizerResult r = stop_with(c, 1e-3);
        EXPECT_EQ(r.termination, Termination::kSimplexValues);
        EXPECT_TRUE(r.converged);
        EXPECT_LT(r.iterations, tight.iterations);
        EXPECT_GT(stop_with(c, 1e-8).iterations, r.iterations);
    }
    for (const SimplexCriterion c :
         {SimplexCriterion::kPointDiameter, SimplexCriterion::kPointHigham,
          SimplexCriterion::kPointRowan, SimplexCriterion::kPointSinger}) {
        const MinimizerResult r = stop_with(c, 1e-2);
        EXPECT_EQ(r.termination, Termination::kSimplexSize);
        EXPECT_LT(r.iterations, tight.iterations);
        EXPECT_GT(stop_with(c, 1e-6).iterations, r.iterations);
    }
}

TEST(MinimizerOptions, OutOfRangeOptionsAreFitErrors) {
    const auto rejects = [](auto change) {
        MinimizerOptions options;
        change(options);
        EXPECT_THROW((void)minimize(rosenbrock(), kStart, options), FitError);
    };
    rejects([](MinimizerOptions& o) { o.memory = 0; });
    rejects([](MinimizerOptions& o) { o.max_step = 0.0; });
    rejects([](MinimizerOptions& o) { o.line_search.c1 = 0.95; });
    rejects([](MinimizerOptions& o) { o.line_search.sigma = 0.05; });
    rejects([](MinimizerOptions& o) { o.line_search.theta = 1.0; });
    rejects([](MinimizerOptions& o) { o.nelder_mead.expansion = 0.9; });
    rejects([](MinimizerOptions& o) { o.nelder_mead.shrink = 1.0; });
    rejects([](MinimizerOptions& o) { o.nelder_mead.initial_zero_step = 0.0; });
    rejects([](MinimizerOptions& o) { o.nelder_mead.vertices = {{0.0, 0.0}}; });
    rejects([](MinimizerOptions& o) {
        o.nelder_mead.terminators = {{SimplexCriterion::kValueAbsolute, 0.0}};
    });
}

}  // namespace
}  // namespace laddu::fit
