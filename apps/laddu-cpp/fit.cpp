// `laddu-cpp fit`: an unbinned fit of a model file to data and accepted-MC Parquet files.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <laddu/base/atomic_file.hpp>
#include <laddu/base/error.hpp>
#include <laddu/data/read_events.hpp>
#include <laddu/fit/fit.hpp>
#include <laddu/fit/fit_fraction.hpp>
#include <laddu/likelihood/likelihood.hpp>
#include <laddu/likelihood/nll.hpp>

#include "cli_common.hpp"
#include "commands.hpp"
#include "model_file.hpp"
#include "progress.hpp"
#include <nlohmann/json.hpp>

namespace laddu::cli {

namespace {

constexpr const char* kFitUsage =
    "usage: laddu-cpp fit MODEL --data FILE... --accepted FILE... [--json OUT] [--starts K]\n"
    "                     [--seed S] [--params P] [--extended] [--threads T] [--quiet]\n"
    "Fits MODEL (a model file or a built-in: kmatrix_benchmark) to the data by an unbinned\n"
    "negative log-likelihood normalised over the accepted Monte Carlo (L-BFGS-B, exact\n"
    "gradients), and prints the fit table (values and uncertainties from the Hessian) and the\n"
    "fit fractions of the model's tagged amplitudes. A live progress line goes to stderr.\n"
    "  --data FILE...      data Parquet or ROOT files or globs (several allowed)\n"
    "  --accepted FILE...  accepted-MC Parquet or ROOT files or globs\n"
    "  --json OUT          also write the result as JSON (parameters, fixed, fit_fractions,\n"
    "                      covariance); --params accepts this file\n"
    "  --starts K          fits from K starts (the first at the start values, then seeded\n"
    "                      restarts); the lowest minimum is reported (default 1)\n"
    "  --seed S            seed of the restarts (default 1)\n"
    "  --params P          start values (name=value,... or JSON); fixed parameters are re-fixed\n"
    "  --extended          extended likelihood (the intensity's scale is the yield)\n"
    "  --truth P           true values (as --params) of a closure test: adds the columns true\n"
    "                      and pull = (value - true) / uncertainty\n"
    "  --threads T         threads (default: all; at most 1024)\n"
    "  --quiet             no progress line\n"
    "Exit code 0 when the fit converged, 3 when it did not, 2 for errors (one line on stderr,\n"
    "e.g. a likelihood that cannot be evaluated at the start values), 1 for an internal error.\n";

// Fits from more starts than this are a typo, not a plan.
constexpr std::uint64_t kMaxStarts = 100000;

struct Options {
    std::string model;
    std::vector<std::string> data;
    std::vector<std::string> accepted;
    std::string json;
    std::size_t starts = 1;
    std::uint64_t seed = 1;
    std::string params;
    std::string truth;
    bool extended = false;
    bool quiet = false;
    runtime::Execution execution;
};

Options parse(std::span<const std::string_view> args) {
    Options o;
    ArgReader reader("fit", args);
    std::vector<std::string>* files = nullptr;  // the list that bare arguments extend
    while (reader.more()) {
        const std::string_view arg = reader.next();
        if (arg == "--data") {
            files = &o.data;
            files->push_back(reader.value(arg));
        } else if (arg == "--accepted") {
            files = &o.accepted;
            files->push_back(reader.value(arg));
        } else if (arg == "--json") {
            o.json = reader.value(arg);
            files = nullptr;
        } else if (arg == "--starts") {
            o.starts = parse_count(arg, reader.value(arg), kMaxStarts);
            files = nullptr;
        } else if (arg == "--seed") {
            o.seed = parse_seed(arg, reader.value(arg));
            files = nullptr;
        } else if (arg == "--params") {
            o.params = reader.value(arg);
            files = nullptr;
        } else if (arg == "--truth") {
            o.truth = reader.value(arg);
            files = nullptr;
        } else if (arg == "--threads") {
            o.execution.threads = parse_threads(arg, reader.value(arg));
            files = nullptr;
        } else if (arg == "--extended") {
            o.extended = true;
            files = nullptr;
        } else if (arg == "--quiet") {
            o.quiet = true;
            files = nullptr;
        } else if (arg.starts_with("-")) {
            throw reader.unknown(arg);
        } else if (files != nullptr) {
            files->emplace_back(arg);
        } else if (o.model.empty()) {
            o.model = std::string(arg);
        } else {
            throw UsageError(fmt::format("unexpected argument '{}' (one MODEL only; see "
                                         "laddu-cpp fit --help)",
                                         arg));
        }
    }
    if (o.model.empty() || o.data.empty() || o.accepted.empty()) {
        throw UsageError("MODEL, --data and --accepted are required (see laddu-cpp fit --help)");
    }
    return o;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int fit(std::span<const std::string_view> args) {
    return run_command("fit", [&] {
        if (!args.empty() && (args[0] == "--help" || args[0] == "-h")) {
            std::fputs(kFitUsage, stdout);
            return 0;
        }
        const Options o = parse(args);
        const auto t0 = std::chrono::steady_clock::now();
        const ModelFile file = load_model(o.model);
        const ModelPoint point = apply_params(file.model, o.params);
        if (point.free_values.empty()) {
            throw ModelError(fmt::format("{} has no free parameters to fit", file.source));
        }
        const data::Dataset data = data::read_events(o.data);
        const data::Dataset accepted = data::read_events(o.accepted);
        std::shared_ptr<likelihood::UnbinnedNll> nll;
        if (o.extended) {
            nll =
                std::make_shared<likelihood::ExtendedNLL>(point.model, data, accepted, o.execution);
        } else {
            nll = std::make_shared<likelihood::NLL>(point.model, data, accepted, o.execution);
        }
        likelihood::Likelihood total;
        total.add(nll);
        fmt::print("model {} ({}): {} free parameters, {} data events, {} accepted MC events, "
                   "{} backend ({:.1f} s)\n",
                   file.name.empty() ? file.source : file.name, file.source,
                   point.free_values.size(), data.size(), accepted.size(), nll->backend(),
                   seconds_since(t0));
        std::fflush(stdout);

        // A likelihood that cannot be evaluated at the user's start (a non-positive intensity,
        // a NaN in the data) is an error in the input, not a fit that did not converge:
        // fit_restarts would report it as a failed start.
        (void)total.value(point.free_values);

        fit::FitOptions fit_options;
        std::size_t start_index = 0;
        std::size_t last_iteration = 0;
        ProgressLine progress(stderr);
        if (!o.quiet) {
            fit_options.minimizer.progress = [&](const fit::Progress& p) {
                if (start_index == 0 || p.iteration <= last_iteration) {
                    ++start_index;
                }
                last_iteration = p.iteration;
                progress.update(fmt::format("fit: start {}/{}  iteration {:5d}  NLL {:.6f}  "
                                            "({:.1f} s)",
                                            start_index, o.starts, p.iteration, p.value,
                                            seconds_since(t0)));
                return true;
            };
        }
        const fit::RestartResult fits =
            fit::fit_restarts(total, point.free_values,
                              {.starts = o.starts, .seed = o.seed, .spread = 0.3}, fit_options);
        progress.finish();
        const fit::FitResult& result = fits.best_fit();

        std::string text = fmt::format(
            "{} after {} iterations: NLL {:.6f} (best of {} start{}, {:.1f} s)\n",
            result.converged ? "converged" : "NOT converged (" + result.message + ")",
            result.iterations, result.value, o.starts, o.starts == 1 ? "" : "s", seconds_since(t0));
        const std::map<std::string, double> truth =
            o.truth.empty() ? std::map<std::string, double>{} : parse_params(o.truth);
        for (const auto& [name, value] : truth) {
            if (std::find(result.names.begin(), result.names.end(), name) == result.names.end()) {
                throw UsageError(fmt::format("--truth: '{}' is not a free parameter", name));
            }
        }
        nlohmann::json json;
        text += fmt::format("{:<24} {:>14} {:>14}", "parameter", "value", "uncertainty");
        text += truth.empty() ? "\n" : fmt::format(" {:>14} {:>8}\n", "true", "pull");
        for (std::size_t k = 0; k < result.names.size(); ++k) {
            const std::string& name = result.names[k];
            text += fmt::format("{:<24} {:>14.6g} {:>14.6g}", name, result.values[k],
                                result.uncertainties[k]);
            if (const auto t = truth.find(name); t != truth.end()) {
                const double pull = (result.values[k] - t->second) / result.uncertainties[k];
                text += fmt::format(" {:>14.6g} {:>8.2f}", t->second, pull);
                json["pulls"][name] = std::isfinite(pull) ? nlohmann::json(pull) : nlohmann::json();
            }
            text += "\n";
        }
        const expr::ParamLayout& layout = point.model.parameters();
        for (const std::size_t index : layout.fixed_indices()) {
            const expr::Parameter& p = layout.parameters()[index];
            text += fmt::format("{:<24} {:>14.6g} {:>14}\n", p.name, *p.fixed, "fixed");
            json["fixed"][p.name] = *p.fixed;
        }
        if (!file.tags.empty()) {
            text += fmt::format("\n{:<24} {:>14} {:>14}\n", "fit fraction", "value", "uncertainty");
            for (const std::string& tag : file.tags) {
                const fit::FitFraction f = fit::fit_fraction(result, *nll, {tag});
                text += fmt::format("{:<24} {:>14.6g} {:>14.6g}\n", tag, f.value, f.uncertainty);
                json["fit_fractions"][tag] = {{"value", f.value}, {"uncertainty", f.uncertainty}};
            }
        }
        std::fputs(text.c_str(), stdout);

        if (!o.json.empty()) {
            json["model"] = file.source;
            json["converged"] = result.converged;
            json["message"] = result.message;
            json["nll"] = result.value;
            json["iterations"] = result.iterations;
            json["data_events"] = data.size();
            json["accepted_events"] = accepted.size();
            const std::size_t n = result.names.size();
            for (std::size_t k = 0; k < n; ++k) {
                // NaN is not JSON: an undetermined uncertainty is written as null.
                const double u = result.uncertainties[k];
                json["parameters"][result.names[k]] = {
                    {"value", result.values[k]},
                    {"uncertainty", std::isfinite(u) ? nlohmann::json(u) : nlohmann::json()}};
            }
            json["names"] = result.names;
            nlohmann::json covariance = nlohmann::json::array();
            for (std::size_t i = 0; i < n; ++i) {
                nlohmann::json row = nlohmann::json::array();
                for (std::size_t j = 0; j < n; ++j) {
                    const double c = result.covariance_at(i, j);
                    row.push_back(std::isfinite(c) ? nlohmann::json(c) : nlohmann::json());
                }
                covariance.push_back(row);
            }
            json["covariance"] = covariance;
            write_file_atomically(o.json, json.dump(2) + "\n");
        }
        return result.converged ? kExitOk : kExitNotConverged;
    });
}

}  // namespace laddu::cli
