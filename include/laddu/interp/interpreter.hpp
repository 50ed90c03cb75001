// laddu/interp/interpreter.hpp: the batch interpreter for ir::Program.
//
// Interpreter::prepare() turns a validated program into a plan once: invariant instructions
// (class kInvariant) are evaluated once per parameter vector, in f64, by
// evaluate_invariants(); event instructions run over blocks of up to kBlockSize events in
// structure-of-arrays registers (a Real register is kBlockSize lanes, a Complex one separate
// re and im lane arrays), instruction by instruction, so each opcode's loop over lanes
// vectorises. Registers are reused after their last use. Invariant values that event
// instructions read are broadcast into full-lane registers once per evaluate_invariants().
//
// Example:
//   auto interp = interp::Interpreter::prepare(program, ir::Precision::kF64);
//   interp::Workspace ws = interp.make_workspace();
//   interp.evaluate_invariants(params, ws);
//   for (std::size_t begin = 0; begin < n; begin += interp::kBlockSize)
//       interp.run_block(inputs, begin, std::min(interp::kBlockSize, n - begin), ws, out_block);
//
// One Workspace per thread; an Interpreter is immutable after prepare and shared freely.
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <laddu/ir/columns.hpp>
#include <laddu/ir/precision.hpp>
#include <laddu/ir/program.hpp>

namespace laddu::interp {

/// The lanes of one block: the number of events every event instruction processes at once.
inline constexpr std::size_t kBlockSize = 64;

namespace detail {
struct Plan;
struct WorkspaceState;
}  // namespace detail

/// Per-thread mutable state of an Interpreter: registers, invariant values, scratch. Create it
/// with Interpreter::make_workspace(); it is bound to that interpreter's plan. Move-only.
class Workspace {
public:
    Workspace();
    Workspace(Workspace&&) noexcept;
    Workspace& operator=(Workspace&&) noexcept;
    Workspace(const Workspace&) = delete;
    Workspace& operator=(const Workspace&) = delete;
    ~Workspace();

    /// Bytes of register and scratch storage.
    [[nodiscard]] std::size_t bytes() const noexcept;

private:
    friend class Interpreter;

    std::unique_ptr<detail::WorkspaceState> state_;
};

/// Register and step counts of a prepared plan, for reports and tests.
struct PlanStats {
    std::size_t invariant_steps = 0;       ///< invariant instructions evaluated per call
    std::size_t event_steps = 0;           ///< event instructions evaluated per block
    std::size_t broadcasts = 0;            ///< invariant values broadcast to lanes
    std::size_t registers = 0;             ///< event registers after reuse (all kinds)
    std::size_t register_lanes = 0;        ///< lanes of all registers, in scalars (re and im count)
    std::size_t values_without_reuse = 0;  ///< event-register values before reuse
};

/// Where the non-finite outputs of one event start (Interpreter::diagnose_event).
struct NonFiniteOrigin {
    ir::ValueId value{};                 ///< the instruction whose result is not finite
    std::optional<std::uint32_t> input;  ///< its input slot, when the event's input itself is bad
    std::string description;             ///< "solve of a 2x2 matrix is singular", "sqrt(-1) is nan"
};

/// A prepared program. Immutable after prepare(); thread-safe for concurrent use with one
/// Workspace per thread.
class Interpreter {
public:
    /// Validates `program` (CompileError if invalid) and builds the block plan.
    [[nodiscard]] static Interpreter prepare(const ir::Program& program,
                                             ir::Precision precision = ir::Precision::kF64);

    Interpreter(Interpreter&&) noexcept;
    Interpreter& operator=(Interpreter&&) noexcept;
    Interpreter(const Interpreter&) = delete;
    Interpreter& operator=(const Interpreter&) = delete;
    ~Interpreter();

    /// A fresh workspace sized for this plan.
    [[nodiscard]] Workspace make_workspace() const;

    /// Evaluates the invariant instructions for `params` and broadcasts the invariant values
    /// the event instructions read. Throws EvaluationError if params.size() differs from the
    /// program's parameter_count. Call it once per parameter vector, before run_block().
    void evaluate_invariants(std::span<const double> params, Workspace& workspace) const;

    /// Runs the event instructions over events [begin, begin + count) of `inputs`
    /// (count <= kBlockSize) and writes lane 0 .. count-1 of each output. Preconditions
    /// (asserted, not checked per event): evaluate_invariants() ran on this workspace,
    /// ir::check_inputs(program(), precision(), inputs) passed, begin + count <= inputs.events.
    void run_block(const ir::ColumnView& inputs, std::size_t begin, std::size_t count,
                   Workspace& workspace, const ir::OutputView& out) const;

    /// Evaluates invariants, then every block of events [begin, begin + count), writing
    /// `out.columns[j].re[i - begin]` for event i. Checks inputs and the range.
    void run(std::span<const double> params, const ir::ColumnView& inputs, std::size_t begin,
             std::size_t count, Workspace& workspace, const ir::OutputView& out) const;

    /// All outputs of one event (a block of one lane), widened to complex. Checks inputs, the
    /// parameter count and that `row` < inputs.events.
    [[nodiscard]] std::vector<std::complex<double>> evaluate_row(std::span<const double> params,
                                                                 const ir::ColumnView& inputs,
                                                                 std::size_t row) const;

    /// Why event `row` of `inputs` has a non-finite output under `params` (`output` only, when
    /// given): re-runs that event alone, one instruction at a time with the kernels run_block()
    /// uses (so the same bits), and walks back from the non-finite outputs to the instruction
    /// their non-finite values start from: one whose operands are finite but whose result is not
    /// (an input that is itself not finite counts as such an instruction). Its description
    /// names the operation and its operand values ("sqrt(-1) is nan", "1 / 0 is inf", "solve of
    /// a 2x2 matrix is singular: [[1, 2], [2, 4]]"). nullopt when those outputs are finite.
    /// Checks inputs, parameters and `row` as evaluate_row() does. One event, a fresh workspace:
    /// meant for error messages, never for a loop over events.
    [[nodiscard]] std::optional<NonFiniteOrigin>
    diagnose_event(std::span<const double> params, const ir::ColumnView& inputs, std::size_t row,
                   std::optional<std::size_t> output = std::nullopt) const;

    /// Throws DataError if `out` does not have one column with a re pointer per output.
    void check_outputs(const ir::OutputView& out) const;

    /// The program this plan was built from.
    [[nodiscard]] const ir::Program& program() const noexcept;

    /// The precision of the event instructions.
    [[nodiscard]] ir::Precision precision() const noexcept;

    /// Register and step counts.
    [[nodiscard]] PlanStats stats() const noexcept;

private:
    explicit Interpreter(std::unique_ptr<detail::Plan> plan);

    // Checks params and workspace and runs the invariant steps (no broadcast).
    detail::WorkspaceState& run_invariant_steps(std::span<const double> params,
                                                Workspace& workspace) const;

    template <typename T>
    void run_block_impl(const ir::ColumnView& inputs, std::size_t begin, std::size_t count,
                        Workspace& workspace, const ir::OutputView& out) const;

    std::unique_ptr<detail::Plan> plan_;
};

}  // namespace laddu::interp
