#include <algorithm>
#include <type_traits>

#include <fmt/format.h>

#include <laddu/base/aligned.hpp>
#include <laddu/base/assert.hpp>
#include <laddu/base/error.hpp>
#include <laddu/interp/interpreter.hpp>
#include <laddu/ir/validate.hpp>

#include "execute.hpp"
#include "plan.hpp"
#include "trace.hpp"

namespace laddu::interp {

namespace detail {

/// Registers and scratch for one thread, in both precisions' types (only one is sized).
struct WorkspaceState {
    const Plan* plan = nullptr;
    bool invariants_ready = false;
    AlignedVector<double> registers64;
    AlignedVector<float> registers32;
    std::vector<double> invariants;
    std::vector<std::complex<double>> lu64;
    std::vector<std::complex<float>> lu32;
    std::vector<std::size_t> swaps;
    std::vector<Lanes<double>> in64;
    std::vector<Lanes<float>> in32;
    std::vector<OutLanes<double>> out64;
    std::vector<OutLanes<float>> out32;

    template <typename T>
    T* registers() {
        if constexpr (std::is_same_v<T, double>) {
            return registers64.data();
        } else {
            return registers32.data();
        }
    }

    template <typename T>
    std::vector<Lanes<T>>& in() {
        if constexpr (std::is_same_v<T, double>) {
            return in64;
        } else {
            return in32;
        }
    }

    template <typename T>
    std::vector<OutLanes<T>>& out() {
        if constexpr (std::is_same_v<T, double>) {
            return out64;
        } else {
            return out32;
        }
    }

