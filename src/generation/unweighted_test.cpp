// generate_unweighted (accept-reject in rounds), write_events (Parquet round trip) and the
// γ p → K_S K_S p toy acceptance.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/base/error.hpp>
#include <laddu/data/parquet.hpp>
#include <laddu/generation/accept_reject.hpp>
#include <laddu/generation/ksks.hpp>
#include <laddu/generation/ksks_acceptance.hpp>
#include <laddu/generation/phase_space.hpp>

namespace laddu::generation {
namespace {

// Candidates: cosθ uniform in [−1, 1), a different counter stream per round.
CandidateSource uniform_costheta() {
    return [](std::uint64_t round, std::size_t size) {
        std::vector<double> c(size);
        for (std::size_t i = 0; i < size; ++i) {
            c[i] = 2.0 * data::counter_uniform(1000 + round, i) - 1.0;
        }
        const std::vector<data::ScalarInput> scalars{{"costheta", c}};
        return data::Dataset::from_scalars(scalars, std::vector<double>(size, 1.0));
    };
}

std::vector<double> one_plus_cos2(const data::Dataset& d) {
    const std::span<const double> c = d.column("costheta");
    std::vector<double> i(c.size());
    for (std::size_t k = 0; k < c.size(); ++k) {
        i[k] = 1.0 + c[k] * c[k];
    }
    return i;
}

std::vector<std::uint64_t> bits(std::span<const double> values) {
    std::vector<std::uint64_t> out;
    for (const double v : values) {
        out.push_back(std::bit_cast<std::uint64_t>(v));
    }
    return out;
}

// Small first pools force several rounds; the kept events still follow 1 + cos²θ:
// ⟨cos²θ⟩ = ∫c²(1+c²) / ∫(1+c²) = (2/3 + 2/5) / (8/3) = 0.4, within 5σ.
TEST(Unweighted, RoundsGiveExactlyTheRequestedEventsWithTheRightDensity) {
    constexpr std::size_t kEvents = 40000;
    const data::Dataset d = generate_unweighted(kEvents, uniform_costheta(), one_plus_cos2,
                                                {.seed = 3, .first_pool = 5000, .max_pool = 20000});
    ASSERT_EQ(d.size(), kEvents);
    double sum = 0.0;
    double sum2 = 0.0;
    for (const double c : d.column("costheta")) {
        sum += c * c;
        sum2 += c * c * c * c;
    }
    const double mean = sum / kEvents;
    const double variance = sum2 / kEvents - mean * mean;
    EXPECT_NEAR(mean, 0.4, 5.0 * std::sqrt(variance / kEvents));
}

TEST(Unweighted, TheSameSeedGivesTheSameEventsAndAnotherSeedOthers) {
    const UnweightedOptions options{.seed = 8, .first_pool = 300};
    const data::Dataset a = generate_unweighted(1000, uniform_costheta(), one_plus_cos2, options);
    const data::Dataset b = generate_unweighted(1000, uniform_costheta(), one_plus_cos2, options);
    EXPECT_EQ(bits(a.column("costheta")), bits(b.column("costheta")));
    const data::Dataset c = generate_unweighted(1000, uniform_costheta(), one_plus_cos2,
                                                {.seed = 9, .first_pool = 300});
    EXPECT_NE(bits(a.column("costheta")), bits(c.column("costheta")));
}

TEST(Unweighted, ErrorsNameTheProblem) {
    // Positive at one candidate per pool only: one event kept per round.
    const auto nearly_zero = [](const data::Dataset& d) {
        std::vector<double> values(d.size(), 0.0);
        values.at(0) = 1.0;
        return values;
    };
    try {
        (void)generate_unweighted(10, uniform_costheta(), nearly_zero, {.max_rounds = 3});
        FAIL() << "expected ModelError";
    } catch (const ModelError& e) {
        EXPECT_NE(std::string(e.what()).find("kept 3 of 10 requested events in 3 rounds"),
                  std::string::npos)
            << e.what();
    }
    EXPECT_THROW((void)generate_unweighted(0, uniform_costheta(), one_plus_cos2), ModelError);
    EXPECT_THROW((void)generate_unweighted(5, {}, one_plus_cos2), ModelError);
    const auto negative = [](const data::Dataset& d) {
        return std::vector<double>(d.size(), -1.0);
    };
    EXPECT_THROW((void)generate_unweighted(5, uniform_costheta(), negative), EvaluationError);
}

// An intensity that is zero everywhere fails after the first pool, not after max_rounds pools
// (issue 21: `generate` ran 152 s and took 1.3 GB before giving up).
TEST(Unweighted, AnIntensityZeroEverywhereFailsAfterTheFirstPool) {
    std::size_t pools = 0;
    const CandidateSource counted = [&pools](std::uint64_t round, std::size_t size) {
        ++pools;
        return uniform_costheta()(round, size);
    };
    const auto zero = [](const data::Dataset& d) {
        return std::vector<double>(d.size(), 0.0);
    };
    try {
        (void)generate_unweighted(1000, counted, zero, {.seed = 1});
        FAIL() << "expected EvaluationError";
    } catch (const EvaluationError& e) {
        EXPECT_NE(std::string(e.what()).find("the intensity is zero at all 8001 candidate events "
                                             "of round 1: it is zero everywhere in the sampled "
                                             "phase space"),
                  std::string::npos)
            << e.what();
    }
    EXPECT_EQ(pools, 1U);
}

// Generated events written with write_events and read back with data::read_parquet are the
// same bit for bit: every four-momentum component, scalar and weight.
TEST(WriteEvents, AGeneratedSampleRoundTripsThroughParquetBitForBit) {
    const data::Dataset events = accepted_ksks(3000, {.kk_mass_max = 2.0, .seed = 21}, 22);
    ASSERT_GT(events.size(), 1000U);
    const std::filesystem::path dir = std::filesystem::temp_directory_path() / "laddu_gen_test";
    std::filesystem::create_directories(dir);
    const std::string path = (dir / "ksks.parquet").string();
    write_events(events, path);
    const data::Dataset back = data::read_parquet(path);
    ASSERT_EQ(back.size(), events.size());
    // The reader infers the four-momenta from the column names (in its own order).
    const auto sorted = [](std::vector<std::string> names) {
        std::sort(names.begin(), names.end());
        return names;
    };
    EXPECT_EQ(sorted(back.p4_names()), sorted(events.p4_names()));
    EXPECT_EQ(sorted(back.scalar_names()), sorted(events.scalar_names()));
    std::size_t compared = 0;
    for (const std::string& p4 : events.p4_names()) {
        for (const char* part : {"_e", "_px", "_py", "_pz"}) {
            EXPECT_EQ(bits(back.column(p4 + part)), bits(events.column(p4 + part))) << p4 << part;
            ++compared;
        }
    }
    for (const std::string& scalar : events.scalar_names()) {
        EXPECT_EQ(bits(back.column(scalar)), bits(events.column(scalar))) << scalar;
        ++compared;
    }
    EXPECT_EQ(bits(back.weights()), bits(events.weights()));
    EXPECT_EQ(compared, 18U);
    std::filesystem::remove_all(dir);
    EXPECT_THROW(write_events(events, (dir / "missing" / "x.parquet").string()), DataError);
}

// The helicity angle by the long way round: lab → CM → K_S K_S rest frame, z = −proton.
double helicity_costheta(const data::Dataset& d, std::size_t i) {
    const auto p4 = [&](const std::string& name) {
        return FourMomentum{d.column(name + "_e")[i], d.column(name + "_px")[i],
                            d.column(name + "_py")[i], d.column(name + "_pz")[i]};
    };
    const FourMomentum cm = p4("proton") + p4("kshort1") + p4("kshort2");
    const auto to_rest = [](const FourMomentum& p, const FourMomentum& frame) {
        return boost(p, -frame.px / frame.e, -frame.py / frame.e, -frame.pz / frame.e);
    };
    const FourMomentum k1 = to_rest(p4("kshort1"), cm);
    const FourMomentum kk = k1 + to_rest(p4("kshort2"), cm);
    const FourMomentum proton = to_rest(p4("proton"), cm);
    const FourMomentum k1_kk = to_rest(k1, kk);
    const FourMomentum p_kk = to_rest(proton, kk);
    const double dot = -(k1_kk.px * p_kk.px + k1_kk.py * p_kk.py + k1_kk.pz * p_kk.pz);
    return dot / (std::hypot(k1_kk.px, k1_kk.py, k1_kk.pz) * std::hypot(p_kk.px, p_kk.py, p_kk.pz));
}

TEST(ToyAcceptance, KinematicsEfficiencyAndTheAcceptedFraction) {
    const data::Dataset flat = generate_ksks(4000, {.kk_mass_max = 2.0, .seed = 5});
    const KsKsKinematics k = ksks_kinematics(flat);
    ASSERT_EQ(k.m_kk.size(), flat.size());
    const double threshold = 2.0 * KsKsOptions{}.kaon_mass;
    for (std::size_t i = 0; i < flat.size(); i += 37) {
        EXPECT_NEAR(k.costheta[i], helicity_costheta(flat, i), 1e-9) << i;
        EXPECT_GE(k.m_kk[i], threshold - 1e-9);
        EXPECT_LE(k.m_kk[i], 2.0 + 1e-9);
    }
    const std::vector<double> eff = ksks_toy_efficiency(k, 2.0);
    double mean = 0.0;
    for (std::size_t i = 0; i < eff.size(); ++i) {
        const double x = std::clamp((k.m_kk[i] - threshold) / (2.0 - threshold), 0.0, 1.0);
        EXPECT_DOUBLE_EQ(eff[i], (1.0 - 0.5 * x) * (1.0 - 0.35 * k.costheta[i] * k.costheta[i]));
        EXPECT_GT(eff[i], 0.0);
        EXPECT_LE(eff[i], 1.0);
        mean += eff[i] / static_cast<double>(eff.size());
    }
    // The accepted count is binomial with the mean efficiency: within 5σ.
    const data::Dataset kept = apply_ksks_toy_acceptance(flat, 2.0, 6);
    const double n = static_cast<double>(flat.size());
    EXPECT_NEAR(static_cast<double>(kept.size()), mean * n, 5.0 * std::sqrt(n * mean * (1 - mean)));
    const data::Dataset same = accepted_ksks(4000, {.kk_mass_max = 2.0, .seed = 5}, 6);
    EXPECT_EQ(bits(same.column("kshort1_px")), bits(kept.column("kshort1_px")));

    EXPECT_THROW((void)ksks_toy_efficiency(k, 0.9), ModelError);
    EXPECT_THROW((void)accepted_ksks(10, {.seed = 1}, 2), ModelError);
}

}  // namespace
}  // namespace laddu::generation
