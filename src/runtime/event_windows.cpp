#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <laddu/base/aligned.hpp>
#include <laddu/base/assert.hpp>
#include <laddu/base/error.hpp>
#include <laddu/runtime/event_windows.hpp>
#include <laddu/runtime/reduce.hpp>

namespace laddu::runtime {

std::vector<ir::InputColumn> EventWindow::input_columns() const {
    std::vector<ir::InputColumn> inputs;
    inputs.reserve(columns.size());
    for (const std::span<const double> column : columns) {
        inputs.push_back(ir::InputColumn{column.data(), nullptr});
    }
    return inputs;
}

namespace {

// Where an input lives in a batch of `schema`: its physical batch column and the logical
// column (p4 or scalar name) to project.
struct ColumnRef {
    std::size_t batch_column = 0;
    std::string logical;
};

std::optional<ColumnRef> find_column(const data::Schema& schema, const std::string& input) {
    const std::size_t dot = input.rfind('.');
    if (dot != std::string::npos) {
        static constexpr std::array<const char*, 4> kComponents = {"e", "px", "py", "pz"};
        const std::string p4 = input.substr(0, dot);
        if (const auto index = schema.p4_index(p4)) {
            const std::string component = input.substr(dot + 1);
            for (std::size_t c = 0; c < kComponents.size(); ++c) {
                if (component == kComponents[c]) {
                    return ColumnRef{4 * *index + c, p4};
                }
            }
        }
    }
    if (const auto index = schema.scalar_index(input)) {
        return ColumnRef{4 * schema.n_p4s() + *index, input};
    }
    return std::nullopt;
}

std::vector<ColumnRef> resolve(const data::Schema& schema, std::span<const std::string> inputs,
                               std::string_view what) {
    std::vector<ColumnRef> refs;
    std::vector<std::string> missing;
    for (const std::string& input : inputs) {
        if (auto ref = find_column(schema, input)) {
            refs.push_back(std::move(*ref));
        } else {
            missing.push_back(input);
        }
    }
    if (!missing.empty()) {
        throw DataError(fmt::format(
            "the model reads event columns {} does not have: [{}]; it has four-momenta [{}] and "
            "scalars [{}] (a four-momentum 'p' is read as p.e, p.px, p.py, p.pz from the columns "
            "p_e, p_px, p_py, p_pz)",
            what, fmt::join(missing, ", "), fmt::join(schema.p4_names(), ", "),
            fmt::join(schema.scalar_names(), ", ")));
    }
    return refs;
}

std::size_t chunk_count(std::size_t events) {
    return (events + kReductionChunk - 1) / kReductionChunk;
}

std::size_t round_to_chunks(std::size_t events) {
    return std::max<std::size_t>(1, chunk_count(events)) * kReductionChunk;
}

}  // namespace

EventWindows EventWindows::open(const data::EventData& data, std::span<const std::string> inputs,
                                const Collective* collective, std::string_view what) {
    EventWindows windows;
    windows.inputs_.assign(inputs.begin(), inputs.end());
    const data::Schema& schema = data.schema();
    const std::vector<ColumnRef> refs = resolve(schema, inputs, what);
    std::set<std::string> logical;
    std::size_t columns_read = 0;
    for (const ColumnRef& ref : refs) {
        if (logical.insert(ref.logical).second) {
            windows.projection_.push_back(ref.logical);
            columns_read += schema.p4_index(ref.logical) ? std::size_t{4} : std::size_t{1};
        }
    }
    windows.source_bpe_ = (columns_read + 1) * sizeof(double);
    windows.global_events_ = static_cast<std::size_t>(data.num_events());
    const std::size_t chunks = windows.global_chunks();
    if (collective != nullptr) {
        const std::vector<std::size_t> fragments = data.fragment_sizes();
        windows.owned_ = collective->owned_chunks(windows.global_events_, fragments);
    } else {
        windows.owned_.resize(chunks);
        for (std::size_t c = 0; c < chunks; ++c) {
            windows.owned_[c] = c;
        }
    }
    for (std::size_t i = 0; i < windows.owned_.size(); ++i) {
        const std::size_t c = windows.owned_[i];
        LADDU_ASSERT(c < chunks && (i == 0 || windows.owned_[i - 1] < c))
            << "owned chunks must be ascending global chunk indices below " << chunks;
        const std::size_t begin = c * kReductionChunk;
        const std::size_t end = std::min(begin + kReductionChunk, windows.global_events_);
        windows.local_events_ += end - begin;
        if (!windows.ranges_.empty() && windows.ranges_.back().second == begin) {
            windows.ranges_.back().second = end;
        } else {
            windows.ranges_.emplace_back(begin, end);
        }
    }
    if (const data::Dataset* dataset = data.dataset()) {
        if (windows.local_events_ == windows.global_events_) {
            windows.resident_ = std::make_shared<const data::Dataset>(*dataset);
        } else {
            std::vector<data::Dataset> parts;
            parts.reserve(windows.ranges_.size());
            for (const auto& [begin, end] : windows.ranges_) {
                parts.push_back(dataset->slice(begin, end - begin));
            }
            windows.resident_ = std::make_shared<const data::Dataset>(
                parts.empty() ? dataset->slice(0, 0) : data::Dataset::concatenate(parts));
        }
        for (const ColumnRef& ref : refs) {
            windows.resident_columns_.push_back(ref.batch_column);
        }
    } else {
        windows.source_ = data.source();
        if (windows.local_events_ > 0) {
            windows.read_buffers_ = windows.source_->stream_buffer_bytes(windows.read_plan());
        }
    }
    return windows;
}

data::ReadPlan EventWindows::read_plan() const {
    data::ReadPlan plan;
    plan.columns = projection_;
    // Every event is the plan's default (no ranges).
    if (!(ranges_.size() == 1 && ranges_[0].first == 0 && ranges_[0].second == global_events_)) {
        plan.ranges = ranges_;
    }
    return plan;
}

std::size_t EventWindows::global_chunks() const noexcept {
    return chunk_count(global_events_);
}

std::size_t EventWindows::global_event(std::size_t local) const noexcept {
    const std::size_t chunk = local / kReductionChunk;
    return chunk < owned_.size() ? owned_[chunk] * kReductionChunk + local % kReductionChunk
                                 : local;
}

// A NaN or infinite weight makes every sum over the events NaN: a likelihood would be NaN, or a
// fit would "converge" on nonsense. Every pass takes its weights from here, so the first bad
// event of a window is named whichever pass meets it.
void EventWindows::check_weights(const EventWindow& window) const {
    const auto bad = std::find_if(window.weights.begin(), window.weights.end(),
                                  [](double w) { return !std::isfinite(w); });
    if (bad != window.weights.end()) {
        const std::size_t local = window.first_chunk * kReductionChunk +
                                  static_cast<std::size_t>(bad - window.weights.begin());
        throw DataError(fmt::format("event {} has weight {}: weights must be finite; fix or "
                                    "remove the event (e.g. select on the weight column)",
                                    global_event(local), *bad));
    }
}

void EventWindows::for_each(std::size_t window_events,
                            const std::function<void(const EventWindow&)>& visit) const {
    const auto fn = [&](const EventWindow& window) {
        check_weights(window);
        visit(window);
    };
    window_events = round_to_chunks(window_events);
    if (resident_) {
        const data::EventBatch& batch = resident_->batch();
        std::vector<std::span<const double>> columns(resident_columns_.size());
        for (std::size_t begin = 0; begin < local_events_; begin += window_events) {
            const std::size_t count = std::min(window_events, local_events_ - begin);
            for (std::size_t i = 0; i < columns.size(); ++i) {
                columns[i] = batch.column_at(resident_columns_[i]).subspan(begin, count);
            }
            fn(EventWindow{begin / kReductionChunk, count, columns,
                           batch.weights().subspan(begin, count)});
        }
        return;
    }
    if (local_events_ > 0) {
        stream(ranges_, 0, window_events, fn);
    }
}

void EventWindows::read_chunk(std::size_t local_chunk,
                              const std::function<void(const EventWindow&)>& visit) const {
    const auto fn = [&](const EventWindow& window) {
        check_weights(window);
        visit(window);
    };
    LADDU_ASSERT(local_chunk < owned_.size()) << "local chunk " << local_chunk << " not owned";
    if (resident_) {
        const data::EventBatch& batch = resident_->batch();
        const std::size_t begin = local_chunk * kReductionChunk;
        const std::size_t count = std::min(kReductionChunk, local_events_ - begin);
        std::vector<std::span<const double>> columns;
        columns.reserve(resident_columns_.size());
        for (const std::size_t column : resident_columns_) {
            columns.push_back(batch.column_at(column).subspan(begin, count));
        }
        fn(EventWindow{local_chunk, count, columns, batch.weights().subspan(begin, count)});
        return;
    }
    const std::size_t begin = owned_[local_chunk] * kReductionChunk;
    const std::size_t end = std::min(begin + kReductionChunk, global_events_);
    stream({{begin, end}}, local_chunk, kReductionChunk, fn);
}

// Reads `ranges` (whole owned chunks, in order) and re-chunks the batches into windows through
// a staging buffer of the input columns and the weights.
void EventWindows::stream(std::vector<data::EventRange> ranges, std::size_t first_chunk,
                          std::size_t window_events,
                          const std::function<void(const EventWindow&)>& fn) const {
    data::ReadPlan plan;
    plan.chunk_size = window_events;
    plan.columns = projection_;
    std::uint64_t total = 0;
    for (const auto& [begin, end] : ranges) {
        total += end - begin;
    }
    if (!(ranges.size() == 1 && ranges[0].first == 0 && ranges[0].second == global_events_)) {
        plan.ranges = std::move(ranges);
    }
    const std::unique_ptr<data::BatchStream> batches = source_->read(plan);
    // The staging buffer holds one window (or every event read, when fewer).
    const std::size_t staged = std::min(window_events, static_cast<std::size_t>(total));
    std::vector<AlignedVector<double>> staging(inputs_.size() + 1, AlignedVector<double>(staged));
    std::vector<std::span<const double>> columns(inputs_.size());
    std::vector<std::size_t> batch_columns;
    std::size_t filled = 0;
    std::size_t chunk = first_chunk;
    const auto flush = [&] {
        for (std::size_t i = 0; i < columns.size(); ++i) {
            columns[i] = std::span<const double>(staging[i]).first(filled);
        }
        fn(EventWindow{chunk, filled, columns,
                       std::span<const double>(staging.back()).first(filled)});
        chunk += filled / kReductionChunk;
        filled = 0;
    };
    while (std::optional<data::EventBatch> batch = batches->next()) {
        if (batch_columns.empty()) {
            for (const ColumnRef& ref : resolve(batch->schema(), inputs_, "the source")) {
                batch_columns.push_back(ref.batch_column);
            }
        }
        std::size_t row = 0;
        while (row < batch->size()) {
            const std::size_t count = std::min(staged - filled, batch->size() - row);
            for (std::size_t i = 0; i < batch_columns.size(); ++i) {
                const std::span<const double> from = batch->column_at(batch_columns[i]);
                std::copy_n(from.begin() + static_cast<std::ptrdiff_t>(row), count,
                            staging[i].begin() + static_cast<std::ptrdiff_t>(filled));
            }
            const std::span<const double> weights = batch->weights();
            std::copy_n(weights.begin() + static_cast<std::ptrdiff_t>(row), count,
                        staging.back().begin() + static_cast<std::ptrdiff_t>(filled));
            filled += count;
            row += count;
            if (filled == staged) {
                flush();
            }
        }
    }
    if (filled > 0) {
        flush();
    }
}

}  // namespace laddu::runtime
