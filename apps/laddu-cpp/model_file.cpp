// The model-file reader: TOML (toml++) → expr::Model. One Reader walks the document; every
// value is read through a helper that knows its dotted key and source position, so each error
// is one line naming both.
#include "model_file.hpp"

#include <algorithm>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include <fmt/format.h>

#include <laddu/amplitudes/breit_wigner.hpp>
#include <laddu/amplitudes/flatte.hpp>
#include <laddu/amplitudes/kmatrix_benchmark.hpp>
#include <laddu/base/error.hpp>
#include <laddu/expr/tags.hpp>
#include <laddu/expr/traversal.hpp>
#include <laddu/physics/harmonics.hpp>
#include <laddu/physics/reaction.hpp>

#include "channel_file.hpp"
#include "toml_fields.hpp"
#include <toml++/toml.h>

namespace laddu::cli {

namespace {

using expr::Expr;
using physics::Vec4;

// The keys each table accepts (the type key of amplitudes included).
const std::map<std::string, std::vector<std::string>> kAmplitudeKeys = {
    {"breit_wigner", {"mass", "width", "of", "shape", "l", "barrier", "q_r"}},
    {"flatte", {"mass", "of", "observed", "alternative"}},
    {"zlm", {"l", "m", "reflectivity", "frame", "particle"}},
    {"ylm", {"l", "m", "frame", "particle"}},
    {"coupling", {"re", "im", "mag", "phase"}},
    {"product", {"factors"}},
    {"sum", {"terms"}},
    {"incoherent_sum", {"terms"}},
    {"norm_sqr", {"amplitude"}},
    {"real", {"amplitude"}},
    {"imag", {"amplitude"}},
    {"kmatrix_benchmark", {}},
};

class Reader : private TomlFields {
public:
    Reader(const toml::table& root, std::string source)
        : TomlFields(std::move(source)), root_(root) {}

    ModelFile read() {
        check_keys(root_, "",
                   {"model", "reaction", "generator", "channel", "parameters", "amplitudes"});
        ModelFile file;
        file.source = source();
        const toml::table& model = table(root_, "model", "", true);
        check_keys(model, "model", {"name", "description", "intensity"});
        file.name = string_or(model, "name", "model", "");
        file.description = string_or(model, "description", "model", "");
        file.intensity = string(model, "intensity", "model");
        read_reaction(file.reaction);
        read_generator(file.generator);
        if (root_.contains("channel")) {
            file.channel = read_channel(table(root_, "channel", "", true), *this);
        }
        read_parameters();
        amplitudes_ = &table(root_, "amplitudes", "", true);

        const Expr intensity = amplitude(file.intensity, model.get("intensity"), "model.intensity");
        if (!intensity.value_kind().is_real_scalar()) {
            fail(model.get("intensity"), "model.intensity",
                 fmt::format("amplitude '{}' is complex; the intensity must be real (wrap it "
                             "in a norm_sqr or incoherent_sum amplitude)",
                             file.intensity));
        }
        for (const auto& [key, node] : *amplitudes_) {
            if (!built_.contains(std::string(key.str()))) {
                amplitude(std::string(key.str()), &node, "amplitudes");  // checks unused ones too
            }
        }
        file.model = expr::Model(apply_declarations(intensity));
        file.tags = expr::collect_tags(file.model.expression());
        file.amplitudes = std::move(named_);
        std::sort(file.amplitudes.begin(), file.amplitudes.end(),
                  [](const NamedAmplitude& a, const NamedAmplitude& b) { return a.line < b.line; });
        return file;
    }

private:
    // Sections.

