#include <array>
#include <cstdint>
#include <vector>

#include <laddu/ir/builder.hpp>
#include <laddu/ir/fuse_dots.hpp>

namespace laddu::ir {

namespace {

bool is_product(const Instruction& inst) noexcept {
    return inst.op == OpCode::kMul || (inst.op == OpCode::kMulN && inst.count >= 2);
}

bool is_zero(const Instruction& inst) noexcept {
    return inst.op == OpCode::kConstReal && inst.re == 0.0;
}

// How often the outputs and the live instructions read each value.
std::vector<std::uint32_t> live_uses(const Program& program, const std::vector<char>& live) {
    std::vector<std::uint32_t> uses(program.size(), 0);
    for (const ValueId id : program.outputs) {
        ++uses[to_index(id)];
    }
    for (std::size_t i = 0; i < program.size(); ++i) {
        if (live[i] == 0) {
            continue;
        }
        for (const ValueId operand : program.operands_of(program.instructions[i])) {
            ++uses[to_index(operand)];
        }
    }
    return uses;
}

}  // namespace

Program fuse_dots(const Program& program) {
    const std::size_t size = program.instructions.size();
    // Instructions no output reads are dropped (autodiff leaves some: a partial whose adjoint
    // folded to another value), and their reads are not counted, so a product that only a
    // dropped instruction shares with its sum is still absorbed into the sum.
    const std::vector<char> live = live_instructions(program, program.outputs);
    const std::vector<std::uint32_t> uses = live_uses(program, live);
    // A product is absorbed into the one sum that uses it; a sum is fused when it absorbs one.
    auto absorbable = [&](ValueId id) {
        return uses[to_index(id)] == 1 && is_product(program.at(id));
    };
    std::vector<bool> absorbed(size, false);
    std::vector<bool> fused(size, false);
    for (std::size_t i = 0; i < size; ++i) {
        const Instruction& inst = program.instructions[i];
        if (live[i] == 0 || inst.op != OpCode::kAddN) {
            continue;
        }
        for (const ValueId operand : program.operands_of(inst)) {
            if (absorbable(operand)) {
                absorbed[to_index(operand)] = true;
                fused[i] = true;
            }
        }
    }

    Builder b;
    for (const InputSlot& slot : program.inputs) {
        b.add_input(slot.name, slot.kind);
    }
    std::vector<ValueId> mapped(size);
    std::vector<ValueId> operands;
    auto map = [&](ValueId id) {
        return mapped[to_index(id)];
    };
    // A complex factor x + i·0 (a coupling whose imaginary part is fixed at zero) enters a
    // product as x: x·C takes two real products where (x + i·0)·C takes four and two sums, and
    // its bits are the same wherever C is finite (up to the sign of a zero part). One factor
    // of a pair at most, so the product stays Complex.
    auto real_zero_imag = [&](ValueId id) {
        const Instruction& inst = program.at(id);
        return (inst.op == OpCode::kComplex && is_zero(program.at(program.operands_of(inst)[1]))) ||
               (inst.op == OpCode::kConstComplex && inst.im == 0.0);
    };
    auto real_part = [&](ValueId id) {
        const Instruction& inst = program.at(id);
        return inst.op == OpCode::kConstComplex ? b.const_real(inst.re)
                                                : map(program.operands_of(inst)[0]);
    };
    auto factors_of = [&](ValueId p, ValueId q) -> std::array<ValueId, 2> {
        if (real_zero_imag(p) && program.at(q).kind == ValueKind::kComplex) {
            return {real_part(p), map(q)};
        }
        if (real_zero_imag(q) && program.at(p).kind == ValueKind::kComplex) {
            return {map(p), real_part(q)};
        }
        return {map(p), map(q)};
    };
    ValueId one{};
    bool have_one = false;
    for (std::size_t i = 0; i < size; ++i) {
        const Instruction& inst = program.instructions[i];
        if (live[i] == 0 || absorbed[i]) {
            continue;
        }
        if (inst.op == OpCode::kConstReal) {
            mapped[i] = b.const_real(inst.re);
            continue;
        }
        if (inst.op == OpCode::kConstComplex) {
            mapped[i] = b.const_complex(inst.re, inst.im);
            continue;
        }
        if (fused[i]) {
            std::vector<ValueId> left;
            std::vector<ValueId> right;
            for (const ValueId term : program.operands_of(inst)) {
                if (!absorbed[to_index(term)]) {
                    if (!have_one) {
                        one = b.const_real(1.0);
                        have_one = true;
                    }
                    left.push_back(map(term));
                    right.push_back(one);
                    continue;
                }
                const auto factors = program.operands_of(term);
                if (factors.size() == 2) {
                    const std::array<ValueId, 2> pair = factors_of(factors[0], factors[1]);
                    left.push_back(pair[0]);
                    right.push_back(pair[1]);
                    continue;
                }
                operands.clear();
                for (std::size_t f = 0; f + 1 < factors.size(); ++f) {
                    operands.push_back(map(factors[f]));
                }
                left.push_back(b.mul_n(operands));
                right.push_back(map(factors.back()));
            }
            mapped[i] = b.dot(left, right);
            continue;
        }
        const auto ops = program.operands_of(inst);
        if (inst.op == OpCode::kMul) {
            const std::array<ValueId, 2> pair = factors_of(ops[0], ops[1]);
            mapped[i] = b.binary(OpCode::kMul, pair[0], pair[1]);
            continue;
        }
        operands.clear();
        for (const ValueId operand : ops) {
            operands.push_back(map(operand));
        }
        mapped[i] = b.emit(inst.op, inst.attr, operands);
    }
    for (std::size_t o = 0; o < program.outputs.size(); ++o) {
        b.add_output(map(program.outputs[o]),
                     program.output_names.empty() ? std::string() : program.output_names[o]);
    }
    b.set_parameter_count(program.parameter_count);
    return b.finish();
}

}  // namespace laddu::ir
