"""Cross sections: Likelihood.cross_section / cross_section_integrals, CrossSection totals,
tagged totals, differentials, combinations, Estimate and BinnedEstimate arithmetic and Ensembles,
the same inputs through laddu 0.21.4 and laddu-cpp.

Bootstrap ensembles: laddu's replicas resample the data with laddu's multiplicities and ours with
ours (docs/laddu_parity.md), so each of our replica-paired draws is compared with laddu given that
replica's data and that draw's parameters."""

import numpy as np
import pytest

from conftest import assert_values_close, laddu, ld, multiplicity

LUMINOSITY = 7.5
P = [0.4, -0.3]


def model(lib, extended=False):
    x = lib.scalar("x")
    c0 = lib.complex(lib.parameter("a0", fixed=1.0), lib.parameter("b0", fixed=0.0))
    c1 = lib.complex(lib.parameter("a1", initial=0.5, bounds=(-3, 3)), lib.parameter("b1", initial=0.2, bounds=(-3, 3)))
    s = (c0 * lib.cis(x)).tagged("s")
    d = (c1 * lib.cis(2 * x) * x).tagged("d")
    expression = (s + d).norm_sqr()
    if extended:
        expression = expression * lib.parameter("n", initial=200.0, bounds=(0, None))
    return lib.Model(expression)


@pytest.fixture(scope="module")
def events():
    rng = np.random.default_rng(1)
    generated = rng.uniform(0, 2, 4000)
    accepted = generated[rng.random(4000) < 0.3 + 0.15 * generated]
    return {"data": rng.uniform(0, 2, 500), "weights": rng.uniform(0.5, 1.5, 500),
            "accepted": accepted, "generated": generated}


def dataset(lib, x, weights=None):
    kwargs = {} if weights is None else {"weights": np.asarray(weights, dtype=float)}
    return lib.Dataset.from_arrays(p4s={}, scalars={"x": np.asarray(x, dtype=float)}, **kwargs)


def analysis(lib, events, extended=False):
    cls = lib.ExtendedNLL if extended else lib.NLL
    term = cls(model(lib, extended), data=dataset(lib, events["data"], events["weights"]),
               accepted_mc=dataset(lib, events["accepted"]), name="signal")
    return lib.Likelihood([term]), dataset(lib, events["generated"])


def parameters(extended):
    return P + ([180.0] if extended else [])


@pytest.mark.parametrize("extended", [False, True])
def test_totals_acceptance_and_yields(events, extended):
    results = {}
    for lib in (laddu, ld):
        likelihood, generated = analysis(lib, events, extended)
        xs = likelihood.cross_section("signal", generated_mc=generated, luminosity=LUMINOSITY,
                                      parameters=parameters(extended))
        values = []
        for tags in (None, ["s"], ["d"], ["d", "s"]):
            values += [xs.observed_total(tags=tags).central, xs.total(tags=tags).central,
                       xs.acceptance(tags=tags).central, xs.corrected_yield(tags=tags).central]
            if extended:
                values.append(xs.fitted_total(tags=tags).central)
        results[lib] = (values, xs.diagnostics())
    assert_values_close(results[ld][0], results[laddu][0], what="totals")
    # the same integral cache traffic: one preparation per (likelihood, tag set)
    ours, theirs = results[ld][1], results[laddu][1]
    assert {k: ours[k] for k in ("cache_hits", "cache_misses", "cached_integrals")} == \
        {k: theirs[k] for k in ("cache_hits", "cache_misses", "cached_integrals")}


def test_shape_only_term_has_no_fitted_total(events):
    for lib, error in ((laddu, laddu.LadduError), (ld, ld.ModelError)):
        likelihood, generated = analysis(lib, events)
        xs = likelihood.cross_section("signal", generated_mc=generated, luminosity=LUMINOSITY, parameters=P)
        with pytest.raises(error):
            xs.fitted_total()


@pytest.mark.parametrize("tags", [None, ["d"], ["s"]])
def test_cross_section_integrals(events, tags):
    results = {}
    for lib in (laddu, ld):
        likelihood, generated = analysis(lib, events)
        ints = likelihood.cross_section_integrals("signal", generated_mc=generated, tags=tags)
        by_name = {"a1": P[0], "b1": P[1]}
        results[lib] = [ints.accepted_integral(P), ints.generated_integral(P), ints.full_accepted_integral(P),
                        ints.acceptance(P), ints.data_weight_sum, ints.acceptance_corrected_yield(P, accepted_yield=3.0),
                        ints.observed_cross_section(P, luminosity=2.0), ints.cross_section(by_name, luminosity=2.0)]
        assert ints.name == "signal" and isinstance(ints, lib.CrossSectionIntegrals)
    assert_values_close(results[ld], results[laddu], what=f"integrals {tags}")


