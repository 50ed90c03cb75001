"""Expr and Model renderings (equation, latex, tree, dot, svg, render) and their styles, as laddu
0.21.4 has them: texts, colours, shared nodes, files, bad input, and SVG that parses as XML and
draws in a real browser (headless Chromium, when installed)."""

import os
import pathlib
import shutil
import subprocess
import xml.etree.ElementTree as ET

import pytest

import laddu_cpp as ld

SVG = "{http://www.w3.org/2000/svg}"


def shared_product():
    x = ld.scalar("x")
    return (x + 1.0) * (x + 2.0)


def debug_rule():
    return ld.NodeStyleRule(
        ld.NodeSelector.name("x"),
        ld.NodeStyle(foreground=ld.DisplayColor(1, 2, 3), fill=ld.DisplayColor(4, 5, 6), border=ld.DisplayColor(7, 8, 9)),
    )


def test_texts_of_a_shared_product():
    e = shared_product()
    assert e.equation() == "(x + 1) * (x + 2)"
    assert e.latex() == r"\left(x + 1\right) \cdot \left(x + 2\right)"
    assert e.tree() == (
        "ExprGraph(root=#5)\n#5 Binary(Mul)\n┣ lhs: #2 Binary(Add)\n┃  ┣ lhs: #0 EventScalar(x)\n"
        "┃  ┗ rhs: #1 RealConst(1)\n┗ rhs: #4 Binary(Add)\n   ┣ lhs: #0 EventScalar(x)\n   ┗ rhs: #3 RealConst(2)\n"
    )
    assert e.dot().startswith('digraph ExprGraph {\n  n0 [label="#5 Binary(Mul)"];\n')
    assert e.dot().count("EventScalar(x)") == 2
    shared = e.dot(expand_repeated=False)
    assert shared.count("EventScalar(x)") == 1 and shared.count(" -> ") == 6
    referenced = e.tree(expand_repeated=False)
    assert referenced.count("EventScalar(x)") == 1 and "#0 <reference to #0>" in referenced


def test_custom_rules_apply_to_every_rendering(tmp_path):
    e = ld.scalar("x") * 2.0
    rule = debug_rule()
    assert "\x1b[38;2;1;2;3m\x1b[48;2;4;5;6mx\x1b[0m" in e.equation(style_rules=[rule])
    assert r"{\color[RGB]{1,2,3}x}" in e.latex(style_rules=[rule])
    assert "\x1b[48;2;4;5;6m#0 EventScalar(x)\x1b[0m" in e.tree(style_rules=[rule])
    dot = e.dot(style_rules=(rule,))
    assert 'fontcolor="#010203", color="#070809", fillcolor="#040506", style=filled' in dot
    path = tmp_path / "e.svg"
    assert e.svg(path, style_rules=[rule]) is None
    rect = [g for g in ET.parse(path).getroot().iter(f"{SVG}g") if g.findtext(f"{SVG}title") == "#0 EventScalar(x)"][0]
    assert rect.find(f"{SVG}rect").get("fill") == "#040506"
    assert rect.find(f"{SVG}rect").get("stroke") == "#070809"
    assert rect.find(f"{SVG}text").get("fill") == "#010203"


def test_presets_and_later_rules():
    e = shared_product().tagged("data")
    assert "\x1b[38;2;" in e.equation(colors="dark")
    assert r"\color[RGB]" in e.latex(colors=" Dark ")
    assert e.equation(colors="none") == e.equation(colors=None) == e.equation()
    override = ld.NodeStyleRule(ld.NodeSelector.tag("data"), ld.NodeStyle(foreground=ld.DisplayColor(1, 2, 3)))
    dot = e.dot(colors="light", style_rules=[override])
    assert 'label="#5 Binary(Mul) tags=[data]", fontcolor="#010203", color="#8250df"' in dot
    assert 'label="#0 EventScalar(x)", fontcolor="#0366d6", color="#0366d6"' in dot
    kinds = ld.NodeStyleRule(ld.NodeSelector.kind(ld.ExprNodeKind.REAL_CONST), ld.NodeStyle(border=ld.DisplayColor(0, 0, 0)))
    assert e.dot(style_rules=[kinds]).count('color="#000000"') == 2
    everything = ld.NodeStyleRule(ld.NodeSelector.any(), ld.NodeStyle(fill=ld.DisplayColor(9, 9, 9)))
    assert e.dot(style_rules=[everything]).count("style=filled") == 7


