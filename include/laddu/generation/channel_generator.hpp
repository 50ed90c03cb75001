// laddu/generation/channel_generator.hpp: weighted and unweighted (accept-reject) Monte Carlo
// events of a physics::Channel (laddu's Generator / ChannelGenerator), driven by per-edge and
// per-vertex proposals; unweighted() is documented at its declaration and in docs/generation.md.
//
// An event is built in laddu's order:
//   1. each initial edge (consumed, never produced; channel order) gets its InitialMomentum;
//   2. each edge gets a mass: its MassProposal, drawn on [0, M] with M the invariant mass of
//      the initial edges, or else its particle's mass;
//   3. the vertices run in topological order (the first vertex in channel order whose incoming
//      momenta are known, repeatedly), each VertexProposal making its outgoing momenta; a
//      1 → 2 vertex without a proposal is an isotropic decay;
//   4. each scalar column draws from its ScalarSource.
// The event weight is the product of every draw's importance weight (initial energy, masses,
// vertex phase space dΦ₂/q, scalars), so Σ weights / N estimates ∫ dΦ over the generated
// variables and Σ w f / N the integral of f. Every momentum is checked on shell and every
// vertex for four-momentum conservation (relative 1e-9), as laddu does.
//
// Random numbers follow proposal_rng.hpp: the event with index i of a run with seed s reads only
// streams derived from (s, 0, i, object), so a run is the same whatever the thread count or
// chunking. Errors (a closed threshold, a t interval missed by its limits) stop the run; the
// one reported is that of the lowest event index, also whatever the thread count.
//
// Example (docs/generation.md has the full γ p → K_S K_S p channel):
//   generation::ChannelProposals proposals;
//   proposals.edges["beam"].initial_momentum = InitialMomentum::energy(8.5, {0, 0, 1});
//   proposals.edges["target"].initial_momentum = InitialMomentum::momentum({0, 0, 0});
//   proposals.edges["X"].mass_proposal = MassProposal::uniform(0.995, 2.0);
//   proposals.vertices["production"] = VertexProposal::t_exchange("beam", "X", t);
//   ChannelGenerator generator(channel, proposals);
//   auto [events, report] = generator.weighted({.events = 100000, .seed = 17});
//
// With a model (laddu's weighted(model=)), the weight becomes the target weight proposal ×
// model value, the model evaluated on every edge and scalar of the generated events.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <laddu/data/dataset.hpp>
#include <laddu/data/parquet.hpp>
#include <laddu/data/root.hpp>
#include <laddu/generation/initial_momentum.hpp>
#include <laddu/generation/interval.hpp>
#include <laddu/generation/mass_proposal.hpp>
#include <laddu/generation/phase_space.hpp>
#include <laddu/generation/scalar_source.hpp>
#include <laddu/generation/vertex_proposal.hpp>
#include <laddu/physics/channel.hpp>

