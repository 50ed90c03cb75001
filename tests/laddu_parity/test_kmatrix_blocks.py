"""laddu's expression-valued K-matrix blocks (laddu.blatt_weisskopf_barriers, k_matrix, p_vector,
f_vector; crates/laddu-amplitudes/src/kmatrix.rs) against ld's, with pole masses, couplings,
backgrounds and production couplings as free parameters: every element's value and its
gradient in every parameter, on a sweep of s below, between and above the π π and K K̄
thresholds, for L = 0, 1, 2 and two parameter points; then the full F-vector chain.
"""

import numpy as np
import pytest

from conftest import (
    assert_gradients_close,
    assert_values_close,
    cpp_gradients,
    expression_values,
    laddu,
    laddu_gradients,
    ld,
    scaled_atol,
)

M_PI, M_K, M_KS = 0.13957039, 0.493677, 0.497611
M1, M2 = [M_PI, M_K], [M_PI, M_KS]
QR = 0.1973

# Below both thresholds (4 m_π² ≈ 0.078), between them, around the poles, above K K̄ (≈ 0.982).
S_SWEEP = {"s": np.array([0.02, 0.06, 0.2, 0.5, 0.8, 0.95, 0.99, 1.3, 1.9, 2.7, 3.5])}

POINTS = {
    "near": {"m0": 0.98, "m1": 1.45, "g00": 0.62, "g01": -0.31, "g10": 0.41, "g11": 0.77, "c00": 0.15,
             "c01": -0.05, "c11": 0.2, "b0 re": 0.7, "b0 im": -0.4, "b1 re": 0.2, "b1 im": 0.9,
             "d0": 0.3, "d1": -0.1},
    "far": {"m0": 0.71, "m1": 1.83, "g00": -1.1, "g01": 0.45, "g10": 0.08, "g11": -0.66, "c00": -0.4,
            "c01": 0.25, "c11": 0.05, "b0 re": -1.3, "b0 im": 0.2, "b1 re": 0.5, "b1 im": -0.75,
            "d0": -0.6, "d1": 0.35},
}


def blocks(lib, l):
    """Every block of a 2-channel, 2-pole K-matrix in `lib`, all inputs free parameters."""
    p = lib.parameter
    # laddu keeps only the real part of q below threshold for a real s (docs/laddu_parity.md);
    # a complex s gives it the continued q that ld uses for any s.
    s = lib.complex(lib.scalar("s"), 0.0) if lib is laddu else lib.scalar("s")
    poles = lib.vector([p("m0"), p("m1")])
    couplings = lib.matrix([[p("g00"), p("g01")], [p("g10"), p("g11")]])
    barriers = lib.blatt_weisskopf_barriers(
        s, channel_mass_1=lib.vector(M1), channel_mass_2=lib.vector(M2), pole_masses=poles, l=l, q_r=QR
    )
    background = lib.matrix([[p("c00"), p("c01")], [p("c01"), p("c11")]])
    production = lib.vector([lib.complex(p("b0 re"), p("b0 im")), lib.complex(p("b1 re"), p("b1 im"))])
    k = lib.k_matrix(s, pole_masses=poles, couplings=couplings, barriers=barriers)
    k_bg = lib.k_matrix(s, pole_masses=poles, couplings=couplings, barriers=barriers, background=background)
    pv = lib.p_vector(s, pole_masses=poles, production=production, couplings=couplings, barriers=barriers)
    pv_bg = lib.p_vector(s, pole_masses=poles, production=production, couplings=couplings, barriers=barriers,
                         background=lib.vector([p("d0"), p("d1")]))
    phase_space = lib.matrix(
        [[lib.chew_mandelstam(s, mass1=M1[i], mass2=M2[i]) if i == j else lib.Expr(0.0) for j in range(2)]
         for i in range(2)]
    )
    f = lib.f_vector(s, pole_masses=poles, k=k_bg, p=pv_bg, phase_space=phase_space)
    return {"barriers": barriers, "k": k, "k_background": k_bg, "p": pv, "p_background": pv_bg, "f": f}


def elements(block, name):
    shape = (2, 2) if name in ("barriers", "k", "k_background") else (2,)
    if len(shape) == 2:
        return [(f"[{i},{j}]", block.at(i, j)) for i in range(2) for j in range(2)]
    return [(f"[{i}]", block[i]) for i in range(2)]


