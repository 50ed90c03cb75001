// laddu's physics vocabulary for Python: Vec3/Vec4 of expressions, Channel/Edge/Vertex and
// VertexFrame angles and Mandelstam invariants, Wigner D, Y_lm, Z_lm, Clebsch-Gordan, the line
// shapes (q, rho, chew_mandelstam, blatt_weisskopf, Breit-Wigners, Flatte), the Kopf K-matrices and
// the K-matrix benchmark model (J/M, particles and selection rules: bind_quantum.cpp,
// bind_particle.cpp). Names follow laddu-architecture.md sections 2.3-2.5. Spins are Python numbers
// (1.5, Fraction(3, 2)) or ld.J/S/L/M, doubled by quantum_doubled (bind_quantum.cpp).
#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <pybind11/complex.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <laddu/amplitudes/barrier.hpp>
#include <laddu/amplitudes/breit_wigner.hpp>
#include <laddu/amplitudes/chew_mandelstam.hpp>
#include <laddu/amplitudes/couplings.hpp>
#include <laddu/amplitudes/flatte.hpp>
#include <laddu/amplitudes/kmatrix_benchmark.hpp>
#include <laddu/amplitudes/kopf.hpp>
#include <laddu/amplitudes/two_body.hpp>
#include <laddu/base/error.hpp>
#include <laddu/expr/expr.hpp>
#include <laddu/expr/model.hpp>
#include <laddu/physics/channel.hpp>
#include <laddu/physics/clebsch_gordan.hpp>
#include <laddu/physics/harmonics.hpp>
#include <laddu/physics/particle.hpp>
#include <laddu/physics/particles.hpp>
#include <laddu/physics/reaction.hpp>
#include <laddu/physics/vectors.hpp>
#include <laddu/physics/wigner.hpp>

#include "bindings.hpp"
#include "channel_generation.hpp"
#include "conversions.hpp"

namespace py = pybind11;

