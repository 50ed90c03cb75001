// `laddu-cpp demo`: the whole pipeline on an embedded default.
//
// 1. Flat γ p → K_S K_S p phase space (beam 8-9 GeV, m(K_S K_S) < 2 GeV) for the accepted MC.
// 2. A toy acceptance: each event is kept with probability
//      ε(m, cosθ) = (1 − 0.5 x)(1 − 0.35 cos²θ),  x = (m − 2 m_K) / (2 GeV − 2 m_K),
//    θ the helicity angle of kshort1 (its angle to −proton in the K_S K_S rest frame).
// 3. "Data": further flat events through the same acceptance, accept-rejected against the
//    K-matrix benchmark intensity at the true parameters (kTruth).
// 4. An NLL fit (exact gradients, L-BFGS-B, fast normalisation) from a perturbed start plus
//    seeded restarts (the likelihood has secondary minima), the sign conventions of
//    apply_conventions(), the fit table with pulls, the fit fractions of the tagged waves, and
//    projections (projections.parquet per accepted-MC event, histograms.json for the plot).
// Only the couplings in kTruth are free (21 parameters: the well-separated poles of each wave,
// docs/cli.md says why not all 33); the benchmark's other couplings are fixed at 0 and
// f0(980)+ re at 1, which sets the overall scale that a shape-only NLL cannot.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <laddu/amplitudes/kmatrix_benchmark.hpp>
#include <laddu/base/assert.hpp>
#include <laddu/base/atomic_file.hpp>
#include <laddu/base/error.hpp>
#include <laddu/compile/compiled_model.hpp>
#include <laddu/data/parquet.hpp>
#include <laddu/expr/tags.hpp>
#include <laddu/fit/fit.hpp>
#include <laddu/fit/fit_fraction.hpp>
#include <laddu/generation/accept_reject.hpp>
#include <laddu/generation/ksks.hpp>
#include <laddu/generation/ksks_acceptance.hpp>
#include <laddu/generation/phase_space.hpp>
#include <laddu/likelihood/likelihood.hpp>
#include <laddu/likelihood/nll.hpp>
#include <laddu/runtime/prepared_model.hpp>

#include "cli_common.hpp"
#include "commands.hpp"
#include "demo_model.hpp"
#include "progress.hpp"
#include <nlohmann/json.hpp>

