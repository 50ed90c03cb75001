// The line shapes of laddu's older releases that laddu v0.21.4 dropped (Voigt, PolPhase,
// PhotonSDME, LookupTable, PiecewiseScalar), as functions of expressions like ld.breit_wigner;
// their arguments keep the names laddu v0.19.6's Python used.
#include <cctype>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <pybind11/complex.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <laddu/amplitudes/lookup.hpp>
#include <laddu/amplitudes/photon_sdme.hpp>
#include <laddu/amplitudes/pol_phase.hpp>
#include <laddu/amplitudes/voigt.hpp>
#include <laddu/base/error.hpp>
#include <laddu/expr/expr.hpp>

#include "bindings.hpp"
#include "conversions.hpp"

namespace py = pybind11;

namespace laddu::python {

namespace {

using expr::Expr;

std::string lower(std::string text) {
    for (char& c : text) {
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return text;
}

// laddu's spellings (LookupInterpolation::from_str, LookupBoundaryMode::from_str).
amplitudes::LookupOptions lookup_options(const std::string& interpolation,
                                         const std::string& boundary_mode) {
    amplitudes::LookupOptions options;
    const std::string i = lower(interpolation);
    if (i == "linear" || i == "multilinear") {
        options.interpolation = amplitudes::LookupInterpolation::kLinear;
    } else if (i != "nearest" && i != "step" && i != "bin") {
        throw ModelError("lookup_table: interpolation '" + interpolation +
                         "' is unknown; use 'nearest' or 'linear'");
    }
    const std::string b = lower(boundary_mode);
    if (b == "clamp") {
        options.boundary = amplitudes::LookupBoundary::kClamp;
    } else if (b != "zero" && b != "zero_outside" && b != "zero-outside") {
        throw ModelError("lookup_table: boundary_mode '" + boundary_mode +
                         "' is unknown; use 'zero' or 'clamp'");
    }
    return options;
}

std::vector<Expr> exprs(const py::sequence& values) {
    if (py::isinstance<py::str>(values) || py::isinstance<py::bytes>(values)) {
        throw py::type_error("values must be a sequence of expressions or numbers, not a string");
    }
    std::vector<Expr> out;
    out.reserve(values.size());
    // By index into an owning object: a range-for binds each item to a handle whose temporary
    // accessor (the only reference to a freshly made item, e.g. a string's character) is gone.
    for (std::size_t i = 0; i < values.size(); ++i) {
        const py::object value = values[i];
        out.push_back(to_expr(value));
    }
    return out;
}

}  // namespace

void bind_legacy_line_shapes(py::module_& m) {
    m.def(
        "faddeeva", [](const py::object& z) { return amplitudes::faddeeva(to_expr(z)); },
        py::arg("z"), "The Faddeeva function w(z) = exp(-z^2) erfc(-iz) for Im z >= 0.");
    m.def(
        "voigt_profile",
        [](const py::object& x, const py::object& mass, const py::object& width,
           const py::object& sigma) {
            return amplitudes::voigt_profile(to_expr(x), to_expr(mass), to_expr(width),
                                             to_expr(sigma));
        },
        py::arg("resonance_mass"), py::arg("mass"), py::arg("width"), py::arg("sigma"),
        "The normalised Voigt profile Re w(z) / (sigma sqrt(2 pi)) of the invariant mass.");
    m.def(
        "voigt",
        [](const py::object& x, const py::object& mass, const py::object& width,
           const py::object& sigma) {
            return amplitudes::voigt(to_expr(x), to_expr(mass), to_expr(width), to_expr(sigma));
        },
        py::arg("resonance_mass"), py::arg("mass"), py::arg("width"), py::arg("sigma"),
        "laddu v0.19.6's Voigt amplitude: the square root of the Voigt profile (Real).");
    m.def(
        "pol_phase",
        [](const py::object& angle, const py::object& magnitude) {
            return amplitudes::pol_phase(to_expr(angle), to_expr(magnitude));
        },
        py::arg("pol_angle"), py::arg("pol_magnitude"),
        "laddu v0.19.6's PolPhase: pol_magnitude * exp(2i pol_angle).");
    m.def(
        "photon_sdme",
        [](int helicity, int helicity_prime, const py::object& angle, const py::object& magnitude) {
            if (angle.is_none() != magnitude.is_none()) {
                throw ModelError("photon_sdme: give both pol_angle and pol_magnitude for a "
                                 "linearly polarised beam, or neither for an unpolarised one");
            }
            std::optional<amplitudes::LinearPolarization> polarization;
            if (!angle.is_none()) {
                polarization = amplitudes::LinearPolarization{to_expr(angle), to_expr(magnitude)};
            }
            return amplitudes::photon_sdme(helicity, helicity_prime, polarization);
        },
        py::arg("helicity"), py::arg("helicity_prime"), py::kw_only(),
        py::arg("pol_angle") = py::none(), py::arg("pol_magnitude") = py::none(),
        "laddu v0.19.6's PhotonSDME: the photon spin-density matrix element rho_{l l'} (helicities "
        "+1/-1), unpolarised unless pol_angle and pol_magnitude are given.");
    m.def(
        "lookup_table",
        [](const py::sequence& variables, const std::vector<std::vector<double>>& coordinates,
           const py::sequence& values, const std::string& interpolation,
           const std::string& boundary_mode) {
            if (variables.size() != coordinates.size()) {
                throw ModelError("lookup_table: " + std::to_string(variables.size()) +
                                 " variables but " + std::to_string(coordinates.size()) +
                                 " axes of coordinates; give one list of coordinates per "
                                 "variable");
            }
            std::vector<amplitudes::LookupAxis> axes;
            axes.reserve(coordinates.size());
            for (std::size_t a = 0; a < coordinates.size(); ++a) {
                axes.push_back({to_expr(variables[a]), coordinates[a]});
            }
            return amplitudes::lookup_table(axes, exprs(values),
                                            lookup_options(interpolation, boundary_mode));
        },
        py::arg("variables"), py::arg("axis_coordinates"), py::arg("values"),
        py::arg("interpolation") = "nearest", py::arg("boundary_mode") = "zero",
        "laddu v0.19.6's LookupTable over event variables: bin edges ('nearest') or grid points "
        "('linear') per axis, row-major values (numbers or parameter expressions), 'zero' or "
        "'clamp' outside.");
    m.def(
        "piecewise",
        [](const py::object& variable, std::size_t bins, const std::pair<double, double>& range,
           const py::sequence& values) {
            if (bins != values.size()) {
                throw ModelError("piecewise: bins = " + std::to_string(bins) + " but " +
                                 std::to_string(values.size()) +
                                 " values were given; give one value per bin");
            }
            return amplitudes::piecewise(to_expr(variable), range.first, range.second,
                                         exprs(values));
        },
        py::arg("variable"), py::arg("bins"), py::arg("range"), py::arg("values"),
        "laddu's PiecewiseScalar: values[k] on bin k of equal bins over [low, high), 0 outside.");

    // ld.amplitudes repeats them, as it does the other line shapes.
    const py::module_ amps = m.attr("amplitudes").cast<py::module_>();
    for (const char* name : {"faddeeva", "voigt_profile", "voigt", "pol_phase", "photon_sdme",
                             "lookup_table", "piecewise"}) {
        amps.attr(name) = m.attr(name);
    }
}

}  // namespace laddu::python