def test_differential_one_and_two_axes(events):
    results = {}
    for lib in (laddu, ld):
        likelihood, generated = analysis(lib, events)
        xs = likelihood.cross_section("signal", generated_mc=generated, luminosity=LUMINOSITY, parameters=P)
        one = xs.differential(lib.Axis(lib.scalar("x"), edges=np.linspace(0, 2, 6)),
                              components={"s": ["s"], "d": ["d"]})
        two = xs.differential([lib.Axis(lib.scalar("x"), edges=np.linspace(0, 2, 4)),
                               lib.Axis(lib.scalar("x") * lib.scalar("x"), edges=[0.0, 0.5, 1.5, 4.0])])
        assert isinstance(one, lib.DifferentialCrossSection) and isinstance(one.model, lib.BinnedEstimate)
        results[lib] = (one, two)
    (one_l, two_l), (one_c, two_c) = results[laddu], results[ld]
    assert one_c.edges == one_l.edges and one_c.shape == one_l.shape == [5]
    assert two_c.axes == two_l.axes and two_c.shape == two_l.shape == [3, 3]
    for name in ("data", "model"):
        assert_values_close(getattr(one_c, name).central, getattr(one_l, name).central, what=name)
        # empty bins: NaN data (no acceptance) and zero model in both
        assert_values_close(getattr(two_c, name).central, getattr(two_l, name).central, what=f"2-D {name}")
    assert sorted(one_c.components) == sorted(one_l.components) == ["d", "s"]
    for name in ("s", "d"):
        assert_values_close(one_c.components[name].central, one_l.components[name].central, what=name)


def test_ensembles_propagate_draws_the_same_way(events):
    """Array ensembles: totals, tagged totals, Estimate arithmetic, combinations with factor
    draws and differentials, draw for draw."""
    draws = np.array([[0.41, -0.31], [0.38, -0.27], [0.45, -0.33], [0.36, -0.29]])
    results = {}
    for lib in (laddu, ld):
        likelihood, generated = analysis(lib, events)
        fit = lib.Ensemble.from_arrays(draws, parameter_names=["a1", "b1"])
        xs = likelihood.cross_section("signal", generated_mc=generated, luminosity=LUMINOSITY, parameters=P,
                                      ensemble=fit)
        other = lib.Ensemble.from_arrays(draws[::-1] + 0.01, parameter_names=["a1", "b1"], source_id=99)
        posterior = likelihood.cross_section("signal", generated_mc=generated, luminosity=2 * LUMINOSITY,
                                             parameters=P, ensemble=other)
        axis = lib.Axis(lib.scalar("x"), edges=np.linspace(0, 2, 3))
        total = xs.observed_total()
        mixed = total * 2.0 + xs.acceptance() - posterior.observed_total() / 3.0
        combined = lib.CrossSection.combine([xs, posterior], factors=[1.0, lib.Estimate(0.5, draws=[0.4, 0.5, 0.6])])
        diff = xs.differential(axis, components={"d": ["d"]})
        comb_diff = combined.differential(axis, components={"d": ["d"]})
        results[lib] = {
            "total": list(total.draws) + [total.std(), *total.interval(0.68), total.median(), total.mean()],
            "tagged": list(xs.corrected_yield(tags=["d"]).draws) + list(posterior.acceptance(tags=["s"]).draws),
            "mixed": list(mixed.draws) + [mixed.central],
            "combined": list(combined.observed_total().draws) + [combined.observed_total().central],
            "diff": np.ravel(diff.data.draws).tolist() + np.ravel(diff.model.covariance()).tolist()
            + np.ravel(diff.components["d"].draws).tolist() + np.ravel(diff.model.interval(0.9)).tolist(),
            "comb_diff": np.ravel(comb_diff.data.draws).tolist() + np.ravel(comb_diff.model.draws).tolist()
            + list(comb_diff.components["d"].central),
        }
        assert total.source_id == xs.acceptance().source_id == fit.source_id
        assert isinstance(combined, lib.CrossSection) and isinstance(diff.data, lib.BinnedEstimate)
    for key in results[ld]:
        # covariances cancel: 1e-10 of the largest entry
        theirs = np.asarray(results[laddu][key])
        assert_values_close(results[ld][key], theirs, rtol=1e-10, atol=1e-10 * np.max(np.abs(theirs)), what=key)


