// Pull study of the K-matrix closure toy (tests/support/kmatrix_toy.hpp): N toys with different
// seeds, each fitted with the extended NLL from a perturbed start; prints, per parameter, the mean
// and width of the pulls (fitted − true) / σ with their uncertainties, and the convergence count.
// For an unbiased fit with correct uncertainties the means are 0 and the widths 1.
//
// usage: pull_study [--toys N] [--events N] [--mc N] [--seed S] [--threads T]
//                   [--starts K] [--method lbfgsb|variable-metric] [--start perturbed|truth]
//                   [--minos] [--json]
// Each toy is fitted from kmatrix_toy_start and K − 1 seeded restarts around it (the K-matrix
// likelihood has secondary minima); the best converged fit counts. With --minos every toy also
// gets profile-likelihood intervals (fit/profile.hpp), and the pulls are reported a second time
// with the asymmetric error on the side of the truth, (fitted − true) / σ∓; a profile that finds
// a deeper minimum restarts the fit from there. Not part of CI: 100 toys of 2000
// events take minutes (see docs/likelihood.md for a run).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include <laddu/fit/fit.hpp>
#include <laddu/fit/profile.hpp>
#include <laddu/likelihood/likelihood.hpp>
#include <laddu/likelihood/nll.hpp>

#include "support/kmatrix_toy.hpp"

namespace {

struct Options {
    std::size_t toys = 100;
    std::size_t events = 2000;
    std::size_t mc = 20000;
    std::uint64_t seed = 1;
    std::size_t threads = 0;
    std::size_t starts = 1;
    laddu::fit::Method method = laddu::fit::Method::kLbfgsb;
    bool from_truth = false;
    bool minos = false;
    bool json = false;
};

constexpr const char* kUsage =
    "usage: pull_study [--toys N] [--events N] [--mc N] [--seed S] [--threads T]\n"
    "                  [--starts K] [--method lbfgsb|variable-metric]\n"
    "                  [--start perturbed|truth] [--minos] [--json]\n"
    "  --toys N     toys (default 100), toy k uses seed S + k\n"
    "  --events N   expected data events per toy (default 2000; the count is Poisson)\n"
    "  --mc N       flat MC events per toy before the toy acceptance (default 20000)\n"
    "  --threads T  threads per likelihood (default: all)\n"
    "  --starts K   fits per toy: the perturbed start and K - 1 restarts (default 1)\n"
    "  --start      where the first fit starts (default perturbed: each coupling moved by 15%)\n"
    "  --minos      also profile-likelihood intervals and pulls with them\n"
    "  --json       print the summary as JSON instead of a table\n";

Options parse(int argc, char** argv) {
    Options options;
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        const auto value = [&]() -> std::string {
            if (i + 1 >= argc) {
                throw std::invalid_argument(fmt::format("option {} needs a value", arg));
            }
            return argv[++i];
        };
        if (arg == "--toys") {
            options.toys = std::stoull(value());
        } else if (arg == "--events") {
            options.events = std::stoull(value());
        } else if (arg == "--mc") {
            options.mc = std::stoull(value());
        } else if (arg == "--seed") {
            options.seed = std::stoull(value());
        } else if (arg == "--threads") {
            options.threads = std::stoull(value());
        } else if (arg == "--starts") {
            options.starts = std::stoull(value());
        } else if (arg == "--method") {
            const std::string m = value();
            if (m == "lbfgsb") {
                options.method = laddu::fit::Method::kLbfgsb;
            } else if (m == "variable-metric") {
                options.method = laddu::fit::Method::kVariableMetric;
            } else {
                throw std::invalid_argument("--method is lbfgsb or variable-metric");
            }
        } else if (arg == "--start") {
            const std::string m = value();
            if (m != "perturbed" && m != "truth") {
                throw std::invalid_argument("--start is perturbed or truth");
            }
            options.from_truth = m == "truth";
        } else if (arg == "--minos") {
            options.minos = true;
        } else if (arg == "--json") {
            options.json = true;
        } else if (arg == "--help" || arg == "-h") {
            std::fputs(kUsage, stdout);
            std::exit(0);
        } else {
            throw std::invalid_argument(fmt::format("unknown option '{}'", arg));
        }
    }
    if (options.toys == 0 || options.events == 0 || options.mc == 0 || options.starts == 0) {
        throw std::invalid_argument("--toys, --events, --mc and --starts must be positive");
    }
    return options;
}

// Mean and sample standard deviation with their uncertainties (σ/√n and σ/√(2(n−1))), the
// robust width 1.4826 · median |pull − median| and the count of |pull| > 3.
struct Summary {
    double mean = NAN;
    double mean_error = NAN;
    double width = NAN;
    double width_error = NAN;
    double robust_width = NAN;
    std::size_t outliers = 0;
};

