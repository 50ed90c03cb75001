// Fused reductions (JitKernel::reduction) against the unfused computation they replace: the
// kernel's outputs from run(), transformed and summed in laddu::LaneSum exactly as the
// runtime's chunk reductions do. Every comparison is bit for bit.
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/base/accurate_sum.hpp>
#include <laddu/base/aligned.hpp>
#include <laddu/base/log_positive.hpp>
#include <laddu/ir/builder.hpp>
#include <laddu/jit/jit.hpp>

#include "lower.hpp"
#include "reference/random_program.hpp"
#include "scoped_env.hpp"
#include "scratch_dir.hpp"

namespace laddu::jit {
namespace {

using ir::OpCode;
using ir::ValueId;
using ir::ValueKind;
using testing::Random;

static_assert(kReductionLanes == kSumLanes);

// Output 0 positive (|c z|² + exp(x)), then Real outputs that look like gradient components:
// a product, a libm function of the event, and an invariant-times-event term.
ir::Program positive_program() {
    ir::Builder b;
    const ValueId z = b.load(b.add_input("z", ValueKind::kComplex));
    const ValueId x = b.load(b.add_input("x", ValueKind::kReal));
    const ValueId c = b.complex(b.param(0), b.param(1));
    const ValueId cz = b.binary(OpCode::kMul, c, z);
    b.add_output(b.binary(OpCode::kAdd, b.unary(OpCode::kNormSqr, cz), b.unary(OpCode::kExp, x)));
    b.add_output(b.unary(OpCode::kReal, cz));
    b.add_output(b.binary(OpCode::kMul, x, b.param(2)));
    b.add_output(b.unary(OpCode::kTan, x));
    b.add_output(b.unary(OpCode::kImag, b.binary(OpCode::kMul, cz, cz)));
    return b.finish();
}

// Output 0 is the event's own x (any sign), output 1 Complex: only a value reduction applies.
ir::Program identity_program() {
    ir::Builder b;
    const ValueId x = b.load(b.add_input("x", ValueKind::kReal));
    const ValueId z = b.load(b.add_input("z", ValueKind::kComplex));
    b.add_output(x);
    b.add_output(b.binary(OpCode::kMul, z, b.param(0)));
    return b.finish();
}

struct Data {
    std::vector<AlignedVector<double>> doubles;
    std::vector<AlignedVector<float>> floats;
    AlignedVector<double> weights;

    Data(const ir::Program& program, std::size_t events, std::uint64_t seed) {
        Random random(seed);
        for (const ir::InputSlot& slot : program.inputs) {
            const std::size_t parts = slot.kind == ValueKind::kComplex ? 2 : 1;
            for (std::size_t p = 0; p < parts; ++p) {
                AlignedVector<double> column(events);
                for (double& v : column) {
                    v = random.uniform(-1.2, 1.2);
                }
                AlignedVector<float> rounded(column.begin(), column.end());
                doubles.push_back(std::move(column));
                floats.push_back(std::move(rounded));
            }
        }
        weights.resize(events);
        for (double& w : weights) {
            w = random.uniform(-0.5, 2.0);
        }
    }

    [[nodiscard]] std::vector<const double*> double_columns(std::size_t offset) const {
        std::vector<const double*> out;
        out.reserve(doubles.size());
        for (const auto& column : doubles) {
            out.push_back(column.data() + offset);
        }
        return out;
    }

