// The double-based K-matrix API: a KMatrixDefinition becomes constant vector and matrix
// expressions fed to the expression-valued blocks of k_matrix_blocks.cpp, which hold the one
// implementation of the algebra. The blocks fold constant products (g_i g_j, m², the barrier
// at the pole) as they build, so the constant DAG is the same one a direct construction makes.
#include <complex>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <laddu/amplitudes/chew_mandelstam.hpp>
#include <laddu/amplitudes/k_matrix.hpp>
#include <laddu/amplitudes/two_body.hpp>
#include <laddu/base/error.hpp>

namespace laddu::amplitudes {

using expr::Expr;

namespace {

Expr constant_vector(const std::vector<double>& values) {
    return expr::vector(std::vector<Expr>(values.begin(), values.end()));
}

Expr constant_matrix(const std::vector<std::vector<double>>& rows) {
    std::vector<Expr> elements;
    for (const auto& row : rows) {
        elements.insert(elements.end(), row.begin(), row.end());
    }
    return expr::matrix(static_cast<std::uint32_t>(rows.size()),
                        static_cast<std::uint32_t>(rows.front().size()), std::move(elements));
}

// The constant inputs shared by K', P' and F.
struct Inputs {
    Expr pole_masses;
    Expr couplings;
    Expr barriers;
};

Inputs make_inputs(const KMatrixDefinition& d, const Expr& s) {
    d.validate();
    Expr pole_masses = constant_vector(d.pole_masses);
    Expr barriers =
        blatt_weisskopf_barriers(s, constant_vector(d.channel_mass_1),
                                 constant_vector(d.channel_mass_2), pole_masses, d.l, d.q_r);
    return {std::move(pole_masses), constant_matrix(d.couplings), std::move(barriers)};
}

// Kopf's background sits inside the pole sum, Σ_α B_iα c_ij B_jα (laddu kopf.rs builds the
// same matrix before calling k_matrix_with_background); with L = 0 that is c_ij · poles.
std::optional<Expr> kopf_background(const KMatrixDefinition& d, const Expr& barriers) {
    if (d.background.empty()) {
        return std::nullopt;
    }
    const std::size_t n = d.channels();
    const std::size_t poles = d.poles();
    const auto b = barriers.children();
    std::vector<Expr> elements;
    elements.reserve(n * n);
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = 0; j < n; ++j) {
            const double c = d.background[i][j];
            if (d.l == 0 || c == 0.0) {  // an entry of exactly 0 adds no term to K'
                elements.emplace_back(c * static_cast<double>(poles));
                continue;
            }
            std::vector<Expr> parts;
            parts.reserve(poles);
            for (std::size_t alpha = 0; alpha < poles; ++alpha) {
                parts.push_back(c * b[i * poles + alpha] * b[j * poles + alpha]);
            }
            elements.push_back(expr::nary_add(parts));
        }
    }
    const auto size = static_cast<std::uint32_t>(n);
    return expr::matrix(size, size, std::move(elements));
}

Expr cleared_k(const KMatrixDefinition& d, const Inputs& in, const Expr& s) {
    Expr k =
        k_matrix(s, in.pole_masses, in.couplings, in.barriers, kopf_background(d, in.barriers));
    if (!d.adler_zero) {
        return k;
    }
    // laddu's Kopf multiplies every element of K' by A(s) after building it.
    const Expr adler = (s - d.adler_zero->s0) / d.adler_zero->s_norm;
    std::vector<Expr> elements;
    elements.reserve(k.children().size());
    for (const Expr& element : k.children()) {
        elements.push_back(adler * element);
    }
    const auto size = static_cast<std::uint32_t>(d.channels());
    return expr::matrix(size, size, std::move(elements));
}

Expr cleared_p(const KMatrixDefinition& d, const Inputs& in, const Expr& s,
               std::span<const Expr> production) {
    if (production.size() != d.poles()) {
        throw ModelError("K-matrix: " + std::to_string(production.size()) +
                         " production couplings given for " + std::to_string(d.poles()) +
                         " poles; pass one complex coupling per pole, in pole order");
    }
    return p_vector(s, in.pole_masses, expr::vector({production.begin(), production.end()}),
                    in.couplings, in.barriers);
}