namespace laddu::python {

namespace {

using expr::Expr;
using physics::Vec3;
using physics::Vec4;

// 2x of a spin or projection (ld.J/S/L/M, int, Fraction or float), converted as laddu does.
int doubled(const py::handle& value, const char* /*what*/) {
    return quantum_doubled(value);
}

// laddu's WignerD(j, m', m): .d(beta) and .D(alpha, beta, gamma).
struct WignerD {
    int two_j;
    int two_m_prime;
    int two_m;
};

physics::Reflectivity reflectivity(const py::object& value) {
    if (py::isinstance<py::str>(value)) {
        const auto text = cast_arg<std::string>(value, "reflectivity", "+1, -1, '+' or '-'");
        if (text == "+" || text == "positive") {
            return physics::Reflectivity::kPositive;
        }
        if (text == "-" || text == "negative") {
            return physics::Reflectivity::kNegative;
        }
    } else if (py::isinstance<py::int_>(value) && !py::isinstance<py::bool_>(value)) {
        const int sign = py::int_(1).equal(value) ? 1 : py::int_(-1).equal(value) ? -1 : 0;
        if (sign == 1) {
            return physics::Reflectivity::kPositive;
        }
        if (sign == -1) {
            return physics::Reflectivity::kNegative;
        }
    }
    // repr only of a str or an int: str() of a deeply nested list is a RecursionError.
    throw py::value_error("reflectivity must be +1, -1, '+' or '-', got " +
                          (py::isinstance<py::str>(value) || py::isinstance<py::int_>(value)
                               ? std::string(py::repr(value))
                               : "a " + python_type_name(value)));
}

template <std::size_t N>
std::array<Expr, N> production(const py::sequence& values, const char* function) {
    if (values.size() != N) {
        throw ModelError(std::string(function) + " needs " + std::to_string(N) +
                         " production couplings (one per pole), got " +
                         std::to_string(values.size()));
    }
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
        return std::array<Expr, N>{to_expr(values[I])...};
    }(std::make_index_sequence<N>{});
}

// laddu's Edge(name, *, p4=None, particle=None, output=True, mass_proposal=None,
// initial_momentum=None); p4 may also be a Vec4 (ours).
BoundEdge make_edge(const std::string& name, const py::object& p4,
                    const std::optional<physics::ParticleProperties>& particle, bool output,
                    const py::object& mass_proposal, const py::object& initial_momentum) {
    if (name.empty()) {
        throw py::value_error("edge name cannot be empty");
    }
    BoundEdge edge;
    edge.name = name;
    edge.particle = particle;
    edge.output = output;
    edge.generation.mass_proposal = mass_proposal_arg(mass_proposal);
    edge.generation.initial_momentum = initial_momentum_arg(initial_momentum);
    if (py::isinstance<py::str>(p4)) {
        edge.p4_column = cast_arg<std::string>(p4, "Edge p4", "a column name (str)");
    } else if (py::isinstance<Vec4>(p4)) {
        edge.p4 = p4.cast<Vec4>();
    } else if (!p4.is_none()) {
        throw py::type_error("Edge p4 must be a column name (str), a Vec4 or None, not '" +
                             python_type_name(p4) + "'");
    }
    return edge;
}

// laddu raises ValueError for these before the topology is looked at.
BoundVertex make_vertex(const std::string& name, const std::vector<std::string>& incoming,
                        const std::vector<std::string>& outgoing, const py::object& generation) {
    if (name.empty()) {
        throw py::value_error("vertex name cannot be empty");
    }
    if (incoming.empty() || outgoing.empty()) {
        throw py::value_error("a vertex requires at least one incoming and one outgoing edge");
    }
    std::vector<std::string> seen;
    for (const auto* side : {&incoming, &outgoing}) {
        for (const std::string& e : *side) {
            if (std::find(seen.begin(), seen.end(), e) != seen.end()) {
                throw py::value_error("an edge cannot appear more than once in a vertex");
            }
            seen.push_back(e);
        }
    }
    BoundVertex vertex;
    vertex.name = name;
    vertex.incoming = incoming;
    vertex.outgoing = outgoing;
    vertex.generation = vertex_proposal_arg(generation);
    return vertex;
}

BoundChannel make_channel(const std::string& name, const std::vector<BoundEdge>& edges,
                          const std::vector<BoundVertex>& vertices) {
    for (std::size_t i = 0; i < edges.size(); ++i) {
        for (std::size_t j = 0; j < i; ++j) {
            if (edges[i].name == edges[j].name) {
                throw py::value_error("duplicate edge name " + debug_quoted(edges[i].name));
            }
        }
    }
    for (std::size_t i = 0; i < vertices.size(); ++i) {
        for (std::size_t j = 0; j < i; ++j) {
            if (vertices[i].name == vertices[j].name) {
                throw py::value_error("duplicate vertex name " + debug_quoted(vertices[i].name));
            }
        }
    }
    generation::ChannelProposals proposals;
    for (const BoundEdge& edge : edges) {
        if (edge.generation.mass_proposal || edge.generation.initial_momentum) {
            proposals.edges.emplace(edge.name, edge.generation);
        }
    }
    for (const BoundVertex& vertex : vertices) {
        if (vertex.generation) {
            proposals.vertices.emplace(vertex.name, *vertex.generation);
        }
    }
    return {
        physics::Channel(name, {edges.begin(), edges.end()}, {vertices.begin(), vertices.end()}),
        std::move(proposals)};
}

void bind_vectors(py::module_& m) {
    py::class_<Vec3> vec3(m, "Vec3", "A three-vector whose components are expressions.");
    vec3.def(py::init([](const py::object& x, const py::object& y, const py::object& z) {
                 return Vec3(to_expr(x), to_expr(y), to_expr(z));
             }),
             py::arg("x"), py::arg("y"), py::arg("z"))
        .def_static("event", &Vec3::event, py::arg("name"),
                    "The momentum (px, py, pz) of the event four-vector `name`.")
        .def_static("zero", &Vec3::zero)
        .def_static("x_axis", &Vec3::x_axis)
        .def_static("y_axis", &Vec3::y_axis)
        .def_static("z_axis", &Vec3::z_axis)
        .def("x", &Vec3::x)
        .def("y", &Vec3::y)
        .def("z", &Vec3::z)
        // laddu's component names (laddu's Vec3.x()/y()/z() are the static unit axes instead).
        .def("px", &Vec3::x)
        .def("py", &Vec3::y)
        .def("pz", &Vec3::z)
        .def("dot", &Vec3::dot, py::arg("other"))
        .def("cross", &Vec3::cross, py::arg("other"))
        .def("mag", &Vec3::mag)
        .def("mag2", &Vec3::mag2)
        .def("unit", &Vec3::unit)
        .def("costheta", &Vec3::costheta)
        .def("phi", &Vec3::phi)
        .def(
            "with_mass",
            [](const Vec3& v, const py::object& mass) { return v.with_mass(to_expr(mass)); },
            py::arg("mass"))
        .def(
            "with_energy",
            [](const Vec3& v, const py::object& energy) { return v.with_energy(to_expr(energy)); },
            py::arg("energy"))
        .def("__add__", [](const Vec3& a, const Vec3& b) { return a + b; })
        .def("__sub__", [](const Vec3& a, const Vec3& b) { return a - b; })
        .def("__neg__", [](const Vec3& a) { return -a; })
        .def("__mul__", [](const Vec3& a, const py::object& k) { return a * to_expr(k); })
        .def("__rmul__", [](const Vec3& a, const py::object& k) { return to_expr(k) * a; })
        .def("__truediv__", [](const Vec3& a, const py::object& k) { return a / to_expr(k); })
        .def("__matmul__", [](const Vec3& a, const Vec3& b) { return a.dot(b); })
        .def("__repr__", [](const Vec3&) { return std::string("Vec3(<expressions>)"); });

    py::class_<Vec4> vec4(m, "Vec4",
                          "A four-vector (E, px, py, pz) of expressions, metric (+, -, -, -).");
    vec4.def(py::init([](const py::object& e, const py::object& px, const py::object& py_,
                         const py::object& pz) {
                 return Vec4(to_expr(e), to_expr(px), to_expr(py_), to_expr(pz));
             }),
             py::arg("e"), py::arg("px"), py::arg("py"), py::arg("pz"))
        .def_static("event", &Vec4::event, py::arg("name"),
                    "The event four-momentum `name` (columns name.e, name.px, name.py, name.pz).")
        .def("e", &Vec4::e)
        .def("px", &Vec4::px)
        .def("py", &Vec4::py)
        .def("pz", &Vec4::pz)
        .def("vec3", &Vec4::vec3)
        .def("momentum", &Vec4::momentum)
        .def("dot", &Vec4::dot, py::arg("other"), "The Minkowski product E1 E2 - p1.p2.")
        .def("m2", &Vec4::m2)
        .def("m", &Vec4::m)
        .def("mass", &Vec4::m)
        .def("mag2", &Vec4::mag2)
        .def("mag", &Vec4::mag)
        .def("beta", &Vec4::beta, "The velocity p / E.")
        .def("gamma", &Vec4::gamma, "The Lorentz factor E / m.")
        .def("boost", &Vec4::boost, py::arg("beta"),
             "This vector boosted by velocity beta (a vector at rest acquires velocity beta).")
        .def("boost_to_rest_frame_of", &Vec4::boost_to_rest_frame_of, py::arg("frame"))
        .def("__add__", [](const Vec4& a, const Vec4& b) { return a + b; })
        .def("__sub__", [](const Vec4& a, const Vec4& b) { return a - b; })
        .def("__neg__", [](const Vec4& a) { return -a; })
        .def("__matmul__", [](const Vec4& a, const Vec4& b) { return a.dot(b); })
        .def("__repr__", [](const Vec4&) { return std::string("Vec4(<expressions>)"); });
}

void bind_channel(py::module_& m) {
    using physics::Channel;
    using physics::EdgeRole;
    using physics::VertexFrame;
    py::class_<BoundEdge>(m, "Edge",
                          "A particle line of a Channel: its dataset p4 column (or a Vec4, or "
                          "None to infer it), its Particle and whether generation outputs it.")
        .def(py::init(&make_edge), py::arg("name"), py::kw_only(), py::arg("p4") = py::none(),
             py::arg("particle") = py::none(), py::arg("output") = true,
             py::arg("mass_proposal") = py::none(), py::arg("initial_momentum") = py::none())
        .def_readonly("name", &physics::Edge::name)
        .def_property_readonly("p4",
                               [](const BoundEdge& e) -> py::object {
                                   if (e.p4_column) {
                                       return py::str(*e.p4_column);
                                   }
                                   return e.p4 ? py::cast(*e.p4) : py::none();
                               })
        .def_readonly("particle", &physics::Edge::particle)
        .def_readonly("output", &physics::Edge::output)
        .def("__repr__", [](const BoundEdge& e) { return "Edge(" + debug_quoted(e.name) + ")"; });

    py::class_<BoundVertex>(m, "Vertex",
                            "A directed vertex of a Channel joining incoming to outgoing edges.")
        .def(py::init(&make_vertex), py::arg("name"), py::kw_only(), py::arg("incoming"),
             py::arg("outgoing"), py::arg("generation") = py::none())
        .def_readonly("name", &physics::Vertex::name)
        .def_readonly("incoming", &physics::Vertex::incoming)
        .def_readonly("outgoing", &physics::Vertex::outgoing)
        .def("__repr__",
             [](const BoundVertex& v) { return "Vertex(" + debug_quoted(v.name) + ")"; });

    py::class_<VertexFrame>(m, "VertexFrame",
                            "The centre-of-momentum frame of a Channel vertex (lab -> root CM -> "
                            "...); obtained from Channel.vertex(name).")
        .def_property_readonly("name", &VertexFrame::name)
        .def("p4", &VertexFrame::p4, py::arg("edge"))
        .def("vec3", &VertexFrame::vec3, py::arg("edge"))
        .def(
            "costheta",
            [](const VertexFrame& f, const std::string& edge, const Vec3& z_axis, const Vec3&) {
                return f.costheta(edge, z_axis);
            },
            py::arg("edge"), py::kw_only(), py::arg("z_axis"), py::arg("y_hint"),
            "cos(theta) of edge about z_axis (y_hint does not enter).")
        .def(
            "theta",
            [](const VertexFrame& f, const std::string& edge, const Vec3& z_axis, const Vec3&) {
                return f.theta(edge, z_axis);
            },
            py::arg("edge"), py::kw_only(), py::arg("z_axis"), py::arg("y_hint"),
            "theta of edge about z_axis (y_hint does not enter).")
        .def("phi", &VertexFrame::phi, py::arg("edge"), py::kw_only(), py::arg("z_axis"),
             py::arg("y_hint"))
        .def("mandelstam", &VertexFrame::mandelstam, py::arg("channel"),
             "The Mandelstam s, t or u (a MandelstamChannel) of this 2 -> 2 vertex.")
        .def("s", &VertexFrame::s)
        .def("t", &VertexFrame::t)
        .def("u", &VertexFrame::u)
        .def("__repr__",
             [](const VertexFrame& f) { return "VertexFrame(" + debug_quoted(f.name()) + ")"; });

    py::class_<BoundChannel>(m, "Channel", "A validated reaction topology of edges and vertices.")
        .def(py::init(&make_channel), py::arg("name"), py::kw_only(), py::arg("edges"),
             py::arg("vertices"))
        .def_property_readonly("name", &Channel::name)
        .def_property_readonly("edge_names", &Channel::edge_names)
        .def_property_readonly("vertex_names", &Channel::vertex_names)
        .def_property_readonly(
            "initial_edges",
            [](const BoundChannel& c) { return c.edges_with_role(EdgeRole::kInitial); })
        .def_property_readonly(
            "intermediate_edges",
            [](const BoundChannel& c) { return c.edges_with_role(EdgeRole::kIntermediate); })
        .def_property_readonly(
            "final_edges",
            [](const BoundChannel& c) { return c.edges_with_role(EdgeRole::kFinal); })
        .def("particle", &Channel::particle, py::arg("edge"))
        .def("p4", &Channel::p4, py::arg("edge"))
        .def("mass", &Channel::mass, py::arg("edge"))
        .def("s", &Channel::s, py::arg("edge"))
        .def("vertex", &Channel::vertex_frame, py::arg("name"), "The VertexFrame of vertex name.")
        .def(
            "check_dataset",
            [](const BoundChannel& c, const py::object& dataset) {
                // Dataset is bound after this section, so look it up now.
                const py::module_ core = py::module_::import("laddu_cpp._core");
                if (!py::isinstance(dataset, core.attr("Dataset"))) {
                    throw py::type_error("dataset must be an ld.Dataset, got " +
                                         python_type_name(dataset));
                }
                c.check_p4_columns(dataset.attr("p4_names")().cast<std::vector<std::string>>());
            },
            py::arg("dataset"),
            "DataError naming the edge if an edge's p4 column is not among dataset.p4_names().")
        .def("__repr__", [](const BoundChannel& c) {
            return "Channel(" + debug_quoted(c.name()) +
                   ", edges=" + std::to_string(c.edges().size()) +
                   ", vertices=" + std::to_string(c.vertices().size()) + ")";
        });

    m.def(
        "polarization_angle",
        [](const Vec3& beam, const Vec3& recoil, const py::object& pol_angle) {
            return physics::polarization_angle(beam, recoil, to_expr(pol_angle));
        },
        py::arg("beam"), py::arg("recoil"), py::arg("pol_angle"),
        "laddu's angle between the photon polarisation (angle pol_angle in the lab) and the "
        "production plane; beam and recoil are lab three-momenta.");
}

void bind_angular(py::module_& m) {
    py::class_<WignerD>(m, "WignerD", "The Wigner rotation functions d^j_{m'm} and D^j_{m'm}.")
        .def(py::init([](const py::object& j, const py::object& m_prime, const py::object& m_) {
                 const WignerD w{doubled(j, "j"), doubled(m_prime, "m'"), doubled(m_, "m")};
                 // Validates (j, m', m) now, with the C++ message, instead of at .d().
                 static_cast<void>(physics::wigner_small_d(w.two_j, w.two_m_prime, w.two_m, 0.0));
                 return w;
             }),
             py::arg("j"), py::arg("m_prime"), py::arg("m"))
        .def(
            "d",
            [](const WignerD& w, const py::object& beta) {
                return physics::wigner_small_d(w.two_j, w.two_m_prime, w.two_m, to_expr(beta));
            },
            py::arg("beta"), "d^j_{m'm}(beta), a Real expression.")
        .def(
            "D",
            [](const WignerD& w, const py::object& alpha, const py::object& beta,
               const py::object& gamma) {
                return physics::wigner_big_d(w.two_j, w.two_m_prime, w.two_m, to_expr(alpha),
                                             to_expr(beta),
                                             gamma.is_none() ? Expr(0.0) : to_expr(gamma));
            },
            py::kw_only(), py::arg("alpha"), py::arg("beta"), py::arg("gamma") = py::none(),
            "D^j_{m'm}(alpha, beta, gamma) = exp(-i m' alpha) d(beta) exp(-i m gamma).");

    m.def(
        "clebsch_gordan",
        [](const py::object& j1, const py::object& m1, const py::object& j2, const py::object& m2,
           const py::object& j, const py::object& m_) {
            return physics::clebsch_gordan(doubled(j1, "j1"), doubled(m1, "m1"), doubled(j2, "j2"),
                                           doubled(m2, "m2"), doubled(j, "j"), doubled(m_, "m"));
        },
        py::kw_only(), py::arg("j1"), py::arg("m1"), py::arg("j2"), py::arg("m2"), py::arg("j"),
        py::arg("m"), "<j1 m1; j2 m2 | j m>; 0 when a selection rule forbids it.");
    m.def(
        "wigner_3j",
        [](const py::object& j1, const py::object& j2, const py::object& j3, const py::object& m1,
           const py::object& m2, const py::object& m3) {
            return physics::wigner_3j(doubled(j1, "j1"), doubled(j2, "j2"), doubled(j3, "j3"),
                                      doubled(m1, "m1"), doubled(m2, "m2"), doubled(m3, "m3"));
        },
        py::arg("j1"), py::arg("j2"), py::arg("j3"), py::arg("m1"), py::arg("m2"), py::arg("m3"));
    m.def(
        "spherical_harmonic",
        [](int l, int m_, const py::object& costheta, const py::object& phi) {
            return physics::spherical_harmonic(l, m_, to_expr(costheta), to_expr(phi));
        },
        py::arg("l"), py::arg("m"), py::kw_only(), py::arg("costheta"), py::arg("phi"),
        "Y_l^m(costheta, phi) with the Condon-Shortley phase (a Complex expression).");
    m.def(
        "zlm",
        [](int l, int m_, const py::object& refl, const py::object& costheta, const py::object& phi,
           const py::object& pol_angle, const py::object& pol_magnitude) {
            return physics::zlm(l, m_, reflectivity(refl), to_expr(costheta), to_expr(phi),
                                to_expr(pol_angle), to_expr(pol_magnitude));
        },
        py::arg("l"), py::arg("m"), py::arg("reflectivity"), py::kw_only(), py::arg("costheta"),
        py::arg("phi"), py::arg("pol_angle"), py::arg("pol_magnitude"),
        "The GlueX Z_lm for a linearly polarised beam (built as laddu's benchmark does).");
}

void bind_line_shapes(py::module_& m) {
    py::enum_<amplitudes::Sheet>(m, "Sheet", "Riemann sheet of q and rho.")
        .value("Physical", amplitudes::Sheet::kPhysical)
        .value("Unphysical", amplitudes::Sheet::kUnphysical);
    py::enum_<amplitudes::BarrierKind>(m, "BarrierKind", "Full F_L or the tensor form F_L / q^L.")
        .value("Full", amplitudes::BarrierKind::kFull)
        .value("Tensor", amplitudes::BarrierKind::kTensor);

    m.def(
        "q",
        [](const py::object& s, const py::object& m1, const py::object& m2, amplitudes::Sheet sh) {
            return amplitudes::q(to_expr(s), to_expr(m1), to_expr(m2), sh);
        },
        py::arg("s"), py::kw_only(), py::arg("mass1"), py::arg("mass2"),
        py::arg("sheet") = amplitudes::Sheet::kPhysical, "The two-body break-up momentum q(s).");
    m.def(
        "rho",
        [](const py::object& s, const py::object& m1, const py::object& m2, amplitudes::Sheet sh) {
            return amplitudes::rho(to_expr(s), to_expr(m1), to_expr(m2), sh);
        },
        py::arg("s"), py::kw_only(), py::arg("mass1"), py::arg("mass2"),
        py::arg("sheet") = amplitudes::Sheet::kPhysical, "The two-body phase space 2 q / sqrt(s).");
    m.def(
        "chew_mandelstam",
        [](const py::object& s, double m1, double m2) {
            return amplitudes::chew_mandelstam(to_expr(s), m1, m2);
        },
        py::arg("s"), py::kw_only(), py::arg("mass1"), py::arg("mass2"),
        "The Chew-Mandelstam function C(s) (Im C = -rho above threshold).");
    m.def(
        "blatt_weisskopf",
        [](const py::object& q, int l, amplitudes::BarrierKind kind) {
            return amplitudes::blatt_weisskopf(to_expr(q), l, amplitudes::kDefaultBarrierScale,
                                               kind);
        },
        py::arg("q"), py::kw_only(), py::arg("l"), py::arg("kind") = amplitudes::BarrierKind::kFull,
        "The Blatt-Weisskopf factor F_L(q) with q_R = 0.1973 GeV.");
    m.def(
        "blatt_weisskopf_custom",
        [](const py::object& q, int l, amplitudes::BarrierKind kind, double q_r) {
            return amplitudes::blatt_weisskopf(to_expr(q), l, q_r, kind);
        },
        py::arg("q"), py::kw_only(), py::arg("l"), py::arg("kind") = amplitudes::BarrierKind::kFull,
        py::arg("q_r") = amplitudes::kDefaultBarrierScale, "F_L(q) with a chosen q_R (GeV).");
    m.def(
        "breit_wigner",
        [](const py::object& s, const py::object& mass, const py::object& width) {
            return amplitudes::breit_wigner(to_expr(s), to_expr(mass), to_expr(width));
        },
        py::arg("s"), py::arg("mass"), py::arg("width"), "1 / (m^2 - s - i m Gamma).");
    m.def(
        "relativistic_breit_wigner",
        [](const py::object& s, const py::object& mass, const py::object& width,
           const py::object& m1, const py::object& m2, int l) {
            return amplitudes::relativistic_breit_wigner(to_expr(s), to_expr(mass), to_expr(width),
                                                         to_expr(m1), to_expr(m2), l);
        },
        py::arg("s"), py::kw_only(), py::arg("mass"), py::arg("width"), py::arg("mass1"),
        py::arg("mass2"), py::arg("l") = 0,
        "1 / (m^2 - s - i m Gamma(s)) with the mass-dependent width (q_R = 0.1973 GeV).");
    m.def(
        "relativistic_breit_wigner_custom",
        [](const py::object& s, const py::object& mass, const py::object& width,
           const py::object& m1, const py::object& m2, int l, bool barrier_factors, double q_r) {
            amplitudes::RelativisticBreitWignerOptions options;
            options.barrier_factors = barrier_factors;
            options.q_r = q_r;
            return amplitudes::relativistic_breit_wigner(to_expr(s), to_expr(mass), to_expr(width),
                                                         to_expr(m1), to_expr(m2), l, options);
        },
        py::arg("s"), py::kw_only(), py::arg("mass"), py::arg("width"), py::arg("mass1"),
        py::arg("mass2"), py::arg("l"), py::arg("barrier_factors") = true, py::arg("q_r") = 1.0,
        "relativistic_breit_wigner with barriers on/off and q_R (default 1.0, as laddu's "
        "Python).");
    m.def(
        "non_relativistic_breit_wigner",
        [](const py::object& s, const py::object& mass, const py::object& width) {
            return amplitudes::non_relativistic_breit_wigner(to_expr(s), to_expr(mass),
                                                             to_expr(width));
        },
        py::arg("s"), py::arg("mass"), py::arg("width"), "(Gamma/2) / (m - sqrt(s) - i Gamma/2).");
    m.def(
        "flatte",
        [](const py::object& s, const py::object& mass, const py::sequence& observed,
           const py::sequence& alternative) {
            const auto channel = [](const py::sequence& c, const char* which) {
                if (c.size() != 3) {
                    throw py::value_error(std::string(which) +
                                          " must be (mass1, mass2, coupling), got " +
                                          std::to_string(c.size()) + " elements");
                }
                return amplitudes::FlatteChannel{to_expr(c[0]), to_expr(c[1]), to_expr(c[2])};
            };
            return amplitudes::flatte(to_expr(s), to_expr(mass), channel(observed, "observed"),
                                      channel(alternative, "alternative"));
        },
        py::arg("s"), py::arg("mass"), py::kw_only(), py::arg("observed"), py::arg("alternative"),
        "1 / (m0^2 - s - i m0 (g1 rho1 + g2 rho2)); each channel is (mass1, mass2, g).");
}

void bind_kopf(py::module_& m) {
    // kopf_*_resampled(s, production, seed): the same families on a table drawn from the
    // published covariance (laddu's Rust kopf_*_resampled).
    m.def(
        "kopf_f0_resampled",
        [](const py::object& s, const py::sequence& p, std::uint64_t seed) {
            return amplitudes::kopf_f0_resampled(to_expr(s), production<5>(p, "kopf_f0_resampled"),
                                                 seed);
        },
        py::arg("s"), py::arg("production"), py::arg("seed"),
        "kopf_f0 with its couplings, background, pole masses and Adler zero drawn from the "
        "published covariance; one table per seed.");
    m.def(
        "kopf_f2_resampled",
        [](const py::object& s, const py::sequence& p, std::uint64_t seed) {
            return amplitudes::kopf_f2_resampled(to_expr(s), production<4>(p, "kopf_f2_resampled"),
                                                 seed);
        },
        py::arg("s"), py::arg("production"), py::arg("seed"),
        "kopf_f2 with its parameters drawn from the published covariance; one table per seed.");
    m.def(
        "kopf_a0_resampled",
        [](const py::object& s, const py::sequence& p, std::uint64_t seed) {
            return amplitudes::kopf_a0_resampled(to_expr(s), production<2>(p, "kopf_a0_resampled"),
                                                 seed);
        },
        py::arg("s"), py::arg("production"), py::arg("seed"),
        "kopf_a0 with its parameters drawn from the published covariance; one table per seed.");
    m.def(
        "kopf_a2_resampled",
        [](const py::object& s, const py::sequence& p, std::uint64_t seed) {
            return amplitudes::kopf_a2_resampled(to_expr(s), production<2>(p, "kopf_a2_resampled"),
                                                 seed);
        },
        py::arg("s"), py::arg("production"), py::arg("seed"),
        "kopf_a2 with its parameters drawn from the published covariance; one table per seed.");
    m.def(
        "kopf_f0",
        [](const py::object& s, const py::sequence& p) {
            return amplitudes::kopf_f0(to_expr(s), production<5>(p, "kopf_f0"));
        },
        py::arg("s"), py::arg("production"),
        "Kopf f0 F vector (channels pipi, 4pi, KKbar, etaeta, etaeta'); 5 couplings.");
    m.def(
        "kopf_f2",
        [](const py::object& s, const py::sequence& p) {
            return amplitudes::kopf_f2(to_expr(s), production<4>(p, "kopf_f2"));
        },
        py::arg("s"), py::arg("production"),
        "Kopf f2 F vector (channels pipi, 4pi, KKbar, etaeta); 4 couplings.");
    m.def(
        "kopf_a0",
        [](const py::object& s, const py::sequence& p) {
            return amplitudes::kopf_a0(to_expr(s), production<2>(p, "kopf_a0"));
        },
        py::arg("s"), py::arg("production"),
        "Kopf a0 F vector (channels pieta, KKbar); 2 couplings.");
    m.def(
        "kopf_a2",
        [](const py::object& s, const py::sequence& p) {
            return amplitudes::kopf_a2(to_expr(s), production<2>(p, "kopf_a2"));
        },
        py::arg("s"), py::arg("production"),
        "Kopf a2 F vector (channels pieta, KKbar, pieta'); 2 couplings.");
    m.def(
        "kopf_rho",
        [](const py::object& s, const py::sequence& p) {
            return amplitudes::kopf_rho(to_expr(s), production<2>(p, "kopf_rho"));
        },
        py::arg("s"), py::arg("production"),
        "Kopf rho F vector (channels pipi, 4pi, KKbar); 2 couplings.");
    m.def(
        "kopf_pi1",
        [](const py::object& s, const py::sequence& p) {
            return amplitudes::kopf_pi1(to_expr(s), production<1>(p, "kopf_pi1"));
        },
        py::arg("s"), py::arg("production"),
        "Kopf pi1 F vector (channels pieta, pieta'); 1 coupling.");
    m.def(
        "kmatrix_benchmark_model",
        [](bool tag_waves) {
            return amplitudes::kmatrix_benchmark_model({.tag_waves = tag_waves});
        },
        py::kw_only(), py::arg("tag_waves") = false,
        "laddu's K-matrix benchmark model (gamma p -> Ks Ks p; 34 free parameters); tag_waves "
        "tags the coherent waves 'S+', 'S-', 'D+' for projections.");
    m.def(
        "kmatrix_benchmark_intensity",
        [](bool tag_waves) {
            return amplitudes::kmatrix_benchmark_intensity({.tag_waves = tag_waves});
        },
        py::kw_only(), py::arg("tag_waves") = false, "The benchmark intensity expression.");
    m.def(
        "cartesian_coupling",
        [](const std::string& name) { return amplitudes::cartesian_coupling(name); },
        py::arg("name"), "complex(parameter(name + ' re'), parameter(name + ' im')).");
    m.def(
        "polar_coupling", [](const std::string& name) { return amplitudes::polar_coupling(name); },
        py::arg("name"), "polar_complex(parameter(name + ' mag'), parameter(name + ' phase')).");
}

}  // namespace

void bind_physics(py::module_& module) {
    bind_vectors(module);
    bind_channel(module);
    bind_angular(module);
    bind_line_shapes(module);
    bind_kopf(module);

    // ld.amplitudes repeats the line shapes and K-matrices, as laddu's submodule does.
    py::module_ amps = module.def_submodule("amplitudes", "Line shapes and K-matrices.");
    for (const char* name : {"breit_wigner",
                             "relativistic_breit_wigner",
                             "relativistic_breit_wigner_custom",
                             "non_relativistic_breit_wigner",
                             "flatte",
                             "blatt_weisskopf",
                             "blatt_weisskopf_custom",
                             "q",
                             "rho",
                             "chew_mandelstam",
                             "kopf_f0",
                             "kopf_f2",
                             "kopf_a0",
                             "kopf_a2",
                             "kopf_rho",
                             "kopf_pi1",
                             "kopf_f0_resampled",
                             "kopf_f2_resampled",
                             "kopf_a0_resampled",
                             "kopf_a2_resampled",
                             "kmatrix_benchmark_model",
                             "kmatrix_benchmark_intensity",
                             "cartesian_coupling",
                             "polar_coupling"}) {
        amps.attr(name) = module.attr(name);
    }
}

}  // namespace laddu::python