namespace laddu::cli {

namespace {

constexpr const char* kDemoUsage =
    "usage: laddu-cpp demo [--events N] [--mc N] [--seed S] [--threads T] [--output DIR]\n"
    "Generates gamma p -> Ks Ks p data and accepted MC from laddu's K-matrix model at known\n"
    "parameters (toy acceptance), fits it (NLL, exact gradients), prints the fit table and fit\n"
    "fractions, and writes projections to DIR (default demo-output).\n"
    "  --events N   data events (default 15000)\n"
    "  --mc N       generated flat MC events before the acceptance (default 200000)\n"
    "  --seed S     base seed (default 1)\n"
    "  --threads T  threads (default: all; at most 1024)\n"
    "  --output DIR output directory (default demo-output)\n"
    "Exit code 0; 3 when the fit does not converge or a pull exceeds 3; 2 for errors (one line\n"
    "on stderr); 1 for an internal error.\n";

// Memory per event, for the check before generating: 19 doubles per flat event (four
// four-momenta, two scalars, the weight), held twice (the rounds and their concatenation).
constexpr std::uint64_t kBytesPerEvent = std::uint64_t{2} * 19 * sizeof(double);

constexpr double kKkMassMax = 2.0;  // GeV: the upper end of the m(K_S K_S) window

// The true point, by wave: S+ f0(980) (the scale, fixed), f0(1500), f0(1710), a0(980),
// a0(1450); D+ f2(1270), f2(1525), f2(1850), a2(1700); S- f0(980) (real), f0(1500), a0(980).
// f0(1370)+-, f0(1710)-, a0(1450)-, f2(1910) and a2(1320) stay fixed at 0: over the window their
// K-matrix columns are nearly combinations of the others, which leaves flat valleys and several
// minima (docs/cli.md).
const std::vector<std::pair<std::string, double>> kTruth = {
    {"f0(1500)+ re", 0.40}, {"f0(1500)+ im", 0.30}, {"f0(1710)+ re", 0.30},  {"f0(1710)+ im", 0.20},
    {"a0(980)+ re", 0.60},  {"a0(980)+ im", -0.30}, {"a0(1450)+ re", 0.20},  {"a0(1450)+ im", 0.10},
    {"f2(1270) re", 0.50},  {"f2(1270) im", -0.20}, {"f2(1525) re", 0.40},   {"f2(1525) im", 0.30},
    {"f2(1850) re", 0.10},  {"f2(1850) im", 0.10},  {"a2(1700) re", 0.10},   {"a2(1700) im", 0.10},
    {"f0(980)- re", 0.50},  {"f0(1500)- re", 0.20}, {"f0(1500)- im", -0.10}, {"a0(980)- re", 0.30},
    {"a0(980)- im", 0.20},
};
constexpr double kF0980Plus = 1.0;

// Fits in total: the perturbed start and seeded restarts around it (secondary minima exist).
constexpr std::size_t kStarts = 6;

struct Options {
    std::size_t events = 15000;
    std::size_t mc = 200000;
    std::uint64_t seed = 1;
    runtime::Execution execution;
    std::string output = "demo-output";
};

Options parse(std::span<const std::string_view> args) {
    Options options;
    ArgReader reader("demo", args);
    while (reader.more()) {
        const std::string_view arg = reader.next();
        if (arg == "--events") {
            options.events = parse_count(arg, reader.value(arg), kMaxEvents);
        } else if (arg == "--mc") {
            options.mc = parse_count(arg, reader.value(arg), kMaxEvents);
        } else if (arg == "--seed") {
            options.seed = parse_seed(arg, reader.value(arg));
        } else if (arg == "--threads") {
            options.execution.threads = parse_threads(arg, reader.value(arg));
        } else if (arg == "--output") {
            options.output = reader.value(arg);
        } else {
            throw reader.unknown(arg);
        }
    }
    check_memory("--mc", options.mc, kBytesPerEvent, "lower --mc");
    check_memory("--events", options.events, kBytesPerEvent, "lower --events");
    return options;
}

// Accepted MC: flat events through the toy acceptance (generation::accepted_ksks).
data::Dataset accepted_flat(std::size_t n, std::uint64_t seed) {
    return generation::accepted_ksks(n, {.kk_mass_max = kKkMassMax, .seed = seed},
                                     seed ^ 0xACCE97ULL);
}

// Data: accepted flat events accept-rejected against the true intensity in rounds of at most
// 200000 events (bounding the event cache's memory) until `events` are kept
// (generation::generate_unweighted), with a progress line.
data::Dataset generate_data(const compile::CompiledModel& truth_model,
                            std::span<const double> truth, const Options& options) {
    std::size_t generated = 0;
    ProgressLine progress(stdout);
    const auto source = [&](std::uint64_t round, std::size_t size) {
        generated += size;
        progress.update(fmt::format("      round {}: {} flat events so far", round + 1, generated));
        return accepted_flat(size, options.seed * 1000 + 100 + round);
    };
    const auto intensity = [&](const data::Dataset& pool) {
        const runtime::PreparedModel prepared =
            runtime::PreparedModel::prepare(truth_model, pool, options.execution);
        const std::vector<std::complex<double>> values = prepared.evaluate(truth);
        std::vector<double> out(values.size());
        for (std::size_t i = 0; i < values.size(); ++i) {
            out[i] = values[i].real();
        }
        return out;
    };
    data::Dataset data = generation::generate_unweighted(options.events, source, intensity,
                                                         {.seed = options.seed * 1000 + 200});
    progress.finish();
    return data;
}

// Flips the sign of the parameters `flip` in `result` (values, covariance and correlation rows
// and columns), for an exact symmetry of the likelihood.
void flip_signs(fit::FitResult& result, const std::vector<std::size_t>& flip) {
    const std::size_t n = result.names.size();
    for (const std::size_t k : flip) {
        result.values[k] = -result.values[k];
        for (std::size_t j = 0; j < n; ++j) {
            if (j != k) {
                result.covariance[k * n + j] = -result.covariance[k * n + j];
                result.covariance[j * n + k] = -result.covariance[j * n + k];
                result.correlation[k * n + j] = -result.correlation[k * n + j];
                result.correlation[j * n + k] = -result.correlation[j * n + k];
            }
        }
    }
}

// One exact symmetry leaves the intensity unchanged: the overall sign of the S- wave (every
// negative-reflectivity coupling; its reference phase f0(980)- im is fixed at 0, and S- enters
// only as |S-|^2). The positive-reflectivity waves have no such freedom left, since f0(980)+ re
// is fixed at 1. The reported solution is the one with f0(980)- re >= 0. Returns what was
// flipped.
std::string apply_conventions(fit::FitResult& result) {
    const auto found = std::find(result.names.begin(), result.names.end(), "f0(980)- re");
    if (found == result.names.end() ||
        result.values[static_cast<std::size_t>(found - result.names.begin())] >= 0.0) {
        return " none needed";
    }
    std::vector<std::size_t> negative;
    for (std::size_t k = 0; k < result.names.size(); ++k) {
        if (result.names[k].find(")- ") != std::string::npos) {
            negative.push_back(k);
        }
    }
    flip_signs(result, negative);
    return " S- sign flipped";
}

double elapsed(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Weighted histogram of `x` in `bins` equal bins over [lo, hi].
std::vector<double> histogram(std::span<const double> x, std::span<const double> w, double lo,
                              double hi, std::size_t bins) {
    std::vector<double> h(bins, 0.0);
    for (std::size_t i = 0; i < x.size(); ++i) {
        const double f = (x[i] - lo) / (hi - lo);
        if (f >= 0.0 && f <= 1.0) {
            h[std::min(bins - 1, static_cast<std::size_t>(f * static_cast<double>(bins)))] +=
                w.empty() ? 1.0 : w[i];
        }
    }
    return h;
}

}  // namespace

int demo(std::span<const std::string_view> args) {
    return run_command("demo", [&] {
        if (!args.empty() && (args[0] == "--help" || args[0] == "-h")) {
            std::fputs(kDemoUsage, stdout);
            return kExitOk;
        }
        const Options options = parse(args);
        const auto t0 = std::chrono::steady_clock::now();
        std::filesystem::create_directories(options.output);

        // The model: every benchmark coupling outside kTruth fixed at 0, f0(980)+ re at 1.
        expr::Model model = tagged_kmatrix_model();
        // The demo's model is laddu's benchmark model plus tags, node for node.
        LADDU_ASSERT(expr::strip_tags(model.expression()) ==
                     amplitudes::kmatrix_benchmark_intensity())
            << "the tagged demo model differs from kmatrix_benchmark_intensity()";
        std::map<std::string, double> truth_by_name(kTruth.begin(), kTruth.end());
        for (const std::string& name : model.parameters().free_names()) {
            if (name == "f0(980)+ re") {
                model = model.fix(name, kF0980Plus);
            } else if (!truth_by_name.contains(name)) {
                model = model.fix(name, 0.0);
            }
        }
        const std::vector<std::string> free_names = model.parameters().free_names();
        std::vector<double> truth;
        for (const std::string& name : free_names) {
            truth.push_back(truth_by_name.at(name));
        }
        fmt::print("laddu-cpp demo: gamma p -> Ks Ks p, laddu's K-matrix model, {} free of 34 "
                   "couplings (others fixed; f0(980)+ re = 1 sets the scale)\n",
                   free_names.size());
        fmt::print("  threads {}, seed {}, output {}/\n", options.execution.resolved_threads(),
                   options.seed, options.output);

        fmt::print("[1/5] accepted MC: {} flat events, toy acceptance ... ", options.mc);
        std::fflush(stdout);
        const data::Dataset accepted = accepted_flat(options.mc, options.seed * 1000 + 1);
        fmt::print("{} accepted ({:.1f} s)\n", accepted.size(), elapsed(t0));

        fmt::print("[2/5] data: {} events by accept-reject at the true parameters\n",
                   options.events);
        std::fflush(stdout);
        const compile::CompiledModel compiled = compile::compile_model(model);
        const data::Dataset data = generate_data(compiled, truth, options);
        fmt::print("      done ({:.1f} s)\n", elapsed(t0));

        fmt::print("[3/5] NLL: compiling and preparing on data and accepted MC ... ");
        std::fflush(stdout);
        const auto nll =
            std::make_shared<likelihood::NLL>(model, data, accepted, options.execution);
        likelihood::Likelihood total;
        total.add(nll);
        fmt::print("{} backend, {} normalisation ({:.1f} s)\n", nll->backend(),
                   nll->info().normalization_strategy, elapsed(t0));

        // A start away from the truth: each parameter moved by 0.15 (in a seeded direction).
        std::mt19937_64 rng(options.seed);
        std::vector<double> start = truth;
        for (double& s : start) {
            s += (rng() % 2 == 0 ? 0.15 : -0.15);
        }
        fmt::print("[4/5] fit: L-BFGS-B with exact gradients from a perturbed start and {} "
                   "seeded restarts (the best minimum is kept)\n",
                   kStarts - 1);
        std::fflush(stdout);
        fit::FitOptions fit_options;
        const auto fit_start = std::chrono::steady_clock::now();
        std::size_t start_index = 0;
        std::size_t last_iteration = 0;
        ProgressLine progress(stdout);
        fit_options.minimizer.progress = [&](const fit::Progress& p) {
            if (start_index == 0 || p.iteration <= last_iteration) {
                ++start_index;
            }
            last_iteration = p.iteration;
            progress.update(
                fmt::format("      start {}/{}  iteration {:4d}  NLL {:.6f}  ({:.1f} s)",
                            start_index, kStarts, p.iteration, p.value, elapsed(fit_start)));
            return true;
        };
        const fit::RestartResult fits = fit::fit_restarts(
            total, start, {.starts = kStarts, .seed = options.seed, .spread = 0.3}, fit_options);
        progress.finish();
        fit::FitResult result = fits.best_fit();
        std::size_t converged = 0;
        for (const fit::FitResult& f : fits.fits) {
            converged += f.converged ? 1 : 0;
        }
        fmt::print("      best of {} starts (start {}, {} converged): NLL {:.6f}, {}, {} "
                   "iterations ({:.1f} s)\n",
                   kStarts, fits.best + 1, converged, result.value,
                   result.converged ? "converged" : "NOT converged: " + result.message,
                   result.iterations, elapsed(fit_start));

        fmt::print("      convention (an exact symmetry; f0(980)- re >= 0):{}\n",
                   apply_conventions(result));

        std::string table = fmt::format("\nFit table ({} data events, {} accepted MC events)\n",
                                        data.size(), accepted.size());
        table += fmt::format("{:<16} {:>10} {:>11} {:>10} {:>8}\n", "parameter", "fitted",
                             "uncertainty", "true", "pull");
        bool within = true;
        for (std::size_t k = 0; k < result.names.size(); ++k) {
            const double t = truth_by_name.at(result.names[k]);
            const double pull = (result.values[k] - t) / result.uncertainties[k];
            within = within && std::abs(pull) < 3.0;
            table += fmt::format("{:<16} {:>10.4f} {:>11.4f} {:>10.4f} {:>8.2f}\n", result.names[k],
                                 result.values[k], result.uncertainties[k], t, pull);
        }
        table += fmt::format("fixed: f0(980)+ re = {} and the other {} couplings = 0\n", kF0980Plus,
                             34 - 1 - free_names.size());
        table += fmt::format("all pulls within 3 sigma: {}\n", within ? "yes" : "NO");
        table += "\nFit fractions (accepted MC, interference not included)\n";
        table +=
            fmt::format("{:<6} {:>10} {:>11} {:>10}\n", "wave", "fitted", "uncertainty", "true");
        for (const std::string& tag : demo_wave_tags()) {
            const fit::FitFraction f = fit::fit_fraction(result, *nll, {tag});
            const double t = nll->fit_fraction(truth, {tag}).value;
            table += fmt::format("{:<6} {:>10.4f} {:>11.4f} {:>10.4f}\n", tag, f.value,
                                 f.uncertainty, t);
        }
        fmt::print("{}", table);
        write_file_atomically(options.output + "/fit.txt", table);

        fmt::print("[5/5] projections -> {}/projections.parquet, histograms.json\n",
                   options.output);
        std::fflush(stdout);
        const generation::KsKsKinematics kd = generation::ksks_kinematics(data);
        const generation::KsKsKinematics km = generation::ksks_kinematics(accepted);
        std::vector<std::pair<std::string, std::vector<double>>> weights;
        weights.emplace_back("fit", nll->projection_weights(result.values));
        for (const std::string& tag : demo_wave_tags()) {
            weights.emplace_back(tag, nll->projection_weights(result.values, {tag}));
        }
        double yield = 0.0;
        for (const double w : weights.front().second) {
            yield += w;
        }
        fmt::print("      fitted yield {:.3f} vs data {:.3f}\n", yield, data.sum_weights());

        std::vector<data::ScalarInput> columns{{"m_kk", km.m_kk}, {"cos_theta", km.costheta}};
        const std::map<std::string, std::string> column_names{{"fit", "fit_total"},
                                                              {"S+", "fit_s_plus"},
                                                              {"D+", "fit_d_plus"},
                                                              {"S-", "fit_s_minus"}};
        for (const auto& [tag, w] : weights) {
            columns.push_back({column_names.at(tag), w});
        }
        data::write_parquet(data::Dataset::from_scalars(columns, accepted.weights()),
                            options.output + "/projections.parquet");
        const std::vector<data::ScalarInput> data_columns{{"m_kk", kd.m_kk},
                                                          {"cos_theta", kd.costheta}};
        data::write_parquet(data::Dataset::from_scalars(data_columns, data.weights()),
                            options.output + "/data.parquet");

        nlohmann::json hist;
        const double threshold = 2.0 * generation::KsKsOptions{}.kaon_mass;
        const auto add = [&](const std::string& key, const std::string& label, double lo, double hi,
                             const std::vector<double>& xd, const std::vector<double>& xm) {
            constexpr std::size_t kBins = 40;
            nlohmann::json h;
            h["label"] = label;
            std::vector<double> edges;
            for (std::size_t b = 0; b <= kBins; ++b) {
                edges.push_back(lo + (hi - lo) * static_cast<double>(b) / kBins);
            }
            h["edges"] = edges;
            h["data"] = histogram(xd, data.weights(), lo, hi, kBins);
            for (const auto& [tag, w] : weights) {
                h["curves"][tag] = histogram(xm, w, lo, hi, kBins);
            }
            hist[key] = h;
        };
        add("m_kk", "m(K_S K_S) [GeV]", threshold, kKkMassMax, kd.m_kk, km.m_kk);
        add("cos_theta", "cos theta (helicity frame)", -1.0, 1.0, kd.costheta, km.costheta);
        hist["title"] = fmt::format(
            "$\\gamma\\, p \\to K_S\\, K_S\\, p$: {} data events, K-matrix fit ({} free "
            "parameters)",
            data.size(), free_names.size());
        hist["order"] = {"fit", "S+", "D+", "S-"};
        write_file_atomically(options.output + "/histograms.json", hist.dump(1) + "\n");
        fmt::print("done in {:.1f} s\n", elapsed(t0));
        return within && result.converged ? kExitOk : kExitNotConverged;
    });
}

}  // namespace laddu::cli
