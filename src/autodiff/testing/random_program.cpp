#include "random_program.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <random>

#include <laddu/base/assert.hpp>
#include <laddu/ir/validate.hpp>

namespace laddu::autodiff::testing {

using ir::OpCode;
using ir::ValueId;
using ir::ValueKind;

namespace {

constexpr double kMaxMagnitude = 1e2;

class Generator {
public:
    Generator(std::uint64_t seed, const RandomProgramOptions& options)
        : rng_(seed), options_(options) {}

    RandomCase run() {
        RandomCase result;
        std::uniform_real_distribution<double> param_dist(-1.5, 1.5);
        for (std::uint32_t k = 0; k < options_.parameters; ++k) {
            params_.push_back(param_dist(rng_));
        }
        program_.parameter_count = options_.parameters;
        std::uniform_real_distribution<double> input_dist(0.5, 2.0);
        std::uniform_real_distribution<double> signed_dist(-1.5, 1.5);
        for (std::uint32_t s = 0; s < options_.real_inputs + options_.complex_inputs; ++s) {
            const bool real = s < options_.real_inputs;
            program_.inputs.push_back(ir::InputSlot{"in" + std::to_string(s),
                                                    real ? ValueKind::kReal : ValueKind::kComplex});
        }
        events_.resize(options_.events);
        for (Event& event : events_) {
            for (const ir::InputSlot& slot : program_.inputs) {
                event.push_back(slot.kind == ValueKind::kReal
                                    ? Complex(input_dist(rng_), 0.0)
                                    : Complex(signed_dist(rng_), signed_dist(rng_)));
            }
        }
        values_.resize(events_.size());
        for (std::uint32_t k = 0; k < options_.parameters; ++k) {
            push(OpCode::kParam, k, {});
        }
        for (std::uint32_t s = 0; s < program_.inputs.size(); ++s) {
            push(OpCode::kLoad, s, {});
        }
        const std::size_t target = program_.size() + options_.instructions;
        for (int attempt = 0; program_.size() < target && attempt < 5000; ++attempt) {
            step();
        }
        add_root();
        if (auto ok = ir::validate(program_); !ok) {
            LADDU_ASSERT(false) << "random program invalid: " << ok.error().message;
        }
        result.program = program_;
        result.params = params_;
        result.events = events_;
        return result;
    }

private:
    const RefValue& sample(std::size_t event, ValueId id) const {
        return values_[event][ir::to_index(id)];
    }

    // Appends an instruction (kind and class from its operands) and evaluates it; returns it.
    ValueId push(OpCode op, std::uint32_t attr, const std::vector<ValueId>& operands,
                 double re = 0.0, double im = 0.0) {
        ir::Instruction inst;
        inst.op = op;
        inst.attr = attr;
        inst.re = re;
        inst.im = im;
        inst.first = static_cast<std::uint32_t>(program_.operands.size());
        inst.count = static_cast<std::uint32_t>(operands.size());
        inst.cls = op == OpCode::kLoad ? ir::ValueClass::kEvent : ir::ValueClass::kInvariant;
        for (const ValueId operand : operands) {
            if (program_.at(operand).cls == ir::ValueClass::kEvent) {
                inst.cls = ir::ValueClass::kEvent;
            }
        }
        program_.operands.insert(program_.operands.end(), operands.begin(), operands.end());
        program_.instructions.push_back(inst);
        const auto index = static_cast<std::uint32_t>(program_.size() - 1);
        for (std::size_t e = 0; e < events_.size(); ++e) {
            values_[e].push_back(
                evaluate_instruction(program_, index, values_[e], params_, events_[e]));
        }
        program_.instructions.back().kind = values_[0].back().kind;
        return ir::value_id(index);
    }

    void pop() {
        program_.operands.resize(program_.instructions.back().first);
        program_.instructions.pop_back();
        for (auto& v : values_) {
            v.pop_back();
        }
    }

    // Keeps the last instruction if `ok` holds on every event and the value is moderate.
    bool keep_if(const std::function<bool(std::size_t)>& ok) {
        const ValueId id = ir::value_id(static_cast<std::uint32_t>(program_.size() - 1));
        for (std::size_t e = 0; e < events_.size(); ++e) {
            const RefValue& v = sample(e, id);
            bool fine = ok(e);
            if (v.kind == ValueKind::kVector) {
                for (const Complex& z : v.elements) {
                    fine = fine && std::isfinite(z.real()) && std::isfinite(z.imag()) &&
                           std::abs(z) < kMaxMagnitude;
                }
            } else {
                fine = fine && std::isfinite(v.scalar.real()) && std::isfinite(v.scalar.imag()) &&
                       std::abs(v.scalar) < kMaxMagnitude;
            }
            if (!fine) {
                pop();
                return false;
            }
        }
        return true;
    }

    std::size_t uniform(std::size_t n) {
        return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng_);
    }

