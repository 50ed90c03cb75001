// laddu/physics/clebsch_gordan.hpp: numeric angular-momentum coupling coefficients.
//
// Spins are passed doubled (two_j = 2j) so half-integers are exact integers: j = 1/2 is
// two_j = 1. Coefficients that a selection rule forbids (|m| > j, m1 + m2 != m, a broken
// triangle, j ± m not an integer) are 0, as in laddu's clebsch_gordan and wigner_3j.
#pragma once

namespace laddu::physics {

/// ln(n!) for n >= 0 (exact table for small n, lgamma beyond).
[[nodiscard]] double log_factorial(int n);

/// n! as a double for 0 <= n <= 170.
[[nodiscard]] double factorial(int n);

/// The Wigner 3j symbol (j1 j2 j3; m1 m2 m3) by the Racah formula; all arguments doubled.
[[nodiscard]] double wigner_3j(int two_j1, int two_j2, int two_j3, int two_m1, int two_m2,
                               int two_m3);

/// The Clebsch-Gordan coefficient <j1 m1; j2 m2 | j m> (Condon-Shortley phase); doubled args.
[[nodiscard]] double clebsch_gordan(int two_j1, int two_m1, int two_j2, int two_m2, int two_j,
                                    int two_m);

}  // namespace laddu::physics
