#include <gtest/gtest.h>

#include <laddu/base/error.hpp>
#include <laddu/expr/model.hpp>
#include <laddu/expr/tags.hpp>

namespace laddu::expr {
namespace {

template <typename F>
void expect_model_error(F&& build, const std::string& fragment) {
    try {
        build();
        FAIL() << "expected ModelError containing '" << fragment << "'";
    } catch (const ModelError& e) {
        EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
}

Expr example() {
    const Expr b = parameter("b", {.bounds = Bounds{1.0, 3.0}});
    const Expr a = parameter("a", {.initial = 0.5});
    const Expr c = parameter("c", {.fixed = 2.0});
    return norm_sqr(complex(b * scalar("x"), a) + c) + b;
}

TEST(ParamLayout, CollectsParametersInFirstAppearanceOrder) {
    const Model model(example());
    EXPECT_EQ(model.parameters().names(), (std::vector<std::string>{"b", "a", "c"}));
    EXPECT_EQ(model.parameters().free_names(), (std::vector<std::string>{"b", "a"}));
    EXPECT_EQ(model.parameters().fixed_indices(), (std::vector<std::size_t>{2}));
    EXPECT_EQ(model.parameters().defaults(), (std::vector<double>{2.0, 0.5, 2.0}));
    EXPECT_EQ(model.parameters().free_defaults(), (std::vector<double>{2.0, 0.5}));
    EXPECT_EQ(model.parameters().index_of("a"), 1U);
    EXPECT_EQ(model.parameters().free_index_of("a"), std::optional<std::size_t>(1));
    EXPECT_EQ(model.parameters().free_index_of("c"), std::nullopt);
}

TEST(ParamLayout, UnknownParameterListsKnownNames) {
    const Model model(example());
    expect_model_error([&] { (void)model.parameters().index_of("d"); },
                       "unknown parameter 'd'; known parameters: b, a, c");
    expect_model_error([&] { (void)model.fix("zz", 1.0); }, "unknown parameter 'zz'");
}

TEST(Model, RejectsConflictingParameterDefinitions) {
    const Expr e = parameter("m", {.initial = 1.0}) + parameter("m", {.initial = 2.0});
    expect_model_error(
        [&] { Model m(e); },
        "parameter 'm' has conflicting definitions: m (initial 1) and m (initial 2)");
}

TEST(Model, AcceptsRepeatedIdenticalDefinitions) {
    const Model model(parameter("m") * scalar("x") + parameter("m"));
    EXPECT_EQ(model.parameters().size(), 1U);
}

TEST(Model, RejectsNonScalarIntensity) {
    expect_model_error([] { Model m(vector({scalar("x")})); },
                       "must be a Real or Complex scalar, got Vector(1)");
}

TEST(Model, FixAndFreeReturnNewModels) {
    const Model model(example());
    const Model fixed = model.fix("a", 0.25);
    EXPECT_EQ(fixed.parameters().free_names(), (std::vector<std::string>{"b"}));
    EXPECT_EQ(fixed.parameters().defaults()[1], 0.25);
    EXPECT_EQ(model.parameters().free_names().size(), 2U);  // the original is unchanged
    const Model freed = fixed.free("a").free("c");
    EXPECT_EQ(freed.parameters().free_names(), (std::vector<std::string>{"b", "a", "c"}));
    EXPECT_EQ(freed.parameters().defaults()[2], 2.0);  // starts where it was fixed
    expect_model_error([&] { (void)model.fix("b", 7.0); },
                       "fixed value 7 is outside bounds [1, 3]");
}

TEST(Model, ProjectKeepsTaggedAmplitudes) {
    const Expr a1 = (parameter("c1") * cis(scalar("x"))).tagged("A1");
    const Expr a2 = (parameter("c2") * cis(scalar("y"))).tagged("A2");
    const Model model(norm_sqr(a1 + a2));
    const Model projected = model.project({"A2"});
    EXPECT_EQ(projected.parameters().names(), (std::vector<std::string>{"c2"}));
}

}  // namespace
}  // namespace laddu::expr
