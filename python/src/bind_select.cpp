// laddu's event selections and binning for Python: comparisons of expressions give an
// ld.Predicate (`(run >= 12000) & (run < 13000)`, `~p`, `p | q`,
// Predicate.between(v, low=, high=)), Dataset.select(predicate or boolean mask),
// Dataset.evaluate(expr, real=), ld.Bin(edges) / Bin.uniform(n, low=, high=) and
// Dataset.bin_by(expr, bins=, range=) returning a BinnedDataset of items with .index, .low, .high
// and .dataset. The expressions are compiled and evaluated over the dataset by the runtime with
// the GIL released.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <laddu/base/error.hpp>
#include <laddu/compile/compiled_model.hpp>
#include <laddu/data/event_data.hpp>
#include <laddu/expr/expr.hpp>
#include <laddu/expr/model.hpp>
#include <laddu/expr/print.hpp>
#include <laddu/runtime/execution.hpp>
#include <laddu/runtime/prepared_model.hpp>

#include "bindings.hpp"
#include "conversions.hpp"
#include "event_data.hpp"

namespace py = pybind11;

namespace laddu::python {

namespace {

using expr::Expr;

// The events a query runs over and the execution it runs with (the dataset's memory budget
// applied when the execution has none).
// The last memory decision of a query's prepares is kept in `last` (without the GIL) and
// recorded on the dataset by record(), with the GIL held.
struct Query {
    data::EventData events;
    runtime::Execution execution;
    std::shared_ptr<std::optional<runtime::MemoryReport>> decision;
    mutable std::optional<runtime::MemoryReport> last;

    void record() const {
        if (last) {
            *decision = *last;
        }
    }
};

Query query(const py::handle& dataset, const std::optional<runtime::Execution>& execution) {
    std::optional<runtime::MemoryPlan> memory;
    data::EventData events = to_event_data(dataset, "the dataset", memory);
    return Query{std::move(events), with_data_memory(execution, memory),
                 dataset.cast<const PyDataset&>().decision, std::nullopt};
}

// The value of `e` for every event (free parameters at their defaults). A NaN is kept: a
// variable may be undefined for some events, which then pass no cut and fall in no bin.
// File-backed events are read window by window under the execution's memory budget.
std::vector<std::complex<double>> evaluate_expression(const Expr& e, const Query& q) {
    const expr::Model model(e);
    const compile::CompiledModel compiled = compile::compile_model(model);
    const auto prepared = runtime::PreparedModel::prepare(compiled, q.events, q.execution);
    q.last = prepared.memory_report();
    return prepared.evaluate(model.parameters().free_defaults(), runtime::NonFiniteValues::kKeep);
}

std::vector<double> evaluate_real(const Expr& e, const Query& dataset) {
    const std::vector<std::complex<double>> values = evaluate_expression(e, dataset);
    std::vector<double> out(values.size());
    std::transform(values.begin(), values.end(), out.begin(),
                   [](const std::complex<double>& v) { return v.real(); });
    return out;
}

enum class Compare : std::uint8_t { kLess, kLessEqual, kGreater, kGreaterEqual };

const char* symbol(Compare op) {
    switch (op) {
    case Compare::kLess:
        return "<";
    case Compare::kLessEqual:
        return "<=";
    case Compare::kGreater:
        return ">";
    case Compare::kGreaterEqual:
        return ">=";
    }
    return "?";
}

// A selection over events: a comparison `expression op threshold`, or the and/or/not of other
// predicates. Immutable and shared, like expressions.
class Predicate {
public:
    enum class Kind : std::uint8_t { kCompare, kAnd, kOr, kNot };

    static Predicate compare(Expr lhs, Compare op, double threshold) {
        Predicate p(Kind::kCompare);
        p.lhs_ = std::move(lhs);
        p.op_ = op;
        p.threshold_ = threshold;
        return p;
    }

