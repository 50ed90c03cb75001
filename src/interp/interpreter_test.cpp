#include <algorithm>
#include <array>
#include <bit>
#include <complex>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/interp/interpreter.hpp>
#include <laddu/ir/builder.hpp>
#include <laddu/ir/fuse_dots.hpp>
#include <laddu/ir/fuse_product_parts.hpp>

#include "reference/program_reference.hpp"

namespace laddu::interp {
namespace {

using ir::Builder;
using ir::OpCode;
using ir::ValueId;
using ir::ValueKind;
using C = laddu::testing::Complex;
using EventInputs = laddu::testing::SlotValues;

constexpr std::array<std::size_t, 5> kSizes = {1, kBlockSize - 1, kBlockSize, kBlockSize + 1,
                                               3 * kBlockSize + 5};

// Event data for a program: SoA double columns plus the same values as std::complex.
struct Data {
    std::vector<std::vector<double>> re;
    std::vector<std::vector<double>> im;
    std::vector<ir::InputColumn> columns;
    EventInputs events;
    std::size_t count = 0;

    [[nodiscard]] ir::ColumnView view() const { return ir::ColumnView{columns, count}; }
};

// Real inputs in [lo, hi] (a domain where sqrt, log, asin, acos are real); complex inputs with
// parts in [-1, 1].
Data make_data(const ir::Program& program, std::size_t count, unsigned seed, double lo = 0.1,
               double hi = 0.9) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> real(lo, hi);
    std::uniform_real_distribution<double> part(-1.0, 1.0);
    Data data;
    data.count = count;
    for (const ir::InputSlot& slot : program.inputs) {
        std::vector<double> re(count);
        std::vector<double> im(slot.kind == ValueKind::kComplex ? count : 0);
        std::vector<C> values(count);
        for (std::size_t i = 0; i < count; ++i) {
            if (slot.kind == ValueKind::kComplex) {
                re[i] = part(rng);
                im[i] = part(rng);
                values[i] = C(re[i], im[i]);
            } else {
                re[i] = real(rng);
                values[i] = re[i];
            }
        }
        data.re.push_back(std::move(re));
        data.im.push_back(std::move(im));
        data.events.push_back(std::move(values));
    }
    for (std::size_t slot = 0; slot < program.inputs.size(); ++slot) {
        data.columns.push_back(ir::InputColumn{
            data.re[slot].data(), data.im[slot].empty() ? nullptr : data.im[slot].data()});
    }
    return data;
}

// Runs `interp` over all events of `data`; result[output][event].
std::vector<std::vector<C>> run_all(const Interpreter& interp, const std::vector<double>& params,
                                    const Data& data) {
    const std::size_t outputs = interp.program().outputs.size();
    std::vector<std::vector<double>> re(outputs, std::vector<double>(data.count));
    std::vector<std::vector<double>> im(outputs, std::vector<double>(data.count));
    std::vector<ir::OutputColumn> columns;
    for (std::size_t j = 0; j < outputs; ++j) {
        columns.push_back(ir::OutputColumn{re[j].data(), im[j].data()});
    }
    Workspace ws = interp.make_workspace();
    interp.run(params, data.view(), 0, data.count, ws, ir::OutputView{columns});
    std::vector<std::vector<C>> result(outputs, std::vector<C>(data.count));
    for (std::size_t j = 0; j < outputs; ++j) {
        for (std::size_t i = 0; i < data.count; ++i) {
            result[j][i] = C(re[j][i], im[j][i]);
        }
    }
    return result;
}

bool close(C got, C want, double tolerance) {
    if (std::isnan(want.real()) || std::isnan(want.imag())) {
        return std::isnan(got.real()) || std::isnan(got.imag());
    }
    return std::abs(got - want) <= tolerance * std::max(1.0, std::abs(want));
}

// Compares the interpreter with the reference evaluator on every block-boundary size.
void expect_matches_reference(const ir::Program& program, const std::vector<double>& params,
                              double tolerance = 1e-12, unsigned seed = 1) {
    const Interpreter interp = Interpreter::prepare(program, ir::Precision::kF64);
    for (const std::size_t count : kSizes) {
        const Data data = make_data(program, count, seed + static_cast<unsigned>(count));
        const auto got = run_all(interp, params, data);
        for (std::size_t i = 0; i < count; ++i) {
            const auto want = laddu::testing::run_reference(program, params, data.events, i);
            for (std::size_t j = 0; j < want.size(); ++j) {
                ASSERT_TRUE(close(got[j][i], want[j], tolerance))
                    << "output " << j << " (%" << ir::to_index(program.outputs[j]) << ") event "
                    << i << " of " << count << ": got " << got[j][i] << ", want " << want[j];
            }
        }
    }
}

// A program with a Real and a Complex event input and two parameters; `body` adds outputs
// from the four leaves x (event Real), z (event Complex), p (invariant Real), c (invariant
// Complex).
template <typename Body>
ir::Program leaf_program(Body body) {
    Builder b;
    const ValueId x = b.load(b.add_input("x", ValueKind::kReal));
    const ValueId z = b.load(b.add_input("z", ValueKind::kComplex));
    const ValueId p = b.param(0);
    const ValueId c = b.complex(b.param(1), b.param(2));
    body(b, std::array<ValueId, 4>{x, z, p, c});
    return b.finish();
}

const std::vector<double> kParams = {0.6, -0.3, 0.7};

constexpr std::array<OpCode, 19> kUnaryOps = {
    OpCode::kNeg,  OpCode::kConj, OpCode::kSqrt, OpCode::kExp,    OpCode::kLog,
    OpCode::kSin,  OpCode::kCos,  OpCode::kTan,  OpCode::kAsin,   OpCode::kAcos,
    OpCode::kAtan, OpCode::kSinh, OpCode::kCosh, OpCode::kTanh,   OpCode::kReal,
    OpCode::kImag, OpCode::kAbs,  OpCode::kArg,  OpCode::kNormSqr};

TEST(Interpreter, UnaryOpsMatchReferenceOnEveryKindAndClass) {
    for (const OpCode op : kUnaryOps) {
        SCOPED_TRACE(std::string(ir::opcode_name(op)));
        const auto program = leaf_program([op](Builder& b, std::array<ValueId, 4> leaves) {
            for (const ValueId leaf : leaves) {
                b.add_output(b.unary(op, leaf));
            }
        });
        expect_matches_reference(program, kParams);
    }
}

TEST(Interpreter, PowIMatchesReference) {
    for (const std::int32_t n : {0, 1, 2, 3, 5, 8, 13, -1, -2, -7}) {
        SCOPED_TRACE(n);
        const auto program = leaf_program([n](Builder& b, std::array<ValueId, 4> leaves) {
            for (const ValueId leaf : leaves) {
                b.add_output(b.pow_i(leaf, n));
            }
        });
        expect_matches_reference(program, kParams, 1e-13);
    }
}

TEST(Interpreter, BinaryOpsMatchReferenceOnEveryKindPair) {
    for (const OpCode op : {OpCode::kAdd, OpCode::kSub, OpCode::kMul, OpCode::kDiv, OpCode::kPow}) {
        SCOPED_TRACE(std::string(ir::opcode_name(op)));
        const auto program = leaf_program([op](Builder& b, std::array<ValueId, 4> leaves) {
            for (const ValueId lhs : leaves) {
                for (const ValueId rhs : leaves) {
                    b.add_output(b.binary(op, lhs, rhs));
                }
            }
        });
        expect_matches_reference(program, kParams);
    }
}

TEST(Interpreter, Atan2AndComplexMatchReference) {
    const auto program = leaf_program([](Builder& b, std::array<ValueId, 4> leaves) {
        const ValueId x = leaves[0];
        const ValueId p = leaves[2];
        const ValueId nx = b.unary(OpCode::kNeg, x);
        for (const ValueId lhs : {x, p, nx}) {
            for (const ValueId rhs : {x, p, nx}) {
                b.add_output(b.binary(OpCode::kAtan2, lhs, rhs));
                b.add_output(b.complex(lhs, rhs));
            }
        }
    });
    expect_matches_reference(program, kParams);
}

TEST(Interpreter, AddNMulNAndDotMatchReferenceOnMixedKinds) {
    const auto program = leaf_program([](Builder& b, std::array<ValueId, 4> l) {
        const auto [x, z, p, c] = l;
        const std::vector<std::vector<ValueId>> lists = {
            {x},       {z},          {x, p, x},       {p, x, z, c}, {z, x, x, c, p},
            {c, p, p}, {x, x, x, z}, {p, c, z, z, x}, {p, p}};
        for (const auto& list : lists) {
            b.add_output(b.add_n(list));
            b.add_output(b.mul_n(list));
            std::vector<ValueId> reversed(list.rbegin(), list.rend());
            b.add_output(b.dot(list, reversed));
        }
    });
    expect_matches_reference(program, kParams);
}

TEST(Interpreter, SolveAndExtractMatchReference) {
    const auto program = leaf_program([](Builder& b, std::array<ValueId, 4> l) {
        const auto [x, z, p, c] = l;
        const ValueId one = b.const_real(1.0);
        const ValueId two = b.const_complex(2.0, 0.5);
        // 2x2 with 2 right-hand sides, mixed kinds and classes.
        const std::vector<ValueId> s2{x, z, c, two, one, p, z, x};
        const ValueId v2 = b.solve(2, 2, s2);
        for (std::uint32_t e = 0; e < 4; ++e) {
            b.add_output(b.extract(v2, e));
        }
        // 3x3, one right-hand side.
        const std::vector<ValueId> s3{x, one, z, p, two, c, z, x, one, one, z, p};
        const ValueId v3 = b.solve(3, 1, s3);
        for (std::uint32_t e = 0; e < 3; ++e) {
            b.add_output(b.extract(v3, e));
        }
        // An invariant solve broadcast to event users.
        const std::vector<ValueId> s1{c, p};
        b.add_output(b.binary(OpCode::kMul, b.extract(b.solve(1, 1, s1), 0), z));
    });
    expect_matches_reference(program, kParams, 1e-11);
}

TEST(Interpreter, SolveMatchesHandComputedInverses) {
    // A = [[a, b], [c, d]] from loads; x = A^-1 e_0 = (d, -c) / det.
    Builder b;
    std::vector<ValueId> a;
    for (int k = 0; k < 4; ++k) {
        a.push_back(b.load(b.add_input("a" + std::to_string(k), ValueKind::kComplex)));
    }
    const std::vector<ValueId> system{a[0], a[1], a[2], a[3], b.const_real(1.0), b.const_real(0.0)};
    const ValueId x = b.solve(2, 1, system);
    b.add_output(b.extract(x, 0));
    b.add_output(b.extract(x, 1));
    const ir::Program program = b.finish();
    const Interpreter interp = Interpreter::prepare(program);
    const Data data = make_data(program, 100, 7);
    const auto got = run_all(interp, {}, data);
    for (std::size_t i = 0; i < data.count; ++i) {
        const C m00 = data.events[0][i];
        const C m01 = data.events[1][i];
        const C m10 = data.events[2][i];
        const C m11 = data.events[3][i];
        const C det = m00 * m11 - m01 * m10;
        EXPECT_TRUE(close(got[0][i], m11 / det, 1e-11)) << i;
        EXPECT_TRUE(close(got[1][i], -m10 / det, 1e-11)) << i;
    }
}

TEST(Interpreter, Solve3x3MatchesAdjugateInverse) {
    Builder b;
    std::vector<ValueId> m;
    for (int k = 0; k < 9; ++k) {
        m.push_back(b.load(b.add_input("m" + std::to_string(k), ValueKind::kReal)));
    }
    std::vector<ValueId> system = m;
    const ValueId zero = b.const_real(0.0);
    const ValueId one = b.const_real(1.0);
    for (int c = 0; c < 3; ++c) {  // B = identity: X is the inverse, column by column
        for (int r = 0; r < 3; ++r) {
            system.push_back(r == c ? one : zero);
        }
    }
    const ValueId x = b.solve(3, 3, system);
    for (std::uint32_t e = 0; e < 9; ++e) {
        b.add_output(b.extract(x, e));
    }
    const ir::Program program = b.finish();
    const Data data = make_data(program, 70, 11, -1.0, 1.0);
    const auto got = run_all(Interpreter::prepare(program), {}, data);
    for (std::size_t i = 0; i < data.count; ++i) {
        auto a = [&](int r, int c) {
            return data.events[static_cast<std::size_t>(3 * r + c)][i].real();
        };
        const double det = a(0, 0) * (a(1, 1) * a(2, 2) - a(1, 2) * a(2, 1)) -
                           a(0, 1) * (a(1, 0) * a(2, 2) - a(1, 2) * a(2, 0)) +
                           a(0, 2) * (a(1, 0) * a(2, 1) - a(1, 1) * a(2, 0));
        for (int r = 0; r < 3; ++r) {
            for (int c = 0; c < 3; ++c) {
                // inverse(r, c) = cofactor(c, r) / det
                const int r0 = (c + 1) % 3;
                const int r1 = (c + 2) % 3;
                const int c0 = (r + 1) % 3;
                const int c1 = (r + 2) % 3;
                const double inv = (a(r0, c0) * a(r1, c1) - a(r0, c1) * a(r1, c0)) / det;
                // X column c holds inverse(:, c); element index c*3 + r.
                const C value = got[static_cast<std::size_t>(3 * c + r)][i];
                EXPECT_NEAR(value.real(), inv, 1e-9 * std::max(1.0, std::abs(inv))) << i;
                EXPECT_EQ(value.imag(), 0.0);
            }
        }
    }
}

TEST(Interpreter, SingularSolveGivesNaNInEveryElement) {
    Builder b;
    const ValueId x = b.load(b.add_input("x", ValueKind::kReal));
    const ValueId zero = b.binary(OpCode::kMul, b.const_real(0.0), x);
    const ValueId one = b.const_real(1.0);
    // [[x, 1], [0, 0]]: a zero last pivot. [[0, x], [0, 2]]: a zero first column.
    const std::vector<ValueId> last{x, one, zero, zero, one, one};
    const std::vector<ValueId> first{zero, x, zero, b.const_real(2.0), one, one};
    for (const auto* system : {&last, &first}) {
        const ValueId s = b.solve(2, 1, *system);
        b.add_output(b.extract(s, 0));
        b.add_output(b.extract(s, 1));
    }
    const ir::Program program = b.finish();
    const Data data = make_data(program, kBlockSize + 3, 3, 0.5, 4.0);
    const auto got = run_all(Interpreter::prepare(program), {}, data);
    for (const auto& output : got) {
        for (const C value : output) {
            EXPECT_TRUE(std::isnan(value.real()) && std::isnan(value.imag())) << value;
        }
    }
}

// kSolve factors kSolveGroup lanes side by side: lanes that pivot on different rows, tie,
// skip a zero column, are singular or hold NaN give, each, the bits of the same event solved
// alone (evaluate_row), in f64 and f32, in full groups and a short last one.
TEST(Interpreter, SolveLanesAreIndependentWhateverEachPivots) {
    Builder b;
    std::vector<ValueId> system;
    for (int k = 0; k < 9; ++k) {
        system.push_back(b.load(b.add_input("m" + std::to_string(k), ValueKind::kReal)));
    }
    for (const double v : {1.0, 2.0, 3.0, 0.0, 1.0, 0.0}) {
        system.push_back(b.const_real(v));
    }
    const ValueId x = b.solve(3, 2, system);
    for (std::uint32_t e = 0; e < 6; ++e) {
        b.add_output(b.extract(x, e));
    }
    const ir::Program program = b.finish();
    Data data = make_data(program, 2 * kBlockSize + 5, 17, -1.0, 1.0);
    for (std::size_t i = 0; i < data.count; ++i) {
        auto a = [&](std::size_t r, std::size_t c) -> double& {
            return data.re[3 * r + c][i];
        };
        switch (i % 7) {
        case 0:  // a zero first column: skipped, then a zero pivot
            a(0, 0) = a(1, 0) = a(2, 0) = 0.0;
            break;
        case 1:  // a tie: the first row stays
            a(1, 0) = -a(0, 0);
            break;
        case 2:  // the last row pivots
            a(2, 0) = 5.0;
            break;
        case 3:  // the middle row pivots
            a(1, 0) = -4.0;
            break;
        case 4:  // two equal rows: column 1 eliminates to zero
            for (std::size_t c = 0; c < 3; ++c) {
                a(1, c) = a(0, c);
            }
            break;
        case 5:
            a(2, 1) = std::numeric_limits<double>::quiet_NaN();
            break;
        default:
            break;
        }
    }
    for (std::size_t slot = 0; slot < 9; ++slot) {
        for (std::size_t i = 0; i < data.count; ++i) {
            data.events[slot][i] = data.re[slot][i];
        }
    }
    for (const ir::Precision precision : {ir::Precision::kF64, ir::Precision::kF32}) {
        const Interpreter interp = Interpreter::prepare(program, precision);
        const auto block = run_all(interp, {}, data);
        std::size_t singular = 0;
        for (std::size_t i = 0; i < data.count; ++i) {
            const auto row = interp.evaluate_row({}, data.view(), i);
            singular += std::isnan(row[0].real()) ? 1U : 0U;
            for (std::size_t j = 0; j < row.size(); ++j) {
                EXPECT_EQ(std::bit_cast<std::uint64_t>(row[j].real()),
                          std::bit_cast<std::uint64_t>(block[j][i].real()))
                    << "event " << i << " output " << j;
                EXPECT_EQ(std::bit_cast<std::uint64_t>(row[j].imag()),
                          std::bit_cast<std::uint64_t>(block[j][i].imag()))
                    << "event " << i << " output " << j;
            }
        }
        // Cases 0 and 5 have no solution (case 4 only where its rows cancel exactly).
        EXPECT_GE(singular, 2 * (data.count / 7));
    }
}

TEST(Interpreter, BlockResultsAreBitIdenticalToRows) {
    const auto program = leaf_program([](Builder& b, std::array<ValueId, 4> l) {
        const auto [x, z, p, c] = l;
        const ValueId t =
            b.binary(OpCode::kDiv, b.unary(OpCode::kExp, z), b.binary(OpCode::kAdd, x, c));
        const std::vector<ValueId> terms{t, b.binary(OpCode::kMul, p, z), b.pow_i(x, 3)};
        b.add_output(b.add_n(terms));
        b.add_output(b.unary(OpCode::kNormSqr, b.mul_n(terms)));
        b.add_output(b.unary(OpCode::kSqrt, x));
    });
    for (const ir::Precision precision : {ir::Precision::kF64, ir::Precision::kF32}) {
        const Interpreter interp = Interpreter::prepare(program, precision);
        const Data data = make_data(program, 3 * kBlockSize + 5, 5);
        const auto block = run_all(interp, kParams, data);
        for (std::size_t i = 0; i < data.count; ++i) {
            const auto row = interp.evaluate_row(kParams, data.view(), i);
            for (std::size_t j = 0; j < row.size(); ++j) {
                EXPECT_EQ(std::bit_cast<std::uint64_t>(row[j].real()),
                          std::bit_cast<std::uint64_t>(block[j][i].real()));
                EXPECT_EQ(std::bit_cast<std::uint64_t>(row[j].imag()),
                          std::bit_cast<std::uint64_t>(block[j][i].imag()));
            }
        }
    }
}

TEST(Interpreter, FoldsAreExactlyNestedBinaryOps) {
    const auto program = leaf_program([](Builder& b, std::array<ValueId, 4> l) {
        const auto [x, z, p, c] = l;
        const std::vector<ValueId> list{x, p, z, x, c};
        b.add_output(b.add_n(list));
        b.add_output(b.mul_n(list));
        ValueId sum = list[0];
        ValueId product = list[0];
        for (std::size_t k = 1; k < list.size(); ++k) {
            sum = b.binary(OpCode::kAdd, sum, list[k]);
            product = b.binary(OpCode::kMul, product, list[k]);
        }
        b.add_output(sum);
        b.add_output(product);
    });
    const Interpreter interp = Interpreter::prepare(program);
    const Data data = make_data(program, 2 * kBlockSize, 9);
    const auto got = run_all(interp, kParams, data);
    for (std::size_t i = 0; i < data.count; ++i) {
        EXPECT_EQ(got[0][i], got[2][i]) << i;
        EXPECT_EQ(got[1][i], got[3][i]) << i;
    }
}

TEST(Interpreter, RegistersAreReusedOnLongChains) {
    Builder b;
    const ValueId x = b.load(b.add_input("x", ValueKind::kReal));
    const ValueId z = b.load(b.add_input("z", ValueKind::kComplex));
    ValueId real = x;
    ValueId cplx = z;
    for (int k = 0; k < 300; ++k) {
        real = b.binary(k % 2 == 0 ? OpCode::kAdd : OpCode::kMul, real, b.const_real(0.999));
        cplx = b.binary(OpCode::kMul, cplx, b.binary(OpCode::kAdd, cplx, real));
        cplx = b.binary(OpCode::kDiv, cplx, b.unary(OpCode::kAbs, cplx));
    }
    b.add_output(cplx);
    b.add_output(real);
    const ir::Program program = b.finish();
    const Interpreter interp = Interpreter::prepare(program);
    const PlanStats stats = interp.stats();
    EXPECT_GT(stats.values_without_reuse, 1000U);
    // One broadcast constant per distinct const, plus a handful of live registers.
    EXPECT_LE(stats.registers - stats.broadcasts, 8U);
    EXPECT_GE(interp.make_workspace().bytes(), stats.register_lanes * sizeof(double));
    expect_matches_reference(program, {}, 1e-9);
}

TEST(Interpreter, InvariantOnlyProgramBroadcastsItsOutputs) {
    Builder b;
    b.add_input("unused", ValueKind::kReal);
    const ValueId p = b.param(0);
    b.add_output(b.binary(OpCode::kMul, p, b.const_complex(0.0, 1.0)));
    b.add_output(p);
    const ir::Program program = b.finish();
    const Interpreter interp = Interpreter::prepare(program);
    const Data data = make_data(program, kBlockSize + 2, 1);
    const auto got = run_all(interp, std::vector<double>{2.5}, data);
    for (std::size_t i = 0; i < data.count; ++i) {
        EXPECT_EQ(got[0][i], C(0.0, 2.5));
        EXPECT_EQ(got[1][i], C(2.5, 0.0));
    }
    EXPECT_EQ(interp.stats().event_steps, 0U);
}

TEST(Interpreter, DeadInstructionsAreNotPlanned) {
    Builder b;
    const ValueId x = b.load(b.add_input("x", ValueKind::kReal));
    (void)b.unary(OpCode::kExp, x);           // dead
    (void)b.unary(OpCode::kExp, b.param(0));  // dead invariant
    b.add_output(b.unary(OpCode::kSin, x));
    const Interpreter interp = Interpreter::prepare(b.finish());
    EXPECT_EQ(interp.stats().event_steps, 1U);
    EXPECT_EQ(interp.stats().invariant_steps, 0U);
}

TEST(Interpreter, RealSqrtAndLogOfNegativeAreNaN) {
    Builder b;
    const ValueId x = b.load(b.add_input("x", ValueKind::kReal));
    b.add_output(b.unary(OpCode::kSqrt, x));
    b.add_output(b.unary(OpCode::kLog, x));
    const ir::Program program = b.finish();
    const Data data = make_data(program, 10, 2, -2.0, -1.0);
    const auto got = run_all(Interpreter::prepare(program), {}, data);
    for (std::size_t i = 0; i < data.count; ++i) {
        EXPECT_TRUE(std::isnan(got[0][i].real()));
        EXPECT_TRUE(std::isnan(got[1][i].real()));
    }
}

TEST(Interpreter, F32IsWithinToleranceOfF64) {
    const auto program = leaf_program([](Builder& b, std::array<ValueId, 4> l) {
        const auto [x, z, p, c] = l;
        std::vector<ValueId> amps;
        for (int k = 0; k < 8; ++k) {
            amps.push_back(b.binary(OpCode::kMul, b.pow_i(z, k % 3 + 1), c));
        }
        amps.push_back(b.binary(OpCode::kMul, x, p));
        const ValueId total = b.add_n(amps);
        b.add_output(b.unary(OpCode::kNormSqr, total));
        b.add_output(b.unary(OpCode::kLog, b.unary(OpCode::kExp, total)));
        const std::vector<ValueId> system{z, x, c, p, b.const_real(1.0), z};
        b.add_output(b.extract(b.solve(2, 1, system), 1));
    });
    const Data data = make_data(program, 3 * kBlockSize + 5, 4);
    const auto f64 = run_all(Interpreter::prepare(program, ir::Precision::kF64), kParams, data);
    const auto f32 = run_all(Interpreter::prepare(program, ir::Precision::kF32), kParams, data);
    for (std::size_t j = 0; j < f64.size(); ++j) {
        for (std::size_t i = 0; i < data.count; ++i) {
            EXPECT_LE(std::abs(f32[j][i] - f64[j][i]), 5e-5 * std::max(1.0, std::abs(f64[j][i])))
                << "output " << j << " event " << i;
            EXPECT_NE(f32[j][i], f64[j][i]);  // really computed in float
        }
    }
}

template <typename E, typename Fn>
void expect_error(Fn&& fn, const std::string& fragment) {
    try {
        fn();
        FAIL() << "expected an exception containing '" << fragment << "'";
    } catch (const E& error) {
        EXPECT_NE(std::string(error.what()).find(fragment), std::string::npos) << error.what();
    }
}

TEST(Interpreter, ReportsUserErrors) {
    const auto program = leaf_program([](Builder& b, std::array<ValueId, 4> l) {
        b.add_output(b.binary(OpCode::kMul, l[0], l[1]));
    });
    const Interpreter interp = Interpreter::prepare(program);
    const Data data = make_data(program, 4, 1);
    expect_error<EvaluationError>(
        [&] { (void)interp.evaluate_row(std::vector<double>{1.0}, data.view(), 0); },
        "expected 3 parameter values, got 1");
    expect_error<DataError>([&] { (void)interp.evaluate_row(kParams, data.view(), 4); },
                            "row 4 is out of range for 4 events");
    ir::ColumnView missing_im = data.view();
    std::vector<ir::InputColumn> columns = data.columns;
    columns[1].im = nullptr;
    missing_im.columns = columns;
    expect_error<DataError>([&] { (void)interp.evaluate_row(kParams, missing_im, 0); },
                            "('z') is Complex but has no imaginary part");
    ir::ColumnView too_few{std::span<const ir::InputColumn>(data.columns).first(1), 4};
    expect_error<DataError>([&] { (void)interp.evaluate_row(kParams, too_few, 0); },
                            "reads 2 input columns, but 1 were given");
    Workspace ws = interp.make_workspace();
    std::vector<double> out(8);
    const std::vector<ir::OutputColumn> outs{ir::OutputColumn{out.data(), nullptr}};
    expect_error<DataError>(
        [&] { interp.run(kParams, data.view(), 2, 3, ws, ir::OutputView{outs}); },
        "event range [2, 5) is out of range for 4 events");
    ir::Program broken = program;
    broken.parameter_count = 0;
    expect_error<CompileError>([&] { (void)Interpreter::prepare(broken); }, "parameter index");
    const Interpreter other = Interpreter::prepare(program);
    Workspace foreign = other.make_workspace();
    expect_error<InternalError>([&] { interp.evaluate_invariants(kParams, foreign); },
                                "different interpreter");
}

// ir::fuse_dots lets a coupling x + i·0 enter its products as the Real x: on finite events the
// values are bit for bit those of the same program whose zero imaginary part is a parameter set
// to 0, which keeps all four products (a K-matrix coupling sum with such a coupling first, a
// plain product, and a product with a constant 2 + 0i).
ir::Program coupling_program(bool constant_zero) {
    Builder b;
    const ValueId f0 = b.load(b.add_input("f0", ValueKind::kComplex));
    const ValueId f1 = b.load(b.add_input("f1", ValueKind::kComplex));
    const ValueId zero = constant_zero ? b.const_real(0.0) : b.param(3);
    const ValueId real_coupling = b.complex(b.param(0), zero);
    const ValueId free_coupling = b.complex(b.param(1), b.param(2));
    const std::vector<ValueId> terms{b.binary(OpCode::kMul, real_coupling, f0),
                                     b.binary(OpCode::kMul, free_coupling, f1)};
    const ValueId sum = b.add_n(terms);
    b.add_output(sum, "sum");
    b.add_output(b.binary(OpCode::kMul, f1, real_coupling), "product");
    const ValueId two =
        constant_zero ? b.const_complex(2.0, 0.0) : b.complex(b.const_real(2.0), b.param(3));
    b.add_output(b.unary(OpCode::kNormSqr, b.binary(OpCode::kMul, sum, two)), "scaled");
    b.set_parameter_count(4);
    return ir::fuse_dots(b.finish());
}

TEST(Interpreter, ACouplingWithAFixedZeroImaginaryPartKeepsItsProductsBits) {
    const ir::Program rewritten = coupling_program(true);
    const ir::Program reference = coupling_program(false);
    // The rewrite happened: the plain product's coupling is the Real parameter 0.
    const auto real_factor_products = [](const ir::Program& p) {
        std::size_t n = 0;
        for (const ir::Instruction& inst : p.instructions) {
            if (inst.op == OpCode::kMul) {
                for (const ValueId operand : p.operands_of(inst)) {
                    n += p.at(operand).kind == ValueKind::kReal ? 1U : 0U;
                }
            }
        }
        return n;
    };
    ASSERT_GT(real_factor_products(rewritten), real_factor_products(reference));
    const Data data = make_data(reference, 3 * kBlockSize + 5, 41);
    const std::vector<double> params{0.7, -1.3, 0.4, 0.0};
    const auto expected = run_all(Interpreter::prepare(reference), params, data);
    const auto got = run_all(Interpreter::prepare(rewritten), params, data);
    for (std::size_t j = 0; j < expected.size(); ++j) {
        for (std::size_t i = 0; i < data.count; ++i) {
            EXPECT_EQ(std::bit_cast<std::uint64_t>(got[j][i].real()),
                      std::bit_cast<std::uint64_t>(expected[j][i].real()))
                << "output " << j << ", event " << i;
            EXPECT_EQ(std::bit_cast<std::uint64_t>(got[j][i].imag()),
                      std::bit_cast<std::uint64_t>(expected[j][i].imag()))
                << "output " << j << ", event " << i;
        }
    }
}

// ir::fuse_product_parts: Re and Im of p·q, with either factor conjugated, as two-pair dots.
// Each part is the dot's fma formula exactly (the sign of a term is exact), and within one
// rounding of |p||q| of the product it replaces.
TEST(Interpreter, ProductPartsFusedIntoDotsAreTheirFmaFormula) {
    Builder b;
    const ValueId p = b.load(b.add_input("p", ValueKind::kComplex));
    const ValueId q = b.load(b.add_input("q", ValueKind::kComplex));
    for (const bool conj_p : {false, true}) {
        for (const bool conj_q : {false, true}) {
            const ValueId product = b.binary(OpCode::kMul, conj_p ? b.unary(OpCode::kConj, p) : p,
                                             conj_q ? b.unary(OpCode::kConj, q) : q);
            b.add_output(b.unary(OpCode::kReal, product), "re");
            b.add_output(b.unary(OpCode::kImag, product), "im");
        }
    }
    const ir::Program program = b.finish();
    const ir::Program fused = ir::fuse_product_parts(program);
    ASSERT_EQ(std::count_if(fused.instructions.begin(), fused.instructions.end(),
                            [](const ir::Instruction& i) { return i.op == OpCode::kMul; }),
              0);
    const Data data = make_data(program, 3 * kBlockSize + 5, 17);
    const auto got = run_all(Interpreter::prepare(fused), {}, data);
    const auto unfused = run_all(Interpreter::prepare(program), {}, data);
    for (std::size_t i = 0; i < data.count; ++i) {
        const double pr = data.re[0][i];
        const double qr = data.re[1][i];
        std::size_t o = 0;
        for (const double sp : {1.0, -1.0}) {
            for (const double sq : {1.0, -1.0}) {
                const double pi = sp * data.im[0][i];
                const double qi = sq * data.im[1][i];
                const double re = std::fma(-pi, qi, pr * qr);
                const double im = std::fma(pi, qr, pr * qi);
                EXPECT_EQ(std::bit_cast<std::uint64_t>(got[o][i].real()),
                          std::bit_cast<std::uint64_t>(re))
                    << "event " << i << ", output " << o;
                EXPECT_EQ(std::bit_cast<std::uint64_t>(got[o + 1][i].real()),
                          std::bit_cast<std::uint64_t>(im))
                    << "event " << i << ", output " << o + 1;
                const double scale = std::hypot(pr, pi) * std::hypot(qr, qi);
                EXPECT_LE(std::abs(got[o][i].real() - unfused[o][i].real()), 0x1p-51 * scale);
                EXPECT_LE(std::abs(got[o + 1][i].real() - unfused[o + 1][i].real()),
                          0x1p-51 * scale);
                o += 2;
            }
        }
    }
}

}  // namespace
}  // namespace laddu::interp
