// Histogram against laddu 0.21.4's own unit tests (laddu-physics/src/histogram.rs), and
// HistogramNd against hand-counted grids.
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <laddu/base/error.hpp>
#include <laddu/data/histogram.hpp>

#include "test_util.hpp"

namespace laddu::data {
namespace {

using testing::data_error;

using ::testing::DoubleNear;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(Histogram, FromCountsDefaultsErrorsToSqrtAbsCount) {
    const Histogram h({4.0, -9.0}, {0.0, 1.0, 2.0}, 3.0, 4.0);
    EXPECT_THAT(h.errors(), ElementsAre(2.0, 3.0));
    EXPECT_EQ(h.underflow(), 3.0);
    EXPECT_EQ(h.overflow(), 4.0);
    EXPECT_EQ(h.bins(), 2U);
    EXPECT_EQ(h.limits(), std::make_pair(0.0, 2.0));
    EXPECT_EQ(h.total_weight(), -5.0);
    EXPECT_EQ(h.total_weight(true), 2.0);
}

TEST(Histogram, RejectsInvalidGeometryAndValues) {
    EXPECT_THAT(data_error([] { Histogram({1.0}, {0.0}); }), HasSubstr("at least 2 edges"));
    EXPECT_THAT(data_error([] { Histogram({1.0, 2.0}, {0.0, 1.0}); }),
                HasSubstr("one more bin edge than counts"));
    EXPECT_THAT(data_error([] { Histogram({1.0, 2.0}, {0.0, 1.0, 1.0}); }),
                HasSubstr("strictly increasing"));
    EXPECT_THAT(data_error([] { Histogram({1.0}, {0.0, kNan}); }), HasSubstr("must be finite"));
    EXPECT_THAT(data_error([] { Histogram({kInf}, {0.0, 1.0}); }), HasSubstr("count 0"));
    EXPECT_THAT(data_error([] { Histogram({1.0}, {0.0, 1.0}, kNan); }), HasSubstr("underflow"));
    EXPECT_THAT(data_error([] { (void)Histogram::uniform(0, 0.0, 1.0); }), HasSubstr("bins"));
    EXPECT_THAT(data_error([] { (void)Histogram::uniform(2, 1.0, 1.0); }),
                HasSubstr("greater than the lower"));
    EXPECT_THAT(data_error([] { (void)Histogram::uniform(2, 0.0, kInf); }), HasSubstr("finite"));
    EXPECT_THAT(data_error([] { (void)Histogram::uniform(std::size_t{1} << 40, 0.0, 1.0); }),
                HasSubstr("use fewer bins"));
}

TEST(Histogram, FromValuesRoutesFlowAndWeights) {
    const std::vector<double> values{-0.1, 0.0, 0.25, 0.5, 0.75, 1.0};
    const std::vector<double> weights{10.0, 1.0, 2.0, 1.0, 2.0, 20.0};
    const Histogram h = Histogram::from_values(values, 2, 0.0, 1.0, weights);
    EXPECT_THAT(h.counts(), ElementsAre(3.0, 3.0));
    EXPECT_EQ(h.underflow(), 10.0);
    EXPECT_EQ(h.overflow(), 20.0);
    EXPECT_EQ(h.total_weight(true), 36.0);
    EXPECT_DOUBLE_EQ(h.errors()[0], std::sqrt(5.0));

    const Histogram e = Histogram::from_values_with_edges(
        std::vector<double>{-0.1, 0.0, 0.05, 0.1, 0.39, 0.4, 0.99, 1.0}, {0.0, 0.1, 0.4, 1.0});
    EXPECT_THAT(e.counts(), ElementsAre(2.0, 2.0, 2.0));
    EXPECT_EQ(e.underflow(), 1.0);
    EXPECT_EQ(e.overflow(), 1.0);

    const std::vector<double> one{1.0};
    EXPECT_THAT(data_error([&] {
                    (void)Histogram::from_values(std::vector<double>{0.1, 0.2}, 2, 0.0, 1.0, one);
                }),
                HasSubstr("one entry per value"));
    EXPECT_THAT(
        data_error([] { (void)Histogram::from_values(std::vector<double>{kNan}, 2, 0.0, 1.0); }),
        HasSubstr("fill value"));
}

TEST(Histogram, FillUncertaintiesAddInQuadrature) {
    Histogram h = Histogram::uniform(1, 0.0, 1.0);
    h.fill(0.5, 3.0);
    h.fill(0.5, -4.0);
    EXPECT_THAT(h.counts(), ElementsAre(-1.0));
    EXPECT_THAT(h.errors(), ElementsAre(5.0));

    Histogram g = Histogram::uniform(1, 0.0, 1.0);
    g.fill(0.5, 10.0, 3.0);
    g.fill(0.5, 20.0, 4.0);
    EXPECT_THAT(g.counts(), ElementsAre(30.0));
    EXPECT_THAT(g.errors(), ElementsAre(5.0));
    EXPECT_THAT(data_error([&] { g.fill(0.5, 1.0, -1.0); }), HasSubstr("fill error"));
    EXPECT_THAT(data_error([&] { g.fill(kInf); }), HasSubstr("fill value"));
    EXPECT_THAT(data_error([&] { g.fill(0.5, kNan); }), HasSubstr("fill weight"));
}

TEST(Histogram, SettersValidateAndSetBinIsAtomic) {
    Histogram h = Histogram::uniform(2, 0.0, 1.0);
    h.set_counts(std::vector<double>{2.0, -3.0});
    h.set_errors(std::vector<double>{0.5, 1.5});
    h.set_bin(1, 4.0, std::nullopt);
    h.set_bin(0, std::nullopt, 0.25);
    EXPECT_THAT(h.counts(), ElementsAre(2.0, 4.0));
    EXPECT_THAT(h.errors(), ElementsAre(0.25, 1.5));
    EXPECT_THAT(data_error([&] { h.set_counts(std::vector<double>{1.0}); }),
                HasSubstr("number of bins"));
    EXPECT_THAT(data_error([&] { h.set_errors(std::vector<double>{1.0, -1.0}); }),
                HasSubstr("error 1"));
    EXPECT_THAT(data_error([&] { h.set_bin(2, 1.0, std::nullopt); }), HasSubstr("less than 2"));
    EXPECT_THAT(data_error([&] { h.set_bin(0, 7.0, -1.0); }), HasSubstr("bin error"));
    EXPECT_THAT(h.counts(), ElementsAre(2.0, 4.0));  // the failed set_bin changed nothing
}

TEST(Histogram, BinIndexIsLowerInclusiveAndLastEdgeIsOverflow) {
    const Histogram h = Histogram::uniform(4, 0.0, 1.0);
    EXPECT_EQ(h.bin_index(-0.1), std::nullopt);
    EXPECT_EQ(h.bin_index(0.0), 0U);
    EXPECT_EQ(h.bin_index(0.249), 0U);
    EXPECT_EQ(h.bin_index(0.25), 1U);
    EXPECT_EQ(h.bin_index(0.999), 3U);
    EXPECT_EQ(h.bin_index(1.0), std::nullopt);
    EXPECT_EQ(h.bin_index(kNan), std::nullopt);
    EXPECT_EQ(h.bin_center(3), 0.875);
    EXPECT_EQ(h.bin_center(4), std::nullopt);
}

TEST(Histogram, NormalizedAndDensityScaleCountsAndErrors) {
    Histogram h({2.0, 6.0}, {0.0, 1.0, 3.0}, 4.0, 8.0);
    h.set_errors(std::vector<double>{1.0, 3.0});
    const Histogram n = h.normalized();
    EXPECT_THAT(n.counts(), ElementsAre(0.25, 0.75));
    EXPECT_THAT(n.errors(), ElementsAre(0.125, 0.375));
    EXPECT_EQ(n.underflow(), 0.0);
    const Histogram f = h.normalized(true);
    EXPECT_THAT(f.counts(), ElementsAre(DoubleNear(0.1, 1e-15), DoubleNear(0.3, 1e-15)));
    EXPECT_DOUBLE_EQ(f.underflow(), 0.2);
    EXPECT_DOUBLE_EQ(f.total_weight(true), 1.0);
    const Histogram d = h.density();
    EXPECT_THAT(d.counts(), ElementsAre(0.25, 0.375));
    EXPECT_THAT(d.errors(), ElementsAre(0.125, 0.1875));
    EXPECT_EQ(d.overflow(), 0.0);

    EXPECT_THAT(data_error([] { (void)Histogram({0.0}, {0.0, 1.0}, 1.0, 1.0).normalized(); }),
                HasSubstr("must be positive"));
    const Histogram negative({-1.0, 3.0}, {0.0, 1.0, 2.0});
    EXPECT_THAT(data_error([&] { (void)negative.density(); }), HasSubstr("signed=True"));
    EXPECT_THAT(negative.density(true).counts(), ElementsAre(-0.5, 1.5));
    EXPECT_THAT(data_error([] { (void)Histogram({1.0}, {0.0, 1.0}, -1.0).density(); }),
                HasSubstr("flow is negative"));
}

TEST(Histogram, JsonRoundTripsInLadduFormat) {
    const std::vector<double> values{0.1, 0.5, 0.7, -1.0, 3.0};
    const std::vector<double> weights{1.0, 2.0, 0.1, 4.0, 5.0};
    const Histogram h = Histogram::from_values(values, 2, 0.0, 1.0, weights);
    EXPECT_EQ(h.to_json(),
              R"({"counts":[1.0,2.1],"bin_edges":[0.0,0.5,1.0],"underflow":4.0,"overflow":5.0,)"
              R"("errors":[1.0,2.0024984394500787]})");
    const Histogram back = Histogram::from_json(h.to_json());
    EXPECT_EQ(back.counts(), h.counts());
    EXPECT_EQ(back.errors(), h.errors());
    EXPECT_THAT(data_error([] { (void)Histogram::from_json("{"); }), HasSubstr("malformed"));
    EXPECT_THAT(data_error([] { (void)Histogram::from_json(R"({"counts":[1]})"); }),
                HasSubstr("no field"));
    EXPECT_THAT(data_error([] {
                    (void)Histogram::from_json(
                        R"({"counts":[1],"bin_edges":[0,1,2],"underflow":0,"overflow":0,)"
                        R"("errors":[1]})");
                }),
                HasSubstr("one more bin edge"));
}

TEST(HistogramNd, FillsRowMajorWithFlowAndSumW2Errors) {
    HistogramNd h({{0.0, 1.0, 2.0}, {0.0, 1.0, 2.0, 3.0}});
    EXPECT_THAT(h.shape(), ElementsAre(2U, 3U));
    h.fill(std::vector<double>{0.5, 2.5}, 2.0);  // bin (0, 2) -> 2
    h.fill(std::vector<double>{1.5, 0.0}, 3.0);  // bin (1, 0) -> 3
    h.fill(std::vector<double>{1.5, 0.5}, 4.0);  // bin (1, 0) -> 3
    h.fill(std::vector<double>{2.0, 0.5}, 7.0);  // last edge: outside
    h.fill(std::vector<double>{0.5, -1.0});      // below: outside
    EXPECT_THAT(h.counts(), ElementsAre(0.0, 0.0, 2.0, 7.0, 0.0, 0.0));
    EXPECT_THAT(h.errors(), ElementsAre(0.0, 0.0, 2.0, 5.0, 0.0, 0.0));
    EXPECT_EQ(h.outside(), 8.0);
    EXPECT_EQ(h.total_weight(), 9.0);
    EXPECT_EQ(h.total_weight(true), 17.0);
    EXPECT_EQ(h.bin_index(std::vector<double>{1.0, 1.0}), 4U);
    EXPECT_EQ(h.bin_index(std::vector<double>{kNan, 1.0}), std::nullopt);
    EXPECT_THAT(data_error([&] { h.fill(std::vector<double>{kNan, 1.0}); }),
                HasSubstr("fill value"));
    EXPECT_THAT(data_error([&] { h.fill(std::vector<double>{1.0}); }), HasSubstr("coordinates"));
}

TEST(HistogramNd, DensityDividesByTotalAndVolume) {
    const std::vector<double> x{0.5, 1.5, 1.5, 9.0};
    const std::vector<double> y{0.5, 0.5, 2.0, 0.5};
    const HistogramNd h = HistogramNd::from_values({x, y}, {{0.0, 1.0, 3.0}, {0.0, 1.0, 4.0}});
    EXPECT_THAT(h.bin_volumes(), ElementsAre(1.0, 3.0, 2.0, 6.0));
    const HistogramNd d = h.density();
    double integral = 0.0;
    for (std::size_t i = 0; i < d.counts().size(); ++i) {
        integral += d.counts()[i] * h.bin_volumes()[i];
    }
    EXPECT_DOUBLE_EQ(integral, 1.0);
    EXPECT_DOUBLE_EQ(d.counts()[0], 1.0 / 3.0);
    EXPECT_DOUBLE_EQ(d.errors()[0], 1.0 / 3.0);
    EXPECT_EQ(d.outside(), 0.0);
    EXPECT_THAT(data_error([] { HistogramNd({}); }), HasSubstr("at least one axis"));
    EXPECT_THAT(data_error([] { HistogramNd({{0.0, 1.0}, {1.0, 0.0}}); }),
                HasSubstr("axis 1 edges must be strictly increasing"));
    EXPECT_THAT(data_error([&] { (void)HistogramNd::from_values({x}, {{0.0, 1.0}, {0.0, 1.0}}); }),
                HasSubstr("one column per axis"));
    EXPECT_THAT(data_error([] { (void)HistogramNd({{0.0, 1.0}}).density(); }),
                HasSubstr("must be positive"));
}

}  // namespace
}  // namespace laddu::data