    static Predicate combine(Kind kind, const Predicate& a, const Predicate* b) {
        Predicate p(kind);
        p.a_ = std::make_shared<const Predicate>(a);
        if (b != nullptr) {
            p.b_ = std::make_shared<const Predicate>(*b);
        }
        return p;
    }

    // One flag per event (true: keep).
    [[nodiscard]] std::vector<char> mask(const Query& dataset) const {
        switch (kind_) {
        case Kind::kCompare: {
            const std::vector<double> values = evaluate_real(*lhs_, dataset);
            std::vector<char> out(values.size());
            for (std::size_t i = 0; i < values.size(); ++i) {
                out[i] = static_cast<char>(holds(values[i]));
            }
            return out;
        }
        case Kind::kNot: {
            std::vector<char> out = a_->mask(dataset);
            for (char& keep : out) {
                keep = static_cast<char>(!keep);
            }
            return out;
        }
        case Kind::kAnd:
        case Kind::kOr: {
            std::vector<char> out = a_->mask(dataset);
            const std::vector<char> other = b_->mask(dataset);
            for (std::size_t i = 0; i < out.size(); ++i) {
                out[i] = static_cast<char>(kind_ == Kind::kAnd ? (out[i] && other[i])
                                                               : (out[i] || other[i]));
            }
            return out;
        }
        }
        return {};
    }

    [[nodiscard]] std::string to_string() const {
        switch (kind_) {
        case Kind::kCompare:
            return fmt::format("{} {} {}", expr::to_string(*lhs_), symbol(op_), threshold_);
        case Kind::kNot:
            return "~(" + a_->to_string() + ")";
        case Kind::kAnd:
            return "(" + a_->to_string() + ") & (" + b_->to_string() + ")";
        case Kind::kOr:
            return "(" + a_->to_string() + ") | (" + b_->to_string() + ")";
        }
        return {};
    }

private:
    explicit Predicate(Kind kind) : kind_(kind) {}

    // NaN compares false, as in numpy.
    [[nodiscard]] bool holds(double v) const {
        switch (op_) {
        case Compare::kLess:
            return v < threshold_;
        case Compare::kLessEqual:
            return v <= threshold_;
        case Compare::kGreater:
            return v > threshold_;
        case Compare::kGreaterEqual:
            return v >= threshold_;
        }
        return false;
    }

