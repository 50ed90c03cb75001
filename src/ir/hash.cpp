#include <bit>
#include <string>
#include <string_view>
#include <utility>

#include <laddu/ir/hash.hpp>
#include <laddu/ir/stats.hpp>

namespace laddu::ir {

namespace {

// A 64-bit multiply-xorshift mix (splitmix64's finaliser) folded over the fields in order;
// names are not part of the hash.
class Hasher {
public:
    void add(std::uint64_t value) noexcept {
        state_ ^= value + 0x9E3779B97F4A7C15ULL + (state_ << 6U) + (state_ >> 2U);
        state_ = mix(state_);
    }

    void add_name(std::string_view /*name*/) noexcept {}

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

// The fields as bytes: fixed-width little-endian numbers, each name after its length, so no
// padding and nothing to escape.
class Describer {
public:
    void add(std::uint64_t value) {
        for (unsigned byte = 0; byte < 8; ++byte) {
            text_.push_back(static_cast<char>((value >> (8U * byte)) & 0xFFU));
        }
    }

    void add_name(std::string_view name) {
        add(name.size());
        text_.append(name);
    }

    [[nodiscard]] std::string finish() && { return std::move(text_); }

private:
    std::string text_;
};

// Every field hash() and describe() cover, in order, into `sink`.
template <typename Sink>
void add_fields(const Program& program, Sink& sink) {
    sink.add(program.instructions.size());
    for (const Instruction& inst : program.instructions) {
        sink.add(static_cast<std::uint64_t>(inst.op) | static_cast<std::uint64_t>(inst.kind) << 8U |
                 static_cast<std::uint64_t>(inst.cls) << 16U |
                 static_cast<std::uint64_t>(inst.attr) << 32U);
        sink.add(static_cast<std::uint64_t>(inst.first) | static_cast<std::uint64_t>(inst.count)
                                                              << 32U);
        sink.add(std::bit_cast<std::uint64_t>(inst.re));
        sink.add(std::bit_cast<std::uint64_t>(inst.im));
    }
    sink.add(program.operands.size());
    for (const ValueId id : program.operands) {
        sink.add(to_index(id));
    }
    sink.add(program.inputs.size());
    for (const InputSlot& slot : program.inputs) {
        sink.add(static_cast<std::uint64_t>(slot.kind));
        sink.add_name(slot.name);
    }
    sink.add(program.parameter_count);
    sink.add(program.outputs.size());
    for (const ValueId id : program.outputs) {
        sink.add(to_index(id));
    }
}

}  // namespace

std::uint64_t hash(const Program& program) noexcept {
    Hasher h;
    add_fields(program, h);
    return h.finish();
}

std::string describe(const Program& program) {
    Describer d;
    add_fields(program, d);
    return std::move(d).finish();
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
