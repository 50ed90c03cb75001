#include <cmath>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <laddu/base/error.hpp>
#include <laddu/base/random.hpp>
#include <laddu/data/dataset.hpp>

#include "test_util.hpp"

namespace laddu::data {
namespace {

using testing::data_error;

using ::testing::HasSubstr;

Dataset sample(std::size_t n, bool weighted = true) {
    std::vector<double> e(n), px(n), py(n), pz(n), m(n), w(n);
    for (std::size_t i = 0; i < n; ++i) {
        const auto x = static_cast<double>(i);
        e[i] = 10.0 + x;
        px[i] = x;
        py[i] = -x;
        pz[i] = 0.5 * x;
        m[i] = x * x;
        w[i] = 1.0 + 0.25 * x;
    }
    const P4Input p4s[] = {{"beam", e, px, py, pz}};
    const ScalarInput scalars[] = {{"mass", m}};
    return Dataset::from_arrays(std::span<const P4Input>(p4s), scalars,
                                weighted ? std::span<const double>(w) : std::span<const double>());
}

TEST(Dataset, FromComponentArrays) {
    const Dataset d = sample(5);
    EXPECT_EQ(d.size(), 5U);
    EXPECT_EQ(d.p4_names(), (std::vector<std::string>{"beam"}));
    EXPECT_EQ(d.batch().p4_at(0, 3), (std::array<double, 4>{13.0, 3.0, -3.0, 1.5}));
    EXPECT_EQ(d.batch().scalar_at(0, 4), 16.0);
    EXPECT_EQ(d.batch().weight_at(2), 1.5);
    EXPECT_TRUE(d.schema().has_weight());
}

TEST(Dataset, FromRowMajorP4ArraysMatchesComponents) {
    const std::vector<double> values = {10, 0, 0, 0, 11, 1, -1, 0.5, 12, 2, -2, 1};
    const std::vector<double> m = {0, 1, 4};
    const P4ArrayInput p4s[] = {{"beam", values}};
    const ScalarInput scalars[] = {{"mass", m}};
    const Dataset d = Dataset::from_arrays(std::span<const P4ArrayInput>(p4s), scalars);
    const Dataset ref = sample(3, false);
    for (std::size_t c = 0; c < 6; ++c) {
        const auto a = d.batch().column_at(c);
        const auto b = ref.batch().column_at(c);
        EXPECT_TRUE(std::equal(a.begin(), a.end(), b.begin(), b.end())) << c;
    }
    EXPECT_FALSE(d.schema().has_weight());
    EXPECT_EQ(d.sum_weights(), 3.0);
    const std::vector<double> bad = {1, 2, 3};
    const P4ArrayInput bad_p4s[] = {{"beam", bad}};
    EXPECT_THAT(data_error([&] {
                    static_cast<void>(Dataset::from_arrays(std::span<const P4ArrayInput>(bad_p4s),
                                                           std::span<const ScalarInput>()));
                }),
                HasSubstr("(N, 4) array"));
}

TEST(Dataset, LengthMismatchIsAnError) {
    const std::vector<double> a = {1, 2, 3};
    const std::vector<double> b = {1, 2};
    const ScalarInput scalars[] = {{"a", a}, {"b", b}};
    EXPECT_THAT(data_error([&] {
                    static_cast<void>(Dataset::from_arrays(std::span<const P4Input>(), scalars));
                }),
                HasSubstr("column 'b' has 2 events but the first column has 3"));
}

TEST(Dataset, ColumnLookupByEveryNameAndMissingListsAvailable) {
    const Dataset d = sample(4).with_alias("m", "mass");
    EXPECT_EQ(d.column("mass")[2], 4.0);
    EXPECT_EQ(d.column("m")[3], 9.0);
    EXPECT_EQ(d.column("beam_px")[1], 1.0);
    EXPECT_EQ(d.column("weight")[1], 1.25);
    EXPECT_THAT(data_error([&] { static_cast<void>(d.column("nope")); }),
                HasSubstr("no column 'nope' in the events; available columns: [beam_e, beam_px, "
                          "beam_py, beam_pz, mass, weight, m]"));
}

TEST(Dataset, SliceConcatSelect) {
    const Dataset d = sample(10);
    const Dataset s = d.slice(3, 4);
    EXPECT_EQ(s.size(), 4U);
    EXPECT_EQ(s.column("mass")[0], 9.0);
    EXPECT_THAT(data_error([&] { static_cast<void>(d.slice(8, 3)); }), HasSubstr("cannot slice"));
    const Dataset c = s.concat(d.slice(0, 2));
    EXPECT_EQ(c.size(), 6U);
    EXPECT_EQ(c.column("mass")[4], 0.0);
    EXPECT_EQ(c.column("beam_e")[5], 11.0);
    const Dataset odd = d.select([](const EventBatch& b, std::size_t row) {
        return static_cast<int>(b.scalar(0)[row]) % 2 == 1;
    });
    EXPECT_EQ(odd.size(), 5U);
    EXPECT_EQ(odd.column("beam_px")[2], 5.0);
    const Dataset other = sample(2, false);
    EXPECT_THAT(data_error([&] { static_cast<void>(d.concat(other)); }),
                HasSubstr("cannot join batches"));
}

TEST(Dataset, CompensatedSumOfWeights) {
    const std::vector<double> w = {1.0, 1e100, 1.0, -1e100};
    const std::vector<double> x(4, 0.0);
    const ScalarInput scalars[] = {{"x", x}};
    const Dataset d = Dataset::from_arrays(std::span<const P4Input>(), scalars, w);
    double naive = 0.0;
    for (const double v : w) {
        naive += v;
    }
    EXPECT_EQ(naive, 0.0);
    EXPECT_EQ(d.sum_weights(), 2.0);
    EXPECT_EQ(sample(5).sum_weights(), 5.0 + 0.25 * 10.0);
}

// An independent splitmix64 and Poisson(1) inverse CDF for the bootstrap reference.
std::uint64_t reference_splitmix(std::uint64_t x) {
    std::uint64_t z = x + 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

unsigned reference_k(double u) {
    for (unsigned k = 0; k < 50; ++k) {
        double cdf = 0.0;
        for (unsigned j = 0; j <= k; ++j) {
            cdf += std::exp(-1.0 - std::lgamma(static_cast<double>(j) + 1.0));
        }
        if (u <= cdf) {
            return k;
        }
    }
    return 50;
}

TEST(Dataset, BootstrapIsDeterministicAndMatchesTheReferenceGenerator) {
    EXPECT_EQ(splitmix64(0), 0xE220A8397B1DCDAFULL);
    const Dataset d = sample(2000);
    const Dataset a = d.bootstrap(42);
    const Dataset b = d.bootstrap(42);
    const Dataset c = d.bootstrap(43);
    EXPECT_EQ(a.size(), d.size());
    std::size_t differ = 0;
    double mean_k = 0.0;
    for (std::size_t i = 0; i < d.size(); ++i) {
        EXPECT_EQ(a.weights()[i], b.weights()[i]);
        differ += a.weights()[i] != c.weights()[i] ? 1U : 0U;
        const double u = static_cast<double>(reference_splitmix(reference_splitmix(42) ^ i) >> 11) /
                         9007199254740992.0;
        const unsigned k = reference_k(u);
        EXPECT_EQ(bootstrap_multiplicity(42, i), k) << i;
        EXPECT_EQ(a.weights()[i], d.weights()[i] * k);
        mean_k += k;
    }
    EXPECT_GT(differ, 500U);
    EXPECT_NEAR(mean_k / 2000.0, 1.0, 0.08);
    EXPECT_EQ(a.column("mass")[7], d.column("mass")[7]);
}

// Independent replicas: the total multiplicity of N events is Poisson(N), so over many
// consecutive seeds its variance is about N. (laddu's seed ^ index hash gives ~1 for N = 512.)
TEST(Dataset, BootstrapReplicasOfConsecutiveSeedsAreIndependent) {
    constexpr std::uint64_t kEvents = 512;
    constexpr std::uint64_t kSeeds = 400;
    double sum = 0.0;
    double sum_sq = 0.0;
    for (std::uint64_t seed = 0; seed < kSeeds; ++seed) {
        double total = 0.0;
        for (std::uint64_t i = 0; i < kEvents; ++i) {
            total += bootstrap_multiplicity(seed, i);
        }
        sum += total;
        sum_sq += total * total;
    }
    const double mean = sum / kSeeds;
    const double variance = (sum_sq - kSeeds * mean * mean) / (kSeeds - 1);
    EXPECT_NEAR(mean, 512.0, 5.0);
    // The sample variance of 400 draws is within ±25 % of 512 far beyond 3 sigma (sd ≈ 7 %).
    EXPECT_GT(variance, 0.75 * 512.0);
    EXPECT_LT(variance, 1.25 * 512.0);
}

TEST(Dataset, ResampleAndSubsampleAreDeterministic) {
    const Dataset d = sample(500);
    const Dataset r1 = d.resample(7);
    const Dataset r2 = d.resample(7);
    EXPECT_EQ(r1.size(), 500U);
    for (std::size_t i = 0; i < r1.size(); ++i) {
        EXPECT_EQ(r1.column("mass")[i], r2.column("mass")[i]);
        const auto pick = static_cast<std::size_t>(std::floor(counter_uniform(7, i) * 500.0));
        EXPECT_EQ(r1.column("beam_px")[i], static_cast<double>(pick));
    }
    const Dataset s = d.subsample(0.3, 9);
    std::size_t expected = 0;
    for (std::size_t i = 0; i < 500; ++i) {
        expected += counter_uniform(9, i) < 0.3 ? 1U : 0U;
    }
    EXPECT_EQ(s.size(), expected);
    EXPECT_THAT(data_error([&] { static_cast<void>(d.subsample(1.5, 1)); }), HasSubstr("fraction"));
}

// laddu keys each bootstrap and subsample draw on the event's index in the dataset the replica
// operations started from; a selection starts afresh.
TEST(Dataset, ReplicaDrawsAfterASubsampleUseTheOriginalEventIndex) {
    const Dataset d = sample(400);
    const Dataset half = d.subsample(0.5, 8);
    ASSERT_LT(half.size(), 400U);
    std::vector<std::uint64_t> kept;
    for (std::uint64_t i = 0; i < 400; ++i) {
        if (counter_uniform(8, i) < 0.5) {
            kept.push_back(i);
        }
    }
    ASSERT_EQ(half.size(), kept.size());
    const Dataset boot = half.bootstrap(4);
    for (std::size_t row = 0; row < half.size(); ++row) {
        EXPECT_EQ(half.replica_index(row), kept[row]);
        EXPECT_EQ(boot.replica_index(row), kept[row]);
        EXPECT_EQ(boot.weights()[row], half.weights()[row] * bootstrap_multiplicity(4, kept[row]));
    }
    // A second subsample draws on the original indices too; with the same seed it keeps all.
    EXPECT_EQ(half.subsample(0.5, 8).size(), half.size());
    std::size_t expected = 0;
    for (const std::uint64_t i : kept) {
        expected += counter_uniform(9, i) < 0.5 ? 1U : 0U;
    }
    EXPECT_EQ(half.subsample(0.5, 9).size(), expected);
    EXPECT_EQ(boot.subsample(0.5, 9).size(), expected);
    // select, slice and concat start a new dataset: the index is the row again.
    const Dataset selected = half.select([](const EventBatch&, std::size_t) { return true; });
    EXPECT_EQ(selected.replica_index(3), 3U);
    EXPECT_EQ(half.slice(2, 5).replica_index(0), 0U);
    EXPECT_EQ(half.concat(half).replica_index(half.size() + 1), half.size() + 1);
}

TEST(Dataset, BatchesWithChunkSizeAndProjection) {
    const Dataset d = sample(10);
    ReadPlan plan;
    plan.chunk_size = 4;
    plan.columns = {"mass"};
    const std::vector<EventBatch> batches = d.batches(plan);
    ASSERT_EQ(batches.size(), 3U);
    EXPECT_EQ(batches[2].size(), 2U);
    EXPECT_EQ(batches[0].schema().n_p4s(), 0U);
    EXPECT_EQ(batches[1].scalar(0)[0], 16.0);
    EXPECT_EQ(batches[1].weights()[1], 1.0 + 0.25 * 5);
    const Dataset back = Dataset::from_batches(batches);
    EXPECT_EQ(back.size(), 10U);
    EXPECT_EQ(back.column("mass")[9], 81.0);
    plan.chunk_size = 0;
    EXPECT_THAT(data_error([&] { static_cast<void>(d.batches(plan)); }),
                HasSubstr("chunk_size must be positive"));
}

TEST(Dataset, MemorySourceStreamsAndRejectsForeignBatches) {
    const Dataset d = sample(7);
    const auto source = d.source();
    EXPECT_EQ(source->num_events(), 7U);
    const std::vector<EventBatch> all = read_all(*source, ReadPlan{3, {}, {}});
    EXPECT_EQ(all.size(), 3U);
    EXPECT_EQ(Dataset::from_source(*source).column("beam_pz")[6], 3.0);
    EXPECT_THAT(
        data_error([&] { MemorySource(d.batch().schema_ptr(), {sample(2, false).batch()}); }),
        HasSubstr("MemorySource"));
}

TEST(EventBatch, RejectsWrongColumnCountsAndLengths) {
    auto schema = std::make_shared<const Schema>(std::vector<std::string>{},
                                                 std::vector<std::string>{"x"}, false);
    std::vector<AlignedVector<double>> one(1);
    EXPECT_THAT(data_error([&] { EventBatch(schema, one); }), HasSubstr("needs 2 columns"));
    std::vector<AlignedVector<double>> uneven = {AlignedVector<double>(3),
                                                 AlignedVector<double>(2)};
    EXPECT_THAT(data_error([&] { EventBatch(schema, uneven); }),
                HasSubstr("column 'weight' has 2 rows but 'x' has 3"));
}

}  // namespace
}  // namespace laddu::data
