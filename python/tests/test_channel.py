"""Channel, Edge, Vertex and VertexFrame: laddu's quantum-numbers.md channel blocks as written
(only the import changed), the constructor shapes, the accessors, the kinematics against numpy,
and one test per malformed topology."""

import numpy as np
import pytest

import laddu_cpp as ld

M_P = 0.93827208816


# ---- laddu's tutorial (docs/tutorials/quantum-numbers.md), the blocks about channels --------


@pytest.fixture
def tutorial():
    """The "Particles" and "Reaction channels" blocks, as written."""
    photon = ld.particles.PHOTON
    proton = ld.particles.PROTON
    kaon = ld.particles.K_SHORT

    x_state = ld.Particle(
        "X",
        species="X",
        self_conjugate=True,
        spin=2,
        parity="+",
        statistics=ld.Statistics.BOSON,
    )

    channel = ld.Channel(
        "gamma p -> K_S K_S p",
        edges=[
            ld.Edge("gamma", p4="gamma", particle=photon, output=True),
            ld.Edge("target", p4="target", particle=proton, output=True),
            ld.Edge("X", particle=x_state),
            ld.Edge("recoil", p4="recoil", particle=proton, output=True),
            ld.Edge("ks1", p4="ks1", particle=kaon, output=True),
            ld.Edge("ks2", p4="ks2", particle=kaon, output=True),
        ],
        vertices=[
            ld.Vertex(
                "production",
                incoming=["gamma", "target"],
                outgoing=["X", "recoil"],
            ),
            ld.Vertex("decay", incoming=["X"], outgoing=["ks1", "ks2"]),
        ],
    )
    return {"channel": channel, "x_state": x_state, "proton": proton, "kaon": kaon}


def boost(p4, beta):
    """numpy: p4 (n, 4) boosted by velocity beta (n, 3)."""
    b2 = (beta**2).sum(axis=1)
    gamma = 1.0 / np.sqrt(1.0 - b2)
    bp = (beta * p4[:, 1:]).sum(axis=1)
    k = (gamma - 1.0) * bp / b2 + gamma * p4[:, 0]
    return np.column_stack([gamma * (p4[:, 0] + bp), p4[:, 1:] + k[:, None] * beta])


def rest(p4, frame):
    return boost(p4, -frame[:, 1:] / frame[:, 0:1])


def unit(v):
    return v / np.linalg.norm(v, axis=1)[:, None]


def tutorial_events(n=300, seed=4):
    """γ p → K_S K_S p with a moving, tilted target, so no frame is the lab."""
    events = ld.generate_ksks(n, seed=seed, kk_mass_max=2.0)
    rng = np.random.default_rng(seed)
    velocity = rng.normal(0.0, 0.2, size=(n, 3))
    p4s = {name: boost(np.asarray(events.p4(column)), velocity)
           for name, column in (("gamma", "beam"), ("recoil", "proton"), ("ks1", "kshort1"), ("ks2", "kshort2"))}
    at_rest = np.column_stack([np.full(n, M_P), np.zeros((n, 3))])
    p4s["target"] = boost(at_rest, velocity)
    return p4s, ld.Dataset.from_arrays(p4s=p4s)