    // A scalar value, biased towards recent ones (chains); `real_only` restricts the kind.
    std::optional<ValueId> pick(bool real_only = false) {
        std::vector<ValueId> pool;
        for (std::uint32_t i = 0; i < program_.size(); ++i) {
            const ValueKind kind = program_.instructions[i].kind;
            if (kind == ValueKind::kVector || (real_only && kind != ValueKind::kReal)) {
                continue;
            }
            pool.push_back(ir::value_id(i));
        }
        if (pool.empty()) {
            return std::nullopt;
        }
        if (uniform(2) == 0) {
            const std::size_t recent = std::min<std::size_t>(pool.size(), 5);
            return pool[pool.size() - 1 - uniform(recent)];
        }
        return pool[uniform(pool.size())];
    }

    // Away from the principal branch cut on the negative real axis and from 0.
    static bool log_safe(const RefValue& v) {
        const Complex z = v.scalar;
        if (v.kind == ValueKind::kReal) {
            return z.real() > 0.2;
        }
        return std::abs(z) > 0.2 && !(z.real() < 0.0 && std::fabs(z.imag()) < 0.2);
    }

    bool unary_ok(OpCode op, const RefValue& x) const {
        const Complex z = x.scalar;
        const bool real = x.kind == ValueKind::kReal;
        switch (op) {
        case OpCode::kSqrt:
        case OpCode::kLog:
            return log_safe(x);
        case OpCode::kAsin:
        case OpCode::kAcos:
            return real ? std::fabs(z.real()) < 0.9
                        : std::abs(1.0 - z * z) > 0.2 &&
                              !(std::fabs(z.imag()) < 0.2 && std::fabs(z.real()) > 0.8);
        case OpCode::kAtan:
            return real || (std::abs(1.0 + z * z) > 0.2 &&
                            !(std::fabs(z.real()) < 0.2 && std::fabs(z.imag()) > 0.8));
        case OpCode::kTan:
        case OpCode::kTanh:
            return std::abs(real ? Complex(std::cos(z.real())) : std::cos(z)) > 0.3 &&
                   std::abs(std::cosh(z)) > 0.3;
        case OpCode::kExp:
        case OpCode::kSinh:
        case OpCode::kCosh:
        case OpCode::kSin:
        case OpCode::kCos:
            return std::fabs(z.real()) < 4.0 && std::fabs(z.imag()) < 4.0;
        case OpCode::kAbs:
            return std::abs(z) > 0.1;
        case OpCode::kArg:
            return std::abs(z) > 0.1 && !(z.real() < 0.0 && std::fabs(z.imag()) < 0.2);
        default:
            return true;
        }
    }

    void step() {
        constexpr std::array kUnary{OpCode::kNeg,  OpCode::kConj, OpCode::kSqrt,   OpCode::kExp,
                                    OpCode::kLog,  OpCode::kSin,  OpCode::kCos,    OpCode::kTan,
                                    OpCode::kAsin, OpCode::kAcos, OpCode::kAtan,   OpCode::kSinh,
                                    OpCode::kCosh, OpCode::kTanh, OpCode::kReal,   OpCode::kImag,
                                    OpCode::kAbs,  OpCode::kArg,  OpCode::kNormSqr};
        const std::size_t choice = uniform(options_.allow_solve ? 12 : 11);
        if (choice <= 2) {
            const OpCode op = kUnary[uniform(kUnary.size())];
            const auto x = pick();
            push(op, 0, {*x});
            keep_if([&](std::size_t e) { return unary_ok(op, sample(e, *x)); });
        } else if (choice == 3) {
            const auto x = pick();
            const auto n = static_cast<std::int32_t>(uniform(8)) - 3;
            push(OpCode::kPowI, static_cast<std::uint32_t>(n), {*x});
            keep_if([&](std::size_t e) { return n >= 0 || std::abs(sample(e, *x).scalar) > 0.3; });
        } else if (choice <= 6) {
            constexpr std::array kBinary{OpCode::kAdd, OpCode::kSub, OpCode::kMul, OpCode::kDiv,
                                         OpCode::kPow};
            const OpCode op = kBinary[uniform(kBinary.size())];
            const auto a = pick();
            const auto b = pick();
            push(op, 0, {*a, *b});
            keep_if([&](std::size_t e) {
                if (op == OpCode::kDiv) {
                    return std::abs(sample(e, *b).scalar) > 0.2;
                }
                if (op == OpCode::kPow) {
                    return log_safe(sample(e, *a)) && std::abs(sample(e, *b).scalar) < 3.0;
                }
                return true;
            });
        } else if (choice == 7) {
            const auto a = pick(true);
            const auto b = pick(true);
            const bool atan2 = uniform(2) == 0;
            push(atan2 ? OpCode::kAtan2 : OpCode::kComplex, 0, {*a, *b});
            keep_if([&](std::size_t e) {
                const double y = sample(e, *a).scalar.real();
                const double x = sample(e, *b).scalar.real();
                return !atan2 || (x * x + y * y > 0.04 && !(x < 0.0 && std::fabs(y) < 0.2));
            });
        } else if (choice <= 9) {
            const std::size_t n = 1 + uniform(4);
            std::vector<ValueId> operands;
            for (std::size_t j = 0; j < n; ++j) {
                operands.push_back(*pick());
            }
            push(choice == 8 ? OpCode::kAddN : OpCode::kMulN, 0, operands);
            keep_if([](std::size_t) { return true; });
        } else if (choice == 10) {
            const std::size_t n = 1 + uniform(3);
            std::vector<ValueId> operands;
            for (std::size_t j = 0; j < 2 * n; ++j) {
                operands.push_back(*pick());
            }
            push(OpCode::kDot, static_cast<std::uint32_t>(n), operands);
            keep_if([](std::size_t) { return true; });
        } else {
            add_solve();
        }
    }

