#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <string>

#include <fmt/format.h>

#include <laddu/base/accurate_sum.hpp>
#include <laddu/base/error.hpp>
#include <laddu/interp/interpreter.hpp>
#include <laddu/runtime/collective.hpp>
#include <laddu/runtime/event_cache.hpp>
#include <laddu/runtime/event_windows.hpp>
#include <laddu/runtime/memory_pool.hpp>
#include <laddu/runtime/normalization_matrix.hpp>
#include <laddu/runtime/thread_pool.hpp>

#include "chunk_kernel.hpp"
#include "kernel_reduce.hpp"

namespace laddu::runtime {
namespace {

// One LaneSum per real and imaginary part of each matrix entry on and above the diagonal within
// a coherent group (M is Hermitian, so the entries below are the conjugates of their mirror
// images, and zero across groups, finish()) and of each linear statistic: a fixed function of
// the chunk's events, as every chunk partial of the runtime, and summed column by column so
// that the lane loops vectorise. Only the pairs within a group hold sums: the K-matrix
// benchmark's 36 amplitudes have 198 such pairs of 666, and a chunk's sums for all of them were
// 0.5 MB to clear and finish.
struct StatisticSums {
    StatisticSums(std::span<const std::uint32_t> group, std::size_t bases)
        : n(group.size()), m(bases), pair_begin(n + 1, 0) {
        for (std::size_t a = 0; a < n; ++a) {
            pair_begin[a] = partners.size();
            for (std::size_t b = a; b < n; ++b) {
                if (group[a] == group[b]) {
                    partners.push_back(b);
                }
            }
        }
        pair_begin[n] = partners.size();
        re.resize(partners.size() + m);
        im.resize(partners.size() + m);
    }

    // Adds w A_a conj(A_b), b >= a in the same group, and w B_k for the `count` events of a chunk
    // whose output o (amplitudes, then bases) has its real parts at columns[2 o count ...] and
    // its imaginary parts at columns[(2 o + 1) count ...]; `weights` holds the chunk's weights.
    void add(std::span<const double> columns, std::size_t count, std::span<const double> weights) {
        std::array<double, detail::kTermBlock> wa_re{};
        std::array<double, detail::kTermBlock> wa_im{};
        std::array<double, detail::kTermBlock> term_re{};
        std::array<double, detail::kTermBlock> term_im{};
        const std::size_t pairs = partners.size();
        for (std::size_t begin = 0; begin < count; begin += detail::kTermBlock) {
            const std::size_t len = std::min(detail::kTermBlock, count - begin);
            const double* w = weights.data() + begin;
            const auto part = [&](std::size_t output, std::size_t imaginary) {
                return columns.data() + ((2 * output + imaginary) * count) + begin;
            };
            for (std::size_t a = 0; a < n; ++a) {
                const double* a_re = part(a, 0);
                const double* a_im = part(a, 1);
                for (std::size_t i = 0; i < len; ++i) {
                    wa_re[i] = w[i] * a_re[i];
                    wa_im[i] = w[i] * a_im[i];
                }
                for (std::size_t pair = pair_begin[a]; pair < pair_begin[a + 1]; ++pair) {
                    const double* b_re = part(partners[pair], 0);
                    const double* b_im = part(partners[pair], 1);
                    // (w A_a) conj(A_b) by the textbook product, as std::complex rounds it.
                    for (std::size_t i = 0; i < len; ++i) {
                        term_re[i] = (wa_re[i] * b_re[i]) + (wa_im[i] * b_im[i]);
                        term_im[i] = (wa_im[i] * b_re[i]) - (wa_re[i] * b_im[i]);
                    }
                    re[pair].push(std::span<const double>(term_re).first(len));
                    im[pair].push(std::span<const double>(term_im).first(len));
                }
            }
            for (std::size_t k = 0; k < m; ++k) {
                re[pairs + k].push_products({w, len}, {part(n + k, 0), len});
                im[pairs + k].push_products({w, len}, {part(n + k, 1), len});
            }
        }
    }

