// Kernel::reduce against sums computed here from the device's own per-event outputs (run()):
// the lane pairs are recomputed with a scalar TwoSum per lane and with laddu::LaneSum, and must
// agree bit for bit, for every term, with and without gradient sums, at every work-group size.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/base/accurate_sum.hpp>
#include <laddu/base/error.hpp>
#include <laddu/base/log_positive.hpp>
#include <laddu/gpu/gpu.hpp>
#include <laddu/ir/builder.hpp>

#include "reference/random_program.hpp"
#include "scoped_env.hpp"

namespace laddu::gpu {
namespace {

using ir::OpCode;
using ir::ValueId;
using ir::ValueKind;

#define REQUIRE_FP64_DEVICE()                                                                      \
    if (devices().empty() || !devices()[0].fp64) {                                                 \
        GTEST_SKIP() << "no OpenCL device with doubles (install pocl-opencl-icd)";                 \
    }

// out0 = |p0 y + x|² + p1² + 1/4 (positive), out1 = Re(p0 y) x, out2 = x p1 (Real, the
// "gradient" columns), out3 = p0 y + x (Complex, not summable as a gradient).
ir::Program test_program() {
    ir::Builder b;
    const ValueId x = b.load(b.add_input("x", ValueKind::kReal));
    const ValueId y = b.load(b.add_input("y", ValueKind::kComplex));
    const ValueId p0 = b.param(0);
    const ValueId p1 = b.param(1);
    const ValueId z = b.binary(OpCode::kAdd, b.binary(OpCode::kMul, p0, y), x);
    const ValueId v = b.binary(
        OpCode::kAdd,
        b.binary(OpCode::kAdd, b.unary(OpCode::kNormSqr, z), b.binary(OpCode::kMul, p1, p1)),
        b.const_real(0.25));
    b.add_output(v);
    b.add_output(b.binary(OpCode::kMul, b.unary(OpCode::kReal, b.binary(OpCode::kMul, p0, y)), x));
    b.add_output(b.binary(OpCode::kMul, x, p1));
    b.add_output(z);
    return b.finish();
}

struct Data {
    std::size_t events = 0;
    std::vector<double> x, y_re, y_im, weights;
    std::vector<ir::InputColumn> columns;