def test_tutorial_kinematic_expressions_and_frames(tutorial):
    """The "Kinematic expressions and frames" block as written, then its values against numpy."""
    channel = tutorial["channel"]

    mass_x = channel.mass("X")
    s_x = channel.s("X")

    production = channel.vertex("production")
    decay = channel.vertex("decay")

    beam_axis = production.vec3("gamma")
    helicity_axis = production.vec3("X")
    production_normal = beam_axis.cross(helicity_axis)

    theta_h = decay.theta("ks1", z_axis=helicity_axis, y_hint=production_normal)
    phi_h = decay.phi("ks1", z_axis=helicity_axis, y_hint=production_normal)

    p4s, data = tutorial_events()
    x = p4s["ks1"] + p4s["ks2"]
    cm = p4s["gamma"] + p4s["target"]
    np.testing.assert_allclose(data.evaluate(s_x, real=True), x[:, 0] ** 2 - (x[:, 1:] ** 2).sum(axis=1), rtol=1e-12)
    np.testing.assert_allclose(data.evaluate(mass_x, real=True) ** 2, data.evaluate(s_x, real=True), rtol=1e-12)
    gamma_cm, x_cm, ks1_cm = (rest(v, cm) for v in (p4s["gamma"], x, p4s["ks1"]))
    ks1_x = rest(ks1_cm, x_cm)[:, 1:]
    z = unit(x_cm[:, 1:])
    y = np.cross(gamma_cm[:, 1:], x_cm[:, 1:])
    y = unit(y - z * (y * z).sum(axis=1)[:, None])
    xa = np.cross(y, z)
    theta = np.arccos((ks1_x * z).sum(axis=1) / np.linalg.norm(ks1_x, axis=1))
    phi = np.arctan2((ks1_x * y).sum(axis=1), (ks1_x * xa).sum(axis=1))
    np.testing.assert_allclose(data.evaluate(theta_h, real=True), theta, atol=1e-11)
    np.testing.assert_allclose(data.evaluate(phi_h, real=True), phi, atol=1e-11)
    costheta = decay.costheta("ks1", z_axis=helicity_axis, y_hint=production_normal)
    np.testing.assert_allclose(data.evaluate(costheta, real=True), np.cos(theta), atol=1e-12)


def test_tutorial_channel_accessors(tutorial):
    channel = tutorial["channel"]
    assert channel.name == "gamma p -> K_S K_S p"
    assert channel.edge_names == ["gamma", "target", "X", "recoil", "ks1", "ks2"]
    assert channel.vertex_names == ["production", "decay"]
    assert channel.initial_edges == ["gamma", "target"]
    assert channel.intermediate_edges == ["X"]
    assert channel.final_edges == ["recoil", "ks1", "ks2"]
    assert channel.particle("X").name == "X" and channel.particle("X").spin == ld.S(2)
    assert channel.particle("recoil").mass == tutorial["proton"].mass == M_P
    assert repr(channel) == 'Channel("gamma p -> K_S K_S p", edges=6, vertices=2)'
    assert repr(channel.vertex("decay")) == 'VertexFrame("decay")'
    assert channel.vertex("decay").name == "decay"


# ---- constructor shapes and defaults (laddu's signatures) ------------------------------------


def test_edge_keywords_and_defaults():
    edge = ld.Edge("ks1")
    assert (edge.name, edge.p4, edge.particle, edge.output) == ("ks1", None, None, True)
    edge = ld.Edge("ks1", p4="kshort1", particle=ld.particles.K_SHORT, output=False)
    assert (edge.p4, edge.particle.name, edge.output) == ("kshort1", ld.particles.K_SHORT.name, False)
    assert repr(edge) == 'Edge("ks1")'
    assert isinstance(ld.Edge("x", p4=ld.Vec4.event("a")).p4, ld.Vec4)  # laddu-cpp also takes a Vec4
    with pytest.raises(TypeError):
        ld.Edge("ks1", "kshort1")  # p4 is keyword-only, as in laddu
    with pytest.raises(TypeError, match="Edge p4 must be a column name"):
        ld.Edge("x", p4=3)
    with pytest.raises(ValueError, match="edge name cannot be empty"):
        ld.Edge("")


@pytest.mark.parametrize("keyword", ["initial_momentum", "mass_proposal"])
def test_edge_generation_keywords_take_their_proposal_or_none(keyword):
    ld.Edge("beam", p4="beam", **{keyword: None})
    with pytest.raises(TypeError, match=f"Edge {keyword} must be"):
        ld.Edge("beam", p4="beam", **{keyword: 3.0})


