#include "random_program.hpp"

#include <array>
#include <vector>

#include <laddu/ir/builder.hpp>

namespace laddu::testing {

using ir::OpCode;
using ir::ValueKind;

std::uint64_t Random::next() noexcept {
    state_ += 0x9E3779B97F4A7C15ULL;
    std::uint64_t z = state_;
    z = (z ^ (z >> 30U)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27U)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31U);
}

double Random::uniform(double lo, double hi) noexcept {
    const double unit = static_cast<double>(next() >> 11U) * 0x1.0p-53;
    return lo + (hi - lo) * unit;
}

std::uint32_t Random::below(std::uint32_t n) noexcept {
    return static_cast<std::uint32_t>(next() % n);
}

namespace {

// Builds random programs bottom-up from pools of Real and Complex values.
class Generator {
public:
    Generator(Random& random, const RandomProgramOptions& options)
        : r_(random), options_(options) {}

    ir::Program build() {
        for (std::uint32_t k = 0; k < options_.real_inputs; ++k) {
            push(b_.load(b_.add_input(numbered("x", k), ValueKind::kReal)));
        }
        for (std::uint32_t k = 0; k < options_.complex_inputs; ++k) {
            push(b_.load(b_.add_input(numbered("z", k), ValueKind::kComplex)));
        }
        for (std::uint32_t k = 0; k < options_.parameters; ++k) {
            push(b_.param(k));
        }
        push(b_.const_real(r_.uniform(-2.0, 2.0)));
        push(b_.const_complex(r_.uniform(-2.0, 2.0), r_.uniform(-2.0, 2.0)));
        while (b_.program().size() < options_.instructions) {
            step();
        }
        const auto& values = all_;
        for (std::uint32_t k = 0; k < options_.outputs; ++k) {
            // The newest value, then random ones (possibly invariant).
            b_.add_output(k == 0 ? values.back()
                                 : values[r_.below(static_cast<std::uint32_t>(values.size()))]);
        }
        return b_.finish();
    }

private:
    void push(ir::ValueId id) {
        all_.push_back(id);
        (b_.kind_of(id) == ValueKind::kReal ? reals_ : complexes_).push_back(id);
    }

    // Prefers recent values, so chains grow deep.
    ir::ValueId pick(const std::vector<ir::ValueId>& pool) {
        const auto size = static_cast<std::uint32_t>(pool.size());
        const std::uint32_t window = size < 8 ? size : 8;
        return r_.below(3) == 0 ? pool[r_.below(size)] : pool[size - 1 - r_.below(window)];
    }

    ir::ValueId any() { return r_.below(2) == 0 ? pick(reals_) : pick(complexes_); }

    ir::ValueId real() { return pick(reals_); }

    ir::ValueId cplx() { return pick(complexes_); }

    // |v| kept moderate: tanh for Real, v / (1 + |v|²) for Complex (no transcendental).
    ir::ValueId squash(ir::ValueId v) {
        if (b_.kind_of(v) == ValueKind::kReal) {
            if (options_.transcendental) {
                return b_.unary(OpCode::kTanh, v);
            }
            return b_.binary(
                OpCode::kDiv, v,
                b_.binary(OpCode::kAdd, b_.const_real(1.0), b_.unary(OpCode::kNormSqr, v)));
        }
        return b_.binary(
            OpCode::kDiv, v,
            b_.binary(OpCode::kAdd, b_.const_real(1.0), b_.unary(OpCode::kNormSqr, v)));
    }

    // A Complex value with positive real part (away from log/sqrt/arg branch cuts).
    ir::ValueId right_half_plane() {
        const ir::ValueId re =
            b_.binary(OpCode::kAdd, b_.const_real(0.5), b_.unary(OpCode::kNormSqr, real()));
        return b_.complex(re, real());
    }

    ir::ValueId transcendental() {
        static constexpr std::array<OpCode, 6> kBounded = {
            OpCode::kSin, OpCode::kCos, OpCode::kTanh, OpCode::kAtan, OpCode::kSinh, OpCode::kCosh};
        switch (r_.below(6)) {
        case 0:
            return b_.unary(kBounded[r_.below(6)], squash(any()));
        case 1: {
            static constexpr std::array<OpCode, 3> kCut = {OpCode::kSqrt, OpCode::kLog,
                                                           OpCode::kArg};
            return b_.unary(kCut[r_.below(3)], right_half_plane());
        }
        case 2:
            return b_.unary(
                r_.below(2) == 0 ? OpCode::kAsin : OpCode::kAcos,
                b_.binary(OpCode::kMul, b_.const_real(0.9), b_.unary(OpCode::kTanh, real())));
        case 3:
            return b_.unary(OpCode::kExp, squash(any()));
        case 4:
            if (r_.below(2) == 0) {
                return b_.binary(
                    OpCode::kPow,
                    b_.binary(OpCode::kAdd, b_.const_real(0.5), b_.unary(OpCode::kNormSqr, real())),
                    squash(real()));
            }
            return b_.binary(OpCode::kPow, right_half_plane(), squash(any()));
        default:
            return r_.below(2) == 0 ? b_.binary(OpCode::kAtan2, real(), real())
                                    : b_.unary(OpCode::kAbs, cplx());
        }
    }

