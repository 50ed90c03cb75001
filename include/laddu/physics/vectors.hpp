// laddu/physics/vectors.hpp: three- and four-vectors whose components are expressions.
//
// Four-vectors are (E, px, py, pz) with the metric (+, -, -, -), as in laddu >= 0.20. Every
// operation builds expression nodes, so kinematics read from event columns become per-event
// cache entries after compilation. Components are Real expressions.
//
// Example:
//   auto kk = Vec4::event("kshort1") + Vec4::event("kshort2");
//   Expr s = kk.m2();
//   Vec4 k1_in_kk = Vec4::event("kshort1").boost(-kk.beta());
#pragma once

#include <string>

#include <laddu/expr/expr.hpp>

namespace laddu::physics {

class Vec4;

/// A three-vector of Real expressions.
class Vec3 {
public:
    /// The vector (x, y, z).
    Vec3(expr::Expr x, expr::Expr y, expr::Expr z);

    /// The zero vector.
    [[nodiscard]] static Vec3 zero();

    /// The unit vector along x.
    [[nodiscard]] static Vec3 x_axis();

    /// The unit vector along y.
    [[nodiscard]] static Vec3 y_axis();

    /// The unit vector along z.
    [[nodiscard]] static Vec3 z_axis();

    /// The momentum of the event four-vector `name` (its px, py, pz).
    [[nodiscard]] static Vec3 event(const std::string& name);

    /// The x component.
    [[nodiscard]] const expr::Expr& x() const { return x_; }

    /// The y component.
    [[nodiscard]] const expr::Expr& y() const { return y_; }

    /// The z component.
    [[nodiscard]] const expr::Expr& z() const { return z_; }

    /// The Euclidean dot product.
    [[nodiscard]] expr::Expr dot(const Vec3& other) const;

    /// The cross product this × other.
    [[nodiscard]] Vec3 cross(const Vec3& other) const;

    /// |v|².
    [[nodiscard]] expr::Expr mag2() const;

    /// |v|.
    [[nodiscard]] expr::Expr mag() const;

    /// v / |v|.
    [[nodiscard]] Vec3 unit() const;

    /// cos of the polar angle, z / |v|.
    [[nodiscard]] expr::Expr costheta() const;

    /// The azimuth atan2(y, x).
    [[nodiscard]] expr::Expr phi() const;

    /// The four-vector (sqrt(m² + |v|²), v).
    [[nodiscard]] Vec4 with_mass(const expr::Expr& mass) const;

    /// The four-vector (energy, v).
    [[nodiscard]] Vec4 with_energy(const expr::Expr& energy) const;

private:
    expr::Expr x_;
    expr::Expr y_;
    expr::Expr z_;
};

/// Component-wise sum.
[[nodiscard]] Vec3 operator+(const Vec3& a, const Vec3& b);
/// Component-wise difference.
[[nodiscard]] Vec3 operator-(const Vec3& a, const Vec3& b);
/// Negation.
[[nodiscard]] Vec3 operator-(const Vec3& a);
/// Scaling by a Real scalar.
[[nodiscard]] Vec3 operator*(const Vec3& a, const expr::Expr& k);
/// Scaling by a Real scalar.
[[nodiscard]] Vec3 operator*(const expr::Expr& k, const Vec3& a);
/// Division by a Real scalar.
[[nodiscard]] Vec3 operator/(const Vec3& a, const expr::Expr& k);

/// A four-vector (E, px, py, pz) of Real expressions with the (+, -, -, -) metric.
class Vec4 {
public:
    /// The four-vector (e, px, py, pz).
    Vec4(expr::Expr e, expr::Expr px, expr::Expr py, expr::Expr pz);

    /// The four-vector (e, p).
    Vec4(expr::Expr e, const Vec3& p);

    /// The event four-momentum column `name` (read as name.e, name.px, name.py, name.pz).
    [[nodiscard]] static Vec4 event(const std::string& name);

    /// The energy.
    [[nodiscard]] const expr::Expr& e() const { return e_; }

    /// The x momentum.
    [[nodiscard]] const expr::Expr& px() const { return p_.x(); }

    /// The y momentum.
    [[nodiscard]] const expr::Expr& py() const { return p_.y(); }

    /// The z momentum.
    [[nodiscard]] const expr::Expr& pz() const { return p_.z(); }

    /// The three-momentum.
    [[nodiscard]] const Vec3& vec3() const { return p_; }

    /// The three-momentum (laddu's alias of vec3()).
    [[nodiscard]] const Vec3& momentum() const { return p_; }

    /// The Minkowski product E₁E₂ - p₁·p₂.
    [[nodiscard]] expr::Expr dot(const Vec4& other) const;

    /// The invariant mass squared E² - |p|².
    [[nodiscard]] expr::Expr m2() const;

    /// The invariant mass sqrt(m2()) (Real; NaN for a space-like vector).
    [[nodiscard]] expr::Expr m() const;

    /// laddu's alias of m2().
    [[nodiscard]] expr::Expr mag2() const { return m2(); }

    /// laddu's alias of m().
    [[nodiscard]] expr::Expr mag() const { return m(); }

    /// The velocity p / E.
    [[nodiscard]] Vec3 beta() const;

    /// The Lorentz factor E / m.
    [[nodiscard]] expr::Expr gamma() const;

    /// This vector boosted by velocity `beta` (a vector at rest acquires velocity beta):
    /// γ = 1/√(1-β²), p' = p + β (γ²/(γ+1) (p·β) + γE), E' = γ (E + β·p).
    [[nodiscard]] Vec4 boost(const Vec3& beta) const;

    /// This vector in the rest frame of `frame`: boost(-frame.beta()).
    [[nodiscard]] Vec4 boost_to_rest_frame_of(const Vec4& frame) const;

private:
    expr::Expr e_;
    Vec3 p_;
};

/// Component-wise sum.
[[nodiscard]] Vec4 operator+(const Vec4& a, const Vec4& b);
/// Component-wise difference.
[[nodiscard]] Vec4 operator-(const Vec4& a, const Vec4& b);
/// Negation of all four components (laddu's symbolic Vec4 convention).
[[nodiscard]] Vec4 operator-(const Vec4& a);

}  // namespace laddu::physics