def test_bootstrap_draws_pair_each_fit_with_its_replica_data(events):
    """Each draw of a bootstrap ensemble is evaluated on its own replica's data: laddu given that
    replica's data (our multiplicities) and that draw's parameters gives the same numbers."""
    likelihood, generated = analysis(ld, events)
    boot = likelihood.bootstrap_fit(4, initial=P, seed=9, terminators=[ld.ganesh.MaxSteps(3)])
    assert len(boot) == 4 and boot.parameter_names == ["a1", "b1"] and boot.seeds == [9, 10, 11, 12]
    xs = likelihood.cross_section("signal", generated_mc=generated, luminosity=LUMINOSITY, parameters=P, ensemble=boot)
    axis_edges = np.linspace(0, 2, 4)
    ours = [xs.observed_total().draws, xs.corrected_yield(tags=["d"]).draws,
            np.asarray(xs.differential(ld.Axis(ld.scalar("x"), edges=axis_edges)).data.draws)]
    for k, replica in enumerate(boot.replicas):
        weights = np.asarray(replica.terms[0].data.weights())
        assert np.array_equal(weights, np.asarray(events["weights"]) * [
            multiplicity(9 + k, i) for i in range(len(weights))])
        term = laddu.NLL(model(laddu), data=dataset(laddu, events["data"], weights),
                         accepted_mc=dataset(laddu, events["accepted"]), name="signal")
        theirs = laddu.Likelihood([term]).cross_section(
            "signal", generated_mc=dataset(laddu, events["generated"]), luminosity=LUMINOSITY,
            parameters=list(boot.draws[k]))
        assert_values_close(ours[0][k], theirs.observed_total().central, what=f"replica {k} total")
        assert_values_close(ours[1][k], theirs.corrected_yield(tags=["d"]).central, what=f"replica {k} tagged")
        assert_values_close(ours[2][k], theirs.differential(laddu.Axis(laddu.scalar("x"), edges=axis_edges)).data.central,
                            what=f"replica {k} differential")


def test_estimate_and_ensemble_helpers():
    for lib in (laddu, ld):
        a = lib.Estimate(2.0, draws=[1.0, 3.0, 2.5, 0.5], source_id=17)
        b = lib.Estimate(1.0, draws=[10.0, 20.0, 30.0])
        values = [a.mean(), a.median(), a.std(), a.quantile(0.3), *a.interval(0.5)]
        values += list((a + b).draws) + list((a - b).draws) + list((a * b).draws) + list((a / b).draws)
        values += list((a * 4.0).draws) + list((a - a).draws) + [(a + 1.0).central]
        chain = np.arange(24.0).reshape(3, 4, 2)

        class Summary:
            parameter_names = ["p", "q"]

        Summary.chain = chain
        ensemble = lib.Ensemble.from_mcmc(Summary(), discard=1, thin=2)
        values += np.ravel(ensemble.draws).tolist() + [len(ensemble)]
        if lib is laddu:
            theirs = values
        else:
            assert_values_close(values, theirs, what="estimate helpers")
            assert (a * 4.0).source_id == 17


def test_bad_inputs_are_refused_by_both(events):
    for lib in (laddu, ld):
        likelihood, generated = analysis(lib, events)
        errors = (Exception,)
        with pytest.raises(errors):
            likelihood.cross_section("signal", generated_mc=generated, luminosity=-1.0, parameters=P)
        with pytest.raises(errors):
            likelihood.cross_section("missing", generated_mc=generated, luminosity=1.0, parameters=P)
        with pytest.raises(errors):
            lib.Axis(lib.scalar("x"), edges=[1.0, 0.0])
        with pytest.raises(errors):
            lib.Estimate(1.0).std()
        with pytest.raises(errors):
            lib.CrossSection.combine([])
        with pytest.raises(errors):
            likelihood.cross_section("signal", generated_mc=generated, luminosity=1.0, parameters=P).observed_total(
                tags=["unknown"])
