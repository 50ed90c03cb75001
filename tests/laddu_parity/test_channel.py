"""Channel topology: laddu's tutorial channel and a three-level decay chain built with each
library's Channel / Edge / Vertex API, their kinematics (masses, s, Mandelstam invariants,
momenta and angles in every vertex frame) evaluated on the same events and compared to 1e-12,
with numpy boosts as the independent check; then the constructor shapes and error types.

Events: flat γ p → K_S K_S p phase space from ld.generate_ksks, boosted as a whole by a random
velocity per event (so the target moves and no frame is the lab), with K_S(1) → π⁺ π⁻ decayed
isotropically for the chain.
"""

import numpy as np
import pytest

from conftest import both_datasets, ksks_arrays, laddu, ld

N_EVENTS = 1000
TOL = 1e-12
M_P = 0.93827208816
M_PI = 0.13957039


def boost(p4, beta):
    b2 = (beta**2).sum(axis=1)
    gamma = 1.0 / np.sqrt(1.0 - b2)
    bp = (beta * p4[:, 1:]).sum(axis=1)
    k = (gamma - 1.0) * bp / b2 + gamma * p4[:, 0]
    return np.column_stack([gamma * (p4[:, 0] + bp), p4[:, 1:] + k[:, None] * beta])


def rest(p4, frame):
    return boost(p4, -frame[:, 1:] / frame[:, 0:1])


def mass2(p):
    return p[:, 0] ** 2 - (p[:, 1:] ** 2).sum(axis=1)


def decay_isotropically(parent, m1, m2, rng):
    """Two daughters of `parent` (n, 4), isotropic in its rest frame, in the parent's frame."""
    n = len(parent)
    m = np.sqrt(mass2(parent))
    q = np.sqrt((m**2 - (m1 + m2) ** 2) * (m**2 - (m1 - m2) ** 2)) / (2.0 * m)
    cos = rng.uniform(-1.0, 1.0, n)
    phi = rng.uniform(-np.pi, np.pi, n)
    sin = np.sqrt(1.0 - cos**2)
    p = q[:, None] * np.column_stack([sin * np.cos(phi), sin * np.sin(phi), cos])
    beta = parent[:, 1:] / parent[:, 0:1]
    first = boost(np.column_stack([np.sqrt(m1**2 + q**2), p]), beta)
    second = boost(np.column_stack([np.sqrt(m2**2 + q**2), -p]), beta)
    return first, second


def events(seed=17):
    p4s, scalars = ksks_arrays(N_EVENTS, seed=seed, kk_mass_max=2.2)
    rng = np.random.default_rng(seed)
    velocity = rng.normal(0.0, 0.2, size=(N_EVENTS, 3))
    speed = np.linalg.norm(velocity, axis=1)[:, None]
    velocity *= np.minimum(1.0, 0.6 / speed)
    out = {
        "gamma": boost(p4s["beam"], velocity),
        "target": boost(np.column_stack([np.full(N_EVENTS, M_P), np.zeros((N_EVENTS, 3))]), velocity),
        "recoil": boost(p4s["proton"], velocity),
        "ks1": boost(p4s["kshort1"], velocity),
        "ks2": boost(p4s["kshort2"], velocity),
    }
    out["pip"], out["pim"] = decay_isotropically(out["ks1"], M_PI, M_PI, rng)
    out["X"] = out["ks1"] + out["ks2"]
    return out, scalars


@pytest.fixture(scope="module")
def sample():
    p4s, scalars = events()
    theirs, ours = both_datasets(p4s, scalars)
    return p4s, theirs, ours


def tutorial_channel(lib):
    """laddu's quantum-numbers.md channel: X inferred from the kaons."""
    return lib.Channel(
        "gamma p -> K_S K_S p",
        edges=[
            lib.Edge("gamma", p4="gamma", particle=lib.particles.PHOTON, output=True),
            lib.Edge("target", p4="target", particle=lib.particles.PROTON, output=True),
            lib.Edge("X"),
            lib.Edge("recoil", p4="recoil", particle=lib.particles.PROTON, output=True),
            lib.Edge("ks1", p4="ks1", particle=lib.particles.K_SHORT, output=True),
            lib.Edge("ks2", p4="ks2", particle=lib.particles.K_SHORT, output=True),
        ],
        vertices=[
            lib.Vertex("production", incoming=["gamma", "target"], outgoing=["X", "recoil"]),
            lib.Vertex("decay", incoming=["X"], outgoing=["ks1", "ks2"]),
        ],
    )


