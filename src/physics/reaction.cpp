#include <utility>

#include <laddu/physics/reaction.hpp>

namespace laddu::physics {

using expr::Expr;

Reaction::Reaction(Vec4 beam, Vec4 target, Vec4 resonance, Vec4 recoil)
    : beam_(std::move(beam)), target_(std::move(target)), resonance_(std::move(resonance)),
      recoil_(std::move(recoil)) {}

Reaction Reaction::with_inferred_target(const Vec4& beam, const Vec4& resonance,
                                        const Vec4& recoil) {
    return {beam, resonance + recoil - beam, resonance, recoil};
}

Expr Reaction::s() const {
    return (beam_ + target_).m2();
}

Expr Reaction::t() const {
    return (beam_ - resonance_).m2();
}

Expr Reaction::u() const {
    return (beam_ - recoil_).m2();
}

Frame Reaction::cm_frame() const {
    return Frame::lab().then_rest_frame_of(beam_ + target_);
}

Frame Reaction::resonance_frame() const {
    return cm_frame().then_rest_frame_of(resonance_);
}

Vec3 Reaction::production_normal() const {
    const Frame cm = cm_frame();
    return -(cm.vec3(beam_).cross(cm.vec3(recoil_)));
}

Angles Reaction::helicity_angles(const Vec4& daughter) const {
    const Frame frame = resonance_frame();
    return angles(frame.vec3(daughter), -frame.vec3(recoil_), production_normal());
}

Angles Reaction::gottfried_jackson_angles(const Vec4& daughter) const {
    const Frame frame = resonance_frame();
    return angles(frame.vec3(daughter), frame.vec3(beam_), production_normal());
}

Expr polarization_angle(const Vec3& beam, const Vec3& recoil, const Expr& pol_angle) {
    const Vec3 polarization{expr::cos(pol_angle), expr::sin(pol_angle), 0.0};
    const Vec3 normal = beam.cross(-recoil).unit();
    return expr::atan2(normal.dot(polarization), beam.unit().dot(polarization.cross(normal)));
}

Polarization Polarization::event(const Vec3& beam, const Vec3& recoil,
                                 const std::string& magnitude_column,
                                 const std::string& angle_column) {
    return {expr::scalar(magnitude_column),
            polarization_angle(beam, recoil, expr::scalar(angle_column))};
}

}  // namespace laddu::physics
