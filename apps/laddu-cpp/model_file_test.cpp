#include <initializer_list>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <laddu/amplitudes/breit_wigner.hpp>
#include <laddu/amplitudes/kmatrix_benchmark.hpp>
#include <laddu/base/error.hpp>
#include <laddu/expr/tags.hpp>
#include <laddu/expr/traversal.hpp>
#include <laddu/physics/harmonics.hpp>
#include <laddu/physics/reaction.hpp>

#include "model_file.hpp"

namespace laddu::cli {
namespace {

using expr::Expr;
using physics::Vec4;

const std::string kModels = LADDU_EXAMPLE_MODELS;

// The intensity of examples/models/breit_wigner_zlm.toml built directly with the library.
Expr hand_built_bw_zlm() {
    const auto fixed = [](const char* name, double v, const char* unit) {
        return expr::parameter(name, {.fixed = v, .unit = unit});
    };
    const Vec4 beam = Vec4::event("beam");
    const Vec4 proton = Vec4::event("proton");
    const Vec4 k1 = Vec4::event("kshort1");
    const Vec4 k2 = Vec4::event("kshort2");
    const Expr s = (k1 + k2).m2();
    const Expr f0 = amplitudes::breit_wigner(s, fixed("f0 mass", 1.704, "GeV"),
                                             fixed("f0 width", 0.123, "GeV"));
    const Expr f2 = amplitudes::relativistic_breit_wigner(
        s,
        expr::parameter("f2 mass",
                        {.initial = 1.517, .bounds = expr::Bounds{1.40, 1.65}, .unit = "GeV"}),
        expr::parameter("f2 width",
                        {.initial = 0.086, .bounds = expr::Bounds{0.02, 0.30}, .unit = "GeV"}),
        k1.m(), k2.m(), 2);
    const Expr c0 = expr::complex(fixed("f0 re", 1.0, ""), expr::constant(0.0));
    const Expr c2 = expr::polar_complex(
        expr::parameter("f2 mag", {.initial = 0.8, .bounds = expr::Bounds{0.0, 10.0}}),
        expr::parameter("f2 phase", {.initial = 0.6,
                                     .bounds = expr::Bounds{-3.141592653589793, 3.141592653589793},
                                     .periodic = true,
                                     .unit = "rad"}));
    const Expr s_wave = expr::nary_mul({c0, f0}).tagged("S");
    const Expr d_wave = expr::nary_mul({c2, f2}).tagged("D");
    const auto reaction = physics::Reaction::with_inferred_target(beam, k1 + k2, proton);
    const physics::Angles a = reaction.helicity_angles(k1);
    const auto pol = physics::Polarization::event(beam.vec3(), proton.vec3());
    const Expr z00 = physics::zlm(0, 0, physics::Reflectivity::kPositive, a.costheta, a.phi,
                                  pol.angle, pol.magnitude);
    const Expr z22 = physics::zlm(2, 2, physics::Reflectivity::kPositive, a.costheta, a.phi,
                                  pol.angle, pol.magnitude);
    const Expr re = expr::nary_add(
        {expr::nary_mul({s_wave, expr::real(z00)}), expr::nary_mul({d_wave, expr::real(z22)})});
    const Expr im = expr::nary_add(
        {expr::nary_mul({s_wave, expr::imag(z00)}), expr::nary_mul({d_wave, expr::imag(z22)})});
    return expr::nary_add({expr::norm_sqr(re), expr::norm_sqr(im)});
}

TEST(ModelFile, BreitWignerZlmExampleBuildsTheHandWrittenIntensity) {
    const ModelFile file = load_model_file(kModels + "/breit_wigner_zlm.toml");
    EXPECT_EQ(file.name, "bw_zlm");
    EXPECT_EQ(file.intensity, "intensity");
    EXPECT_EQ(file.model.expression(), hand_built_bw_zlm());
    EXPECT_EQ(file.tags, (std::vector<std::string>{"D", "S"}));
    EXPECT_EQ(file.model.parameters().free_count(), 4U);
    EXPECT_EQ(file.model.parameters().size(), 7U);
    EXPECT_EQ(file.reaction.daughters, (std::vector<std::string>{"kshort1", "kshort2"}));
    EXPECT_DOUBLE_EQ(file.generator.mass_max, 2.0);
    // Amplitudes in file order, each with its line.
    ASSERT_EQ(file.amplitudes.size(), 21U);
    EXPECT_EQ(file.amplitudes.front().name, "f0_bw");
    EXPECT_EQ(file.amplitudes.back().name, "intensity");
    EXPECT_LT(file.amplitudes.front().line, file.amplitudes.back().line);
}

TEST(ModelFile, KMatrixExampleOverridesBuiltInCouplings) {
    const ModelFile file = load_model_file(kModels + "/kmatrix.toml");
    const expr::ParamLayout& layout = file.model.parameters();
    const expr::Parameter& f0 = layout.parameters()[layout.index_of("f0(980)+ re")];
    ASSERT_TRUE(f0.is_fixed());
    EXPECT_DOUBLE_EQ(*f0.fixed, 1.0);
    EXPECT_EQ(file.tags, (std::vector<std::string>{"D+", "S+", "S-"}));
    EXPECT_DOUBLE_EQ(*layout.parameters()[layout.index_of("f0(1500)+ re")].initial, 0.40);
    EXPECT_EQ(layout.free_count(), 33U);
    // Apart from the parameter definitions it is the benchmark intensity.
    const auto bare = [](const Expr& e) {
        return expr::rewrite_bottom_up(e, [](const Expr& node) {
            return node.kind() == expr::NodeKind::kParameter
                       ? expr::parameter(node.node().parameter->name)
                       : node;
        });
    };
    EXPECT_EQ(bare(file.model.expression()),
              bare(amplitudes::kmatrix_benchmark_intensity({.tag_waves = true})));
}

TEST(ModelFile, BuiltInModels) {
    const std::optional<ModelFile> k = builtin_model("kmatrix_benchmark");
    ASSERT_TRUE(k.has_value());
    EXPECT_EQ(k->model.parameters().free_count(), 34U);
    EXPECT_EQ(k->tags, amplitudes::kmatrix_benchmark_wave_tags());
    EXPECT_FALSE(builtin_model("nope").has_value());
    EXPECT_EQ(load_model("kmatrix_benchmark").source, "builtin:kmatrix_benchmark");
}

TEST(ModelFile, ParameterForms) {
    const ModelFile file = parse_model_file(R"(
[model]
intensity = "i"
[parameters]
a = 2
b = { value = 0.5, bounds = [0, 1], unit = "GeV" }
p = { value = 0.1, bounds = [-3.2, 3.2], periodic = true }
[amplitudes]
c = { type = "coupling", re = "a", im = "b" }
d = { type = "coupling", mag = 1, phase = "p" }
s = { type = "sum", terms = ["c", "d"] }
i = { type = "norm_sqr", amplitude = "s" }
)",
                                            "forms.toml");
    const expr::ParamLayout& layout = file.model.parameters();
    EXPECT_EQ(layout.free_count(), 3U);
    EXPECT_DOUBLE_EQ(*layout.parameters()[layout.index_of("a")].initial, 2.0);
    EXPECT_EQ(layout.parameters()[layout.index_of("b")].unit, "GeV");
    EXPECT_TRUE(layout.parameters()[layout.index_of("p")].periodic);
    EXPECT_EQ(file.model.expression(),
              expr::norm_sqr(expr::nary_add(
                  {expr::complex(
                       expr::parameter("a", {.initial = 2.0}),
                       expr::parameter(
                           "b", {.initial = 0.5, .bounds = expr::Bounds{0.0, 1.0}, .unit = "GeV"})),
                   expr::polar_complex(expr::constant(1.0),
                                       expr::parameter("p", {.initial = 0.1,
                                                             .bounds = expr::Bounds{-3.2, 3.2},
                                                             .periodic = true}))})));
}

// A small valid model; the error tests replace one line of it.
const std::string kBase = R"([model]
intensity = "i"
[parameters]
m = { value = 1.5, bounds = [1.0, 2.0] }
w = 0.1
[amplitudes]
bw = { type = "breit_wigner", mass = "m", width = "w", of = ["kshort1", "kshort2"] }
i = { type = "norm_sqr", amplitude = "bw" }
)";