def chain_channel(lib):
    """γ p → X p, X → K_S K_S, K_S → π⁺ π⁻: target, X and ks1 inferred, three vertex frames deep."""
    return lib.Channel(
        "gamma p -> (pi+ pi-) K_S p",
        edges=[
            lib.Edge("gamma", p4="gamma"),
            lib.Edge("target"),
            lib.Edge("X"),
            lib.Edge("recoil", p4="recoil"),
            lib.Edge("ks1"),
            lib.Edge("ks2", p4="ks2"),
            lib.Edge("pip", p4="pip"),
            lib.Edge("pim", p4="pim"),
        ],
        vertices=[
            lib.Vertex("production", incoming=["gamma", "target"], outgoing=["X", "recoil"]),
            lib.Vertex("decay", incoming=["X"], outgoing=["ks1", "ks2"]),
            lib.Vertex("ks_decay", incoming=["ks1"], outgoing=["pip", "pim"]),
        ],
    )


CHANNELS = {"tutorial": tutorial_channel, "chain": chain_channel}


def values(data, expr):
    return np.asarray(data.evaluate(expr, real=True))


def both(sample, build):
    """build(lib) -> Expr, evaluated per event by each library: (ours, theirs)."""
    _, theirs, ours = sample
    return values(ours, build(ld)), values(theirs, build(laddu))


def assert_close(ours, theirs, what, scale=None):
    scale = np.max(np.abs(theirs)) if scale is None else scale
    np.testing.assert_allclose(ours, theirs, rtol=TOL, atol=TOL * max(scale, 1.0), err_msg=what)


def lab_p4s(p4s):
    """Every edge's lab four-momentum by numpy: measured, or by momentum conservation."""
    out = dict(p4s)
    out["X"] = p4s["ks1"] + p4s["ks2"]
    return out


# ---- invariants ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(CHANNELS))
def test_masses_and_s_of_every_edge(sample, name):
    p4s = lab_p4s(sample[0])
    for edge in ld_channel_edges(name):
        ours_s, theirs_s = both(sample, lambda lib, e=edge: CHANNELS[name](lib).s(e))
        assert_close(ours_s, theirs_s, f"s({edge})")
        np.testing.assert_allclose(ours_s, mass2(p4s[edge]), rtol=1e-9, atol=1e-9, err_msg=f"s({edge}) vs numpy")
        ours_m, theirs_m = both(sample, lambda lib, e=edge: CHANNELS[name](lib).mass(e))
        timelike = theirs_s > 1e-9  # the photon's mass is rounding noise around 0
        if timelike.any():
            assert_close(ours_m[timelike], theirs_m[timelike], f"mass({edge})")


def ld_channel_edges(name):
    return CHANNELS[name](ld).edge_names


@pytest.mark.parametrize("name", sorted(CHANNELS))
@pytest.mark.parametrize("invariant", ["s", "t", "u"])
def test_mandelstam_of_the_production_vertex(sample, name, invariant):
    p4s = lab_p4s(sample[0])
    ours, theirs = both(sample, lambda lib: getattr(CHANNELS[name](lib).vertex("production"), invariant)())
    assert_close(ours, theirs, invariant)
    by_channel, theirs_by_channel = both(
        sample, lambda lib: CHANNELS[name](lib).vertex("production").mandelstam(lib.MandelstamChannel(invariant))
    )
    assert_close(by_channel, theirs_by_channel, f"mandelstam({invariant})")
    np.testing.assert_array_equal(by_channel, ours)
    expected = {
        "s": mass2(p4s["gamma"] + p4s["target"]),
        "t": mass2(p4s["gamma"] - p4s["X"]),
        "u": mass2(p4s["gamma"] - p4s["recoil"]),
    }[invariant]
    np.testing.assert_allclose(ours, expected, rtol=1e-9, atol=1e-9 * np.max(np.abs(expected)))


