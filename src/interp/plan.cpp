#include "plan.hpp"

#include <algorithm>
#include <limits>
#include <map>

#include <laddu/base/assert.hpp>

#include "execute.hpp"

namespace laddu::interp::detail {

namespace {

using ir::OpCode;
using ir::ValueClass;
using ir::ValueId;
using ir::ValueKind;

constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();

// Scalars a value of `kind` takes with `lanes` lanes.
std::uint32_t scalars(ValueKind kind, std::uint32_t width, std::size_t lanes) {
    const std::size_t per_lane = kind == ValueKind::kReal ? 1 : 2 * std::size_t{width};
    return static_cast<std::uint32_t>(per_lane * lanes);
}

// Marks the values the outputs need (dead instructions are never executed).
std::vector<bool> required_values(const ir::Program& program) {
    std::vector<bool> required(program.size(), false);
    std::vector<ValueId> stack(program.outputs.begin(), program.outputs.end());
    while (!stack.empty()) {
        const ValueId id = stack.back();
        stack.pop_back();
        if (required[ir::to_index(id)]) {
            continue;
        }
        required[ir::to_index(id)] = true;
        for (const ValueId operand : program.operands_of(id)) {
            stack.push_back(operand);
        }
    }
    return required;
}

// LIFO free lists of event registers, keyed by size in scalars.
class RegisterFile {
public:
    std::uint32_t allocate(std::uint32_t size) {
        auto& list = free_[size];
        if (!list.empty()) {
            const std::uint32_t offset = list.back();
            list.pop_back();
            return offset;
        }
        const std::uint32_t offset = top_;
        top_ += size;
        ++registers_;
        return offset;
    }

    void release(std::uint32_t offset, std::uint32_t size) { free_[size].push_back(offset); }

    [[nodiscard]] std::uint32_t top() const { return top_; }

    [[nodiscard]] std::size_t registers() const { return registers_; }

private:
    std::map<std::uint32_t, std::vector<std::uint32_t>> free_;
    std::uint32_t top_ = 0;
    std::size_t registers_ = 0;
};

struct Location {
    Source source = Source::kRegister;
    std::uint32_t offset = kNone;
};

class PlanBuilder {
public:
    PlanBuilder(const ir::Program& program, ir::Precision precision)
        : program_(program), required_(required_values(program)),
          invariant_offset_(program.size(), kNone), event_location_(program.size()) {
        plan_.program = program;
        plan_.precision = precision;
    }

    Plan build() {
        lay_out_invariants();
        broadcast_invariants();
        lay_out_events();
        for (const ValueId id : program_.outputs) {
            plan_.outputs.push_back(operand_for(id, 0));
        }
        plan_.register_scalars = registers_.top();
        plan_.stats.invariant_steps = plan_.invariant_steps.size();
        plan_.stats.event_steps = plan_.event_steps.size();
        plan_.stats.broadcasts = plan_.broadcasts.size();
        plan_.stats.registers = registers_.registers();
        plan_.stats.register_lanes = registers_.top();
        return std::move(plan_);
    }

private:
    Step make_step(std::uint32_t index, std::uint32_t out) {
        const ir::Instruction& inst = program_.instructions[index];
        Step step;
        step.op = inst.op;
        step.kind = inst.kind;
        step.attr = inst.attr;
        step.out = out;
        step.width = inst.width();
        step.first = static_cast<std::uint32_t>(plan_.operands.size());
        step.count = inst.count;
        step.value = index;
        plan_.max_operands = std::max<std::size_t>({plan_.max_operands, inst.count, step.width});
        if (inst.op == OpCode::kSolve) {
            const std::size_t n = ir::solve_size(inst.attr);
            const std::size_t m = ir::solve_rhs_count(inst.attr);
            plan_.solve_scratch = std::max(plan_.solve_scratch, (n * n + n * m) * kSolveGroup);
            plan_.solve_swaps = std::max(plan_.solve_swaps, n * kSolveGroup);
        }
        return step;
    }

    void lay_out_invariants() {
        for (std::uint32_t index = 0; index < program_.size(); ++index) {
            const ir::Instruction& inst = program_.instructions[index];
            if (!required_[index] || inst.cls != ValueClass::kInvariant) {
                continue;
            }
            const auto offset = static_cast<std::uint32_t>(plan_.invariant_scalars);
            invariant_offset_[index] = offset;
            plan_.invariant_scalars += scalars(inst.kind, inst.width(), 1);
            const Step step = make_step(index, offset);
            for (const ValueId operand : program_.operands_of(inst)) {
                plan_.operands.push_back(Operand{Source::kRegister, program_.at(operand).kind,
                                                 invariant_offset_[ir::to_index(operand)],
                                                 operand_element(inst, operand)});
            }
            plan_.invariant_steps.push_back(step);
        }
    }

