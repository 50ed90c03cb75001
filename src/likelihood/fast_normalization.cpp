#include "fast_normalization.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <laddu/autodiff/gradient.hpp>
#include <laddu/base/accurate_sum.hpp>
#include <laddu/base/assert.hpp>
#include <laddu/base/error.hpp>
#include <laddu/runtime/collective.hpp>
#include <laddu/runtime/event_windows.hpp>
#include <laddu/runtime/reduce.hpp>
#include <laddu/runtime/thread_pool.hpp>

namespace laddu::likelihood {
namespace {

// The program computing only output `a` of `program` (autodiff differentiates output 0).
ir::Program single_output(const ir::Program& program, std::size_t a) {
    ir::Program one = program;
    one.outputs = {program.outputs[a]};
    one.output_names.clear();
    return one;
}

// Coefficient programs read no event columns: one "event" with no inputs.
interp::ColumnView no_inputs() {
    return interp::ColumnView{{}, 1};
}

// One compensated sum per real and imaginary part of each matrix entry.
struct MatrixSums {
    explicit MatrixSums(std::size_t terms) : n(terms), re(terms * terms), im(terms * terms) {}

    // Adds w A_a conj(A_b) for lane `lane` of a block whose amplitude a sits at
    // (block_re, block_im)[a * kBlockSize + lane].
    void add(const compile::NormalizationDecomposition& d, const std::vector<double>& block_re,
             const std::vector<double>& block_im, std::size_t lane, double w) {
        for (std::size_t a = 0; a < n; ++a) {
            const std::complex<double> wa(w * block_re[a * interp::kBlockSize + lane],
                                          w * block_im[a * interp::kBlockSize + lane]);
            for (std::size_t b = 0; b < n; ++b) {
                if (d.group[a] == d.group[b]) {
                    const std::complex<double> ab =
                        wa * std::complex<double>(block_re[b * interp::kBlockSize + lane],
                                                  -block_im[b * interp::kBlockSize + lane]);
                    re[a * n + b].push(ab.real());
                    im[a * n + b].push(ab.imag());
                }
            }
        }
    }