# ---- vertex frames ------------------------------------------------------------------------


def numpy_frames(p4s):
    """Every edge in every vertex frame: lab → CM(gamma + target) → X → ks1."""
    cm = p4s["gamma"] + p4s["target"]
    production = {k: rest(v, cm) for k, v in p4s.items()}
    decay = {k: rest(v, production["X"]) for k, v in production.items()}
    ks_decay = {k: rest(v, decay["ks1"]) for k, v in decay.items()}
    return {"production": production, "decay": decay, "ks_decay": ks_decay}


@pytest.mark.parametrize("name", sorted(CHANNELS))
def test_momenta_in_every_vertex_frame(sample, name):
    frames = numpy_frames(lab_p4s(sample[0]))
    channel = CHANNELS[name](ld)
    for vertex in channel.vertex_names:
        scale = max(np.max(np.abs(frames[vertex][edge][:, 1:])) for edge in channel.edge_names)
        for edge in channel.edge_names:
            for k, component in enumerate(("px", "py", "pz")):
                ours, theirs = both(sample, lambda lib, v=vertex, e=edge, c=component: getattr(CHANNELS[name](lib).vertex(v).vec3(e), c)())
                assert_close(ours, theirs, f"{vertex}: {edge}.{component}", scale=scale)
                np.testing.assert_allclose(ours, frames[vertex][edge][:, k + 1], atol=1e-10 * scale, err_msg=f"{vertex}: {edge} vs numpy")


def axes(lib, name, vertex, system):
    """(frame, z axis, y hint) of the helicity or Gottfried-Jackson system at `vertex`: z along
    the parent's flight (or the beam) seen from the frame, y normal to the production plane."""
    channel = CHANNELS[name](lib)
    production = channel.vertex("production")
    frame = channel.vertex(vertex)
    y_hint = production.vec3("gamma").cross(production.vec3("X"))
    parent = {"production": "gamma", "decay": "recoil", "ks_decay": "ks2"}[vertex]
    z_axis = -frame.vec3(parent) if system == "helicity" else frame.vec3("gamma")
    return frame, z_axis, y_hint


def daughters(name, vertex):
    if vertex == "production":
        return ["X", "recoil"]
    return ["ks1", "ks2"] if vertex == "decay" else ["pip", "pim"]


@pytest.mark.parametrize("name,vertex", [("tutorial", "production"), ("tutorial", "decay"), ("chain", "decay"), ("chain", "ks_decay")])
@pytest.mark.parametrize("system", ["helicity", "gottfried_jackson"])
def test_angles_in_every_vertex_frame(sample, name, vertex, system):
    for edge in daughters(name, vertex):
        results = {}
        for kind in ("costheta", "theta", "phi"):
            def build(lib, kind=kind, edge=edge):
                frame, z_axis, y_hint = axes(lib, name, vertex, system)
                return getattr(frame, kind)(edge, z_axis=z_axis, y_hint=y_hint)

            results[kind] = both(sample, build)
        (ours_c, theirs_c), (ours_t, theirs_t), (ours_p, theirs_p) = (results[k] for k in ("costheta", "theta", "phi"))
        assert np.max(np.abs(ours_c - theirs_c)) <= TOL, f"{vertex} {edge} cos theta"
        # laddu's theta is acos(cos theta), which loses digits where |cos theta| -> 1; ours is
        # atan2(|p x z|, p.z) (docs/physics.md). Away from the poles both agree to 1e-12.
        interior = np.abs(theirs_c) < 0.999
        assert np.max(np.abs(ours_t - theirs_t)[interior]) <= TOL, f"{vertex} {edge} theta"
        assert np.max(np.abs(ours_t - np.arccos(np.clip(ours_c, -1, 1)))) <= 1e-7
        wrapped = np.angle(np.exp(1j * (ours_p - theirs_p)))
        assert np.max(np.abs(wrapped)) <= TOL * np.pi, f"{vertex} {edge} phi"


