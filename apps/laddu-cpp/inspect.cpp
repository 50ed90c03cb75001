// `laddu-cpp inspect`: what the compiler makes of a model, and its intermediate values per
// event (the AmpGen "Debugger" idea).
#include <algorithm>
#include <complex>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <laddu/base/assert.hpp>
#include <laddu/base/error.hpp>
#include <laddu/compile/compiled_model.hpp>
#include <laddu/data/read_events.hpp>
#include <laddu/expr/print.hpp>
#include <laddu/expr/traversal.hpp>
#include <laddu/ir/print.hpp>
#include <laddu/runtime/prepared_model.hpp>

#include "cli_common.hpp"
#include "commands.hpp"
#include "model_file.hpp"

namespace laddu::cli {

namespace {

constexpr const char* kInspectUsage =
    "usage: laddu-cpp inspect MODEL [--data FILE] [--events 0,5] [--params P]\n"
    "                         [--show parameters,graph,cache,ir,values] [--width N]\n"
    "Prints what the compiler makes of MODEL (a model file or a built-in: kmatrix_benchmark):\n"
    "  parameters  every parameter with its definition (free or fixed, bounds)\n"
    "  graph       the named amplitudes and the intensity's expression graph\n"
    "  cache       the compile report and the cache plan (one line per cache column)\n"
    "  ir          the precompute and evaluate IR programs\n"
    "  values      with --data: per chosen event, the value of every named amplitude, every\n"
    "              cache column and the intensity, at the parameter values\n"
    "  --data FILE     Parquet or ROOT events for the values section\n"
    "  --events LIST   event indices (default 0)\n"
    "  --params P      parameter values (name=value,... or JSON; default: the model's)\n"
    "  --show LIST     sections to print (default: all; values only with --data)\n"
    "  --width N       truncate expression text to N characters (default 160; 0: never)\n"
    "Exit code 0; 2 for errors (one line on stderr); 1 for an internal error.\n";

// Expression text longer than this is never useful on a screen.
constexpr std::uint64_t kMaxWidth = 1000000;

struct Options {
    std::string model;
    std::string data;
    std::vector<std::size_t> events = {0};
    std::string params;
    std::vector<std::string> show = {"parameters", "graph", "cache", "ir", "values"};
    std::size_t width = 160;
};

Options parse(std::span<const std::string_view> args) {
    Options o;
    ArgReader reader("inspect", args);
    while (reader.more()) {
        const std::string_view arg = reader.next();
        if (arg == "--data") {
            o.data = reader.value(arg);
        } else if (arg == "--events") {
            o.events = parse_indices(arg, reader.value(arg));
        } else if (arg == "--params") {
            o.params = reader.value(arg);
        } else if (arg == "--width") {
            o.width = static_cast<std::size_t>(parse_integer(arg, reader.value(arg), 0, kMaxWidth));
        } else if (arg == "--show") {
            const std::string list = reader.value(arg);
            o.show.clear();
            std::size_t begin = 0;
            while (begin <= list.size()) {
                const std::size_t end = std::min(list.find(',', begin), list.size());
                const std::string section = list.substr(begin, end - begin);
                if (section != "parameters" && section != "graph" && section != "cache" &&
                    section != "ir" && section != "values") {
                    throw UsageError(fmt::format("--show: unknown section '{}' (expected "
                                                 "parameters, graph, cache, ir, values)",
                                                 section));
                }
                o.show.push_back(section);
                begin = end + 1;
            }
        } else if (arg.starts_with("-")) {
            throw reader.unknown(arg);
        } else if (o.model.empty()) {
            o.model = std::string(arg);
        } else {
            throw UsageError(fmt::format("unexpected argument '{}'", arg));
        }
    }
    if (o.model.empty()) {
        throw UsageError("MODEL is required (see laddu-cpp inspect --help)");
    }
    return o;
}

bool shows(const Options& o, const char* section) {
    return std::find(o.show.begin(), o.show.end(), section) != o.show.end();
}

// `text` on one line ("; " between bindings), cut to `width` characters (0: never).
std::string shorten(std::string text, std::size_t width) {
    for (std::size_t at = text.find('\n'); at != std::string::npos; at = text.find('\n', at)) {
        text.replace(at, 1, "; ");
    }
    if (width > 3 && text.size() > width) {
        text = text.substr(0, width - 3) + "...";
    }
    return text;
}

std::string format_value(std::complex<double> v, bool is_complex) {
    return is_complex ? fmt::format("{:.10g} {:+.10g}i", v.real(), v.imag())
                      : fmt::format("{:.10g}", v.real());
}

runtime::Execution single_thread() {
    runtime::Execution execution;
    execution.threads = 1;
    return execution;
}

// The value of the scalar `e` at every event of `rows`, with its parameters fixed at `values`
// (by name: the intensity's values, so a part sees the same point as the whole).
std::vector<std::complex<double>> evaluate(const expr::Expr& e, const data::Dataset& rows,
                                           const std::map<std::string, double>& values) {
    expr::Model model(e);
    for (const std::string& name : model.parameters().names()) {
        LADDU_ASSERT(values.contains(name)) << "parameter " << name << " not in the model";
        model = model.fix(name, values.at(name));
    }
    const compile::CompiledModel compiled = compile::compile_model(model);
    const runtime::PreparedModel prepared =
        runtime::PreparedModel::prepare(compiled, rows, single_thread());
    // The table shows a NaN as it is: finding where one starts is what inspect is for.
    return prepared.evaluate(std::vector<double>{}, runtime::NonFiniteValues::kKeep);
}

// The scalar a cache column holds, as an expression (nullopt for SolveRow inverse rows).
std::optional<expr::Expr> column_expression(const compile::CacheColumn& column) {
    if (column.source != compile::CacheColumnSource::kValue) {
        return std::nullopt;
    }
    const expr::ValueKind& kind = column.node.value_kind();
    if (kind.is_scalar()) {
        return column.node;
    }
    if (kind.shape == expr::Shape::kVector) {
        return expr::component(column.node, column.element);
    }
    return expr::matrix_element(column.node, column.element / kind.cols,
                                column.element % kind.cols);
}

}  // namespace

int inspect(std::span<const std::string_view> args) {
    return run_command("inspect", [&] {
        if (!args.empty() && (args[0] == "--help" || args[0] == "-h")) {
            std::fputs(kInspectUsage, stdout);
            return 0;
        }
        const Options o = parse(args);
        const ModelFile file = load_model(o.model);
        const ModelPoint point = apply_params(file.model, o.params);
        const expr::Model& model = point.model;
        const compile::CompiledModel compiled = compile::compile_model(model);
        // The values first, so a data error (a missing file or column, an event out of range)
        // comes before any output.
        std::vector<std::pair<std::string, std::vector<std::complex<double>>>> table;
        std::vector<bool> complex_rows;
        if (shows(o, "values") && !o.data.empty()) {
            const data::Dataset data = data::read_events(std::span<const std::string>(&o.data, 1));
            std::vector<data::Dataset> picked;
            for (const std::size_t event : o.events) {
                if (event >= data.size()) {
                    throw DataError(fmt::format("--events: event {} is out of range ({} has {} "
                                                "events)",
                                                event, o.data, data.size()));
                }
                picked.push_back(data.slice(event, 1));
            }
            const data::Dataset rows = data::Dataset::concatenate(picked);
            const std::vector<std::string> names = point.model.parameters().free_names();
            std::map<std::string, double> values;
            for (std::size_t k = 0; k < names.size(); ++k) {
                values[names[k]] = point.free_values[k];
            }
            for (const std::size_t index : point.model.parameters().fixed_indices()) {
                const expr::Parameter& p = point.model.parameters().parameters()[index];
                values[p.name] = *p.fixed;
            }
            for (const NamedAmplitude& a : file.amplitudes) {
                table.emplace_back("amplitude " + a.name, evaluate(a.expression, rows, values));
                complex_rows.push_back(a.expression.value_kind().is_complex);
            }
            for (const compile::CacheColumn& c : compiled.cache_plan.columns) {
                if (const std::optional<expr::Expr> e = column_expression(c)) {
                    table.emplace_back("cache " + c.name, evaluate(*e, rows, {}));
                    complex_rows.push_back(c.is_complex);
                }
            }
            const runtime::PreparedModel prepared =
                runtime::PreparedModel::prepare(compiled, rows, single_thread());
            table.emplace_back(
                "intensity", prepared.evaluate(point.free_values, runtime::NonFiniteValues::kKeep));
            complex_rows.push_back(false);
        }

        fmt::print("model {} ({})\n", file.name.empty() ? file.source : file.name, file.source);
        if (!file.description.empty()) {
            fmt::print("  {}\n", file.description);
        }

        if (shows(o, "parameters")) {
            const expr::ParamLayout& layout = model.parameters();
            fmt::print("\n== parameters: {} free, {} fixed\n", layout.free_count(),
                       layout.size() - layout.free_count());
            std::size_t free_index = 0;
            for (const expr::Parameter& p : layout.parameters()) {
                fmt::print("  {:<6} {}\n",
                           p.is_fixed() ? "fixed" : fmt::format("[{}]", free_index++),
                           p.describe());
            }
        }

        if (shows(o, "graph")) {
            fmt::print("\n== amplitudes ({} named; tags: {})\n", file.amplitudes.size(),
                       file.tags.empty() ? std::string("none")
                                         : fmt::format("{}", fmt::join(file.tags, ", ")));
            for (const NamedAmplitude& a : file.amplitudes) {
                fmt::print("  {:<16} {:<18} {:>6} nodes  {}\n", a.name, a.type,
                           expr::node_count(a.expression),
                           shorten(expr::to_string(a.expression), o.width));
            }
            fmt::print("\n== intensity graph ({} distinct nodes; shared nodes as t<k> bindings)\n",
                       expr::node_count(model.expression()));
            fmt::print("{}\n", expr::to_string(model.expression()));
        }

        if (shows(o, "cache")) {
            fmt::print("\n== compile report\n{}", compiled.report.to_string(compiled.cache_plan));
            fmt::print("\n== cache plan: {}\n", compiled.cache_plan.summary());
            for (const compile::CacheColumn& c : compiled.cache_plan.columns) {
                const std::string what =
                    c.source == compile::CacheColumnSource::kInverseRow
                        ? fmt::format("row {} element {} of the inverse of", c.row, c.element)
                        : (c.node.value_kind().is_scalar()
                               ? std::string()
                               : fmt::format("element {} of", c.element));
                fmt::print("  {:<10} {:<7} {} {}\n", c.name, c.is_complex ? "complex" : "real",
                           what, shorten(expr::to_string(c.node), o.width));
            }
        }

        if (shows(o, "ir")) {
            fmt::print("\n== precompute program (events -> cache columns)\n{}",
                       compiled.has_precompute()
                           ? ir::to_string(compiled.precompute)
                           : std::string("(none: the model reads no events)\n"));
            fmt::print("\n== evaluate program (cache columns + parameters -> intensity)\n{}",
                       ir::to_string(compiled.evaluate));
        }

        if (!table.empty()) {
            fmt::print("\n== values at the parameter values above ({})\n", o.data);
            for (std::size_t k = 0; k < o.events.size(); ++k) {
                fmt::print("event {}:\n", o.events[k]);
                for (std::size_t r = 0; r < table.size(); ++r) {
                    fmt::print("  {:<28} {}\n", table[r].first,
                               format_value(table[r].second[k], complex_rows[r]));
                }
            }
        }
        return 0;
    });
}

}  // namespace laddu::cli
