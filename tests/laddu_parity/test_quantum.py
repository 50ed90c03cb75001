"""Quantum numbers, the particle catalogue and selection rules: laddu-cpp against laddu 0.21.4.

Every catalogue particle's fields, J coupling tables, rule reports (rule, outcome, message,
missing inputs) and allowed partial-wave lists over catalogue parents and daughter pairs.
"""

import itertools

import pytest

from conftest import laddu, ld

FIELDS = [
    "name", "species", "antiparticle_species", "self_conjugate", "spin", "parity", "c_parity",
    "g_parity", "charge", "isospin", "strangeness", "charm", "bottomness", "topness",
    "baryon_number", "electron_lepton_number", "muon_lepton_number", "tau_lepton_number",
    "statistics", "mass",
]
KEYS = sorted(k for k in dir(laddu.particles) if not k.startswith("_"))


def fields(particle):
    return {f: repr(getattr(particle, f + "_checked")) for f in FIELDS} | {"ids": particle.ids, "repr": repr(particle)}


def test_catalogue_has_laddus_particles():
    assert sorted(k for k in dir(ld.particles) if not k.startswith("_")) == KEYS


@pytest.mark.parametrize("key", KEYS)
def test_catalogue_particle_fields(key):
    ours, theirs = getattr(ld.particles, key), getattr(laddu.particles, key)
    assert fields(ours) == fields(theirs)
    if theirs.mass_checked is not None:
        assert ours.mass == theirs.mass  # bit for bit


def test_coupling_tables():
    halves = [n / 2 for n in range(0, 9)]
    for a, b in itertools.product(halves, halves):
        assert [repr(j) for j in ld.J(a).coupled_with(b)] == [repr(j) for j in laddu.J(a).coupled_with(b)]
        for t in halves + [4.5, 5.0]:
            assert ld.J(t).can_couple_to(a, b) == laddu.J(t).can_couple_to(a, b)
        assert [repr(m) for m in ld.S(a).projections()] == [repr(m) for m in laddu.S(a).projections()]


def report(lib, rules, parent, a, b, l, s):
    r = rules.evaluate(parent, daughter_a=a, daughter_b=b, l=l, s=s)
    return r.is_allowed, [(c.rule, c.outcome, c.message, c.missing) for c in r.checks]


PARENTS = ["RHO_ZERO", "OMEGA", "PHI", "ETA", "ETA_PRIME", "J_PSI", "K_SHORT", "PI_PLUS", "PROTON",
           "LAMBDA", "SIGMA_ZERO", "D_ZERO", "B_PLUS", "Z_BOSON", "TAU", "OMEGA_MINUS"]
DAUGHTERS = ["PI_PLUS", "PI_MINUS", "PI_ZERO", "K_PLUS", "K_MINUS", "K_SHORT", "ETA", "PHOTON",
             "PROTON", "ANTIPROTON", "NEUTRON", "RHO_ZERO", "MUON", "ANTIMUON", "MUON_NEUTRINO",
             "ELECTRON_ANTINEUTRINO", "LAMBDA", "XI_MINUS"]
RULESETS = {
    "angular": lambda lib: lib.RuleSet.angular(),
    "strong": lambda lib: lib.RuleSet.strong(),
    "electromagnetic": lambda lib: lib.RuleSet.electromagnetic(),
    "weak": lambda lib: lib.RuleSet.weak(),
    "strong+C+G+JPC": lambda lib: lib.RuleSet.strong().enforce("c_parity").enforce("GParity")
    .enforce("conventional_meson_jpc").with_unknown_policy("charge", "reject")
    .with_unknown_policy("isospin", "warn"),
}


def custom(lib):
    return [
        lib.Particle("X", species="X", self_conjugate=True, spin=2, parity="+",
                     statistics=lib.Statistics.BOSON),
        lib.Particle.jpc(1, parity=-1, c_parity=1),
        lib.Particle("a1", spin=1, parity=1, g_parity=-1, isospin=lib.Isospin(1, projection=0), charge=0),
        lib.Particle("N*", spin=1.5, parity="-", baryon_number=1, charge=1,
                     isospin=lib.Isospin(0.5, projection=0.5)),
    ]


