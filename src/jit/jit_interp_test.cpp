// JIT against the batch interpreter (interp/): the two backends the runtime switches between
// must agree bit for bit in f64 wherever they call the same libm functions, and to float
// rounding in f32.
#include <array>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/base/aligned.hpp>
#include <laddu/interp/interpreter.hpp>
#include <laddu/ir/builder.hpp>
#include <laddu/ir/print.hpp>
#include <laddu/jit/jit.hpp>

#include "reference/random_program.hpp"
#include "scoped_env.hpp"

namespace laddu::jit {
namespace {

using ir::OpCode;
using ir::ValueId;
using ir::ValueKind;
using testing::Complex;
using testing::Random;
using testing::SlotValues;

struct Data {
    std::vector<AlignedVector<double>> re;
    std::vector<AlignedVector<double>> im;
};

// Runs `program` over all events with both backends and compares every output.
void expect_backends_agree(const ir::Program& program, std::uint64_t seed, ir::Precision precision,
                           double tolerance, std::size_t events = 150) {
    SCOPED_TRACE(ir::to_string(program));
    Random random(seed);
    std::vector<double> params;
    for (std::uint32_t k = 0; k < program.parameter_count; ++k) {
        params.push_back(random.uniform(-1.5, 1.5));
    }
    const SlotValues slots = testing::random_slots(random, program, events);
    Data data;
    std::vector<ir::InputColumn> interp_inputs;
    std::vector<const double*> jit_inputs;
    for (std::size_t s = 0; s < slots.size(); ++s) {
        AlignedVector<double> re;
        AlignedVector<double> im;
        for (const Complex& z : slots[s]) {
            re.push_back(z.real());
            im.push_back(z.imag());
        }
        data.re.push_back(std::move(re));
        data.im.push_back(std::move(im));
    }
    for (std::size_t s = 0; s < slots.size(); ++s) {
        const bool c = program.inputs[s].kind == ValueKind::kComplex;
        interp_inputs.push_back({data.re[s].data(), c ? data.im[s].data() : nullptr});
        jit_inputs.push_back(data.re[s].data());
        if (c) {
            jit_inputs.push_back(data.im[s].data());
        }
    }
    const std::size_t outputs = program.outputs.size();
    std::vector<AlignedVector<double>> iout_re(outputs, AlignedVector<double>(events));
    std::vector<AlignedVector<double>> iout_im(outputs, AlignedVector<double>(events));
    std::vector<AlignedVector<double>> jout_re(outputs, AlignedVector<double>(events));
    std::vector<AlignedVector<double>> jout_im(outputs, AlignedVector<double>(events, 0.0));
    std::vector<ir::OutputColumn> interp_outputs;
    std::vector<double*> jit_outputs;
    for (std::size_t k = 0; k < outputs; ++k) {
        const bool c = program.at(program.outputs[k]).kind == ValueKind::kComplex;
        interp_outputs.push_back({iout_re[k].data(), c ? iout_im[k].data() : nullptr});
        jit_outputs.push_back(jout_re[k].data());
        if (c) {
            jit_outputs.push_back(jout_im[k].data());
        }
    }

    const auto interp_precision =
        precision == ir::Precision::kF32 ? ir::Precision::kF32 : ir::Precision::kF64;
    const interp::Interpreter interpreter = interp::Interpreter::prepare(program, interp_precision);
    interp::Workspace workspace = interpreter.make_workspace();
    interpreter.run(params, ir::ColumnView{interp_inputs, events}, 0, events, workspace,
                    ir::OutputView{interp_outputs});

    auto kernel = compile(program, precision);
    ASSERT_TRUE(kernel.has_value()) << kernel.error().message;
    kernel->run(params.data(), jit_inputs.data(), jit_outputs.data(), 0,
                static_cast<std::int64_t>(events));

    for (std::size_t k = 0; k < outputs; ++k) {
        const bool c = program.at(program.outputs[k]).kind == ValueKind::kComplex;
        for (std::size_t e = 0; e < events; ++e) {
            const Complex want(iout_re[k][e], c ? iout_im[k][e] : 0.0);
            const Complex got(jout_re[k][e], jout_im[k][e]);
            const bool want_nan = std::isnan(want.real()) || std::isnan(want.imag());
            const bool got_nan = std::isnan(got.real()) || std::isnan(got.imag());
            if (want_nan || got_nan) {
                ASSERT_EQ(want_nan, got_nan) << "output " << k << " event " << e;
                continue;
            }
            if (got == want) {
                continue;
            }
            ASSERT_LE(std::abs(got - want), tolerance * std::abs(want))
                << "output " << k << " event " << e << ": jit " << got << ", interp " << want
                << " (" << precision_name(precision) << ")";
        }
    }
}

void expect_agree_both(const ir::Program& program, std::uint64_t seed, double f64_tolerance) {
    expect_backends_agree(program, seed, ir::Precision::kF64, f64_tolerance);
    expect_backends_agree(program, seed, ir::Precision::kF32, 5e-3);
}

TEST(JitVsInterp, EveryUnaryOpcode) {
    constexpr std::array<OpCode, 20> kOps = {
        OpCode::kNeg,  OpCode::kConj, OpCode::kSqrt, OpCode::kExp,     OpCode::kLog,
        OpCode::kSin,  OpCode::kCos,  OpCode::kTan,  OpCode::kAsin,    OpCode::kAcos,
        OpCode::kAtan, OpCode::kSinh, OpCode::kCosh, OpCode::kTanh,    OpCode::kReal,
        OpCode::kImag, OpCode::kAbs,  OpCode::kArg,  OpCode::kNormSqr, OpCode::kPowI};
    for (const OpCode op : kOps) {
        for (const ValueKind kind : {ValueKind::kReal, ValueKind::kComplex}) {
            SCOPED_TRACE(std::string(ir::opcode_name(op)) + " " + std::string(ir::kind_name(kind)));
            ir::Builder b;
            const ValueId a = b.load(b.add_input("a", kind));
            const ValueId p =
                kind == ValueKind::kReal ? b.param(0) : b.complex(b.param(0), b.param(1));
            if (op == OpCode::kPowI) {
                b.add_output(b.pow_i(a, 5));
                b.add_output(b.pow_i(a, -3));
                b.add_output(b.pow_i(p, 2));
            } else {
                b.add_output(b.unary(op, a));
                b.add_output(b.unary(op, p));
            }
            expect_agree_both(b.finish(), 10 + static_cast<std::uint64_t>(op), 0.0);
        }
    }
}

TEST(JitVsInterp, EveryBinaryAndNaryOpcode) {
    constexpr std::array<OpCode, 5> kOps = {OpCode::kAdd, OpCode::kSub, OpCode::kMul, OpCode::kDiv,
                                            OpCode::kPow};
    for (const ValueKind ka : {ValueKind::kReal, ValueKind::kComplex}) {
        for (const ValueKind kb : {ValueKind::kReal, ValueKind::kComplex}) {
            ir::Builder b;
            const ValueId x = b.load(b.add_input("a", ka));
            const ValueId y = b.load(b.add_input("b", kb));
            for (const OpCode op : kOps) {
                b.add_output(b.binary(op, x, y));
                b.add_output(b.binary(op, b.param(0), y));
            }
            const std::vector<ValueId> ops = {x, y, b.param(1), y, x};
            b.add_output(b.add_n(ops));
            b.add_output(b.mul_n(ops));
            b.add_output(b.dot(std::vector<ValueId>{x, y}, std::vector<ValueId>{y, b.param(2)}));
            b.add_output(
                b.binary(OpCode::kAtan2, b.unary(OpCode::kReal, x), b.unary(OpCode::kImag, y)));
            b.add_output(b.complex(b.unary(OpCode::kReal, y), b.param(1)));
            // pow goes through std::complex log/exp in both, but the interpreter evaluates
            // them in T and the JIT in double: a few ulp apart.
            expect_agree_both(b.finish(), 20, 4e-15);
        }
    }
}

TEST(JitVsInterp, SolvesAgree) {
    for (std::uint32_t n = 1; n <= 4; ++n) {
        for (std::uint32_t m = 1; m <= 2; ++m) {
            SCOPED_TRACE(testing::numbered("n=", n) + testing::numbered(" m=", m));
            ir::Builder b;
            const ValueId z = b.load(b.add_input("z", ValueKind::kComplex));
            std::vector<ValueId> ops;
            for (std::uint32_t k = 0; k < n * n; ++k) {
                const ValueId scale = b.const_complex(0.1 * k, 0.3 + 0.05 * k);
                ValueId e = b.binary(OpCode::kMul, k % 3 == 0 ? z : b.param(k % 2), scale);
                if (k % (n + 1) == 0) {
                    e = b.binary(OpCode::kAdd, e, b.const_real(3.0));
                }
                ops.push_back(e);
            }
            for (std::uint32_t k = 0; k < n * m; ++k) {
                ops.push_back(k % 2 == 0 ? z : b.param(0));
            }
            const ValueId x = b.solve(n, m, ops);
            for (std::uint32_t k = 0; k < n * m; ++k) {
                b.add_output(b.extract(x, k));
            }
            expect_agree_both(b.finish(), 30 + n, 0.0);
        }
    }
}

TEST(JitVsInterp, RandomPrograms) {
    for (std::uint64_t seed = 1; seed <= 30; ++seed) {
        SCOPED_TRACE(testing::numbered("seed ", seed));
        Random random(seed * 7919);
        testing::RandomProgramOptions options;
        options.instructions = 40 + random.below(300);
        options.transcendental = seed % 3 != 0;
        // A third with more outputs than kTargetScheduleMaxOutputs: the "ilpmin" schedule.
        options.outputs = seed % 3 == 1 ? 12 : 3;
        expect_agree_both(testing::random_program(random, options), seed, 1e-13);
    }
}

// |Σ_k c_k amp_k|² over `amps` Complex inputs, with couplings c_k = (param 2k, param 2k + 1);
// with `derivatives`, also the real and imaginary parts of conj(Σ) · amp_k for every k, as a
// reverse-mode gradient kernel computes them (2 · amps + 1 outputs).
ir::Program coherent_sum(std::uint32_t amps, bool derivatives) {
    ir::Builder b;
    std::vector<ValueId> loads;
    std::vector<ValueId> terms;
    for (std::uint32_t k = 0; k < amps; ++k) {
        loads.push_back(b.load(b.add_input(testing::numbered("amp", k), ValueKind::kComplex)));
        terms.push_back(
            b.binary(OpCode::kMul, b.complex(b.param(2 * k), b.param(2 * k + 1)), loads.back()));
    }
    const ValueId sum = b.add_n(terms);
    b.add_output(b.unary(OpCode::kNormSqr, sum));
    if (derivatives) {
        const ValueId adjoint = b.unary(OpCode::kConj, sum);
        for (const ValueId amp : loads) {
            const ValueId product = b.binary(OpCode::kMul, adjoint, amp);
            b.add_output(b.unary(OpCode::kReal, product));
            b.add_output(b.unary(OpCode::kImag, product));
        }
    }
    return b.finish();
}

// Kernels with more than kTargetScheduleMaxOutputs outputs are scheduled by LLVM's "ilpmin"
// (schedule.cpp), against the interpreter (RandomPrograms has more).
TEST(JitVsInterp, ManyOutputKernelsAreBitIdenticalInF64) {
    const ir::Program program = coherent_sum(8, /*derivatives=*/true);
    ASSERT_EQ(program.outputs.size(), 17U);
    expect_backends_agree(program, 41, ir::Precision::kF64, 0.0, 1000);
    expect_backends_agree(program, 41, ir::Precision::kF32, 5e-3, 1000);
}

// Code generation of both schedules at once from two threads (the scheduler is a global LLVM
// option that schedule.cpp sets under a lock): every kernel still agrees with the interpreter.
// No object cache, so every compile generates code.
TEST(JitVsInterp, KernelsOfBothSchedulesCompiledConcurrentlyAgree) {
    const laddu::testing::ScopedEnv off("LADDU_JIT_CACHE", "off");  // before the threads
    std::thread many([] {
        for (std::uint32_t couplings = 3; couplings <= 6; ++couplings) {
            expect_backends_agree(coherent_sum(couplings, /*derivatives=*/true), 50 + couplings,
                                  ir::Precision::kF64, 0.0);
        }
    });
    std::thread one([] {
        for (std::uint32_t amps = 3; amps <= 6; ++amps) {
            expect_backends_agree(coherent_sum(amps, /*derivatives=*/false), 60 + amps,
                                  ir::Precision::kF64, 0.0);
        }
    });
    many.join();
    one.join();
}

TEST(JitVsInterp, CoherentSumIsBitIdenticalInF64) {
    const ir::Program program = coherent_sum(16, /*derivatives=*/false);
    expect_backends_agree(program, 40, ir::Precision::kF64, 0.0, 1000);
    expect_backends_agree(program, 40, ir::Precision::kF32, 5e-3, 1000);
}

}  // namespace
}  // namespace laddu::jit
