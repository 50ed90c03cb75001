// Partial waves: coupling validation, labels and the scan SelectionRules runs.
#include <cstdint>

#include <laddu/base/error.hpp>
#include <laddu/physics/partial_waves.hpp>

namespace laddu::physics {

PartialWave PartialWave::make(J j, L l, J s) {
    if (!j.can_couple_to(l.as_j(), s)) {
        throw ModelError("Invalid relation: j, l, and s must be compatible");
    }
    return PartialWave{j, l, s};
}

std::string PartialWave::label() const {
    return std::to_string(std::int64_t{s.doubled()} + 1) + l.letter() + j.to_string();
}

std::vector<AllowedPartialWave>
SelectionRules::allowed_partial_waves(const ParticleProperties& parent, const ParticleProperties& a,
                                      const ParticleProperties& b) const {
    std::vector<AllowedPartialWave> out;
    if (!parent.spin || !a.spin || !b.spin) {
        return out;
    }
    const J j = *parent.spin;
    for (const J s : a.spin->coupled_with(*b.spin)) {
        for (std::int64_t value = 0; value <= std::int64_t{max_l.value()}; ++value) {
            const L l = L::from_integer(value);
            if (!j.can_couple_to(l.as_j(), s)) {
                continue;
            }
            if (rules.evaluate(parent, a, b, l, s).is_allowed()) {
                out.push_back(
                    {PartialWave{j, l, s}, infer_parity(a, b, l), infer_c_parity(a, b, l, s)});
            }
        }
    }
    return out;
}

}  // namespace laddu::physics
