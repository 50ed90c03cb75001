#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include <fmt/format.h>

#include <laddu/base/error.hpp>
#include <laddu/generation/channel_generator.hpp>

#include "channel_generator_detail.hpp"

namespace laddu::generation {

std::vector<ChannelGenerator::Proposal>
ChannelGenerator::propose_range(std::uint64_t start, std::size_t count, std::uint64_t seed,
                                std::uint64_t stream, const Adaptations* adaptations,
                                std::size_t threads) const {
    std::vector<Proposal> out(count);
    detail::for_each_index(count, kDefaultChunk, threads, [&](std::size_t i) {
        out[i] = propose(start + i, seed, stream, adaptations);
    });
    return out;
}

void ChannelGenerator::apply_model(std::vector<Proposal>& proposals,
                                   const ModelWeights& model) const {
    if (!model || proposals.empty()) {
        return;
    }
    const std::size_t n = proposals.size();
    std::vector<std::size_t> every_edge(edges_.size());
    std::iota(every_edge.begin(), every_edge.end(), std::size_t{0});
    detail::EventColumns columns(std::move(every_edge), scalars_.size(), n);
    for (std::size_t i = 0; i < n; ++i) {
        columns.set(i, proposals[i].event);
    }
    const std::vector<double> values = model_values(model, columns, n, [&proposals](std::size_t i) {
        return fmt::format("proposal {}", proposals[i].index);
    });
    for (std::size_t i = 0; i < n; ++i) {
        proposals[i].model_weight = values[i];
        proposals[i].target_weight = proposals[i].event.weight * values[i];
    }
}

ChannelGenerator::Adaptations
ChannelGenerator::learn_adaptations(const std::vector<Proposal>& pilot) const {
    // laddu's learn_mass_adaptations: 64 mass bins, 32 cos θ bins, a 20 % defensive share, kept
    // when the pilot's efficiency Σw / (N · max w) rises by at least 2 %.
    constexpr std::size_t kMassBins = 64;
    constexpr std::size_t kAngleBins = 32;
    constexpr double kDefensive = 0.2;
    constexpr double kMinimumGain = 1.02;
    Adaptations learned;
    learned.masses.resize(edges_.size());
    learned.vertices.resize(vertices_.size());
    double old_sum = 0.0;
    double old_max = 0.0;
    for (const Proposal& p : pilot) {
        old_sum += p.target_weight;
        old_max = std::max(old_max, p.target_weight);
    }
    if (pilot.empty() || old_sum <= 0.0 || old_max <= 0.0) {
        return learned;
    }
    const double count = static_cast<double>(pilot.size());
    const double old_efficiency = old_sum / (count * old_max);
    const auto mass_of = [](const FourMomentum& p, std::uint64_t index) {
        const double m2 = p.mass_squared();
        if (!(std::isfinite(m2) && m2 >= 0.0)) {
            throw ModelError(fmt::format("pilot proposal {}: invariant mass² {} is not a finite "
                                         "non-negative number",
                                         index, m2));
        }
        return std::sqrt(m2);
    };

    std::optional<std::pair<std::size_t, double>> best;  // edge, gain
    std::optional<detail::AdaptiveMass> best_proposal;
    for (std::size_t e = 0; e < edges_.size(); ++e) {
        if (!edges_[e].proposal) {
            continue;
        }
        const MassProposal& base = *edges_[e].proposal;
        std::vector<double> masses;
        masses.reserve(pilot.size());
        double low = std::numeric_limits<double>::infinity();
        double high = -std::numeric_limits<double>::infinity();
        for (const Proposal& p : pilot) {
            masses.push_back(mass_of(p.event.p4s[e], p.index));
            low = std::min(low, masses.back());
            high = std::max(high, masses.back());
        }
        if (!(std::isfinite(low) && std::isfinite(high) && high > low)) {
            continue;
        }
        const double width = (high - low) / static_cast<double>(kMassBins);
        std::vector<double> counts(kMassBins, 0.0);
        for (std::size_t i = 0; i < pilot.size(); ++i) {
            const auto bin =
                std::min(static_cast<std::size_t>((masses[i] - low) / width), kMassBins - 1);
            counts[bin] += pilot[i].target_weight;
        }
        if (std::count_if(counts.begin(), counts.end(), [](double c) { return c > 0.0; }) < 2) {
            continue;
        }
        detail::AdaptiveMass candidate{
            base,
            detail::PiecewiseDensity::uniform(low, high, std::move(counts), "an adaptive mass"),
            kDefensive};
        double new_sum = 0.0;
        double new_max = 0.0;
        bool available = true;
        for (std::size_t i = 0; i < pilot.size() && available; ++i) {
            FourMomentum total;
            for (const std::size_t root : roots_) {
                total = total + pilot[i].event.p4s[root];
            }
            const double maximum = mass_of(total, pilot[i].index);
            const std::optional<double> base_density = base.density(0.0, maximum, masses[i]);
            const std::optional<double> new_density =
                base_density ? candidate.density(0.0, maximum, masses[i]) : std::nullopt;
            if (!base_density || !new_density || *base_density <= 0.0 || *new_density <= 0.0) {
                available = false;
                break;
            }
            const double adjusted = pilot[i].target_weight * *base_density / *new_density;
            new_sum += adjusted;
            new_max = std::max(new_max, adjusted);
        }
        if (!available || new_sum <= 0.0 || new_max <= 0.0) {
            continue;
        }
        const double gain = new_sum / (count * new_max) / old_efficiency;
        if (gain >= kMinimumGain && (!best || gain > best->second)) {
            best = std::pair{e, gain};
            best_proposal = std::move(candidate);
        }
    }
    if (best) {
        learned.masses[best->first] = std::move(best_proposal);
    }

    for (std::size_t v = 0; v < vertices_.size(); ++v) {
        const VertexPlan& vertex = vertices_[v];
        if (!vertex.adaptive_decay) {
            continue;
        }
        std::vector<double> counts(kAngleBins, 0.0);
        std::vector<std::optional<double>> costhetas;
        costhetas.reserve(pilot.size());
        for (const Proposal& p : pilot) {
            const FourMomentum& parent = p.event.p4s[vertex.incoming[0]];
            if (!(parent.e > 0.0)) {
                throw ModelError(fmt::format("pilot proposal {}: edge `{}` has energy {}, not "
                                             "positive",
                                             p.index, edges_[vertex.incoming[0]].name, parent.e));
            }
            const FourMomentum rest = boost(p.event.p4s[vertex.outgoing[0]], -parent.px / parent.e,
                                            -parent.py / parent.e, -parent.pz / parent.e);
            const double magnitude =
                std::sqrt(rest.px * rest.px + rest.py * rest.py + rest.pz * rest.pz);
            if (!(magnitude > 0.0) || !std::isfinite(magnitude)) {
                costhetas.emplace_back(std::nullopt);
                continue;
            }
            const double costheta = std::clamp(rest.pz / magnitude, -1.0, 1.0);
            costhetas.emplace_back(costheta);
            const auto bin = std::min(
                static_cast<std::size_t>((costheta + 1.0) * 0.5 * static_cast<double>(kAngleBins)),
                kAngleBins - 1);
            counts[bin] += p.target_weight;
        }
        double total = 0.0;
        for (const double c : counts) {
            total += c;
        }
        const double width = 2.0 / static_cast<double>(kAngleBins);
        double new_sum = 0.0;
        double new_max = 0.0;
        for (std::size_t i = 0; i < pilot.size(); ++i) {
            if (!costhetas[i]) {
                continue;
            }
            const auto bin =
                std::min(static_cast<std::size_t>((*costhetas[i] + 1.0) / width), kAngleBins - 1);
            const double learned_density = counts[bin] / (total * width);
            const double density = kDefensive * 0.5 + (1.0 - kDefensive) * learned_density;
            const double adjusted = pilot[i].target_weight * 0.5 / density;
            new_sum += adjusted;
            new_max = std::max(new_max, adjusted);
        }
        const double new_efficiency = new_sum / (count * new_max);
        if (std::count_if(counts.begin(), counts.end(), [](double c) { return c > 0.0; }) >= 2 &&
            new_efficiency / old_efficiency >= kMinimumGain) {
            learned.vertices[v] =
                detail::AdaptiveDecay{detail::PiecewiseDensity::uniform(
                                          -1.0, 1.0, std::move(counts), "an adaptive decay"),
                                      kDefensive};
        }
    }
    return learned;
}

data::Dataset ChannelGenerator::output_dataset(const std::vector<Proposal>& events,
                                               bool diagnostics, bool with_model) const {
    const std::size_t n = events.size();
    detail::EventColumns columns(outputs_, scalars_.size(), n);
    std::vector<std::vector<double>> diagnostic(diagnostics ? 3 : 0, std::vector<double>(n));
    for (std::size_t i = 0; i < n; ++i) {
        const GeneratedEvent& e = events[i].event;
        columns.set(i, e);
        if (diagnostics) {
            diagnostic[0][i] = e.weight;
            diagnostic[1][i] = with_model ? events[i].model_weight : 1.0;
            diagnostic[2][i] = events[i].target_weight;
        }
    }
    std::vector<data::P4Input> p4_inputs;
    p4_inputs.reserve(outputs_.size());
    for (std::size_t k = 0; k < outputs_.size(); ++k) {
        p4_inputs.push_back(columns.p4(k, edges_[outputs_[k]].name));
    }
    std::vector<data::ScalarInput> scalar_inputs;
    scalar_inputs.reserve(scalars_.size() + diagnostic.size());
    for (std::size_t c = 0; c < scalars_.size(); ++c) {
        scalar_inputs.push_back({scalars_[c].first, columns.scalar(c)});
    }
    for (std::size_t d = 0; d < diagnostic.size(); ++d) {
        scalar_inputs.push_back({kDiagnosticColumns[d], diagnostic[d]});
    }
    return data::Dataset::from_arrays(std::span<const data::P4Input>(p4_inputs),
                                      std::span<const data::ScalarInput>(scalar_inputs));
}

std::pair<data::Dataset, GenerationReport>
ChannelGenerator::unweighted(const UnweightedConfig& config, const ModelWeights& model) const {
    const std::size_t n = config.events;
    if (n == 0) {
        throw ModelError("unweighted generation needs a positive number of events");
    }
    if (config.max_proposals && *config.max_proposals < n) {
        throw ModelError(fmt::format("max_proposals ({}) must be at least the requested event "
                                     "count ({})",
                                     *config.max_proposals, n));
    }
    if (config.proven_envelope) {
        if (model) {
            throw ModelError("proven_envelope is valid only without a model: the proof bounds the "
                             "phase-space weight; use the pilot envelope or max_weight with a "
                             "model");
        }
        if (config.max_weight) {
            throw ModelError("proven_envelope and max_weight are mutually exclusive");
        }
        if (config.grow_envelope) {
            throw ModelError("proven_envelope cannot be combined with grow_envelope");
        }
    }
    const std::size_t pilot =
        config.max_weight || config.proven_envelope ? 0 : config.pilot_proposals;
    const std::size_t threads = config.threads == 0
                                    ? std::max<std::size_t>(1, std::thread::hardware_concurrency())
                                    : config.threads;
    // Memory: the output columns are retained (a dataset is returned); a grown envelope also
    // keeps the accepted proposals; each proposal of a batch holds its event (and, with a
    // model, its columns for the model).
    const std::size_t output_per_event =
        (4 * outputs_.size() + scalars_.size() + (config.diagnostics ? 3 : 0)) * sizeof(double);
    const std::size_t proposal_bytes = sizeof(Proposal) +
                                       edges_.size() * (sizeof(FourMomentum) + sizeof(double)) +
                                       scalars_.size() * sizeof(double);
    const std::size_t per_proposal =
        proposal_bytes + (model ? (4 * edges_.size() + scalars_.size() + 1) * sizeof(double) : 0);
    const std::size_t fixed =
        n * output_per_event + (config.grow_envelope ? n * proposal_bytes : 0);
    std::size_t chunk = config.chunk_events == 0 ? std::max(n, pilot) : config.chunk_events;
    if (config.memory_bytes) {
        const std::size_t budget = *config.memory_bytes;
        if (budget < fixed + per_proposal) {
            throw ModelError(fmt::format("{} unweighted events need at least {} bytes, more than "
                                         "the memory budget of {} bytes",
                                         n, fixed + per_proposal, budget));
        }
        chunk = std::min(chunk, (budget - fixed) / per_proposal);
    }
    if (config.chunk_events == 0 && pilot > chunk) {  // the pilot is one resident batch
        throw ModelError(fmt::format("the pilot sample requires {} simultaneously resident "
                                     "proposals, but the memory budget fits {}; increase the "
                                     "budget or reduce pilot_proposals",
                                     pilot, chunk));
    }

    double bound = 0.0;
    EnvelopeKind kind = EnvelopeKind::kPilot;
    std::size_t pilot_count = 0;
    std::optional<Adaptations> adaptations;
    std::optional<ProvenEnvelopeReport> proven;
    if (config.proven_envelope) {
        proven = phase_space_envelope();
        bound = proven->maximum_weight;
        kind = EnvelopeKind::kProvenPhaseSpace;
    } else if (config.max_weight) {
        bound = *config.max_weight;
        if (!(std::isfinite(bound) && bound > 0.0)) {
            throw ModelError(fmt::format("max_weight must be finite and positive, got {}", bound));
        }
        kind = EnvelopeKind::kStrict;
    } else {
        if (pilot == 0 || !std::isfinite(config.safety_factor) || config.safety_factor <= 1.0) {
            throw ModelError(fmt::format("pilot_proposals must be positive and safety_factor "
                                         "finite and greater than one, got {} and {}",
                                         pilot, config.safety_factor));
        }
        std::vector<Proposal> sample =
            propose_range(0, pilot, config.seed, kAdaptationPilotStream, nullptr, threads);
        apply_model(sample, model);
        Adaptations learned = learn_adaptations(sample);
        const bool adapted = learned.any();
        if (adapted) {
            adaptations = std::move(learned);
            sample =
                propose_range(0, pilot, config.seed, kEnvelopePilotStream, &*adaptations, threads);
            apply_model(sample, model);
        }
        double observed = 0.0;
        for (const Proposal& p : sample) {
            observed = std::max(observed, p.target_weight);
        }
        bound = observed * config.safety_factor;
        pilot_count = pilot * (adapted ? 2 : 1);
    }
    if (config.grow_envelope &&
        (!std::isfinite(config.safety_factor) || config.safety_factor <= 1.0)) {
        throw ModelError(fmt::format("envelope growth needs safety_factor finite and greater than "
                                     "one, got {}",
                                     config.safety_factor));
    }

    GenerationReport report;
    report.requested = n;
    report.seed = config.seed;
    report.chunk_events = chunk;
    report.estimated_peak_bytes = static_cast<std::uint64_t>(fixed + chunk * per_proposal);
    report.minimum_weight = std::numeric_limits<double>::infinity();
    report.envelope = bound;
    report.envelope_kind = kind;
    report.pilot_proposals = pilot_count;
    report.proven = proven;

    const Adaptations* adapt = adaptations ? &*adaptations : nullptr;
    const auto accepts = [&](const Proposal& p, double envelope) {
        const double u =
            ProposalRng(derive_seed(config.seed, kAcceptanceStream, p.index, 0)).uniform();
        return u * envelope <= p.target_weight;
    };
    std::vector<Proposal> accepted_events;
    accepted_events.reserve(n);
    std::size_t next = 0;
    while (report.produced < n && (!config.max_proposals || next < *config.max_proposals)) {
        const std::size_t count =
            config.max_proposals ? std::min(chunk, *config.max_proposals - next) : chunk;
        std::vector<Proposal> batch =
            propose_range(next, count, config.seed, kProductionStream, adapt, threads);
        apply_model(batch, model);
        // Stop the batch at the last proposal needed, unless an overflow comes before it.
        const std::size_t needed = n - report.produced;
        std::size_t found = 0;
        std::size_t last_needed = 0;
        for (std::size_t i = 0; i < batch.size(); ++i) {
            if (accepts(batch[i], bound) && ++found == needed) {
                last_needed = i + 1;
                break;
            }
        }
        if (last_needed > 0 &&
            std::none_of(batch.begin(), batch.begin() + static_cast<std::ptrdiff_t>(last_needed),
                         [&](const Proposal& p) { return p.target_weight > bound; })) {
            batch.resize(last_needed);
        }
        for (const Proposal& p : batch) {  // the statistics of every proposal made
            report.maximum_weight = std::max(report.maximum_weight, p.target_weight);
            report.minimum_weight = std::min(report.minimum_weight, p.target_weight);
            report.sum_weights += p.target_weight;
            report.sum_squared_weights += p.target_weight * p.target_weight;
        }
        const Proposal* overflow = nullptr;
        for (const Proposal& p : batch) {
            if (p.target_weight > bound &&
                (overflow == nullptr || p.target_weight > overflow->target_weight)) {
                overflow = &p;
            }
        }
        if (overflow != nullptr) {
            if (!config.grow_envelope) {
                throw ModelError(fmt::format(
                    "target weight {} exceeds the envelope {} at proposal {}: pass "
                    "grow_envelope=True, a larger safety_factor or pilot_proposals, or a larger "
                    "max_weight",
                    overflow->target_weight, bound, overflow->index));
            }
            bound = overflow->target_weight * config.safety_factor;
            if (!(std::isfinite(bound) && bound > 0.0)) {
                throw ModelError(
                    fmt::format("the grown envelope {} is not finite and positive", bound));
            }
            report.envelope = bound;
            ++report.envelope_updates;
            std::erase_if(accepted_events, [&](const Proposal& p) { return !accepts(p, bound); });
            report.produced = accepted_events.size();
        }
        const std::size_t remaining = n - report.produced;
        std::size_t taken = 0;
        for (Proposal& p : batch) {
            if (taken == remaining) {
                break;
            }
            if (accepts(p, bound)) {
                accepted_events.push_back(std::move(p));
                ++taken;
            }
        }
        report.proposals += batch.size();
        report.produced = accepted_events.size();
        report.rejected = report.proposals - report.produced;
        next += batch.size();
    }
    if (report.produced != n) {
        const double rate = report.acceptance_rate();
        const std::string estimate =
            rate > 0.0 ? fmt::format("about {:.0f} proposals are needed at this acceptance rate",
                                     std::ceil(static_cast<double>(n) / rate))
                       : std::string("no proposal was accepted");
        throw ModelError(fmt::format(
            "unweighted generation accepted {} of {} requested events after exhausting "
            "max_proposals={} proposals (envelope {}, acceptance rate {:.3g}; {}): raise "
            "max_proposals, request fewer events, or make the proposals follow the model more "
            "closely (mass proposals, t distributions)",
            report.produced, n, report.proposals, bound, rate, estimate));
    }
    return {output_dataset(accepted_events, config.diagnostics, static_cast<bool>(model)), report};
}

}  // namespace laddu::generation
