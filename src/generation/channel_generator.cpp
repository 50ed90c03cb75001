#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <limits>
#include <mutex>
#include <numeric>
#include <optional>
#include <system_error>
#include <thread>

#include <fmt/format.h>

#include <laddu/base/error.hpp>
#include <laddu/generation/channel_generator.hpp>

#include "channel_generator_detail.hpp"

namespace laddu::generation {

namespace {

bool is_diagnostic(const std::string& name) {
    return std::any_of(std::begin(kDiagnosticColumns), std::end(kDiagnosticColumns),
                       [&](const char* reserved) { return name == reserved; });
}

std::optional<double> particle_mass(const physics::Edge& edge) {
    return edge.particle ? edge.particle->mass : std::nullopt;
}

void check_on_shell(const std::string& edge, const FourMomentum& p, double mass,
                    std::uint64_t index) {
    const bool finite =
        std::isfinite(p.e) && std::isfinite(p.px) && std::isfinite(p.py) && std::isfinite(p.pz);
    if (!finite || p.e <= 0.0) {
        throw ModelError(fmt::format("event {}: edge `{}` has four-momentum ({}, {}, {}, {}), "
                                     "not finite with positive energy",
                                     index, edge, p.e, p.px, p.py, p.pz));
    }
    if (std::abs(p.mass_squared() - mass * mass) > kTolerance * (1.0 + mass * mass + p.e * p.e)) {
        throw ModelError(fmt::format("event {}: edge `{}` is off shell: p² = {} but mass² = {}",
                                     index, edge, p.mass_squared(), mass * mass));
    }
}

}  // namespace

void validate_generation(const physics::Channel& channel, const ChannelProposals& proposals) {
    for (const auto& [name, settings] : proposals.edges) {
        (void)settings;
        (void)channel.edge(name);  // ModelError naming an unknown edge
    }
    for (const auto& [name, proposal] : proposals.vertices) {
        (void)proposal;
        (void)channel.vertex(name);
    }
    bool any_output = false;
    for (const physics::Edge& edge : channel.edges()) {
        const auto found = proposals.edges.find(edge.name);
        const EdgeGeneration settings =
            found == proposals.edges.end() ? EdgeGeneration{} : found->second;
        const bool initial = channel.role(edge.name) == physics::EdgeRole::kInitial;
        if (initial) {
            if (!settings.initial_momentum) {
                throw ModelError(fmt::format("initial edge `{}` has no momentum source: give it "
                                             "Edge(initial_momentum=...)",
                                             edge.name));
            }
            if (settings.mass_proposal) {
                throw ModelError(fmt::format("initial edge `{}` cannot use a generated mass: "
                                             "its mass comes from its particle",
                                             edge.name));
            }
            settings.initial_momentum->validate(edge.name, particle_mass(edge));
        } else {
            if (settings.initial_momentum) {
                throw ModelError(fmt::format("edge `{}` is produced by a vertex, so it cannot "
                                             "have an initial momentum",
                                             edge.name));
            }
            if (!settings.mass_proposal && !particle_mass(edge)) {
                throw ModelError(fmt::format("edge `{}` has neither a particle mass nor a mass "
                                             "proposal: give it Edge(particle=...) or "
                                             "Edge(mass_proposal=...)",
                                             edge.name));
            }
        }
        if (edge.output && is_diagnostic(edge.name)) {
            throw ModelError(fmt::format("output edge `{}` uses a reserved generation-diagnostic "
                                         "name",
                                         edge.name));
        }
        any_output = any_output || edge.output;
    }
    if (!any_output) {
        throw ModelError(fmt::format("channel `{}` has no output edge: mark at least one edge "
                                     "output=True",
                                     channel.name()));
    }
    for (const physics::Vertex& vertex : channel.vertices()) {
        const auto found = proposals.vertices.find(vertex.name);
        if (found != proposals.vertices.end()) {
            found->second.validate(vertex.name, vertex.incoming, vertex.outgoing);
        } else if (vertex.incoming.size() != 1 || vertex.outgoing.size() != 2) {
            throw ModelError(fmt::format("vertex `{}` has no generation proposal and is not a "
                                         "two-body decay: give it Vertex(generation=...)",
                                         vertex.name));
        }
    }
}

ChannelGenerator::ChannelGenerator(const physics::Channel& channel,
                                   const ChannelProposals& proposals) {
    validate_generation(channel, proposals);
    const auto index_of = [&](const std::string& name) {
        for (std::size_t i = 0; i < edges_.size(); ++i) {
            if (edges_[i].name == name) {
                return i;
            }
        }
        throw InternalError(fmt::format("edge `{}` missing from the generation plan", name));
    };
    for (const physics::Edge& edge : channel.edges()) {
        const auto found = proposals.edges.find(edge.name);
        EdgePlan plan{edge.name, std::nullopt, std::nullopt, std::nullopt};
        if (found != proposals.edges.end()) {
            plan.proposal = found->second.mass_proposal;
            plan.initial = found->second.initial_momentum;
        }
        if (!plan.proposal) {
            plan.mass = particle_mass(edge);
        }
        edges_.push_back(std::move(plan));
    }
    for (std::size_t i = 0; i < edges_.size(); ++i) {
        const physics::Edge& edge = channel.edges()[i];
        if (channel.role(edge.name) == physics::EdgeRole::kInitial) {
            roots_.push_back(i);
        }
        if (edge.output) {
            outputs_.push_back(i);
            output_names_.push_back(edge.name);
        }
    }
    // laddu's order: repeatedly the first vertex (channel order) whose inputs are all known.
    std::vector<bool> known(edges_.size(), false);
    for (const std::size_t root : roots_) {
        known[root] = true;
    }
    std::vector<const physics::Vertex*> remaining;
    for (const physics::Vertex& vertex : channel.vertices()) {
        remaining.push_back(&vertex);
    }
    while (!remaining.empty()) {
        const auto ready = std::find_if(remaining.begin(), remaining.end(), [&](const auto* v) {
            return std::all_of(v->incoming.begin(), v->incoming.end(),
                               [&](const std::string& e) { return known[index_of(e)]; });
        });
        if (ready == remaining.end()) {
            throw ModelError(fmt::format("channel `{}` has a vertex whose incoming edges are "
                                         "never produced",
                                         channel.name()));
        }
        const physics::Vertex& vertex = **ready;
        remaining.erase(ready);
        const auto found = proposals.vertices.find(vertex.name);
        const bool defaulted = found == proposals.vertices.end();
        VertexPlan plan{vertex.name,
                        {},
                        {},
                        defaulted ? VertexProposal::isotropic() : found->second,
                        defaulted};
        for (const std::string& e : vertex.incoming) {
            plan.incoming.push_back(index_of(e));
        }
        for (const std::string& e : vertex.outgoing) {
            plan.outgoing.push_back(index_of(e));
            known[index_of(e)] = true;
        }
        vertices_.push_back(std::move(plan));
    }
}

void ChannelGenerator::add_scalar(std::string name, ScalarSource source) {
    const bool clash = name.empty() || is_diagnostic(name) ||
                       std::any_of(edges_.begin(), edges_.end(),
                                   [&](const EdgePlan& e) { return e.name == name; }) ||
                       std::any_of(scalars_.begin(), scalars_.end(),
                                   [&](const auto& s) { return s.first == name; });
    if (clash) {
        throw ModelError(fmt::format("scalar column name `{}` is empty, reserved, repeated or an "
                                     "edge name",
                                     name));
    }
    scalars_.emplace_back(std::move(name), std::move(source));
}

GeneratedEvent ChannelGenerator::event(std::uint64_t index, std::uint64_t seed) const {
    return propose(index, seed, kProductionStream, nullptr).event;
}

ChannelGenerator::Proposal ChannelGenerator::propose(std::uint64_t index, std::uint64_t seed,
                                                     std::uint64_t stream,
                                                     const Adaptations* adaptations) const {
    Proposal proposal;
    proposal.index = index;
    GeneratedEvent& event = proposal.event;
    event.p4s.resize(edges_.size());
    double weight = 1.0;
    ProposalRng initial_rng(derive_seed(seed, stream, index, kInitialObject));
    FourMomentum total;
    for (const std::size_t root : roots_) {
        const EdgePlan& edge = edges_[root];
        const InitialDraw draw = edge.initial->sample(*edge.mass, initial_rng);
        event.p4s[root] = draw.p4;
        total = total + draw.p4;
        weight *= draw.weight;
    }
    const double total_m2 = total.mass_squared();
    if (!(total_m2 > 0.0)) {
        throw ModelError(fmt::format("event {}: the initial state has invariant mass² {}, not "
                                     "positive",
                                     index, total_m2));
    }
    const double maximum_mass = std::sqrt(total_m2);
    std::vector<double> masses(edges_.size());
    for (std::size_t i = 0; i < edges_.size(); ++i) {
        const EdgePlan& edge = edges_[i];
        if (edge.proposal) {
            ProposalRng mass_rng(derive_seed(seed, stream, index, kMassObject + i));
            try {
                const detail::AdaptiveMass* adaptive =
                    adaptations != nullptr && adaptations->masses[i] ? &*adaptations->masses[i]
                                                                     : nullptr;
                const MassDraw draw = adaptive != nullptr
                                          ? adaptive->propose(0.0, maximum_mass, mass_rng)
                                          : edge.proposal->propose(0.0, maximum_mass, mass_rng);
                masses[i] = draw.mass;
                weight *= draw.weight;
            } catch (const ModelError& error) {
                throw ModelError(fmt::format("event {}: the mass proposal of edge `{}` failed: {}",
                                             index, edge.name, error.what()));
            }
        } else {
            masses[i] = *edge.mass;
        }
    }
    for (const std::size_t root : roots_) {
        check_on_shell(edges_[root].name, event.p4s[root], masses[root], index);
    }
    std::vector<NamedMomentum> incoming;
    std::vector<NamedMass> outgoing;
    for (std::size_t step = 0; step < vertices_.size(); ++step) {
        const VertexPlan& vertex = vertices_[step];
        incoming.clear();
        outgoing.clear();
        FourMomentum in_sum;
        for (const std::size_t e : vertex.incoming) {
            incoming.push_back({edges_[e].name, event.p4s[e]});
            in_sum = in_sum + event.p4s[e];
        }
        for (const std::size_t e : vertex.outgoing) {
            outgoing.push_back({edges_[e].name, masses[e]});
        }
        ProposalRng vertex_rng(derive_seed(seed, stream, index, kVertexObject + step));
        VertexDraw draw;
        try {
            draw = adaptations != nullptr && adaptations->vertices[step]
                       ? adaptations->vertices[step]->propose(incoming, outgoing, vertex_rng)
                       : vertex.proposal.propose(incoming, outgoing, vertex_rng);
        } catch (const ModelError& error) {
            throw ModelError(
                fmt::format("event {}: vertex `{}` failed: {}", index, vertex.name, error.what()));
        }
        weight *= draw.weight;
        FourMomentum out_sum;
        for (std::size_t k = 0; k < vertex.outgoing.size(); ++k) {
            const std::size_t e = vertex.outgoing[k];
            check_on_shell(edges_[e].name, draw.outgoing[k], masses[e], index);
            event.p4s[e] = draw.outgoing[k];
            out_sum = out_sum + draw.outgoing[k];
        }
        const double scale = std::max(std::abs(in_sum.e), 1.0) * kTolerance;
        if (std::abs(in_sum.e - out_sum.e) > scale || std::abs(in_sum.px - out_sum.px) > scale ||
            std::abs(in_sum.py - out_sum.py) > scale || std::abs(in_sum.pz - out_sum.pz) > scale) {
            throw ModelError(fmt::format("event {}: vertex `{}` violates four-momentum "
                                         "conservation",
                                         index, vertex.name));
        }
    }
    event.scalars.reserve(scalars_.size());
    for (std::size_t c = 0; c < scalars_.size(); ++c) {
        ProposalRng scalar_rng(derive_seed(seed, stream, index, kScalarObject + c));
        const ScalarDraw draw = scalars_[c].second.sample(scalar_rng);
        event.scalars.push_back(draw.value);
        weight *= draw.weight;
    }
    if (!(std::isfinite(weight) && weight > 0.0)) {
        throw ModelError(fmt::format("event {}: the proposal weight {} is not finite and positive",
                                     index, weight));
    }
    event.weight = weight;
    proposal.target_weight = weight;
    return proposal;
}

std::vector<double>
ChannelGenerator::model_values(const ModelWeights& model, const detail::EventColumns& events,
                               std::size_t n,
                               const std::function<std::string(std::size_t)>& label) const {
    std::vector<data::P4Input> p4_inputs;
    p4_inputs.reserve(events.edges().size());
    for (std::size_t k = 0; k < events.edges().size(); ++k) {
        p4_inputs.push_back(events.p4(k, edges_[events.edges()[k]].name));
    }
    std::vector<data::ScalarInput> scalar_inputs;
    scalar_inputs.reserve(scalars_.size());
    for (std::size_t s = 0; s < scalars_.size(); ++s) {
        scalar_inputs.push_back({scalars_[s].first, events.scalar(s)});
    }
    std::vector<double> values =
        model(data::Dataset::from_arrays(std::span<const data::P4Input>(p4_inputs),
                                         std::span<const data::ScalarInput>(scalar_inputs)));
    if (values.size() != n) {
        throw InternalError(
            fmt::format("the model gave {} values for {} events", values.size(), n));
    }
    for (std::size_t i = 0; i < n; ++i) {
        // laddu's positive-real reduction: a target weight needs a model value above 0.
        if (!(std::isfinite(values[i]) && values[i] > 0.0)) {
            throw EvaluationError(fmt::format("{}: the model value {} is not finite and positive "
                                              "(generation weights events by a positive-real "
                                              "model)",
                                              label(i), values[i]));
        }
    }
    return values;
}

// The sizes weighted runs plan with: the columns a stored event holds and one event's work.
struct ChannelGenerator::WeightedPlan {
    std::vector<std::size_t> stored;  // edges whose four-momenta are kept (all with a model)
    std::size_t event_bytes = 0;      // one stored event's columns
    std::size_t work_bytes = 0;       // one event being made, per thread
    std::size_t threads = 1;
    std::size_t chunk = 0;  // events per work item
};

ChannelGenerator::WeightedPlan ChannelGenerator::plan_weighted(const WeightedConfig& config,
                                                               bool with_model) const {
    if (config.events == 0) {
        throw ModelError("weighted generation needs a positive number of events");
    }
    WeightedPlan plan;
    plan.stored = outputs_;
    // A model sees every edge, so then every edge's four-momentum is kept until it has run.
    if (with_model) {
        plan.stored.resize(edges_.size());
        std::iota(plan.stored.begin(), plan.stored.end(), std::size_t{0});
    }
    const std::size_t column_count = 4 * plan.stored.size() + scalars_.size() +
                                     (config.diagnostics ? 3 : 0) + (with_model ? 3 : 1);
    plan.event_bytes = column_count * sizeof(double);
    plan.work_bytes = sizeof(GeneratedEvent) +
                      edges_.size() * (sizeof(FourMomentum) + sizeof(double)) +
                      scalars_.size() * sizeof(double);
    plan.threads = config.threads == 0
                       ? std::max<std::size_t>(1, std::thread::hardware_concurrency())
                       : config.threads;
    plan.chunk =
        std::min(config.events, config.chunk_events == 0 ? kDefaultChunk : config.chunk_events);
    return plan;
}

data::Dataset ChannelGenerator::weighted_batch(const WeightedConfig& config,
                                               const WeightedPlan& plan, const ModelWeights& model,
                                               std::uint64_t first, std::size_t n,
                                               GenerationReport& report) const {
    // Columns filled in place by event index.
    detail::EventColumns columns(plan.stored, scalars_.size(), n);
    std::vector<double> weights(n);
    const std::size_t threads =
        std::max<std::size_t>(1, std::min(plan.threads, (n + plan.chunk - 1) / plan.chunk));
    detail::for_each_index(n, plan.chunk, threads, [&](std::size_t i) {
        const GeneratedEvent e = event(first + i, config.seed);
        columns.set(i, e);
        weights[i] = e.weight;
    });

    std::vector<double> proposal_weights;
    std::vector<double> model_weights;
    if (model) {
        model_weights = model_values(model, columns, n, [first](std::size_t i) {
            return fmt::format("event {}", first + i);
        });
        proposal_weights = weights;
        for (std::size_t i = 0; i < n; ++i) {
            weights[i] = proposal_weights[i] * model_weights[i];
        }
    }
    for (const double w : weights) {  // index order: the same sums for any thread count
        report.maximum_weight = std::max(report.maximum_weight, w);
        report.minimum_weight = std::min(report.minimum_weight, w);
        report.sum_weights += w;
        report.sum_squared_weights += w * w;
    }

    std::vector<data::P4Input> p4_inputs;
    for (std::size_t k = 0; k < plan.stored.size(); ++k) {
        if (std::find(outputs_.begin(), outputs_.end(), plan.stored[k]) != outputs_.end()) {
            p4_inputs.push_back(columns.p4(k, edges_[plan.stored[k]].name));
        }
    }
    std::vector<data::ScalarInput> scalar_inputs;
    scalar_inputs.reserve(scalars_.size());
    for (std::size_t s = 0; s < scalars_.size(); ++s) {
        scalar_inputs.push_back({scalars_[s].first, columns.scalar(s)});
    }
    const std::vector<double> ones(config.diagnostics && !model ? n : 0, 1.0);
    if (config.diagnostics) {
        // Without a model the proposal and target weights coincide and the model weight is 1.
        scalar_inputs.push_back({kDiagnosticColumns[0], model ? proposal_weights : weights});
        scalar_inputs.push_back({kDiagnosticColumns[1], model ? model_weights : ones});
        scalar_inputs.push_back({kDiagnosticColumns[2], weights});
    }
    return data::Dataset::from_arrays(std::span<const data::P4Input>(p4_inputs),
                                      std::span<const data::ScalarInput>(scalar_inputs), weights);
}

namespace {

GenerationReport weighted_report(const WeightedConfig& config, std::size_t chunk) {
    GenerationReport report;
    report.requested = report.produced = report.proposals = config.events;
    report.seed = config.seed;
    report.chunk_events = chunk;
    report.minimum_weight = std::numeric_limits<double>::infinity();
    return report;
}

}  // namespace

std::pair<data::Dataset, GenerationReport>
ChannelGenerator::weighted(const WeightedConfig& config, const ModelWeights& model) const {
    WeightedPlan plan = plan_weighted(config, static_cast<bool>(model));
    const std::size_t n = config.events;
    // Memory: the output columns (resident) plus, per thread, one event's working set (results
    // go straight into the output columns).
    const std::size_t output_bytes = plan.event_bytes * n;
    if (config.memory_bytes) {
        const std::size_t budget = *config.memory_bytes;
        if (budget < output_bytes + plan.work_bytes) {
            throw ModelError(fmt::format("{} generated events need {} bytes, more than the "
                                         "memory budget of {} bytes",
                                         n, output_bytes + plan.work_bytes, budget));
        }
        plan.threads = std::min(plan.threads, (budget - output_bytes) / plan.work_bytes);
    }
    plan.threads =
        std::max<std::size_t>(1, std::min(plan.threads, (n + plan.chunk - 1) / plan.chunk));
    GenerationReport report = weighted_report(config, plan.chunk);
    report.estimated_peak_bytes =
        static_cast<std::uint64_t>(output_bytes + plan.threads * plan.work_bytes);
    data::Dataset events = weighted_batch(config, plan, model, 0, n, report);
    return {std::move(events), report};
}

GenerationReport ChannelGenerator::weighted_stream(
    const WeightedConfig& config, const ModelWeights& model,
    const std::function<void(const data::Dataset&, std::size_t)>& open,
    const std::function<void(const data::Dataset&)>& write,
    const std::function<void()>& close) const {
    WeightedPlan plan = plan_weighted(config, static_cast<bool>(model));
    const std::size_t n = config.events;
    // Memory: one batch of output columns, the file's pending block (row group or baskets) of
    // the same size, and one event's work per thread.
    std::size_t batch = std::min(n, kDefaultStreamBatch);
    if (config.memory_bytes) {
        const std::size_t budget = *config.memory_bytes;
        const std::size_t per_event = 2 * plan.event_bytes;
        if (budget < per_event + plan.work_bytes) {
            throw ModelError(fmt::format("streaming generated events needs at least {} bytes, "
                                         "more than the memory budget of {} bytes",
                                         per_event + plan.work_bytes, budget));
        }
        batch = std::min(batch, (budget - plan.work_bytes) / per_event);
        plan.threads = std::min(plan.threads, (budget - batch * per_event) / plan.work_bytes);
    }
    plan.threads = std::max<std::size_t>(1, plan.threads);
    GenerationReport report = weighted_report(config, plan.chunk);
    report.estimated_peak_bytes =
        static_cast<std::uint64_t>(2 * batch * plan.event_bytes + plan.threads * plan.work_bytes);
    for (std::uint64_t first = 0; first < n; first += batch) {
        const std::size_t count = std::min<std::size_t>(batch, n - first);
        const data::Dataset events = weighted_batch(config, plan, model, first, count, report);
        if (first == 0) {
            open(events, batch);
        }
        write(events);
    }
    close();
    return report;
}

GenerationReport ChannelGenerator::weighted_to(const WeightedConfig& config,
                                               const std::string& path, const ModelWeights& model,
                                               data::ParquetWriteOptions options) const {
    std::optional<data::EventParquetWriter> writer;
    return weighted_stream(
        config, model,
        [&](const data::Dataset& events, std::size_t batch) {
            options.row_group_size = std::min(options.row_group_size, batch);
            writer.emplace(events.schema(), path, options);
        },
        [&](const data::Dataset& events) { writer->write(events.batch()); },
        [&] { writer->close(); });
}

GenerationReport ChannelGenerator::weighted_to(const WeightedConfig& config,
                                               const std::string& path, const ModelWeights& model,
                                               data::RootWriteOptions options) const {
    std::optional<data::EventRootWriter> writer;
    return weighted_stream(
        config, model,
        [&](const data::Dataset& events, std::size_t batch) {
            options.entries_per_basket = std::min(options.entries_per_basket, batch);
            writer.emplace(events.schema(), path, options);
        },
        [&](const data::Dataset& events) { writer->write(events.batch()); },
        [&] { writer->close(); });
}

}  // namespace laddu::generation