def compare(theirs, ours, point, what):
    """Values and gradients (in every parameter laddu's model has) of one scalar element."""
    def used(lib, expression):
        return {name: point[name] for name in lib.Model(expression).parameter_names}

    expected = expression_values(laddu, theirs, S_SWEEP, used(laddu, theirs))
    assert_values_close(expression_values(ld, ours, S_SWEEP, used(ld, ours)), expected,
                        atol=scaled_atol(expected, floor=0.0), what=f"{what} value")
    names = laddu.Model(theirs).parameter_names
    if not names:
        return
    parameters = {name: point[name] for name in names}
    gradient_t = laddu_gradients(theirs, S_SWEEP, parameters, names)
    gradient_o = cpp_gradients(ours, S_SWEEP, parameters, names)
    assert_gradients_close(gradient_o, gradient_t, atol=scaled_atol(gradient_t, rtol=1e-8, floor=0.0),
                           what=f"{what} gradient")


@pytest.mark.parametrize("point", sorted(POINTS))
@pytest.mark.parametrize("l", [0, 1, 2])
@pytest.mark.parametrize("name", ["barriers", "k", "k_background", "p", "p_background"])
def test_blocks_values_and_gradients(name, l, point):
    theirs, ours = blocks(laddu, l)[name], blocks(ld, l)[name]
    for (index, t), (_, o) in zip(elements(theirs, name), elements(ours, name)):
        compare(t, o, POINTS[point], f"{name}{index} L={l} at {point}")


@pytest.mark.parametrize("point", sorted(POINTS))
@pytest.mark.parametrize("l", [0, 1, 2])
def test_f_vector_chain_with_free_pole_masses(l, point):
    """F = solve(Π I + K' C, P') from the blocks above, pole masses free in K, P, B and Π."""
    theirs, ours = blocks(laddu, l)["f"], blocks(ld, l)["f"]
    for i in range(2):
        compare(theirs[i], ours[i], POINTS[point], f"F[{i}] L={l} at {point}")
        intensity_t, intensity_o = theirs[i].norm_sqr(), ours[i].norm_sqr()
        compare(intensity_t, intensity_o, POINTS[point], f"|F[{i}]|² L={l} at {point}")


def test_f_vector_with_a_full_phase_space_matrix():
    """laddu's f_vector multiplies K by any channels × channels phase-space matrix."""
    def build(lib):
        s = lib.scalar("s")
        poles = lib.vector([lib.parameter("m0")])
        k = lib.matrix([[lib.parameter("c00"), 0.1], [0.1, lib.parameter("c11")]])
        c = lib.matrix([[lib.complex(0.2, s), 0.05], [-0.1, lib.complex(s, -0.3)]])
        p = lib.vector([1.0, lib.complex(0.0, lib.parameter("d0"))])
        return lib.f_vector(s, pole_masses=poles, k=k, p=p, phase_space=c)

    theirs, ours = build(laddu), build(ld)
    for i in range(2):
        compare(theirs[i], ours[i], POINTS["near"], f"F[{i}]")


@pytest.mark.parametrize(
    "bad",
    [
        lambda lib, s, v, m: lib.k_matrix(s, pole_masses=v, couplings=lib.matrix([[1.0, 2.0, 3.0]]), barriers=m),
        lambda lib, s, v, m: lib.k_matrix(s, pole_masses=1.0, couplings=m, barriers=m),
        lambda lib, s, v, m: lib.k_matrix(s, pole_masses=v, couplings=m, barriers=m, background=v),
        lambda lib, s, v, m: lib.p_vector(s, pole_masses=v, production=lib.vector([1.0]), couplings=m, barriers=m),
        lambda lib, s, v, m: lib.f_vector(s, pole_masses=v, k=m, p=lib.vector([1.0]), phase_space=m),
        lambda lib, s, v, m: lib.blatt_weisskopf_barriers(s, channel_mass_1=v, channel_mass_2=lib.vector([1.0]),
                                                          pole_masses=v, l=1),
        lambda lib, s, v, m: lib.blatt_weisskopf_barriers(s, channel_mass_1=v, channel_mass_2=v, pole_masses=v,
                                                          l=1.5),
    ],
)
def test_shape_mismatches_raise_ladduerror(bad):
    for lib in (laddu, ld):
        s, v, m = lib.scalar("s"), lib.vector([1.0, 1.5]), lib.matrix([[1.0, 2.0], [3.0, 4.0]])
        with pytest.raises(lib.LadduError):
            bad(lib, s, v, m)


def test_amplitudes_submodule_and_keywords():
    for name in ("blatt_weisskopf_barriers", "k_matrix", "p_vector", "f_vector"):
        assert getattr(ld.amplitudes, name) is getattr(ld, name)
        with pytest.raises(TypeError):  # keyword-only after s, as in laddu
            getattr(ld.amplitudes, name)(1.0, 1.0)
        with pytest.raises(TypeError):
            getattr(laddu.amplitudes, name)(1.0, 1.0)