    void step() {
        ir::ValueId v{};
        switch (r_.below(options_.transcendental ? 10 : 9)) {
        case 0:
        case 1: {
            static constexpr std::array<OpCode, 3> kOps = {OpCode::kAdd, OpCode::kSub,
                                                           OpCode::kMul};
            v = b_.binary(kOps[r_.below(3)], any(), any());
            break;
        }
        case 2: {
            // Denominators bounded away from zero: 1.5 + |d|² (+ i·something).
            const ir::ValueId d =
                b_.binary(OpCode::kAdd, b_.const_real(1.5), b_.unary(OpCode::kNormSqr, any()));
            v = b_.binary(OpCode::kDiv, any(), r_.below(2) == 0 ? d : b_.complex(d, real()));
            break;
        }
        case 3: {
            static constexpr std::array<OpCode, 5> kOps = {
                OpCode::kNeg, OpCode::kConj, OpCode::kReal, OpCode::kImag, OpCode::kNormSqr};
            v = b_.unary(kOps[r_.below(5)], any());
            break;
        }
        case 4: {
            std::vector<ir::ValueId> ops;
            const std::uint32_t n = 1 + r_.below(5);
            for (std::uint32_t k = 0; k < n; ++k) {
                ops.push_back(squash(any()));
            }
            v = r_.below(2) == 0 ? b_.add_n(ops) : b_.mul_n(ops);
            break;
        }
        case 5: {
            std::vector<ir::ValueId> a;
            std::vector<ir::ValueId> c;
            const std::uint32_t n = 1 + r_.below(4);
            for (std::uint32_t k = 0; k < n; ++k) {
                a.push_back(any());
                c.push_back(squash(any()));
            }
            v = b_.dot(a, c);
            break;
        }
        case 6: {
            static constexpr std::array<std::int32_t, 8> kExponents = {-3, -2, -1, 0, 1, 2, 3, 5};
            const std::int32_t n = kExponents[r_.below(8)];
            ir::ValueId base = squash(any());
            if (n < 0) {
                base = b_.binary(OpCode::kAdd, b_.const_real(1.25), base);  // |base| >= 0.25
            }
            v = b_.pow_i(base, n);
            break;
        }
        case 7:
            v = b_.complex(real(), real());
            break;
        case 8:
            v = solve_step();
            break;
        default:
            v = transcendental();
            break;
        }
        push(r_.below(3) == 0 ? squash(v) : v);
    }

    // A diagonally dominant n×n system with m right-hand sides; pushes every element.
    ir::ValueId solve_step() {
        const std::uint32_t n = 1 + r_.below(3);
        const std::uint32_t m = 1 + r_.below(2);
        std::vector<ir::ValueId> ops;
        for (std::uint32_t row = 0; row < n; ++row) {
            for (std::uint32_t col = 0; col < n; ++col) {
                ir::ValueId e = squash(any());
                if (row == col) {
                    e = b_.binary(OpCode::kAdd, b_.const_real(static_cast<double>(2 * n)), e);
                }
                ops.push_back(e);
            }
        }
        for (std::uint32_t k = 0; k < n * m; ++k) {
            ops.push_back(any());
        }
        const ir::ValueId x = b_.solve(n, m, ops);
        for (std::uint32_t k = 0; k + 1 < n * m; ++k) {
            push(b_.extract(x, k));
        }
        return b_.extract(x, n * m - 1);
    }

    Random& r_;
    RandomProgramOptions options_;
    ir::Builder b_;
    std::vector<ir::ValueId> all_;
    std::vector<ir::ValueId> reals_;
    std::vector<ir::ValueId> complexes_;
};

}  // namespace

ir::Program random_program(Random& random, const RandomProgramOptions& options) {
    return Generator(random, options).build();
}

SlotValues random_slots(Random& random, const ir::Program& program, std::size_t events) {
    SlotValues slots(program.inputs.size());
    for (std::size_t s = 0; s < slots.size(); ++s) {
        const bool real = program.inputs[s].kind == ValueKind::kReal;
        for (std::size_t e = 0; e < events; ++e) {
            const double re = random.uniform(-2.0, 2.0);
            slots[s].push_back(Complex(re, real ? 0.0 : random.uniform(-2.0, 2.0)));
        }
    }
    return slots;
}

}  // namespace laddu::testing
