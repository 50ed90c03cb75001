#include <exception>
#include <functional>
#include <string>

#include <fmt/format.h>

#include <laddu/base/error.hpp>
#include <laddu/distributed/distributed_model.hpp>

namespace laddu::distributed {

namespace {

// Runs `fn` on every rank; if any rank throws, every rank throws the lowest failing rank's
// error (same class, message prefixed with the rank), so no rank waits in a later collective.
void collectively(const MpiContext& context, const std::function<void()>& fn) {
    std::string failure;
    try {
        fn();
    } catch (const Error& error) {
        failure =
            std::string(1, static_cast<char>('0' + static_cast<int>(error.kind()))) + error.what();
    } catch (const std::exception& error) {
        failure = std::string(1, static_cast<char>('0' + static_cast<int>(ErrorKind::kInternal))) +
                  error.what();
    }
    const int failed = context.first_failed_rank(failure.empty());
    if (failed < 0) {
        return;
    }
    const std::string message = context.broadcast(failure, failed);
    const auto kind = static_cast<ErrorKind>(message.at(0) - '0');
    throw_error(kind, fmt::format("rank {} of {}: {}", failed, context.size(), message.substr(1)));
}

// Orders gathered (chunk id, values...) records by chunk id; every chunk appears once.
std::vector<double> in_global_order(const std::vector<double>& gathered,
                                    const std::vector<unsigned long long>& ids, std::size_t width,
                                    std::size_t chunks) {
    std::vector<double> ordered(chunks * width);
    for (std::size_t i = 0; i < ids.size(); ++i) {
        const auto chunk = static_cast<std::size_t>(ids[i]);
        std::copy_n(gathered.begin() + static_cast<std::ptrdiff_t>(i * width), width,
                    ordered.begin() + static_cast<std::ptrdiff_t>(chunk * width));
    }
    return ordered;
}

}  // namespace

DistributedModel
DistributedModel::prepare(const compile::CompiledModel& model, const data::Dataset& dataset,
                          const runtime::Execution& execution, Partitioning partitioning,
                          std::span<const std::size_t> fragments, const MpiContext& context) {
    DistributedModel out;
    out.context_ = &context;
    collectively(context, [&] {
        out.share_ = partition_events(dataset.size(), context.rank(), context.size(), partitioning,
                                      fragments);
        // Neighbouring chunks become one slice.
        std::vector<data::Dataset> parts;
        std::size_t i = 0;
        while (i < out.share_.chunks.size()) {
            auto [begin, end] = out.share_.chunk_range(i, dataset.size());
            std::size_t j = i + 1;
            while (j < out.share_.chunks.size() &&
                   out.share_.chunks[j] == out.share_.chunks[j - 1] + 1) {
                end = out.share_.chunk_range(j, dataset.size()).second;
                ++j;
            }
            parts.push_back(dataset.slice(begin, end - begin));
            i = j;
        }
        const data::Dataset local = parts.size() == 1 ? parts[0]
                                    : parts.empty()   ? dataset.slice(0, 0)
                                                      : data::Dataset::concatenate(parts);
        out.local_ = std::make_shared<const runtime::PreparedModel>(
            runtime::PreparedModel::prepare(model, local, execution));
    });
    const std::vector<unsigned long long> counts =
        context.all_gather(std::vector<unsigned long long>{out.share_.events});
    for (const unsigned long long n : counts) {
        out.global_events_ += static_cast<std::size_t>(n);
    }
    out.global_chunks_ =
        (out.global_events_ + runtime::kReductionChunk - 1) / runtime::kReductionChunk;
    return out;
}

double DistributedModel::reduce(std::span<const double> params,
                                runtime::ReductionTransform transform) const {
    std::vector<double> partials;
    collectively(*context_, [&] { partials = local_->reduce_partials(params, transform); });
    const std::vector<unsigned long long> ids(share_.chunks.begin(), share_.chunks.end());
    const std::vector<double> ordered = in_global_order(
        context_->all_gather(partials), context_->all_gather(ids), 1, global_chunks_);
    return runtime::merge_partials(ordered);
}

runtime::ReductionEvaluation
DistributedModel::reduce_with_gradient(std::span<const double> params,
                                       runtime::ReductionTransform transform) const {
    runtime::GradientPartials partials;
    collectively(*context_,
                 [&] { partials = local_->reduce_gradient_partials(params, transform); });
    // One record per chunk: the value partial followed by the P gradient partials.
    const std::size_t width = partials.parameters + 1;
    std::vector<double> records;
    records.reserve(partials.values.size() * width);
    for (std::size_t c = 0; c < partials.values.size(); ++c) {
        records.push_back(partials.values[c]);
        records.insert(records.end(),
                       partials.gradients.begin() +
                           static_cast<std::ptrdiff_t>(c * partials.parameters),
                       partials.gradients.begin() +
                           static_cast<std::ptrdiff_t>((c + 1) * partials.parameters));
    }
    const std::vector<unsigned long long> ids(share_.chunks.begin(), share_.chunks.end());
    const std::vector<double> ordered = in_global_order(
        context_->all_gather(records), context_->all_gather(ids), width, global_chunks_);
    runtime::GradientPartials global;
    global.parameters = partials.parameters;
    global.values.resize(global_chunks_);
    global.gradients.resize(global_chunks_ * global.parameters);
    for (std::size_t c = 0; c < global_chunks_; ++c) {
        global.values[c] = ordered[c * width];
        std::copy_n(ordered.begin() + static_cast<std::ptrdiff_t>(c * width + 1), global.parameters,
                    global.gradients.begin() + static_cast<std::ptrdiff_t>(c * global.parameters));
    }
    return runtime::merge_gradient_partials(global);
}

}  // namespace laddu::distributed
