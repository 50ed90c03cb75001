// `laddu-cpp cross-section`: laddu's cross sections of a model at fitted parameters, in total
// and per tagged wave, with bootstrap uncertainties and an optional differential cross section.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <laddu/base/atomic_file.hpp>
#include <laddu/base/error.hpp>
#include <laddu/compile/compiled_model.hpp>
#include <laddu/data/read_events.hpp>
#include <laddu/fit/bootstrap.hpp>
#include <laddu/likelihood/cross_section.hpp>
#include <laddu/likelihood/nll.hpp>
#include <laddu/physics/vectors.hpp>
#include <laddu/runtime/prepared_model.hpp>

#include "cli_common.hpp"
#include "commands.hpp"
#include "model_file.hpp"
#include "progress.hpp"
#include <nlohmann/json.hpp>

namespace laddu::cli {

namespace {

constexpr const char* kCrossSectionUsage =
    "usage: laddu-cpp cross-section MODEL --data FILE... --accepted FILE... --generated FILE...\n"
    "                               --luminosity L [--params P] [--extended] [--bootstrap N]\n"
    "                               [--seed S] [--axis VAR:LOW:HIGH:BINS] [--json OUT]\n"
    "                               [--threads T] [--quiet]\n"
    "Cross sections of MODEL (a model file or a built-in) at the parameters P, as laddu\n"
    "defines them: with I_acc = sum over the accepted MC of w I and I_gen over the generated\n"
    "MC, the observed cross section N_obs I_gen / (L I_acc) in total and per tagged wave (a\n"
    "wave keeps the full model's I_acc), the acceptance I_acc / I_gen, the acceptance-corrected\n"
    "yield, and with --extended the fitted cross section I_gen / L.\n"
    "  --data FILE...       data Parquet or ROOT files or globs\n"
    "  --accepted FILE...   accepted-MC Parquet or ROOT files or globs\n"
    "  --generated FILE...  generated-MC Parquet or ROOT files or globs (the thrown sample the\n"
    "                       accepted MC was selected from)\n"
    "  --luminosity L       integrated luminosity (the cross sections are in events / L's unit)\n"
    "  --params P           the parameters: `laddu-cpp fit --json` output or name=value,...\n"
    "                       (default: the model file's start values)\n"
    "  --extended           the model's scale is the yield (ExtendedNLL): adds the fitted\n"
    "                       cross section\n"
    "  --bootstrap N        refit N Poisson-bootstrap replicas of the data from P and report\n"
    "                       each number's standard deviation and 68% interval over them (each\n"
    "                       replica evaluated on its own data)\n"
    "  --seed S             replica k resamples with seed S + k (default 0)\n"
    "  --axis VAR:LOW:HIGH:BINS  a differential cross section in BINS equal bins of VAR: a\n"
    "                       scalar column, or `mass` (the invariant mass of the reaction's\n"
    "                       daughters)\n"
    "  --json OUT           also write every number (and the bootstrap draws) as JSON\n"
    "  --threads T          threads (default: all; at most 1024)\n"
    "  --quiet              no progress line\n"
    "Exit code 0 on success, 2 for errors (one line on stderr), 1 for an internal error.\n";

// A bootstrap of more replicas than this is a typo, not a plan.
constexpr std::uint64_t kMaxReplicas = 100000;
constexpr std::uint64_t kMaxBins = 1000000;

struct Axis {
    std::string variable;
    std::vector<double> edges;
};

struct Options {
    std::string model;
    std::vector<std::string> data;
    std::vector<std::string> accepted;
    std::vector<std::string> generated;
    double luminosity = 0.0;
    bool have_luminosity = false;
    std::string params;
    bool extended = false;
    std::size_t bootstrap = 0;
    std::uint64_t seed = 0;
    std::optional<Axis> axis;
    std::string json;
    bool quiet = false;
    runtime::Execution execution;
};

Axis parse_axis(std::string_view text) {
    std::vector<std::string_view> parts;
    std::size_t begin = 0;
    while (true) {
        const std::size_t end = text.find(':', begin);
        parts.push_back(text.substr(begin, end == std::string_view::npos ? end : end - begin));
        if (end == std::string_view::npos) {
            break;
        }
        begin = end + 1;
    }
    if (parts.size() != 4 || parts[0].empty()) {
        throw UsageError(fmt::format("--axis needs VAR:LOW:HIGH:BINS, e.g. mass:1.0:2.0:20, got "
                                     "'{}'",
                                     text));
    }
    const double low = parse_number("--axis LOW", parts[1]);
    const double high = parse_number("--axis HIGH", parts[2]);
    const std::size_t bins = parse_count("--axis BINS", parts[3], kMaxBins);
    if (!(low < high)) {
        throw UsageError(fmt::format("--axis needs LOW < HIGH, got {} and {}", low, high));
    }
    Axis axis{std::string(parts[0]), {}};
    for (std::size_t k = 0; k <= bins; ++k) {
        // The last edge is HIGH exactly; the others as numpy.linspace forms them.
        axis.edges.push_back(k == bins ? high
                                       : low + (high - low) * static_cast<double>(k) /
                                                   static_cast<double>(bins));
    }
    return axis;
}

Options parse(std::span<const std::string_view> args) {
    Options o;
    ArgReader reader("cross-section", args);
    std::vector<std::string>* files = nullptr;  // the list that bare arguments extend
    while (reader.more()) {
        const std::string_view arg = reader.next();
        std::vector<std::string>* list = nullptr;
        if (arg == "--data") {
            list = &o.data;
        } else if (arg == "--accepted") {
            list = &o.accepted;
        } else if (arg == "--generated") {
            list = &o.generated;
        }
        if (list != nullptr) {
            files = list;
            files->push_back(reader.value(arg));
            continue;
        }
        if (arg.starts_with("-")) {
            files = nullptr;
        }
        if (arg == "--luminosity") {
            o.luminosity = parse_number(arg, reader.value(arg));
            o.have_luminosity = true;
            if (!(o.luminosity > 0.0)) {
                throw UsageError(
                    fmt::format("--luminosity must be positive, got {}", o.luminosity));
            }
        } else if (arg == "--params") {
            o.params = reader.value(arg);
        } else if (arg == "--extended") {
            o.extended = true;
        } else if (arg == "--bootstrap") {
            o.bootstrap = parse_count(arg, reader.value(arg), kMaxReplicas);
        } else if (arg == "--seed") {
            o.seed = parse_seed(arg, reader.value(arg));
        } else if (arg == "--axis") {
            o.axis = parse_axis(reader.value(arg));
        } else if (arg == "--json") {
            o.json = reader.value(arg);
        } else if (arg == "--threads") {
            o.execution.threads = parse_threads(arg, reader.value(arg));
        } else if (arg == "--quiet") {
            o.quiet = true;
        } else if (arg.starts_with("-")) {
            throw reader.unknown(arg);
        } else if (files != nullptr) {
            files->emplace_back(arg);
        } else if (o.model.empty()) {
            o.model = std::string(arg);
        } else {
            throw UsageError(fmt::format("unexpected argument '{}' (one MODEL only; see "
                                         "laddu-cpp cross-section --help)",
                                         arg));
        }
    }
    if (o.model.empty() || o.data.empty() || o.accepted.empty() || o.generated.empty() ||
        !o.have_luminosity) {
        throw UsageError("MODEL, --data, --accepted, --generated and --luminosity are required "
                         "(see laddu-cpp cross-section --help)");
    }
    return o;
}

// One number and its bootstrap draws.
struct Number {
    double value = 0.0;
    std::vector<double> draws;
};

// The linearly interpolated quantile of sorted draws (laddu's Estimate::quantile).
double quantile(const std::vector<double>& sorted, double probability) {
    const double position = probability * static_cast<double>(sorted.size() - 1);
    const auto lower = static_cast<std::size_t>(std::floor(position));
    const auto upper = static_cast<std::size_t>(std::ceil(position));
    const double fraction = position - static_cast<double>(lower);
    return sorted[lower] * (1.0 - fraction) + sorted[upper] * fraction;
}

nlohmann::json to_json(const Number& n) {
    nlohmann::json out = {{"value", std::isfinite(n.value) ? nlohmann::json(n.value) : nullptr}};
    if (n.draws.size() >= 2) {
        double mean = 0.0;
        for (const double d : n.draws) {
            mean += d;
        }
        mean /= static_cast<double>(n.draws.size());
        double sum = 0.0;
        for (const double d : n.draws) {
            sum += (d - mean) * (d - mean);
        }
        std::vector<double> sorted = n.draws;
        std::sort(sorted.begin(), sorted.end());
        out["std"] = std::sqrt(sum / static_cast<double>(n.draws.size() - 1));
        out["interval_68"] = {quantile(sorted, 0.16), quantile(sorted, 0.84)};
        out["draws"] = n.draws;
    }
    return out;
}

// A JSON number as text; "nan" for null (NaN is not JSON: an empty bin's data value).
std::string number_text(const nlohmann::json& value, const char* format) {
    return value.is_number() ? fmt::format(fmt::runtime(format), value.get<double>()) : "nan";
}

std::string cell(const nlohmann::json& n) {
    std::string text = number_text(n["value"], "{:.6g}");
    if (n.contains("std")) {
        text += fmt::format(" ± {}  [{}, {}]", number_text(n["std"], "{:.3g}"),
                            number_text(n["interval_68"][0], "{:.6g}"),
                            number_text(n["interval_68"][1], "{:.6g}"));
    }
    return text;
}

// The axis variable's value per event of `events`.
std::vector<double> axis_values(const expr::Expr& variable, const data::EventData& events,
                                const runtime::Execution& execution) {
    const compile::CompiledModel compiled = compile::compile_model(expr::Model(variable));
    const runtime::PreparedModel prepared =
        runtime::PreparedModel::prepare(compiled, events, execution, "the differential axis");
    const std::vector<std::complex<double>> values = prepared.evaluate({});
    std::vector<double> out(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) {
        out[i] = values[i].real();
    }
    return out;
}

expr::Expr axis_variable(const Axis& axis, const ModelFile& file) {
    if (axis.variable == "mass") {
        const std::vector<std::string>& d = file.reaction.daughters;
        physics::Vec4 total = physics::Vec4::event(d.front());
        for (std::size_t k = 1; k < d.size(); ++k) {
            total = total + physics::Vec4::event(d[k]);
        }
        return total.m();
    }
    return expr::scalar(axis.variable);
}

}  // namespace

int cross_section(std::span<const std::string_view> args) {
    return run_command("cross-section", [&] {
        if (!args.empty() && (args[0] == "--help" || args[0] == "-h")) {
            std::fputs(kCrossSectionUsage, stdout);
            return 0;
        }
        const Options o = parse(args);
        const ModelFile file = load_model(o.model);
        const ModelPoint point = apply_params(file.model, o.params);
        const data::Dataset data = data::read_events(o.data);
        const data::Dataset accepted = data::read_events(o.accepted);
        const data::Dataset generated = data::read_events(o.generated);
        std::shared_ptr<const likelihood::UnbinnedNll> term;
        if (o.extended) {
            term =
                std::make_shared<likelihood::ExtendedNLL>(point.model, data, accepted, o.execution);
        } else {
            term = std::make_shared<likelihood::NLL>(point.model, data, accepted, o.execution);
        }
        // The selections: the full model, then each tagged wave.
        std::vector<std::string> names{"total"};
        std::vector<likelihood::CrossSectionIntegrals> selections{
            likelihood::CrossSectionIntegrals(term, generated)};
        for (const std::string& tag : file.tags) {
            names.push_back(tag);
            selections.emplace_back(term, generated, std::vector<std::string>{tag});
        }

        std::optional<likelihood::DifferentialBins> bins;
        if (o.axis) {
            const expr::Expr variable = axis_variable(*o.axis, file);
            const std::vector<std::vector<double>> edges{o.axis->edges};
            bins = likelihood::DifferentialBins{
                likelihood::flat_bin_indices({axis_values(variable, data, o.execution)}, edges),
                likelihood::flat_bin_indices({axis_values(variable, accepted, o.execution)}, edges),
                likelihood::flat_bin_indices({axis_values(variable, generated, o.execution)},
                                             edges),
                likelihood::bin_volumes(edges)};
        }

        // Every number of one parameter point on one term's data, in a fixed order.
        std::vector<std::string> quantities{"observed", "acceptance", "corrected_yield"};
        if (o.extended) {
            quantities.emplace_back("fitted");
        }
        const auto evaluate = [&](const std::vector<likelihood::CrossSectionIntegrals>& s,
                                  std::span<const double> p) {
            std::vector<double> out;
            for (const likelihood::CrossSectionIntegrals& integrals : s) {
                out.push_back(integrals.observed_cross_section(p, o.luminosity));
                out.push_back(integrals.acceptance(p));
                out.push_back(integrals.corrected_yield(p));
                if (o.extended) {
                    out.push_back(integrals.fitted_cross_section(p, o.luminosity));
                }
            }
            if (bins) {
                std::vector<const likelihood::CrossSectionIntegrals*> parts;
                for (std::size_t k = 1; k < s.size(); ++k) {
                    parts.push_back(&s[k]);
                }
                const likelihood::DifferentialValues d =
                    likelihood::differential_cross_section(s[0], parts, *bins, p, o.luminosity);
                out.insert(out.end(), d.data.begin(), d.data.end());
                out.insert(out.end(), d.model.begin(), d.model.end());
                for (const std::vector<double>& c : d.components) {
                    out.insert(out.end(), c.begin(), c.end());
                }
            }
            return out;
        };
        std::vector<Number> numbers;
        for (const double v : evaluate(selections, point.free_values)) {
            numbers.push_back({v, {}});
        }

        if (o.bootstrap > 0) {
            ProgressLine progress(stderr);
            fit::FitOptions fit_options;
            fit_options.uncertainties = false;
            std::size_t replica = 0;
            std::size_t last_iteration = 0;
            if (!o.quiet) {
                fit_options.minimizer.progress = [&](const fit::Progress& p) {
                    if (replica == 0 || p.iteration <= last_iteration) {
                        ++replica;  // a new replica's fit has started
                    }
                    last_iteration = p.iteration;
                    progress.update(fmt::format("cross-section: bootstrap fit {}/{}  iteration "
                                                "{:5d}  NLL {:.6f}",
                                                replica, o.bootstrap, p.iteration, p.value));
                    return true;
                };
            }
            const fit::BootstrapResult replicas =
                fit::bootstrap_fits(point.model, data, accepted, point.free_values,
                                    {.samples = o.bootstrap,
                                     .seed = o.seed,
                                     .extended = o.extended,
                                     .execution = o.execution,
                                     .keep_terms = true},
                                    fit_options);
            for (std::size_t k = 0; k < replicas.terms.size(); ++k) {
                std::vector<likelihood::CrossSectionIntegrals> own;
                for (const likelihood::CrossSectionIntegrals& s : selections) {
                    own.push_back(s.for_replica(replicas.terms[k]));
                }
                const std::vector<double> values = evaluate(own, replicas.fits[k].values);
                for (std::size_t j = 0; j < values.size(); ++j) {
                    numbers[j].draws.push_back(values[j]);
                }
            }
            progress.finish();
        }

        nlohmann::json json;
        json["model"] = file.source;
        json["luminosity"] = o.luminosity;
        json["extended"] = o.extended;
        json["bootstrap"] = o.bootstrap;
        json["data_events"] = data.size();
        json["accepted_events"] = accepted.size();
        json["generated_events"] = generated.size();
        for (std::size_t k = 0; k < point.free_values.size(); ++k) {
            json["parameters"][term->parameters()[k].name] = point.free_values[k];
        }
        std::size_t next = 0;
        std::string text =
            fmt::format("{} at L = {:g}: {} data, {} accepted MC, {} generated MC events{}\n",
                        file.name.empty() ? file.source : file.name, o.luminosity, data.size(),
                        accepted.size(), generated.size(),
                        o.bootstrap > 0 ? fmt::format(", {} bootstrap replicas", o.bootstrap) : "");
        text += fmt::format("{:<12} {:<16} {}\n", "selection", "quantity",
                            o.bootstrap > 0 ? "value ± std  [68% interval]" : "value");
        for (const std::string& name : names) {
            for (const std::string& quantity : quantities) {
                const nlohmann::json n = to_json(numbers[next++]);
                json["totals"][name][quantity] = n;
                text += fmt::format("{:<12} {:<16} {}\n", name, quantity, cell(n));
            }
        }
        if (bins) {
            const std::size_t n_bins = bins->volumes.size();
            nlohmann::json& d = json["differential"];
            d["variable"] = o.axis->variable;
            d["edges"] = o.axis->edges;
            std::vector<std::string> columns{"data", "model"};
            for (std::size_t k = 1; k < names.size(); ++k) {
                columns.push_back(names[k]);
            }
            text += fmt::format("\ndσ/d{} per bin (data, model{})\n", o.axis->variable,
                                names.size() > 1 ? ", waves" : "");
            std::vector<nlohmann::json> cells(columns.size());
            for (std::size_t c = 0; c < columns.size(); ++c) {
                for (std::size_t b = 0; b < n_bins; ++b) {
                    cells[c].push_back(to_json(numbers[next++]));
                }
                if (c < 2) {
                    d[columns[c]] = cells[c];
                } else {
                    d["components"][columns[c]] = cells[c];
                }
            }
            for (std::size_t b = 0; b < n_bins; ++b) {
                text += fmt::format("[{:.6g}, {:.6g})", o.axis->edges[b], o.axis->edges[b + 1]);
                for (std::size_t c = 0; c < columns.size(); ++c) {
                    text += fmt::format("  {}: {}", columns[c], cell(cells[c][b]));
                }
                text += "\n";
            }
        }
        std::fputs(text.c_str(), stdout);
        if (!o.json.empty()) {
            write_file_atomically(o.json, json.dump(2) + "\n");
        }
        return kExitOk;
    });
}

}  // namespace laddu::cli
