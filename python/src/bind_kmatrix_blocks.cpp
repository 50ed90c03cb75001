// ld.k_matrix, ld.p_vector, ld.f_vector, ld.blatt_weisskopf_barriers and their ld.amplitudes
// aliases: laddu 0.21.4's expression-valued K-matrix blocks (laddu/src/python/amplitude.rs),
// keyword-only after s, every argument an Expr, int or float.
#include <optional>
#include <string>

#include <pybind11/pybind11.h>

#include <laddu/amplitudes/k_matrix.hpp>
#include <laddu/base/error.hpp>
#include <laddu/expr/expr.hpp>

#include "bindings.hpp"
#include "conversions.hpp"

namespace py = pybind11;

namespace laddu::python {

namespace {

using expr::Expr;

std::optional<Expr> optional_expr(const py::object& value) {
    if (value.is_none()) {
        return std::nullopt;
    }
    return to_expr(value);
}

// laddu accepts an ld.L, an int or an integral float for l.
int orbital(const py::handle& value) {
    const int doubled = quantum_doubled(value);
    if (doubled % 2 != 0) {
        throw ModelError("blatt_weisskopf_barriers: l must be an integer, got " +
                         std::string(py::str(value)));
    }
    return doubled / 2;
}

}  // namespace

void bind_kmatrix_blocks(py::module_& module) {
    module.def(
        "blatt_weisskopf_barriers",
        [](const py::object& s, const py::object& m1, const py::object& m2,
           const py::object& pole_masses, const py::object& l, double q_r) {
            return amplitudes::blatt_weisskopf_barriers(to_expr(s), to_expr(m1), to_expr(m2),
                                                        to_expr(pole_masses), orbital(l), q_r);
        },
        py::arg("s"), py::kw_only(), py::arg("channel_mass_1"), py::arg("channel_mass_2"),
        py::arg("pole_masses"), py::arg("l"), py::arg("q_r") = 1.0,
        "Channel-by-pole barrier ratios F_L(q_i(s)) / F_L(q_i(m_a^2)) (a channels x poles "
        "matrix) from vectors of daughter masses and pole masses.");
    module.def(
        "k_matrix",
        [](const py::object& s, const py::object& pole_masses, const py::object& couplings,
           const py::object& barriers, const py::object& background) {
            return amplitudes::k_matrix(to_expr(s), to_expr(pole_masses), to_expr(couplings),
                                        to_expr(barriers), optional_expr(background));
        },
        py::arg("s"), py::kw_only(), py::arg("pole_masses"), py::arg("couplings"),
        py::arg("barriers"), py::arg("background") = py::none(),
        "The cleared K-matrix Pi(s) K(s) (channels x channels): sum over poles of "
        "g_ia g_ja B_ia B_ja prod_{b != a}(m_b^2 - s), plus background * Pi(s).");
    module.def(
        "p_vector",
        [](const py::object& s, const py::object& pole_masses, const py::object& production,
           const py::object& couplings, const py::object& barriers, const py::object& background) {
            return amplitudes::p_vector(to_expr(s), to_expr(pole_masses), to_expr(production),
                                        to_expr(couplings), to_expr(barriers),
                                        optional_expr(background));
        },
        py::arg("s"), py::kw_only(), py::arg("pole_masses"), py::arg("production"),
        py::arg("couplings"), py::arg("barriers"), py::arg("background") = py::none(),
        "The cleared production vector Pi(s) P(s) (one entry per channel; production has one "
        "coupling per pole, background one entry per channel).");
    module.def(
        "f_vector",
        [](const py::object& s, const py::object& pole_masses, const py::object& k,
           const py::object& p, const py::object& phase_space) {
            return amplitudes::f_vector(to_expr(s), to_expr(pole_masses), to_expr(k), to_expr(p),
                                        to_expr(phase_space));
        },
        py::arg("s"), py::kw_only(), py::arg("pole_masses"), py::arg("k"), py::arg("p"),
        py::arg("phase_space"),
        "F = solve(Pi(s) I + K C, P) for a cleared K and P; phase_space is a channels x "
        "channels matrix or a channel vector (its diagonal).");

    // laddu exposes the four at the top level and in laddu.amplitudes.
    py::module_ amps = module.attr("amplitudes").cast<py::module_>();
    for (const char* name : {"blatt_weisskopf_barriers", "k_matrix", "p_vector", "f_vector"}) {
        amps.attr(name) = module.attr(name);
    }
}

}  // namespace laddu::python
