#include <utility>

#include <laddu/physics/vectors.hpp>

namespace laddu::physics {

using expr::Expr;

Vec3::Vec3(Expr x, Expr y, Expr z) : x_(std::move(x)), y_(std::move(y)), z_(std::move(z)) {}

Vec3 Vec3::zero() {
    return {0.0, 0.0, 0.0};
}

Vec3 Vec3::x_axis() {
    return {1.0, 0.0, 0.0};
}

Vec3 Vec3::y_axis() {
    return {0.0, 1.0, 0.0};
}

Vec3 Vec3::z_axis() {
    return {0.0, 0.0, 1.0};
}

Vec3 Vec3::event(const std::string& name) {
    return Vec4::event(name).vec3();
}

Expr Vec3::dot(const Vec3& other) const {
    return x_ * other.x_ + y_ * other.y_ + z_ * other.z_;
}

Vec3 Vec3::cross(const Vec3& o) const {
    return {y_ * o.z_ - z_ * o.y_, z_ * o.x_ - x_ * o.z_, x_ * o.y_ - y_ * o.x_};
}

Expr Vec3::mag2() const {
    return dot(*this);
}

Expr Vec3::mag() const {
    return expr::sqrt(mag2());
}

Vec3 Vec3::unit() const {
    return *this / mag();
}

Expr Vec3::costheta() const {
    return z_ / mag();
}

Expr Vec3::phi() const {
    return expr::atan2(y_, x_);
}

Vec4 Vec3::with_mass(const Expr& mass) const {
    return {expr::sqrt(mass * mass + mag2()), *this};
}

Vec4 Vec3::with_energy(const Expr& energy) const {
    return {energy, *this};
}

Vec3 operator+(const Vec3& a, const Vec3& b) {
    return {a.x() + b.x(), a.y() + b.y(), a.z() + b.z()};
}

Vec3 operator-(const Vec3& a, const Vec3& b) {
    return {a.x() - b.x(), a.y() - b.y(), a.z() - b.z()};
}

Vec3 operator-(const Vec3& a) {
    return {-a.x(), -a.y(), -a.z()};
}

Vec3 operator*(const Vec3& a, const Expr& k) {
    return {a.x() * k, a.y() * k, a.z() * k};
}

Vec3 operator*(const Expr& k, const Vec3& a) {
    return a * k;
}

Vec3 operator/(const Vec3& a, const Expr& k) {
    return {a.x() / k, a.y() / k, a.z() / k};
}

Vec4::Vec4(Expr e, Expr px, Expr py, Expr pz)
    : e_(std::move(e)), p_(std::move(px), std::move(py), std::move(pz)) {}

Vec4::Vec4(Expr e, const Vec3& p) : e_(std::move(e)), p_(p) {}

Vec4 Vec4::event(const std::string& name) {
    using expr::P4Component;
    return {expr::p4_component(name, P4Component::kE), expr::p4_component(name, P4Component::kPx),
            expr::p4_component(name, P4Component::kPy), expr::p4_component(name, P4Component::kPz)};
}

Expr Vec4::dot(const Vec4& other) const {
    return e_ * other.e_ - p_.dot(other.p_);
}

Expr Vec4::m2() const {
    return dot(*this);
}

Expr Vec4::m() const {
    return expr::sqrt(m2());
}

Vec3 Vec4::beta() const {
    return p_ / e_;
}

Expr Vec4::gamma() const {
    return e_ / m();
}

Vec4 Vec4::boost(const Vec3& beta) const {
    const Expr b2 = beta.mag2();
    const Expr gamma = 1.0 / expr::sqrt(1.0 - b2);
    const Expr bp = beta.dot(p_);
    // γ²/(γ+1) stays finite at β = 0, unlike the equivalent (γ-1)/β².
    const Expr coefficient = gamma * gamma / (gamma + 1.0) * bp + gamma * e_;
    return {gamma * (e_ + bp), p_ + beta * coefficient};
}

Vec4 Vec4::boost_to_rest_frame_of(const Vec4& frame) const {
    return boost(-frame.beta());
}

Vec4 operator+(const Vec4& a, const Vec4& b) {
    return {a.e() + b.e(), a.vec3() + b.vec3()};
}

Vec4 operator-(const Vec4& a, const Vec4& b) {
    return {a.e() - b.e(), a.vec3() - b.vec3()};
}

Vec4 operator-(const Vec4& a) {
    return {-a.e(), -a.vec3()};
}

}  // namespace laddu::physics