    Kind kind_;
    std::optional<Expr> lhs_;
    Compare op_ = Compare::kLess;
    double threshold_ = 0.0;
    std::shared_ptr<const Predicate> a_;
    std::shared_ptr<const Predicate> b_;
};

// `a op b` for an expression and a number or another expression: Expr-vs-Expr compares
// a - b against 0, which has the sign of a - b exactly (IEEE subtraction with subnormals).
Predicate compare(const Expr& a, const py::object& b, Compare op) {
    if (py::isinstance<Expr>(b)) {
        return Predicate::compare(a - b.cast<Expr>(), op, 0.0);
    }
    if (py::isinstance<py::bool_>(b) ||
        !(py::isinstance<py::float_>(b) || py::isinstance<py::int_>(b) ||
          py::hasattr(b, "__float__"))) {
        throw py::type_error("an expression compares with a real number or another expression, "
                             "not '" +
                             std::string(py::str(py::type::of(b).attr("__name__"))) + "'");
    }
    return Predicate::compare(
        a, op, cast_arg<double>(b, "the other side of a comparison", "a real number or an Expr"));
}

// A numeric bound of between().
double bound_value(const py::handle& bound) {
    if (py::isinstance<py::bool_>(bound)) {
        throw py::type_error("a bound of between must be a real number or an Expr, not a bool");
    }
    const double value = cast_arg<double>(bound, "a bound of between", "a real number or an Expr");
    if (std::isnan(value)) {
        throw py::value_error("a bound of between must not be NaN (no value lies beside it)");
    }
    return value;
}

// `v op bound` for a number or an expression bound (an expression compares v - bound with 0).
Predicate compare_bound(const Expr& v, const py::object& bound, Compare op) {
    if (py::isinstance<Expr>(bound)) {
        return Predicate::compare(v - bound.cast<Expr>(), op, 0.0);
    }
    return Predicate::compare(v, op, bound_value(bound));
}

// laddu's Predicate.between: lo <= v <= hi for closed="both" (laddu's default), lo <= v < hi
// ("left"), lo < v <= hi ("right") or neither end; closed=True means "both" and False
// "neither". The bounds are numbers or expressions, as in laddu (which takes only expressions).
Predicate between(const py::object& value, const py::object& low, const py::object& high,
                  const py::object& closed) {
    if (!py::isinstance<Expr>(low) && !py::isinstance<Expr>(high) &&
        !(bound_value(low) <= bound_value(high))) {
        throw ModelError(fmt::format("between needs low <= high, got [{}, {}]", bound_value(low),
                                     bound_value(high)));
    }
    std::string mode = "both";
    if (py::isinstance<py::bool_>(closed)) {
        mode = closed.cast<bool>() ? "both" : "neither";
    } else if (py::isinstance<py::str>(closed)) {
        mode =
            cast_arg<std::string>(closed, "closed", "'left', 'right', 'both', 'neither' or a bool");
    } else if (!closed.is_none()) {
        throw py::type_error("closed must be 'left', 'right', 'both', 'neither' or a bool");
    }
    const bool left = mode == "left" || mode == "both";
    const bool right = mode == "right" || mode == "both";
    if (!left && !right && mode != "neither") {
        throw py::value_error("closed must be 'left', 'right', 'both' or 'neither', got '" + mode +
                              "'");
    }
    const Expr v = to_expr(value);
    const Predicate lower =
        compare_bound(v, low, left ? Compare::kGreaterEqual : Compare::kGreater);
    const Predicate upper = compare_bound(v, high, right ? Compare::kLessEqual : Compare::kLess);
    return Predicate::combine(Predicate::Kind::kAnd, lower, &upper);
}

// The events whose flag is set: a new dataset (file-backed events stay on file, as row numbers).
PyDataset select_flags(const py::handle& dataset, const Query& q, const std::vector<char>& flags) {
    std::vector<std::uint64_t> rows;
    for (std::size_t i = 0; i < flags.size(); ++i) {
        if (flags[i] != 0) {
            rows.push_back(i);
        }
    }
    return PyDataset{q.events.take(std::move(rows)), dataset.cast<const PyDataset&>().memory};
}

PyDataset select(const py::object& dataset, const py::object& selection,
                 const std::optional<runtime::Execution>& execution) {
    const Query q = query(dataset, execution);
    if (py::isinstance<Predicate>(selection)) {
        const Predicate predicate = selection.cast<Predicate>();
        std::vector<char> flags;
        {
            const py::gil_scoped_release release;
            flags = predicate.mask(q);
        }
        q.record();
        return select_flags(dataset, q, flags);
    }
    const py::array array = py::array::ensure(selection);
    if (!array || array.dtype().kind() != 'b') {
        throw py::type_error("select takes an ld.Predicate (e.g. (x > 1) & (x < 2)) or a numpy "
                             "boolean mask with one entry per event");
    }
    const auto mask = py::array_t < bool,
               py::array::c_style | py::array::forcecast > ::ensure(array);
    const std::uint64_t n = q.events.num_events();
    if (mask.ndim() != 1 || static_cast<std::uint64_t>(mask.size()) != n) {
        throw DataError(fmt::format("the selection mask has {} entries but the dataset has {} "
                                    "events",
                                    mask.size(), n));
    }
    std::vector<char> flags(static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < flags.size(); ++i) {
        flags[i] = static_cast<char>(mask.data()[i]);
    }
    return select_flags(dataset, q, flags);
}

// laddu's Bin: strictly increasing edges.
struct Bin {
    std::vector<double> edges;