namespace laddu::generation {

namespace detail {
class EventColumns;  // channel_generator_detail.hpp
}  // namespace detail

/// The generation settings of one edge (laddu's Edge(mass_proposal=, initial_momentum=)).
struct EdgeGeneration {
    std::optional<MassProposal> mass_proposal{};
    std::optional<InitialMomentum> initial_momentum{};
};

/// The generation settings of a channel, by edge and vertex name.
struct ChannelProposals {
    std::map<std::string, EdgeGeneration> edges{};
    std::map<std::string, VertexProposal> vertices{};
};

/// ModelError naming the edge or vertex unless `channel` with `proposals` can be generated:
/// proposals name existing edges and vertices; every initial edge has a valid InitialMomentum
/// (with a particle mass) and no mass proposal; every other edge has a mass proposal or a
/// particle mass; every vertex has a proposal that fits its arity (or is a 1 → 2 decay, which
/// defaults to isotropic); at least one edge is an output.
void validate_generation(const physics::Channel& channel, const ChannelProposals& proposals);

/// Options of ChannelGenerator::weighted.
struct WeightedConfig {
    std::size_t events = 0;        ///< events to generate (> 0)
    std::uint64_t seed = 0;        ///< the run's seed
    std::size_t threads = 0;       ///< worker threads; 0: std::thread::hardware_concurrency()
    std::size_t chunk_events = 0;  ///< events per work item; 0: 4096
    bool diagnostics = false;      ///< add __laddu_{proposal,model,target}_weight scalar columns
    /// Host-memory budget in bytes for the output columns and the threads' work; none: no
    /// limit. A budget below the output is a ModelError; a tight one limits the threads.
    std::optional<std::size_t> memory_bytes{};
};

/// Options of ChannelGenerator::unweighted (laddu's UnweightedConfig, with the envelope mode
/// and overflow policy its Python Generator.unweighted builds from max_weight, pilot_proposals,
/// safety_factor and grow_envelope).
struct UnweightedConfig {
    std::size_t events = 0;   ///< accepted events to produce (> 0)
    std::uint64_t seed = 0;   ///< the run's seed
    std::size_t threads = 0;  ///< worker threads; 0: std::thread::hardware_concurrency()
    /// Stop with a ModelError after this many production proposals (pilot proposals are not
    /// counted); none: no limit. At least `events`.
    std::optional<std::size_t> max_proposals{};
    /// A strict envelope (laddu's EnvelopeMode::Strict); none: estimate one from a pilot.
    std::optional<double> max_weight{};
    /// Use phase_space_envelope()'s proven bound (laddu's EnvelopeMode::ProvenPhaseSpace): only
    /// without a model, max_weight and grow_envelope (a ModelError otherwise); no pilot.
    bool proven_envelope = false;
    std::size_t pilot_proposals = 10'000;  ///< pilot proposals (> 0) without max_weight
    double safety_factor = 2.0;            ///< pilot maximum × this; also the growth factor
    /// A target weight above the envelope grows it to weight × safety_factor and thins the
    /// events accepted so far (laddu's EnvelopeOverflow::Grow); false: a ModelError.
    bool grow_envelope = false;
    bool diagnostics = false;  ///< add the __laddu_{proposal,model,target}_weight columns
    /// Proposals per batch; 0: max(events, pilot_proposals), laddu's batch when the memory
    /// budget holds them all. The batch decides where a grown envelope takes effect.
    std::size_t chunk_events = 0;
    /// Host-memory budget in bytes; a tight one shrinks the default batch (a ModelError when it
    /// no longer holds the pilot, as in laddu).
    std::optional<std::size_t> memory_bytes{};
};

/// Where an unweighting envelope came from (laddu's EnvelopeKind).
enum class EnvelopeKind : unsigned char { kStrict, kPilot, kProvenPhaseSpace };

/// A proven bound of the phase-space proposal weight (laddu's ProvenEnvelopeReport; see
/// ChannelGenerator::phase_space_envelope).
struct ProvenEnvelopeReport {
    /// Holds every proposal weight: [0, maximum_weight].
    Interval weight_interval;
    /// The upper end, the accept-reject envelope.
    double maximum_weight = 0.0;
    /// Continuous coordinates of a proposal: energies and scalars drawn from uniform or
    /// histogram sources, generated masses, and two per vertex (its angles, or t and φ).
    std::size_t continuous_dimensions = 0;
    /// The product of the analytic regions of the draws (histogram bins of positive count).
    std::size_t piecewise_regions = 1;
    /// Boxes bisected by the branch-and-bound search.
    std::size_t subdivisions = 0;
};

/// What a run did (laddu's GenerationReport; weighted runs propose exactly what they produce).
struct GenerationReport {
    std::size_t requested = 0;
    std::size_t produced = 0;
    std::size_t proposals = 0;
    std::size_t pilot_proposals = 0;
    std::size_t rejected = 0;
    std::optional<double> envelope{};             ///< unweighting envelope (none for weighted runs)
    std::optional<EnvelopeKind> envelope_kind{};  ///< none for weighted runs
    std::size_t envelope_updates = 0;             ///< times a grown envelope was raised
    double maximum_weight = 0.0;
    double minimum_weight = 0.0;
    double sum_weights = 0.0;
    double sum_squared_weights = 0.0;
    std::uint64_t seed = 0;
    std::size_t chunk_events = 0;
    std::uint64_t estimated_peak_bytes = 0;        ///< output columns plus per-thread work
    std::optional<ProvenEnvelopeReport> proven{};  ///< with a proven envelope