def test_vertex_keywords_and_value_errors():
    vertex = ld.Vertex("decay", incoming=["x"], outgoing=["a", "b"])
    assert (vertex.name, vertex.incoming, vertex.outgoing) == ("decay", ["x"], ["a", "b"])
    assert repr(vertex) == 'Vertex("decay")'
    with pytest.raises(TypeError):
        ld.Vertex("decay", ["x"], ["a", "b"])
    ld.Vertex("decay", incoming=["x"], outgoing=["a"], generation=None)
    with pytest.raises(TypeError, match="Vertex generation must be"):
        ld.Vertex("decay", incoming=["x"], outgoing=["a"], generation="isotropic")
    with pytest.raises(ValueError, match="vertex name cannot be empty"):
        ld.Vertex("", incoming=["x"], outgoing=["a"])
    with pytest.raises(ValueError, match="at least one incoming and one outgoing"):
        ld.Vertex("decay", incoming=[], outgoing=["a"])
    with pytest.raises(ValueError, match="more than once in a vertex"):
        ld.Vertex("decay", incoming=["x"], outgoing=["x"])


def test_channel_keywords_and_duplicate_names():
    edges = [ld.Edge("x"), ld.Edge("a", p4="a"), ld.Edge("b", p4="b")]
    vertices = [ld.Vertex("decay", incoming=["x"], outgoing=["a", "b"])]
    with pytest.raises(TypeError):
        ld.Channel("c", edges, vertices)
    with pytest.raises(TypeError):
        ld.Channel("c", edges=edges)
    with pytest.raises(ValueError, match='duplicate edge name "a"'):
        ld.Channel("c", edges=[*edges, ld.Edge("a")], vertices=vertices)
    with pytest.raises(ValueError, match='duplicate vertex name "decay"'):
        ld.Channel("c", edges=edges, vertices=vertices * 2)
    with pytest.raises(TypeError):
        ld.VertexFrame()


def test_vertex_frame_angles_take_keyword_axes():
    channel = ld.Channel("c", edges=[ld.Edge("x"), ld.Edge("a", p4="a"), ld.Edge("b", p4="b")],
                         vertices=[ld.Vertex("decay", incoming=["x"], outgoing=["a", "b"])])
    decay = channel.vertex("decay")
    with pytest.raises(TypeError):
        decay.phi("a", ld.Vec3.z_axis(), ld.Vec3.y_axis())
    with pytest.raises(TypeError):
        decay.theta("a", z_axis=ld.Vec3.z_axis())


# ---- Mandelstam invariants ------------------------------------------------------------------


def fixed(e, px, py, pz):
    return ld.Vec4(e, px, py, pz)


def test_mandelstam_picks_the_pair_with_more_explicit_momenta():
    """laddu's own fixture: s from beam + target would need the inferred target."""
    channel = ld.Channel(
        "production",
        edges=[ld.Edge("beam", p4=fixed(5.0, 0, 0, 3.0)), ld.Edge("target"), ld.Edge("x", p4=fixed(3.0, 0, 0, 1.0)),
               ld.Edge("recoil", p4=fixed(3.0, 0, 0, 2.0))],
        vertices=[ld.Vertex("production", incoming=["beam", "target"], outgoing=["x", "recoil"])],
    )
    vertex = channel.vertex("production")
    empty = ld.Dataset.from_arrays(scalars={"z": np.zeros(1)})
    values = {name: empty.evaluate(getattr(vertex, name)(), real=True)[0] for name in "stu"}
    assert values == {"s": 27.0, "t": 0.0, "u": 3.0}
    for name in "stu":
        assert empty.evaluate(vertex.mandelstam(ld.MandelstamChannel(name)), real=True)[0] == values[name]
    with pytest.raises(TypeError):
        vertex.mandelstam()


def test_mandelstam_of_a_decay_vertex_is_an_error():
    channel = ld.Channel("c", edges=[ld.Edge("x"), ld.Edge("a", p4="a"), ld.Edge("b", p4="b")],
                         vertices=[ld.Vertex("decay", incoming=["x"], outgoing=["a", "b"])])
    with pytest.raises(ld.ModelError, match="Mandelstam s needs a 2 -> 2 vertex, but vertex 'decay' is 1 -> 2"):
        channel.vertex("decay").s()


# ---- malformed topologies, one test each ----------------------------------------------------


