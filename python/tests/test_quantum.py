"""Quantum numbers, particles and selection rules: the Python blocks of laddu's tutorials
"Particles, channels, and quantum numbers" and "Selection rules and partial waves" that concern
these types (the channel blocks are in test_channel.py), plus checks of our own."""

from fractions import Fraction

import pytest

import laddu_cpp as ld


@pytest.fixture
def x_state():
    return ld.Particle("X", species="X", self_conjugate=True, spin=2, parity="+",
                       statistics=ld.Statistics.BOSON)


def test_exact_angular_momentum_block():
    photon_spin = ld.S(1)
    nucleon_spin = ld.S(Fraction(1, 2))
    resonance_spin = ld.J(1.5)
    assert [m.doubled for m in resonance_spin.projections()] == [-3, -1, 1, 3]
    assert photon_spin.coupled_with(nucleon_spin) == [ld.J(0.5), ld.J(1.5)]
    assert resonance_spin.doubled == 3
    assert resonance_spin.can_couple_to(photon_spin, nucleon_spin)
    assert not ld.J(0).can_couple_to(photon_spin, nucleon_spin)
    assert ld.L(2).parity == ld.Parity.POSITIVE and ld.L(1).parity == ld.Parity.NEGATIVE


def test_particles_block(x_state):
    assert ld.particles.PHOTON.spin == 1 and ld.particles.PROTON.spin == 0.5
    assert ld.particles.K_SHORT.mass == 0.497611
    assert repr(ld.particles.PROTON) == 'Particle("p")'
    assert x_state.self_conjugate and x_state.antiparticle_species == "X"
    assert x_state.charge == 0  # self-conjugate: additive numbers are zero
    assert x_state.spin == ld.S(2) and x_state.parity == ld.Parity.POSITIVE
    with pytest.raises(ValueError, match="does not define `mass`"):
        x_state.mass
    assert x_state.mass_checked is None


def test_rule_report_block(x_state):
    kaon = ld.particles.K_SHORT
    rules = ld.RuleSet.strong()
    report = rules.evaluate(x_state, daughter_a=kaon, daughter_b=kaon, l=ld.L(2), s=ld.S(0))
    assert report.is_allowed and bool(report)
    assert [c.outcome for c in report.checks if c.rule == "Parity"] == ["pass"]
    odd = rules.evaluate(x_state, daughter_a=kaon, daughter_b=kaon, l=ld.L(1), s=ld.S(0))
    failed_rules = [check.rule for check in odd.checks if check.outcome == "fail"]
    assert failed_rules == ["Parity", "IdenticalParticleSymmetry"]
    strict = rules.with_unknown_policy("isospin", "reject")
    without_c = strict.disable("c_parity")
    assert "CParity" not in without_c.enabled_rules
    # K_S has no isospin in laddu's catalogue: allowed by default, rejected under "reject".
    iso = [c for c in strict.evaluate(x_state, daughter_a=kaon, daughter_b=kaon, l=2, s=0).checks
           if c.rule == "Isospin"][0]
    assert iso.outcome == "fail" and iso.message.endswith("unknown inputs are rejected by policy")
    warn = rules.with_unknown_policy("isospin", "warn").evaluate(
        x_state, daughter_a=kaon, daughter_b=kaon, l=2, s=0)
    assert [c.missing for c in warn.checks if c.rule == "Isospin"] == [["parent.isospin"]]
    with pytest.raises(ValueError, match="unknown quantum rule"):
        rules.disable("spin_orbit")
    with pytest.raises(ValueError, match="'allow', 'reject', or 'warn'"):
        rules.with_unknown_policy("isospin", "ignore")


