// laddu/amplitudes/kopf_tables.hpp: the published K-matrix constants of Kopf et al.
//
// B. Kopf, M. Albrecht, H. Koch, M. Küßner, J. Pychy, X. Qin, U. Wiedner, "Investigation of the
// lightest hybrid meson candidate with a coupled-channel analysis of p̄p-, π⁻p- and ππ-Data",
// Eur. Phys. J. C 81 (2021) 1056, Table 3 (pole masses, couplings g, backgrounds c). The values
// and the channel-mass choices are the ones laddu v0.21.4 uses (crates/laddu-amplitudes kopf.rs),
// so laddu's benchmark model and unit-test values are reproduced exactly.
//
// Matrix rows are channels, columns poles; backgrounds are channel × channel.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include <laddu/physics/particles.hpp>

namespace laddu::amplitudes {

/// The constants of one Kopf K-matrix family with `Channels` channels and `Poles` poles.
template <std::size_t Channels, std::size_t Poles>
struct KopfTable {
    /// Couplings g[channel][pole].
    std::array<std::array<double, Poles>, Channels> couplings;
    /// Background terms c[channel][channel] (symmetric).
    std::array<std::array<double, Channels>, Channels> background;
    /// First daughter mass of each channel.
    std::array<double, Channels> channel_mass_1;
    /// Second daughter mass of each channel.
    std::array<double, Channels> channel_mass_2;
    /// Bare pole masses m_α.
    std::array<double, Poles> pole_masses;
    /// Orbital angular momentum of every channel (Blatt-Weisskopf order).
    int l;
    /// Whether K is multiplied by the Adler zero (s - s0) / s_norm (f0 only).
    bool has_adler_zero;
    /// Adler-zero position s0 (GeV²); used only when has_adler_zero.
    double adler_s0;
    /// Adler-zero normalisation s_norm (GeV²); used only when has_adler_zero.
    double adler_s_norm;