    void read_reaction(ReactionSpec& r) {
        const toml::table& t = table(root_, "reaction", "", false);
        check_keys(t, "reaction", {"beam", "recoil", "daughters", "polarization"});
        r.beam = string_or(t, "beam", "reaction", r.beam);
        r.recoil = string_or(t, "recoil", "reaction", r.recoil);
        if (const toml::node* d = t.get("daughters")) {
            r.daughters = strings(d, "reaction.daughters");
            if (r.daughters.size() != 2) {
                fail(d, "reaction.daughters", "expected exactly two daughters [a, b]");
            }
        }
        const toml::table& pol = table(t, "polarization", "reaction", false);
        check_keys(pol, "reaction.polarization", {"magnitude", "angle"});
        r.pol_magnitude = string_or(pol, "magnitude", "reaction.polarization", r.pol_magnitude);
        r.pol_angle = string_or(pol, "angle", "reaction.polarization", r.pol_angle);
        // Column names: an empty one would reach Vec4::event, whose error has no position.
        const auto check_column = [this](const toml::table& table, const char* key,
                                         const std::string& path, const std::string& name) {
            if (name.empty()) {
                const toml::node* node = table.get(key);
                fail(node != nullptr ? node : &table, dotted(path, key),
                     "expected a column name, got an empty string");
            }
        };
        check_column(t, "beam", "reaction", r.beam);
        check_column(t, "recoil", "reaction", r.recoil);
        check_column(t, "daughters", "reaction", r.daughters[0]);
        check_column(t, "daughters", "reaction", r.daughters[1]);
        check_column(pol, "magnitude", "reaction.polarization", r.pol_magnitude);
        check_column(pol, "angle", "reaction.polarization", r.pol_angle);
        particles_ = {{r.beam, Vec4::event(r.beam)},
                      {r.recoil, Vec4::event(r.recoil)},
                      {r.daughters[0], Vec4::event(r.daughters[0])},
                      {r.daughters[1], Vec4::event(r.daughters[1])}};
        if (particles_.size() != 4) {
            fail(&t, "reaction", "beam, recoil and daughters need four distinct names");
        }
        reaction_ = r;
    }

    void read_generator(GeneratorSpec& g) {
        const toml::table& t = table(root_, "generator", "", false);
        check_keys(t, "generator",
                   {"beam_energy", "mass_max", "daughter_mass", "recoil_mass", "pol_magnitude"});
        if (const toml::node* e = t.get("beam_energy")) {
            if (e->is_array()) {
                std::tie(g.beam_energy_min, g.beam_energy_max) = pair(e, "generator.beam_energy");
            } else {
                g.beam_energy_min = g.beam_energy_max = number(e, "generator.beam_energy");
            }
        }
        if (const toml::node* p = t.get("pol_magnitude")) {
            std::tie(g.pol_magnitude_min, g.pol_magnitude_max) = pair(p, "generator.pol_magnitude");
        }
        g.mass_max = number_or(t, "mass_max", "generator", g.mass_max);
        g.daughter_mass = number_or(t, "daughter_mass", "generator", g.daughter_mass);
        g.recoil_mass = number_or(t, "recoil_mass", "generator", g.recoil_mass);
    }

    void read_parameters() {
        const toml::table& t = table(root_, "parameters", "", false);
        for (const auto& [key, node] : t) {
            const std::string name(key.str());
            const std::string path = dotted("parameters", name);
            expr::ParameterOptions options;
            if (node.is_table()) {
                const toml::table& p = *node.as_table();
                check_keys(p, path, {"value", "bounds", "fixed", "periodic", "unit"});
                if (const toml::node* v = p.get("value")) {
                    options.initial = number(v, dotted(path, "value"));
                }
                if (const toml::node* b = p.get("bounds")) {
                    const auto [lo, hi] = pair(b, dotted(path, "bounds"));
                    options.bounds = expr::Bounds{lo, hi};
                }
                if (boolean_or(p, "fixed", path, false)) {
                    if (!options.initial) {
                        fail(&node, path, "fixed = true needs a value");
                    }
                    options.fixed = options.initial;
                    options.initial.reset();
                }
                options.periodic = boolean_or(p, "periodic", path, false);
                options.unit = string_or(p, "unit", path, "");
            } else if (node.is_number()) {
                options.initial = number(&node, path);
            } else {
                fail(&node, path,
                     fmt::format("expected a number or a table {{ value, bounds, fixed, "
                                 "periodic, unit }}, got {}",
                                 type_name(node)));
            }
            try {
                declared_.emplace(name, Declared{expr::Parameter::make(name, options), &node});
            } catch (const ModelError& e) {
                fail(&node, path, e.what());
            }
        }
    }

    // Values inside amplitudes.