std::string replaced(const std::string& from, const std::string& to) {
    std::string text = kBase;
    const std::size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return text.replace(at, from.size(), to);
}

// The ModelError message of parsing `text`, or "" when it parses.
std::string error_of(const std::string& text) {
    try {
        (void)parse_model_file(text, "t.toml");
    } catch (const ModelError& e) {
        const std::string what = e.what();
        EXPECT_EQ(what.find('\n'), std::string::npos) << "one line: " << what;
        return what;
    }
    return "";
}

// Amplitudes that refer to one another 10,000 deep are resolved without recursion (issue 21:
// this chain overflowed the stack).
TEST(ModelFile, AChainOfTenThousandProductsReads) {
    constexpr int kDepth = 10'000;
    std::string text = R"(
[model]
intensity = "i"
[parameters]
a = 0.5
[amplitudes]
c = { type = "coupling", re = "a", im = 0 }
p0 = { type = "product", factors = ["c"] }
i = { type = "norm_sqr", amplitude = "p10000" }
)";
    for (int k = 1; k <= kDepth; ++k) {
        text +=
            fmt::format("p{} = {{ type = \"product\", factors = [\"p{}\", \"c\"] }}\n", k, k - 1);
    }
    const ModelFile file = parse_model_file(text, "chain.toml");
    EXPECT_EQ(file.model.parameters().names(), std::vector<std::string>{"a"});
    EXPECT_EQ(file.amplitudes.size(), static_cast<std::size_t>(kDepth + 3));
    EXPECT_GT(expr::node_count(file.model.expression()), static_cast<std::size_t>(kDepth));
}

