"""Renderings: Expr.equation/latex/tree/dot/svg and the style classes, laddu 0.21.4 against
laddu-cpp.

Node numbers (#k), and so trees and DOT, depend on the graph. laddu-cpp interns nodes (two equal
constants are one node) and some of its helpers build other graphs than laddu's (cis, acos), so
each scenario first checks that the two graphs are the same node for node (their to_json texts
are equal) and then that every rendering is equal, character for character, colours included.
Expressions laddu builds differently are read into laddu-cpp from laddu's JSON. Where laddu
cannot be matched (Model renders laddu's optimised graph; laddu's SVG comes from a Graphviz-like
layout library) the difference is asserted and docs/compile.md "Rendering" describes it.
"""

import math
import xml.etree.ElementTree as ET

import pytest
from conftest import laddu, ld

COLOR_OPTIONS = (None, "light", "dark")


def rules(lib):
    """Custom rules of every selector kind, on top of a palette."""
    return [
        lib.NodeStyleRule(lib.NodeSelector.name("x"), lib.NodeStyle(foreground=lib.DisplayColor(1, 2, 3))),
        lib.NodeStyleRule(lib.NodeSelector.tag("wave"), lib.NodeStyle(fill=lib.DisplayColor(4, 5, 6))),
        lib.NodeStyleRule(
            lib.NodeSelector.kind(lib.ExprNodeKind.REAL_CONST),
            lib.NodeStyle(border=lib.DisplayColor(7, 8, 9), fill=lib.DisplayColor(10, 11, 12)),
        ),
        lib.NodeStyleRule(lib.NodeSelector.name("p"), lib.NodeStyle(foreground=lib.DisplayColor(200, 0, 0))),
        lib.NodeStyleRule(lib.NodeSelector.any(), lib.NodeStyle(border=lib.DisplayColor(0, 0, 255))),
    ]


def renderings(expression, lib):
    """Every text rendering with every palette, with and without custom rules, both modes."""
    out = {}
    for colors in COLOR_OPTIONS:
        for custom in (None, rules(lib)):
            key = (colors, custom is not None)
            out[("equation", *key)] = expression.equation(colors=colors, style_rules=custom)
            out[("latex", *key)] = expression.latex(colors=colors, style_rules=custom)
            for expand in (True, False):
                out[("tree", expand, *key)] = expression.tree(colors=colors, expand_repeated=expand, style_rules=custom)
                out[("dot", expand, *key)] = expression.dot(colors=colors, expand_repeated=expand, style_rules=custom)
    return out


def same_graph(theirs, ours):
    """The graphs are the same node for node: the same JSON text."""
    return ours.to_json() == theirs.to_json()


def assert_same_renderings(theirs, ours):
    expected, actual = renderings(theirs, laddu), renderings(ours, ld)
    for key, text in expected.items():
        assert actual[key] == text, f"{key}:\nladdu:      {text!r}\nladdu-cpp:  {actual[key]!r}"


# Expressions both libraries build node for node: arithmetic with signs, powers, the functions
# both have, complex numbers, linear algebra, four-momenta, tags and parameters.
def arithmetic(lib):
    x, y = lib.scalar("x"), lib.scalar("y")
    p, q = lib.parameter("p", initial=1.0), lib.parameter("q_1")
    minus_x = -x  # one node in both (laddu-cpp would merge two equal ones)
    return (p * x - 2 * q) / x.sqrt() + (1 - 2j) * x**2 - x**-3 + (minus_x * p - minus_x + (-(x * y)))


def functions(lib):
    x, y = lib.scalar("x"), lib.scalar("y")
    c = lib.complex(x, y)
    return (x * lib.parameter("p")).exp().log().sin().cos() + c.conj().real() + lib.atan2(y, x) + (c * 1j + 2).norm_sqr()


def linear_algebra(lib):
    x, y = lib.scalar("x"), lib.scalar("y")
    m = lib.matrix([[x, 2.0], [3.0, y]])
    v = lib.vector([1.0, x])
    return lib.solve(m, v)[0] + lib.dot(v, lib.vector([5.0, y])) + m.at(0, 1) + lib.matvec(m, v)[1] + lib.matmul(m, m).at(1, 1)


def four_momenta_and_tags(lib):
    k, x, y = lib.Vec4.event("k"), lib.scalar("x"), lib.scalar("y")
    s = (k.px() * k.e()).tagged("wave") + (x * lib.parameter("p")).tagged("other")
    return (s - (x - y)) / (y / x)


def numbers(lib):
    x = lib.scalar("x")
    total = x * 0.1
    for value in (0.1 + 0.2, 1e-20, 1234567.0, 1e21, 123456789012.5, 2.5e-7, 1 / 3, -0.0, 1e300, 4.4e-13, -1.0, -2.5):
        total = total + x * value
    for value in (1j, -1j, 2j, 1 + 0j, -2.5j, 1 - 1j, complex(0, -0.0), complex(-0.0, 2), 3.5 + 0.25j):
        total = total - value * x
    return total


@pytest.mark.parametrize("build", [arithmetic, functions, linear_algebra, four_momenta_and_tags, numbers])
def test_renderings_match_where_the_graphs_match(build):
    theirs, ours = build(laddu), build(ld)
    assert same_graph(theirs, ours), "the two graphs differ; the scenario must build the same one"
    assert_same_renderings(theirs, ours)