    // A Real expression: a number (a constant) or the name of a declared parameter.
    Expr real(const toml::node* node, const std::string& key) {
        if (node->is_number()) {
            return expr::constant(number(node, key));
        }
        if (!node->is_string()) {
            fail(node, key,
                 fmt::format("expected a number or a parameter name, got {}", type_name(*node)));
        }
        const std::string name(node->as_string()->get());
        const auto found = declared_.find(name);
        if (found == declared_.end()) {
            std::vector<std::string> names;
            names.reserve(declared_.size());
            for (const auto& [n, d] : declared_) {
                names.push_back(n);
            }
            fail(node, key,
                 fmt::format("unknown parameter '{}' (declare it under [parameters]; declared: {})",
                             name, join(names)));
        }
        return expr::parameter(found->second.definition);
    }

    Expr real_key(const toml::table& t, const std::string& key, const std::string& path) {
        const toml::node* node = t.get(key);
        if (node == nullptr) {
            fail(&t, dotted(path, key), "missing (a number or a parameter name is required)");
        }
        return real(node, dotted(path, key));
    }

    Vec4 particle(const toml::node* node, const std::string& key) const {
        const std::string name = as_string(node, key);
        const auto found = particles_.find(name);
        if (found == particles_.end()) {
            fail(node, key,
                 fmt::format("unknown particle '{}' (the reaction has {}, {}, {}, {})", name,
                             reaction_.beam, reaction_.recoil, reaction_.daughters[0],
                             reaction_.daughters[1]));
        }
        return found->second;
    }

    // The sum of the particles listed under `key` (default: the two daughters).
    std::vector<Vec4> particles(const toml::table& t, const std::string& key,
                                const std::string& path) const {
        std::vector<Vec4> out;
        if (const toml::node* node = t.get(key)) {
            const toml::array* a = node->as_array();
            if (a == nullptr) {
                fail(node, dotted(path, key), "expected an array of particle names");
            }
            for (const toml::node& element : *a) {
                out.push_back(particle(&element, dotted(path, key)));
            }
            if (out.empty()) {
                fail(node, dotted(path, key), "expected at least one particle");
            }
        } else {
            out = {particles_.at(reaction_.daughters[0]), particles_.at(reaction_.daughters[1])};
        }
        return out;
    }

    static Vec4 total(const std::vector<Vec4>& p4s) {
        Vec4 sum = p4s.front();
        for (std::size_t i = 1; i < p4s.size(); ++i) {
            sum = sum + p4s[i];
        }
        return sum;
    }

    // The decay angles of `particle` (default the first daughter) in the frame named by `frame`.
    physics::Angles angles(const toml::table& t, const std::string& path) const {
        const physics::Reaction reaction = physics::Reaction::with_inferred_target(
            particles_.at(reaction_.beam),
            particles_.at(reaction_.daughters[0]) + particles_.at(reaction_.daughters[1]),
            particles_.at(reaction_.recoil));
        const Vec4 daughter = t.contains("particle")
                                  ? particle(t.get("particle"), dotted(path, "particle"))
                                  : particles_.at(reaction_.daughters[0]);
        const std::string frame = string_or(t, "frame", path, "helicity");
        if (frame == "helicity") {
            return reaction.helicity_angles(daughter);
        }
        if (frame == "gottfried_jackson") {
            return reaction.gottfried_jackson_angles(daughter);
        }
        fail(t.get("frame"), dotted(path, "frame"),
             fmt::format("unknown frame '{}' (expected helicity or gottfried_jackson)", frame));
    }

    // Amplitudes.

    const toml::table& amplitude_table(const std::string& name, const toml::node* where,
                                       const std::string& key) {
        const toml::node* node = amplitudes_->get(name);
        if (node == nullptr) {
            std::vector<std::string> names;
            for (const auto& [k, v] : *amplitudes_) {
                names.emplace_back(k.str());
            }
            fail(where, key,
                 fmt::format("unknown amplitude '{}' (defined: {})", name, join(names)));
        }
        if (!node->is_table()) {
            fail(node, dotted("amplitudes", name),
                 fmt::format("expected a table with a type key, got {}", type_name(*node)));
        }
        return *node->as_table();
    }

    Expr reference(const toml::node* node, const std::string& key) {
        return amplitude(as_string(node, key), node, key);
    }

    std::vector<Expr> references(const toml::table& t, const std::string& key,
                                 const std::string& path) {
        std::vector<Expr> out;
        for (const std::string& name : strings(t, key, path)) {
            out.push_back(amplitude(name, t.get(key), dotted(path, key)));
        }
        return out;
    }