    // The chunk record: the real parts of all n² entries and the m statistics, then their
    // imaginary parts. An entry across groups is what an empty sum finishes to (+0, and -0
    // for the imaginary part of its mirror image), as if it had been summed.
    void finish(std::span<double> record) const {
        const std::size_t half = n * n + m;
        for (std::size_t a = 0; a < n; ++a) {
            for (std::size_t b = a + 1; b < n; ++b) {
                record[a * n + b] = 0.0;
                record[half + a * n + b] = 0.0;
                record[b * n + a] = 0.0;
                record[half + b * n + a] = -0.0;
            }
            for (std::size_t pair = pair_begin[a]; pair < pair_begin[a + 1]; ++pair) {
                const std::size_t b = partners[pair];
                const double entry_re = re[pair].finish();
                const double entry_im = im[pair].finish();
                record[a * n + b] = entry_re;
                record[half + a * n + b] = entry_im;
                record[b * n + a] = entry_re;
                record[half + b * n + a] = b == a ? entry_im : -entry_im;
            }
        }
        const std::size_t pairs = partners.size();
        for (std::size_t k = 0; k < m; ++k) {
            record[n * n + k] = re[pairs + k].finish();
            record[half + n * n + k] = im[pairs + k].finish();
        }
    }

    std::size_t n;
    std::size_t m;
    std::vector<std::size_t> partners;    ///< each pair's b, by a, ascending
    std::vector<std::size_t> pair_begin;  ///< a's pairs: [pair_begin[a], pair_begin[a + 1])
    std::vector<LaneSum> re;              ///< per pair, then per linear statistic
    std::vector<LaneSum> im;
};

// Doubles per chunk record: n² matrix entries and m statistics, real and imaginary parts.
std::size_t record_width(const compile::NormalizationDecomposition& d) {
    return 2 * (d.amplitudes.size() * d.amplitudes.size() + d.bases.size());
}

// Events per source read: whole chunks, within what the pool has left (less the source's read
// buffers), leased with the read buffers until the pass ends.
struct ReadWindow {
    std::size_t events = 0;
    MemoryLease lease;
};

ReadWindow read_window(const EventWindows& windows, MemoryPool& pool) {
    constexpr std::size_t kMaxChunks = 16;
    const std::size_t total = pool.available();
    const std::size_t budget = total - std::min(total, windows.read_buffer_bytes());
    const std::size_t per_chunk =
        std::max<std::size_t>(2 * windows.source_bytes_per_event() * kReductionChunk, 1);
    const std::size_t chunks = std::clamp<std::size_t>(budget / per_chunk, 1, kMaxChunks);
    // Windows are views of a resident dataset: only a source's reads need the bytes.
    const std::size_t bytes =
        windows.is_resident() ? 0 : windows.read_buffer_bytes() + chunks * per_chunk;
    return {chunks * kReductionChunk,
            pool.lease(bytes, "the accepted Monte Carlo (normalisation read windows)")};
}

// The EvaluationError for the first event of window rows [begin, end) with a non-finite
// amplitude: a record is not finite exactly when one of its terms is, so only a failed chunk
// is searched, and the event is explained by re-running it alone through the interpreter.
[[noreturn]] void throw_bad_amplitude(const ir::Program& program, const EventWindows& windows,
                                      const EventWindow& window, const ir::ColumnView& view,
                                      std::size_t begin, std::size_t end) {
    const interp::Interpreter amplitudes = interp::Interpreter::prepare(program);
    const std::size_t n = program.outputs.size();
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
                a, windows.global_event(window.first_chunk * kReductionChunk + row),
                why ? why->description : "re-run alone it is finite"));
        }
    }
    throw EvaluationError("the normalisation integral over the accepted Monte Carlo is not "
                          "finite, though every amplitude is: a sum overflowed");
}