Expr phase_space_entry(const KMatrixDefinition& d, const Expr& s, std::size_t channel,
                       PhaseSpace phase_space) {
    const double m1 = d.channel_mass_1[channel];
    const double m2 = d.channel_mass_2[channel];
    if (phase_space == PhaseSpace::kChewMandelstam) {
        return chew_mandelstam(s, m1, m2);
    }
    return Expr(std::complex<double>(0.0, -1.0)) * phase_space_factor(s, m1, m2);
}

}  // namespace

void KMatrixDefinition::validate() const {
    const auto fail = [](const std::string& what) {
        throw ModelError("K-matrix definition: " + what);
    };
    if (pole_masses.empty() || channel_mass_1.empty()) {
        fail("needs at least one pole and one channel");
    }
    if (channel_mass_2.size() != channel_mass_1.size()) {
        fail("channel_mass_1 has " + std::to_string(channel_mass_1.size()) +
             " entries but channel_mass_2 has " + std::to_string(channel_mass_2.size()));
    }
    if (couplings.size() != channels()) {
        fail("couplings has " + std::to_string(couplings.size()) + " rows; need one per channel (" +
             std::to_string(channels()) + ")");
    }
    for (const auto& row : couplings) {
        if (row.size() != poles()) {
            fail("a couplings row has " + std::to_string(row.size()) +
                 " entries; need one per pole (" + std::to_string(poles()) + ")");
        }
    }
    if (!background.empty()) {
        if (background.size() != channels()) {
            fail("background must be channels x channels (" + std::to_string(channels()) + ")");
        }
        for (const auto& row : background) {
            if (row.size() != channels()) {
                fail("background must be channels x channels (" + std::to_string(channels()) + ")");
            }
        }
    }
    for (std::size_t i = 0; i < channels(); ++i) {
        if (!(channel_mass_1[i] > 0.0) || !(channel_mass_2[i] > 0.0)) {
            fail("channel masses must be positive (channel " + std::to_string(i) + ")");
        }
    }
    if (l < 0 || l > kMaxBarrierL) {
        fail("l = " + std::to_string(l) +
             " is not supported; use 0 <= l <= " + std::to_string(kMaxBarrierL));
    }
    if (!(q_r > 0.0)) {
        fail("q_r must be positive");
    }
    if (adler_zero && adler_zero->s_norm == 0.0) {
        fail("the Adler zero's s_norm must be non-zero");
    }
}

Expr pole_product(const KMatrixDefinition& definition, const Expr& s) {
    definition.validate();
    return pole_product(s, constant_vector(definition.pole_masses));
}

Expr blatt_weisskopf_barriers(const KMatrixDefinition& definition, const Expr& s) {
    return make_inputs(definition, s).barriers;
}

Expr k_matrix(const KMatrixDefinition& definition, const Expr& s) {
    return cleared_k(definition, make_inputs(definition, s), s);
}

Expr p_vector(const KMatrixDefinition& definition, const Expr& s,
              std::span<const Expr> production) {
    return cleared_p(definition, make_inputs(definition, s), s, production);
}

Expr phase_space_matrix(const KMatrixDefinition& definition, const Expr& s,
                        PhaseSpace phase_space) {
    definition.validate();
    const std::size_t n = definition.channels();
    std::vector<Expr> elements(n * n, Expr(0.0));
    for (std::size_t i = 0; i < n; ++i) {
        elements[i * n + i] = phase_space_entry(definition, s, i, phase_space);
    }
    const auto size = static_cast<std::uint32_t>(n);
    return expr::matrix(size, size, std::move(elements));
}

Expr f_vector(const KMatrixDefinition& definition, const Expr& s, std::span<const Expr> production,
              PhaseSpace phase_space) {
    const Inputs in = make_inputs(definition, s);
    return f_vector(s, in.pole_masses, cleared_k(definition, in, s),
                    cleared_p(definition, in, s, production),
                    phase_space_matrix(definition, s, phase_space));
}

}  // namespace laddu::amplitudes