    // The amplitude `name`, referred to at `where` (dotted `key`). Amplitudes refer to one
    // another by name; the references are resolved depth first with an explicit stack, so an
    // amplitude is built only after everything it names, and build() never recurses (a chain
    // of 10^4 products is as deep as the stack would go).
    Expr amplitude(const std::string& name, const toml::node* where, const std::string& key) {
        struct Pending {
            std::string name;
            const toml::node* where;
            std::string key;
            bool expanded = false;
        };

        std::vector<Pending> stack{{name, where, key}};
        while (!stack.empty()) {
            if (built_.contains(stack.back().name)) {
                stack.pop_back();
                continue;
            }
            if (stack.back().expanded) {
                const std::string done = stack.back().name;
                stack.pop_back();
                build_amplitude(done);
                continue;
            }
            stack.back().expanded = true;
            const Pending top = stack.back();
            const toml::table& t = amplitude_table(top.name, top.where, top.key);
            if (!building_.insert(top.name).second) {
                fail(top.where, top.key,
                     fmt::format("amplitude '{}' refers to itself (a cycle)", top.name));
            }
            const std::string path = dotted("amplitudes", top.name);
            check_type_and_keys(t, path);
            std::vector<Pending> refs;
            for (const auto& [ref_key, ref_node] : referenced_names(t, path)) {
                for (const std::string& ref : ref_node.second) {
                    refs.push_back({ref, ref_node.first, ref_key});
                }
            }
            for (auto it = refs.rbegin(); it != refs.rend(); ++it) {
                if (!built_.contains(it->name)) {
                    if (building_.contains(it->name)) {
                        fail(it->where, it->key,
                             fmt::format("amplitude '{}' refers to itself (a cycle)", it->name));
                    }
                    stack.push_back(std::move(*it));
                }
            }
        }
        return built_.at(name);
    }

    // The amplitude names table `t` refers to, by dotted key: (key, (node, names)).
    std::vector<std::pair<std::string, std::pair<const toml::node*, std::vector<std::string>>>>
    referenced_names(const toml::table& t, const std::string& path) const {
        std::vector<std::pair<std::string, std::pair<const toml::node*, std::vector<std::string>>>>
            out;
        for (const char* key : {"factors", "terms"}) {
            if (const toml::node* node = t.get(key)) {
                out.push_back({dotted(path, key), {node, strings(node, dotted(path, key))}});
            }
        }
        if (const toml::node* node = t.get("amplitude")) {
            out.push_back(
                {dotted(path, "amplitude"), {node, {as_string(node, dotted(path, "amplitude"))}}});
        }
        return out;
    }

    void check_type_and_keys(const toml::table& t, const std::string& path) const {
        const std::string type = string(t, "type", path);
        const auto keys = kAmplitudeKeys.find(type);
        if (keys == kAmplitudeKeys.end()) {
            std::vector<std::string> types;
            types.reserve(kAmplitudeKeys.size());
            for (const auto& [k, v] : kAmplitudeKeys) {
                types.push_back(k);
            }
            fail(t.get("type"), dotted(path, "type"),
                 fmt::format("unknown amplitude type '{}' (expected one of: {})", type,
                             join(types)));
        }
        std::vector<std::string> allowed = keys->second;
        allowed.emplace_back("type");
        allowed.emplace_back("tag");
        check_keys(t, path, allowed);
    }

    // Builds amplitude `name`, whose references are built (see amplitude()).
    void build_amplitude(const std::string& name) {
        const toml::table& t = *amplitudes_->get(name)->as_table();
        const std::string path = dotted("amplitudes", name);
        const std::string type = string(t, "type", path);
        Expr e = build(type, t, path);
        if (t.contains("tag")) {
            const std::string tag = string(t, "tag", path);
            if (tag.empty()) {
                fail(t.get("tag"), dotted(path, "tag"), "expected a tag name, got an empty string");
            }
            e = e.tagged(tag);
        }
        building_.erase(name);
        built_.emplace(name, e);
        named_.push_back({name, type, e, static_cast<int>(t.source().begin.line)});
    }

    Expr build(const std::string& type, const toml::table& t, const std::string& path) {
        try {
            return build_unchecked(type, t, path);
        } catch (const ModelError& e) {
            // Library builders' own checks (|m| > l, l > 8, kind mismatches) with the position.
            const std::string what = e.what();
            if (what.starts_with(one_line(source()) + ":")) {
                throw;
            }
            fail(&t, path, what);
        }
    }