double median(std::vector<double> x) {
    std::sort(x.begin(), x.end());
    const std::size_t n = x.size();
    return n % 2 == 1 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

Summary summarize(const std::vector<double>& x) {
    Summary s;
    const double n = static_cast<double>(x.size());
    if (x.size() < 2) {
        return s;
    }
    double sum = 0.0;
    for (const double v : x) {
        sum += v;
    }
    s.mean = sum / n;
    double squares = 0.0;
    for (const double v : x) {
        squares += (v - s.mean) * (v - s.mean);
    }
    s.width = std::sqrt(squares / (n - 1.0));
    s.mean_error = s.width / std::sqrt(n);
    s.width_error = s.width / std::sqrt(2.0 * (n - 1.0));
    const double middle = median(x);
    std::vector<double> deviations;
    for (const double v : x) {
        deviations.push_back(std::abs(v - middle));
        s.outliers += std::abs(v) > 3.0 ? 1U : 0U;
    }
    s.robust_width = 1.4826 * median(deviations);
    return s;
}

// Profile intervals of every parameter; a deeper minimum found on the way restarts the fit from
// it (at most twice), as MINOS does.
laddu::fit::ProfileIntervals intervals_with_refits(const laddu::likelihood::Likelihood& total,
                                                   laddu::fit::FitResult& result,
                                                   const laddu::fit::FitOptions& fit_options,
                                                   std::size_t& refits) {
    for (int attempt = 0;; ++attempt) {
        laddu::fit::ProfileOptions profile_options;
        profile_options.minimizer.method = fit_options.minimizer.method;
        laddu::fit::ProfileIntervals intervals =
            laddu::fit::profile_intervals(total, result, {}, profile_options);
        const std::vector<double>* deeper = nullptr;
        for (const laddu::fit::ProfileInterval& interval : intervals.intervals) {
            for (const laddu::fit::ProfileSide* side : {&interval.lower, &interval.upper}) {
                deeper = side->new_minimum && deeper == nullptr ? &side->deeper_point : deeper;
            }
        }
        if (deeper == nullptr || attempt == 2) {
            return intervals;
        }
        ++refits;
        result = laddu::fit::fit(total, *deeper, fit_options);
    }
}

}  // namespace

