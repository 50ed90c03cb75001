// laddu's quantum-number vocabulary for Python: J, S, L, M, Parity, Isospin, Statistics,
// MandelstamChannel, Particle and the ld.particles catalogue, RuleSet / RuleCheck / RuleReport,
// PartialWave / AllowedPartialWave / SelectionRules (physics/angular_momentum.hpp,
// quantum_numbers.hpp, particle.hpp, particle_catalog.hpp, selection_rules.hpp,
// partial_waves.hpp). Values are converted as laddu converts them: an int, a fractions.Fraction
// (anything with numerator/denominator) or a float (anything with __float__, including J and M).
#include <array>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <laddu/base/error.hpp>
#include <laddu/physics/angular_momentum.hpp>
#include <laddu/physics/partial_waves.hpp>
#include <laddu/physics/particle.hpp>
#include <laddu/physics/particle_catalog.hpp>
#include <laddu/physics/quantum_numbers.hpp>
#include <laddu/physics/selection_rules.hpp>

#include "bindings.hpp"

namespace py = pybind11;

namespace laddu::python {

namespace {

using physics::Isospin;
using physics::J;
using physics::L;
using physics::M;
using physics::Parity;
using physics::ParticleProperties;
using physics::Statistics;

// ld.S is a J under another name (laddu's S = J).
struct SpinS {
    J inner;
};

bool is_int(const py::handle& value) {
    return PyLong_Check(value.ptr()) != 0;
}

// A Python int as 64 bits; ValueError (not pybind11's untyped cast error) beyond that.
std::int64_t int64(const py::handle& value) {
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(value.ptr(), &overflow);
    if (overflow != 0) {
        throw py::value_error("quantum number " + py::repr(value).cast<std::string>() +
                              " is too large");
    }
    if (v == -1 && PyErr_Occurred() != nullptr) {
        throw py::error_already_set();
    }
    return v;
}

std::optional<std::pair<std::int64_t, std::int64_t>> ratio(const py::handle& value) {
    if (!py::hasattr(value, "numerator") || !py::hasattr(value, "denominator")) {
        return std::nullopt;
    }
    const py::object numerator_object = value.attr("numerator");
    const py::object denominator_object = value.attr("denominator");
    if (!is_int(numerator_object) || !is_int(denominator_object)) {
        return std::nullopt;
    }
    const std::int64_t numerator = int64(numerator_object);
    const std::int64_t denominator = int64(denominator_object);
    if (denominator == 0) {
        throw py::value_error("quantum-number denominator cannot be zero");
    }
    return std::pair{numerator, denominator};
}

bool has_float(const py::handle& value) {
    return PyFloat_Check(value.ptr()) != 0 || py::hasattr(value, "__float__");
}

template <class T>
T from_number(const py::handle& value, const char* expected) {
    if (is_int(value)) {
        return T::from_integer(int64(value));
    }
    if (auto r = ratio(value)) {
        return T::from_ratio(r->first, r->second);
    }
    if (has_float(value)) {
        return T::from_double(py::float_(py::reinterpret_borrow<py::object>(value)).cast<double>());
    }
    throw py::type_error(expected);
}

J extract_j(const py::handle& value) {
    if (py::isinstance<J>(value)) {
        return value.cast<J>();
    }
    if (py::isinstance<SpinS>(value)) {
        return value.cast<SpinS>().inner;
    }
    if (py::isinstance<L>(value)) {
        return value.cast<L>().as_j();
    }
    return from_number<J>(
        value, "expected J, S, L, an integer, a half-integer float, or fractions.Fraction");
}

L extract_l(const py::handle& value) {
    if (py::isinstance<L>(value)) {
        return value.cast<L>();
    }
    if (py::isinstance<J>(value)) {
        return L::from_j(value.cast<J>());
    }
    if (py::isinstance<SpinS>(value)) {
        return L::from_j(value.cast<SpinS>().inner);
    }
    return from_number<L>(value,
                          "expected L, an integer, an integer-valued float, or fractions.Fraction");
}

M extract_m(const py::handle& value) {
    if (py::isinstance<M>(value)) {
        return value.cast<M>();
    }
    return from_number<M>(value,
                          "expected M, an integer, a half-integer float, or fractions.Fraction");
}

Parity extract_parity(const py::handle& value) {
    if (py::isinstance<Parity>(value)) {
        return value.cast<Parity>();
    }
    if (is_int(value)) {
        // Compared as Python ints, so an int of any size is simply not +1 or -1.
        if (py::int_(1).equal(value)) {
            return Parity::kPositive;
        }
        if (py::int_(-1).equal(value)) {
            return Parity::kNegative;
        }
        throw py::value_error("parity must be +1 or -1");
    }
    if (py::isinstance<py::str>(value)) {
        // A str that is not valid UTF-8 (a lone surrogate) names no parity.
        Py_ssize_t size = 0;
        const char* text = PyUnicode_AsUTF8AndSize(value.ptr(), &size);
        if (text == nullptr) {
            PyErr_Clear();
            throw py::value_error("parity must be '+', '-' or a parity name");
        }
        return physics::parse_parity(std::string(text, static_cast<std::size_t>(size)));
    }
    throw py::type_error("expected Parity, +1, -1, or a parity name");
}

std::string half_repr(const char* name, std::int64_t doubled) {
    return std::string(name) + "(" + physics::half_integer_text(doubled) + ")";
}

template <class T, class Extract, class KeyOf>
void def_compare(py::class_<T>& cls, Extract extract, KeyOf key) {
    cls.def("__eq__", [=](const T& a, const py::object& b) { return key(a) == key(extract(b)); })
        .def("__ne__", [=](const T& a, const py::object& b) { return key(a) != key(extract(b)); })
        .def("__lt__", [=](const T& a, const py::object& b) { return key(a) < key(extract(b)); })
        .def("__le__", [=](const T& a, const py::object& b) { return key(a) <= key(extract(b)); })
        .def("__gt__", [=](const T& a, const py::object& b) { return key(a) > key(extract(b)); })
        .def("__ge__", [=](const T& a, const py::object& b) { return key(a) >= key(extract(b)); });
}

template <class T>
py::list projections_of(const T& value) {
    py::list out;
    for (const M m : value.projections()) {
        out.append(py::cast(m));
    }
    return out;
}

// J and S share every method; only the repr and the type of `+` differ.
template <class T, class Get>
void def_spin_methods(py::class_<T>& cls, const char* name, Get get) {
    cls.def_property_readonly("value", [=](const T& s) { return get(s).value(); })
        .def_property_readonly("doubled", [=](const T& s) { return get(s).doubled(); })
        .def_property_readonly("multiplicity", [=](const T& s) { return get(s).multiplicity(); })
        .def_property_readonly("is_integer", [=](const T& s) { return get(s).is_integer(); })
        .def("projections", [=](const T& s) { return projections_of(get(s)); })
        .def(
            "coupled_with",
            [=](const T& s, const py::object& other) {
                return get(s).coupled_with(extract_j(other));
            },
            py::arg("other"), "The totals |a - b|, ..., a + b (a list of J).")
        .def(
            "can_couple_to",
            [=](const T& s, const py::object& first, const py::object& second) {
                return get(s).can_couple_to(extract_j(first), extract_j(second));
            },
            py::arg("first"), py::arg("second"), "Whether first and second couple to this value.")
        .def("__float__", [=](const T& s) { return get(s).value(); })
        .def("__hash__", [=](const T& s) { return static_cast<std::int64_t>(get(s).doubled()); })
        .def("__repr__", [=](const T& s) { return half_repr(name, get(s).doubled()); });
    def_compare(cls, extract_j, [=](const auto& v) {
        if constexpr (std::is_same_v<std::decay_t<decltype(v)>, T>) {
            return std::int64_t{get(v).doubled()};
        } else {
            return std::int64_t{v.doubled()};
        }
    });
}

// laddu's to_json()/from_json() of a value type: its serde form as compact JSON text. `to` gives
// the JSON value, `from` reads one back (a ValueError for a value of the wrong type or range, as
// serde's errors are in laddu); text that does not parse is a ValueError too.
template <typename T, typename To, typename From>
void def_json(py::class_<T>& cls, To to, From from) {
    cls.def("to_json",
            [to](const T& v) {
                return py::module_::import("json")
                    .attr("dumps")(to(v), py::arg("separators") = py::make_tuple(",", ":"))
                    .template cast<std::string>();
            })
        .def_static(
            "from_json",
            [from](const std::string& text) {
                py::object value;
                try {
                    value = py::module_::import("json").attr("loads")(text);
                } catch (py::error_already_set& e) {
                    throw py::value_error(std::string("not JSON: ") + e.what());
                }
                try {
                    return from(value);
                } catch (const Error& e) {
                    throw py::value_error(e.what());
                }
            },
            py::arg("json"));
}

// A JSON integer (not a bool) of `what`, else ValueError.
std::int64_t json_integer(const py::handle& value, const char* what) {
    if (!py::isinstance<py::int_>(value) || py::isinstance<py::bool_>(value)) {
        throw py::value_error(
            std::string(what) + " must be a JSON integer, got " +
            std::string(py::str(py::module_::import("json").attr("dumps")(value))));
    }
    return value.cast<std::int64_t>();
}

// One of `names` as a JSON string, else ValueError naming them.
template <std::size_t N>
std::size_t json_choice(const py::handle& value, const std::array<const char*, N>& names) {
    if (py::isinstance<py::str>(value)) {
        const auto text = value.cast<std::string>();
        for (std::size_t k = 0; k < N; ++k) {
            if (text == names[k]) {
                return k;
            }
        }
    }
    std::string list;
    for (const char* name : names) {
        list += std::string(list.empty() ? "" : ", ") + "\"" + name + "\"";
    }
    throw py::value_error("expected one of " + list + ", got " +
                          std::string(py::str(py::module_::import("json").attr("dumps")(value))));
}

void bind_angular_momentum(py::module_& m) {
    py::class_<J> j(m, "J", "An exact total angular momentum J (integer or half-integer).");
    j.def(py::init(&extract_j), py::arg("value"));
    def_spin_methods(j, "J", [](const J& v) { return v; });
    j.def("__add__", [](const J& a, const py::object& b) { return a + extract_j(b); });
    // laddu writes J, S and M as twice their value, L as its value.
    def_json(
        j, [](const J& v) { return py::int_(v.doubled()); },
        [](const py::object& v) { return J::from_doubled(json_integer(v, "J")); });

    py::class_<SpinS> s(m, "S", "An exact spin S (integer or half-integer; the same values as J).");
    s.def(py::init([](const py::object& v) { return SpinS{extract_j(v)}; }), py::arg("value"));
    def_spin_methods(s, "S", [](const SpinS& v) { return v.inner; });
    s.def("__add__",
          [](const SpinS& a, const py::object& b) { return SpinS{a.inner + extract_j(b)}; });
    def_json(
        s, [](const SpinS& v) { return py::int_(v.inner.doubled()); },
        [](const py::object& v) { return SpinS{J::from_doubled(json_integer(v, "S"))}; });

    py::class_<L> l(m, "L", "An exact orbital angular momentum L (a non-negative integer).");
    l.def(py::init(&extract_l), py::arg("value"))
        .def_property_readonly("value", &L::value)
        .def_property_readonly("multiplicity", &L::multiplicity)
        .def_property_readonly("parity", &L::parity, "The orbital parity (-1)^L.")
        .def("projections", [](const L& v) { return projections_of(v); })
        .def("__float__", [](const L& v) { return static_cast<double>(v.value()); })
        .def("__hash__", [](const L& v) { return static_cast<std::int64_t>(v.value()); })
        .def("__repr__", [](const L& v) { return "L(" + std::to_string(v.value()) + ")"; })
        .def("__str__", &L::letter);
    def_compare(l, extract_l, [](const auto& v) { return std::int64_t{v.value()}; });
    def_json(
        l, [](const L& v) { return py::int_(v.value()); },
        [](const py::object& v) { return L::from_integer(json_integer(v, "L")); });

    py::class_<M> mm(m, "M", "An exact signed projection or helicity M.");
    mm.def(py::init(&extract_m), py::arg("value"))
        .def_property_readonly("value", &M::value)
        .def_property_readonly("doubled", &M::doubled)
        .def_property_readonly("is_integer", &M::is_integer)
        .def("__float__", &M::value)
        .def("__hash__", [](const M& v) { return static_cast<std::int64_t>(v.doubled()); })
        .def("__repr__", [](const M& v) { return half_repr("M", v.doubled()); })
        .def("__neg__", [](const M& v) { return -v; })
        .def("__add__", [](const M& a, const py::object& b) { return a + extract_m(b); })
        .def("__sub__", [](const M& a, const py::object& b) { return a - extract_m(b); });
    def_compare(mm, extract_m, [](const auto& v) { return std::int64_t{v.doubled()}; });
    def_json(
        mm, [](const M& v) { return py::int_(v.doubled()); },
        [](const py::object& v) { return M::from_doubled(json_integer(v, "M")); });
}

void bind_discrete(py::module_& m) {
    py::class_<Parity> parity(m, "Parity", "Intrinsic, C- or G-parity (+1 or -1).");
    parity.def(py::init(&extract_parity), py::arg("value"))
        .def_property_readonly("value", &physics::parity_value)
        .def("__int__", &physics::parity_value)
        .def("__hash__", &physics::parity_value)
        .def(
            "__repr__",
            [](Parity p) { return p == Parity::kPositive ? "Parity.POSITIVE" : "Parity.NEGATIVE"; })
        .def("__neg__", [](Parity p) { return -p; })
        .def("__mul__", [](Parity p, const py::object& o) { return p * extract_parity(o); });
    def_compare(parity, extract_parity, [](Parity p) { return physics::parity_value(p); });
    parity.attr("POSITIVE") = py::cast(Parity::kPositive);
    parity.attr("NEGATIVE") = py::cast(Parity::kNegative);
    static constexpr std::array<const char*, 2> kParities = {"Positive", "Negative"};
    def_json(
        parity, [](Parity p) { return py::str(kParities.at(p == Parity::kPositive ? 0 : 1)); },
        [](const py::object& v) {
            return json_choice(v, kParities) == 0 ? Parity::kPositive : Parity::kNegative;
        });

    py::class_<Statistics> stats(m, "Statistics", "Boson or fermion statistics.");
    stats
        .def(py::init([](const std::string& v) { return physics::parse_statistics(v); }),
             py::arg("value"))
        .def_static(
            "from_spin",
            [](const py::object& spin) { return physics::statistics_from_spin(extract_j(spin)); },
            py::arg("spin"))
        .def("__repr__",
             [](Statistics s) {
                 return s == Statistics::kBoson ? "Statistics.BOSON" : "Statistics.FERMION";
             })
        .def("__hash__", [](Statistics s) { return static_cast<int>(s); });
    const auto stat_cmp = [](auto op) {
        return [op](Statistics a, const py::object& b) -> py::object {
            if (!py::isinstance<Statistics>(b)) {
                return py::reinterpret_borrow<py::object>(Py_NotImplemented);
            }
            return py::bool_(op(static_cast<int>(a), static_cast<int>(b.cast<Statistics>())));
        };
    };
    stats.def("__eq__", stat_cmp(std::equal_to<>{}))
        .def("__ne__", stat_cmp(std::not_equal_to<>{}))
        .def("__lt__", stat_cmp(std::less<>{}))
        .def("__le__", stat_cmp(std::less_equal<>{}))
        .def("__gt__", stat_cmp(std::greater<>{}))
        .def("__ge__", stat_cmp(std::greater_equal<>{}));
    stats.attr("BOSON") = py::cast(Statistics::kBoson);
    stats.attr("FERMION") = py::cast(Statistics::kFermion);
    static constexpr std::array<const char*, 2> kStatistics = {"Boson", "Fermion"};
    def_json(
        stats, [](Statistics v) { return py::str(kStatistics.at(static_cast<std::size_t>(v))); },
        [](const py::object& v) { return static_cast<Statistics>(json_choice(v, kStatistics)); });

    py::class_<Isospin> iso(m, "Isospin", "Isospin I with an optional projection I3.");
    iso.def(py::init([](const py::object& isospin, const py::object& projection) {
                std::optional<M> p;
                if (!projection.is_none()) {
                    p = extract_m(projection);
                }
                return Isospin::make(extract_j(isospin), p);
            }),
            py::arg("isospin"), py::kw_only(), py::arg("projection") = py::none())
        .def_property_readonly("isospin", [](const Isospin& i) { return i.isospin; })
        .def_property_readonly("projection",
                               [](const Isospin& i) {
                                   if (!i.projection) {
                                       throw ModelError(
                                           "Particle is missing the requested property "
                                           "\"isospin.projection\"");
                                   }
                                   return *i.projection;
                               })
        .def_property_readonly("projection_checked", [](const Isospin& i) { return i.projection; })
        .def("__repr__",
             [](const Isospin& i) {
                 std::string out = "Isospin(" + half_repr("J", i.isospin.doubled());
                 if (i.projection) {
                     out += ", " + half_repr("M", i.projection->doubled());
                 }
                 return out + ")";
             })
        .def("__hash__",
             [](const Isospin& i) {
                 const std::int64_t p = i.projection ? i.projection->doubled()
                                                     : std::numeric_limits<std::int64_t>::min();
                 return static_cast<std::int64_t>(
                     static_cast<std::uint64_t>(std::int64_t{i.isospin.doubled()}) * 31U ^
                     static_cast<std::uint64_t>(p));
             })
        .def("__eq__",
             [](const Isospin& a, const py::object& b) -> py::object {
                 if (!py::isinstance<Isospin>(b)) {
                     return py::reinterpret_borrow<py::object>(Py_NotImplemented);
                 }
                 return py::bool_(a == b.cast<Isospin>());
             })
        .def("__ne__", [](const Isospin& a, const py::object& b) -> py::object {
            if (!py::isinstance<Isospin>(b)) {
                return py::reinterpret_borrow<py::object>(Py_NotImplemented);
            }
            return py::bool_(!(a == b.cast<Isospin>()));
        });

    def_json(
        iso,
        [](const Isospin& i) {
            py::dict out;
            out["isospin"] = i.isospin.doubled();
            out["projection"] = i.projection ? py::object(py::int_(i.projection->doubled()))
                                             : py::object(py::none());
            return out;
        },
        [](const py::object& v) {
            if (!py::isinstance<py::dict>(v)) {
                throw py::value_error("Isospin JSON must be an object {\"isospin\": 2I, "
                                      "\"projection\": 2I3 or null}");
            }
            const auto d = v.cast<py::dict>();
            if (!d.contains("isospin")) {
                throw py::value_error("Isospin JSON is missing \"isospin\"");
            }
            std::optional<M> projection;
            if (d.contains("projection") && !d["projection"].is_none()) {
                projection = M::from_doubled(json_integer(d["projection"], "the projection"));
            }
            return Isospin::make(J::from_doubled(json_integer(d["isospin"], "the isospin")),
                                 projection);
        });

    using physics::MandelstamChannel;
    py::class_<MandelstamChannel> mc(m, "MandelstamChannel", "The s, t or u channel.");
    mc.def(py::init([](const std::string& v) { return physics::parse_mandelstam_channel(v); }),
           py::arg("value"))
        .def("__repr__",
             [](MandelstamChannel c) {
                 return std::string("MandelstamChannel.") + "STU"[static_cast<int>(c)];
             })
        .def("__hash__", [](MandelstamChannel c) { return static_cast<int>(c); })
        .def("__eq__", [](MandelstamChannel a, const py::object& b) {
            return py::isinstance<MandelstamChannel>(b) && a == b.cast<MandelstamChannel>();
        });
    static constexpr std::array<const char*, 3> kChannels = {"S", "T", "U"};
    def_json(
        mc, [](MandelstamChannel c) { return py::str(kChannels.at(static_cast<std::size_t>(c))); },
        [](const py::object& v) {
            return static_cast<MandelstamChannel>(json_choice(v, kChannels));
        });
    mc.attr("S") = py::cast(MandelstamChannel::kS);
    mc.attr("T") = py::cast(MandelstamChannel::kT);
    mc.attr("U") = py::cast(MandelstamChannel::kU);
}

}  // namespace

int quantum_doubled(const py::handle& value) {
    if (py::isinstance<J>(value) || py::isinstance<SpinS>(value) || py::isinstance<L>(value)) {
        return static_cast<int>(extract_j(value).doubled());
    }
    return extract_m(value).doubled();
}

void bind_particle(py::module_& m);
void bind_rules(py::module_& m);

void bind_quantum(py::module_& module) {
    bind_angular_momentum(module);
    bind_discrete(module);
    bind_particle(module);
    bind_rules(module);
}

// Shared with bind_particle.cpp.
J quantum_extract_j(const py::handle& v) {
    return extract_j(v);
}

L quantum_extract_l(const py::handle& v) {
    return extract_l(v);
}

Parity quantum_extract_parity(const py::handle& v) {
    return extract_parity(v);
}

py::object quantum_s(J j) {
    return py::cast(SpinS{j});
}

}  // namespace laddu::python