    // The expression of an amplitude of type `type` (one of kAmplitudeKeys), keys checked.
    Expr build_unchecked(const std::string& type, const toml::table& t, const std::string& path) {
        if (type == "breit_wigner") {
            return breit_wigner(t, path);
        }
        if (type == "flatte") {
            return flatte(t, path);
        }
        if (type == "zlm" || type == "ylm") {
            return harmonic(type, t, path);
        }
        if (type == "coupling") {
            return coupling(t, path);
        }
        if (type == "product") {
            return expr::nary_mul(references(t, "factors", path));
        }
        if (type == "sum" || type == "incoherent_sum") {
            return sum(type, t, path);
        }
        if (type == "norm_sqr" || type == "real" || type == "imag") {
            return part(type, t, path);
        }
        // kmatrix_benchmark: laddu's benchmark intensity (its own reaction columns).
        return amplitudes::kmatrix_benchmark_intensity({.tag_waves = true});
    }

    // breit_wigner: fixed, relativistic or non-relativistic, of the listed particles' mass.
    Expr breit_wigner(const toml::table& t, const std::string& path) {
        const std::vector<Vec4> p4s = particles(t, "of", path);
        const Expr s = total(p4s).m2();
        const Expr mass = real_key(t, "mass", path);
        const Expr width = real_key(t, "width", path);
        const std::string shape = string_or(t, "shape", path, "fixed");
        if (shape == "fixed") {
            return amplitudes::breit_wigner(s, mass, width);
        }
        if (shape == "non_relativistic") {
            return amplitudes::non_relativistic_breit_wigner(s, mass, width);
        }
        if (shape != "relativistic") {
            fail(t.get("shape"), dotted(path, "shape"),
                 fmt::format("unknown shape '{}' (expected fixed, relativistic or "
                             "non_relativistic)",
                             shape));
        }
        if (p4s.size() != 2) {
            fail(t.get("of"), dotted(path, "of"),
                 "a relativistic Breit-Wigner needs exactly two particles (its daughters)");
        }
        return amplitudes::relativistic_breit_wigner(
            s, mass, width, p4s[0].m(), p4s[1].m(), integer_or(t, "l", path, 0),
            {.barrier_factors = boolean_or(t, "barrier", path, true),
             .q_r = number_or(t, "q_r", path, amplitudes::kDefaultBarrierScale)});
    }

    // flatte: two coupled channels, the observed one first.
    Expr flatte(const toml::table& t, const std::string& path) {
        const Expr s = total(particles(t, "of", path)).m2();
        const auto channel = [&](const std::string& key) {
            const toml::table& c = table(t, key, path, true);
            const std::string cpath = dotted(path, key);
            check_keys(c, cpath, {"masses", "coupling"});
            const toml::node* masses = c.get("masses");
            const toml::array* a = masses != nullptr ? masses->as_array() : nullptr;
            if (a == nullptr || a->size() != 2) {
                fail(masses != nullptr ? masses : &c, dotted(cpath, "masses"),
                     "expected two daughter masses [m1, m2]");
            }
            return amplitudes::FlatteChannel{real(a->get(0), dotted(cpath, "masses")),
                                             real(a->get(1), dotted(cpath, "masses")),
                                             real_key(c, "coupling", cpath)};
        };
        return amplitudes::flatte(s, real_key(t, "mass", path), channel("observed"),
                                  channel("alternative"));
    }

    // zlm (with the reaction's polarisation) or ylm, in the helicity or Gottfried-Jackson frame.
    Expr harmonic(const std::string& type, const toml::table& t, const std::string& path) {
        const int l = integer_or(t, "l", path, 0);
        const int m = integer_or(t, "m", path, 0);
        const physics::Angles a = angles(t, path);
        if (type == "ylm") {
            return physics::spherical_harmonic(l, m, a.costheta, a.phi);
        }
        const std::string r = string_or(t, "reflectivity", path, "+");
        if (r != "+" && r != "-") {
            fail(t.get("reflectivity"), dotted(path, "reflectivity"),
                 fmt::format("expected \"+\" or \"-\", got '{}'", r));
        }
        const auto pol = physics::Polarization::event(particles_.at(reaction_.beam).vec3(),
                                                      particles_.at(reaction_.recoil).vec3(),
                                                      reaction_.pol_magnitude, reaction_.pol_angle);
        return physics::zlm(
            l, m, r == "+" ? physics::Reflectivity::kPositive : physics::Reflectivity::kNegative,
            a.costheta, a.phi, pol.angle, pol.magnitude);
    }