def test_non_finite_constants():
    # JSON has no infinities, so the graphs (x * c, c ± i) are compared through their trees.
    for value in (math.inf, -math.inf, math.nan, complex(math.nan, 1.0), complex(3.0, math.nan), complex(math.inf, -2.0)):
        theirs, ours = laddu.scalar("x") * value, ld.scalar("x") * value
        assert_same_renderings(theirs, ours)


@pytest.mark.parametrize(
    "build",
    [
        lambda lib: lib.cis(lib.parameter("phi")) * lib.scalar("x"),
        lambda lib: lib.acos(lib.scalar("x")) + lib.polar_complex(lib.parameter("r"), lib.parameter("phi")),
        lambda lib: lib.Vec4.event("k").m() * lib.parameter("g"),
    ],
)
def test_laddus_graphs_read_from_json_render_alike(build):
    """Graphs laddu's helpers build differently from ours render alike once read node for node."""
    theirs = build(laddu)
    ours = ld.Expr.from_json(theirs.to_json())
    assert same_graph(theirs, ours)
    assert_same_renderings(theirs, ours)


def test_latex_labels():
    theirs, ours = (
        lib.parameter("alpha_internal", latex=r"\alpha") * lib.scalar("x_value") / lib.scalar("y").sqrt()
        + lib.scalar("a^b{c}~#$%&\\")
        for lib in (laddu, ld)
    )
    assert ours.latex() == theirs.latex()
    assert r"\alpha" in ours.latex() and "alpha_internal" not in ours.latex()
    # laddu writes the label into its JSON; laddu-cpp reads and writes it too.
    assert ld.Expr.from_json(theirs.to_json()).latex() == theirs.latex()
    assert laddu.Expr.from_json(ours.to_json()).latex() == theirs.latex()


def test_style_classes_match():
    for lib in (laddu, ld):
        color = lib.DisplayColor(1, 2, 3)
        assert (color.red, color.green, color.blue) == (1, 2, 3)
        assert repr(color) == "DisplayColor(1, 2, 3)"
        assert color == lib.DisplayColor(1, 2, 3)
        style = lib.NodeStyle(fill=color)
        assert style.fill == color and style.foreground is None and style.border is None
        rule = lib.NodeStyleRule(lib.NodeSelector.tag("S"), style)
        assert rule.selector == lib.NodeSelector.tag("S") and rule.style == style
    members = {name for name in dir(laddu.ExprNodeKind) if name.isupper()}
    assert members == {name for name in dir(ld.ExprNodeKind) if name.isupper()}
    assert {str(getattr(ld.ExprNodeKind, n)) for n in members} == {str(getattr(laddu.ExprNodeKind, n)) for n in members}


def test_bad_input_raises_the_same_types(tmp_path):
    cases = [
        (lambda lib: lib.scalar("x").equation(colors="sepia"), ValueError),
        (lambda lib: lib.scalar("x").latex(colors=3), TypeError),
        (lambda lib: lib.scalar("x").tree(style_rules=[1]), TypeError),
        (lambda lib: lib.scalar("x").dot(style_rules=2), TypeError),
        (lambda lib: lib.DisplayColor(256, 0, 0), OverflowError),
        (lambda lib: lib.DisplayColor(0, -1, 0), OverflowError),
        (lambda lib: lib.DisplayColor(0, 0, 1.5), TypeError),
        (lambda lib: lib.scalar("x").svg(tmp_path / "missing" / "x.svg"), OSError),
        (lambda lib: lib.scalar("x").equation(colors="sepia", style_rules=None), ValueError),
    ]
    for case, error in cases:
        for lib in (laddu, ld):
            with pytest.raises(error):
                case(lib)


@pytest.mark.parametrize("expand", [True, False])
def test_svg_files(tmp_path, expand):
    """Both write an SVG document to a str or PathLike path and return None; laddu-cpp's draws
    the same nodes (its layout is its own) and parses as XML."""
    for lib in (laddu, ld):
        e = linear_algebra(lib)
        for path in (tmp_path / f"{lib.__name__}.svg", str(tmp_path / f"{lib.__name__}-str.svg")):
            assert e.svg(path, colors="light", expand_repeated=expand) is None
    theirs = (tmp_path / "laddu.svg").read_text()
    ours = (tmp_path / "laddu_cpp.svg").read_text()
    assert "<svg" in theirs and "</svg>" in theirs
    root = ET.fromstring(ours)
    titles = [t.text for t in root.iter("{http://www.w3.org/2000/svg}title")]
    # Every node laddu draws is one of ours, as often (a box per use, or per node).
    expected = [line.split(": ", 1)[-1] for line in linear_algebra(laddu).tree(expand_repeated=expand).splitlines()[1:]]
    expected = [label for label in expected if "<reference" not in label]
    assert sorted(titles) == sorted(expected)
    for label in expected:
        assert label.split(" ", 1)[1].split("(")[0] in theirs


def test_models_render_their_expression():
    """laddu's Model renders the graph its optimiser made (n-ary sums, constants folded, x / y as
    y^(-1) * x); laddu-cpp's renders the model's expression as written, its optimised form being
    IR rather than an expression. Both name the same parameters and columns."""
    theirs, ours = (lib.Model((lib.parameter("p") * lib.scalar("x") / lib.scalar("y") + 1.0).norm_sqr()) for lib in (laddu, ld))
    assert ours.equation() == ours.expression.equation() == "|p * x / y + 1|^2"
    assert theirs.equation() != ours.equation()
    for name in ("p", "x", "y"):
        assert name in theirs.equation() and name in ours.equation()
    assert ours.tree() == ours.expression.tree()
