// laddu/physics/frames.hpp: rest frames reached by boosts, axes, and decay angles.
//
// A Frame is laddu's VertexFrame chain: start in the lab, boost into the rest frame of a first
// four-vector (usually the centre of momentum), then into the rest frame of the next one as
// seen in the current frame, and so on. Only pure boosts are used, no rotations, which is the
// helicity-frame chain of laddu's vertex frames.
//
// Angles follow laddu: costheta = p·ẑ/|p| with ẑ = unit(z_axis); the azimuth uses
// ẑ = unit(z_axis), ŷ = unit(y_hint - ẑ (y_hint·ẑ)), x̂ = ŷ × ẑ and phi = atan2(p·ŷ, p·x̂).
#pragma once

#include <vector>

#include <laddu/expr/expr.hpp>
#include <laddu/physics/vectors.hpp>

namespace laddu::physics {

/// A right-handed orthonormal basis.
struct Axes {
    Vec3 x;  ///< x̂ = ŷ × ẑ
    Vec3 y;  ///< ŷ, the y hint with its ẑ part removed
    Vec3 z;  ///< ẑ

    /// Axes from a z direction and a y hint (need not be orthogonal or normalised).
    [[nodiscard]] static Axes from_z_and_y_hint(const Vec3& z_axis, const Vec3& y_hint);
};

/// The polar and azimuthal angles of a momentum in some axes.
struct Angles {
    expr::Expr costheta;  ///< cos θ
    expr::Expr theta;     ///< θ in [0, π], see theta()
    expr::Expr phi;       ///< φ in (-π, π]
};

/// cos θ of `p` about `z_axis`: p·ẑ / |p|.
[[nodiscard]] expr::Expr costheta(const Vec3& p, const Vec3& z_axis);

/// The polar angle of `p` about `z_axis`, as atan2(|p × ẑ|, p·ẑ) (robust where acos(cos θ)
/// would see |cos θ| > 1 from rounding).
[[nodiscard]] expr::Expr theta(const Vec3& p, const Vec3& z_axis);

/// The azimuth of `p` in `axes`: atan2(p·ŷ, p·x̂).
[[nodiscard]] expr::Expr phi(const Vec3& p, const Axes& axes);

/// cos θ, θ and φ of `p` with the axes built from `z_axis` and `y_hint`.
[[nodiscard]] Angles angles(const Vec3& p, const Vec3& z_axis, const Vec3& y_hint);

/// A frame reached from the lab by a chain of pure boosts.
class Frame {
public:
    /// The lab frame (no boost).
    [[nodiscard]] static Frame lab();

    /// This frame followed by a boost into the rest frame of `lab_vector` (given in the lab;
    /// it is first carried into this frame).
    [[nodiscard]] Frame then_rest_frame_of(const Vec4& lab_vector) const;

    /// The lab four-vector `lab_vector` expressed in this frame.
    [[nodiscard]] Vec4 transform(const Vec4& lab_vector) const;

    /// The three-momentum of `lab_vector` in this frame.
    [[nodiscard]] Vec3 vec3(const Vec4& lab_vector) const { return transform(lab_vector).vec3(); }

    /// Number of boosts in the chain.
    [[nodiscard]] std::size_t depth() const { return steps_.size(); }

private:
    std::vector<Vec3> steps_;  // velocity of each step's rest frame, in the frame before it
};

}  // namespace laddu::physics
