// laddu's expression renderings for Python: Expr/Model .equation() .latex() .tree() .dot()
// .svg(path) with colors= and style_rules=, and the style vocabulary (ld.DisplayColor,
// ld.NodeStyle, ld.NodeSelector, ld.NodeStyleRule, ld.ExprNodeKind). Errors take laddu's types:
// a bad colors string is a ValueError, a colors value that is not a string a TypeError, a
// channel outside 0..255 an OverflowError and an SVG that cannot be written an OSError.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <laddu/base/error.hpp>
#include <laddu/expr/expr.hpp>
#include <laddu/expr/model.hpp>
#include <laddu/expr/render.hpp>

#include "bindings.hpp"
#include "conversions.hpp"

namespace py = pybind11;

namespace laddu::python {

namespace {

using expr::DisplayColor;
using expr::Expr;
using expr::NodeSelector;
using expr::NodeStyle;
using expr::NodeStyleRule;
using expr::RenderOptions;

// Raises the Python exception `type` (a builtin laddu raises there) with `message`.
[[noreturn]] void raise_python(PyObject* type, const char* message) {
    PyErr_SetString(type, message);
    throw py::error_already_set();
}

// A ModelError from parsing user text becomes the ValueError laddu raises.
template <typename F>
auto value_error_on_model_error(const F& parse) {
    try {
        return parse();
    } catch (const ModelError& error) {
        throw py::value_error(error.what());
    }
}

RenderOptions render_options(const py::object& colors, bool expand_repeated,
                             const py::object& style_rules) {
    RenderOptions options;
    options.expand_repeated = expand_repeated;
    if (!colors.is_none()) {
        if (!py::isinstance<py::str>(colors)) {
            throw py::type_error("colors must be a string ('light', 'dark', 'none') or None, got " +
                                 python_type_name(colors));
        }
        const auto text = cast_arg<std::string>(colors, "colors", "a string encodable as UTF-8");
        options.colors = value_error_on_model_error([&] { return expr::parse_color_preset(text); });
    }
    if (!style_rules.is_none()) {
        if (!py::isinstance<py::iterable>(style_rules) || py::isinstance<py::str>(style_rules)) {
            throw py::type_error("style_rules must be a sequence of NodeStyleRule, got " +
                                 python_type_name(style_rules));
        }
        std::size_t k = 0;
        for (const py::handle item : style_rules) {
            if (!py::isinstance<NodeStyleRule>(item)) {
                throw py::type_error(
                    fmt::format("style_rules must be a sequence of NodeStyleRule; item {} is {}", k,
                                python_type_name(item)));
            }
            options.style_rules.push_back(item.cast<NodeStyleRule>());
            ++k;
        }
    }
    return options;
}

// A colour channel: an int (TypeError otherwise, as laddu), range-checked by the caller; one
// beyond long long is out of range too.
long long channel(const py::object& value, const char* name) {
    if (!py::isinstance<py::int_>(value)) {
        throw py::type_error(
            fmt::format("DisplayColor's {} must be an integer from 0 to 255, got {}", name,
                        python_type_name(value)));
    }
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(value.ptr(), &overflow);
    if (overflow != 0) {
        const std::string message =
            fmt::format("a DisplayColor channel is an integer from 0 to 255, but {} is {}", name,
                        std::string(py::str(value)));
        raise_python(PyExc_OverflowError, message.c_str());
    }
    return v;
}

std::string color_repr(const std::optional<DisplayColor>& color) {
    return color ? fmt::format("DisplayColor({}, {}, {})", color->red, color->green, color->blue)
                 : "None";
}

// The methods laddu gives both Expr and Model (a Model renders its expression).
template <typename Class, typename Root>
void def_renderings(Class& cls, Root root, const char* what) {
    cls.def(
        "equation",
        [root](const typename Class::type& self, const py::object& colors,
               const py::object& style_rules) {
            return expr::to_equation(root(self), render_options(colors, true, style_rules));
        },
        py::kw_only(), py::arg("colors") = py::none(), py::arg("style_rules") = py::none(),
        fmt::format("{} as compact infix text; colors='light'/'dark' adds ANSI colour.", what)
            .c_str());
    cls.def(
        "latex",
        [root](const typename Class::type& self, const py::object& colors,
               const py::object& style_rules) {
            return expr::to_latex(root(self), render_options(colors, true, style_rules));
        },
        py::kw_only(), py::arg("colors") = py::none(), py::arg("style_rules") = py::none(),
        fmt::format("{} as a LaTeX math-mode fragment (bmatrix needs amsmath, colours xcolor).",
                    what)
            .c_str());
    cls.def(
        "tree",
        [root](const typename Class::type& self, const py::object& colors, bool expand_repeated,
               const py::object& style_rules) {
            return expr::to_tree(root(self), render_options(colors, expand_repeated, style_rules));
        },
        py::kw_only(), py::arg("colors") = py::none(), py::arg("expand_repeated") = true,
        py::arg("style_rules") = py::none(),
        fmt::format("{} as an indented tree; expand_repeated=False prints shared nodes once.", what)
            .c_str());
    cls.def(
        "dot",
        [root](const typename Class::type& self, const py::object& colors, bool expand_repeated,
               const py::object& style_rules) {
            return expr::to_dot(root(self), render_options(colors, expand_repeated, style_rules));
        },
        py::kw_only(), py::arg("colors") = py::none(), py::arg("expand_repeated") = true,
        py::arg("style_rules") = py::none(),
        fmt::format("{} as Graphviz DOT; expand_repeated=False draws a shared DAG.", what).c_str());
    cls.def(
        "svg",
        [root](const typename Class::type& self, const py::object& path, const py::object& colors,
               bool expand_repeated, const py::object& style_rules) {
            const RenderOptions options = render_options(colors, expand_repeated, style_rules);
            const std::string target = fs_path(path);
            try {
                expr::write_svg(root(self), target, options);
            } catch (const DataError& error) {
                raise_python(PyExc_OSError, error.what());
            }
        },
        py::arg("path"), py::kw_only(), py::arg("colors") = py::none(),
        py::arg("expand_repeated") = true, py::arg("style_rules") = py::none(),
        fmt::format("Write {} as an SVG drawing to `path` (replacing it); returns None.", what)
            .c_str());
    cls.def(
        "render",
        [root](const typename Class::type& self, const std::string& format,
               const py::object& colors, bool expand_repeated, const py::object& style_rules) {
            const expr::RenderFormat parsed =
                value_error_on_model_error([&] { return expr::parse_render_format(format); });
            return expr::render(root(self), parsed,
                                render_options(colors, expand_repeated, style_rules));
        },
        py::arg("format") = "equation", py::kw_only(), py::arg("colors") = py::none(),
        py::arg("expand_repeated") = true, py::arg("style_rules") = py::none(),
        fmt::format("{} in `format` ('equation', 'latex', 'tree', 'dot', 'svg') as a string "
                    "(laddu-cpp's; laddu has the five methods only).",
                    what)
            .c_str());
}

}  // namespace

void bind_render(py::module_& module) {
    py::enum_<expr::NodeKind>(module, "ExprNodeKind", "A category of node in an expression graph.")
        .value("REAL_CONST", expr::NodeKind::kRealConst)
        .value("COMPLEX_CONST", expr::NodeKind::kComplexConst)
        .value("SCALAR_PARAM", expr::NodeKind::kParameter)
        .value("EVENT_SCALAR", expr::NodeKind::kEventScalar)
        .value("EVENT_P4_COMPONENT", expr::NodeKind::kEventP4Component)
        .value("UNARY", expr::NodeKind::kUnary)
        .value("BINARY", expr::NodeKind::kBinary)
        .value("NARY_ADD", expr::NodeKind::kNaryAdd)
        .value("NARY_MUL", expr::NodeKind::kNaryMul)
        .value("COMPLEX", expr::NodeKind::kComplex)
        .value("VECTOR", expr::NodeKind::kVector)
        .value("MATRIX", expr::NodeKind::kMatrix)
        .value("COMPONENT", expr::NodeKind::kComponent)
        .value("MATRIX_ELEMENT", expr::NodeKind::kMatrixElement)
        .value("MAT_MUL", expr::NodeKind::kMatMul)
        .value("MAT_VEC", expr::NodeKind::kMatVec)
        .value("DOT", expr::NodeKind::kDot)
        .value("SOLVE", expr::NodeKind::kSolve);

    py::class_<DisplayColor>(module, "DisplayColor", "An RGB colour used by expression displays.")
        .def(py::init([](const py::object& red, const py::object& green, const py::object& blue) {
                 try {
                     return DisplayColor::checked(channel(red, "red"), channel(green, "green"),
                                                  channel(blue, "blue"));
                 } catch (const ModelError& error) {
                     // laddu's channels are u8: out of range is Python's OverflowError.
                     raise_python(PyExc_OverflowError, error.what());
                 }
             }),
             py::arg("red"), py::arg("green"), py::arg("blue"))
        .def_property_readonly("red", [](const DisplayColor& c) { return c.red; })
        .def_property_readonly("green", [](const DisplayColor& c) { return c.green; })
        .def_property_readonly("blue", [](const DisplayColor& c) { return c.blue; })
        .def("__eq__",
             [](const DisplayColor& a, const py::object& b) {
                 return py::isinstance<DisplayColor>(b) && a == b.cast<DisplayColor>();
             })
        .def("__repr__", [](const DisplayColor& c) { return color_repr(c); });

    py::class_<NodeStyle>(module, "NodeStyle",
                          "Optional text, background (fill) and outline (border) colours.")
        .def(py::init([](std::optional<DisplayColor> foreground, std::optional<DisplayColor> fill,
                         std::optional<DisplayColor> border) {
                 return NodeStyle{foreground, fill, border};
             }),
             py::kw_only(), py::arg("foreground") = py::none(), py::arg("fill") = py::none(),
             py::arg("border") = py::none())
        .def_readonly("foreground", &NodeStyle::foreground)
        .def_readonly("fill", &NodeStyle::fill)
        .def_readonly("border", &NodeStyle::border)
        .def("__eq__",
             [](const NodeStyle& a, const py::object& b) {
                 return py::isinstance<NodeStyle>(b) && a == b.cast<NodeStyle>();
             })
        .def("__repr__", [](const NodeStyle& s) {
            return fmt::format("NodeStyle(foreground={}, fill={}, border={})",
                               color_repr(s.foreground), color_repr(s.fill), color_repr(s.border));
        });

    py::class_<NodeSelector>(module, "NodeSelector",
                             "A predicate selecting expression nodes for a style rule.")
        .def_static("any", &NodeSelector::any, "Select every node.")
        .def_static("kind", &NodeSelector::kind, py::arg("kind"), "Select nodes of a category.")
        .def_static("name", &NodeSelector::name, py::arg("name"),
                    "Select parameters and event columns named `name`.")
        .def_static("tag", &NodeSelector::tag, py::arg("tag"), "Select nodes carrying a tag.")
        .def("__eq__", [](const NodeSelector& a, const py::object& b) {
            return py::isinstance<NodeSelector>(b) && a == b.cast<NodeSelector>();
        });

    py::class_<NodeStyleRule>(module, "NodeStyleRule",
                              "A selector and the style overlaid on the nodes it selects.")
        .def(py::init([](const NodeSelector& selector, const NodeStyle& style) {
                 return NodeStyleRule{selector, style};
             }),
             py::arg("selector"), py::arg("style"))
        .def_readonly("selector", &NodeStyleRule::selector)
        .def_readonly("style", &NodeStyleRule::style)
        .def("__eq__", [](const NodeStyleRule& a, const py::object& b) {
            return py::isinstance<NodeStyleRule>(b) && a == b.cast<NodeStyleRule>();
        });

    auto expr_class = py::reinterpret_borrow<py::class_<Expr>>(module.attr("Expr"));
    def_renderings(expr_class, [](const Expr& e) -> const Expr& { return e; }, "The expression");
    auto model_class = py::reinterpret_borrow<py::class_<expr::Model>>(module.attr("Model"));
    def_renderings(
        model_class, [](const expr::Model& m) -> const Expr& { return m.expression(); },
        "The model's intensity expression");
}

}  // namespace laddu::python