    /// Number of channels.
    static constexpr std::size_t kChannels = Channels;
    /// Number of poles.
    static constexpr std::size_t kPoles = Poles;
};

/// Blatt-Weisskopf scale of every Kopf K-matrix, q_R = 0.1973 GeV (laddu's QR_DEFAULT).
inline constexpr double kKopfBarrierScale = 0.1973;

namespace detail {
// laddu uses the neutral pion mass for ππ, twice it for the effective "4π" channel, K± and K⁰
// for KK̄; these equal the PDG 2024 values in physics/particles.hpp.
inline constexpr double kPi = physics::kPionNeutralMass;
inline constexpr double kFourPi = 2.0 * physics::kPionNeutralMass;
inline constexpr double kKc = physics::kKaonChargedMass;
inline constexpr double kK0 = physics::kKaonNeutralMass;
inline constexpr double kEta = physics::kEtaMass;
inline constexpr double kEtaP = physics::kEtaPrimeMass;
}  // namespace detail

/// Channels of the f0 K-matrix (isoscalar scalars).
enum class KopfF0Channel : std::uint8_t {
    kPiPi = 0,
    kFourPi = 1,
    kKKbar = 2,
    kEtaEta = 3,
    kEtaEtaPrime = 4
};
/// Channels of the f2 K-matrix (isoscalar tensors).
enum class KopfF2Channel : std::uint8_t { kPiPi = 0, kFourPi = 1, kKKbar = 2, kEtaEta = 3 };
/// Channels of the a0 K-matrix (isovector scalars).
enum class KopfA0Channel : std::uint8_t { kPiEta = 0, kKKbar = 1 };
/// Channels of the a2 K-matrix (isovector tensors).
enum class KopfA2Channel : std::uint8_t { kPiEta = 0, kKKbar = 1, kPiEtaPrime = 2 };
/// Channels of the ρ K-matrix (isovector vectors).
enum class KopfRhoChannel : std::uint8_t { kPiPi = 0, kFourPi = 1, kKKbar = 2 };
/// Channels of the π1 K-matrix (exotic 1⁻⁺).
enum class KopfPi1Channel : std::uint8_t { kPiEta = 0, kPiEtaPrime = 1 };

/// f0: poles f0(500), f0(980), f0(1370), f0(1500), f0(1710); L = 0; Adler zero s0 = 0.0091125.
inline constexpr KopfTable<5, 5> kKopfF0{
    .couplings = {{{0.74987, 0.06401, -0.23417, 0.01270, -0.14242},
                   {-0.01257, 0.00204, -0.01032, 0.26700, 0.22780},
                   {0.27536, 0.77413, 0.72283, 0.09214, 0.15981},
                   {-0.15102, 0.50999, 0.11934, 0.02742, 0.16272},
                   {0.36103, 0.13112, 0.36792, -0.04025, -0.17397}}},
    .background = {{{0.03728, 0.0, -0.01398, -0.02203, 0.01397},
                    {0.0, 0.0, 0.0, 0.0, 0.0},
                    {-0.01398, 0.0, 0.02349, 0.03101, -0.04003},
                    {-0.02203, 0.0, 0.03101, -0.13769, -0.06722},
                    {0.01397, 0.0, -0.04003, -0.06722, -0.28401}}},
    .channel_mass_1 = {detail::kPi, detail::kFourPi, detail::kKc, detail::kEta, detail::kEta},
    .channel_mass_2 = {detail::kPi, detail::kFourPi, detail::kK0, detail::kEta, detail::kEtaP},
    .pole_masses = {0.51461, 0.90630, 1.23089, 1.46104, 1.69611},
    .l = 0,
    .has_adler_zero = true,
    .adler_s0 = 0.0091125,
    .adler_s_norm = 1.0,
};

/// f2: poles f2(1270), f2(1525), f2(1850), f2(1910); L = 2.
inline constexpr KopfTable<4, 4> kKopfF2{
    .couplings = {{{0.40033, 0.01820, -0.06709, -0.49924},
                   {0.15479, 0.17300, 0.22941, 0.19295},
                   {-0.08900, 0.32393, -0.43133, 0.27975},
                   {-0.00113, 0.15256, 0.23721, -0.03987}}},
    .background = {{{-0.04319, 0.0, 0.00984, 0.01028},
                    {0.0, 0.0, 0.0, 0.0},
                    {0.00984, 0.0, -0.07344, 0.05533},
                    {0.01028, 0.0, 0.05533, -0.05183}}},
    .channel_mass_1 = {detail::kPi, detail::kFourPi, detail::kKc, detail::kEta},
    .channel_mass_2 = {detail::kPi, detail::kFourPi, detail::kK0, detail::kEta},
    .pole_masses = {1.15299, 1.48359, 1.72923, 1.96700},
    .l = 2,
    .has_adler_zero = false,
    .adler_s0 = 0.0,
    .adler_s_norm = 1.0,
};

/// a0: poles a0(980), a0(1450); L = 0; no background.
inline constexpr KopfTable<2, 2> kKopfA0{
    .couplings = {{{0.43215, 0.19000}, {-0.28825, 0.43372}}},
    .background = {{{0.0, 0.0}, {0.0, 0.0}}},
    .channel_mass_1 = {detail::kPi, detail::kKc},
    .channel_mass_2 = {detail::kEta, detail::kK0},
    .pole_masses = {0.95395, 1.26767},
    .l = 0,
    .has_adler_zero = false,
    .adler_s0 = 0.0,
    .adler_s_norm = 1.0,
};

/// a2: poles a2(1320), a2(1700); L = 2.
inline constexpr KopfTable<3, 2> kKopfA2{
    .couplings = {{{0.30073, 0.68567}, {0.21426, 0.12543}, {-0.09162, 0.00184}}},
    .background = {{{-0.40184, 0.00033, -0.08707},
                    {0.00033, -0.21416, -0.06193},
                    {-0.08707, -0.06193, -0.17435}}},
    .channel_mass_1 = {detail::kPi, detail::kKc, detail::kPi},
    .channel_mass_2 = {detail::kEta, detail::kK0, detail::kEtaP},
    .pole_masses = {1.30080, 1.75351},
    .l = 2,
    .has_adler_zero = false,
    .adler_s0 = 0.0,
    .adler_s_norm = 1.0,
};

/// ρ: poles ρ(770), ρ(1700); L = 1.
inline constexpr KopfTable<3, 2> kKopfRho{
    .couplings = {{{0.28023, 0.16318}, {0.01806, 0.53879}, {0.06501, 0.00495}}},
    .background = {{{-0.06948, 0.0, 0.07958}, {0.0, 0.0, 0.0}, {0.07958, 0.0, -0.6}}},
    .channel_mass_1 = {detail::kPi, detail::kFourPi, detail::kKc},
    .channel_mass_2 = {detail::kPi, detail::kFourPi, detail::kK0},
    .pole_masses = {0.71093, 1.58660},
    .l = 1,
    .has_adler_zero = false,
    .adler_s0 = 0.0,
    .adler_s_norm = 1.0,
};

/// π1: pole π1(1600); L = 1.
inline constexpr KopfTable<2, 1> kKopfPi1{
    .couplings = {{{0.80564}, {1.04595}}},
    .background = {{{1.05, 0.15163}, {0.15163, -0.24611}}},
    .channel_mass_1 = {detail::kPi, detail::kPi},
    .channel_mass_2 = {detail::kEta, detail::kEtaP},
    .pole_masses = {1.38552},
    .l = 1,
    .has_adler_zero = false,
    .adler_s0 = 0.0,
    .adler_s_norm = 1.0,
};

}  // namespace laddu::amplitudes
