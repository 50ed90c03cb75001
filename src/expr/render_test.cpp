// The expected texts are laddu 0.21.4's output for the same graphs (built through its Python
// API and printed), so these tests pin laddu-cpp to laddu's format.
#include <complex>
#include <string>

#include <gtest/gtest.h>

#include <laddu/base/error.hpp>
#include <laddu/expr/render.hpp>

#include "render_internal.hpp"

namespace laddu::expr {
namespace {

std::size_t count(const std::string& text, const std::string& needle) {
    std::size_t n = 0;
    for (std::size_t at = text.find(needle); at != std::string::npos;
         at = text.find(needle, at + needle.size())) {
        ++n;
    }
    return n;
}

// (x + 1) * (x + 2), the shared x used twice.
Expr shared_product() {
    const Expr x = scalar("x");
    return (x + 1.0) * (x + 2.0);
}

TEST(Render, EquationAndLatexOfAProduct) {
    EXPECT_EQ(to_equation(shared_product()), "(x + 1) * (x + 2)");
    EXPECT_EQ(to_latex(shared_product()), "\\left(x + 1\\right) \\cdot \\left(x + 2\\right)");
}

TEST(Render, EquationsTakeSignsOutOfTermsAndFactors) {
    const Expr x = scalar("x");
    const Expr p = parameter("p");
    const Expr q = parameter("q_1");
    const Expr f =
        (p * x - 2.0 * q) / sqrt(x) + std::complex<double>(1.0, -2.0) * powi(x, 2) - powi(x, -3);
    EXPECT_EQ(to_equation(f), "(p * x - 2 * q_1) / sqrt(x) + (1 - 2i) * x^2 - x^(-3)");
    EXPECT_EQ(to_latex(f), "\\frac{p \\cdot x - 2 \\cdot q\\_1}{\\sqrt{x}} + \\left(1 - "
                           "2\\mathrm{i}\\right) \\cdot x^{2} - x^{-3}");
    const Expr y = scalar("y");
    EXPECT_EQ(to_equation(-x * p - (-x) + (-(x * y))), "-x * p - -x - x * y");
    EXPECT_EQ(to_equation(nary_add({x, -2.0 * y, nary_mul({-1.0, y, -x}), -3.0})),
              "x + -2 * y + y * x - 3");
    EXPECT_EQ(to_equation(nary_mul({-1.0})), "-1");
    EXPECT_EQ(to_latex(-(x + y)), "-\\left(x + y\\right)");
    EXPECT_EQ(to_equation(powi(-x, 2) + powi(powi(x, 2), 3)), "(-x)^2 + (x^2)^3");
    EXPECT_EQ(to_equation(x - (y - x) + x / (y / x) + x / (y * x)),
              "x - (y - x) + x / (y / x) + x / (y * x)");
    EXPECT_EQ(to_equation(norm_sqr(x * std::complex<double>(0.0, 1.0) + 2.0)), "|x * i + 2|^2");
}

TEST(Render, EquationsOfEveryNodeKind) {
    const Expr x = scalar("x");
    const Expr y = scalar("y");
    const Expr m = matrix({{x, 2.0}, {3.0, y}});
    const Expr v = vector({1.0, x});
    const Expr e = solve(m, v)[0] + dot(v, vector({2.0, y})) + m.at(0, 1) + matvec(m, v)[1] +
                   matmul(m, m).at(1, 1);
    EXPECT_EQ(to_equation(e),
              "solve([[x, 2], [3, y]], [1, x])[0] + dot([1, x], [2, y]) + [[x, 2], [3, y]][0, 1] "
              "+ matvec([[x, 2], [3, y]], [1, x])[1] + matmul([[x, 2], [3, y]], [[x, 2], [3, "
              "y]])[1, 1]");
    EXPECT_EQ(to_latex(m.at(0, 1) + v[1]),
              "\\begin{bmatrix}x & 2 \\\\ 3 & y\\end{bmatrix}_{0,1} + \\begin{bmatrix}1 \\\\ "
              "x\\end{bmatrix}_{1}");
    const Expr k = p4_component("k", P4Component::kPx) * p4_component("k", P4Component::kE);
    EXPECT_EQ(to_equation(k), "k.px * k.e");
    EXPECT_EQ(to_latex(k), "k_{\\mathrm{px}} \\cdot k_{\\mathrm{e}}");
    EXPECT_EQ(to_equation(real(conj(complex(x, y))) + imag(complex(x, y)) + atan2(y, x)),
              "real(conj(complex(x, y))) + imag(complex(x, y)) + atan2(y, x)");
    EXPECT_EQ(to_latex(real(conj(complex(x, y)))),
              "\\operatorname{Re}\\left(\\overline{\\operatorname{complex}\\left(x, "
              "y\\right)}\\right)");
    EXPECT_EQ(to_equation(cos(sin(log(exp(x))))), "cos(sin(log(exp(x))))");
    EXPECT_EQ(to_latex(cos(x)), "\\cos\\left(x\\right)");
    // Operations laddu lacks, in the same style.
    EXPECT_EQ(to_equation(abs(x) + acos(x) + pow(x, y + 1.0) + pow(x, -0.5)),
              "|x| + acos(x) + x^(y + 1) + x^(-0.5)");
    EXPECT_EQ(to_latex(abs(x) + acos(x) + pow(x, y + 1.0)),
              "\\left|x\\right| + \\arccos\\left(x\\right) + x^{y + 1}");
}

TEST(Render, LatexEscapesNamesAndUsesParameterLabels) {
    const Expr alpha = parameter("alpha_internal", {.latex = "\\alpha"});
    const Expr e = alpha * scalar("x_value") / sqrt(scalar("y"));
    EXPECT_EQ(to_latex(e), "\\frac{\\alpha \\cdot x\\_value}{\\sqrt{y}}");
    EXPECT_EQ(to_latex(scalar("a\\b{c}^d~e#$%&")), "a\\backslash b\\{c\\}\\^{}d\\~{}e\\#\\$\\%\\&");
    // A fraction binds as an atom, so laddu writes its power without parentheses.
    const Expr ratio = scalar("x_value") / sqrt(scalar("y"));
    EXPECT_EQ(to_latex(powi(ratio, -2)), "\\frac{x\\_value}{\\sqrt{y}}^{-2}");
    EXPECT_EQ(to_equation(powi(ratio, -2)), "(x_value / sqrt(y))^(-2)");
}

TEST(Render, NumbersAreWrittenAsLadduWritesThem) {
    using render_detail::complex_text;
    using render_detail::real_text;
    EXPECT_EQ(real_text(0.1), "0.1");
    EXPECT_EQ(real_text(0.1 + 0.2), "0.3");
    EXPECT_EQ(real_text(1e-20), "0");
    EXPECT_EQ(real_text(-0.0), "-0");
    EXPECT_EQ(real_text(2.5e-7), "0.00000025");
    EXPECT_EQ(real_text(4.4e-13), "0.00000000000044");
    EXPECT_EQ(real_text(1.0 / 3.0), "0.3333333333333333");
    EXPECT_EQ(real_text(1e21), "1000000000000000000000");
    EXPECT_EQ(real_text(123456789012.5), "123456789012.5");
    EXPECT_EQ(real_text(1e300), "1" + std::string(300, '0'));
    EXPECT_EQ(real_text(std::numeric_limits<double>::quiet_NaN()), "NaN");
    EXPECT_EQ(real_text(-std::numeric_limits<double>::infinity()), "-inf");
    EXPECT_EQ(complex_text(0.0, 1.0), "i");
    EXPECT_EQ(complex_text(-0.0, -1.0), "-i");
    EXPECT_EQ(complex_text(1.0, -1.0), "1 - i");
    EXPECT_EQ(complex_text(1.0, 0.0), "1");
    EXPECT_EQ(complex_text(0.0, -2.5), "-2.5i");
    const Expr x = scalar("x");
    EXPECT_EQ(to_latex(x * std::numeric_limits<double>::infinity()), "x \\cdot \\infty");
    EXPECT_EQ(to_equation(x * -std::numeric_limits<double>::infinity()), "-x * inf");
    EXPECT_EQ(to_latex(x * std::complex<double>(1.0, -1.0)),
              "x \\cdot \\left(1 - \\mathrm{i}\\right)");
}

TEST(Render, TreeExpandsOrReferencesSharedNodes) {
    EXPECT_EQ(to_tree(shared_product()), "ExprGraph(root=#5)\n"
                                         "#5 Binary(Mul)\n"
                                         "┣ lhs: #2 Binary(Add)\n"
                                         "┃  ┣ lhs: #0 EventScalar(x)\n"
                                         "┃  ┗ rhs: #1 RealConst(1)\n"
                                         "┗ rhs: #4 Binary(Add)\n"
                                         "   ┣ lhs: #0 EventScalar(x)\n"
                                         "   ┗ rhs: #3 RealConst(2)\n");
    const std::string referenced = to_tree(shared_product(), {.expand_repeated = false});
    EXPECT_EQ(count(referenced, "EventScalar(x)"), 1U);
    EXPECT_NE(referenced.find("   ┣ lhs: #0 <reference to #0>\n"), std::string::npos) << referenced;
}

TEST(Render, TreeLabelsNameEveryKind) {
    const Expr x = scalar("x").tagged("S");
    const Expr m = matrix({{x, 2.0}, {3.0, parameter("p")}});
    const std::string tree =
        to_tree(nary_add({matmul(m, m).at(1, 0), powi(x, -2), vector({x, 1.0})[1], complex(x, x)}));
    for (const char* line :
         {"#0 EventScalar(x) tags=[S]", "Matrix(2x2)", "element[1,1]: #3 ScalarParam(p)",
          "MatrixElement(row=1, col=0)", "MatMul", "Unary(PowI(-2))", "Vector(len=2)",
          "Component(index=1)", "re: #0", "im: #0", "NaryAdd(len=4)", "term[3]:"}) {
        EXPECT_NE(tree.find(line), std::string::npos) << line << "\n" << tree;
    }
}

TEST(Render, DotWritesUsesOrSharedNodes) {
    EXPECT_EQ(to_dot(shared_product()), "digraph ExprGraph {\n"
                                        "  n0 [label=\"#5 Binary(Mul)\"];\n"
                                        "  n1 [label=\"#2 Binary(Add)\"];\n"
                                        "  n2 [label=\"#0 EventScalar(x)\"];\n"
                                        "  n1 -> n2 [label=\"lhs\"];\n"
                                        "  n3 [label=\"#1 RealConst(1)\"];\n"
                                        "  n1 -> n3 [label=\"rhs\"];\n"
                                        "  n0 -> n1 [label=\"lhs\"];\n"
                                        "  n4 [label=\"#4 Binary(Add)\"];\n"
                                        "  n5 [label=\"#0 EventScalar(x)\"];\n"
                                        "  n4 -> n5 [label=\"lhs\"];\n"
                                        "  n6 [label=\"#3 RealConst(2)\"];\n"
                                        "  n4 -> n6 [label=\"rhs\"];\n"
                                        "  n0 -> n4 [label=\"rhs\"];\n"
                                        "}\n");
    const std::string shared = to_dot(shared_product(), {.expand_repeated = false});
    EXPECT_EQ(count(shared, "EventScalar(x)"), 1U);
    EXPECT_EQ(count(shared, " -> "), 6U);
    EXPECT_NE(shared.find("  n4 -> n0 [label=\"lhs\"];\n"), std::string::npos) << shared;
    EXPECT_NE(to_dot(scalar("x\\\"y")).find("EventScalar(x\\\\\\\"y)"), std::string::npos);
}

TEST(Render, LaterRulesOverrideThePalette) {
    const Expr e = shared_product().tagged("data");
    const NodeStyleRule rule{NodeSelector::tag("data"),
                             {.foreground = DisplayColor{1, 2, 3}, .fill = DisplayColor{4, 5, 6}}};
    const RenderOptions options{.colors = ColorPreset::kLight, .style_rules = {rule}};
    EXPECT_NE(to_equation(e, options).find("\x1b[38;2;1;2;3m\x1b[48;2;4;5;6m"), std::string::npos);
    EXPECT_NE(to_latex(e, options).find("\\color[RGB]{1,2,3}"), std::string::npos);
    EXPECT_NE(to_tree(e, options).find("\x1b[38;2;1;2;3m"), std::string::npos);
    const std::string dot = to_dot(e, options);
    EXPECT_NE(dot.find("fontcolor=\"#010203\", color=\"#8250df\", fillcolor=\"#040506\", "
                       "style=filled"),
              std::string::npos)
        << dot;
    // The palette colours the other nodes: the event scalar blue, constants grey.
    EXPECT_NE(dot.find("label=\"#0 EventScalar(x)\", fontcolor=\"#0366d6\""), std::string::npos);
    EXPECT_EQ(to_equation(scalar("x"), {.colors = ColorPreset::kDark}),
              "\x1b[38;2;121;192;255mx\x1b[0m");
    // Without colours nothing is styled.
    EXPECT_EQ(to_equation(e).find('\x1b'), std::string::npos);
    EXPECT_EQ(to_dot(e).find("color"), std::string::npos);
}

TEST(Render, SelectorsMatchKindsNamesAndTags) {
    const Expr p = parameter("mass");
    const Expr k = p4_component("beam", P4Component::kPz);
    EXPECT_TRUE(NodeSelector::any().matches(p));
    EXPECT_TRUE(NodeSelector::kind(NodeKind::kParameter).matches(p));
    EXPECT_FALSE(NodeSelector::kind(NodeKind::kParameter).matches(k));
    EXPECT_TRUE(NodeSelector::name("mass").matches(p));
    EXPECT_TRUE(NodeSelector::name("beam").matches(k));
    EXPECT_FALSE(NodeSelector::name("mass").matches(p * 2.0));
    EXPECT_TRUE(NodeSelector::tag("A").matches(p.tagged("A")));
    EXPECT_FALSE(NodeSelector::tag("A").matches(p));
    EXPECT_EQ(NodeSelector::tag("A"), NodeSelector::tag("A"));
    EXPECT_FALSE(NodeSelector::tag("A") == NodeSelector::name("A"));
}

TEST(Render, BadInputNamesTheFix) {
    EXPECT_EQ(parse_color_preset(" Light "), ColorPreset::kLight);
    EXPECT_EQ(parse_color_preset("NONE"), ColorPreset::kNone);
    EXPECT_THROW(
        {
            try {
                (void)parse_color_preset("sepia");
            } catch (const ModelError& e) {
                EXPECT_STREQ(e.what(),
                             "colors must be 'light', 'dark', 'none' or None, not 'sepia'");
                throw;
            }
        },
        ModelError);
    EXPECT_EQ(parse_render_format("LaTeX"), RenderFormat::kLatex);
    EXPECT_THROW((void)parse_render_format("png"), ModelError);
    EXPECT_EQ(DisplayColor::checked(1, 2, 255), (DisplayColor{1, 2, 255}));
    EXPECT_THROW((void)DisplayColor::checked(256, 0, 0), ModelError);
    EXPECT_THROW((void)DisplayColor::checked(0, -1, 0), ModelError);
    EXPECT_EQ(render(shared_product(), RenderFormat::kEquation), "(x + 1) * (x + 2)");
}

TEST(Render, SvgIsAStandaloneDocumentWithEscapedText) {
    const Expr x = scalar("a<b&\"c\x01");
    const Expr m = matrix({{x, 2.0}, {3.0, x}});
    const std::string svg = to_svg(matmul(m, m).at(0, 0) * x, {.colors = ColorPreset::kLight});
    EXPECT_EQ(svg.rfind("<?xml", 0), 0U);
    EXPECT_NE(svg.find("<svg xmlns=\"http://www.w3.org/2000/svg\""), std::string::npos);
    EXPECT_EQ(svg.substr(svg.size() - 7), "</svg>\n");
    EXPECT_NE(svg.find("EventScalar(a&lt;b&amp;&quot;c\xEF\xBF\xBD)"), std::string::npos);
    EXPECT_EQ(svg.find('\x01'), std::string::npos);
    EXPECT_NE(svg.find("stroke=\"#cf222e\""), std::string::npos);  // linear algebra, light
    const std::string shared = to_svg(matmul(m, m), {.expand_repeated = false});
    EXPECT_EQ(count(shared, "<rect x="), 5U);     // matmul, matrix, x, 2, 3
    EXPECT_EQ(count(shared, "marker-end="), 6U);  // matmul uses the matrix twice, bowed
}

TEST(Render, DeepGraphsRenderWithoutRecursion) {
    constexpr std::size_t kDepth = 100'000;
    const Expr x = scalar("x");
    Expr s = x;
    Expr f = x;
    for (std::size_t i = 0; i < kDepth; ++i) {
        s = s + parameter("p") * x;
        f = sin(f);
    }
    EXPECT_EQ(to_equation(s).size(), 1 + kDepth * std::string(" + p * x").size());
    EXPECT_EQ(to_latex(f).size(), kDepth * std::string("\\sin\\left(\\right)").size() + 1);
    EXPECT_EQ(count(to_dot(f, {.expand_repeated = false}), " -> "), kDepth);
    EXPECT_NE(to_svg(f, {.expand_repeated = false}).find("</svg>"), std::string::npos);
}

TEST(Render, ExponentialExpansionIsRefused) {
    Expr e = scalar("x");
    for (int i = 0; i < 40; ++i) {
        e = e * e;
    }
    try {
        (void)to_equation(e);
        FAIL() << "2^40 uses of x rendered";
    } catch (const ModelError& error) {
        EXPECT_NE(std::string(error.what()).find("expand_repeated=False"), std::string::npos);
    }
    EXPECT_THROW((void)to_tree(e), ModelError);
    EXPECT_THROW((void)to_svg(e), ModelError);
    EXPECT_EQ(count(to_dot(e, {.expand_repeated = false}), " -> "), 80U);
    EXPECT_EQ(count(to_tree(e, {.expand_repeated = false}), "<reference to"), 40U);
}

}  // namespace
}  // namespace laddu::expr