    // A small value (|v| < 3 on every event) to build a well-conditioned matrix from.
    ValueId small_value() {
        for (int attempt = 0; attempt < 20; ++attempt) {
            const ValueId v = *pick();
            bool small = true;
            for (std::size_t e = 0; e < events_.size(); ++e) {
                small = small && std::abs(sample(e, v).scalar) < 3.0;
            }
            if (small) {
                return v;
            }
        }
        return ir::value_id(0);  // a parameter, |p| <= 1.5
    }

    void add_solve() {
        const auto n = static_cast<std::uint32_t>(1 + uniform(3));
        const auto m = static_cast<std::uint32_t>(1 + uniform(2));
        std::vector<ValueId> operands;
        const ValueId scale = push(OpCode::kConstReal, 0, {}, 0.2);
        for (std::uint32_t r = 0; r < n; ++r) {
            for (std::uint32_t c = 0; c < n; ++c) {
                const ValueId scaled = push(OpCode::kMul, 0, {scale, small_value()});
                if (r == c) {
                    const ValueId shift = push(OpCode::kConstComplex, 0, {}, 5.0, 0.5);
                    operands.push_back(push(OpCode::kAdd, 0, {shift, scaled}));
                } else {
                    operands.push_back(scaled);
                }
            }
        }
        for (std::uint32_t j = 0; j < n * m; ++j) {
            operands.push_back(*pick());
        }
        const ValueId x = push(OpCode::kSolve, ir::solve_attr(n, m), operands);
        if (!keep_if([](std::size_t) { return true; })) {
            return;
        }
        for (std::uint32_t e = 0; e < n * m; ++e) {
            if (uniform(3) != 0) {
                push(OpCode::kExtract, e, {x});
            }
        }
    }

    // The root sums every scalar value nothing uses, so all of them reach it.
    void add_root() {
        std::vector<bool> used(program_.size(), false);
        for (const ValueId id : program_.operands) {
            used[ir::to_index(id)] = true;
        }
        std::vector<ValueId> unused;
        for (std::uint32_t i = 0; i < program_.size(); ++i) {
            if (!used[i] && program_.instructions[i].kind != ValueKind::kVector) {
                unused.push_back(ir::value_id(i));
            }
        }
        ValueId root = push(OpCode::kAddN, 0, unused);
        if (program_.at(root).kind == ValueKind::kComplex && uniform(2) == 0) {
            root = push(OpCode::kNormSqr, 0, {root});
        }
        program_.outputs.push_back(root);
    }

    std::mt19937_64 rng_;
    RandomProgramOptions options_;
    ir::Program program_;
    std::vector<double> params_;
    std::vector<Event> events_;
    std::vector<std::vector<RefValue>> values_;  // [event][value]
};

}  // namespace

bool finite_differences_are_stable(const RandomCase& c) {
    // Two base steps must give the same Richardson estimate to 1e-10: programs too stiff for
    // finite differences to judge (near a pole, say) are regenerated, whatever autodiff says.
    for (const Event& event : c.events) {
        for (std::uint32_t k = 0; k < c.program.parameter_count; ++k) {
            const Complex a = finite_difference(c.program, c.params, event, k, 2e-3);
            const Complex b = finite_difference(c.program, c.params, event, k, 1e-3);
            if (!(std::abs(a - b) <= 1e-10 * std::max(1.0, std::abs(a)))) {
                return false;
            }
        }
    }
    return true;
}

RandomCase random_program(std::uint64_t seed, const RandomProgramOptions& options) {
    for (std::uint64_t attempt = 0;; ++attempt) {
        RandomCase c = Generator(seed * 1000003U + attempt, options).run();
        if (finite_differences_are_stable(c) || attempt == 100) {
            c.attempts = static_cast<std::uint32_t>(attempt + 1);
            return c;
        }
    }
}

}  // namespace laddu::autodiff::testing