    /// produced / proposals (0 without proposals).
    [[nodiscard]] double acceptance_rate() const noexcept {
        return proposals == 0 ? 0.0
                              : static_cast<double>(produced) / static_cast<double>(proposals);
    }
};

/// One generated event: every edge's four-momentum (channel order), the scalars and the weight.
struct GeneratedEvent {
    std::vector<FourMomentum> p4s;
    std::vector<double> scalars;
    double weight = 1.0;
};

/// Model values for generated events: called once per run with a dataset holding every edge's
/// four-momentum (named after the edge, output or not) and the scalar columns, it returns one
/// value per event (e.g. runtime::PreparedModel::evaluate's real parts; laddu evaluates the
/// model on the same columns).
using ModelWeights = std::function<std::vector<double>(const data::Dataset& events)>;

/// The diagnostic scalar column names (reserved).
inline constexpr const char* kDiagnosticColumns[3] = {
    "__laddu_proposal_weight", "__laddu_model_weight", "__laddu_target_weight"};

/// A channel compiled for generation (see the banner).
class ChannelGenerator {
public:
    /// validate_generation(), then the generation plan.
    ChannelGenerator(const physics::Channel& channel, const ChannelProposals& proposals);

    /// Adds a scalar column; ModelError for an empty, reserved or repeated name or an edge's.
    void add_scalar(std::string name, ScalarSource source);

    /// The p4 column names of generated datasets: the output edges' names, in channel order.
    [[nodiscard]] const std::vector<std::string>& output_names() const noexcept {
        return output_names_;
    }

    /// The scalar columns, in the order added.
    [[nodiscard]] const std::vector<std::pair<std::string, ScalarSource>>&
    scalars() const noexcept {
        return scalars_;
    }

    /// A proven upper bound of the proposal weight of every event (unit model), from interval
    /// arithmetic (interval.hpp) over a branch-and-bound search of the proposal coordinates:
    /// the initial invariant mass √s, each uniform generated mass as a fraction of its window
    /// and each t-exchange t as a fraction of its window; every other factor (beam energy and
    /// scalar weights, decay angles) is enclosed in closed form. Bisects the box with the
    /// largest bound along its widest coordinate until that bound is within 1e-6 of the weight
    /// at the box centre, every box is narrower than 1/1024 of its coordinate's range, or 1024
    /// boxes were bisected; the bound is the largest over the remaining boxes, raised by 1e-12
    /// relative to cover the rounding of the generator's own weight arithmetic. ModelError when
    /// a t-exchange vertex has an incoming edge that is not initial, a generated mass has no
    /// room below √s, a t pole lies in the t range, or the bound is not finite and positive.
    [[nodiscard]] ProvenEnvelopeReport phase_space_envelope() const;

    /// The event with `index` of a run with `seed` (the one weighted() would produce).
    [[nodiscard]] GeneratedEvent event(std::uint64_t index, std::uint64_t seed) const;

    /// `config.events` weighted events (p4 columns output_names(), the scalar columns, the
    /// weights) and the report; ModelError for zero events or a failed event. With `model`,
    /// each weight is the proposal weight times the model value (laddu's target weight); an
    /// EvaluationError names the first event whose model value is not finite and positive.
    [[nodiscard]] std::pair<data::Dataset, GenerationReport>
    weighted(const WeightedConfig& config, const ModelWeights& model = {}) const;

    /// weighted() written to the Parquet file `path` (laddu's columns: name_e, name_px, name_py,
    /// name_pz per output edge, the scalars, the diagnostics, weight) in batches: at most 65,536
    /// events, or what config.memory_bytes holds with the file's pending row group, are resident
    /// at once (the row groups are at most one batch). The file holds weighted()'s events and
    /// the report is weighted()'s; the file appears at `path` only when complete (an error
    /// leaves any old file untouched).
    GenerationReport weighted_to(const WeightedConfig& config, const std::string& path,
                                 const ModelWeights& model = {},
                                 data::ParquetWriteOptions options = {}) const;

    /// weighted_to() writing a ROOT file (one flat TTree, see data::EventRootWriter) instead:
    /// baskets are at most one batch.
    GenerationReport weighted_to(const WeightedConfig& config, const std::string& path,
                                 const ModelWeights& model, data::RootWriteOptions options) const;