    std::size_t n;
    std::vector<AccurateSum> re;
    std::vector<AccurateSum> im;
};

// Events per source read while building M: whole chunks, within the budget (less the source's
// read buffers) when one is set.
std::size_t read_window(const runtime::EventWindows& windows, const runtime::Execution& execution) {
    constexpr std::size_t kMaxChunks = 16;
    const std::size_t total = execution.memory.resolve();
    const std::size_t budget = total - std::min(total, windows.read_buffer_bytes());
    const std::size_t per_chunk = 2 * windows.source_bytes_per_event() * runtime::kReductionChunk;
    const std::size_t chunks = std::clamp<std::size_t>(budget / per_chunk, 1, kMaxChunks);
    return chunks * runtime::kReductionChunk;
}

// True when every entry of a chunk record is finite.
bool finite_record(std::span<const double> record) {
    return std::all_of(record.begin(), record.end(), [](double v) { return std::isfinite(v); });
}

// The EvaluationError for the first accepted event of window rows [begin, end) with a non-finite
// amplitude: a record is not finite exactly when one of its terms is, so only a failed chunk is
// searched, and the event is explained by re-running it through the interpreter.
[[noreturn]] void throw_bad_amplitude(const interp::Interpreter& amplitudes,
                                      const runtime::EventWindows& windows,
                                      const runtime::EventWindow& window,
                                      const interp::ColumnView& view, std::size_t begin,
                                      std::size_t end) {
    const std::size_t n = amplitudes.program().outputs.size();
    for (std::size_t row = begin; row < end; ++row) {
        const std::vector<std::complex<double>> values =
            amplitudes.evaluate_row(std::span<const double>{}, view, row);
        for (std::size_t a = 0; a < n; ++a) {
            if (std::isfinite(values[a].real()) && std::isfinite(values[a].imag())) {
                continue;
            }
            const std::optional<interp::NonFiniteOrigin> why =
                amplitudes.diagnose_event(std::span<const double>{}, view, row, a);
            throw EvaluationError(fmt::format(
                "amplitude {} of the normalisation integral is not finite at event {} of the "
                "accepted Monte Carlo: {}",
                a, windows.global_event(window.first_chunk * runtime::kReductionChunk + row),
                why ? why->description : "re-run alone it is finite"));
        }
    }
    throw EvaluationError("the normalisation integral over the accepted Monte Carlo is not "
                          "finite, though every amplitude is: a sum overflowed");
}

// throw_bad_amplitude for the first chunk of `window` whose record is not `finite`.
void check_chunks(const interp::Interpreter& amplitudes, const runtime::EventWindows& windows,
                  const runtime::EventWindow& window, const interp::ColumnView& view,
                  std::span<const char> finite) {
    for (std::size_t chunk = 0; chunk < finite.size(); ++chunk) {
        if (finite[chunk] == 0) {
            const std::size_t begin = chunk * runtime::kReductionChunk;
            throw_bad_amplitude(amplitudes, windows, window, view, begin,
                                std::min(begin + runtime::kReductionChunk, window.events));
        }
    }
}

// The chunk records (re then im of every entry, 2 n² doubles) of M over the local accepted
// events, one per owned chunk, in owned order.
std::vector<double> chunk_records(const compile::NormalizationDecomposition& d,
                                  const runtime::EventWindows& windows,
                                  const runtime::Execution& execution) {
    const interp::Interpreter amplitudes = interp::Interpreter::prepare(d.amplitude_program);
    const std::size_t n = d.amplitudes.size();
    const std::size_t width = 2 * n * n;
    std::vector<double> records(windows.owned_chunks().size() * width);
    const std::size_t threads = execution.resolved_threads();
    const std::unique_ptr<runtime::ThreadPool> pool =
        threads > 1 ? std::make_unique<runtime::ThreadPool>(threads) : nullptr;
    const std::size_t workers = pool ? pool->size() : 1;

    struct Worker {
        interp::Workspace workspace;
        std::vector<double> re;
        std::vector<double> im;
        std::vector<interp::OutputColumn> columns;
    };

    std::vector<Worker> scratch;
    for (std::size_t w = 0; w < workers; ++w) {
        Worker& worker = scratch.emplace_back(Worker{amplitudes.make_workspace(),
                                                     std::vector<double>(n * interp::kBlockSize),
                                                     std::vector<double>(n * interp::kBlockSize),
                                                     {}});
        for (std::size_t a = 0; a < n; ++a) {
            worker.columns.push_back({worker.re.data() + a * interp::kBlockSize,
                                      worker.im.data() + a * interp::kBlockSize});
        }
        amplitudes.evaluate_invariants(std::span<const double>{}, worker.workspace);
    }
    windows.for_each(read_window(windows, execution), [&](const runtime::EventWindow& window) {
        std::vector<interp::InputColumn> inputs;
        for (const std::span<const double> column : window.columns) {
            inputs.push_back(interp::InputColumn{column.data(), nullptr});
        }
        const interp::ColumnView view{inputs, window.events};
        amplitudes.check_inputs(view);
        const std::size_t chunks =
            (window.events + runtime::kReductionChunk - 1) / runtime::kReductionChunk;
        std::vector<char> finite(chunks, 1);  // not vector<bool>: workers write their own chunk
        const auto fill = [&](std::size_t chunk, std::size_t w) {
            Worker& worker = scratch[w];
            MatrixSums sums(n);
            const std::size_t begin = chunk * runtime::kReductionChunk;
            const std::size_t end = std::min(begin + runtime::kReductionChunk, window.events);
            for (std::size_t block = begin; block < end; block += interp::kBlockSize) {
                const std::size_t count = std::min(interp::kBlockSize, end - block);
                amplitudes.run_block(view, block, count, worker.workspace,
                                     interp::OutputView{worker.columns});
                for (std::size_t lane = 0; lane < count; ++lane) {
                    sums.add(d, worker.re, worker.im, lane, window.weights[block + lane]);
                }
            }
            double* record = records.data() + (window.first_chunk + chunk) * width;
            for (std::size_t k = 0; k < n * n; ++k) {
                record[k] = sums.re[k].finish();
                record[n * n + k] = sums.im[k].finish();
            }
            finite[chunk] =
                static_cast<char>(finite_record(std::span<const double>(record, width)));
        };
        if (pool && chunks > 1) {
            pool->parallel_for_chunks(chunks, fill);
        } else {
            for (std::size_t chunk = 0; chunk < chunks; ++chunk) {
                fill(chunk, 0);
            }
        }
        check_chunks(amplitudes, windows, window, view, finite);
    });
    return records;
}

// M from the chunk records of every process, merged in global chunk order.
std::vector<std::complex<double>> normalization_matrix(const compile::NormalizationDecomposition& d,
                                                       const data::EventData& accepted,
                                                       const runtime::Execution& execution) {
    const std::size_t n = d.amplitudes.size();
    const std::size_t width = 2 * n * n;
    std::vector<std::string> inputs;
    for (const ir::InputSlot& slot : d.amplitude_program.inputs) {
        inputs.push_back(slot.name);
    }
    const runtime::Collective* collective = execution.collective.get();
    std::vector<double> records;
    std::size_t global_chunks = 0;
    const auto local = [&] {
        for (const ir::InputSlot& slot : d.amplitude_program.inputs) {
            if (slot.kind != ir::ValueKind::kReal) {
                throw DataError(
                    fmt::format("the amplitude input '{}' is not a real event column", slot.name));
            }
        }
        const runtime::EventWindows windows =
            runtime::EventWindows::open(accepted, inputs, collective, "the accepted Monte Carlo");
        global_chunks = windows.global_chunks();
        records = chunk_records(d, windows, execution);
    };
    runtime::collectively(collective, local);
    if (collective != nullptr) {
        records = collective->all_gather_chunks(records, width, global_chunks);
    }
    std::vector<AccurateSum> sums(width);
    for (std::size_t c = 0; c * width < records.size(); ++c) {
        for (std::size_t k = 0; k < width; ++k) {
            sums[k].push(records[c * width + k]);
        }
    }
    std::vector<std::complex<double>> matrix(n * n);
    for (std::size_t k = 0; k < n * n; ++k) {
        matrix[k] = {sums[k].finish(), sums[n * n + k].finish()};
    }
    return matrix;
}

}  // namespace

std::optional<FastNormalization> FastNormalization::build(const compile::CompiledModel& model,
                                                          const data::EventData& accepted,
                                                          const runtime::Execution& execution) {
    if (!model.normalization) {
        return std::nullopt;
    }
    const compile::NormalizationDecomposition& d = *model.normalization;
    FastNormalization fast;
    fast.terms_ = d.amplitudes.size();
    fast.parameters_ = model.parameters.free_count();
    LADDU_ASSERT(d.coefficient_program.outputs.size() == fast.terms_ &&
                 d.amplitude_program.outputs.size() == fast.terms_ && d.group.size() == fast.terms_)
        << "normalization decomposition with mismatched term counts";

    fast.coefficient_values_ = std::make_unique<const interp::Interpreter>(
        interp::Interpreter::prepare(d.coefficient_program));
    fast.coefficient_gradients_.reserve(fast.terms_);
    for (std::size_t a = 0; a < fast.terms_; ++a) {
        fast.coefficient_gradients_.push_back(interp::Interpreter::prepare(autodiff::gradient(
            single_output(d.coefficient_program, a),
            {.mode = autodiff::AutodiffMode::kAuto, .component = autodiff::Component::kFull})));
    }

    fast.matrix_ = normalization_matrix(d, accepted, execution);
    return fast;
}

std::vector<std::complex<double>>
FastNormalization::coefficients(std::span<const double> params) const {
    return coefficient_values_->evaluate_row(params, no_inputs(), 0);
}

std::vector<std::complex<double>>
FastNormalization::contracted(std::span<const std::complex<double>> c) const {
    std::vector<std::complex<double>> v(terms_);
    for (std::size_t a = 0; a < terms_; ++a) {
        std::complex<double> sum = 0.0;
        for (std::size_t b = 0; b < terms_; ++b) {
            sum += matrix_[a * terms_ + b] * std::conj(c[b]);
        }
        v[a] = sum;
    }
    return v;
}

double FastNormalization::value(std::span<const double> params) const {
    const std::vector<std::complex<double>> c = coefficients(params);
    const std::vector<std::complex<double>> v = contracted(c);
    double sum = 0.0;
    for (std::size_t a = 0; a < terms_; ++a) {
        sum += (c[a] * v[a]).real();
    }
    return sum;
}

Evaluation FastNormalization::value_and_gradient(std::span<const double> params) const {
    const std::vector<std::complex<double>> c = coefficients(params);
    const std::vector<std::complex<double>> v = contracted(c);
    Evaluation result{0.0, std::vector<double>(parameters_, 0.0)};
    for (std::size_t a = 0; a < terms_; ++a) {
        result.value += (c[a] * v[a]).real();
        const std::vector<std::complex<double>> dc =
            coefficient_gradients_[a].evaluate_row(params, no_inputs(), 0);
        for (std::size_t k = 0; k < parameters_; ++k) {
            result.gradient[k] += 2.0 * (dc[k + 1] * v[a]).real();
        }
    }
    return result;
}

}  // namespace laddu::likelihood
