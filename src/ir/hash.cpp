#include <bit>

#include <laddu/ir/hash.hpp>
#include <laddu/ir/stats.hpp>

namespace laddu::ir {

namespace {

// A 64-bit multiply-xorshift mix (splitmix64's finaliser) folded over the fields in order.
class Hasher {
public:
    void add(std::uint64_t value) noexcept {
        state_ ^= value + 0x9E3779B97F4A7C15ULL + (state_ << 6U) + (state_ >> 2U);
        state_ = mix(state_);
    }

    [[nodiscard]] std::uint64_t finish() const noexcept { return mix(state_); }

private:
    static std::uint64_t mix(std::uint64_t x) noexcept {
        x ^= x >> 30U;
        x *= 0xBF58476D1CE4E5B9ULL;
        x ^= x >> 27U;
        x *= 0x94D049BB133111EBULL;
        x ^= x >> 31U;
        return x;
    }

    std::uint64_t state_ = 0x6C61646475697200ULL;  // "laddu-ir"
};

}  // namespace

std::uint64_t hash(const Program& program) noexcept {
    Hasher h;
    h.add(program.instructions.size());
    for (const Instruction& inst : program.instructions) {
        h.add(static_cast<std::uint64_t>(inst.op) | static_cast<std::uint64_t>(inst.kind) << 8U |
              static_cast<std::uint64_t>(inst.cls) << 16U |
              static_cast<std::uint64_t>(inst.attr) << 32U);
        h.add(static_cast<std::uint64_t>(inst.first) | static_cast<std::uint64_t>(inst.count)
                                                           << 32U);
        h.add(std::bit_cast<std::uint64_t>(inst.re));
        h.add(std::bit_cast<std::uint64_t>(inst.im));
    }
    h.add(program.operands.size());
    for (const ValueId id : program.operands) {
        h.add(to_index(id));
    }
    h.add(program.inputs.size());
    for (const InputSlot& slot : program.inputs) {
        h.add(static_cast<std::uint64_t>(slot.kind));
    }
    h.add(program.parameter_count);
    h.add(program.outputs.size());
    for (const ValueId id : program.outputs) {
        h.add(to_index(id));
    }
    return h.finish();
}

bool same_computation(const Program& a, const Program& b) noexcept {
    if (a.instructions != b.instructions || a.operands != b.operands ||
        a.parameter_count != b.parameter_count || a.outputs != b.outputs ||
        a.inputs.size() != b.inputs.size()) {
        return false;
    }
    for (std::size_t k = 0; k < a.inputs.size(); ++k) {
        if (a.inputs[k].kind != b.inputs[k].kind) {
            return false;
        }
    }
    return true;
}

Stats stats(const Program& program) noexcept {
    Stats result;
    for (const Instruction& inst : program.instructions) {
        const auto op = static_cast<std::size_t>(inst.op);
        if (op >= kOpCodeCount) {
            continue;
        }
        if (inst.cls == ValueClass::kEvent) {
            ++result.event_count;
            ++result.event_by_op[op];
        } else {
            ++result.invariant_count;
            ++result.invariant_by_op[op];
        }
    }
    return result;
}

}  // namespace laddu::ir
