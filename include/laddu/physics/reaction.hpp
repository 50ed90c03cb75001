// laddu/physics/reaction.hpp: a 2 → 2 production followed by a two-body decay.
//
// The topology of laddu's benchmark channel (γ p → X p, X → a b) as a small value type: the
// beam, target, resonance X and recoil four-vectors in the lab, with the Mandelstam invariants,
// the CM and resonance rest frames (boost chain lab → CM → X, laddu's VertexFrame), and the
// decay angles in the helicity and Gottfried-Jackson frames. Both frames use the production
// normal y = -(beam × recoil) in the CM as y hint, as laddu's benchmark does.
#pragma once

#include <string>

#include <laddu/expr/expr.hpp>
#include <laddu/physics/frames.hpp>
#include <laddu/physics/vectors.hpp>

namespace laddu::physics {

/// beam + target → resonance + recoil, with the resonance decaying to two bodies.
class Reaction {
public:
    /// All four lab four-vectors given.
    Reaction(Vec4 beam, Vec4 target, Vec4 resonance, Vec4 recoil);

    /// The target inferred by momentum conservation: resonance + recoil - beam (laddu infers a
    /// missing edge the same way).
    [[nodiscard]] static Reaction with_inferred_target(const Vec4& beam, const Vec4& resonance,
                                                       const Vec4& recoil);

    /// The beam four-vector (lab).
    [[nodiscard]] const Vec4& beam() const { return beam_; }

    /// The target four-vector (lab).
    [[nodiscard]] const Vec4& target() const { return target_; }

    /// The resonance four-vector (lab).
    [[nodiscard]] const Vec4& resonance() const { return resonance_; }

    /// The recoil four-vector (lab).
    [[nodiscard]] const Vec4& recoil() const { return recoil_; }

    /// s = (beam + target)².
    [[nodiscard]] expr::Expr s() const;

    /// t = (beam - resonance)², the momentum transfer to the resonance.
    [[nodiscard]] expr::Expr t() const;

    /// u = (beam - recoil)².
    [[nodiscard]] expr::Expr u() const;

    /// The resonance mass squared (laddu's channel.s("kk")).
    [[nodiscard]] expr::Expr resonance_s() const { return resonance_.m2(); }

    /// The centre-of-momentum frame of beam + target.
    [[nodiscard]] Frame cm_frame() const;

    /// The resonance rest frame reached lab → CM → resonance.
    [[nodiscard]] Frame resonance_frame() const;

    /// The production-plane normal used as y hint: -(beam × recoil), CM three-momenta.
    [[nodiscard]] Vec3 production_normal() const;

    /// Angles of `daughter` (lab) in the helicity frame: z = -recoil in the resonance frame.
    [[nodiscard]] Angles helicity_angles(const Vec4& daughter) const;

    /// Angles of `daughter` (lab) in the Gottfried-Jackson frame: z = beam in the resonance
    /// frame.
    [[nodiscard]] Angles gottfried_jackson_angles(const Vec4& daughter) const;

private:
    Vec4 beam_;
    Vec4 target_;
    Vec4 resonance_;
    Vec4 recoil_;
};

/// laddu's angle Φ between the photon polarisation vector P = (cos α, sin α, 0) (α =
/// `pol_angle`) and the production plane: n̂ = unit(beam × (-recoil)),
/// Φ = atan2(n̂·P, unit(beam)·(P × n̂)); beam and recoil are lab three-momenta.
[[nodiscard]] expr::Expr polarization_angle(const Vec3& beam, const Vec3& recoil,
                                            const expr::Expr& pol_angle);

/// The linear polarisation of a photon beam: degree P_γ and angle Φ to the production plane.
struct Polarization {
    expr::Expr magnitude;  ///< P_γ (event scalar)
    expr::Expr angle;      ///< Φ (from polarization_angle)

    /// Reads the event scalars `magnitude_column` (P_γ) and `angle_column` (α, lab).
    [[nodiscard]] static Polarization event(const Vec3& beam, const Vec3& recoil,
                                            const std::string& magnitude_column = "pol_magnitude",
                                            const std::string& angle_column = "pol_angle");
};

}  // namespace laddu::physics