// InternalError unless `cache` holds the cache columns that `program`'s first slots read, for
// `events` local events.
void check_cache(const EventCache& cache, const ir::Program& program, std::size_t events) {
    for (std::size_t k = 0; k < cache.slot_count(); ++k) {
        if (program.inputs.size() <= k || cache.kind(k) != program.inputs[k].kind) {
            throw InternalError(fmt::format("the cache given for the accepted Monte Carlo does "
                                            "not hold the model's cache column {}",
                                            k));
        }
    }
    if (cache.events() != events) {
        throw InternalError(fmt::format("the cache given for the accepted Monte Carlo holds {} "
                                        "events, the accepted Monte Carlo has {} here",
                                        cache.events(), events));
    }
}

// The chunk records (record_width() doubles) of M and S over the local accepted events, one per
// owned chunk, in owned order.
// `cache` (optional) holds the model's cache columns of the local events, which the kernel's
// first input slots read; its other slots read the windows' event columns.
std::vector<double> chunk_records(const compile::NormalizationDecomposition& d,
                                  const detail::ChunkKernel& kernel, const EventWindows& windows,
                                  const EventCache* cache, const Execution& execution) {
    const std::size_t width = record_width(d);
    std::vector<double> records(windows.owned_chunks().size() * width);
    const std::size_t threads = execution.resolved_threads();
    const std::unique_ptr<ThreadPool> pool =
        threads > 1 ? std::make_unique<ThreadPool>(threads) : nullptr;
    const ReadWindow read = read_window(windows, *pool_of(execution));
    windows.for_each(read.events, [&](const EventWindow& window) {
        std::vector<ir::InputColumn> inputs;
        if (cache != nullptr) {
            const std::size_t first = window.first_chunk * kReductionChunk;
            for (const ir::InputColumn& column : cache->view().columns) {
                inputs.push_back(
                    {column.re + first, column.im == nullptr ? nullptr : column.im + first});
            }
        }
        const std::vector<ir::InputColumn> events = window.input_columns();
        inputs.insert(inputs.end(), events.begin(), events.end());
        const ir::ColumnView view{inputs, window.events};
        ir::check_inputs(kernel.program(), ir::Precision::kF64, view);
        std::vector<char> finite((window.events + kReductionChunk - 1) / kReductionChunk, 1);
        detail::for_each_chunk(
            kernel, {}, window.events, pool.get(),
            [&](std::size_t chunk, detail::ChunkWorker& worker) {
                const detail::ChunkWorker::Chunk c = worker.evaluate_complex(view, chunk);
                StatisticSums sums(d.group, d.bases.size());
                sums.add(c.columns, c.count, window.weights.subspan(c.begin, c.count));
                const std::span<double> record(
                    records.data() + (window.first_chunk + chunk) * width, width);
                sums.finish(record);
                finite[chunk] = static_cast<char>(std::all_of(
                    record.begin(), record.end(), [](double v) { return std::isfinite(v); }));
            });
        const auto bad = std::find(finite.begin(), finite.end(), 0);
        if (bad != finite.end()) {
            const std::size_t begin =
                static_cast<std::size_t>(bad - finite.begin()) * kReductionChunk;
            throw_bad_amplitude(kernel.program(), windows, window, view, begin,
                                std::min(begin + kReductionChunk, window.events));
        }
    });
    return records;
}

}  // namespace

