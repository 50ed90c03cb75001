#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <laddu/base/error.hpp>
#include <laddu/data/schema.hpp>

#include "test_util.hpp"

namespace laddu::data {
namespace {

using testing::data_error;

using ::testing::HasSubstr;

std::vector<ColumnInfo> columns(std::initializer_list<std::pair<const char*, ColumnType>> list) {
    std::vector<ColumnInfo> out;
    for (const auto& [name, type] : list) {
        out.push_back({name, type});
    }
    return out;
}

TEST(Schema, InfersP4GroupsInAnyOrderAndCase) {
    const auto cols = columns({{"proton_pz", ColumnType::kFloat32},
                               {"beam_Px", ColumnType::kFloat64},
                               {"pol_angle", ColumnType::kFloat32},
                               {"beam_E", ColumnType::kFloat64},
                               {"proton_e", ColumnType::kFloat32},
                               {"beam_PY", ColumnType::kFloat64},
                               {"proton_px", ColumnType::kFloat32},
                               {"beam_pz", ColumnType::kFloat64},
                               {"proton_py", ColumnType::kFloat32},
                               {"run", ColumnType::kInt64},
                               {"label", ColumnType::kOther},
                               {"weight", ColumnType::kFloat32}});
    const Schema s = Schema::infer(cols);
    EXPECT_EQ(s.p4_names(), (std::vector<std::string>{"beam", "proton"}));
    EXPECT_EQ(s.scalar_names(), (std::vector<std::string>{"pol_angle"}));
    EXPECT_TRUE(s.has_weight());
    EXPECT_EQ(s.p4_columns(0),
              (std::array<std::string, 4>{"beam_E", "beam_Px", "beam_PY", "beam_pz"}));
    EXPECT_EQ(
        s.physical_columns(),
        (std::vector<std::string>{"beam_E", "beam_Px", "beam_PY", "beam_pz", "proton_e",
                                  "proton_px", "proton_py", "proton_pz", "pol_angle", "weight"}));
    EXPECT_EQ(s.batch_column_names()[1], "beam_px");
    EXPECT_EQ(s.n_batch_columns(), 10U);
}

TEST(Schema, SortsP4sLikeLadduAndKeepsScalarFileOrder) {
    std::vector<ColumnInfo> cols;
    for (const char* p : {"proton", "kshort2", "beam", "kshort1"}) {
        for (const char* suffix : {"_px", "_py", "_pz", "_e"}) {
            cols.push_back({std::string(p) + suffix, ColumnType::kFloat32});
        }
    }
    cols.push_back({"pol_magnitude", ColumnType::kFloat32});
    cols.push_back({"pol_angle", ColumnType::kFloat32});
    const Schema s = Schema::infer(cols);
    EXPECT_EQ(s.p4_names(), (std::vector<std::string>{"beam", "kshort1", "kshort2", "proton"}));
    EXPECT_EQ(s.scalar_names(), (std::vector<std::string>{"pol_magnitude", "pol_angle"}));
    EXPECT_FALSE(s.has_weight());
}

TEST(Schema, IncompleteGroupsBecomeScalarsOrAreDropped) {
    const auto cols = columns({{"k_px", ColumnType::kFloat64},
                               {"x", ColumnType::kFloat64},
                               {"k_e", ColumnType::kFloat64}});
    EXPECT_EQ(Schema::infer(cols).scalar_names(), (std::vector<std::string>{"x", "k_e", "k_px"}));
    SchemaInferenceOptions options;
    options.incomplete_p4_components_are_scalars = false;
    EXPECT_EQ(Schema::infer(cols, options).scalar_names(), (std::vector<std::string>{"x"}));
}

TEST(Schema, IntegerColumnsAreScalarsOnlyWhenAsked) {
    const auto cols = columns({{"run", ColumnType::kInt32}, {"x", ColumnType::kFloat32}});
    EXPECT_EQ(Schema::infer(cols).n_scalars(), 1U);
    SchemaInferenceOptions options;
    options.integer_columns_are_scalars = true;
    EXPECT_EQ(Schema::infer(cols, options).scalar_names(), (std::vector<std::string>{"run", "x"}));
}

TEST(Schema, AmbiguousComponentsAreRejected) {
    const auto cols = columns({{"beam_e", ColumnType::kFloat64}, {"beam_E", ColumnType::kFloat64}});
    EXPECT_THAT(data_error([&] { static_cast<void>(Schema::infer(cols)); }),
                HasSubstr("'beam_e' and 'beam_E' both name component _e of four-momentum"));
}

TEST(Schema, WeightMatchesCaseInsensitivelyWhenUnique) {
    const Schema s = Schema::infer(columns({{"Weight", ColumnType::kFloat64}}));
    EXPECT_TRUE(s.has_weight());
    EXPECT_EQ(s.weight_column(), "Weight");
    const Schema exact = Schema::infer(
        columns({{"Weight", ColumnType::kFloat64}, {"weight", ColumnType::kFloat64}}));
    EXPECT_EQ(exact.weight_column(), "weight");
    EXPECT_EQ(exact.scalar_names(), (std::vector<std::string>{"Weight"}));
    EXPECT_THAT(data_error([] {
                    static_cast<void>(Schema::infer(columns(
                        {{"WEIGHT", ColumnType::kFloat64}, {"Weight", ColumnType::kFloat64}})));
                }),
                HasSubstr("could each be the weight column"));
}

TEST(Schema, RequireWeight) {
    SchemaInferenceOptions options;
    options.require_weight = true;
    EXPECT_THAT(data_error([&] {
                    static_cast<void>(
                        Schema::infer(columns({{"x", ColumnType::kFloat64}}), options));
                }),
                HasSubstr("weight column 'weight' is missing"));
}

TEST(Schema, RejectsDuplicateAndEmptyNames) {
    EXPECT_THAT(data_error([] { Schema({"p", "p"}, {}, false); }),
                HasSubstr("duplicate p4 column 'p'"));
    EXPECT_THAT(data_error([] { Schema({}, {"m", "m"}, false); }),
                HasSubstr("duplicate scalar column 'm'"));
    EXPECT_THAT(data_error([] { Schema({""}, {}, false); }), HasSubstr("empty p4 name"));
}

TEST(Schema, LookupsAndMissingNamesListWhatExists) {
    const Schema s({"beam", "recoil"}, {"mass", "costheta"}, true);
    EXPECT_EQ(s.require_p4("recoil"), 1U);
    EXPECT_EQ(s.require_scalar("costheta"), 1U);
    EXPECT_FALSE(s.p4_index("mass").has_value());
    EXPECT_THAT(data_error([&] { static_cast<void>(s.require_p4("gamma")); }),
                HasSubstr("four-momentum 'gamma' is not in the data; available p4s: [beam, "
                          "recoil]"));
    EXPECT_THAT(data_error([&] { static_cast<void>(s.require_scalar("t")); }),
                HasSubstr("available scalars: [mass, costheta]"));
}

TEST(Schema, Aliases) {
    Schema s({"beam"}, {"mass"}, false);
    s.add_alias("gamma", "beam");
    s.add_alias("m", "mass");
    EXPECT_EQ(s.p4_index("gamma"), 0U);
    EXPECT_EQ(s.scalar_index("m"), 0U);
    EXPECT_FALSE(s.scalar_index("gamma").has_value());
    EXPECT_THAT(data_error([&] { s.add_alias("beam", "mass"); }), HasSubstr("already used"));
    EXPECT_THAT(data_error([&] { s.add_alias("x", "nothing"); }), HasSubstr("no such column"));
}

TEST(Schema, ProjectKeepsSchemaOrderAndAliases) {
    Schema s({"a", "b", "c"}, {"x", "y"}, true);
    s.add_alias("bee", "b");
    const std::vector<std::string> names = {"y", "c", "bee"};
    const Schema p = s.project(names);
    EXPECT_EQ(p.p4_names(), (std::vector<std::string>{"b", "c"}));
    EXPECT_EQ(p.scalar_names(), (std::vector<std::string>{"y"}));
    EXPECT_TRUE(p.has_weight());
    EXPECT_EQ(p.p4_index("bee"), 0U);
    const std::vector<std::string> bad = {"zz"};
    EXPECT_THAT(data_error([&] { static_cast<void>(s.project(bad)); }),
                HasSubstr("cannot read column 'zz'"));
    EXPECT_EQ(s.project({}), s);
}

TEST(Schema, TypeNames) {
    EXPECT_EQ(column_type_name(ColumnType::kFloat32), "float32");
    EXPECT_EQ(column_type_name(ColumnType::kInt64), "int64");
    EXPECT_TRUE(is_float(ColumnType::kFloat64));
    EXPECT_FALSE(is_float(ColumnType::kInt32));
    EXPECT_FALSE(is_numeric(ColumnType::kOther));
}

}  // namespace
}  // namespace laddu::data