TEST(ModelFileErrors, TheBaseModelParses) {
    EXPECT_EQ(error_of(kBase), "");
}

struct ErrorCase {
    const char* what;
    std::string from;
    std::string to;
    std::vector<std::string> fragments;  // all in the message
};

TEST(ModelFileErrors, EachErrorIsOneLineWithKeyAndPosition) {
    const std::vector<ErrorCase> cases = {
        {"invalid TOML", "w = 0.1", "w = = 0.1", {"t.toml:5:", "invalid TOML"}},
        {"unknown amplitude key",
         "width = \"w\"",
         "widht = \"w\"",
         {"t.toml:7:", "amplitudes.bw.widht", "unknown key 'widht'", "width"}},
        {"unknown top-level key",
         "[model]",
         "[modle]\nx = 1\n[model]",
         {"t.toml:1:", "modle", "unknown key"}},
        {"wrong type",
         "mass = \"m\"",
         "mass = true",
         {"t.toml:7:", "amplitudes.bw.mass", "expected a number or a parameter name", "a boolean"}},
        {"unknown particle",
         "\"kshort2\"]",
         "\"kshort3\"]",
         {"t.toml:7:", "amplitudes.bw.of", "unknown particle 'kshort3'", "kshort1"}},
        {"unknown parameter",
         "mass = \"m\"",
         "mass = \"m0\"",
         {"t.toml:7:", "amplitudes.bw.mass", "unknown parameter 'm0'", "declared: m, w"}},
        {"unknown amplitude",
         "amplitude = \"bw\"",
         "amplitude = \"bx\"",
         {"t.toml:8:", "amplitudes.i.amplitude", "unknown amplitude 'bx'"}},
        {"unknown type",
         "type = \"breit_wigner\"",
         "type = \"breit_wagner\"",
         {"t.toml:7:", "amplitudes.bw.type", "unknown amplitude type 'breit_wagner'"}},
        {"cycle", "amplitude = \"bw\" }", "amplitude = \"i\" }", {"t.toml:8:", "cycle"}},
        {"complex intensity",
         "intensity = \"i\"",
         "intensity = \"bw\"",
         {"t.toml:2:", "model.intensity", "complex"}},
        {"missing intensity",
         "intensity = \"i\"",
         "name = \"x\"",
         {"t.toml:1:", "model.intensity", "missing"}},
        {"unused parameter",
         "w = 0.1",
         "w = 0.1\nz = 3",
         {"t.toml:6:", "parameters.z", "not used"}},
        {"value outside bounds",
         "value = 1.5",
         "value = 2.5",
         {"t.toml:4:", "parameters.m", "bounds"}},
        {"fixed without value",
         "w = 0.1",
         "w = { fixed = true }",
         {"t.toml:5:", "parameters.w", "needs a value"}},
        {"bad bounds",
         "bounds = [1.0, 2.0]",
         "bounds = [1.0]",
         {"t.toml:4:", "parameters.m.bounds", "two numbers"}},
        {"bad shape",
         "of = [",
         "shape = \"wide\", of = [",
         {"t.toml:7:", "amplitudes.bw.shape", "unknown shape 'wide'"}},
        {"control characters in a key stay escaped (fuzz_model_reader)",
         "w = 0.1",
         "w = 0.1\n\"a\\nb\\u0001\" = 3",
         {"t.toml:6:", "parameters.\"a\\nb\\x01\"", "not used"}},
        {"an empty column name has a position (fuzz_model_reader)",
         "[model]",
         "[reaction]\nbeam = \"\"\n[model]",
         {"t.toml:2:", "reaction.beam", "empty"}},
        {"an empty tag has a position (fuzz_model_reader)",
         "amplitude = \"bw\" }",
         "amplitude = \"bw\", tag = \"\" }",
         {"t.toml:8:", "amplitudes.i.tag", "empty"}},
        {"library check with position",
         "i = { type = \"norm_sqr\", amplitude = \"bw\" }",
         "z = { type = \"ylm\", l = 1, m = 2 }\ni = { type = \"norm_sqr\", amplitude = \"bw\" }",
         {"t.toml:8:", "amplitudes.z"}},
    };
    for (const ErrorCase& c : cases) {
        const std::string message = error_of(replaced(c.from, c.to));
        for (const std::string& fragment : c.fragments) {
            EXPECT_NE(message.find(fragment), std::string::npos)
                << c.what << ": '" << fragment << "' not in: " << message;
        }
    }
}

