#include <utility>

#include <laddu/base/error.hpp>
#include <laddu/distributed/distributed_model.hpp>

namespace laddu::distributed {

namespace {

// An MpiCollective that partitions by fragment sizes given up front instead of the data's own
// (DistributedModel::prepare's `fragments`, e.g. files of a resident concatenated dataset).
class FragmentCollective final : public runtime::Collective {
public:
    FragmentCollective(const MpiContext& context, Partitioning partitioning,
                       std::vector<std::size_t> fragments)
        : mpi_(context, partitioning), fragments_(std::move(fragments)) {}

    [[nodiscard]] int rank() const noexcept override { return mpi_.rank(); }

    [[nodiscard]] int size() const noexcept override { return mpi_.size(); }

    [[nodiscard]] std::vector<std::size_t>
    owned_chunks(std::size_t events, std::span<const std::size_t> /*fragments*/) const override {
        return mpi_.owned_chunks(events, fragments_);
    }

    [[nodiscard]] std::vector<double> all_gather_chunks(std::span<const double> local,
                                                        std::size_t width,
                                                        std::size_t global_chunks) const override {
        return mpi_.all_gather_chunks(local, width, global_chunks);
    }

    void check_all(bool ok, ErrorKind kind, const std::string& message,
                   std::uint64_t fingerprint = kAnyFingerprint) const override {
        mpi_.check_all(ok, kind, message, fingerprint);
    }

private:
    MpiCollective mpi_;
    std::vector<std::size_t> fragments_;
};

}  // namespace

DistributedModel
DistributedModel::prepare(const compile::CompiledModel& model, const data::EventData& data,
                          const runtime::Execution& execution, Partitioning partitioning,
                          std::span<const std::size_t> fragments, const MpiContext& context) {
    runtime::Execution distributed = execution;
    if (fragments.empty()) {
        distributed.collective = std::make_shared<const MpiCollective>(context, partitioning);
    } else {
        distributed.collective = std::make_shared<const FragmentCollective>(
            context, partitioning, std::vector<std::size_t>(fragments.begin(), fragments.end()));
    }
    DistributedModel out;
    out.local_ = std::make_shared<const runtime::PreparedModel>(
        runtime::PreparedModel::prepare(model, data, distributed));
    out.share_.chunks = out.local_->owned_chunks();
    out.share_.events = out.local_->local_events();
    return out;
}

std::size_t DistributedModel::global_events() const noexcept {
    return local_->events();
}

double DistributedModel::reduce(std::span<const double> params,
                                runtime::ReductionTransform transform) const {
    return local_->reduce(params, transform);
}

runtime::ReductionEvaluation
DistributedModel::reduce_with_gradient(std::span<const double> params,
                                       runtime::ReductionTransform transform) const {
    return local_->reduce_with_gradient(params, transform);
}

}  // namespace laddu::distributed