def test_chain_helicity_angles_match_numpy(sample):
    """The π⁺ angles in the K_S(1) frame, from numpy boosts, against laddu-cpp."""
    frames = numpy_frames(lab_p4s(sample[0]))
    f = frames["ks_decay"]
    z = -f["ks2"][:, 1:] / np.linalg.norm(f["ks2"][:, 1:], axis=1)[:, None]
    prod = frames["production"]
    y = np.cross(prod["gamma"][:, 1:], prod["X"][:, 1:])
    y = y - z * (y * z).sum(axis=1)[:, None]
    y /= np.linalg.norm(y, axis=1)[:, None]
    x = np.cross(y, z)
    p = f["pip"][:, 1:]
    costheta = (p * z).sum(axis=1) / np.linalg.norm(p, axis=1)
    phi = np.arctan2((p * y).sum(axis=1), (p * x).sum(axis=1))
    frame, z_axis, y_hint = axes(ld, "chain", "ks_decay", "helicity")
    _, _, ours = sample
    np.testing.assert_allclose(values(ours, frame.costheta("pip", z_axis=z_axis, y_hint=y_hint)), costheta, atol=1e-10)
    np.testing.assert_allclose(
        np.angle(np.exp(1j * (values(ours, frame.phi("pip", z_axis=z_axis, y_hint=y_hint)) - phi))), 0.0, atol=1e-9
    )


# ---- API shape and errors -----------------------------------------------------------------


def test_accessors_match(sample):
    for name in CHANNELS:
        ours, theirs = CHANNELS[name](ld), CHANNELS[name](laddu)
        assert ours.name == theirs.name
        assert ours.edge_names == theirs.edge_names
        assert ours.vertex_names == theirs.vertex_names
        assert repr(ours) == repr(theirs)
    ours, theirs = tutorial_channel(ld), tutorial_channel(laddu)
    assert ours.particle("ks1").name == theirs.particle("ks1").name
    assert ours.particle("ks1").mass == theirs.particle("ks1").mass
    for lib in (ld, laddu):
        edge = lib.Edge("a", p4="col", output=False)
        assert (edge.name, edge.p4, edge.output, edge.particle) == ("a", "col", False, None)
        assert repr(edge) == 'Edge("a")'
        vertex = lib.Vertex("v", incoming=["a"], outgoing=["b"])
        assert (vertex.name, vertex.incoming, vertex.outgoing, repr(vertex)) == ("v", ["a"], ["b"], 'Vertex("v")')


VALUE_ERRORS = {
    "empty edge name": lambda lib: lib.Edge(""),
    "empty vertex name": lambda lib: lib.Vertex("", incoming=["a"], outgoing=["b"]),
    "vertex without incoming": lambda lib: lib.Vertex("v", incoming=[], outgoing=["b"]),
    "edge twice in a vertex": lambda lib: lib.Vertex("v", incoming=["a"], outgoing=["a"]),
    "duplicate edge": lambda lib: lib.Channel("c", edges=[lib.Edge("a"), lib.Edge("a")], vertices=[]),
    "duplicate vertex": lambda lib: lib.Channel(
        "c", edges=[lib.Edge("a"), lib.Edge("b")], vertices=[lib.Vertex("v", incoming=["a"], outgoing=["b"])] * 2
    ),
}


@pytest.mark.parametrize("case", sorted(VALUE_ERRORS))
def test_value_errors_match(case):
    for lib in (ld, laddu):
        with pytest.raises(ValueError):
            VALUE_ERRORS[case](lib)


TYPE_ERRORS = {
    "positional p4": lambda lib: lib.Edge("a", "col"),
    "positional incoming": lambda lib: lib.Vertex("v", ["a"], ["b"]),
    "positional edges": lambda lib: lib.Channel("c", [], []),
    "missing vertices": lambda lib: lib.Channel("c", edges=[]),
    "positional z_axis": lambda lib: tutorial_channel(lib).vertex("decay").phi("ks1", lib.Vec3.z_axis(), lib.Vec3.y_axis()),
    "missing y_hint": lambda lib: tutorial_channel(lib).vertex("decay").theta("ks1", z_axis=lib.Vec3.z_axis()),
    "constructing a VertexFrame": lambda lib: lib.VertexFrame(),
}


