#include <complex>
#include <string>

#include <laddu/amplitudes/chew_mandelstam.hpp>
#include <laddu/amplitudes/k_matrix.hpp>
#include <laddu/amplitudes/two_body.hpp>
#include <laddu/base/error.hpp>

namespace laddu::amplitudes {

using expr::Expr;

namespace {

// Per-event pieces shared by K', P' and F, built once per f_vector call.
struct Pieces {
    std::vector<Expr> barriers;          // B[i * poles + α]; empty when l == 0 (B = 1)
    std::vector<Expr> pole_complements;  // Π_{β≠α} (m_β² - s)
    Expr pole_product;                   // Π_α (m_α² - s)
};

Expr product(const std::vector<Expr>& factors) {
    if (factors.empty()) {
        return 1.0;
    }
    return factors.size() == 1 ? factors.front() : expr::nary_mul(factors);
}

Pieces make_pieces(const KMatrixDefinition& d, const Expr& s) {
    d.validate();
    Pieces pieces{{}, {}, 1.0};
    std::vector<Expr> differences;
    differences.reserve(d.poles());
    for (const double m : d.pole_masses) {
        differences.push_back(m * m - s);
    }
    pieces.pole_product = product(differences);
    for (std::size_t alpha = 0; alpha < d.poles(); ++alpha) {
        std::vector<Expr> others;
        for (std::size_t beta = 0; beta < d.poles(); ++beta) {
            if (beta != alpha) {
                others.push_back(differences[beta]);
            }
        }
        pieces.pole_complements.push_back(product(others));
    }
    if (d.l != 0) {
        pieces.barriers.reserve(d.channels() * d.poles());
        for (std::size_t i = 0; i < d.channels(); ++i) {
            const double m1 = d.channel_mass_1[i];
            const double m2 = d.channel_mass_2[i];
            const Expr numerator = blatt_weisskopf(breakup_momentum(s, m1, m2), d.l, d.q_r);
            for (const double m : d.pole_masses) {
                // The pole-mass factor is a constant: evaluate it now, not per event.
                const std::complex<double> at_pole =
                    blatt_weisskopf_value(breakup_momentum_value(m * m, m1, m2), d.l, d.q_r);
                pieces.barriers.push_back(
                    numerator / (at_pole.imag() == 0.0 ? Expr(at_pole.real()) : Expr(at_pole)));
            }
        }
    }
    return pieces;
}

// B_iα B_jα (1 when l == 0, represented by an empty optional product).
std::vector<Expr> barrier_pair(const Pieces& p, std::size_t poles, std::size_t i, std::size_t j,
                               std::size_t alpha) {
    if (p.barriers.empty()) {
        return {};
    }
    return {p.barriers[i * poles + alpha], p.barriers[j * poles + alpha]};
}

Expr cleared_k_element(const KMatrixDefinition& d, const Pieces& p, const Expr& s, std::size_t i,
                       std::size_t j) {
    const std::size_t poles = d.poles();
    std::vector<Expr> terms;
    for (std::size_t alpha = 0; alpha < poles; ++alpha) {
        std::vector<Expr> factors{Expr(d.couplings[i][alpha] * d.couplings[j][alpha])};
        for (Expr& b : barrier_pair(p, poles, i, j, alpha)) {
            factors.push_back(std::move(b));
        }
        factors.push_back(p.pole_complements[alpha]);
        terms.push_back(product(factors));
    }
    const double c = d.background.empty() ? 0.0 : d.background[i][j];
    if (c != 0.0) {
        // Σ_α B_iα c_ij B_jα: the background sits inside the pole sum (laddu, §3.4).
        Expr background = 0.0;
        if (p.barriers.empty()) {
            background = Expr(c * static_cast<double>(poles));
        } else {
            std::vector<Expr> parts;
            parts.reserve(poles);
            for (std::size_t alpha = 0; alpha < poles; ++alpha) {
                parts.push_back(c * p.barriers[i * poles + alpha] * p.barriers[j * poles + alpha]);
            }
            background = expr::nary_add(parts);
        }
        terms.push_back(background * p.pole_product);
    }
    Expr element = terms.size() == 1 ? terms.front() : expr::nary_add(terms);
    if (d.adler_zero) {
        element = ((s - d.adler_zero->s0) / d.adler_zero->s_norm) * element;
    }
    return element;
}

std::vector<Expr> cleared_p_elements(const KMatrixDefinition& d, const Pieces& p,
                                     std::span<const Expr> production) {
    if (production.size() != d.poles()) {
        throw ModelError("K-matrix: " + std::to_string(production.size()) +
                         " production couplings given for " + std::to_string(d.poles()) +
                         " poles; pass one complex coupling per pole, in pole order");
    }
    const std::size_t poles = d.poles();
    std::vector<Expr> elements;
    for (std::size_t i = 0; i < d.channels(); ++i) {
        std::vector<Expr> terms;
        for (std::size_t alpha = 0; alpha < poles; ++alpha) {
            std::vector<Expr> factors{production[alpha], Expr(d.couplings[i][alpha])};
            if (!p.barriers.empty()) {
                factors.push_back(p.barriers[i * poles + alpha]);
            }
            factors.push_back(p.pole_complements[alpha]);
            terms.push_back(product(factors));
        }
        elements.push_back(terms.size() == 1 ? terms.front() : expr::nary_add(terms));
    }
    return elements;
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
    return make_pieces(definition, s).pole_product;
}

Expr blatt_weisskopf_barriers(const KMatrixDefinition& definition, const Expr& s) {
    const Pieces p = make_pieces(definition, s);
    const auto rows = static_cast<std::uint32_t>(definition.channels());
    const auto cols = static_cast<std::uint32_t>(definition.poles());
    if (p.barriers.empty()) {
        return expr::matrix(rows, cols, std::vector<Expr>(std::size_t{rows} * cols, Expr(1.0)));
    }
    return expr::matrix(rows, cols, p.barriers);
}

Expr k_matrix(const KMatrixDefinition& definition, const Expr& s) {
    const Pieces p = make_pieces(definition, s);
    const std::size_t n = definition.channels();
    std::vector<Expr> elements;
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = 0; j < n; ++j) {
            elements.push_back(cleared_k_element(definition, p, s, i, j));
        }
    }
    const auto size = static_cast<std::uint32_t>(n);
    return expr::matrix(size, size, std::move(elements));
}

Expr p_vector(const KMatrixDefinition& definition, const Expr& s,
              std::span<const Expr> production) {
    const Pieces p = make_pieces(definition, s);
    return expr::vector(cleared_p_elements(definition, p, production));
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
    const Pieces p = make_pieces(definition, s);
    std::vector<Expr> rhs = cleared_p_elements(definition, p, production);
    const std::size_t n = definition.channels();
    std::vector<Expr> closing;
    closing.reserve(n);
    for (std::size_t j = 0; j < n; ++j) {
        closing.push_back(phase_space_entry(definition, s, j, phase_space));
    }
    // Π I + K' C with C diagonal: (K' C)_ij = K'_ij C_j, built directly (no matmul with zeros).
    std::vector<Expr> elements;
    elements.reserve(n * n);
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = 0; j < n; ++j) {
            Expr element = cleared_k_element(definition, p, s, i, j) * closing[j];
            if (i == j) {
                element = p.pole_product + element;
            }
            elements.push_back(std::move(element));
        }
    }
    const auto size = static_cast<std::uint32_t>(n);
    return expr::solve(expr::matrix(size, size, std::move(elements)), expr::vector(std::move(rhs)));
}

}  // namespace laddu::amplitudes