int main(int argc, char** argv) {
    try {
        const Options options = parse(argc, argv);
        laddu::runtime::Execution execution;
        execution.threads = options.threads;
        const auto begin = std::chrono::steady_clock::now();
        std::vector<std::string> names;
        std::vector<std::vector<double>> hessian_pulls;
        std::vector<std::vector<double>> profile_pulls;
        std::vector<std::vector<double>> width_ratios;
        std::size_t converged = 0;
        std::size_t evaluations = 0;
        std::size_t refits = 0;
        std::size_t invalid_intervals = 0;
        double fit_seconds = 0.0;
        double profile_seconds = 0.0;
        for (std::size_t t = 0; t < options.toys; ++t) {
            const std::uint64_t seed = options.seed + t;
            const laddu::testing::KMatrixToy toy = laddu::testing::make_kmatrix_toy(
                {.events = options.events, .mc = options.mc, .seed = seed, .execution = execution});
            laddu::likelihood::Likelihood total;
            total.add(std::make_shared<laddu::likelihood::ExtendedNLL>(toy.model, toy.data,
                                                                       toy.accepted, execution));
            laddu::fit::FitOptions fit_options;
            fit_options.minimizer.method = options.method;
            const std::vector<double> start =
                options.from_truth ? toy.truth : laddu::testing::kmatrix_toy_start(toy, seed);
            const laddu::fit::RestartResult fits = laddu::fit::fit_restarts(
                total, start, {.starts = options.starts, .seed = seed, .spread = 0.3}, fit_options);
            laddu::fit::FitResult result = fits.best_fit();
            std::size_t fit_evaluations = 0;
            for (const laddu::fit::FitResult& f : fits.fits) {
                fit_evaluations += f.value_evaluations;
                fit_seconds += f.wall_seconds;
            }
            laddu::fit::ProfileIntervals intervals;
            if (options.minos && result.converged) {
                intervals = intervals_with_refits(total, result, fit_options, refits);
                fit_evaluations += intervals.evaluations;
                profile_seconds += intervals.wall_seconds;
            }
            // The sign conventions flip parameters; an interval's sides swap with its sign.
            const laddu::fit::FitResult unflipped = result;
            laddu::testing::apply_kmatrix_toy_conventions(result);
            evaluations += fit_evaluations;
            if (names.empty()) {
                names = result.names;
                hessian_pulls.resize(names.size());
                profile_pulls.resize(names.size());
                width_ratios.resize(names.size());
            }
            bool valid = result.converged;
            for (const double u : result.uncertainties) {
                valid = valid && std::isfinite(u) && u > 0.0;
            }
            if (valid) {
                ++converged;
                for (std::size_t k = 0; k < names.size(); ++k) {
                    const double sigma = result.uncertainties[k];
                    hessian_pulls[k].push_back((result.values[k] - toy.truth[k]) / sigma);
                    if (!options.minos) {
                        continue;
                    }
                    const laddu::fit::ProfileInterval& interval = intervals.intervals[k];
                    if (!interval.valid()) {
                        ++invalid_intervals;
                        continue;
                    }
                    const bool flipped = (result.values[k] > 0.0) != (unflipped.values[k] > 0.0);
                    const double below = flipped ? interval.upper_error : interval.lower_error;
                    const double above = flipped ? interval.lower_error : interval.upper_error;
                    const double residual = result.values[k] - toy.truth[k];
                    profile_pulls[k].push_back(residual / (residual > 0.0 ? below : above));
                    width_ratios[k].push_back(0.5 * (below + above) / sigma);
                }
            }
            const double elapsed =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
            std::fprintf(stderr, "\rtoy %zu/%zu: %zu data events, %s, %zu evaluations (%.0f s)   ",
                         t + 1, options.toys, toy.data.size(),
                         valid ? "converged" : "NOT converged", fit_evaluations, elapsed);
        }
        std::fputc('\n', stderr);
        const double total_seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
        std::vector<Summary> hessian;
        std::vector<Summary> profile;
        std::vector<double> ratio;
        for (std::size_t k = 0; k < names.size(); ++k) {
            hessian.push_back(summarize(hessian_pulls[k]));
            profile.push_back(summarize(profile_pulls[k]));
            double sum = 0.0;
            for (const double r : width_ratios[k]) {
                sum += r;
            }
            ratio.push_back(width_ratios[k].empty()
                                ? std::numeric_limits<double>::quiet_NaN()
                                : sum / static_cast<double>(width_ratios[k].size()));
        }
        const double mean_evaluations =
            static_cast<double>(evaluations) / static_cast<double>(options.toys);
        if (options.json) {
            std::string out = fmt::format(
                "{{\"toys\": {}, \"converged\": {}, \"events\": {}, \"mc\": {}, \"seed\": {}, "
                "\"seconds\": {:.2f}, \"fit_seconds\": {:.2f}, \"profile_seconds\": {:.2f}, "
                "\"mean_evaluations\": {:.1f}, \"refits\": {}, \"invalid_intervals\": {}, "
                "\"parameters\": [",
                options.toys, converged, options.events, options.mc, options.seed, total_seconds,
                fit_seconds, profile_seconds, mean_evaluations, refits, invalid_intervals);
            const auto summary_json = [](const Summary& s) {
                return fmt::format("{{\"mean\": {:.4f}, \"mean_error\": {:.4f}, \"width\": "
                                   "{:.4f}, \"width_error\": {:.4f}, \"robust_width\": {:.4f}, "
                                   "\"outliers\": {}}}",
                                   s.mean, s.mean_error, s.width, s.width_error, s.robust_width,
                                   s.outliers);
            };
            for (std::size_t k = 0; k < names.size(); ++k) {
                out += fmt::format("{}{{\"name\": \"{}\", \"hessian\": {}", k == 0 ? "" : ", ",
                                   names[k], summary_json(hessian[k]));
                if (options.minos) {
                    out += fmt::format(", \"profile\": {}, \"width_ratio\": {:.4f}",
                                       summary_json(profile[k]), ratio[k]);
                }
                out += "}";
            }
            out += "]}\n";
            std::fputs(out.c_str(), stdout);
        } else {
            fmt::print("K-matrix closure toy: {} toys, {} expected events, {} flat MC, seeds "
                       "{}..{}, start {}\n",
                       options.toys, options.events, options.mc, options.seed,
                       options.seed + options.toys - 1, options.from_truth ? "truth" : "perturbed");
            fmt::print("converged with valid uncertainties: {}/{}; {:.1f} s in total, {:.1f} s "
                       "fitting, {:.1f} s profiling, {:.0f} evaluations per toy\n",
                       converged, options.toys, total_seconds, fit_seconds, profile_seconds,
                       mean_evaluations);
            if (options.minos) {
                fmt::print("profile intervals: {} refits from deeper minima, {} invalid "
                           "intervals\n",
                           refits, invalid_intervals);
                fmt::print("| parameter | Hessian pull mean | Hessian pull width | profile pull "
                           "mean | profile pull width | (σ− + σ+) / 2σ | abs(pull) > 3 (H / P) "
                           "|\n|---|---|---|---|---|---|---|\n");
            } else {
                fmt::print("| parameter | pull mean | pull width | robust width | abs(pull) > 3 "
                           "|\n|---|---|---|---|---|\n");
            }
            for (std::size_t k = 0; k < names.size(); ++k) {
                const Summary& h = hessian[k];
                if (options.minos) {
                    const Summary& p = profile[k];
                    fmt::print("| {} | {:+.3f} ± {:.3f} | {:.3f} ± {:.3f} | {:+.3f} ± {:.3f} | "
                               "{:.3f} ± {:.3f} | {:.3f} | {} / {} |\n",
                               names[k], h.mean, h.mean_error, h.width, h.width_error, p.mean,
                               p.mean_error, p.width, p.width_error, ratio[k], h.outliers,
                               p.outliers);
                } else {
                    fmt::print("| {} | {:+.3f} ± {:.3f} | {:.3f} ± {:.3f} | {:.3f} | {} |\n",
                               names[k], h.mean, h.mean_error, h.width, h.width_error,
                               h.robust_width, h.outliers);
                }
            }
        }
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "pull_study: %s\n", e.what());
        return 2;
    }
}