    // kExtract reads one element of its Vector operand; every other operand is element 0.
    static std::uint32_t operand_element(const ir::Instruction& inst, ValueId /*operand*/) {
        return inst.op == OpCode::kExtract ? inst.attr : 0;
    }

    // Invariant values read by a needed event instruction, or output, get a permanent
    // full-lane register filled by evaluate_invariants().
    void broadcast_invariants() {
        std::vector<bool> needed(program_.size(), false);
        for (std::uint32_t index = 0; index < program_.size(); ++index) {
            const ir::Instruction& inst = program_.instructions[index];
            if (!required_[index] || inst.cls != ValueClass::kEvent) {
                continue;
            }
            for (const ValueId operand : program_.operands_of(inst)) {
                if (program_.at(operand).cls == ValueClass::kInvariant) {
                    needed[ir::to_index(operand)] = true;
                }
            }
        }
        for (const ValueId id : program_.outputs) {
            if (program_.at(id).cls == ValueClass::kInvariant) {
                needed[ir::to_index(id)] = true;
            }
        }
        for (std::uint32_t index = 0; index < program_.size(); ++index) {
            if (!needed[index]) {
                continue;
            }
            const ir::Instruction& inst = program_.instructions[index];
            const std::uint32_t to =
                registers_.allocate(scalars(inst.kind, inst.width(), kBlockSize));
            plan_.broadcasts.push_back(
                Broadcast{inst.kind, invariant_offset_[index], to, inst.width()});
            event_location_[index] = Location{Source::kRegister, to};
        }
    }

    Operand operand_for(ValueId id, std::uint32_t element) const {
        const Location& loc = event_location_[ir::to_index(id)];
        LADDU_ASSERT(loc.offset != kNone) << "value %" << ir::to_index(id) << " has no location";
        return Operand{loc.source, program_.at(id).kind, loc.offset, element};
    }

    void lay_out_events() {
        const auto size = static_cast<std::uint32_t>(program_.size());
        // Last use of each event value, in instruction index; outputs live to the end.
        std::vector<std::uint32_t> last_use(size, 0);
        for (std::uint32_t index = 0; index < size; ++index) {
            if (!required_[index]) {
                continue;
            }
            for (const ValueId operand : program_.operands_of(value_id_of(index))) {
                last_use[ir::to_index(operand)] = index;
            }
        }
        for (const ValueId id : program_.outputs) {
            last_use[ir::to_index(id)] = kNone;
        }
        const bool loads_in_place = plan_.precision == ir::Precision::kF64;
        std::vector<ValueId> dying;
        for (std::uint32_t index = 0; index < size; ++index) {
            const ir::Instruction& inst = program_.instructions[index];
            if (!required_[index] || inst.cls != ValueClass::kEvent) {
                continue;
            }
            ++plan_.stats.values_without_reuse;
            if (inst.op == OpCode::kLoad && loads_in_place) {
                event_location_[index] = Location{Source::kInput, inst.attr};
                continue;
            }
            // Allocate the result before freeing dead operands, so no step writes a register
            // it still reads.
            const std::uint32_t out =
                registers_.allocate(scalars(inst.kind, inst.width(), kBlockSize));
            event_location_[index] = Location{Source::kRegister, out};
            const Step step = make_step(index, out);
            dying.clear();
            for (const ValueId operand : program_.operands_of(inst)) {
                plan_.operands.push_back(operand_for(operand, operand_element(inst, operand)));
                const std::uint32_t op_index = ir::to_index(operand);
                const ir::Instruction& def = program_.instructions[op_index];
                if (def.cls == ValueClass::kEvent && last_use[op_index] == index &&
                    event_location_[op_index].source == Source::kRegister) {
                    dying.push_back(operand);
                }
            }
            std::sort(dying.begin(), dying.end());
            dying.erase(std::unique(dying.begin(), dying.end()), dying.end());
            for (const ValueId id : dying) {
                const ir::Instruction& def = program_.at(id);
                registers_.release(event_location_[ir::to_index(id)].offset,
                                   scalars(def.kind, def.width(), kBlockSize));
            }
            plan_.event_steps.push_back(step);
        }
    }

    static ValueId value_id_of(std::uint32_t index) { return ir::value_id(index); }

    const ir::Program& program_;
    std::vector<bool> required_;
    std::vector<std::uint32_t> invariant_offset_;
    std::vector<Location> event_location_;
    RegisterFile registers_;
    Plan plan_;
};

}  // namespace

Plan build_plan(const ir::Program& program, ir::Precision precision) {
    return PlanBuilder(program, precision).build();
}

}  // namespace laddu::interp::detail