NormalizationStatistics normalization_statistics(const compile::NormalizationDecomposition& d,
                                                 const data::EventData& accepted,
                                                 const Execution& execution,
                                                 const EventCache* accepted_cache) {
    const std::size_t n = d.amplitudes.size();
    const std::size_t m = d.bases.size();
    const std::size_t width = record_width(d);
    // The cached program and the event-column one give the same bits (see
    // NormalizationDecomposition::cached_amplitude_program): the cache only saves the work.
    const bool use_cache = d.cached_amplitude_program.has_value() && accepted_cache != nullptr &&
                           accepted_cache->storage() == ir::Precision::kF64;
    const EventCache* cache = use_cache ? accepted_cache : nullptr;
    const ir::Program& program =
        use_cache ? d.cached_amplitude_program.value() : d.amplitude_program;
    const std::size_t cache_slots = use_cache ? cache->slot_count() : 0;
    std::vector<std::string> inputs;
    for (std::size_t k = cache_slots; k < program.inputs.size(); ++k) {
        inputs.push_back(program.inputs[k].name);
    }
    const Collective* collective = execution.collective.get();
    std::vector<double> records;
    std::size_t global_chunks = 0;
    collectively(collective, [&] {
        for (std::size_t k = cache_slots; k < program.inputs.size(); ++k) {
            if (program.inputs[k].kind != ir::ValueKind::kReal) {
                throw DataError(fmt::format("the amplitude input '{}' is not a real event column",
                                            program.inputs[k].name));
            }
        }
        const EventWindows windows =
            EventWindows::open(accepted, inputs, collective, "the accepted Monte Carlo");
        if (cache != nullptr) {
            check_cache(*cache, program, windows.local_events());
        }
        global_chunks = windows.global_chunks();
        // Every process selects by the global event count, so all run the same backend.
        const std::shared_ptr<const detail::ChunkKernel> kernel =
            detail::select_kernel(program, ir::Precision::kF64, execution.jit,
                                  windows.global_events(), detail::Passes::kOnce);
        records = chunk_records(d, *kernel, windows, cache, execution);
    });
    if (collective != nullptr) {
        records = collective->all_gather_chunks(records, width, global_chunks);
    }
    std::vector<AccurateSum> sums(width);
    for (std::size_t c = 0; c * width < records.size(); ++c) {
        for (std::size_t k = 0; k < width; ++k) {
            sums[k].push(records[c * width + k]);
        }
    }
    const std::size_t half = n * n + m;
    NormalizationStatistics statistics;
    statistics.from_cache = cache != nullptr;
    statistics.matrix.resize(n * n);
    statistics.linear.resize(m);
    for (std::size_t k = 0; k < half; ++k) {
        const std::complex<double> value(sums[k].finish(), sums[half + k].finish());
        (k < n * n ? statistics.matrix[k] : statistics.linear[k - n * n]) = value;
    }
    return statistics;
}

ParameterFunction::ParameterFunction(const ir::Program& program, JitPolicy jit,
                                     std::size_t events) {
    if (!program.inputs.empty()) {
        throw CompileError(fmt::format("a parameter function reads no event columns, but this "
                                       "program reads {} (the first is '{}')",
                                       program.inputs.size(), program.inputs.front().name));
    }
    kernel_ =
        detail::select_kernel(program, ir::Precision::kF64, jit, events, detail::Passes::kMany);
}

std::vector<std::complex<double>>
ParameterFunction::operator()(std::span<const double> params) const {
    // One "event" with no inputs. The outputs go straight into the result ([complex.numbers]:
    // an array of complex<double> is an array of (re, im) doubles), a Real output's imaginary
    // part staying 0. The worker (the bound kernel and its pointers) is kept from call to call.
    const std::size_t outputs = kernel_->program().outputs.size();
    std::vector<std::complex<double>> values(outputs);
    std::unique_ptr<detail::ChunkWorker> worker = kernel_->acquire_worker(params);
    // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): see above
    auto* parts = reinterpret_cast<double*>(values.data());
    worker->out.resize(outputs);
    for (std::size_t j = 0; j < outputs; ++j) {
        worker->out[j] = ir::OutputColumn{parts + (2 * j), parts + (2 * j) + 1};
    }
    worker->kernel->run(ir::ColumnView{{}, 1}, 0, 1, worker->out);
    kernel_->release_worker(std::move(worker));
    return values;
}

}  // namespace laddu::runtime