// toml++ parses dotted keys recursively: a header of 10^5 parts overflowed the stack
// (fuzz_model_reader). Such keys are refused first; dots in strings, numbers and comments and
// keys of a few parts are untouched.
TEST(ModelFileErrors, AKeyOfTooManyDottedPartsIsAnErrorNotAStackOverflow) {
    std::string parts = "amplitudes";
    for (int k = 0; k < 100'000; ++k) {
        parts += ".s";
    }
    const std::string message = error_of(replaced("[amplitudes]", "[" + parts + "]"));
    EXPECT_NE(message.find("t.toml:6:"), std::string::npos) << message;
    EXPECT_NE(message.find("more than 256 dotted parts"), std::string::npos) << message;
    EXPECT_NE(
        error_of(replaced("w = 0.1", "w" + std::string(300, '.') + "x = 0.1")).find("dotted parts"),
        std::string::npos);

    const std::string dots(2000, '.');
    EXPECT_EQ(error_of(replaced("intensity = \"i\"", "intensity = \"i\" # " + dots +
                                                         "\ndescription = \"\"\"" + dots + "\n" +
                                                         dots + "\"\"\"\nname = '" + dots + "'")),
              "");
    EXPECT_EQ(error_of(replaced("[model]", "[model.\"" + dots + "\"]\n[model]")).find("dotted"),
              std::string::npos);
}

TEST(ModelFileErrors, MissingFile) {
    try {
        (void)load_model_file("/nonexistent/model.toml");
        FAIL() << "no error";
    } catch (const ModelError& e) {
        EXPECT_NE(std::string(e.what()).find("cannot open model file '/nonexistent/model.toml'"),
                  std::string::npos);
    }
}

TEST(ModelFile, ChannelTableBuildsTheChannelAndItsProposals) {
    const ModelFile file = load_model_file(kModels + "/ksks_channel.toml");
    ASSERT_TRUE(file.channel);
    const ChannelSpec& spec = *file.channel;
    EXPECT_EQ(spec.channel.name(), "gamma p -> K_S K_S p");
    EXPECT_EQ(spec.channel.edge_names(),
              (std::vector<std::string>{"beam", "target", "X", "proton", "kshort1", "kshort2"}));
    EXPECT_EQ(spec.channel.edges()[1].output, false);
    EXPECT_NEAR(*spec.channel.edges()[5].particle->mass, 0.497611, 1e-6);
    const generation::VertexProposal& production = spec.proposals.vertices.at("production");
    EXPECT_EQ(production.incoming_edge(), "beam");
    EXPECT_EQ(production.distribution().components().size(), 2U);
    EXPECT_EQ(production.distribution().t_min(), -3.0);
    EXPECT_FALSE(production.distribution().t_max());
    EXPECT_EQ(spec.proposals.edges.at("X").mass_proposal->high(), 2.0);
    ASSERT_EQ(spec.scalars.size(), 2U);
    EXPECT_EQ(spec.scalars[0].first, "pol_angle");
    // A file without [channel] has none: generate builds one from [reaction] and [generator].
    EXPECT_FALSE(load_model_file(kModels + "/breit_wigner_zlm.toml").channel);
}