@pytest.mark.parametrize("case", sorted(TYPE_ERRORS))
def test_type_errors_match(case):
    for lib in (ld, laddu):
        with pytest.raises(TypeError):
            TYPE_ERRORS[case](lib)


LADDU_ERRORS = {
    "unknown edge in a vertex": lambda lib: lib.Channel(
        "c", edges=[lib.Edge("a")], vertices=[lib.Vertex("v", incoming=["a"], outgoing=["q"])]
    ),
    "unknown vertex": lambda lib: tutorial_channel(lib).vertex("nope"),
    "unknown edge": lambda lib: tutorial_channel(lib).mass("nope"),
    "edge without particle": lambda lib: tutorial_channel(lib).particle("X"),
    "mandelstam of a decay": lambda lib: tutorial_channel(lib).vertex("decay").t(),
    "not inferable": lambda lib: lib.Channel(
        "c", edges=[lib.Edge("x"), lib.Edge("a"), lib.Edge("b", p4="b")],
        vertices=[lib.Vertex("v", incoming=["x"], outgoing=["a", "b"])],
    ).mass("x"),
}


@pytest.mark.parametrize("case", sorted(LADDU_ERRORS))
def test_laddu_errors_match(case):
    """laddu raises LadduError; laddu-cpp raises ld.ModelError, a subclass of ld.LadduError."""
    with pytest.raises(laddu.LadduError):
        LADDU_ERRORS[case](laddu)
    with pytest.raises(ld.ModelError):
        LADDU_ERRORS[case](ld)


def test_malformed_topologies_laddu_accepts_are_errors_here():
    """A cycle, a dangling edge, and an edge consumed twice: laddu builds these channels
    (failing later, if at all); laddu-cpp refuses them when built (docs/laddu_parity.md)."""
    cases = {
        "cycle": (["a", "b"], [("ab", ["a"], ["b"]), ("ba", ["b"], ["a"])]),
        "dangling": (["a", "b", "c"], [("v", ["a"], ["b"])]),
        "consumed twice": (["x", "a", "b"], [("one", ["x"], ["a"]), ("two", ["x"], ["b"])]),
    }
    for edges, vertices in cases.values():
        def build(lib, edges=edges, vertices=vertices):
            return lib.Channel(
                "c", edges=[lib.Edge(e, p4=e) for e in edges],
                vertices=[lib.Vertex(n, incoming=i, outgoing=o) for n, i, o in vertices],
            )

        build(laddu)
        with pytest.raises(ld.ModelError):
            build(ld)


def test_frame_of_a_vertex_with_two_incoming_edges(sample):
    """X + ks2 → "pair" below the root: laddu boosts into X's rest frame only; laddu-cpp into
    the centre of momentum of X + ks2, which is the vertex's frame (docs/physics.md)."""
    def build(lib):
        return lib.Channel(
            "c",
            edges=[lib.Edge("gamma", p4="gamma"), lib.Edge("target", p4="target"), lib.Edge("X", p4="X"),
                   lib.Edge("recoil", p4="recoil"), lib.Edge("ks2", p4="ks2"), lib.Edge("pip", p4="pip"),
                   lib.Edge("rest")],
            vertices=[lib.Vertex("production", incoming=["gamma", "target"], outgoing=["X", "recoil"]),
                      lib.Vertex("pair", incoming=["X", "ks2"], outgoing=["pip", "rest"])],
        )

    p4s, theirs, ours = sample
    x = p4s["X"]
    cm = p4s["gamma"] + p4s["target"]
    x_cm, ks2_cm = rest(x, cm), rest(p4s["ks2"], cm)
    ours_pz = values(ours, build(ld).vertex("pair").vec3("ks2").pz())
    theirs_pz = values(theirs, build(laddu).vertex("pair").vec3("ks2").pz())
    np.testing.assert_allclose(ours_pz, rest(ks2_cm, x_cm + ks2_cm)[:, 3], atol=1e-10)
    np.testing.assert_allclose(theirs_pz, rest(ks2_cm, x_cm)[:, 3], atol=1e-10)
