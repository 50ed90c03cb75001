#!/usr/bin/python3
"""laddu's K-matrix benchmark NLL, written the way a physicist would in plain numpy.

An independent cross-check of ``laddu-cpp bench kmatrix`` (and a speed reference for it): the
same model, built from scratch with vectorised numpy (no loops over events). Only the Parquet
I/O goes through the laddu_cpp Python package (Debian has no pyarrow); everything else below is
computed here.

Physics sources
---------------
* Reaction γ p → K_S K_S p, laddu's benchmark ``crates/laddu/benches/kmatrix_benchmark.rs``
  (v0.21.4), described in /work/shared/reference/laddu-architecture.md §3.3. Frames: sequential
  pure boosts lab → CM(beam + target) → KK rest frame, as laddu's channel.rs
  (`vertex_p4_boosts_through_overall_com_and_graph_path`):

      S± = f0±[KK̄] + a0±[KK̄],   D⁺ = f2[KK̄] + a2[KK̄]        (s = m²(K_S K_S))
      I  = |S⁺ Re Z⁺₀₀ + D⁺ Re Z⁺₂₂|² + |S⁺ Im Z⁺₀₀ + D⁺ Im Z⁺₂₂|²
         + |S⁻ Re Z⁻₀₀|² + |S⁻ Im Z⁻₀₀|²

* K-matrices: B. Kopf et al., "Investigation of the lightest hybrid meson candidate with a
  coupled-channel analysis of p̄p-, π⁻p- and ππ-Data", Eur. Phys. J. C 81 (2021) 1056, Table 3,
  with laddu's channel masses and conventions (laddu-architecture.md §3.4):

      B_iα = F_L(q_i(s)) / F_L(q_i(m_α²))                  (Blatt-Weisskopf, q_R = 0.1973 GeV)
      K_ij = A(s) Σ_α B_iα B_jα [g_iα g_jα / (m_α² − s) + c_ij]
      P_i  = Σ_α β_α g_iα B_iα / (m_α² − s)
      C    = diag(Σ_CM(s; m₁ᵢ, m₂ᵢ))                       (Chew-Mandelstam phase space)
      F    = (I + K C)⁻¹ P

  with the Adler zero A(s) = (s − 0.0091125)/1 for f0 only. Note that this script uses the
  textbook (uncleared) form with divisions by (m_α² − s); laddu-cpp uses the pole-cleared form,
  so agreement is a real check of both.

* NLL (laddu's NllTerm, not extended; data and accepted MC):
      NLL = N_w ln(Σ_mc w_j I_j) − Σ_data w_i ln I_i,   N_w = Σ_data w_i.

Usage
-----
    PYTHONPATH=build/lead/python /usr/bin/python3 bench/kmatrix_numpy.py \\
        --data FILE.parquet [--params PARAMS.json] [--repeat R] [--json]

prints the NLL and the median seconds per NLL value, (a) from cached parameter-independent
pieces (what a fit would do) and (b) recomputing everything from the four-vectors.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from dataclasses import dataclass

import numpy as np

# ---------------------------------------------------------------------------------------------
# Particle masses (GeV), PDG values as used by laddu's kopf.rs.
# ---------------------------------------------------------------------------------------------
M_PI0 = 0.1349768
M_K_CHARGED = 0.493677
M_K0 = 0.497611
M_KS = M_K0
M_ETA = 0.547862
M_ETA_PRIME = 0.95778
M_PROTON = 0.93827208816

Q_R = 0.1973  # Blatt-Weisskopf scale q_R of every Kopf K-matrix (laddu's QR_DEFAULT)


# ---------------------------------------------------------------------------------------------
# Kopf et al. (2021) Table 3: the K-matrix constants. Rows of `g` are channels, columns poles.
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class KopfTable:
    """One fixed K-matrix family: channel masses, bare poles, couplings, backgrounds."""

    name: str
    m1: np.ndarray  # first daughter mass per channel
    m2: np.ndarray  # second daughter mass per channel
    poles: np.ndarray  # bare pole masses m_α
    g: np.ndarray  # couplings g[channel, pole]
    c: np.ndarray  # background c[channel, channel]
    l: int  # orbital angular momentum of the barrier factors
    adler_s0: float | None = None  # Adler zero position (f0 only), s_norm = 1


def _table(name, m1, m2, poles, g, c, l, adler_s0=None):
    return KopfTable(name, np.array(m1, float), np.array(m2, float), np.array(poles, float),
                     np.array(g, float), np.array(c, float), l, adler_s0)


# f0: channels [ππ, 4π (2 m_π⁰ each), KK̄, ηη, ηη′]; poles f0(500), f0(980), f0(1370),
# f0(1500), f0(1710).
KOPF_F0 = _table(
    "f0",
    [M_PI0, 2 * M_PI0, M_K_CHARGED, M_ETA, M_ETA],
    [M_PI0, 2 * M_PI0, M_K0, M_ETA, M_ETA_PRIME],
    [0.51461, 0.90630, 1.23089, 1.46104, 1.69611],
    [[0.74987, 0.06401, -0.23417, 0.01270, -0.14242],
     [-0.01257, 0.00204, -0.01032, 0.26700, 0.22780],
     [0.27536, 0.77413, 0.72283, 0.09214, 0.15981],
     [-0.15102, 0.50999, 0.11934, 0.02742, 0.16272],
     [0.36103, 0.13112, 0.36792, -0.04025, -0.17397]],
    [[0.03728, 0.0, -0.01398, -0.02203, 0.01397],
     [0.0, 0.0, 0.0, 0.0, 0.0],
     [-0.01398, 0.0, 0.02349, 0.03101, -0.04003],
     [-0.02203, 0.0, 0.03101, -0.13769, -0.06722],
     [0.01397, 0.0, -0.04003, -0.06722, -0.28401]],
    l=0, adler_s0=0.0091125)

# f2: channels [ππ, 4π, KK̄, ηη]; poles f2(1270), f2(1525), f2(1850), f2(1910).
KOPF_F2 = _table(
    "f2",
    [M_PI0, 2 * M_PI0, M_K_CHARGED, M_ETA],
    [M_PI0, 2 * M_PI0, M_K0, M_ETA],
    [1.15299, 1.48359, 1.72923, 1.96700],
    [[0.40033, 0.01820, -0.06709, -0.49924],
     [0.15479, 0.17300, 0.22941, 0.19295],
     [-0.08900, 0.32393, -0.43133, 0.27975],
     [-0.00113, 0.15256, 0.23721, -0.03987]],
    [[-0.04319, 0.0, 0.00984, 0.01028],
     [0.0, 0.0, 0.0, 0.0],
     [0.00984, 0.0, -0.07344, 0.05533],
     [0.01028, 0.0, 0.05533, -0.05183]],
    l=2)

# a0: channels [πη, KK̄]; poles a0(980), a0(1450); no background.
KOPF_A0 = _table(
    "a0",
    [M_PI0, M_K_CHARGED], [M_ETA, M_K0],
    [0.95395, 1.26767],
    [[0.43215, 0.19000], [-0.28825, 0.43372]],
    [[0.0, 0.0], [0.0, 0.0]],
    l=0)

# a2: channels [πη, KK̄, πη′]; poles a2(1320), a2(1700).
KOPF_A2 = _table(
    "a2",
    [M_PI0, M_K_CHARGED, M_PI0], [M_ETA, M_K0, M_ETA_PRIME],
    [1.30080, 1.75351],
    [[0.30073, 0.68567], [0.21426, 0.12543], [-0.09162, 0.00184]],
    [[-0.40184, 0.00033, -0.08707], [0.00033, -0.21416, -0.06193],
     [-0.08707, -0.06193, -0.17435]],
    l=2)

# ρ and π1 are not in the benchmark; they are here for laddu's kopf.rs unit-test values.
KOPF_RHO = _table(
    "rho",
    [M_PI0, 2 * M_PI0, M_K_CHARGED], [M_PI0, 2 * M_PI0, M_K0],
    [0.71093, 1.58660],
    [[0.28023, 0.16318], [0.01806, 0.53879], [0.06501, 0.00495]],
    [[-0.06948, 0.0, 0.07958], [0.0, 0.0, 0.0], [0.07958, 0.0, -0.6]],
    l=1)
KOPF_PI1 = _table(
    "pi1",
    [M_PI0, M_PI0], [M_ETA, M_ETA_PRIME],
    [1.38552],
    [[0.80564], [1.04595]],
    [[1.05, 0.15163], [0.15163, -0.24611]],
    l=1)

KKBAR = {"f0": 2, "a0": 1, "f2": 2, "a2": 1}  # index of the KK̄ channel in each family


# ---------------------------------------------------------------------------------------------
# Two-body functions.
# ---------------------------------------------------------------------------------------------
def breakup_momentum(s, m1, m2):
    """q(s) = √((s − (m₁+m₂)²)(s − (m₁−m₂)²)) / (2√s), complex (i|q| below threshold)."""
    s = np.asarray(s, dtype=float)
    radicand = (s - (m1 + m2) ** 2) * (s - (m1 - m2) ** 2)
    return np.sqrt(radicand.astype(complex)) / (2.0 * np.sqrt(s))


def chew_mandelstam(s, m1, m2):
    """Chew-Mandelstam phase space Σ(s) (laddu's `chew_mandelstam`).

    Σ = [ρ ln((χ+ρ)/(χ−ρ)) − χ (m₂−m₁)/(m₁+m₂) ln(m₂/m₁)] / π,  χ = 1 − (m₁+m₂)²/s,
    ρ = 2q/√s. Above threshold the ratio is negative and laddu's logarithm takes −iπ, so that
    Im Σ = −ρ (matching the plain phase space −iρ). Between pseudo-threshold and threshold ρ is
    imaginary, the ratio has modulus one and its principal logarithm is i·arg(ratio), so Σ is
    real there.
    """
    s = np.asarray(s, dtype=float)
    chi = 1.0 - (m1 + m2) ** 2 / s
    rho_squared = chi * (1.0 - (m1 - m2) ** 2 / s)
    rho = np.sqrt(rho_squared.astype(complex))
    ratio = (chi + rho) / (chi - rho)
    real_rho = rho_squared >= 0.0
    log_ratio = np.where(
        real_rho,
        np.log(np.abs(ratio)) - 1j * np.pi * (ratio.real < 0.0),
        1j * np.angle(ratio))
    constant = (m2 - m1) / (m1 + m2) * math.log(m2 / m1)
    return (rho * log_ratio - chi * constant) / np.pi


def blatt_weisskopf(q, l, q_r=Q_R):
    """Full Blatt-Weisskopf factor F_L(q) = √(poly_L(z)), z = q²/q_R², normalised F_L(z=1)=1."""
    z = q * q / (q_r * q_r)
    if l == 0:
        return np.ones_like(z)
    if l == 1:
        return np.sqrt(2.0 * z / (z + 1.0))
    if l == 2:
        return np.sqrt(13.0 * z * z / (z * z + 3.0 * z + 9.0))
    raise ValueError(f"blatt_weisskopf: L = {l} is not needed by the benchmark (use 0, 1 or 2)")


# ---------------------------------------------------------------------------------------------
# The Kopf K-matrix F-vector.
# ---------------------------------------------------------------------------------------------
def kmatrix_system(table: KopfTable, s):
    """The per-event pieces of F = (I + K C)⁻¹ P that do not depend on the couplings β.

    Returns (A, P_basis) with A = I + K C of shape (N, n, n) and P_basis of shape (N, n, poles),
    P_basis[:, i, α] = g_iα B_iα / (m_α² − s), so that P = P_basis @ β.
    """
    s = np.asarray(s, dtype=float)
    n = len(table.m1)
    # Barrier ratios B[e, i, α] = F_L(q_i(s)) / F_L(q_i(m_α²)).
    q_s = np.stack([breakup_momentum(s, table.m1[i], table.m2[i]) for i in range(n)], axis=-1)
    q_pole = np.array([[breakup_momentum(m * m, table.m1[i], table.m2[i]) for m in table.poles]
                       for i in range(n)])  # (n, poles)
    barrier = blatt_weisskopf(q_s, table.l)[:, :, None] / blatt_weisskopf(q_pole, table.l)[None]
    inverse_denominator = 1.0 / (table.poles[None, :] ** 2 - s[:, None])  # (N, poles)
    # K_ij = A(s) Σ_α B_iα B_jα [g_iα g_jα / (m_α² − s) + c_ij]
    gg = table.g[:, None, :] * table.g[None, :, :]  # (n, n, poles)
    bb = barrier[:, :, None, :] * barrier[:, None, :, :]  # (N, n, n, poles)
    k = np.sum(bb * (gg[None] * inverse_denominator[:, None, None, :] + table.c[None, :, :, None]),
               axis=-1)
    if table.adler_s0 is not None:
        k = k * (s - table.adler_s0)[:, None, None]
    sigma = np.stack([chew_mandelstam(s, table.m1[i], table.m2[i]) for i in range(n)], axis=-1)
    a = np.eye(n)[None] + k * sigma[:, None, :]  # (K C)_ij = K_ij Σ_j
    p_basis = table.g[None] * barrier * inverse_denominator[:, None, :]
    return a, p_basis


def kopf_f_vector(table: KopfTable, s, beta):
    """F(s) = (I + K C)⁻¹ P(β) for production couplings β (complex, one per pole): (N, n)."""
    a, p_basis = kmatrix_system(table, s)
    p = p_basis @ np.asarray(beta, dtype=complex)
    return np.linalg.solve(a, p[..., None])[..., 0]


def kopf_kkbar_basis(table: KopfTable, s):
    """The KK̄ row of (I + K C)⁻¹ P_basis: (N, poles), so F_KK̄ = basis @ β (F is linear in β)."""
    a, p_basis = kmatrix_system(table, s)
    return np.ascontiguousarray(np.linalg.solve(a, p_basis)[:, KKBAR[table.name], :])


# ---------------------------------------------------------------------------------------------
# Kinematics: the helicity angles of K_S¹ and the polarisation angle, as laddu's benchmark.
# ---------------------------------------------------------------------------------------------
def boost(p, beta):
    """Boosts four-vectors p = (E, px, py, pz) (N, 4) by velocities beta (N, 3)."""
    b2 = np.sum(beta * beta, axis=-1)
    gamma = 1.0 / np.sqrt(1.0 - b2)
    bp = np.sum(beta * p[:, 1:], axis=-1)
    coefficient = gamma * gamma / (gamma + 1.0) * bp + gamma * p[:, 0]
    return np.concatenate([(gamma * (p[:, 0] + bp))[:, None],
                           p[:, 1:] + beta * coefficient[:, None]], axis=-1)


def to_rest_frame(p, frame):
    """p in the rest frame of the four-vector `frame` (both (N, 4), same frame)."""
    return boost(p, -frame[:, 1:] / frame[:, :1])


def unit(v):
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


def dot(a, b):
    return np.sum(a * b, axis=-1)


@dataclass
class Kinematics:
    s: np.ndarray  # m²(K_S K_S)
    costheta: np.ndarray  # helicity cos θ of K_S¹
    phi: np.ndarray  # helicity φ of K_S¹
    pol_angle: np.ndarray  # Φ, polarisation angle relative to the production plane
    pol_magnitude: np.ndarray  # P_γ


def kinematics(beam, proton, k1, k2, pol_angle, pol_magnitude) -> Kinematics:
    """laddu's channel "gamma p -> Ks Ks p" (laddu-architecture.md §3.3).

    The target is inferred as (k1 + k2) + proton − beam; the helicity frame is reached
    lab → CM (beam + target) → KK rest frame; z = −proton there, y ∥ −(beam × proton) in the CM,
    x = y × z.
    """
    kk = k1 + k2
    s = kk[:, 0] ** 2 - dot(kk[:, 1:], kk[:, 1:])
    target = kk + proton - beam
    cm = beam + target
    beam_cm, proton_cm, kk_cm, k1_cm = (to_rest_frame(v, cm) for v in (beam, proton, kk, k1))
    proton_kk = to_rest_frame(proton_cm, kk_cm)[:, 1:]
    k1_kk = to_rest_frame(k1_cm, kk_cm)[:, 1:]
    z = unit(-proton_kk)
    y_hint = -np.cross(beam_cm[:, 1:], proton_cm[:, 1:])
    y = unit(y_hint - z * dot(y_hint, z)[:, None])
    x = np.cross(y, z)
    costheta = dot(k1_kk, z) / np.linalg.norm(k1_kk, axis=-1)
    phi = np.arctan2(dot(k1_kk, y), dot(k1_kk, x))
    # Polarisation angle Φ: P = (cos α, sin α, 0), n = unit(beam × (−proton)) in the lab,
    # Φ = atan2(n·P, beam̂·(P × n)).
    polarization = np.stack([np.cos(pol_angle), np.sin(pol_angle), np.zeros_like(pol_angle)],
                            axis=-1)
    normal = unit(np.cross(beam[:, 1:], -proton[:, 1:]))
    big_phi = np.arctan2(dot(normal, polarization),
                         dot(unit(beam[:, 1:]), np.cross(polarization, normal)))
    return Kinematics(s, costheta, phi, big_phi, np.asarray(pol_magnitude, dtype=float))


def zlm(l, m, positive, kin: Kinematics):
    """Polarised Z_l^m: rot = Y_l^m(θ, φ) e^{−iΦ};
    Z⁺ = √(1+P) Re rot + i √(1−P) Im rot, Z⁻ = √(1−P) Re rot + i √(1+P) Im rot."""
    if (l, m) == (0, 0):
        ylm = np.full(kin.costheta.shape, 1.0 / math.sqrt(4.0 * math.pi), dtype=complex)
    elif (l, m) == (2, 2):
        ylm = (math.sqrt(15.0 / (32.0 * math.pi)) * (1.0 - kin.costheta ** 2)
               * np.exp(2j * kin.phi))
    else:
        raise ValueError(f"zlm: (l, m) = ({l}, {m}) is not used by the benchmark")
    rot = ylm * np.exp(-1j * kin.pol_angle)
    plus, minus = np.sqrt(1.0 + kin.pol_magnitude), np.sqrt(1.0 - kin.pol_magnitude)
    if positive:
        return plus * rot.real + 1j * minus * rot.imag
    return minus * rot.real + 1j * plus * rot.imag


# ---------------------------------------------------------------------------------------------
# Parameters: laddu's names and order (34 free), as `laddu-cpp bench kmatrix` lists its gradient
# (and src/amplitudes/k_matrix_test.cpp HasLadduParameterLayout checks).
# ---------------------------------------------------------------------------------------------
def _cartesian(name):
    return [f"{name} re", f"{name} im"]


PARAMETER_NAMES = (
    ["f0(980)+ re"] + _cartesian("f0(1370)+") + _cartesian("f0(1500)+") + _cartesian("f0(1710)+")
    + _cartesian("a0(980)+") + _cartesian("a0(1450)+")
    + _cartesian("f2(1270)") + _cartesian("f2(1525)") + _cartesian("f2(1850)")
    + _cartesian("f2(1910)")
    + _cartesian("a2(1320)") + _cartesian("a2(1700)")
    + ["f0(980)- re"] + _cartesian("f0(1370)-") + _cartesian("f0(1500)-") + _cartesian("f0(1710)-")
    + _cartesian("a0(980)-") + _cartesian("a0(1450)-"))
DEFAULT_VALUE = 0.25  # what `laddu-cpp bench kmatrix` uses for free parameters not in PARAMS.json


def read_parameters(path=None):
    """{name: value} for all 34 free parameters; names missing from the JSON file get 0.25."""
    values = {name: DEFAULT_VALUE for name in PARAMETER_NAMES}
    if path is not None:
        with open(path, encoding="utf-8") as f:
            given = json.load(f)
        unknown = sorted(set(given) - set(PARAMETER_NAMES))
        if unknown:
            raise ValueError(f"{path}: not free parameters of the benchmark: {unknown}")
        values.update({k: float(v) for k, v in given.items()})
    return values


def couplings(p):
    """Production couplings β per K-matrix from the parameter dict p.

    f0±: [0 (f0(500) fixed), f0(980)± re + 0i (imaginary part fixed), f0(1370)±, f0(1500)±,
    f0(1710)±]; every other coupling is re + i im.
    """
    def c(name):
        return complex(p[f"{name} re"], p[f"{name} im"])

    def f0(sign):
        return np.array([0.0, complex(p[f"f0(980){sign} re"], 0.0), c(f"f0(1370){sign}"),
                         c(f"f0(1500){sign}"), c(f"f0(1710){sign}")])

    return {
        "f0+": f0("+"), "f0-": f0("-"),
        "a0+": np.array([c("a0(980)+"), c("a0(1450)+")]),
        "a0-": np.array([c("a0(980)-"), c("a0(1450)-")]),
        "f2": np.array([c("f2(1270)"), c("f2(1525)"), c("f2(1850)"), c("f2(1910)")]),
        "a2": np.array([c("a2(1320)"), c("a2(1700)")]),
    }


# ---------------------------------------------------------------------------------------------
# Intensity and NLL.
# ---------------------------------------------------------------------------------------------
def norm_sqr(z):
    """|z|² without the square root of np.abs."""
    return z.real ** 2 + z.imag ** 2


def intensity_from_waves(s0p, s0n, d2p, z00p, z00n, z22p):
    """I = |S⁺ Re Z⁺₀₀ + D⁺ Re Z⁺₂₂|² + |S⁺ Im Z⁺₀₀ + D⁺ Im Z⁺₂₂|²
         + |S⁻ Re Z⁻₀₀|² + |S⁻ Im Z⁻₀₀|²."""
    return (norm_sqr(s0p * z00p.real + d2p * z22p.real)
            + norm_sqr(s0p * z00p.imag + d2p * z22p.imag)
            # |S⁻ Re Z⁻₀₀|² + |S⁻ Im Z⁻₀₀|² = |S⁻|² |Z⁻₀₀|²
            + norm_sqr(s0n) * norm_sqr(z00n))


class Events:
    """Four-momenta (E, px, py, pz), polarisation and weights of one sample."""

    def __init__(self, beam, proton, kshort1, kshort2, pol_magnitude, pol_angle, weights=None):
        self.beam, self.proton = np.asarray(beam, float), np.asarray(proton, float)
        self.kshort1, self.kshort2 = np.asarray(kshort1, float), np.asarray(kshort2, float)
        self.pol_magnitude = np.asarray(pol_magnitude, float)
        self.pol_angle = np.asarray(pol_angle, float)
        self.weights = np.ones(len(self.beam)) if weights is None else np.asarray(weights, float)

    @classmethod
    def from_dataset(cls, ds):
        """From a laddu_cpp.Dataset (used only as a column container)."""
        return cls(ds.p4("beam"), ds.p4("proton"), ds.p4("kshort1"), ds.p4("kshort2"),
                   ds.column("pol_magnitude"), ds.column("pol_angle"), ds.weights())

    def kinematics(self):
        return kinematics(self.beam, self.proton, self.kshort1, self.kshort2, self.pol_angle,
                          self.pol_magnitude)


def intensity(events: Events, params):
    """The benchmark intensity, computed from scratch (kinematics, K-matrix solves with P(β))."""
    kin = events.kinematics()
    beta = couplings(params)

    def kk(table, key):
        return kopf_f_vector(table, kin.s, beta[key])[:, KKBAR[table.name]]

    s0p = kk(KOPF_F0, "f0+") + kk(KOPF_A0, "a0+")
    s0n = kk(KOPF_F0, "f0-") + kk(KOPF_A0, "a0-")
    d2p = kk(KOPF_F2, "f2") + kk(KOPF_A2, "a2")
    return intensity_from_waves(s0p, s0n, d2p, zlm(0, 0, True, kin), zlm(0, 0, False, kin),
                                zlm(2, 2, True, kin))


def nll_from_intensities(data_w, data_i, mc_w, mc_i):
    """N_w ln(Σ_mc w I) − Σ_data w ln I (numpy's pairwise sums: ~1e-16 relative here)."""
    return np.sum(data_w) * np.log(np.sum(mc_w * mc_i)) - np.sum(data_w * np.log(data_i))


def nll_from_scratch(data: Events, mc: Events, params):
    """The NLL recomputing everything (kinematics, K-matrix solves) on every call."""
    data_i = intensity(data, params)
    mc_i = data_i if mc is data else intensity(mc, params)
    return nll_from_intensities(data.weights, data_i, mc.weights, mc_i)


class CachedIntensity:
    """What a fit would do: everything independent of the parameters computed once.

    F is linear in β, so F_KK̄ = basis @ β with basis[e, α] = [(I + K C)⁻¹ P_basis]_{KK̄, α}.
    """

    def __init__(self, events: Events):
        kin = events.kinematics()
        self.basis = {name: kopf_kkbar_basis(table, kin.s)
                      for name, table in (("f0", KOPF_F0), ("a0", KOPF_A0), ("f2", KOPF_F2),
                                          ("a2", KOPF_A2))}
        self.z00p, self.z00n = zlm(0, 0, True, kin), zlm(0, 0, False, kin)
        self.z22p = zlm(2, 2, True, kin)

    def __call__(self, params):
        beta, b = couplings(params), self.basis
        s0p = b["f0"] @ beta["f0+"] + b["a0"] @ beta["a0+"]
        s0n = b["f0"] @ beta["f0-"] + b["a0"] @ beta["a0-"]
        d2p = b["f2"] @ beta["f2"] + b["a2"] @ beta["a2"]
        return intensity_from_waves(s0p, s0n, d2p, self.z00p, self.z00n, self.z22p)


class CachedNLL:
    """NLL(params) from cached parameter-independent pieces of data and accepted MC."""

    def __init__(self, data: Events, mc: Events):
        self.data_w, self.mc_w = data.weights, mc.weights
        self.data = CachedIntensity(data)
        self.mc = self.data if mc is data else CachedIntensity(mc)

    def __call__(self, params):
        data_i = self.data(params)
        mc_i = data_i if self.mc is self.data else self.mc(params)
        return nll_from_intensities(self.data_w, data_i, self.mc_w, mc_i)


# ---------------------------------------------------------------------------------------------
# A flat γ p → K_S K_S p generator (for tests), the same recipe as tests/support/ksks_events.hpp:
# E_γ uniform in [8, 9] GeV on a proton at rest, isotropic production in the CM, m(KK) uniform
# in a band above threshold, isotropic K_S K_S decay, P_γ uniform in [0.3, 0.4], α in [−π, π].
# ---------------------------------------------------------------------------------------------
def _two_body_momentum(m, m1, m2):
    a = (m * m - (m1 + m2) ** 2) * (m * m - (m1 - m2) ** 2)
    return np.sqrt(np.maximum(a, 0.0)) / (2.0 * m)


def _isotropic(rng, mass, q):
    costheta = rng.uniform(-1.0, 1.0, len(q))
    phi = rng.uniform(0.0, 2.0 * np.pi, len(q))
    sintheta = np.sqrt(1.0 - costheta ** 2)
    return np.stack([np.sqrt(q * q + mass * mass), q * sintheta * np.cos(phi),
                     q * sintheta * np.sin(phi), q * costheta], axis=-1)


def generate_ksks(n, seed=0):
    """n flat γ p → K_S K_S p events (unit weights) as an Events object."""
    rng = np.random.default_rng(seed)
    e_beam = rng.uniform(8.0, 9.0, n)
    beam = np.stack([e_beam, np.zeros(n), np.zeros(n), e_beam], axis=-1)
    w = np.sqrt(M_PROTON ** 2 + 2.0 * e_beam * M_PROTON)
    beta_cm = np.stack([np.zeros(n), np.zeros(n), e_beam / (e_beam + M_PROTON)], axis=-1)
    m_kk = 2 * M_KS + (w - M_PROTON - 2 * M_KS) * (0.02 + 0.5 * rng.uniform(0.0, 1.0, n))
    q = _two_body_momentum(w, M_PROTON, m_kk)
    kk_cm = _isotropic(rng, m_kk, q)
    proton_cm = np.concatenate([np.sqrt(q * q + M_PROTON ** 2)[:, None], -kk_cm[:, 1:]], axis=-1)
    k1_rest = _isotropic(rng, M_KS, _two_body_momentum(m_kk, M_KS, M_KS))
    k2_rest = np.concatenate([k1_rest[:, :1], -k1_rest[:, 1:]], axis=-1)
    beta_kk = kk_cm[:, 1:] / kk_cm[:, :1]
    k1 = boost(boost(k1_rest, beta_kk), beta_cm)
    k2 = boost(boost(k2_rest, beta_kk), beta_cm)
    proton = boost(proton_cm, beta_cm)
    return Events(beam, proton, k1, k2, rng.uniform(0.3, 0.4, n), rng.uniform(-np.pi, np.pi, n))


def to_dataset(events: Events):
    """The events as a laddu_cpp.Dataset (for writing Parquet)."""
    import laddu_cpp as ld

    return ld.Dataset.from_arrays(
        p4s={"beam": events.beam, "proton": events.proton, "kshort1": events.kshort1,
             "kshort2": events.kshort2},
        scalars={"pol_magnitude": events.pol_magnitude, "pol_angle": events.pol_angle},
        weights=events.weights)


# ---------------------------------------------------------------------------------------------
# Command line.
# ---------------------------------------------------------------------------------------------
def _median_seconds(fn, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", required=True, help="Parquet file (data = accepted MC)")
    parser.add_argument("--params", help="JSON {name: value}; missing free parameters 0.25")
    parser.add_argument("--repeat", type=int, default=11, help="timing repeats (median)")
    parser.add_argument("--scratch-repeat", type=int, default=3,
                        help="timing repeats of the (slow) from-scratch NLL")
    parser.add_argument("--separate-mc", action="store_true",
                        help="treat the accepted MC as a separate sample (no reuse of the data "
                             "intensities), as a general fit would")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)

    import laddu_cpp as ld  # only for reading Parquet

    events = Events.from_dataset(ld.read_parquet(args.data))
    mc = Events.from_dataset(ld.read_parquet(args.data)) if args.separate_mc else events
    params = read_parameters(args.params)

    start = time.perf_counter()
    cached = CachedNLL(events, mc)
    prepare = time.perf_counter() - start
    value = cached(params)
    scratch = nll_from_scratch(events, mc, params)
    out = {
        "nll": value,
        "nll_from_scratch": scratch,
        "events": len(events.weights),
        "prepare_seconds": prepare,
        "seconds_per_value": _median_seconds(lambda: cached(params), args.repeat),
        "seconds_per_value_from_scratch":
            _median_seconds(lambda: nll_from_scratch(events, mc, params), args.scratch_repeat),
        "separate_mc": args.separate_mc,
        "numpy": np.__version__,
    }
    if args.json:
        print(json.dumps(out))
    else:
        for key, val in out.items():
            print(f"{key:32s} {val!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