def build(edges, vertices):
    return ld.Channel("c", edges=[ld.Edge(name, p4=name if measured else None) for name, measured in edges],
                      vertices=[ld.Vertex(name, incoming=i, outgoing=o) for name, i, o in vertices])


def test_cycle():
    with pytest.raises(ld.ModelError, match="vertices ab -> ba -> ab form a cycle"):
        build([("a", False), ("b", False)], [("ab", ["a"], ["b"]), ("ba", ["b"], ["a"])])


def test_dangling_edge():
    with pytest.raises(ld.ModelError, match="edge 'spare' is not connected to any vertex"):
        build([("a", True), ("b", True), ("spare", True)], [("v", ["a"], ["b"])])


def test_edge_consumed_twice():
    with pytest.raises(ld.ModelError, match="edge 'x' is an incoming edge of both vertex 'one' and vertex 'two'"):
        build([("x", False), ("a", True), ("b", True)], [("one", ["x"], ["a"]), ("two", ["x"], ["b"])])


def test_edge_produced_twice():
    with pytest.raises(ld.ModelError, match="edge 'x' is an outgoing edge of both vertex 'one' and vertex 'two'"):
        build([("a", True), ("b", True), ("x", True)], [("one", ["a"], ["x"]), ("two", ["b"], ["x"])])


def test_unknown_edge_in_a_vertex():
    with pytest.raises(ld.ModelError, match=r"vertex 'v' uses unknown edge 'z'; add Edge\('z', \.\.\.\)"):
        build([("a", True), ("b", True)], [("v", ["a"], ["b", "z"])])


def test_edge_without_p4_that_cannot_be_inferred():
    channel = build([("x", False), ("a", False), ("b", True)], [("decay", ["x"], ["a", "b"])])
    with pytest.raises(ld.ModelError, match="edge 'x' has no p4 and cannot be inferred .* without a p4 are 'a'"):
        channel.mass("x")


def test_edge_inferred_ambiguously():
    channel = build([("a", True), ("b", True), ("x", False), ("y", True), ("c", True), ("d", True), ("e", True)],
                    [("production", ["a", "b"], ["x", "y"]), ("scatter", ["x", "c"], ["d", "e"])])
    with pytest.raises(ld.ModelError, match="edge 'x' is ambiguous"):
        channel.p4("x")


def test_vertex_frame_reached_by_two_paths():
    channel = build([("i", True), ("l", False), ("r", False), ("jl", True), ("jr", True), ("out", True)],
                    [("root", ["i"], ["l", "r"]), ("left", ["l"], ["jl"]), ("right", ["r"], ["jr"]),
                     ("target", ["jl", "jr"], ["out"])])
    frame = channel.vertex("target")  # laddu also fails only when the frame is used
    with pytest.raises(ld.ModelError, match="the frame of vertex 'target' is ambiguous"):
        frame.vec3("out")


def test_p4_column_the_dataset_lacks(tutorial):
    channel = tutorial["channel"]
    p4s, data = tutorial_events(5)
    channel.check_dataset(data)
    partial = ld.Dataset.from_arrays(p4s={k: v for k, v in p4s.items() if k != "recoil"})
    with pytest.raises(ld.DataError, match="edge 'recoil' reads the four-momentum column 'recoil', which the dataset lacks"):
        channel.check_dataset(partial)
    with pytest.raises(TypeError, match="dataset must be an ld.Dataset, got dict"):
        channel.check_dataset(p4s)


def test_unknown_names_and_missing_particles(tutorial):
    channel = tutorial["channel"]
    with pytest.raises(ld.ModelError, match="unknown vertex 'nope'"):
        channel.vertex("nope")
    with pytest.raises(ld.ModelError, match="unknown edge 'nope'"):
        channel.mass("nope")
    bare = build([("x", False), ("a", True), ("b", True)], [("decay", ["x"], ["a", "b"])])
    with pytest.raises(ld.ModelError, match=r"edge 'x' has no particle properties; pass Edge\('x', particle=\.\.\.\)"):
        bare.particle("x")