def test_latex_labels_and_escapes():
    alpha = ld.parameter("alpha_internal", latex=r"\alpha")
    e = alpha * ld.scalar("x_value") / ld.scalar("y").sqrt()
    assert e.latex() == r"\frac{\alpha \cdot x\_value}{\sqrt{y}}"
    assert e.equation() == "alpha_internal * x_value / sqrt(y)"
    # The label survives JSON and is part of the parameter's definition.
    assert ld.Expr.from_json(e.to_json()).latex() == e.latex()
    with pytest.raises(ld.ModelError):
        ld.Model(alpha + ld.parameter("alpha_internal"))


def test_model_renders_its_expression(tmp_path):
    e = (ld.parameter("a", initial=1.0) * ld.scalar("x")).norm_sqr()
    model = ld.Model(e)
    assert model.equation() == e.equation() == "|a * x|^2"
    assert model.latex() == e.latex()
    assert model.tree(expand_repeated=False) == e.tree(expand_repeated=False)
    assert model.dot(colors="light") == e.dot(colors="light")
    model.svg(str(tmp_path / "m.svg"))
    assert (tmp_path / "m.svg").read_text() == e.render("svg")


def test_render_names_the_format():
    e = shared_product()
    for fmt in ("equation", "latex", "tree", "dot"):
        assert e.render(fmt) == getattr(e, fmt)()
    assert e.render() == e.equation()
    assert e.render("DOT", expand_repeated=False) == e.dot(expand_repeated=False)


def test_style_classes():
    c = ld.DisplayColor(1, 2, 3)
    assert (c.red, c.green, c.blue) == (1, 2, 3) and repr(c) == "DisplayColor(1, 2, 3)"
    assert c == ld.DisplayColor(1, 2, 3) and c != ld.DisplayColor(1, 2, 4)
    style = ld.NodeStyle(fill=c)
    assert style.fill == c and style.foreground is None and style.border is None
    assert style == ld.NodeStyle(fill=ld.DisplayColor(1, 2, 3))
    rule = ld.NodeStyleRule(ld.NodeSelector.tag("S"), style)
    assert rule.selector == ld.NodeSelector.tag("S") and rule.style == style
    assert ld.NodeSelector.tag("S") != ld.NodeSelector.name("S")
    assert ld.ExprNodeKind.SCALAR_PARAM != ld.ExprNodeKind.EVENT_SCALAR
    with pytest.raises(TypeError):
        ld.NodeStyle(c)  # keyword-only, as laddu


def test_bad_input_raises_laddus_types_with_the_fix(tmp_path):
    e = shared_product()
    with pytest.raises(ValueError, match="colors must be 'light', 'dark', 'none' or None, not 'sepia'"):
        e.equation(colors="sepia")
    with pytest.raises(TypeError, match="colors must be a string"):
        e.tree(colors=3)
    with pytest.raises(TypeError, match="item 1 is int"):
        e.latex(style_rules=[debug_rule(), 1])
    with pytest.raises(TypeError, match="sequence of NodeStyleRule, got int"):
        e.dot(style_rules=3)
    with pytest.raises(OverflowError, match="0 to 255, but red is 256"):
        ld.DisplayColor(256, 0, 0)
    with pytest.raises(OverflowError, match="but blue is -1"):
        ld.DisplayColor(0, 0, -1)
    with pytest.raises(OverflowError, match="but green is 1180591620717411303424"):
        ld.DisplayColor(0, 2**70, 0)
    with pytest.raises(TypeError, match="red must be an integer"):
        ld.DisplayColor(1.5, 0, 0)
    with pytest.raises(ValueError, match="format must be 'equation', 'latex', 'tree', 'dot' or 'svg', not 'png'"):
        e.render("png")
    with pytest.raises(OSError, match="nonexistent"):
        e.svg(tmp_path / "nonexistent" / "e.svg")
    assert not (tmp_path / "nonexistent").exists()