def test_partial_wave_block(x_state):
    kaon = ld.particles.K_SHORT
    selection = ld.SelectionRules.strong(max_l=ld.L(4))
    allowed = selection.allowed_partial_waves(x_state, daughter_a=kaon, daughter_b=kaon)
    waves = [item.wave for item in allowed]
    assert [wave.label for wave in waves] == ["1D2"]
    assert allowed[0].parity == ld.Parity.POSITIVE and allowed[0].c_parity == ld.Parity.POSITIVE
    wave = ld.PartialWave(ld.J(2), ld.L(1), ld.S(1))
    assert wave.label == "3P2" and wave.j == 2 and wave.l == 1 and wave.s == 1
    assert ld.PartialWave(1.5, 1, 0.5).label == "2P3/2"
    with pytest.raises(ld.LadduError, match="must be compatible"):
        ld.PartialWave(1, 0, 0)
    # Δ(3/2+) -> p π0 and ρ -> π+ π-.
    delta = ld.Particle.jp(1.5, parity=+1)
    assert [w.wave.label for w in selection.allowed_partial_waves(
        delta, daughter_a=ld.particles.PROTON, daughter_b=ld.particles.PI_ZERO)] == ["2P3/2"]
    assert [w.wave.label for w in selection.allowed_partial_waves(
        ld.particles.RHO_ZERO, daughter_a=ld.particles.PI_PLUS, daughter_b=ld.particles.PI_MINUS)] == ["1P1"]


@pytest.mark.parametrize("bad", [Fraction(1, 3), -1, 0.3, float("nan"), float("inf")])
def test_bad_angular_momenta_are_rejected(bad):
    with pytest.raises(ld.LadduError, match="Invalid value for angular momentum"):
        ld.J(bad)


def test_conversions_arithmetic_and_errors():
    assert ld.J(1) + ld.L(1) == ld.J(2) and repr(ld.S(1) + 0.5) == "S(3/2)"
    assert repr(ld.M(1) - 0.5) == "M(1/2)" and repr(-ld.M(1)) == "M(-1)"
    assert ld.J(1) == 1 and ld.J(1) == ld.S(1) and ld.J(1) < 1.5 and hash(ld.J(1.5)) == 3
    with pytest.raises(TypeError):
        ld.J("1")
    with pytest.raises(ld.LadduError, match="projection must be finite"):
        ld.M(float("nan"))
    with pytest.raises(ld.LadduError, match="orbital angular momentum: expected integer"):
        ld.L(ld.J(0.5))
    assert repr(ld.Parity("-")) == "Parity.NEGATIVE" and ld.Parity.POSITIVE * -1 == ld.Parity.NEGATIVE
    assert int(ld.Parity.NEGATIVE) == -1
    with pytest.raises(ValueError, match=r"\+1 or -1"):
        ld.Parity(2)
    with pytest.raises(ld.LadduError, match='valid "Parity"'):
        ld.Parity("up")
    assert ld.Statistics("boson") == ld.Statistics.BOSON and ld.Statistics.BOSON != 1
    assert ld.Statistics.from_spin(0.5) == ld.Statistics.FERMION
    with pytest.raises(ld.LadduError, match="-J <= m <= J"):
        ld.Isospin(1, projection=2)
    with pytest.raises(ld.LadduError, match="isospin.projection"):
        ld.Isospin(1).projection
    assert ld.MandelstamChannel("t") == ld.MandelstamChannel.T


def test_particle_validation():
    with pytest.raises(ValueError, match="finite and non-negative"):
        ld.Particle(mass=-1)
    with pytest.raises(ld.LadduError, match="only applicable to self-conjugate"):
        ld.Particle(self_conjugate=False, c_parity=1)
    with pytest.raises(ld.LadduError, match="expected 0 for self-conjugate particles, got 1"):
        ld.Particle(self_conjugate=True, charge=1)
    with pytest.raises(ld.LadduError, match="spin and statistics must be consistent"):
        ld.Particle(spin=1, statistics=ld.Statistics.FERMION)
    with pytest.raises(TypeError):
        ld.Particle(width=0.1)
    assert ld.Particle(c_parity=1).self_conjugate
    assert ld.Particle(ids={"pdg": 5}).ids == {"pdg": 5}
    assert ld.Particle.lepton(electron=1).strangeness == 0
    assert ld.Particle.boson(1).baryon_number == 0
    assert ld.particles.PROTON is ld.particles.PROTON


def test_wigner_d_and_clebsch_gordan_take_quantum_numbers():
    cg = ld.clebsch_gordan(j1=ld.J(1), m1=ld.M(0), j2=ld.S(0.5), m2=0.5, j=1.5, m=Fraction(1, 2))
    assert cg == pytest.approx((2 / 3) ** 0.5, abs=1e-15)
    ld.WignerD(ld.J(1), ld.M(1), 0).D(alpha=0.1, beta=0.2)  # gamma defaults to 0, as laddu's None
