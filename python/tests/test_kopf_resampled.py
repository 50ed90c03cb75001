"""ld.kopf_{f0,f2,a0,a2}_resampled: one K-matrix variation per seed, near the nominal one."""

import numpy as np
import pytest

import laddu_cpp as ld


@pytest.mark.parametrize(("name", "poles"), [("f0", 5), ("f2", 4), ("a0", 2), ("a2", 2)])
def test_a_seed_gives_one_variation_near_the_nominal_amplitude(name, poles):
    s = ld.scalar("s")
    production = [1.0] + [0.5] * (poles - 1)
    events = ld.Dataset.from_arrays(scalars={"s": np.linspace(0.8, 2.5, 25)})
    nominal = ld.Model(getattr(ld, f"kopf_{name}")(s, production)[1].norm_sqr())
    values = nominal.evaluate(events, real=True)

    def varied(seed):
        expression = getattr(ld, f"kopf_{name}_resampled")(s, production, seed)
        return ld.Model(expression[1].norm_sqr()).evaluate(events, real=True)

    first, again, other = varied(3), varied(3), varied(4)
    np.testing.assert_array_equal(first, again)
    assert not np.array_equal(first, other)
    assert not np.array_equal(first, values)
    # The variations scatter around the nominal amplitude: it lies inside the central 98 % of
    # 100 resampled intensities at (nearly) every s.
    spread = np.array([varied(seed) for seed in range(100)])
    low, high = np.percentile(spread, [1, 99], axis=0)
    assert np.mean((low <= values) & (values <= high)) >= 0.9
    assert hasattr(ld.amplitudes, f"kopf_{name}_resampled")


def test_bad_production_counts_are_errors():
    with pytest.raises(ld.ModelError, match="needs 2 production couplings"):
        ld.kopf_a0_resampled(ld.scalar("s"), [1.0], 1)
    with pytest.raises(TypeError):
        ld.kopf_a0_resampled(ld.scalar("s"), [1.0, 1.0], -1)
