// laddu/fit/minimizer.hpp: bounded minimisers of a scalar objective with an exact gradient.
//
// Nine methods, written here rather than taken from NLopt so that termination reasons,
// evaluation counts and the progress callback are ours and no dependency is added:
//  - kLbfgsb: a projected L-BFGS with box bounds. Each iteration fixes the variables sitting on
//    a bound whose gradient pushes outwards, builds the two-loop L-BFGS direction on the free
//    ones, and searches along it (by default backtracking along the projected path P(x + αd)
//    until the Armijo condition holds, see LineSearchOptions; a failed search restarts once
//    from the projected steepest descent). Curvature pairs
//    with s·y <= 0 are skipped, so the inverse-Hessian model stays positive definite.
//  - kVariableMetric: MIGRAD-style dense BFGS: the full inverse-Hessian estimate H is updated
//    every step, the same projected backtracking search is used, and it also stops when the
//    estimated distance to the minimum, EDM = ½ gᵀ H g, is below edm_tolerance. The final H
//    is returned (an approximate covariance, as MIGRAD's).
//  - kNelderMead: the simplex method (Nelder & Mead 1965; coefficients, start simplex,
//    expansion rule and stopping rules in NelderMeadOptions); gradients are not used.
//  - kCmaes, kParticleSwarm, kDifferentialEvolution, kSimulatedAnnealing: ganesh's
//    derivative-free global methods (options and sources in CmaesOptions, ParticleSwarmOptions,
//    DifferentialEvolutionOptions, SimulatedAnnealingOptions). They are random, and a function
//    of their seed; the result is the best point evaluated.
//  - kConjugateGradient: nonlinear conjugate gradient with ganesh's five β formulas along a
//    strong-Wolfe search; kTrustRegion: dogleg or Cauchy-point trust region on the Hessian from
//    central differences of the exact gradient.
// L-BFGS-B's line search is chosen in LineSearchOptions: the projected backtracking above
// (default), a strong-Wolfe search with bisection zoom (ganesh's MoreThuenteLineSearch,
// Nocedal & Wright 2006 Alg. 3.5/3.6 after Moré & Thuente 1994) or Hager & Zhang's 2006
// approximate-Wolfe secant search; the Wolfe searches move along the feasible segment of the
// direction (components leaving the box are dropped) and stop at its end.
// Bounds: L-BFGS-B projects onto its box natively. Every other method minimises over
// MINUIT-style internal parameters (fit/transform.hpp) that map into the bounds, so they never
// evaluate outside them and end exactly on a bound when the minimum lies beyond it (the
// population methods' scales, initial_sigma, initial_scale, proposal_scale, are in these
// internal parameters for a bounded parameter, as with ganesh's transform). Periodic parameters are
// unbounded for every method and wrapped into their period. A start on a bound is moved inside by
// 1e-3 in the internal parameter (the transform's slope is 0 there, which would stall the search).
// Progress::x and MinimizerResult::x are external. A minimisation that does not converge returns
// converged = false and the reason; it is not an exception. An objective that throws
// EvaluationError during a line search or a simplex move counts as +∞ there (the step is rejected);
// at the start point the error propagates.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include <laddu/expr/parameter.hpp>
#include <laddu/likelihood/term.hpp>