    // coupling: re and im, or mag and phase.
    Expr coupling(const toml::table& t, const std::string& path) {
        const bool cartesian = t.contains("re") || t.contains("im");
        const bool polar = t.contains("mag") || t.contains("phase");
        if (cartesian == polar) {
            fail(&t, path, "a coupling needs either re and im, or mag and phase");
        }
        if (cartesian) {
            return expr::complex(real_key(t, "re", path), real_key(t, "im", path));
        }
        return expr::polar_complex(real_key(t, "mag", path), real_key(t, "phase", path));
    }

    // sum or incoherent_sum (whose terms must be real) of the named amplitudes.
    Expr sum(const std::string& type, const toml::table& t, const std::string& path) {
        const std::vector<Expr> terms = references(t, "terms", path);
        if (type == "incoherent_sum") {
            for (const Expr& term : terms) {
                if (!term.value_kind().is_real_scalar()) {
                    fail(t.get("terms"), dotted(path, "terms"),
                         "every term of an incoherent sum must be real (a norm_sqr)");
                }
            }
        }
        return expr::nary_add(terms);
    }

    // norm_sqr, real or imag of one named scalar amplitude.
    Expr part(const std::string& type, const toml::table& t, const std::string& path) {
        const toml::node* node = t.get("amplitude");
        if (node == nullptr) {
            fail(&t, dotted(path, "amplitude"), "missing (an amplitude name is required)");
        }
        const Expr of = reference(node, dotted(path, "amplitude"));
        if (!of.value_kind().is_scalar()) {
            fail(node, dotted(path, "amplitude"), "expected a scalar amplitude");
        }
        return type == "norm_sqr" ? expr::norm_sqr(of)
               : type == "real"   ? expr::real(of)
                                  : expr::imag(of);
    }

    // Declared parameters replace the definitions built-in amplitudes carry (so a model file
    // can fix, free or bound a benchmark coupling); an unused declaration is an error.
    Expr apply_declarations(const Expr& intensity) {
        std::set<std::string> present;
        for (const Expr& node : expr::topological_order(intensity)) {
            if (node.kind() == expr::NodeKind::kParameter) {
                present.insert(node.node().parameter->name);
            }
        }
        for (const auto& [name, d] : declared_) {
            if (!present.contains(name)) {
                fail(d.node, dotted("parameters", name),
                     "declared but not used by the intensity (remove it or use it)");
            }
        }
        return expr::rewrite_bottom_up(intensity, [&](const Expr& node) {
            if (node.kind() != expr::NodeKind::kParameter) {
                return node;
            }
            const auto found = declared_.find(node.node().parameter->name);
            if (found == declared_.end() || found->second.definition == *node.node().parameter) {
                return node;
            }
            Expr replacement = expr::parameter(found->second.definition);
            for (const std::string& tag : node.tags()) {
                replacement = replacement.tagged(tag);
            }
            return replacement;
        });
    }

    struct Declared {
        expr::Parameter definition;
        const toml::node* node = nullptr;
    };