    /// `config.events` unit-weight events by accept-reject on the target weight w (proposal
    /// weight, times the model value with `model`), as laddu's generate_unweighted:
    ///  * envelope: max_weight, phase_space_envelope() with proven_envelope, or else the pilot:
    ///  proposals 0..P−1 of stream 1 (P =
    ///    pilot_proposals) with the model, from which an importance adaptation is learned (the
    ///    mass proposal of the one edge, and the cos θ of each default decay, whose reweighting
    ///    raises the pilot's efficiency Σw / (P · max w) by ≥ 2 %); with an adaptation a second
    ///    pilot (stream 2) uses it. Envelope = largest pilot weight × safety_factor;
    ///    report.pilot_proposals counts both pilots;
    ///  * production: proposal i (stream 0, with the adaptation) is accepted iff
    ///    u_i · envelope ≤ w_i, u_i the uniform of derive_seed(seed, 2, i, 0); the first
    ///    `events` accepted proposals are kept, in index order, in batches of chunk_events;
    ///  * w_i > envelope: ModelError (the index, weight and envelope), or with grow_envelope the
    ///    envelope becomes the batch's largest overflowing weight × safety_factor and the
    ///    events accepted so far are thinned by the same rule (report.envelope_updates);
    ///  * max_proposals exhausted first: ModelError naming accepted/requested, the envelope and
    ///    the remedies.
    /// Events depend on the seed (and with grow_envelope on chunk_events), not on threads.
    [[nodiscard]] std::pair<data::Dataset, GenerationReport>
    unweighted(const UnweightedConfig& config, const ModelWeights& model = {}) const;

private:
    struct Adaptations;
    struct Proposal;
    struct WeightedPlan;

    /// Sizes and threads of a weighted run (ModelError for zero events).
    [[nodiscard]] WeightedPlan plan_weighted(const WeightedConfig& config, bool with_model) const;
    /// weighted()'s events in batches handed to `open(first batch, batch size)` once and
    /// `write(batch)` each (weighted_to's memory plan: a batch and a pending block of the same
    /// size); `close()` at the end.
    GenerationReport
    weighted_stream(const WeightedConfig& config, const ModelWeights& model,
                    const std::function<void(const data::Dataset&, std::size_t)>& open,
                    const std::function<void(const data::Dataset&)>& write,
                    const std::function<void()>& close) const;
    /// Events [first, first + n) of a weighted run as a dataset; adds their weights to `report`.
    [[nodiscard]] data::Dataset weighted_batch(const WeightedConfig& config,
                                               const WeightedPlan& plan, const ModelWeights& model,
                                               std::uint64_t first, std::size_t n,
                                               GenerationReport& report) const;

    [[nodiscard]] Proposal propose(std::uint64_t index, std::uint64_t seed, std::uint64_t stream,
                                   const Adaptations* adaptations) const;
    [[nodiscard]] std::vector<Proposal> propose_range(std::uint64_t start, std::size_t count,
                                                      std::uint64_t seed, std::uint64_t stream,
                                                      const Adaptations* adaptations,
                                                      std::size_t threads) const;
    void apply_model(std::vector<Proposal>& proposals, const ModelWeights& model) const;
    /// `model` on every edge and scalar of `events` (columns of every edge), checked to be
    /// finite and positive; EvaluationError names the first bad one as `label(i)`.
    [[nodiscard]] std::vector<double>
    model_values(const ModelWeights& model, const detail::EventColumns& events, std::size_t n,
                 const std::function<std::string(std::size_t)>& label) const;
    [[nodiscard]] Adaptations learn_adaptations(const std::vector<Proposal>& pilot) const;
    [[nodiscard]] data::Dataset output_dataset(const std::vector<Proposal>& events,
                                               bool diagnostics, bool with_model) const;

    struct EdgePlan {
        std::string name;
        std::optional<double> mass;  // fixed mass, or none with a proposal
        std::optional<MassProposal> proposal;
        std::optional<InitialMomentum> initial;
    };

    struct VertexPlan {
        std::string name;
        std::vector<std::size_t> incoming;
        std::vector<std::size_t> outgoing;
        VertexProposal proposal;
        bool adaptive_decay = false;  // a default isotropic decay (may learn its cos θ)
    };

    std::vector<EdgePlan> edges_;
    std::vector<VertexPlan> vertices_;  // in generation order
    std::vector<std::size_t> roots_;
    std::vector<std::size_t> outputs_;
    std::vector<std::string> output_names_;
    std::vector<std::pair<std::string, ScalarSource>> scalars_;
};

}  // namespace laddu::generation
