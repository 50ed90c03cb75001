// Differential tests: every kernel is compared against tests/support/reference's
// contract_reference(), a per-event executor of docs/ir.md's bit-exact arithmetic contract.
#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/base/aligned.hpp>
#include <laddu/ir/builder.hpp>
#include <laddu/ir/print.hpp>
#include <laddu/jit/jit.hpp>

#include "reference/contract_reference.hpp"
#include "reference/random_program.hpp"
#include <sys/mman.h>
#include <unistd.h>

namespace laddu::jit {
namespace {

using ir::OpCode;
using ir::ValueId;
using ir::ValueKind;
using testing::Complex;
using testing::Random;
using testing::SlotValues;

constexpr double kSentinel = -12345.678;

// The SoA columns of a data set, laid out as the kernel ABI wants them.
struct Columns {
    std::vector<AlignedVector<double>> storage;
    std::vector<const double*> pointers;

    Columns(const ir::Program& program, const SlotValues& slots) {
        for (std::size_t s = 0; s < slots.size(); ++s) {
            AlignedVector<double> re;
            AlignedVector<double> im;
            for (const Complex& z : slots[s]) {
                re.push_back(z.real());
                im.push_back(z.imag());
            }
            storage.push_back(std::move(re));
            if (program.inputs[s].kind == ValueKind::kComplex) {
                storage.push_back(std::move(im));
            }
        }
        for (const auto& column : storage) {
            pointers.push_back(column.data());
        }
    }
};

// Output columns filled with a sentinel; values()[k][event] widened to complex.
struct Outputs {
    std::vector<AlignedVector<double>> storage;
    std::vector<double*> pointers;
    std::vector<bool> complex;

    Outputs(const ir::Program& program, std::size_t events) {
        for (const ValueId out : program.outputs) {
            const bool c = program.at(out).kind == ValueKind::kComplex;
            complex.push_back(c);
            storage.emplace_back(events, kSentinel);
            if (c) {
                storage.emplace_back(events, kSentinel);
            }
        }
        for (auto& column : storage) {
            pointers.push_back(column.data());
        }
    }

