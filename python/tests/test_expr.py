"""laddu's expression vocabulary, as laddu's README and tutorials use it."""

import pytest

import laddu_cpp as ld


def test_laddu_readme_model_builds_and_lists_its_parameters():
    # laddu's README example, with only the import changed.
    s = ld.scalar("s")
    mass = ld.parameter("mass", initial=1.0, bounds=(0.5, 1.5), unit="GeV")
    width = ld.parameter("width", initial=0.1, bounds=(0.01, 0.5), unit="GeV")
    amplitude = 1.0 / (mass**2 - s - 1j * mass * width)
    model = ld.Model(amplitude.norm_sqr())
    assert model.parameter_names == ["mass", "width"]
    assert model.default_parameters == [1.0, 0.1]


def test_literals_lift_on_either_side():
    x = ld.scalar("x")
    for e in (x + 1, 1 + x, x * 2.5, 2.5 * x, x - 1j, 1j - x, x / 3, 3 / x, -x, x**2, x**0.5):
        assert isinstance(e, ld.Expr)
    assert (x + 1j).kind == "Complex"
    assert (x * 2).kind == "Real"
    assert (x**2) == (x**2)  # hash-consed: equal structure is the same node


def test_unsupported_operand_is_a_type_error():
    with pytest.raises(TypeError, match="cannot use an object of type 'str'"):
        _ = ld.scalar("x") + "a"


def test_kind_mismatch_is_a_model_error_naming_both_kinds():
    v = ld.vector([1.0, 2.0, 3.0])
    m = ld.matrix([[1.0, 0.0], [0.0, 1.0]])
    with pytest.raises(ld.ModelError, match=r"Vector\(3\).*Matrix\(2x2\)|Matrix\(2x2\).*Vector\(3\)"):
        _ = v + m


def test_matrix_rows_must_have_equal_length():
    with pytest.raises(ld.ModelError, match="equal lengths"):
        ld.matrix([[1.0, 2.0], [3.0]])


def test_matmul_operator_picks_the_product_by_shape():
    m = ld.matrix([[1.0, 2.0], [3.0, 4.0]])
    v = ld.vector([ld.scalar("a"), ld.scalar("b")])
    assert (m @ m).kind == "Matrix(2x2)"
    assert (m @ v).kind == "Vector(2)"
    assert (v @ v).kind == "Real"
    assert ld.solve(m, v).kind.startswith("Vector(2)") or ld.solve(m, v).kind == "Vector(2)"


def test_parameter_initial_range_starts_at_its_midpoint():
    p = ld.parameter("p", initial=(1.0, 3.0))
    assert ld.Model(p * ld.scalar("x")).default_parameters == [2.0]


def test_invalid_parameter_bounds_are_a_model_error():
    with pytest.raises(ld.ModelError):
        ld.parameter("p", initial=5.0, bounds=(0.0, 1.0))


def test_fix_and_free_return_new_models():
    a = ld.parameter("a", initial=1.0)
    b = ld.parameter("b", initial=2.0)
    model = ld.Model((a * ld.scalar("x") + b).norm_sqr())
    fixed = model.fix("a", 0.5)
    assert model.free_parameter_names == ["a", "b"]
    assert fixed.free_parameter_names == ["b"]
    # laddu: parameter_names is the free names, in parameter-vector order
    assert fixed.parameter_names == ["b"]
    assert len(fixed.default_parameters) == len(fixed.parameter_names)
    assert ld.Model(a * ld.parameter("c", fixed=3.0) + b).parameter_names == ["a", "b"]
    assert fixed.free("a").free_parameter_names == ["a", "b"]
    with pytest.raises(ld.ModelError, match="a"):
        model.fix("nope", 1.0)


def test_conflicting_parameter_definitions_are_a_model_error():
    a1 = ld.parameter("a", initial=1.0)
    a2 = ld.parameter("a", initial=2.0)
    with pytest.raises(ld.ModelError, match="a"):
        ld.Model(a1 * ld.scalar("x") + a2)


def test_tags_and_projection_keep_interference_of_kept_waves():
    x = ld.scalar("x")
    s_wave = (ld.parameter("s", initial=1.0) * x).tagged("S")
    d_wave = (ld.parameter("d", initial=1.0) * x * x).tagged("D")
    total = (s_wave + d_wave).norm_sqr()
    # Zeroing the D wave removes it and its coupling; the S wave survives.
    assert ld.Model(total.project(["S"])).free_parameter_names == ["s"]
    assert ld.Model(total.project(["D"])).free_parameter_names == ["d"]
    assert ld.Model(total.project(["S", "D"])).free_parameter_names == ["s", "d"]


def test_dot_output_is_graphviz():
    text = (ld.scalar("x") * 2).dot()
    assert text.startswith("digraph")