@pytest.mark.parametrize("ruleset", sorted(RULESETS))
def test_rule_reports(ruleset):
    parents = [(getattr(laddu.particles, k), getattr(ld.particles, k)) for k in PARENTS]
    parents += list(zip(custom(laddu), custom(ld)))
    pairs = list(itertools.combinations_with_replacement(DAUGHTERS, 2))
    theirs_rules, ours_rules = RULESETS[ruleset](laddu), RULESETS[ruleset](ld)
    assert ours_rules.enabled_rules == theirs_rules.enabled_rules
    count = 0
    for (tp, op), (ka, kb) in itertools.product(parents, pairs):
        ta, tb = getattr(laddu.particles, ka), getattr(laddu.particles, kb)
        oa, ob = getattr(ld.particles, ka), getattr(ld.particles, kb)
        for l, s in [(0, 0), (1, 0), (1, 1), (2, 1), (1, 0.5), (3, 1.5), (2, 2)]:
            assert report(ld, ours_rules, op, oa, ob, l, s) == report(laddu, theirs_rules, tp, ta, tb, l, s), (
                tp, ka, kb, l, s)
            count += 1
    assert count > 1000


def waves(lib, selection, parent, a, b):
    return [(w.wave.label, repr(w.parity), repr(w.c_parity))
            for w in selection.allowed_partial_waves(parent, daughter_a=a, daughter_b=b)]


@pytest.mark.parametrize("kind", ["strong", "electromagnetic", "weak"])
def test_allowed_partial_waves(kind):
    theirs_sel = getattr(laddu.SelectionRules, kind)(max_l=5)
    ours_sel = getattr(ld.SelectionRules, kind)(max_l=ld.L(5))
    parents = [(getattr(laddu.particles, k), getattr(ld.particles, k)) for k in PARENTS]
    parents += list(zip(custom(laddu), custom(ld)))
    for (tp, op), (ka, kb) in itertools.product(parents, itertools.combinations_with_replacement(DAUGHTERS, 2)):
        ours = waves(ld, ours_sel, op, getattr(ld.particles, ka), getattr(ld.particles, kb))
        theirs = waves(laddu, theirs_sel, tp, getattr(laddu.particles, ka), getattr(laddu.particles, kb))
        assert ours == theirs, (tp, ka, kb)


def test_value_conversions_and_errors():
    from fractions import Fraction
    for v in [0, 1, 2, 0.5, 1.5, Fraction(3, 2), True]:
        assert repr(ld.J(v)) == repr(laddu.J(v))
        assert repr(ld.S(v)) == repr(laddu.S(v))
        assert repr(ld.M(v)) == repr(laddu.M(v)) and repr(ld.M(-v)) == repr(laddu.M(-v))
    for bad in [Fraction(1, 3), -1, 0.3, float("nan"), -1.0, 2**31]:
        with pytest.raises(laddu.LadduError) as theirs:
            laddu.J(bad)
        with pytest.raises(ld.LadduError) as ours:
            ld.J(bad)
        assert str(ours.value) == str(theirs.value)
    for bad in [1.5, ld.J(0.5)]:
        with pytest.raises(ld.LadduError, match="expected integer"):
            ld.L(bad)
    for lib in (laddu, ld):
        assert str(lib.L(2)) == "D"
        assert lib.L(3).parity == lib.Parity.NEGATIVE
        assert repr(lib.Isospin(1, projection=-1)) == "Isospin(J(1), M(-1))"
    assert hash(ld.Isospin(1, projection=-1)) == hash(laddu.Isospin(1, projection=-1))
    assert hash(ld.Isospin(0.5)) == hash(laddu.Isospin(0.5))
    assert ld.PartialWave(2, 7, 5).label == laddu.PartialWave(2, 7, 5).label == "11L72"