    template <typename T>
    std::complex<T>* lu() {
        if constexpr (std::is_same_v<T, double>) {
            return lu64.data();
        } else {
            return lu32.data();
        }
    }
};

namespace {

using ir::OpCode;
using ir::ValueKind;

// The block being run: register base, lane stride and (event steps only) the inputs.
template <typename T>
struct Frame {
    T* base = nullptr;
    std::size_t stride = 1;
    const ir::ColumnView* inputs = nullptr;
    std::size_t begin = 0;
    std::size_t lanes = 1;
};

template <typename T>
Lanes<T> resolve(const Operand& operand, const Frame<T>& frame) noexcept {
    if constexpr (std::is_same_v<T, double>) {
        if (operand.source == Source::kInput) {
            const ir::InputColumn& column = frame.inputs->columns[operand.offset];
            return {column.re + frame.begin,
                    operand.kind == ValueKind::kComplex ? column.im + frame.begin : nullptr};
        }
    }
    const T* re = frame.base + operand.offset + 2 * std::size_t{operand.element} * frame.stride;
    return {re, operand.kind == ValueKind::kReal ? nullptr : re + frame.stride};
}

template <typename T>
OutLanes<T> out_lanes(const Step& step, const Frame<T>& frame, std::uint32_t element) noexcept {
    T* re = frame.base + step.out + 2 * std::size_t{element} * frame.stride;
    return {re, step.kind == ValueKind::kReal ? nullptr : re + frame.stride};
}

// f32 loads: copy a float column, or round a double one, to float lanes (the same bits).
template <typename T, typename Stored>
void round_lanes(const Stored* from, T* to, std::size_t lanes) noexcept {
    for (std::size_t i = 0; i < lanes; ++i) {
        to[i] = static_cast<T>(from[i]);
    }
}

template <typename T>
void load(const Step& step, const Frame<T>& frame) noexcept {
    const ir::InputColumn& column = frame.inputs->columns[step.attr];
    const OutLanes<T> out = out_lanes(step, frame, 0);
    if (column.is_f32()) {
        round_lanes(column.re32 + frame.begin, out.re, frame.lanes);
        if (out.im != nullptr) {
            round_lanes(column.im32 + frame.begin, out.im, frame.lanes);
        }
        return;
    }
    round_lanes(column.re + frame.begin, out.re, frame.lanes);
    if (out.im != nullptr) {
        round_lanes(column.im + frame.begin, out.im, frame.lanes);
    }
}

template <typename T>
void run_steps(const Plan& plan, std::span<const Step> steps, const Frame<T>& frame,
               std::span<const double> params, WorkspaceState& ws) noexcept {
    std::vector<Lanes<T>>& in = ws.in<T>();
    std::vector<OutLanes<T>>& outs = ws.out<T>();
    const std::size_t n = frame.lanes;
    for (const Step& step : steps) {
        for (std::uint32_t k = 0; k < step.count; ++k) {
            in[k] = resolve(plan.operands[step.first + k], frame);
        }
        const std::span<const Lanes<T>> operands(in.data(), step.count);
        const OutLanes<T> out = out_lanes(step, frame, 0);
        switch (step.op) {
        case OpCode::kConstReal:
        case OpCode::kConstComplex: {
            const ir::Instruction& inst = plan.program.instructions[step.value];
            out.re[0] = static_cast<T>(inst.re);
            if (out.im != nullptr) {
                out.im[0] = static_cast<T>(inst.im);
            }
            break;
        }
        case OpCode::kParam:
            out.re[0] = static_cast<T>(params[step.attr]);
            break;
        case OpCode::kLoad:
            load(step, frame);
            break;
        case OpCode::kAdd:
        case OpCode::kSub:
        case OpCode::kMul:
        case OpCode::kDiv:
        case OpCode::kPow:
        case OpCode::kAtan2:
        case OpCode::kComplex:
            execute_binary<T>(step.op, operands[0], operands[1], out, n);
            break;
        case OpCode::kAddN:
        case OpCode::kMulN:
        case OpCode::kDot:
            execute_nary<T>(step.op, step.attr, operands, out, n);
            break;
        case OpCode::kSolve:
            for (std::uint32_t e = 0; e < step.width; ++e) {
                outs[e] = out_lanes(step, frame, e);
            }
            execute_solve<T>(step.attr, operands,
                             std::span<const OutLanes<T>>(outs.data(), step.width), n, ws.lu<T>(),
                             ws.swaps.data());
            break;
        case OpCode::kExtract:
            copy_lanes<T>(operands[0], out, n);
            break;
        default:
            execute_unary<T>(step.op, step.attr, operands[0], out, n);
            break;
        }
    }
}

template <typename T>
void broadcast(const Plan& plan, WorkspaceState& ws) noexcept {
    T* base = ws.registers<T>();
    for (const Broadcast& b : plan.broadcasts) {
        const std::size_t parts = b.kind == ValueKind::kReal ? 1 : 2 * std::size_t{b.width};
        for (std::size_t part = 0; part < parts; ++part) {
            const T value = static_cast<T>(ws.invariants[b.from + part]);
            T* lanes = base + b.to + part * kBlockSize;
            std::fill(lanes, lanes + kBlockSize, value);
        }
    }
}

template <typename T>
std::complex<double> lane_zero(const T* re, const T* im) noexcept {
    return {static_cast<double>(re[0]), im != nullptr ? static_cast<double>(im[0]) : 0.0};
}

// The steps one at a time on lane 0 of `frame`: operands are read before a step runs, the result
// after (a result register is never an operand's, plan.cpp).
template <typename T>
void trace_steps(const Plan& plan, std::span<const Step> steps, const Frame<T>& frame,
                 std::span<const double> params, WorkspaceState& ws, bool invariant,
                 const StepVisitor& visit) {
    std::vector<std::complex<double>> operands;
    std::vector<std::complex<double>> result;
    for (const Step& step : steps) {
        operands.clear();
        for (std::uint32_t k = 0; k < step.count; ++k) {
            const Lanes<T> lanes = resolve(plan.operands[step.first + k], frame);
            operands.push_back(lane_zero(lanes.re, lanes.im));
        }
        run_steps<T>(plan, std::span<const Step>(&step, 1), frame, params, ws);
        result.clear();
        for (std::uint32_t e = 0; e < step.width; ++e) {
            const OutLanes<T> out = out_lanes(step, frame, e);
            result.push_back(lane_zero<T>(out.re, out.im));
        }
        visit(TracedStep{step.value, invariant, operands, result});
    }
}

template <typename T>
std::vector<std::complex<double>> trace_event_steps(const Plan& plan, WorkspaceState& ws,
                                                    const ir::ColumnView& inputs, std::size_t row,
                                                    const StepVisitor& visit) {
    broadcast<T>(plan, ws);
    const Frame<T> frame{ws.registers<T>(), kBlockSize, &inputs, row, 1};
    trace_steps<T>(plan, plan.event_steps, frame, {}, ws, false, visit);
    std::vector<std::complex<double>> outputs;
    for (const Operand& output : plan.outputs) {
        const Lanes<T> lanes = resolve(output, frame);
        outputs.push_back(lane_zero(lanes.re, lanes.im));
    }
    return outputs;
}

}  // namespace

std::vector<std::complex<double>> trace_event(const Plan& plan, WorkspaceState& workspace,
                                              std::span<const double> params,
                                              const ir::ColumnView& inputs, std::size_t row,
                                              const StepVisitor& visit) {
    const Frame<double> invariants{workspace.invariants.data(), 1, nullptr, 0, 1};
    trace_steps<double>(plan, plan.invariant_steps, invariants, params, workspace, true, visit);
    if (plan.precision == ir::Precision::kF64) {
        return trace_event_steps<double>(plan, workspace, inputs, row, visit);
    }
    return trace_event_steps<float>(plan, workspace, inputs, row, visit);
}

}  // namespace detail

Workspace::Workspace() : state_(std::make_unique<detail::WorkspaceState>()) {}

Workspace::Workspace(Workspace&&) noexcept = default;

Workspace& Workspace::operator=(Workspace&&) noexcept = default;

Workspace::~Workspace() = default;

std::size_t Workspace::bytes() const noexcept {
    if (!state_) {
        return 0;
    }
    const detail::WorkspaceState& s = *state_;
    return s.registers64.size() * sizeof(double) + s.registers32.size() * sizeof(float) +
           s.invariants.size() * sizeof(double) + s.lu64.size() * sizeof(std::complex<double>) +
           s.lu32.size() * sizeof(std::complex<float>) + s.swaps.size() * sizeof(std::size_t);
}

Interpreter::Interpreter(std::unique_ptr<detail::Plan> plan) : plan_(std::move(plan)) {}

Interpreter::Interpreter(Interpreter&&) noexcept = default;

Interpreter& Interpreter::operator=(Interpreter&&) noexcept = default;

Interpreter::~Interpreter() = default;

Interpreter Interpreter::prepare(const ir::Program& program, ir::Precision precision) {
    if (auto ok = ir::validate(program); !ok) {
        throw CompileError("cannot prepare an invalid program for the interpreter: " +
                           ok.error().message);
    }
    return Interpreter(std::make_unique<detail::Plan>(detail::build_plan(program, precision)));
}

Workspace Interpreter::make_workspace() const {
    Workspace workspace;
    detail::WorkspaceState& s = *workspace.state_;
    s.plan = plan_.get();
    if (plan_->precision == ir::Precision::kF64) {
        s.registers64.assign(plan_->register_scalars, 0.0);
        s.lu64.resize(plan_->solve_scratch);
    } else {
        s.registers32.assign(plan_->register_scalars, 0.0F);
        s.lu32.resize(plan_->solve_scratch);
    }
    s.lu64.resize(std::max(s.lu64.size(), plan_->solve_scratch));  // invariant solves are f64
    s.invariants.assign(plan_->invariant_scalars, 0.0);
    s.swaps.resize(plan_->solve_swaps);
    s.in64.resize(plan_->max_operands);
    s.in32.resize(plan_->max_operands);
    s.out64.resize(plan_->max_operands);
    s.out32.resize(plan_->max_operands);
    return workspace;
}

detail::WorkspaceState& Interpreter::run_invariant_steps(std::span<const double> params,
                                                         Workspace& workspace) const {
    if (params.size() != plan_->program.parameter_count) {
        throw EvaluationError(fmt::format("expected {} parameter values, got {}",
                                          plan_->program.parameter_count, params.size()));
    }
    detail::WorkspaceState& s = *workspace.state_;
    if (s.plan != plan_.get()) {
        throw InternalError("workspace was made by a different interpreter; use "
                            "make_workspace() of the interpreter that runs it");
    }
    const detail::Frame<double> frame{s.invariants.data(), 1, nullptr, 0, 1};
    detail::run_steps<double>(*plan_, plan_->invariant_steps, frame, params, s);
    // The broadcasts are not refreshed yet: run_block() must wait for evaluate_invariants().
    s.invariants_ready = false;
    return s;
}

void Interpreter::evaluate_invariants(std::span<const double> params, Workspace& workspace) const {
    detail::WorkspaceState& s = run_invariant_steps(params, workspace);
    if (plan_->precision == ir::Precision::kF64) {
        detail::broadcast<double>(*plan_, s);
    } else {
        detail::broadcast<float>(*plan_, s);
    }
    s.invariants_ready = true;
}

template <typename T>
void Interpreter::run_block_impl(const ir::ColumnView& inputs, std::size_t begin, std::size_t count,
                                 Workspace& workspace, const ir::OutputView& out) const {
    detail::WorkspaceState& s = *workspace.state_;
    const detail::Frame<T> frame{s.registers<T>(), kBlockSize, &inputs, begin, count};
    // Blocks walk many input columns at once, more streams than the hardware prefetcher
    // tracks; ask for the next block's lines now so they arrive while this block computes.
    if (begin + 2 * kBlockSize <= inputs.events) {
        // Two spelled-out loops: a generic lambda over both element types measured 2x slower on
        // the K-matrix program (GCC 12), so the per-type copies stay.
        for (const ir::InputColumn& column : inputs.columns) {
            if (column.is_f32()) {
                for (std::size_t line = 0; line < kBlockSize; line += 16) {
                    __builtin_prefetch(column.re32 + begin + kBlockSize + line);
                    if (column.im32 != nullptr) {
                        __builtin_prefetch(column.im32 + begin + kBlockSize + line);
                    }
                }
                continue;
            }
            for (std::size_t line = 0; line < kBlockSize; line += 8) {
                __builtin_prefetch(column.re + begin + kBlockSize + line);
                if (column.im != nullptr) {
                    __builtin_prefetch(column.im + begin + kBlockSize + line);
                }
            }
        }
    }
    detail::run_steps<T>(*plan_, plan_->event_steps, frame, {}, s);
    for (std::size_t j = 0; j < plan_->outputs.size(); ++j) {
        const detail::Lanes<T> lanes = detail::resolve(plan_->outputs[j], frame);
        const ir::OutputColumn& column = out.columns[j];
        for (std::size_t i = 0; i < count; ++i) {
            column.re[i] = static_cast<double>(lanes.re[i]);
        }
        if (column.im != nullptr) {
            for (std::size_t i = 0; i < count; ++i) {
                column.im[i] = lanes.im != nullptr ? static_cast<double>(lanes.im[i]) : 0.0;
            }
        }
    }
}

void Interpreter::run_block(const ir::ColumnView& inputs, std::size_t begin, std::size_t count,
                            Workspace& workspace, const ir::OutputView& out) const {
    LADDU_ASSERT(workspace.state_ && workspace.state_->plan == plan_.get())
        << "workspace made by another interpreter";
    LADDU_ASSERT(workspace.state_->invariants_ready) << "run_block before evaluate_invariants";
    LADDU_ASSERT(count <= kBlockSize && begin + count <= inputs.events)
        << "block [" << begin << ", " << begin + count << ") of " << inputs.events << " events";
    LADDU_ASSERT(out.columns.size() == plan_->outputs.size()) << "output view size";
    if (plan_->precision == ir::Precision::kF64) {
        run_block_impl<double>(inputs, begin, count, workspace, out);
    } else {
        run_block_impl<float>(inputs, begin, count, workspace, out);
    }
}

void Interpreter::run(std::span<const double> params, const ir::ColumnView& inputs,
                      std::size_t begin, std::size_t count, Workspace& workspace,
                      const ir::OutputView& out) const {
    ir::check_inputs(plan_->program, plan_->precision, inputs);
    check_outputs(out);
    if (begin > inputs.events || count > inputs.events - begin) {
        throw DataError(fmt::format("event range [{}, {}) is out of range for {} events", begin,
                                    begin + count, inputs.events));
    }
    evaluate_invariants(params, workspace);
    std::vector<ir::OutputColumn> shifted(out.columns.begin(), out.columns.end());
    for (std::size_t done = 0; done < count; done += kBlockSize) {
        const std::size_t lanes = std::min(kBlockSize, count - done);
        for (std::size_t j = 0; j < shifted.size(); ++j) {
            shifted[j].re = out.columns[j].re + done;
            shifted[j].im = out.columns[j].im != nullptr ? out.columns[j].im + done : nullptr;
        }
        run_block(inputs, begin + done, lanes, workspace, ir::OutputView{shifted});
    }
}

std::vector<std::complex<double>> Interpreter::evaluate_row(std::span<const double> params,
                                                            const ir::ColumnView& inputs,
                                                            std::size_t row) const {
    ir::check_inputs(plan_->program, plan_->precision, inputs);
    if (row >= inputs.events) {
        throw DataError(
            fmt::format("event row {} is out of range for {} events", row, inputs.events));
    }
    const std::size_t outputs = plan_->outputs.size();
    std::vector<double> re(outputs);
    std::vector<double> im(outputs);
    std::vector<ir::OutputColumn> columns(outputs);
    for (std::size_t j = 0; j < outputs; ++j) {
        columns[j] = ir::OutputColumn{&re[j], &im[j]};
    }
    Workspace workspace = make_workspace();
    evaluate_invariants(params, workspace);
    run_block(inputs, row, 1, workspace, ir::OutputView{columns});
    std::vector<std::complex<double>> values(outputs);
    for (std::size_t j = 0; j < outputs; ++j) {
        values[j] = {re[j], im[j]};
    }
    return values;
}

void Interpreter::check_outputs(const ir::OutputView& out) const {
    if (out.columns.size() != plan_->outputs.size()) {
        throw DataError(fmt::format("the program has {} outputs, but {} output columns were given",
                                    plan_->outputs.size(), out.columns.size()));
    }
    for (std::size_t j = 0; j < out.columns.size(); ++j) {
        if (out.columns[j].re == nullptr) {
            throw DataError(fmt::format("output column {} has no re array", j));
        }
    }
}

const ir::Program& Interpreter::program() const noexcept {
    return plan_->program;
}

ir::Precision Interpreter::precision() const noexcept {
    return plan_->precision;
}

PlanStats Interpreter::stats() const noexcept {
    return plan_->stats;
}

}  // namespace laddu::interp