    const toml::table& root_;
    const toml::table* amplitudes_ = nullptr;
    ReactionSpec reaction_;
    std::map<std::string, Vec4> particles_;
    std::map<std::string, Declared> declared_;
    std::map<std::string, Expr> built_;
    std::set<std::string> building_;
    std::vector<NamedAmplitude> named_;
};

// toml++ 3.3 parses a dotted key ([a.b.c], a.b.c = 1) recursively, one stack frame per part,
// so a key of 10^5 parts overflows the stack (fuzz_model_reader found it); it limits nested
// arrays and inline tables (TOML_MAX_NESTED_VALUES) but not these. A key of more than
// kMaxKeyParts parts is refused before toml++ sees it. The scan follows TOML's lexical
// structure just enough to count the dots of keys only: strings and comments are skipped, and a
// key runs from a line start (outside arrays and inline tables), a table header's '[', or an
// inline table's '{' or ',', to its '=' (or the header's ']').
constexpr int kMaxKeyParts = 256;

// The index of the last character of the comment or string that opens at text[i], counting the
// lines a multi-line string spans (the newline that ends a comment is left to the caller). A
// string runs to its closing quote: """ and ''' may span lines, and basic strings (") have
// backslash escapes.
std::size_t skip_comment_or_string(std::string_view text, std::size_t i, std::size_t& line,
                                   std::size_t& line_start) {
    const char c = text[i];
    if (c == '#') {
        while (i + 1 < text.size() && text[i + 1] != '\n') {
            ++i;
        }
        return i;
    }
    const bool multi = text.substr(i, 3) == std::string(3, c);
    const std::string_view close = multi ? text.substr(i, 3) : text.substr(i, 1);
    i += close.size();
    while (i < text.size() && text.substr(i, close.size()) != close) {
        if (text[i] == '\\' && c == '"') {
            ++i;
        } else if (text[i] == '\n') {
            ++line;
            line_start = i + 1;
        }
        ++i;
    }
    return i + close.size() - 1;
}

void check_key_depth(std::string_view text, const std::string& source) {
    std::vector<char> open;  // the arrays ('[') and inline tables ('{') the scan is inside
    bool in_key = true;
    int dots = 0;
    std::size_t line = 1;
    std::size_t line_start = 0;
    const auto key_starts = [&] {
        in_key = true;
        dots = 0;
    };
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '\n') {
            ++line;
            line_start = i + 1;
            if (open.empty()) {
                key_starts();
            }
        } else if (c == '#' || c == '"' || c == '\'') {
            i = skip_comment_or_string(text, i, line, line_start);
        } else if (in_key && c == '.' && ++dots >= kMaxKeyParts) {
            throw ModelError(fmt::format("{}:{}:{}: invalid TOML: a key of more than {} "
                                         "dotted parts",
                                         one_line(source), line, i - line_start + 1, kMaxKeyParts));
        } else if (in_key && (c == '=' || c == ']')) {
            in_key = false;
        } else if (!in_key && c == '[') {
            open.push_back(c);
        } else if (!in_key && c == '{') {
            open.push_back(c);
            key_starts();
        } else if (!in_key && (c == ']' || c == '}') && !open.empty()) {
            open.pop_back();
        } else if (!in_key && c == ',' && !open.empty() && open.back() == '{') {
            key_starts();
        }
    }
}

}  // namespace

ModelFile parse_model_file(std::string_view text, const std::string& source) {
    check_key_depth(text, source);
    toml::table root;
    try {
        root = toml::parse(text, source);
    } catch (const toml::parse_error& e) {
        const toml::source_position p = e.source().begin;
        throw ModelError(one_line(
            fmt::format("{}:{}:{}: invalid TOML: {}", source, p.line, p.column, e.description())));
    }
    return Reader(root, source).read();
}

ModelFile load_model_file(const std::string& path) {
    const std::ifstream in(path, std::ios::binary);
    if (!in) {
        throw ModelError(
            fmt::format("cannot open model file '{}' (no such file or not readable)", path));
    }
    std::ostringstream text;
    text << in.rdbuf();
    return parse_model_file(text.str(), path);
}

std::vector<std::string> builtin_model_names() {
    return {"kmatrix_benchmark"};
}

std::optional<ModelFile> builtin_model(std::string_view name) {
    if (name != "kmatrix_benchmark") {
        return std::nullopt;
    }
    ModelFile file;
    file.source = "builtin:kmatrix_benchmark";
    file.name = "kmatrix_benchmark";
    file.description = "laddu's K-matrix benchmark, gamma p -> Ks Ks p (waves tagged)";
    file.intensity = "kmatrix";
    file.model = amplitudes::kmatrix_benchmark_model({.tag_waves = true});
    file.tags = amplitudes::kmatrix_benchmark_wave_tags();
    file.amplitudes.push_back({"kmatrix", "kmatrix_benchmark", file.model.expression(), 0});
    return file;
}

ModelFile load_model(const std::string& spec) {
    if (std::optional<ModelFile> builtin = builtin_model(spec)) {
        return std::move(*builtin);
    }
    return load_model_file(spec);
}

}  // namespace laddu::cli