def test_exponential_expansion_is_refused_with_the_remedy():
    e = ld.scalar("x")
    for _ in range(40):
        e = e * e
    for render in (e.equation, e.latex, e.tree, e.dot):
        with pytest.raises(ld.ModelError, match="expand_repeated=False"):
            render()
    assert e.dot(expand_repeated=False).count(" -> ") == 80
    assert e.tree(expand_repeated=False).count("<reference to") == 40


def test_svg_is_well_formed_xml(tmp_path):
    x = ld.scalar("a<b & 'c'")
    m = ld.matrix([[x, 2.0], [3.0, ld.parameter("p", latex=r"\pi")]])
    e = (ld.matmul(m, m).at(0, 0) * x + 1j).tagged("wave")
    for expand in (True, False):
        for colors in (None, "light", "dark"):
            path = tmp_path / f"e-{expand}-{colors}.svg"
            e.svg(os.fspath(path).encode(), colors=colors, expand_repeated=expand)
            root = ET.parse(path).getroot()
            assert root.tag == f"{SVG}svg"
            titles = [t.text for t in root.iter(f"{SVG}title")]
            assert "#0 EventScalar(a<b & 'c')" in titles
            # One box per line of the tree: per use, or per distinct node.
            lines = e.tree(expand_repeated=expand).splitlines()[1:]
            assert len(titles) == sum(1 for line in lines if "<reference" not in line)
            labels = [t.text for t in root.iter(f"{SVG}text") if t.get("font-size") == "10"]
            assert "element[1,1]" in labels and "lhs" in labels


def test_svg_path_may_be_a_pathlike_and_replaces_the_file(tmp_path):
    path = pathlib.Path(tmp_path) / "e.svg"
    path.write_text("old")
    shared_product().svg(path)
    assert path.read_text().startswith("<?xml")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["e.svg"]


def _png_pixels(path):
    """The PNG's pixels as an (n, 3) uint8 array."""
    import numpy as np  # noqa: PLC0415
    from PIL import Image  # noqa: PLC0415  (pillow comes with matplotlib in the test venv)

    with Image.open(path) as image:
        return np.asarray(image.convert("RGB")).reshape(-1, 3)


@pytest.mark.skipif(shutil.which("chromium") is None, reason="headless Chromium is not installed")
def test_svg_draws_in_a_browser(tmp_path):
    pytest.importorskip("PIL")
    x = ld.scalar("x")
    e = ((x + 1.0) * (x * ld.parameter("p") + 2.0)).norm_sqr()
    red = ld.NodeStyleRule(ld.NodeSelector.name("p"), ld.NodeStyle(fill=ld.DisplayColor(255, 0, 0)))
    svg = tmp_path / "e.svg"
    e.svg(svg, colors="light", style_rules=[red])
    png = tmp_path / "e.png"
    # The browser is not the code under test: under the sanitizer build the suite preloads
    # libasan (LD_PRELOAD), which a browser does not start under.
    browser_env = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "ASAN_OPTIONS")}
    subprocess.run(
        ["chromium", "--headless", "--no-sandbox", "--disable-gpu", f"--screenshot={png}", "--window-size=900,450",
         svg.as_uri()],
        check=True, capture_output=True, timeout=120, env=browser_env,
    )
    pixels = _png_pixels(png)
    dark = int((pixels.max(axis=1) < 128).sum())
    red_box = int((pixels == (255, 0, 0)).all(axis=1).sum())
    # Text and outlines are drawn, and the parameter's box is filled red.
    assert dark > 500, f"only {dark} dark pixels: the SVG did not draw"
    assert red_box > 1000, f"only {red_box} red pixels: the fill rule did not draw"
