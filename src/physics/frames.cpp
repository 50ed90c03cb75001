#include <laddu/physics/frames.hpp>

namespace laddu::physics {

using expr::Expr;

Axes Axes::from_z_and_y_hint(const Vec3& z_axis, const Vec3& y_hint) {
    const Vec3 z = z_axis.unit();
    const Vec3 y = (y_hint - z * y_hint.dot(z)).unit();
    return {y.cross(z), y, z};
}

Expr costheta(const Vec3& p, const Vec3& z_axis) {
    return p.dot(z_axis.unit()) / p.mag();
}

Expr phi(const Vec3& p, const Axes& axes) {
    return expr::atan2(p.dot(axes.y), p.dot(axes.x));
}

Expr theta(const Vec3& p, const Vec3& z_axis) {
    // atan2(|p × ẑ|, p·ẑ) instead of acos(cos θ): no NaN when rounding puts |cos θ| above 1,
    // and full precision near θ = 0 and π.
    const Vec3 z = z_axis.unit();
    return expr::atan2(p.cross(z).mag(), p.dot(z));
}

Angles angles(const Vec3& p, const Vec3& z_axis, const Vec3& y_hint) {
    return {costheta(p, z_axis), theta(p, z_axis), phi(p, Axes::from_z_and_y_hint(z_axis, y_hint))};
}

Frame Frame::lab() {
    return {};
}

Frame Frame::then_rest_frame_of(const Vec4& lab_vector) const {
    Frame next = *this;
    next.steps_.push_back(transform(lab_vector).beta());
    return next;
}

Vec4 Frame::transform(const Vec4& lab_vector) const {
    Vec4 p = lab_vector;
    for (const Vec3& beta : steps_) {
        p = p.boost(-beta);
    }
    return p;
}

}  // namespace laddu::physics