    [[nodiscard]] std::vector<const double*> float_columns(std::size_t offset) const {
        std::vector<const double*> out;
        out.reserve(floats.size());
        for (const auto& column : floats) {
            // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): the kernel ABI
            out.push_back(reinterpret_cast<const double*>(column.data() + offset));
        }
        return out;
    }
};

bool takes_log(ReductionTerm term) {
    return term == ReductionTerm::kLog || term == ReductionTerm::kLogFloat;
}

// The sums as the runtime computes them without fusion: run() into columns, then LaneSums.
std::vector<double> unfused(const JitKernel& kernel, const ir::Program& program,
                            const double* params, const double* const* inputs,
                            const double* weights, std::size_t count, const ReductionSpec& spec) {
    std::vector<AlignedVector<double>> columns(
        kernel.output_pointer_count(), AlignedVector<double>(std::max<std::size_t>(1, count)));
    std::vector<double*> pointers;
    pointers.reserve(columns.size());
    for (auto& column : columns) {
        pointers.push_back(column.data());
    }
    kernel.run(params, inputs, pointers.data(), 0, static_cast<std::int64_t>(count));
    std::vector<std::size_t> first_column;
    std::size_t at = 0;
    for (const ValueId out : program.outputs) {
        first_column.push_back(at);
        at += program.at(out).kind == ValueKind::kComplex ? 2U : 1U;
    }
    const double* v = columns[0].data();
    std::vector<double> value_terms(count);
    std::vector<double> scale(count);
    for (std::size_t i = 0; i < count; ++i) {
        switch (spec.term) {
        case ReductionTerm::kReal:
        case ReductionTerm::kPositive:
            value_terms[i] = v[i];
            break;
        case ReductionTerm::kLog:
            value_terms[i] = log_positive(v[i]);
            break;
        case ReductionTerm::kLogFloat:
            value_terms[i] = static_cast<double>(
                static_cast<float>(log_positive(static_cast<double>(static_cast<float>(v[i])))));
            break;
        }
        scale[i] = takes_log(spec.term) ? weights[i] * (1.0 / v[i]) : weights[i];
    }
    std::vector<double> sums;
    LaneSum value;
    value.push_products({weights, count}, value_terms);
    sums.push_back(value.finish());
    for (std::size_t j = 1; j < spec.sums; ++j) {
        LaneSum gradient;
        gradient.push_products(scale, {columns[first_column[j]].data(), count});
        sums.push_back(gradient.finish());
    }
    return sums;
}

std::vector<double> fused(const JitReduction& reduction, const double* params,
                          const double* const* inputs, const double* weights, std::size_t count,
                          bool* ok) {
    const std::uint32_t sums = reduction.spec().sums;
    std::vector<double> lanes(2 * kReductionLanes * sums, 0.0);
    *ok = reduction.run(params, inputs, weights, static_cast<std::int64_t>(count), lanes.data());
    std::vector<double> out;
    for (std::uint32_t j = 0; j < sums; ++j) {
        const double* s = lanes.data() + 2 * kReductionLanes * j;
        out.push_back(LaneSum::from_lanes(std::span<const double, kSumLanes>(s, kSumLanes),
                                          std::span<const double, kSumLanes>(s + 8, kSumLanes))
                          .finish());
    }
    return out;
}

constexpr std::array<ReductionTerm, 4> kTerms = {ReductionTerm::kReal, ReductionTerm::kPositive,
                                                 ReductionTerm::kLog, ReductionTerm::kLogFloat};

// One kernel, one spec, from aligned and unaligned first events, over range lengths around the
// lane and block boundaries: the fused sums are the unfused ones, bit for bit.
void expect_fused_matches_unfused(const JitKernel& kernel, const ir::Program& program,
                                  const Data& data, const ReductionSpec& spec) {
    auto reduction = kernel.reduction(spec);
    ASSERT_TRUE(reduction.has_value()) << reduction.error().message;
    const std::array<double, 3> params = {0.7, -1.1, 0.3};
    const std::array<std::size_t, 13> counts = {0,  1,   7,   8,    9,    63,  64,
                                                65, 232, 233, 1000, 4096, 4197};
    for (const std::size_t offset : {0U, 3U}) {
        const auto inputs = kernel.input_columns() == InputColumns::kFloat
                                ? data.float_columns(offset)
                                : data.double_columns(offset);
        const double* weights = data.weights.data() + offset;
        for (const std::size_t count : counts) {
            SCOPED_TRACE(testing::numbered("offset ", offset) +
                         testing::numbered(" count ", count));
            bool ok = false;
            const auto got = fused(*reduction, params.data(), inputs.data(), weights, count, &ok);
            EXPECT_TRUE(ok);
            const auto want =
                unfused(kernel, program, params.data(), inputs.data(), weights, count, spec);
            EXPECT_EQ(got, want);
        }
    }
}

// Every term and each of `sum_counts`, f64 and f32 kernels over double and float columns.
void expect_every_spec_matches_unfused(const ir::Program& program, const Data& data,
                                       std::initializer_list<std::uint32_t> sum_counts) {
    for (const ir::Precision precision : {ir::Precision::kF64, ir::Precision::kF32}) {
        for (const InputColumns columns : {InputColumns::kDouble, InputColumns::kFloat}) {
            auto kernel = compile(program, precision, CodeGen::kOptimized, columns);
            ASSERT_TRUE(kernel.has_value()) << kernel.error().message;
            for (const ReductionTerm term : kTerms) {
                for (const std::uint32_t sums : sum_counts) {
                    SCOPED_TRACE(std::string(precision_name(precision)) +
                                 testing::numbered(" term ", static_cast<int>(term)) +
                                 testing::numbered(" sums ", sums));
                    expect_fused_matches_unfused(*kernel, program, data, {term, sums});
                }
            }
        }
    }
}

// Value-only and full gradient sums of a kernel the reduction calls itself.
TEST(JitReduction, BitIdenticalToLaneSumsOverTheKernelsOutputs) {
    const ir::Program program = positive_program();
    expect_every_spec_matches_unfused(program, Data(program, 4200, 41), {1U, 3U, 5U});
}

// A value that is not finite and positive is flagged under the terms that need one (and only
// there), wherever it is: first, in the first lanes, past the first block, last.
void expect_flags(const JitReduction& reduction, Data& data, std::size_t events) {
    const double param = 0.5;
    const auto inputs = data.double_columns(0);
    const bool checks = reduction.spec().term != ReductionTerm::kReal;
    bool ok = false;
    (void)fused(reduction, &param, inputs.data(), data.weights.data(), events, &ok);
    EXPECT_TRUE(ok);
    for (const std::size_t at : {std::size_t{0}, std::size_t{7}, std::size_t{1500}, events - 1}) {
        for (const double bad : {0.0, -1.0, std::numeric_limits<double>::infinity(),
                                 std::numeric_limits<double>::quiet_NaN()}) {
            SCOPED_TRACE(testing::numbered("event ", at) + " value " + std::to_string(bad));
            const double kept = data.doubles[0][at];
            data.doubles[0][at] = bad;
            (void)fused(reduction, &param, inputs.data(), data.weights.data(), events, &ok);
            EXPECT_EQ(!ok, checks);
            // An event past the range is not looked at.
            (void)fused(reduction, &param, inputs.data(), data.weights.data(), at, &ok);
            EXPECT_TRUE(ok);
            data.doubles[0][at] = kept;
        }
    }
}

TEST(JitReduction, FlagsNonPositiveValuesOnlyWhereTheTermNeedsThem) {
    const ir::Program program = identity_program();
    constexpr std::size_t kEvents = 3001;
    Data data(program, kEvents, 43);
    for (double& x : data.doubles[0]) {
        x = std::abs(x) + 0.01;
    }
    auto kernel = compile(program, ir::Precision::kF64);
    ASSERT_TRUE(kernel.has_value());
    for (const ReductionTerm term : kTerms) {
        SCOPED_TRACE(testing::numbered("term ", static_cast<int>(term)));
        auto reduction = kernel->reduction({term, 1});
        ASSERT_TRUE(reduction.has_value()) << reduction.error().message;
        expect_flags(*reduction, data, kEvents);
    }
}

// More columns than general registers: 14 Real inputs, output 0 = 1 + Σ x_k² (positive), then
// four Real outputs.
ir::Program many_columns_program() {
    ir::Builder b;
    std::vector<ValueId> x;
    for (int k = 0; k < 14; ++k) {
        x.push_back(b.load(b.add_input("x" + std::to_string(k), ValueKind::kReal)));
    }
    const ValueId z = b.load(b.add_input("z", ValueKind::kComplex));
    std::vector<ValueId> squares{b.const_real(1.0), b.unary(OpCode::kNormSqr, z)};
    for (const ValueId v : x) {
        squares.push_back(b.binary(OpCode::kMul, v, v));
    }
    b.add_output(b.add_n(squares));
    b.add_output(b.binary(OpCode::kMul, x[0], b.param(0)));
    b.add_output(b.binary(OpCode::kMul, x[5], x[13]));
    b.add_output(b.binary(OpCode::kMul, x[9], b.param(1)));
    b.add_output(b.unary(OpCode::kSin, x[12]));
    // A chain of 80 instructions, longer than the lowering's reload distance, then outputs that
    // read x[0], x[5] and z again: a kernel over evenly spaced columns loads them a second time.
    ValueId chain = x[1];
    for (int k = 0; k < 40; ++k) {
        chain = b.binary(OpCode::kAdd, b.binary(OpCode::kMul, chain, b.const_real(0.5)), x[2]);
    }
    b.add_output(b.binary(OpCode::kMul, x[0], chain));
    b.add_output(b.binary(OpCode::kSub, x[5], chain));
    b.add_output(b.unary(OpCode::kReal, b.binary(OpCode::kMul, z, chain)));
    return b.finish();
}

// A reduction over more columns than registers compiles its own copy of the kernel, which takes
// a block's whole groups of events unmasked and leaves the rest to the kernel proper
// (LowerOptions::whole_groups): every term, the value and gradient sums, f64 and f32, every
// range length around the groups, lanes and blocks.
TEST(JitReduction, ItsOwnKernelCopyGivesTheBitsOfLaneSumsAtEveryLength) {
    const ir::Program program = many_columns_program();
    expect_every_spec_matches_unfused(program, Data(program, 4200, 47), {1U, 5U});
}

// Columns laid out evenly spaced in one block, as an EventCache does: a reduction over more
// columns than registers, told so (ReductionSpec::input_stride), reads only the first pointer
// and gives the sums of the one that reads every pointer, bit for bit, for double and float
// columns and every first event.
TEST(JitReduction, EvenlySpacedColumnsGiveTheSumsOfThePointerArray) {
    const ir::Program program = many_columns_program();
    constexpr std::size_t kEvents = 4200;
    constexpr std::size_t kStride = kEvents + 24;  // values from one column to the next
    const Data data(program, kEvents, 43);
    AlignedVector<double> doubles(data.doubles.size() * kStride);
    AlignedVector<float> floats(data.floats.size() * kStride);
    for (std::size_t c = 0; c < data.doubles.size(); ++c) {
        std::copy_n(data.doubles[c].data(), kEvents, doubles.data() + c * kStride);
        std::copy_n(data.floats[c].data(), kEvents, floats.data() + c * kStride);
    }
    const std::array<double, 3> params = {0.7, -1.1, 0.3};
    for (const InputColumns columns : {InputColumns::kDouble, InputColumns::kFloat}) {
        const bool f32 = columns == InputColumns::kFloat;
        auto kernel = compile(program, ir::Precision::kF64, CodeGen::kOptimized, columns);
        ASSERT_TRUE(kernel.has_value()) << kernel.error().message;
        for (const std::uint32_t sums : {1U, 5U}) {
            const ReductionSpec apart{ReductionTerm::kLog, sums};
            ReductionSpec together = apart;
            together.input_stride = kStride * (f32 ? sizeof(float) : sizeof(double));
            auto separate = kernel->reduction(apart);
            auto spaced = kernel->reduction(together);
            ASSERT_TRUE(separate.has_value()) << separate.error().message;
            ASSERT_TRUE(spaced.has_value()) << spaced.error().message;
            for (const std::size_t offset : {0U, 3U}) {
                const auto pointers =
                    f32 ? data.float_columns(offset) : data.double_columns(offset);
                // Over whole groups of events only the first pointer is read: every other one
                // names the first column too, so a reduction that read them would sum other
                // numbers. A range's last events, past its whole groups, run on the program's
                // own kernel, which reads every pointer (each naming its column, as the spec
                // asks).
                // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): the kernel ABI
                const double* first = f32 ? reinterpret_cast<const double*>(floats.data() + offset)
                                          : doubles.data() + offset;
                const std::vector<const double*> first_only(pointers.size(), first);
                std::vector<const double*> spaced_pointers;
                for (std::size_t c = 0; c < pointers.size(); ++c) {
                    const std::size_t at = c * kStride * (f32 ? sizeof(float) : sizeof(double));
                    // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): the kernel ABI
                    spaced_pointers.push_back(
                        reinterpret_cast<const double*>(reinterpret_cast<const char*>(first) + at));
                }
                for (const std::size_t count : {std::size_t{1}, std::size_t{64}, std::size_t{65},
                                                std::size_t{4192}, kEvents - 3}) {
                    const std::vector<const double*>& block =
                        count % detail::kWholeGroup == 0 ? first_only : spaced_pointers;
                    SCOPED_TRACE(testing::numbered("f32 ", static_cast<int>(f32)) +
                                 testing::numbered(" sums ", sums) +
                                 testing::numbered(" offset ", offset) +
                                 testing::numbered(" count ", count));
                    bool ok_separate = false;
                    bool ok_spaced = false;
                    const double* weights = data.weights.data() + offset;
                    const auto want = fused(*separate, params.data(), pointers.data(), weights,
                                            count, &ok_separate);
                    const auto got =
                        fused(*spaced, params.data(), block.data(), weights, count, &ok_spaced);
                    EXPECT_EQ(ok_spaced, ok_separate);
                    EXPECT_EQ(got, want);
                }
            }
        }
    }
}

// The kernel copy of a reduction over evenly spaced columns, as lowered (LADDU_JIT_DUMP): the
// columns the program reads again after a long chain are loaded a second time, through the one
// opaque copy of the first column's pointer, and each output is stored as soon as it is
// computed, not all at the end (lower.cpp, Lowerer::use and store_outputs).
TEST(JitReduction, TheKernelCopyLoadsFarReadColumnsAgainAndStoresOutputsEarly) {
    // The dump directory and the two variables for this test only: put back as they were (and
    // the directory removed) however the test ends, an ASSERT included.
    struct DumpScope {
        laddu::testing::ScratchDir dir;  // declared first: removed after the variables are back
        laddu::testing::ScopedEnv env;

        DumpScope() {
            env.set("LADDU_JIT_DUMP", dir.path().string());
            env.set("LADDU_JIT_CACHE", "off");  // compile, so that the copy is lowered and dumped
        }
    };

    std::string copy;
    {
        const DumpScope scope;
        const ir::Program program = many_columns_program();
        auto kernel = compile(program, ir::Precision::kF64);
        ASSERT_TRUE(kernel.has_value()) << kernel.error().message;
        ReductionSpec spec{ReductionTerm::kLog, 5};
        // A stride no other test asks for: a reduction already compiled for its spec is reused.
        spec.input_stride = 4240 * sizeof(double);
        auto reduction = kernel->reduction(spec);
        ASSERT_TRUE(reduction.has_value()) << reduction.error().message;
        for (const auto& entry : std::filesystem::directory_iterator(scope.dir.path())) {
            const std::string name = entry.path().filename().string();
            if (name.find("_kernel.lowered.ll") != std::string::npos) {
                std::ifstream in(entry.path());
                copy.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
            }
        }
    }
    ASSERT_FALSE(copy.empty()) << "no lowered kernel copy was written";
    // Lines holding every one of `parts`.
    const auto count = [&](std::initializer_list<std::string_view> parts) {
        std::size_t n = 0;
        std::istringstream lines(copy);
        for (std::string line; std::getline(lines, line);) {
            const bool all = std::all_of(parts.begin(), parts.end(), [&](std::string_view part) {
                return line.find(part) != std::string::npos;
            });
            n += all ? 1U : 0U;
        }
        return n;
    };
    EXPECT_EQ(count({"call ptr asm \"\""}), 1U);
    // 14 Real columns and a Complex one are 16 column parts (the input alias scope); read again:
    // x0, x5 and z's two parts after the chain, x2 twice along it.
    EXPECT_EQ(count({"load double", "!alias.scope"}), 16U + 6U);
    // The first outputs (x0 p0, ...) are stored before the chain is computed.
    const std::size_t first_store = copy.find("store double");
    const std::size_t last_multiply = copy.rfind("fmul double");
    ASSERT_NE(first_store, std::string::npos);
    ASSERT_NE(last_multiply, std::string::npos);
    EXPECT_LT(first_store, last_multiply);
}

TEST(JitReduction, RejectsSpecsTheKernelCannotTake) {
    auto kernel = compile(identity_program(), ir::Precision::kF64);
    ASSERT_TRUE(kernel.has_value());
    auto zero = kernel->reduction({ReductionTerm::kReal, 0});
    ASSERT_FALSE(zero.has_value());
    EXPECT_NE(zero.error().message.find("between 1 and 2"), std::string::npos);
    EXPECT_FALSE(kernel->reduction({ReductionTerm::kReal, 3}).has_value());
    auto complex = kernel->reduction({ReductionTerm::kReal, 2});
    ASSERT_FALSE(complex.has_value());
    EXPECT_NE(complex.error().message.find("output 1 is Complex"), std::string::npos);
    EXPECT_TRUE(kernel->reduction({ReductionTerm::kLog, 1}).has_value());
}

// The same spec twice gives the same function, different specs different ones, and a
// reduction keeps its kernel's code alive.
TEST(JitReduction, EachSpecCompilesOnceAndOutlivesItsKernel) {
    const ir::Program program = positive_program();
    std::optional<JitReduction> kept;
    {
        auto kernel = compile_uncached(program, ir::Precision::kF64);
        ASSERT_TRUE(kernel.has_value());
        auto a = kernel->reduction({ReductionTerm::kLog, 5});
        auto b = kernel->reduction({ReductionTerm::kLog, 5});
        auto c = kernel->reduction({ReductionTerm::kLog, 1});
        ASSERT_TRUE(a && b && c);
        EXPECT_EQ(a->function(), b->function());
        EXPECT_NE(a->function(), c->function());
        EXPECT_GT(a->compile_seconds(), 0.0);
        // With few columns the spacing of the caller's columns changes nothing: caches of
        // different sizes share the reduction (a 14-column kernel compiles one per spacing).
        auto spaced = kernel->reduction({ReductionTerm::kLog, 5, false, 8256});
        ASSERT_TRUE(spaced.has_value());
        EXPECT_EQ(spaced->function(), a->function());
        kept = *a;
    }
    const Data data(program, 100, 53);
    const std::array<double, 3> params = {0.2, 0.9, -0.4};
    const auto inputs = data.double_columns(0);
    bool ok = false;
    const auto sums = fused(*kept, params.data(), inputs.data(), data.weights.data(), 100, &ok);
    EXPECT_TRUE(ok);
    EXPECT_TRUE(std::isfinite(sums[0]));
}

// Unit weights are not read (null here) and give the bits of weights that are all 1, for every
// term, with and without gradient sums, over a count that ends part way through a vector.
TEST(JitReduction, UnitWeightsAreNotReadAndGiveTheBitsOfWeightsOfOne) {
    const ir::Program program = positive_program();
    auto kernel = compile_uncached(program, ir::Precision::kF64);
    ASSERT_TRUE(kernel.has_value());
    constexpr std::size_t kEvents = 1003;
    const Data data(program, kEvents, 59);
    const AlignedVector<double> ones(kEvents, 1.0);
    const std::array<double, 3> params = {0.2, 0.9, -0.4};
    const auto inputs = data.double_columns(0);
    for (const ReductionTerm term :
         {ReductionTerm::kReal, ReductionTerm::kPositive, ReductionTerm::kLog}) {
        for (const std::uint32_t sums : {1U, 5U}) {
            auto weighted = kernel->reduction({term, sums, false});
            auto unit = kernel->reduction({term, sums, true});
            ASSERT_TRUE(weighted && unit);
            EXPECT_NE(weighted->function(), unit->function());
            bool weighted_ok = false;
            bool unit_ok = false;
            const std::vector<double> expected =
                fused(*weighted, params.data(), inputs.data(), ones.data(), kEvents, &weighted_ok);
            const std::vector<double> got =
                fused(*unit, params.data(), inputs.data(), nullptr, kEvents, &unit_ok);
            EXPECT_TRUE(weighted_ok && unit_ok);
            ASSERT_EQ(got.size(), expected.size());
            for (std::size_t j = 0; j < got.size(); ++j) {
                EXPECT_EQ(std::bit_cast<std::uint64_t>(got[j]),
                          std::bit_cast<std::uint64_t>(expected[j]))
                    << "sum " << j << " of " << sums << ", term " << static_cast<int>(term);
            }
        }
    }
}

// Threads compile one kernel's reduction at once (getting one function) and run it on
// different ranges.
TEST(JitReduction, ThreadsRunOneReductionAtOnce) {
    const ir::Program program = positive_program();
    auto kernel = compile_uncached(program, ir::Precision::kF64);
    ASSERT_TRUE(kernel.has_value());
    const Data data(program, 2048, 47);
    const std::array<double, 3> params = {0.2, 0.9, -0.4};
    const ReductionSpec spec{ReductionTerm::kLog, 5};
    std::array<std::vector<double>, 4> results;
    std::array<ReductionFn, 4> functions{};
    std::vector<std::thread> threads;
    threads.reserve(results.size());
    for (std::size_t t = 0; t < results.size(); ++t) {
        threads.emplace_back([&, t] {
            // Each thread asks for the reduction: the first compiles it, the others wait.
            auto reduction = kernel->reduction(spec);
            if (!reduction) {
                return;
            }
            functions[t] = reduction->function();
            const auto inputs = data.double_columns(t * 100);
            bool ok = false;
            results[t] = fused(*reduction, params.data(), inputs.data(),
                               data.weights.data() + t * 100, 1500, &ok);
        });
    }
    for (auto& thread : threads) {
        thread.join();
    }
    for (std::size_t t = 0; t < results.size(); ++t) {
        EXPECT_EQ(functions[t], functions[0]);
        const auto inputs = data.double_columns(t * 100);
        EXPECT_EQ(results[t], unfused(*kernel, program, params.data(), inputs.data(),
                                      data.weights.data() + t * 100, 1500, spec));
    }
}

}  // namespace
}  // namespace laddu::jit