    [[nodiscard]] ir::ColumnView view() const { return {columns, events}; }
};

Data random_data(std::size_t events, std::uint64_t seed) {
    testing::Random random(seed);
    Data d;
    d.events = events;
    for (std::size_t i = 0; i < events; ++i) {
        d.x.push_back(random.uniform(-2.0, 2.0));
        d.y_re.push_back(random.uniform(-1.0, 1.0));
        d.y_im.push_back(random.uniform(-1.0, 1.0));
        d.weights.push_back(random.uniform(-0.5, 1.5));
    }
    d.columns = {{d.x.data(), nullptr}, {d.y_re.data(), d.y_im.data()}};
    return d;
}

const std::vector<double> kParams = {0.7, -1.3};
const std::vector<double> kOne = {1.0};

// Kernel::reduce's lanes and flags for events [begin, begin + count).
struct Lanes {
    std::vector<double> lanes;
    std::vector<std::uint8_t> bad;
};

Lanes device_lanes(const Kernel& kernel, const Data& d, std::size_t begin, std::size_t count,
                   const Reduction& reduction, std::size_t work_group_size = 0) {
    const std::size_t chunks = (count + reduction.chunk_events - 1) / reduction.chunk_events;
    Lanes out;
    out.lanes.assign(chunks * reduction.sums * 2 * kSumLanes, -1.0);
    out.bad.assign(chunks, 7);
    kernel.reduce(kParams, d.view(), d.weights, begin, count, reduction, out.lanes, out.bad,
                  work_group_size);
    return out;
}

// The same lanes from run()'s outputs, by one scalar chain per lane: runs of kSumRun terms
// added by fma, each closed into the lane by TwoSum.
Lanes host_lanes(const Kernel& kernel, const Data& d, std::size_t begin, std::size_t count,
                 const Reduction& reduction) {
    const ir::Program& program = kernel.program();
    std::vector<std::vector<double>> re(program.outputs.size(), std::vector<double>(count));
    std::vector<std::vector<double>> im(program.outputs.size(), std::vector<double>(count));
    std::vector<ir::OutputColumn> out;
    for (std::size_t j = 0; j < re.size(); ++j) {
        out.push_back({re[j].data(), im[j].data()});
    }
    kernel.run(kParams, d.view(), begin, count, out);
    const std::size_t chunks = (count + reduction.chunk_events - 1) / reduction.chunk_events;
    Lanes want;
    want.lanes.assign(chunks * reduction.sums * 2 * kSumLanes, 0.0);
    want.bad.assign(chunks, 0);
    for (std::size_t c = 0; c < chunks; ++c) {
        const std::size_t first = c * reduction.chunk_events;
        const std::size_t end = std::min(first + reduction.chunk_events, count);
        std::vector<double> runs(reduction.sums * kSumLanes, 0.0);
        const auto close_runs = [&] {
            for (std::size_t j = 0; j < reduction.sums; ++j) {
                for (std::size_t lane = 0; lane < kSumLanes; ++lane) {
                    double& s = want.lanes[((c * reduction.sums + j) * 2 * kSumLanes) + lane];
                    double& e =
                        want.lanes[((c * reduction.sums + j) * 2 * kSumLanes) + kSumLanes + lane];
                    double& p = runs[(j * kSumLanes) + lane];
                    const TwoSumResult r = two_sum(s, p);
                    s = r.sum;
                    e += r.error;
                    p = 0.0;
                }
            }
        };
        for (std::size_t i = first; i < end; ++i) {
            const double v = re[0][i];
            const double w = d.weights[begin + i];
            if (reduction.term != ReductionTerm::kReal && !(v > 0.0 && v < HUGE_VAL)) {
                want.bad[c] = 1;
            }
            const std::size_t lane = (i - first) % kSumLanes;
            for (std::size_t j = 0; j < reduction.sums; ++j) {
                double a = 0.0;
                double b = 0.0;
                const bool log = reduction.term == ReductionTerm::kLog ||
                                 reduction.term == ReductionTerm::kLogFloat;
                if (j == 0) {
                    double t = v;
                    if (reduction.term == ReductionTerm::kLog) {
                        t = log_positive(v);
                    } else if (reduction.term == ReductionTerm::kLogFloat) {
                        const auto narrow = static_cast<double>(static_cast<float>(v));
                        t = static_cast<double>(static_cast<float>(log_positive(narrow)));
                    }
                    a = w;
                    b = t;
                } else {
                    a = log ? w * (1.0 / v) : w;
                    b = re[j][i];
                }
                double& p = runs[(j * kSumLanes) + lane];
                p = std::fma(a, b, p);
            }
            if ((i - first + 1) % (kSumLanes * kSumRun) == 0) {
                close_runs();
            }
        }
        close_runs();
    }
    return want;
}

void expect_bitwise(const std::vector<double>& a, const std::vector<double>& b) {
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
        ASSERT_EQ(std::memcmp(&a[i], &b[i], sizeof(double)), 0)
            << "element " << i << ": " << a[i] << " vs " << b[i];
    }
}

TEST(GpuReduce, LanesAreTheHostTwoSumChainsBitForBit) {
    REQUIRE_FP64_DEVICE();
    const Data d = random_data(5000, 11);
    for (const ir::Precision precision : {ir::Precision::kF64, ir::Precision::kF32}) {
        const std::shared_ptr<const Kernel> kernel = compile(test_program(), precision, 0);
        ASSERT_TRUE(kernel->reduces());
        for (const ReductionTerm term : {ReductionTerm::kReal, ReductionTerm::kPositive,
                                         ReductionTerm::kLog, ReductionTerm::kLogFloat}) {
            for (const std::size_t sums : {std::size_t{1}, std::size_t{3}}) {
                // Whole and partial chunks, a range not starting at 0, fewer events than lanes.
                for (const auto& [begin, count] : {std::pair<std::size_t, std::size_t>{0, 5000},
                                                   {1024, 2048},
                                                   {3000, 1999},
                                                   {17, 5}}) {
                    SCOPED_TRACE(::testing::Message()
                                 << "term " << static_cast<int>(term) << " sums " << sums
                                 << " begin " << begin << " count " << count << " "
                                 << precision_name(precision));
                    const Reduction reduction{term, sums, 1024};
                    const Lanes got = device_lanes(*kernel, d, begin, count, reduction);
                    const Lanes want = host_lanes(*kernel, d, begin, count, reduction);
                    expect_bitwise(got.lanes, want.lanes);
                    EXPECT_EQ(got.bad, want.bad);
                }
            }
        }
    }
}

TEST(GpuReduce, FinishedLanesAreLaneSumsAndDoNotDependOnTheWorkGroupSize) {
    REQUIRE_FP64_DEVICE();
    const Data d = random_data(4100, 12);
    const std::shared_ptr<const Kernel> kernel = compile(test_program(), ir::Precision::kF64, 0);
    const Reduction reduction{ReductionTerm::kLog, 3, 1024};
    const Lanes first = device_lanes(*kernel, d, 0, d.events, reduction);
    for (const std::size_t size :
         {std::size_t{1}, std::size_t{8}, std::size_t{64}, std::size_t{0}}) {
        SCOPED_TRACE(size);
        expect_bitwise(device_lanes(*kernel, d, 0, d.events, reduction, size).lanes, first.lanes);
    }
    // Chunk 2's value sum finished from its lanes is LaneSum over the chunk's terms.
    std::vector<double> re(d.events), im(d.events), g1(d.events), g2(d.events), z_re(d.events),
        z_im(d.events);
    std::vector<ir::OutputColumn> out = {{re.data(), im.data()},
                                         {g1.data(), nullptr},
                                         {g2.data(), nullptr},
                                         {z_re.data(), z_im.data()}};
    kernel->run(kParams, d.view(), 0, d.events, out);
    std::vector<double> logs(1024);
    log_positive(std::span<const double>(re).subspan(2048, 1024), logs);
    LaneSum sum;
    sum.push_products(std::span<const double>(d.weights).subspan(2048, 1024), logs);
    const std::span<const double> lanes =
        std::span<const double>(first.lanes).subspan(2 * 3 * 2 * kSumLanes, 2 * kSumLanes);
    const double got =
        LaneSum::from_lanes(lanes.first<kSumLanes>(), lanes.last<kSumLanes>()).finish();
    const double want = sum.finish();
    EXPECT_EQ(std::memcmp(&got, &want, sizeof(double)), 0) << got << " vs " << want;
}

TEST(GpuReduce, FlagsTheChunkOfAValueTheTermCannotTake) {
    REQUIRE_FP64_DEVICE();
    Data d = random_data(3000, 13);
    ir::Builder b;
    b.add_output(b.binary(OpCode::kMul, b.load(b.add_input("x", ValueKind::kReal)), b.param(0)));
    ir::Program program = b.finish();
    for (double& x : d.x) {
        x = std::abs(x) + 0.1;
    }
    d.x[1500] = -1.0;
    const std::vector<ir::InputColumn> columns = {{d.x.data(), nullptr}};
    const std::shared_ptr<const Kernel> kernel = compile(program, ir::Precision::kF64, 0);
    std::vector<double> lanes(3 * 2 * kSumLanes);
    std::vector<std::uint8_t> bad(3);
    for (const ReductionTerm term :
         {ReductionTerm::kPositive, ReductionTerm::kLog, ReductionTerm::kLogFloat}) {
        kernel->reduce(kOne, ir::ColumnView{columns, d.events}, d.weights, 0, d.events,
                       Reduction{term, 1, 1024}, lanes, bad);
        EXPECT_EQ(bad, (std::vector<std::uint8_t>{0, 1, 0}));
    }
    kernel->reduce(kOne, ir::ColumnView{columns, d.events}, d.weights, 0, d.events,
                   Reduction{ReductionTerm::kReal, 1, 1024}, lanes, bad);
    EXPECT_EQ(bad, (std::vector<std::uint8_t>{0, 0, 0}));
}

TEST(GpuReduce, RejectsWhatItCannotSum) {
    REQUIRE_FP64_DEVICE();
    const Data d = random_data(100, 14);
    const std::shared_ptr<const Kernel> kernel = compile(test_program(), ir::Precision::kF64, 0);
    std::vector<double> lanes(4 * 2 * kSumLanes);
    std::vector<std::uint8_t> bad(1);
    auto reduce = [&](std::size_t sums, std::span<const double> weights, std::span<double> l) {
        kernel->reduce(kParams, d.view(), weights, 0, d.events,
                       Reduction{ReductionTerm::kReal, sums, 1024}, l, bad);
    };
    EXPECT_THROW(reduce(0, d.weights, lanes), DataError);
    EXPECT_THROW(reduce(5, d.weights, lanes), DataError);
    try {
        reduce(4, d.weights, lanes);  // output 3 is Complex
        FAIL() << "no error";
    } catch (const DataError& e) {
        EXPECT_NE(std::string(e.what()).find("output 3 is Complex"), std::string::npos) << e.what();
    }
    EXPECT_THROW(reduce(1, std::span<const double>(d.weights).first(99), lanes), DataError);
    EXPECT_THROW(reduce(3, d.weights, std::span<double>(lanes).first(2 * kSumLanes)), DataError);
    EXPECT_THROW(kernel->reduce(kOne, d.view(), d.weights, 0, d.events, Reduction{}, lanes, bad),
                 EvaluationError);
}

TEST(GpuReduce, NeedsTheDevicesDoubles) {
    if (devices().empty()) {
        GTEST_SKIP() << "no OpenCL device (install pocl-opencl-icd)";
    }
    const std::shared_ptr<const Kernel> kernel = [] {
        const laddu::testing::ScopedEnv no_fp64("LADDU_GPU_NO_FP64", "1");
        return compile(test_program(), ir::Precision::kF32, 0);
    }();
    EXPECT_FALSE(kernel->reduces());
    EXPECT_EQ(lower_to_opencl(test_program(), ir::Precision::kF32, false).find("laddu_reduce"),
              std::string::npos);
    const Data d = random_data(10, 15);
    std::vector<double> lanes(2 * kSumLanes);
    std::vector<std::uint8_t> bad(1);
    EXPECT_THROW(kernel->reduce(kParams, d.view(), d.weights, 0, d.events, Reduction{}, lanes, bad),
                 BackendError);
}

}  // namespace
}  // namespace laddu::gpu