    [[nodiscard]] Complex value(std::size_t output, std::size_t event) const {
        std::size_t column = 0;
        for (std::size_t k = 0; k < output; ++k) {
            column += complex[k] ? 2U : 1U;
        }
        return {storage[column][event], complex[output] ? storage[column + 1][event] : 0.0};
    }
};

// Norm-wise relative closeness; NaN matches NaN and an infinity matches itself.
::testing::AssertionResult close(Complex got, Complex want, double tolerance) {
    const bool got_nan = std::isnan(got.real()) || std::isnan(got.imag());
    const bool want_nan = std::isnan(want.real()) || std::isnan(want.imag());
    if (got_nan || want_nan) {
        if (got_nan == want_nan) {
            return ::testing::AssertionSuccess();
        }
        return ::testing::AssertionFailure() << "got " << got << ", want " << want;
    }
    if (got == want) {
        return ::testing::AssertionSuccess();
    }
    const double error = std::abs(got - want);
    const double scale = std::max(std::abs(want), 1e-300);
    if (std::isfinite(error) && error <= tolerance * scale) {
        return ::testing::AssertionSuccess();
    }
    return ::testing::AssertionFailure()
           << "got " << got << ", want " << want << " (relative error " << error / scale
           << ", tolerance " << tolerance << ")";
}

struct Check {
    ir::Precision precision = ir::Precision::kF64;
    double tolerance = 4e-15;
    std::size_t events = 37;
    std::int64_t begin = 0;
    std::int64_t end = -1;  ///< -1: all events
    /// The reference precision (kF64 for the absolute f32 accuracy check, kF32 to mirror the
    /// f32 kernel's rounding).
    testing::ContractPrecision reference = testing::ContractPrecision::kF64;
};

// Compiles `program`, runs it over [begin, end) and compares every output of every event with
// the reference; events outside the range must keep the sentinel.
void expect_matches_reference(const ir::Program& program, const std::vector<double>& params,
                              const SlotValues& slots, const Check& check) {
    SCOPED_TRACE(ir::to_string(program));
    auto kernel = compile(program, check.precision);
    ASSERT_TRUE(kernel.has_value()) << kernel.error().message;
    const Columns in(program, slots);
    ASSERT_EQ(in.pointers.size(), kernel->input_pointer_count());
    Outputs out(program, check.events);
    ASSERT_EQ(out.pointers.size(), kernel->output_pointer_count());
    const std::int64_t end = check.end < 0 ? static_cast<std::int64_t>(check.events) : check.end;
    kernel->run(params.data(), in.pointers.data(), out.pointers.data(), check.begin, end);
    for (std::size_t e = 0; e < check.events; ++e) {
        const auto event = static_cast<std::int64_t>(e);
        const bool inside = event >= check.begin && event < end;
        const std::vector<Complex> want =
            inside ? testing::contract_reference(program, params, slots, e, check.reference)
                   : std::vector<Complex>{};
        for (std::size_t k = 0; k < program.outputs.size(); ++k) {
            const Complex got = out.value(k, e);
            if (!inside) {
                ASSERT_EQ(got.real(), kSentinel) << "event " << e << " is outside the range";
                continue;
            }
            ASSERT_TRUE(close(got, want[k], check.tolerance))
                << "output " << k << ", event " << e << ", " << precision_name(check.precision);
        }
    }
}

std::vector<double> random_params(Random& random, std::uint32_t count) {
    std::vector<double> params;
    for (std::uint32_t k = 0; k < count; ++k) {
        params.push_back(random.uniform(-1.5, 1.5));
    }
    return params;
}

// Checks one program in f64 (against the f64 reference) and f32 (against the f64 reference at
// 5e-3, and against the f32-mirroring reference tightly).
void expect_both_precisions(const ir::Program& program, std::uint64_t seed,
                            double f64_tolerance = 4e-15) {
    Random random(seed);
    const auto params = random_params(random, program.parameter_count);
    const SlotValues slots = testing::random_slots(random, program, 37);
    expect_matches_reference(program, params, slots, {ir::Precision::kF64, f64_tolerance});
    expect_matches_reference(program, params, slots, {ir::Precision::kF32, 5e-3});
    Check mirrored{ir::Precision::kF32, 1e-5};
    mirrored.reference = testing::ContractPrecision::kF32;
    expect_matches_reference(program, params, slots, mirrored);
}

constexpr std::array<OpCode, 19> kUnaryOps = {
    OpCode::kNeg,  OpCode::kConj, OpCode::kSqrt, OpCode::kExp,    OpCode::kLog,
    OpCode::kSin,  OpCode::kCos,  OpCode::kTan,  OpCode::kAsin,   OpCode::kAcos,
    OpCode::kAtan, OpCode::kSinh, OpCode::kCosh, OpCode::kTanh,   OpCode::kReal,
    OpCode::kImag, OpCode::kAbs,  OpCode::kArg,  OpCode::kNormSqr};

// One program per (opcode, operand kind): the operand is an input (event) and, in a second
// output, a parameter expression (invariant, computed at entry).
TEST(JitOpcodes, EveryUnaryOpcodeOnRealAndComplexOperands) {
    for (const OpCode op : kUnaryOps) {
        for (const ValueKind kind : {ValueKind::kReal, ValueKind::kComplex}) {
            SCOPED_TRACE(std::string(ir::opcode_name(op)) + " " + std::string(ir::kind_name(kind)));
            ir::Builder b;
            const ValueId event = b.load(b.add_input("a", kind));
            const ValueId invariant =
                kind == ValueKind::kReal ? b.param(0) : b.complex(b.param(0), b.param(1));
            b.add_output(b.unary(op, event));
            b.add_output(b.unary(op, invariant));
            // Inputs in [-2, 2) cover the out-of-domain Real cases (sqrt, log, asin of
            // negatives or |x| > 1 give NaN on both sides).
            expect_both_precisions(b.finish(), 100 + static_cast<std::uint64_t>(op));
        }
    }
}

TEST(JitOpcodes, EveryBinaryOpcodeOnEveryKindPair) {
    constexpr std::array<OpCode, 5> kOps = {OpCode::kAdd, OpCode::kSub, OpCode::kMul, OpCode::kDiv,
                                            OpCode::kPow};
    for (const OpCode op : kOps) {
        for (const ValueKind ka : {ValueKind::kReal, ValueKind::kComplex}) {
            for (const ValueKind kb : {ValueKind::kReal, ValueKind::kComplex}) {
                SCOPED_TRACE(std::string(ir::opcode_name(op)) + " " +
                             std::string(ir::kind_name(ka)) + " " + std::string(ir::kind_name(kb)));
                ir::Builder b;
                const ValueId a = b.load(b.add_input("a", ka));
                const ValueId c = b.load(b.add_input("b", kb));
                const ValueId pa = b.param(0);
                b.add_output(b.binary(op, a, c));
                b.add_output(b.binary(op, pa, c));  // invariant-event mix
                b.add_output(b.binary(op, a, b.const_real(0.75)));
                expect_both_precisions(b.finish(), 200 + static_cast<std::uint64_t>(op));
            }
        }
    }
}

TEST(JitOpcodes, LeavesAtan2ComplexAndConstants) {
    ir::Builder b;
    const ValueId x = b.load(b.add_input("x", ValueKind::kReal));
    const ValueId y = b.load(b.add_input("y", ValueKind::kReal));
    b.add_output(b.binary(OpCode::kAtan2, y, x));
    b.add_output(b.complex(x, b.param(2)));
    b.add_output(b.const_complex(0.25, -3.5));
    b.add_output(b.const_real(1e300));
    b.add_output(b.param(1));
    expect_both_precisions(b.finish(), 300);
}

TEST(JitOpcodes, AddNMulNAndDotInOperandOrderAreExact) {
    ir::Builder b;
    const ValueId x = b.load(b.add_input("x", ValueKind::kReal));
    const ValueId z = b.load(b.add_input("z", ValueKind::kComplex));
    const ValueId w = b.load(b.add_input("w", ValueKind::kComplex));
    const ValueId p = b.param(0);
    const std::vector<ValueId> mixed = {x, z, p, w, x, b.const_real(1e16), b.const_real(-1e16)};
    const std::vector<ValueId> reals = {x, p, b.const_real(1e16), x, b.const_real(-1e16)};
    b.add_output(b.add_n(mixed));
    b.add_output(b.mul_n(mixed));
    b.add_output(b.add_n(reals));  // order matters: (x + p + 1e16 + x) - 1e16
    b.add_output(b.mul_n(std::vector<ValueId>{z}));
    b.add_output(b.dot(std::vector<ValueId>{x, z, p}, std::vector<ValueId>{w, x, z}));
    b.add_output(b.dot(std::vector<ValueId>{x, p}, std::vector<ValueId>{p, x}));
    const ir::Program program = b.finish();
    Random random(301);
    const auto params = random_params(random, program.parameter_count);
    const SlotValues slots = testing::random_slots(random, program, 37);
    expect_matches_reference(program, params, slots, {ir::Precision::kF64, 0.0});
    // ±1e16 cancel only in double; f32 is checked against the f32-mirroring reference.
    Check f32{ir::Precision::kF32, 1e-6};
    f32.reference = testing::ContractPrecision::kF32;
    expect_matches_reference(program, params, slots, f32);
}

TEST(JitOpcodes, PowIOverExponentsIncludingZeroAndNegative) {
    for (const std::int32_t n : {0, 1, 2, 3, 4, 5, 7, 13, 64, -1, -2, -5, -17}) {
        SCOPED_TRACE(testing::numbered("n=", n));
        ir::Builder b;
        const ValueId x = b.load(b.add_input("x", ValueKind::kReal));
        const ValueId z = b.load(b.add_input("z", ValueKind::kComplex));
        b.add_output(b.pow_i(x, n));
        b.add_output(b.pow_i(z, n));
        b.add_output(b.pow_i(b.param(0), n));
        const ir::Program program = b.finish();
        Random random(400 + static_cast<std::uint64_t>(n + 100));
        const auto params = random_params(random, program.parameter_count);
        const SlotValues slots = testing::random_slots(random, program, 37);
        // Products and one final division only: bit-identical to std::complex.
        expect_matches_reference(program, params, slots, {ir::Precision::kF64, 0.0});
        Check f32{ir::Precision::kF32, 1e-5};
        f32.reference = testing::ContractPrecision::kF32;
        expect_matches_reference(program, params, slots, f32);
    }
}

// A diagonally dominant n×n system with m right-hand sides, event-dependent when `event`.
ir::Program solve_program(std::uint32_t n, std::uint32_t m, bool event) {
    ir::Builder b;
    const ValueId z = b.load(b.add_input("z", ValueKind::kComplex));
    const ValueId x = b.load(b.add_input("x", ValueKind::kReal));
    std::vector<ValueId> ops;
    for (std::uint32_t r = 0; r < n; ++r) {
        for (std::uint32_t c = 0; c < n; ++c) {
            const ValueId p = b.param((r * n + c) % 4);
            ValueId e = b.binary(OpCode::kMul, p, b.const_complex(0.3 * r, 0.7 * c + 0.1));
            if (r == c) {
                e = b.binary(OpCode::kAdd, e,
                             event ? b.binary(OpCode::kAdd, z, b.const_real(5.0))
                                   : b.const_real(5.0));
            }
            ops.push_back(e);
        }
    }
    for (std::uint32_t k = 0; k < n * m; ++k) {
        ops.push_back(k % 2 == 0 ? (event ? x : b.param(1)) : b.const_complex(1.0, -1.0 * k));
    }
    const ValueId sol = b.solve(n, m, ops);
    for (std::uint32_t k = 0; k < n * m; ++k) {
        b.add_output(b.extract(sol, k));
    }
    return b.finish();
}

TEST(JitOpcodes, SolveAndExtractEventAndInvariant) {
    for (std::uint32_t n = 1; n <= 4; ++n) {
        for (std::uint32_t m = 1; m <= 2; ++m) {
            for (const bool event : {true, false}) {
                SCOPED_TRACE(testing::numbered("n=", n) + testing::numbered(" m=", m));
                expect_both_precisions(solve_program(n, m, event), 500 + n * 10 + m, 1e-14);
            }
        }
    }
}

TEST(JitOpcodes, SmallEventSolvesAreInlinedAndVectorised) {
    // 2×2 and 3×3 (the K-matrix sizes) are straight-line code; 5×5 calls the helper.
    for (const std::uint32_t n : {2U, 3U, 5U}) {
        auto kernel = compile(solve_program(n, 1, true), ir::Precision::kF64);
        ASSERT_TRUE(kernel.has_value()) << kernel.error().message;
        EXPECT_EQ(kernel->vectorized(), n <= 4) << "n=" << n;
    }
    expect_both_precisions(solve_program(5, 2, true), 599, 1e-14);
}

TEST(JitOpcodes, SolveResidualIsSmall) {
    // Independent of both executors: A x must reproduce b.
    ir::Builder b;
    const ValueId a00 = b.load(b.add_input("a00", ValueKind::kComplex));
    const ValueId a01 = b.param(0);
    const ValueId a10 = b.const_complex(0.5, 2.0);
    const ValueId a11 = b.load(b.add_input("a11", ValueKind::kComplex));
    const ValueId b0 = b.const_real(1.0);
    const ValueId b1 = b.const_complex(-2.0, 0.5);
    const ValueId sol = b.solve(2, 1, std::vector<ValueId>{a00, a01, a10, a11, b0, b1});
    b.add_output(b.extract(sol, 0));
    b.add_output(b.extract(sol, 1));
    const ir::Program program = b.finish();
    auto kernel = compile(program, ir::Precision::kF64);
    ASSERT_TRUE(kernel.has_value()) << kernel.error().message;
    Random random(600);
    const std::vector<double> params = {0.7};
    const SlotValues slots = testing::random_slots(random, program, 16);
    const Columns in(program, slots);
    Outputs out(program, 16);
    kernel->run(params.data(), in.pointers.data(), out.pointers.data(), 0, 16);
    for (std::size_t e = 0; e < 16; ++e) {
        const Complex x0 = out.value(0, e);
        const Complex x1 = out.value(1, e);
        EXPECT_LT(std::abs(slots[0][e] * x0 + 0.7 * x1 - 1.0), 1e-12);
        EXPECT_LT(std::abs(Complex(0.5, 2.0) * x0 + slots[1][e] * x1 - Complex(-2.0, 0.5)), 1e-12);
    }
}

TEST(JitOpcodes, SingularSolveGivesNaN) {
    ir::Builder b;
    const ValueId x = b.load(b.add_input("x", ValueKind::kReal));
    const ValueId zero = b.const_real(0.0);
    const ValueId sol = b.solve(2, 1, std::vector<ValueId>{x, x, x, x, b.param(0), zero});
    b.add_output(b.extract(sol, 0));
    b.add_output(b.extract(sol, 1));
    const ir::Program program = b.finish();
    auto kernel = compile(program, ir::Precision::kF64);
    ASSERT_TRUE(kernel.has_value()) << kernel.error().message;
    const SlotValues slots = {{Complex(1.0, 0.0), Complex(0.0, 0.0)}};
    const Columns in(program, slots);
    Outputs out(program, 2);
    const double param = 1.0;
    kernel->run(&param, in.pointers.data(), out.pointers.data(), 0, 2);
    for (std::size_t e = 0; e < 2; ++e) {
        EXPECT_TRUE(std::isnan(out.value(0, e).real()));
        EXPECT_TRUE(std::isnan(out.value(1, e).imag()));
    }
}

TEST(JitRandom, ArithmeticOnlyProgramsAreBitIdentical) {
    for (std::uint64_t seed = 1; seed <= 25; ++seed) {
        SCOPED_TRACE(testing::numbered("seed ", seed));
        Random random(seed);
        testing::RandomProgramOptions options;
        options.instructions = 40 + random.below(120);
        options.transcendental = false;
        const ir::Program program = testing::random_program(random, options);
        const auto params = random_params(random, program.parameter_count);
        const SlotValues slots = testing::random_slots(random, program, 21);
        expect_matches_reference(program, params, slots, {ir::Precision::kF64, 0.0, 21});
    }
}

TEST(JitRandom, ProgramsWithTranscendentalsMatchInBothPrecisions) {
    for (std::uint64_t seed = 100; seed < 140; ++seed) {
        SCOPED_TRACE(testing::numbered("seed ", seed));
        Random random(seed);
        testing::RandomProgramOptions options;
        options.instructions = 30 + random.below(200);
        options.real_inputs = random.below(3);
        options.complex_inputs = 1 + random.below(3);
        const ir::Program program = testing::random_program(random, options);
        expect_both_precisions(program, seed);
    }
}

TEST(JitRandom, LongChainsOfAThousandInstructions) {
    for (std::uint64_t seed = 900; seed < 903; ++seed) {
        SCOPED_TRACE(testing::numbered("seed ", seed));
        Random random(seed);
        testing::RandomProgramOptions options;
        options.instructions = 1000;
        options.outputs = 6;
        const ir::Program program = testing::random_program(random, options);
        expect_both_precisions(program, seed, 1e-14);
    }
}

ir::Program coherent_sum(std::uint32_t amplitudes) {
    ir::Builder b;
    std::vector<ValueId> terms;
    for (std::uint32_t k = 0; k < amplitudes; ++k) {
        const ValueId amp = b.load(b.add_input(testing::numbered("amp", k), ValueKind::kComplex));
        const ValueId coupling = b.complex(b.param(2 * k), b.param(2 * k + 1));
        terms.push_back(b.binary(OpCode::kMul, coupling, amp));
    }
    b.add_output(b.unary(OpCode::kNormSqr, b.add_n(terms)), "intensity");
    return b.finish();
}

TEST(JitKernels, CoherentSumIsVectorisedAndExact) {
    const ir::Program program = coherent_sum(16);
    Random random(700);
    const auto params = random_params(random, program.parameter_count);
    const SlotValues slots = testing::random_slots(random, program, 203);
    expect_matches_reference(program, params, slots, {ir::Precision::kF64, 0.0, 203});
    expect_matches_reference(program, params, slots, {ir::Precision::kF32, 5e-3, 203});
    for (const ir::Precision precision : {ir::Precision::kF64, ir::Precision::kF32}) {
        auto kernel = compile(program, precision);
        ASSERT_TRUE(kernel.has_value()) << kernel.error().message;
        EXPECT_TRUE(kernel->vectorized()) << precision_name(precision);
        EXPECT_GT(kernel->compile_seconds(), 0.0);
        EXPECT_LT(kernel->compile_seconds(), 5.0);
        EXPECT_GT(kernel->llvm_instruction_count(), 0U);
    }
}

TEST(JitKernels, TheVectorisedLoopPrefetchesEveryInputStream) {
    // 16 complex inputs are 32 column parts, each loaded once per vector iteration.
    for (const ir::Precision precision : {ir::Precision::kF64, ir::Precision::kF32}) {
        auto kernel = compile(coherent_sum(16), precision);
        ASSERT_TRUE(kernel.has_value()) << kernel.error().message;
        EXPECT_EQ(kernel->prefetched_streams(), 32U) << precision_name(precision);
    }
    // A loop that calls a helper per event stays scalar: nothing to prefetch ahead of.
    auto scalar = compile(solve_program(5, 1, true), ir::Precision::kF64);
    ASSERT_TRUE(scalar.has_value()) << scalar.error().message;
    EXPECT_FALSE(scalar->vectorized());
    EXPECT_EQ(scalar->prefetched_streams(), 0U);
}

TEST(JitKernels, PrefetchesPastTheLastColumnDoNotFault) {
    // Each input column ends exactly where an inaccessible page begins: the loop's last
    // iterations prefetch (never load) beyond it, which must neither fault nor change a value.
    const ir::Program program = coherent_sum(2);
    auto kernel = compile(program, ir::Precision::kF64);
    ASSERT_TRUE(kernel.has_value()) << kernel.error().message;
    ASSERT_GT(kernel->prefetched_streams(), 0U);
    const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    constexpr std::size_t kEvents = 64;
    const std::size_t parts = kernel->input_pointer_count();
    const std::size_t span = 2 * page;
    void* mapped =
        mmap(nullptr, parts * span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(mapped, MAP_FAILED);
    auto* base = static_cast<char*>(mapped);
    std::vector<const double*> inputs;
    for (std::size_t c = 0; c < parts; ++c) {
        ASSERT_EQ(mprotect(base + c * span + page, page, PROT_NONE), 0);
        auto* column = reinterpret_cast<double*>(base + c * span + page) - kEvents;
        for (std::size_t e = 0; e < kEvents; ++e) {
            column[e] = 0.25 * static_cast<double>(c + 1) + 0.001 * static_cast<double>(e);
        }
        inputs.push_back(column);
    }
    const std::vector<double> params = {0.5, -1.0, 2.0, 0.25};
    std::vector<double> out(kEvents, -1.0);
    double* outputs[] = {out.data()};
    kernel->run(params.data(), inputs.data(), outputs, 0, static_cast<std::int64_t>(kEvents));
    for (std::size_t e = 0; e < kEvents; ++e) {
        std::complex<double> sum = 0.0;
        for (std::size_t k = 0; k < 2; ++k) {
            const std::complex<double> coupling(params[2 * k], params[2 * k + 1]);
            sum += coupling * std::complex<double>(inputs[2 * k][e], inputs[2 * k + 1][e]);
        }
        EXPECT_NEAR(out[e], std::norm(sum), 1e-12 * std::norm(sum)) << "event " << e;
    }
    munmap(mapped, parts * span);
}

TEST(JitKernels, OddRangesTouchOnlyTheirEvents) {
    const ir::Program program = coherent_sum(3);
    Random random(701);
    const auto params = random_params(random, program.parameter_count);
    const SlotValues slots = testing::random_slots(random, program, 1031);
    const std::array<std::pair<std::int64_t, std::int64_t>, 9> ranges = {
        {{0, 0}, {5, 5}, {9, 3}, {0, 1}, {3, 4}, {1, 8}, {7, 24}, {13, 1030}, {0, 1031}}};
    for (const ir::Precision precision : {ir::Precision::kF64, ir::Precision::kF32}) {
        for (const auto& [begin, end] : ranges) {
            SCOPED_TRACE(std::to_string(begin) + testing::numbered(" <= event < ", end));
            Check check{precision, precision == ir::Precision::kF64 ? 0.0 : 5e-3, 1031, begin, end};
            expect_matches_reference(program, params, slots, check);
        }
    }
}

// Several outputs (Complex and Real), a division, a vector intrinsic (exp) and a libm call (tan,
// scalarised per lane).
ir::Program mixed_outputs_program() {
    ir::Builder b;
    const ValueId z = b.load(b.add_input("z", ValueKind::kComplex));
    const ValueId x = b.load(b.add_input("x", ValueKind::kReal));
    const ValueId c = b.complex(b.param(0), b.param(1));
    const ValueId w =
        b.binary(OpCode::kDiv, b.binary(OpCode::kMul, c, z), b.binary(OpCode::kAdd, x, c));
    b.add_output(w);
    b.add_output(b.binary(OpCode::kAdd, b.unary(OpCode::kNormSqr, w), b.unary(OpCode::kExp, x)));
    b.add_output(b.unary(OpCode::kTan, x));
    return b.finish();
}

// The vectoriser folds the loop tail into masked vector iterations (no scalar epilogue). Every
// range length up to past two f32 AVX-512 vectors, from aligned and unaligned starts, must
// compute its events and write nothing else.
TEST(JitKernels, EveryTailLengthOfAFoldedLoopWithSeveralOutputs) {
    const ir::Program program = mixed_outputs_program();
    Random random(706);
    const auto params = random_params(random, program.parameter_count);
    const SlotValues slots = testing::random_slots(random, program, 48);
    for (const ir::Precision precision : {ir::Precision::kF64, ir::Precision::kF32}) {
        for (const std::int64_t begin : {0, 1, 3}) {
            for (std::int64_t length = 0; begin + length <= 48; ++length) {
                SCOPED_TRACE(std::to_string(begin) + testing::numbered(" + ", length));
                Check check{precision, precision == ir::Precision::kF64 ? 4e-15 : 5e-3, 48, begin,
                            begin + length};
                expect_matches_reference(program, params, slots, check);
            }
        }
    }
}

// Reductions are bit-identical for any thread count only if an event's values do not depend on
// which call computed it: where the vector lanes start, or whether it fell in a masked tail.
TEST(JitKernels, EventValuesDoNotDependOnHowTheRangeIsSplit) {
    const ir::Program program = mixed_outputs_program();
    Random random(707);
    const auto params = random_params(random, program.parameter_count);
    const SlotValues slots = testing::random_slots(random, program, 1000);
    const Columns in(program, slots);
    for (const ir::Precision precision : {ir::Precision::kF64, ir::Precision::kF32}) {
        auto kernel = compile(program, precision);
        ASSERT_TRUE(kernel.has_value()) << kernel.error().message;
        Outputs whole(program, 1000);
        Outputs pieces(program, 1000);
        kernel->run(params.data(), in.pointers.data(), whole.pointers.data(), 0, 1000);
        std::int64_t begin = 0;
        for (std::int64_t step = 1; begin < 1000; step = step * 3 % 97 + 1) {
            const std::int64_t end = std::min<std::int64_t>(begin + step, 1000);
            kernel->run(params.data(), in.pointers.data(), pieces.pointers.data(), begin, end);
            begin = end;
        }
        for (std::size_t k = 0; k < program.outputs.size(); ++k) {
            for (std::size_t e = 0; e < 1000; ++e) {
                ASSERT_EQ(whole.value(k, e), pieces.value(k, e))
                    << "output " << k << ", event " << e << ", " << precision_name(precision);
            }
        }
    }
}

TEST(JitKernels, InvariantsAreHoistedAndFollowTheParameters) {
    // An invariant chain (transcendentals of parameters) feeding event arithmetic; a second call
    // with other parameters must see new invariants, and invariant outputs are broadcast.
    ir::Builder b;
    const ValueId z = b.load(b.add_input("z", ValueKind::kComplex));
    const ValueId g = b.unary(OpCode::kExp, b.complex(b.param(0), b.param(1)));
    const ValueId h = b.binary(OpCode::kDiv, b.unary(OpCode::kSin, b.param(0)), g);
    b.add_output(b.binary(OpCode::kMul, h, z));
    b.add_output(h);
    const ir::Program program = b.finish();
    ASSERT_EQ(program.at(h).cls, ir::ValueClass::kInvariant);
    Random random(702);
    const SlotValues slots = testing::random_slots(random, program, 19);
    expect_matches_reference(program, {0.3, -0.4}, slots, {ir::Precision::kF64, 4e-15, 19});
    expect_matches_reference(program, {-1.1, 2.5}, slots, {ir::Precision::kF64, 4e-15, 19});
    expect_matches_reference(program, {-1.1, 2.5}, slots, {ir::Precision::kF32, 5e-3, 19});
}

TEST(JitCache, SameProgramReturnsTheSameKernel) {
    const ir::Program program = coherent_sum(5);
    auto first = compile(program, ir::Precision::kF64);
    ASSERT_TRUE(first.has_value()) << first.error().message;
    const std::size_t size = cache_size();
    auto second = compile(program, ir::Precision::kF64);
    ASSERT_TRUE(second.has_value());
    EXPECT_TRUE(*first == *second);
    EXPECT_EQ(first->module(), second->module());
    EXPECT_EQ(first->compile_seconds(), second->compile_seconds());
    EXPECT_EQ(cache_size(), size);

    auto single = compile(program, ir::Precision::kF32);
    ASSERT_TRUE(single.has_value());
    EXPECT_FALSE(*single == *first);
    EXPECT_EQ(cache_size(), size + 1);

    auto fresh = compile_uncached(program, ir::Precision::kF64);
    ASSERT_TRUE(fresh.has_value());
    EXPECT_FALSE(*fresh == *first);
    EXPECT_EQ(cache_size(), size + 1);

    ir::Program renamed = program;
    renamed.inputs[0].name = "other";  // names are not part of the key
    auto same = compile(renamed, ir::Precision::kF64);
    ASSERT_TRUE(same.has_value());
    EXPECT_TRUE(*same == *first);
}

TEST(JitKernels, FastCodeGenComputesTheSameBits) {
    const ir::Program program = coherent_sum(9);
    Random random(704);
    const auto params = random_params(random, program.parameter_count);
    const SlotValues slots = testing::random_slots(random, program, 77);
    const Columns in(program, slots);
    Outputs optimized(program, 77);
    Outputs fast(program, 77);
    auto a = compile(program, ir::Precision::kF64, CodeGen::kOptimized);
    auto b = compile(program, ir::Precision::kF64, CodeGen::kFast);
    ASSERT_TRUE(a.has_value() && b.has_value());
    EXPECT_FALSE(*a == *b);  // cached separately
    a->run(params.data(), in.pointers.data(), optimized.pointers.data(), 0, 77);
    b->run(params.data(), in.pointers.data(), fast.pointers.data(), 0, 77);
    for (std::size_t e = 0; e < 77; ++e) {
        EXPECT_EQ(optimized.value(0, e), fast.value(0, e)) << "event " << e;
        EXPECT_TRUE(close(fast.value(0, e),
                          testing::contract_reference(program, params, slots, e)[0], 0.0));
    }
}

// Float input columns (an f32 event cache): an f32 kernel reading them gives the bits it gives
// on double columns, which it rounds on load; an f64 kernel widens them exactly.
TEST(JitKernels, FloatInputColumnsGiveTheBitsOfRoundedDoubleColumns) {
    for (std::uint64_t seed = 300; seed < 312; ++seed) {
        SCOPED_TRACE(testing::numbered("seed ", seed));
        Random random(seed);
        testing::RandomProgramOptions options;
        options.instructions = 30 + random.below(120);
        options.real_inputs = 1 + random.below(3);
        options.complex_inputs = 1 + random.below(3);
        const ir::Program program =
            seed == 300 ? coherent_sum(7) : testing::random_program(random, options);
        const auto params = random_params(random, program.parameter_count);
        constexpr std::size_t kEvents = 45;
        const SlotValues slots = testing::random_slots(random, program, kEvents);
        Columns wide(program, slots);
        std::vector<AlignedVector<float>> narrow_storage;
        std::vector<const float*> narrow;
        for (auto& column : wide.storage) {
            AlignedVector<float> rounded(column.begin(), column.end());
            // The double columns now hold exactly the float values.
            std::copy(rounded.begin(), rounded.end(), column.begin());
            narrow_storage.push_back(std::move(rounded));
        }
        for (const auto& column : narrow_storage) {
            narrow.push_back(column.data());
        }
        for (const ir::Precision precision : {ir::Precision::kF32, ir::Precision::kF64}) {
            auto from_double = compile(program, precision);
            auto from_float =
                compile(program, precision, CodeGen::kOptimized, InputColumns::kFloat);
            ASSERT_TRUE(from_double.has_value()) << from_double.error().message;
            ASSERT_TRUE(from_float.has_value()) << from_float.error().message;
            EXPECT_FALSE(*from_double == *from_float);  // cached separately
            EXPECT_EQ(from_float->input_columns(), InputColumns::kFloat);
            Outputs a(program, kEvents);
            Outputs b(program, kEvents);
            from_double->run(params.data(), wide.pointers.data(), a.pointers.data(), 0, kEvents);
            from_float->run(params.data(), narrow.data(), b.pointers.data(), 0, kEvents);
            for (std::size_t out = 0; out < program.outputs.size(); ++out) {
                for (std::size_t e = 0; e < kEvents; ++e) {
                    const Complex x = a.value(out, e);
                    const Complex y = b.value(out, e);
                    const auto same = [](double u, double v) {
                        return (std::isnan(u) && std::isnan(v)) ||
                               (u == v && std::signbit(u) == std::signbit(v));
                    };
                    ASSERT_TRUE(same(x.real(), y.real()) && same(x.imag(), y.imag()))
                        << precision_name(precision) << " output " << out << " event " << e << ": "
                        << x << " vs " << y;
                }
            }
        }
    }
}

TEST(JitKernels, ThreadsRunOneKernelOnDisjointRanges) {
    const ir::Program program = coherent_sum(4);
    auto kernel = compile(program, ir::Precision::kF64);
    ASSERT_TRUE(kernel.has_value()) << kernel.error().message;
    Random random(705);
    const auto params = random_params(random, program.parameter_count);
    const SlotValues slots = testing::random_slots(random, program, 4003);
    const Columns in(program, slots);
    Outputs out(program, 4003);
    std::vector<std::thread> threads;
    for (std::int64_t t = 0; t < 4; ++t) {
        threads.emplace_back([&, t] {
            kernel->run(params.data(), in.pointers.data(), out.pointers.data(), t * 1001,
                        std::min<std::int64_t>((t + 1) * 1001, 4003));
        });
    }
    for (auto& thread : threads) {
        thread.join();
    }
    for (std::size_t e = 0; e < 4003; ++e) {
        ASSERT_TRUE(
            close(out.value(0, e), testing::contract_reference(program, params, slots, e)[0], 0.0))
            << "event " << e;
    }
}

TEST(JitCache, ConcurrentCompilesAgreeOnOneKernel) {
    const ir::Program program = coherent_sum(7);
    std::vector<KernelFn> seen(4, nullptr);
    std::vector<std::thread> threads;
    for (std::size_t t = 0; t < seen.size(); ++t) {
        threads.emplace_back([&, t] {
            auto kernel = compile(program, ir::Precision::kF64);
            seen[t] = kernel ? kernel->function() : nullptr;
        });
    }
    for (auto& thread : threads) {
        thread.join();
    }
    for (const KernelFn fn : seen) {
        EXPECT_NE(fn, nullptr);
        EXPECT_EQ(fn, seen[0]);
    }
}

TEST(JitCache, KernelOutlivesAClearedCache) {
    const ir::Program program = coherent_sum(2);
    auto kernel = compile(program, ir::Precision::kF64);
    ASSERT_TRUE(kernel.has_value());
    clear_cache();
    EXPECT_EQ(cache_size(), 0U);
    Random random(703);
    const auto params = random_params(random, program.parameter_count);
    const SlotValues slots = testing::random_slots(random, program, 9);
    const Columns in(program, slots);
    Outputs out(program, 9);
    kernel->run(params.data(), in.pointers.data(), out.pointers.data(), 0, 9);
    for (std::size_t e = 0; e < 9; ++e) {
        EXPECT_TRUE(
            close(out.value(0, e), testing::contract_reference(program, params, slots, e)[0], 0.0));
    }
}

void expect_backend_failure(const ir::Program& program, const std::string& fragment) {
    for (const ir::Precision precision : {ir::Precision::kF64, ir::Precision::kF32}) {
        auto kernel = compile(program, precision);
        ASSERT_FALSE(kernel.has_value());
        EXPECT_EQ(kernel.error().kind, ErrorKind::kBackend);
        EXPECT_NE(kernel.error().message.find("jit: cannot compile an invalid program"),
                  std::string::npos)
            << kernel.error().message;
        EXPECT_NE(kernel.error().message.find(fragment), std::string::npos)
            << kernel.error().message;
        EXPECT_THROW((void)kernel.value(), BackendError);
    }
}

TEST(JitErrors, InvalidProgramsFailWithBackendError) {
    ir::Program no_outputs;
    no_outputs.instructions.push_back(ir::Instruction{});
    expect_backend_failure(no_outputs, "output");

    // An operand naming a later value (not topological).
    ir::Builder b;
    const ValueId x = b.load(b.add_input("x", ValueKind::kReal));
    b.add_output(b.unary(OpCode::kNeg, x));
    ir::Program forward = b.finish();
    forward.operands[0] = ir::value_id(5);
    expect_backend_failure(forward, "%");

    // A parameter index beyond parameter_count.
    ir::Builder c;
    c.add_output(c.param(3));
    ir::Program params = c.finish();
    params.parameter_count = 1;
    expect_backend_failure(params, "param");
}

}  // namespace
}  // namespace laddu::jit