namespace laddu::fit {

/// A function to minimise: its dimension, value-and-gradient, and optional box bounds.
struct Objective {
    std::size_t dimension = 0;
    /// The value and exact gradient at x (x.size() == dimension).
    std::function<runtime::Evaluation(std::span<const double>)> value_and_gradient;
    /// The value alone (optional; value_and_gradient is used when empty).
    std::function<double(std::span<const double>)> value;
    /// One interval per dimension (either end may be infinite), or empty for none.
    std::vector<expr::Bounds> bounds;
    /// One flag per dimension, or empty for none: the objective is periodic in that parameter
    /// with its bounds as the period (none: [−π, π)); results are wrapped into it.
    std::vector<bool> periodic;
};

/// The minimisation method.
enum class Method : std::uint8_t {
    kLbfgsb,                 ///< projected limited-memory BFGS with bounds (default)
    kNelderMead,             ///< derivative-free simplex
    kVariableMetric,         ///< dense BFGS with an EDM criterion (MIGRAD-style)
    kCmaes,                  ///< CMA-ES, derivative-free evolution strategy (CmaesOptions)
    kParticleSwarm,          ///< particle swarm, derivative-free (ParticleSwarmOptions)
    kDifferentialEvolution,  ///< differential evolution, derivative-free
                             ///< (DifferentialEvolutionOptions)
    kSimulatedAnnealing,     ///< simulated annealing, derivative-free (SimulatedAnnealingOptions)
    kConjugateGradient,      ///< nonlinear conjugate gradient (ConjugateGradientOptions)
    kTrustRegion,            ///< trust region on a finite-difference Hessian (TrustRegionOptions)
};

/// Why a minimisation stopped.
enum class Termination : std::uint8_t {
    kGradient,           ///< projected-gradient infinity norm below gradient_tolerance
    kValueChange,        ///< value change below value_tolerance or value_change_tolerance
    kSimplexSize,        ///< Nelder-Mead simplex smaller than simplex_tolerance (or a point test)
    kSimplexValues,      ///< Nelder-Mead: a SimplexTerminator on the vertex values was met
    kDistanceToMinimum,  ///< variable metric: EDM = ½ gᵀ H g below edm_tolerance
    kMaxIterations,      ///< max_iterations reached (not converged)
    kLineSearchFailed,   ///< no descent step found (not converged)
    kStopped,            ///< the progress callback asked to stop (not converged)
    kPopulationSpread,   ///< swarm / DE: the population's values agree within spread_tolerance
    kEvolutionStrategy,  ///< CMA-ES: one of its stopping rules (MinimizerResult::message says
                         ///< which)
    kTemperature,        ///< simulated annealing: the temperature fell below min_temperature
};

/// A readable reason, e.g. "projected gradient below tolerance".
[[nodiscard]] const char* termination_name(Termination termination) noexcept;

/// What the progress callback sees after each iteration (for a live status line).
struct Progress {
    std::size_t iteration = 0;
    double value = 0.0;            ///< the objective at x
    std::span<const double> x;     ///< the current point (external parameters)
    std::size_t evaluations = 0;   ///< objective evaluations so far (with or without gradient)
    double best = 0.0;             ///< the lowest value reported so far in this minimisation
    double elapsed_seconds = 0.0;  ///< since minimize() started
};

/// Called after every iteration; return false to stop the minimisation (Termination::kStopped).
using ProgressCallback = std::function<bool(const Progress&)>;

/// The line search of kLbfgsb.
enum class LineSearchKind : std::uint8_t {
    kBacktracking,  ///< projected Armijo backtracking, halving up to 60 times (default)
    kMoreThuente,   ///< strong Wolfe: extrapolation, then bisection zoom (ganesh's MoreThuente)
    kHagerZhang,    ///< Hager & Zhang (2006): approximate Wolfe, secant² and bisection
};

/// Settings of the L-BFGS-B line search (ganesh's names and defaults).
struct LineSearchOptions {
    LineSearchKind kind = LineSearchKind::kBacktracking;
    double c1 = 1e-4;  ///< Moré-Thuente: sufficient decrease, 0 < c1 < c2
    double c2 = 0.9;   ///< Moré-Thuente: curvature, c2 < 1
    /// Moré-Thuente: extrapolation steps; Hager-Zhang: bracket updates.
    std::size_t max_iterations = 20;
    std::size_t max_zoom = 20;     ///< Moré-Thuente: bisections of the bracket
    double delta = 0.1;            ///< Hager-Zhang: sufficient decrease, 0 < delta < sigma
    double sigma = 0.9;            ///< Hager-Zhang: curvature, sigma < 1
    double epsilon = 1e-6;         ///< Hager-Zhang: approximate-Wolfe slack, ε · |f(x)|
    double theta = 0.5;            ///< Hager-Zhang: bisection point in (0, 1)
    double gamma = 0.66;           ///< Hager-Zhang: bracket shrink that avoids a bisection
    std::size_t max_bisects = 50;  ///< Hager-Zhang: bisections per bracket update
};

/// Which trial point replaces the worst vertex after a successful expansion.
enum class SimplexExpansion : std::uint8_t {
    kGreedyMinimization,  ///< the better of the reflected and the expanded point (default)
    kGreedyExpansion,     ///< the expanded point, whenever the reflection beat the best vertex
};

/// A stopping rule of Nelder-Mead (ganesh's NelderMeadFTerminator / NelderMeadXTerminator).
enum class SimplexCriterion : std::uint8_t {
    kValueStdDev,    ///< standard deviation of the vertex values <= tolerance
    kValueAbsolute,  ///< f_worst − f_best <= tolerance
    kValueAmoeba,    ///< 2 (f_worst − f_best) / (|f_worst| + |f_best|) <= tolerance
    kPointDiameter,  ///< max over vertices of ‖v − best‖∞ <= tolerance
    kPointHigham,    ///< max ‖v − best‖₁ / max(1, ‖best‖₁) <= tolerance
    kPointRowan,     ///< ‖worst − best‖₂ <= tolerance · the same at the start
    kPointSinger,    ///< volume relative to the start (from the moves' factors) <= toleranceⁿ
};

/// One Nelder-Mead stopping rule and its tolerance.
struct SimplexTerminator {
    SimplexCriterion criterion = SimplexCriterion::kValueStdDev;
    double tolerance = 1.220703125e-4;  ///< ganesh's default, ε^¼
};

/// Settings of kNelderMead (Nelder & Mead 1965; ganesh's names).
struct NelderMeadOptions {
    double reflection = 1.0;   ///< α > 0
    double expansion = 2.0;    ///< β > max(1, α)
    double contraction = 0.5;  ///< γ in (0, 1)
    double shrink = 0.5;       ///< δ in (0, 1)
    SimplexExpansion expansion_method = SimplexExpansion::kGreedyMinimization;
    /// > 0: ganesh's start simplex, vertex k moves x_k to x_k (1 + initial_step), or to
    /// initial_zero_step when x_k = 0; 0: MinimizerOptions::initial_simplex's absolute steps.
    double initial_step = 0.0;
    double initial_zero_step = 0.00025;
    /// n + 1 start vertices (external parameters, each of size n), or empty.
    std::vector<std::vector<double>> vertices;
    /// Non-empty: these rules replace simplex_tolerance / value_tolerance; any one met stops.
    std::vector<SimplexTerminator> terminators;
};

/// Settings of kCmaes: Hansen's (μ/μ_w, λ)-CMA-ES with active (negative-weight) covariance
/// update (N. Hansen, "The CMA evolution strategy: a tutorial", arXiv:1604.00772), with ganesh's
/// names, defaults and stopping rules (each a CMAES*Terminator of ganesh; all are on by
/// default and any one met ends the run as converged).
struct CmaesOptions {
    std::size_t population_size = 0;  ///< λ >= 2; 0: 4 + ⌊3 ln n⌋
    double initial_sigma = 0.5;       ///< σ₀ > 0, the start step size
    std::uint64_t seed = 0;           ///< the run is a function of the seed
    double sigma_tolerance = 1e-10;   ///< σ √λ_max(C) <= this (<= 0: off)
    double max_condition = 1e14;      ///< λ_max / λ_min of C above this (<= 0: off)
    double max_growth = 1e4;          ///< σ √λ_max(C) > this · σ₀ (<= 0: off)
    double tol_fun = 1e-12;  ///< recent best and this generation's values span < this (<= 0: off)
    /// σ √C_kk and σ |p_c,k| all below this; 0: 1e-12 σ₀ (< 0: off).
    double tol_x = 0.0;
    bool no_effect_axis = true;    ///< a 0.1 σ step along a principal axis leaves the mean
    bool no_effect_coord = true;   ///< a 0.2 σ √C_kk step leaves a coordinate of the mean
    bool equal_fun_values = true;  ///< the best value equal over 10 + ⌈30 n / λ⌉ generations
    bool stagnation = true;        ///< best and median values no longer improving
};

/// The neighbourhood a particle follows (ganesh's SwarmTopology).
enum class SwarmTopology : std::uint8_t {
    kGlobal,  ///< the best point of the whole swarm
    kRing,    ///< the best personal best within ring_radius places on a ring
};

/// Settings of kParticleSwarm (J. Kennedy, R. Eberhart, "Particle swarm optimization", ICNN
/// 1995; the inertia weight of Y. Shi, R. Eberhart, 1998) with ganesh's Python defaults
/// (Clerc-Kennedy constriction values).
struct ParticleSwarmOptions {
    std::size_t particles = 0;   ///< >= 2; 0: max(10 n, 20)
    double inertia = 0.7298;     ///< ω >= 0
    double cognitive = 1.49618;  ///< c₁ >= 0, pull towards the particle's own best
    double social = 1.49618;     ///< c₂ >= 0, pull towards the neighbourhood's best
    double initial_scale = 1.0;  ///< particles start uniform in start ± this (> 0)
    /// Non-empty: particles start uniform in these finite (lower, upper) intervals instead.
    std::vector<expr::Bounds> position_bounds;
    SwarmTopology topology = SwarmTopology::kGlobal;
    std::size_t ring_radius = 1;  ///< kRing: neighbours on each side
    /// false: all particles follow the neighbourhood bests of the start of the iteration
    /// (synchronous); true: a particle's improvement is seen by the next particle at once.
    bool asynchronous = false;
    /// > 0: start velocities uniform in ± this; 0: at rest.
    double velocity_scale = 0.0;
    std::uint64_t seed = 0;
    /// Stop (converged) when the personal-best values span <= this · max(1, |best|) (<= 0: off).
    double spread_tolerance = 1e-10;
};

/// Settings of kDifferentialEvolution (R. Storn, K. Price, "Differential evolution", J. Global
/// Optim. 11 (1997) 341; DE/rand/1/bin) with ganesh's names and defaults.
struct DifferentialEvolutionOptions {
    std::size_t population_size = 0;     ///< >= 4; 0: max(10 n, 4)
    double differential_weight = 0.8;    ///< F > 0
    double crossover_probability = 0.9;  ///< CR in [0, 1]
    double initial_scale = 1.0;          ///< members start uniform in start ± this (> 0)
    std::uint64_t seed = 0;
    /// Stop (converged) when the members' values span <= this · max(1, |best|) (<= 0: off).
    double spread_tolerance = 1e-10;
};

/// Settings of kSimulatedAnnealing (S. Kirkpatrick et al., Science 220 (1983) 671; Metropolis
/// acceptance, geometric cooling, Gaussian proposals) with ganesh's names and defaults.
struct SimulatedAnnealingOptions {
    double initial_temperature = 1.0;  ///< T₀ > 0
    double cooling_rate = 0.999;       ///< T ← rate · T per step, in (0, 1)
    double proposal_scale = 0.1;       ///< proposal x + scale · N(0, 1) per coordinate (> 0)
    /// ganesh's SimulatedAnnealingTerminator: stop (converged) once T < this (<= 0: off).
    double min_temperature = 1e-3;
    std::uint64_t seed = 0;
};

/// The β of the conjugate-gradient direction d ← −g⁺ + β d (ganesh's ConjugateGradientUpdate).
enum class ConjugateGradientUpdate : std::uint8_t {
    kFletcherReeves,       ///< ‖g⁺‖² / ‖g‖²
    kPolakRibierePlus,     ///< max(0, g⁺·y / ‖g‖²) (default)
    kHestenesStiefelPlus,  ///< max(0, g⁺·y / d·y)
    kDaiYuan,              ///< ‖g⁺‖² / d·y
    kHagerZhang,           ///< (y − 2 d ‖y‖² / d·y)·g⁺ / d·y
};

/// Settings of kConjugateGradient (Nocedal & Wright 2006, §5.2; y = g⁺ − g). The line search is
/// options.line_search (kBacktracking means ganesh's default, the Moré-Thuente strong Wolfe
/// search); it stops on ‖g‖₂ < gradient_norm_tolerance (ganesh's ConjugateGradientGTerminator)
/// and on MinimizerOptions' gradient_tolerance and value_tolerance rules.
struct ConjugateGradientOptions {
    ConjugateGradientUpdate update = ConjugateGradientUpdate::kPolakRibierePlus;
    double gradient_norm_tolerance = 6.0554544523933395e-06;  ///< ganesh's default, ∛ε
};

/// The step of kTrustRegion's model (ganesh's TrustRegionSubproblem).
enum class TrustRegionSubproblem : std::uint8_t {
    kDogleg,       ///< Powell's dogleg between the Cauchy and the Newton step (default)
    kCauchyPoint,  ///< the model's minimum along −g within the radius
};

/// Settings of kTrustRegion (Nocedal & Wright 2006, Alg. 4.1; the Hessian is the exact
/// gradient's central differences, 2n gradient evaluations per accepted step). It stops on
/// ‖g‖₂ < gradient_norm_tolerance (ganesh's TrustRegionGTerminator) and on MinimizerOptions'
/// gradient_tolerance and value_tolerance rules (after an accepted step). A rejected step shrinks
/// the radius to ¼ ‖p‖ (ganesh keeps it for ¼ <= ρ <= η, which repeats the step forever).
struct TrustRegionOptions {
    TrustRegionSubproblem subproblem = TrustRegionSubproblem::kDogleg;
    double initial_radius = 1.0;  ///< Δ₀ > 0
    double max_radius = 1000.0;   ///< Δ_max > 0 (at least Δ₀)
    double eta = 1e-4;            ///< accept a step when ρ = actual / predicted > η, η in [0, 1)
    double gradient_norm_tolerance = 6.0554544523933395e-06;  ///< ganesh's default, ∛ε
};

/// Options of minimize().
struct MinimizerOptions {
    Method method = Method::kLbfgsb;
    std::size_t max_iterations = 5000;
    std::size_t memory = 10;           ///< L-BFGS curvature pairs kept
    double gradient_tolerance = 1e-6;  ///< on the projected gradient's infinity norm (< 0: off)
    double value_tolerance = 1e-12;    ///< |Δf| <= tol · max(1, |f|) (< 0: off)
    /// Gradient methods, ganesh's LBFGSBFTerminator: |Δf| < this after a step (<= 0: off).
    double value_change_tolerance = 0.0;
    /// L-BFGS-B, ganesh's LBFGSBGTerminator: ‖∇f‖₂ < this (<= 0: off).
    double gradient_norm_tolerance = 0.0;
    /// L-BFGS-B: the line-search step α (a multiple of the direction) is at most this.
    double max_step = 1e8;
    LineSearchOptions line_search;    ///< L-BFGS-B's line search
    double simplex_tolerance = 1e-9;  ///< Nelder-Mead: vertex spread in x (∞-norm)
    double edm_tolerance = 1e-12;     ///< variable metric: on ½ gᵀ H g (free variables)
    double initial_simplex = 0.1;     ///< Nelder-Mead: step · max(1, |x_k|) per axis
    NelderMeadOptions nelder_mead;    ///< Nelder-Mead's coefficients and stopping rules
    CmaesOptions cmaes;
    ParticleSwarmOptions particle_swarm;
    DifferentialEvolutionOptions differential_evolution;
    SimulatedAnnealingOptions simulated_annealing;
    ConjugateGradientOptions conjugate_gradient;
    TrustRegionOptions trust_region;
    ProgressCallback progress;  ///< optional
};

/// The outcome of minimize().
struct MinimizerResult {
    std::vector<double> x;
    double value = 0.0;
    bool converged = false;
    Termination termination = Termination::kMaxIterations;
    std::size_t iterations = 0;
    std::size_t value_evaluations = 0;     ///< calls of the objective (with or without gradient)
    std::size_t gradient_evaluations = 0;  ///< calls that computed the gradient
    /// kVariableMetric: the final H (n × n, mapped to the external parameters as the
    /// covariance is, see transform.hpp), else empty.
    std::vector<double> inverse_hessian;
    /// A more specific reason than termination_name() when the method has one (CMA-ES names its
    /// stopping rule), else empty.
    std::string message;
};

/// Minimises `objective` from `start` (clamped into the bounds; periodic values wrapped).
/// Throws FitError when the objective is malformed (no value_and_gradient, wrong start, bounds
/// or periodic size, a periodic parameter with one infinite bound, start not finite), and what
/// the objective throws at the start point.
[[nodiscard]] MinimizerResult minimize(const Objective& objective, std::span<const double> start,
                                       const MinimizerOptions& options = {});

}  // namespace laddu::fit
