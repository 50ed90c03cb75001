#include <cstdlib>
#include <string>

#include <laddu/base/error.hpp>
#include <laddu/physics/quantum.hpp>

namespace laddu::physics {

std::vector<PartialWave> allowed_partial_waves(int two_j, Parity parity, const Particle& a,
                                               const Particle& b, int max_l) {
    if (two_j < 0 || max_l < 0) {
        throw ModelError("allowed_partial_waves: need 2J >= 0 and max_l >= 0, got 2J = " +
                         std::to_string(two_j) + ", max_l = " + std::to_string(max_l));
    }
    std::vector<PartialWave> waves;
    const int product = static_cast<int>(a.parity) * static_cast<int>(b.parity);
    for (int l = 0; l <= max_l; ++l) {
        const int orbital_parity = l % 2 == 0 ? 1 : -1;
        if (product * orbital_parity != static_cast<int>(parity)) {
            continue;
        }
        for (int two_s = std::abs(a.two_spin - b.two_spin); two_s <= a.two_spin + b.two_spin;
             two_s += 2) {
            if (two_j >= std::abs(2 * l - two_s) && two_j <= 2 * l + two_s &&
                (two_j + two_s) % 2 == 0) {
                waves.push_back({l, two_s});
            }
        }
    }
    return waves;
}

}  // namespace laddu::physics