// A channel that reads: each test below changes one piece of it.
const std::string kChannel = kBase + R"(
[channel]
name = "a -> b c"
scalars = { pol_magnitude = { kind = "uniform", min = 0.3, max = 0.4 } }
[[channel.edges]]
name = "a"
mass = 1.0
output = false
initial_momentum = { Momentum = { x = 0.0, y = 0.0, z = 0.0 } }
[[channel.edges]]
name = "b"
particle = "PI_PLUS"
[[channel.edges]]
name = "c"
particle = "PI_MINUS"
[[channel.vertices]]
name = "decay"
incoming = ["a"]
outgoing = ["b", "c"]
)";

// The error of kChannel with each `from` replaced by its `to`.
std::string channel_error(std::initializer_list<std::pair<std::string, std::string>> changes) {
    std::string text = kChannel;
    for (const auto& [from, to] : changes) {
        const std::size_t at = text.find(from);
        EXPECT_NE(at, std::string::npos) << from;
        text.replace(at, from.size(), to);
    }
    return error_of(text);
}

TEST(ModelFileErrors, ChannelErrorsNameTheKeyAndLine) {
    EXPECT_EQ(error_of(kChannel), "");
    const std::string both = channel_error({{"name = \"b\"", "name = \"b\"\nmass = 0.1"}});
    EXPECT_NE(both.find("t.toml:20:8:"), std::string::npos) << both;
    EXPECT_NE(both.find("channel.edges[1].mass: give either particle or mass"), std::string::npos)
        << both;
    const std::string key = channel_error({{"name = \"a\"", "name = \"a\"\nmas = 1.0"}});
    EXPECT_NE(key.find("channel.edges[0].mas: unknown key 'mas'"), std::string::npos) << key;
    const std::string json = channel_error({{"Momentum", "Momenta"}});
    EXPECT_NE(json.find("channel.edges[0].initial_momentum: InitialMomentum JSON is none of"),
              std::string::npos)
        << json;
    const std::string topology =
        channel_error({{"outgoing = [\"b\", \"c\"]", "outgoing = [\"b\"]"}});
    EXPECT_NE(topology.find("t.toml:10:1: channel: "), std::string::npos) << topology;
}

// The channel reader reads through the model reader's getters: a value of the wrong type says
// what it got, wherever in the file it sits.
TEST(ModelFileErrors, ChannelValuesOfTheWrongTypeSayWhatTheyGot) {
    const std::string scalars =
        R"(scalars = { pol_magnitude = { kind = "uniform", min = 0.3, max = 0.4 } })";
    const std::string vertices = "[[channel.vertices]]\nname = \"decay\"\nincoming = [\"a\"]\n"
                                 "outgoing = [\"b\", \"c\"]\n";
    const std::vector<std::tuple<std::string, std::string, std::string>> cases = {
        {"output = false", "output = 0",
         "channel.edges[0].output: expected true or false, got an integer"},
        {"mass = 1.0", "mass = \"heavy\"",
         "channel.edges[0].mass: expected a number, got a string"},
        {"incoming = [\"a\"]", "incoming = []",
         "channel.vertices[0].incoming: expected at least one name"},
        {"incoming = [\"a\"]", "incoming = \"a\"",
         "channel.vertices[0].incoming: expected an array of strings, got a string"},
        {"incoming = [\"a\"]", "",
         "channel.vertices[0].incoming: missing (an array of names is required)"},
        {scalars, "scalars = 1", "channel.scalars: expected a table, got an integer"},
        {"name = \"a -> b c\"", "name = 3", "channel.name: expected a string, got an integer"},
    };
    for (const auto& [from, to, expected] : cases) {
        const std::string error = channel_error({{from, to}});
        EXPECT_NE(error.find(expected), std::string::npos) << from << " -> " << to << ": " << error;
    }
    // The array of tables goes, a number takes its place.
    const std::string error = channel_error({{vertices, ""}, {scalars, "vertices = 1"}});
    EXPECT_NE(error.find("channel.vertices: expected an array, got an integer"), std::string::npos)
        << error;
    EXPECT_EQ(channel_error({{"mass = 1.0", "mass = 1"}}), "");  // an integer mass is a number
}

}  // namespace
}  // namespace laddu::cli
