#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <laddu/base/error.hpp>
#include <laddu/ir/builder.hpp>
#include <laddu/ir/compose.hpp>

namespace laddu::ir {
namespace {

// Copies the instructions of one program into a Builder, reading its loads through `load`.
class Copier {
public:
    Copier(Builder& builder, std::map<std::string, std::uint32_t>& slots)
        : builder_(builder), slots_(slots) {}

    // The copy of every live instruction of `program`, by its ValueId (unspecified for dead
    // ones); `from_first(slot)` gives the value a load of `slot` reads, or nullopt for an input.
    template <typename FromFirst>
    std::vector<ValueId> copy(const Program& program, const std::vector<char>& live,
                              FromFirst from_first) {
        std::vector<ValueId> copied(program.size());
        std::vector<ValueId> operands;
        for (std::size_t i = 0; i < program.size(); ++i) {
            if (live[i] == 0) {
                continue;
            }
            const Instruction& inst = program.instructions[i];
            if (inst.op == OpCode::kLoad) {
                if (const std::optional<ValueId> value = from_first(inst.attr); value.has_value()) {
                    copied[i] = *value;
                } else {
                    copied[i] = builder_.load(slot(program.inputs.at(inst.attr)));
                }
                continue;
            }
            operands.clear();
            for (const ValueId operand : program.operands_of(inst)) {
                // Operands precede their users, and a live value's operands are live.
                operands.push_back(copied[to_index(operand)]);
            }
            copied[i] = builder_.copy(inst, operands);
        }
        return copied;
    }

private:
    std::uint32_t slot(const InputSlot& input) {
        auto it = slots_.find(input.name);
        if (it == slots_.end()) {
            it = slots_.emplace(input.name, builder_.add_input(input.name, input.kind)).first;
        } else if (builder_.program().inputs[it->second].kind != input.kind) {
            throw CompileError(fmt::format("compose: input '{}' is {} in one program and {} in "
                                           "the other",
                                           input.name,
                                           kind_name(builder_.program().inputs[it->second].kind),
                                           kind_name(input.kind)));
        }
        return it->second;
    }

    Builder& builder_;
    std::map<std::string, std::uint32_t>& slots_;
};

}  // namespace

Program compose(const Program& first, const Program& second) {
    const std::size_t linked = first.outputs.size();
    for (std::size_t k = 0; k < std::min(linked, second.inputs.size()); ++k) {
        if (first.at(first.outputs[k]).kind != second.inputs[k].kind) {
            throw CompileError(fmt::format(
                "compose: input slot {} ('{}') of the second program is {}, but output {} of "
                "the first is {}",
                k, second.inputs[k].name, kind_name(second.inputs[k].kind), k,
                kind_name(first.at(first.outputs[k]).kind)));
        }
    }
    const std::vector<char> second_live = live_instructions(second, second.outputs);
    std::vector<ValueId> first_roots;
    for (std::size_t i = 0; i < second.size(); ++i) {
        const Instruction& inst = second.instructions[i];
        if (second_live[i] != 0 && inst.op == OpCode::kLoad && inst.attr < linked) {
            first_roots.push_back(first.outputs[inst.attr]);
        }
    }
    const std::vector<char> first_live = live_instructions(first, first_roots);

    Builder builder;
    std::map<std::string, std::uint32_t> slots;
    Copier copier(builder, slots);
    const std::vector<ValueId> from_first =
        copier.copy(first, first_live, [](std::uint32_t) { return std::optional<ValueId>{}; });
    const std::vector<ValueId> from_second =
        copier.copy(second, second_live, [&](std::uint32_t slot) -> std::optional<ValueId> {
            if (slot >= linked) {
                return std::nullopt;
            }
            return from_first[to_index(first.outputs[slot])];
        });
    for (std::size_t o = 0; o < second.outputs.size(); ++o) {
        builder.add_output(from_second[to_index(second.outputs[o])],
                           second.output_names.empty() ? std::string{} : second.output_names[o]);
    }
    builder.set_parameter_count(std::max(first.parameter_count, second.parameter_count));
    return builder.finish();
}

}  // namespace laddu::ir