    static Bin from_edges(std::vector<double> edges) {
        if (edges.size() < 2) {
            throw ModelError("a binning needs at least two edges");
        }
        for (std::size_t i = 0; i + 1 < edges.size(); ++i) {
            if (!(edges[i] < edges[i + 1])) {
                throw ModelError(fmt::format("bin edges must increase strictly; edge {} is {} and "
                                             "edge {} is {}",
                                             i, edges[i], i + 1, edges[i + 1]));
            }
        }
        return Bin{std::move(edges)};
    }

    static Bin uniform(std::size_t n, double low, double high) {
        if (n == 0) {
            throw ModelError("Bin.uniform needs at least one bin");
        }
        if (!(low < high) || !std::isfinite(low) || !std::isfinite(high)) {
            throw ModelError(
                fmt::format("Bin.uniform needs finite low < high, got [{}, {}]", low, high));
        }
        // laddu's edges, bit for bit: low + i * width with width = (high - low) / n.
        const double width = (high - low) / static_cast<double>(n);
        std::vector<double> edges(n + 1);
        for (std::size_t i = 0; i <= n; ++i) {
            edges[i] = low + static_cast<double>(i) * width;
        }
        return Bin{std::move(edges)};
    }
};

// One interval of a BinnedDataset.
struct DatasetBin {
    std::size_t index = 0;
    double low = 0.0;
    double high = 0.0;
    PyDataset dataset;
};

struct BinnedDataset {
    std::vector<double> edges;
    std::vector<DatasetBin> bins;
};

Bin to_bin(const py::object& bins, const std::optional<std::pair<double, double>>& range) {
    if (py::isinstance<Bin>(bins)) {
        if (range) {
            throw py::value_error("give range= only with an integer bin count");
        }
        return bins.cast<Bin>();
    }
    if (py::isinstance<py::int_>(bins)) {
        if (!range) {
            throw py::value_error("bin_by with an integer bin count needs range=(low, high)");
        }
        const auto n = cast_arg<std::int64_t>(bins, "bins", "an int within the int64 range");
        if (n <= 0) {
            throw ModelError(fmt::format("the bin count must be positive, got {}", n));
        }
        return Bin::uniform(static_cast<std::size_t>(n), range->first, range->second);
    }
    if (range) {  // edges fix the range themselves; a second range would have to be ignored
        throw py::value_error("give range= only with an integer bin count, not with bin edges");
    }
    return Bin::from_edges(cast_arg<std::vector<double>>(
        bins, "bins", "an ld.Bin, a bin count (int) or a sequence of bin edges (floats)"));
}

// Event i goes to bin k when edges[k] <= v_i < edges[k+1], and to the last bin also when v_i is
// the last edge (laddu's rule, so the bins cover [edges.front(), edges.back()]); values outside
// (and NaN) go nowhere.
BinnedDataset bin_by(const Query& dataset, const std::optional<runtime::MemoryPlan>& memory,
                     const Expr& variable, const Bin& binning) {
    const std::vector<double> values = evaluate_real(variable, dataset);
    const std::vector<double>& edges = binning.edges;
    const std::size_t n_bins = edges.size() - 1;
    std::vector<std::size_t> which(values.size(), n_bins);
    for (std::size_t i = 0; i < values.size(); ++i) {
        const double v = values[i];
        if (v == edges.back()) {
            which[i] = n_bins - 1;
        } else if (v >= edges.front() && v < edges.back()) {
            const auto it = std::upper_bound(edges.begin(), edges.end(), v);
            which[i] = static_cast<std::size_t>(it - edges.begin()) - 1;
        }
    }
    std::vector<std::vector<std::uint64_t>> rows(n_bins);
    for (std::size_t i = 0; i < which.size(); ++i) {
        if (which[i] < n_bins) {
            rows[which[i]].push_back(i);
        }
    }
    BinnedDataset out{edges, {}};
    for (std::size_t k = 0; k < n_bins; ++k) {
        out.bins.push_back({k, edges[k], edges[k + 1],
                            PyDataset{dataset.events.take(std::move(rows[k])), memory}});
    }
    return out;
}

py::object to_numpy(const std::vector<std::complex<double>>& values, bool real) {
    if (real) {
        py::array_t<double> out(static_cast<py::ssize_t>(values.size()));
        std::transform(values.begin(), values.end(), out.mutable_data(),
                       [](const std::complex<double>& v) { return v.real(); });
        return out;
    }
    py::array_t<std::complex<double>> out(static_cast<py::ssize_t>(values.size()));
    std::copy(values.begin(), values.end(), out.mutable_data());
    return out;
}

}  // namespace

void bind_select(py::module_& module) {
    py::class_<Predicate> predicate(module, "Predicate",
                                    "An event selection: comparisons of expressions combined "
                                    "with & | ~ (for Dataset.select).");
    predicate
        .def("__and__",
             [](const Predicate& a, const Predicate& b) {
                 return Predicate::combine(Predicate::Kind::kAnd, a, &b);
             })
        .def("__or__",
             [](const Predicate& a, const Predicate& b) {
                 return Predicate::combine(Predicate::Kind::kOr, a, &b);
             })
        .def("__invert__",
             [](const Predicate& a) {
                 return Predicate::combine(Predicate::Kind::kNot, a, nullptr);
             })
        .def("__bool__",
             [](const Predicate&) -> bool {
                 throw py::type_error("a Predicate has no truth value; combine predicates with "
                                      "& | ~ instead of and/or/not, and chain a < x < b as "
                                      "(x > a) & (x < b)");
             })
        .def(
            "mask",
            [](const Predicate& p, const py::object& dataset,
               const std::optional<runtime::Execution>& execution) {
                const Query q = query(dataset, execution);
                std::vector<char> flags;
                {
                    const py::gil_scoped_release release;
                    flags = p.mask(q);
                }
                q.record();
                py::array_t<bool> out(static_cast<py::ssize_t>(flags.size()));
                std::transform(flags.begin(), flags.end(), out.mutable_data(),
                               [](char f) { return f != 0; });
                return out;
            },
            py::arg("dataset"), py::kw_only(), py::arg("execution") = py::none(),
            "One bool per event of `dataset` (True: selected).")
        .def_static("between", &between, py::arg("value"), py::arg("low"), py::arg("high"),
                    py::kw_only(), py::arg("closed") = "both",
                    "low <= value <= high (closed='both', laddu's default); 'left', 'right', "
                    "'neither' or a bool (True: both ends) choose the other intervals; low and "
                    "high are numbers or expressions.")
        .def("__repr__", [](const Predicate& p) { return "Predicate(" + p.to_string() + ")"; });

    auto expr_class = py::reinterpret_borrow<py::class_<Expr>>(module.attr("Expr"));
    expr_class
        .def("__lt__",
             [](const Expr& a, const py::object& b) { return compare(a, b, Compare::kLess); })
        .def("__le__",
             [](const Expr& a, const py::object& b) { return compare(a, b, Compare::kLessEqual); })
        .def("__gt__",
             [](const Expr& a, const py::object& b) { return compare(a, b, Compare::kGreater); })
        .def("__ge__", [](const Expr& a, const py::object& b) {
            return compare(a, b, Compare::kGreaterEqual);
        });

    py::class_<Bin>(module, "Bin", "Bin edges for Dataset.bin_by (strictly increasing).")
        .def(py::init([](const std::vector<double>& edges) { return Bin::from_edges(edges); }),
             py::arg("edges"))
        .def_static("uniform", &Bin::uniform, py::arg("n"), py::kw_only(), py::arg("low"),
                    py::arg("high"), "n equal bins from low to high.")
        .def_property_readonly("edges", [](const Bin& b) { return b.edges; })
        .def("__len__", [](const Bin& b) { return b.edges.size() - 1; })
        .def("__repr__",
             [](const Bin& b) { return fmt::format("Bin({} bins)", b.edges.size() - 1); });

    py::class_<DatasetBin>(module, "DatasetBin", "One interval of a BinnedDataset.")
        .def_readonly("index", &DatasetBin::index)
        .def_readonly("low", &DatasetBin::low)
        .def_readonly("high", &DatasetBin::high)
        .def_property_readonly("limits",
                               [](const DatasetBin& b) { return std::make_pair(b.low, b.high); })
        .def_readonly("dataset", &DatasetBin::dataset)
        .def("__repr__", [](const DatasetBin& b) {
            return fmt::format("DatasetBin(index={}, [{}, {}), {} events)", b.index, b.low, b.high,
                               b.dataset.events.num_events());
        });

    py::class_<BinnedDataset>(module, "BinnedDataset",
                              "The bins of Dataset.bin_by, every interval in edge order.")
        .def("__len__", [](const BinnedDataset& b) { return b.bins.size(); })
        .def_property_readonly("n_bins", [](const BinnedDataset& b) { return b.bins.size(); })
        .def_property_readonly("edges", [](const BinnedDataset& b) { return b.edges; })
        .def_property_readonly(
            "range",
            [](const BinnedDataset& b) { return std::make_pair(b.edges.front(), b.edges.back()); })
        .def("__getitem__",
             [](const BinnedDataset& b, std::int64_t i) {
                 const auto n = static_cast<std::int64_t>(b.bins.size());
                 if (i < -n || i >= n) {
                     throw py::index_error(fmt::format("bin {} out of range ({} bins)", i, n));
                 }
                 return b.bins[static_cast<std::size_t>(i < 0 ? i + n : i)];
             })
        .def(
            "__iter__",
            [](const BinnedDataset& b) { return py::make_iterator(b.bins.begin(), b.bins.end()); },
            py::keep_alive<0, 1>())
        .def("datasets", [](const BinnedDataset& b) {
            std::vector<PyDataset> out;
            for (const DatasetBin& bin : b.bins) {
                out.push_back(bin.dataset);
            }
            return out;
        });

    auto dataset = py::reinterpret_borrow<py::class_<PyDataset>>(module.attr("Dataset"));
    dataset
        .def("select", &select, py::arg("predicate"), py::kw_only(),
             py::arg("execution") = py::none(),
             "The events passing an ld.Predicate, or where a boolean mask is True. File-backed "
             "events are read once to evaluate the predicate and stay on file.")
        .def(
            "evaluate",
            [](const py::object& d, const py::object& e,
               const std::optional<runtime::Execution>& execution, bool real) {
                const Expr expression = to_expr(e);
                const Query q = query(d, execution);
                std::vector<std::complex<double>> values;
                {
                    const py::gil_scoped_release release;
                    values = evaluate_expression(expression, q);
                }
                q.record();
                return to_numpy(values, real);
            },
            py::arg("expr"), py::kw_only(), py::arg("execution") = py::none(),
            py::arg("real") = false,
            "The expression's value per event (parameters at their defaults): complex, or its "
            "real part with real=True.")
        .def(
            "bin_by",
            [](const py::object& d, const py::object& variable, const py::object& bins,
               const std::optional<std::pair<double, double>>& range,
               const std::optional<runtime::Execution>& execution) {
                const Expr expression = to_expr(variable);
                const Bin binning = to_bin(bins, range);
                const Query q = query(d, execution);
                const std::optional<runtime::MemoryPlan> memory = d.cast<const PyDataset&>().memory;
                BinnedDataset binned;
                {
                    const py::gil_scoped_release release;
                    binned = bin_by(q, memory, expression, binning);
                }
                q.record();
                return binned;
            },
            py::arg("expr"), py::arg("bins"), py::arg("range") = std::nullopt, py::kw_only(),
            py::arg("execution") = py::none(),
            "Splits the events by `expr` into bins (an ld.Bin, a list of edges, or a count "
            "with range=(low, high)); event i is in bin k when edges[k] <= v_i < edges[k+1], "
            "and the last bin also takes v_i == edges[-1], as in laddu.");
}

}  // namespace laddu::python
