// The expression-valued K-matrix blocks (laddu 0.21.4 laddu-amplitudes/src/kmatrix.rs): every
// input is an expression, so pole masses, couplings and backgrounds may be parameters. The
// double-based KMatrixDefinition API (k_matrix.cpp) feeds constants into these functions, so
// this file is the one place the K-matrix algebra lives.
#include <cmath>
#include <complex>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <laddu/amplitudes/barrier.hpp>
#include <laddu/amplitudes/k_matrix.hpp>
#include <laddu/amplitudes/two_body.hpp>
#include <laddu/base/error.hpp>

namespace laddu::amplitudes {

using expr::Expr;
using expr::NodeKind;
using expr::ValueKind;

namespace {

[[noreturn]] void shape_error(const char* function, const std::string& what) {
    throw ModelError(std::string(function) + ": " + what);
}

void require_scalar(const char* function, const char* name, const Expr& e) {
    if (!e.value_kind().is_scalar()) {
        shape_error(function,
                    std::string(name) + " must be a scalar, got " + to_string(e.value_kind()));
    }
}

// The length of a vector argument (throws naming the argument otherwise).
std::uint32_t vector_length(const char* function, const char* name, const Expr& e) {
    const ValueKind& kind = e.value_kind();
    if (kind.shape != expr::Shape::kVector) {
        shape_error(function, std::string(name) + " must be a vector, got " + to_string(kind));
    }
    return kind.rows;
}

void require_vector(const char* function, const char* name, const Expr& e, std::uint32_t len,
                    const std::string& why) {
    const ValueKind& kind = e.value_kind();
    if (kind.shape != expr::Shape::kVector || kind.rows != len) {
        shape_error(function, std::string(name) + " must be vector[" + std::to_string(len) + "] (" +
                                  why + "), got " + to_string(kind));
    }
}

void require_matrix(const char* function, const char* name, const Expr& e, std::uint32_t rows,
                    std::uint32_t cols, const std::string& why) {
    const ValueKind& kind = e.value_kind();
    if (kind.shape != expr::Shape::kMatrix || kind.rows != rows || kind.cols != cols) {
        shape_error(function, std::string(name) + " must be matrix[" + std::to_string(rows) + "x" +
                                  std::to_string(cols) + "] (" + why + "), got " + to_string(kind));
    }
}

// Element access that reads a literal vector/matrix node's child directly: the same value as a
// component node, without the extra node (and so the constant-input DAG stays as small as the
// plain double construction).
Expr entry(const Expr& v, std::uint32_t i) {
    return v.kind() == NodeKind::kVector ? v.children()[i] : expr::component(v, i);
}

Expr entry(const Expr& m, std::uint32_t row, std::uint32_t col) {
    if (m.kind() == NodeKind::kMatrix) {
        return m.children()[static_cast<std::size_t>(row) * m.value_kind().cols + col];
    }
    return expr::matrix_element(m, row, col);
}

bool is_real_constant(const Expr& e, double value) {
    return e.kind() == NodeKind::kRealConst && expr::constant_value(e).real() == value;
}

std::optional<double> real_constant(const Expr& e) {
    if (e.kind() != NodeKind::kRealConst) {
        return std::nullopt;
    }
    return expr::constant_value(e).real();
}

Expr product(const std::vector<Expr>& factors) {
    if (factors.empty()) {
        return 1.0;
    }
    return factors.size() == 1 ? factors.front() : expr::nary_mul(factors);
}

Expr sum(const std::vector<Expr>& terms) {
    if (terms.empty()) {
        return 0.0;
    }
    return terms.size() == 1 ? terms.front() : expr::nary_add(terms);
}

// m² for a pole mass; a constant is squared now rather than per event.
Expr square(const Expr& m) {
    if (const auto value = real_constant(m)) {
        return *value * *value;
    }
    return expr::powi(m, 2);
}

// The pole differences (m_α² - s), the full product Π_α and the complements Π_{β≠α}.
struct PoleProducts {
    Expr full;
    std::vector<Expr> complements;
};

PoleProducts pole_products(const Expr& s, const Expr& pole_masses, std::uint32_t poles) {
    std::vector<Expr> differences;
    differences.reserve(poles);
    for (std::uint32_t alpha = 0; alpha < poles; ++alpha) {
        differences.push_back(square(entry(pole_masses, alpha)) - s);
    }
    PoleProducts products{product(differences), {}};
    products.complements.reserve(poles);
    for (std::uint32_t alpha = 0; alpha < poles; ++alpha) {
        std::vector<Expr> others;
        for (std::uint32_t beta = 0; beta < poles; ++beta) {
            if (beta != alpha) {
                others.push_back(differences[beta]);
            }
        }
        products.complements.push_back(product(others));
    }
    return products;
}

// Shapes shared by k_matrix and p_vector (laddu's validate_pole_inputs); returns
// {channels, poles}.
std::pair<std::uint32_t, std::uint32_t> validate_pole_inputs(const char* function, const Expr& s,
                                                             const Expr& pole_masses,
                                                             const Expr& couplings,
                                                             const Expr& barriers) {
    require_scalar(function, "s", s);
    const std::uint32_t poles = vector_length(function, "pole_masses", pole_masses);
    const ValueKind& kind = couplings.value_kind();
    if (kind.shape != expr::Shape::kMatrix || kind.cols != poles) {
        shape_error(function, "couplings must be a channels x poles matrix with " +
                                  std::to_string(poles) + " pole columns (pole_masses is " +
                                  to_string(pole_masses.value_kind()) + "), got " +
                                  to_string(kind));
    }
    const std::uint32_t channels = kind.rows;
    require_matrix(function, "barriers", barriers, channels, poles, "channels x poles");
    return {channels, poles};
}

}  // namespace

Expr pole_product(const Expr& s, const Expr& pole_masses) {
    require_scalar("pole_product", "s", s);
    const std::uint32_t poles = vector_length("pole_product", "pole_masses", pole_masses);
    return pole_products(s, pole_masses, poles).full;
}

Expr blatt_weisskopf_barriers(const Expr& s, const Expr& channel_mass_1, const Expr& channel_mass_2,
                              const Expr& pole_masses, int l, double q_r) {
    constexpr const char* kFunction = "blatt_weisskopf_barriers";
    require_scalar(kFunction, "s", s);
    const std::uint32_t channels = vector_length(kFunction, "channel_mass_1", channel_mass_1);
    require_vector(kFunction, "channel_mass_2", channel_mass_2, channels,
                   "one entry per channel, like channel_mass_1");
    const std::uint32_t poles = vector_length(kFunction, "pole_masses", pole_masses);
    if (l < 0 || l > kMaxBarrierL) {
        shape_error(kFunction, "l = " + std::to_string(l) + " is not supported; use 0 <= l <= " +
                                   std::to_string(kMaxBarrierL));
    }
    if (!(q_r > 0.0) || !std::isfinite(q_r)) {
        shape_error(kFunction, "q_r must be positive and finite");
    }
    std::vector<Expr> elements;
    elements.reserve(std::size_t{channels} * poles);
    for (std::uint32_t i = 0; i < channels; ++i) {
        if (l == 0) {
            // F_0 = 1 at every momentum: the ratio is exactly 1.
            elements.insert(elements.end(), poles, Expr(1.0));
            continue;
        }
        const Expr m1 = entry(channel_mass_1, i);
        const Expr m2 = entry(channel_mass_2, i);
        const Expr numerator = blatt_weisskopf(breakup_momentum(s, m1, m2), l, q_r);
        for (std::uint32_t alpha = 0; alpha < poles; ++alpha) {
            const Expr m = entry(pole_masses, alpha);
            const auto mv = real_constant(m);
            const auto m1v = real_constant(m1);
            const auto m2v = real_constant(m2);
            if (mv && m1v && m2v) {
                // All constant: evaluate F_L(q(m_α²)) now instead of per event.
                const std::complex<double> at_pole =
                    blatt_weisskopf_value(breakup_momentum_value(*mv * *mv, *m1v, *m2v), l, q_r);
                elements.push_back(numerator /
                                   (at_pole.imag() == 0.0 ? Expr(at_pole.real()) : Expr(at_pole)));
            } else {
                elements.push_back(numerator /
                                   blatt_weisskopf(breakup_momentum(square(m), m1, m2), l, q_r));
            }
        }
    }
    return expr::matrix(channels, poles, std::move(elements));
}

Expr k_matrix(const Expr& s, const Expr& pole_masses, const Expr& couplings, const Expr& barriers,
              const std::optional<Expr>& background) {
    constexpr const char* kFunction = "k_matrix";
    const auto [channels, poles] =
        validate_pole_inputs(kFunction, s, pole_masses, couplings, barriers);
    if (background) {
        require_matrix(kFunction, "background", *background, channels, channels,
                       "channels x channels");
    }
    const PoleProducts products = pole_products(s, pole_masses, poles);
    std::vector<Expr> elements;
    elements.reserve(std::size_t{channels} * channels);
    for (std::uint32_t i = 0; i < channels; ++i) {
        for (std::uint32_t j = 0; j < channels; ++j) {
            // K'_ij = Σ_α g_iα g_jα B_iα B_jα Π_{β≠α} + c_ij Π (laddu's k_matrix_impl).
            std::vector<Expr> terms;
            for (std::uint32_t alpha = 0; alpha < poles; ++alpha) {
                const Expr gi = entry(couplings, i, alpha);
                const Expr gj = entry(couplings, j, alpha);
                const auto giv = real_constant(gi);
                const auto gjv = real_constant(gj);
                std::vector<Expr> factors{giv && gjv ? Expr(*giv * *gjv) : gi * gj};
                // A barrier of exactly 1 (L = 0) multiplies nothing: leave it out.
                for (const Expr& b : {entry(barriers, i, alpha), entry(barriers, j, alpha)}) {
                    if (!is_real_constant(b, 1.0)) {
                        factors.push_back(b);
                    }
                }
                factors.push_back(products.complements[alpha]);
                terms.push_back(product(factors));
            }
            if (background) {
                const Expr c = entry(*background, i, j);
                if (!is_real_constant(c, 0.0)) {
                    terms.push_back(c * products.full);
                }
            }
            elements.push_back(sum(terms));
        }
    }
    return expr::matrix(channels, channels, std::move(elements));
}

Expr p_vector(const Expr& s, const Expr& pole_masses, const Expr& production, const Expr& couplings,
              const Expr& barriers, const std::optional<Expr>& background) {
    constexpr const char* kFunction = "p_vector";
    const auto [channels, poles] =
        validate_pole_inputs(kFunction, s, pole_masses, couplings, barriers);
    require_vector(kFunction, "production", production, poles, "one coupling per pole");
    if (background) {
        require_vector(kFunction, "background", *background, channels, "one entry per channel");
    }
    const PoleProducts products = pole_products(s, pole_masses, poles);
    std::vector<Expr> elements;
    elements.reserve(channels);
    for (std::uint32_t i = 0; i < channels; ++i) {
        // P'_i = Σ_α β_α g_iα B_iα Π_{β≠α} + b_i Π (laddu's p_vector_impl).
        std::vector<Expr> terms;
        for (std::uint32_t alpha = 0; alpha < poles; ++alpha) {
            std::vector<Expr> factors{entry(production, alpha), entry(couplings, i, alpha)};
            if (const Expr b = entry(barriers, i, alpha); !is_real_constant(b, 1.0)) {
                factors.push_back(b);
            }
            factors.push_back(products.complements[alpha]);
            terms.push_back(product(factors));
        }
        if (background) {
            const Expr b = entry(*background, i);
            if (!is_real_constant(b, 0.0)) {
                terms.push_back(b * products.full);
            }
        }
        elements.push_back(sum(terms));
    }
    return expr::vector(std::move(elements));
}

Expr f_vector(const Expr& s, const Expr& pole_masses, const Expr& k, const Expr& p,
              const Expr& phase_space) {
    constexpr const char* kFunction = "f_vector";
    require_scalar(kFunction, "s", s);
    const std::uint32_t poles = vector_length(kFunction, "pole_masses", pole_masses);
    const std::uint32_t channels = vector_length(kFunction, "p", p);
    require_matrix(kFunction, "k", k, channels, channels, "channels x channels, like p");
    const bool diagonal_vector = phase_space.value_kind().shape == expr::Shape::kVector;
    if (diagonal_vector) {
        require_vector(kFunction, "phase_space", phase_space, channels,
                       "a channel vector or a channels x channels matrix");
    } else {
        require_matrix(kFunction, "phase_space", phase_space, channels, channels,
                       "a channel vector or a channels x channels matrix");
    }
    const Expr pi = pole_products(s, pole_masses, poles).full;
    // C[k][j], with known-zero entries (off the diagonal of a vector) as nullopt.
    const auto c_entry = [&](std::uint32_t row, std::uint32_t col) -> std::optional<Expr> {
        if (diagonal_vector) {
            return row == col ? std::optional<Expr>(entry(phase_space, row)) : std::nullopt;
        }
        Expr e = entry(phase_space, row, col);
        return is_real_constant(e, 0.0) ? std::nullopt : std::optional<Expr>(std::move(e));
    };
    // Π I + K' C (laddu's f_vector); a diagonal C makes (K' C)_ij = K'_ij C_jj, so the
    // products with known zeros are never built.
    std::vector<Expr> system;
    system.reserve(std::size_t{channels} * channels);
    for (std::uint32_t i = 0; i < channels; ++i) {
        for (std::uint32_t j = 0; j < channels; ++j) {
            std::vector<Expr> terms;
            for (std::uint32_t m = 0; m < channels; ++m) {
                if (const auto c = c_entry(m, j)) {
                    terms.push_back(entry(k, i, m) * *c);
                }
            }
            Expr element = sum(terms);
            if (i == j) {
                element = pi + element;
            }
            system.push_back(std::move(element));
        }
    }
    return expr::solve(expr::matrix(channels, channels, std::move(system)), p);
}

}  // namespace laddu::amplitudes
