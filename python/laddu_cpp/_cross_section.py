"""laddu's cross-section analysis: ``Likelihood.cross_section_integrals`` (accepted and generated
intensity integrals of a term, optionally narrowed to tagged amplitudes), ``Likelihood.cross_section``
(``CrossSection``: observed and fitted totals, acceptance, corrected yields, differential cross
sections on ``Axis`` binnings, and ``CrossSection.combine`` of independent measurements), with
uncertainties from an ``Ensemble`` (docs/cross_sections.md).

For fitted parameters θ, with I_acc = Σ_acc w I(θ) and I_gen = Σ_gen w I(θ) and luminosity L:
the observed cross section is N_obs · I_gen / (L · I_acc) (any NLL term), the fitted one
I_gen / L (an ExtendedNLL, whose I_acc is the expected accepted yield). A tagged selection S keeps
the full model's I_acc in the observed estimator: N_obs · I_S,gen / (L · I_full,acc).

The integrals and per-event intensities are the compiled ``likelihood::CrossSectionIntegrals``
(``_core._TermCrossSection``; the full model's accepted integral is the term's own normalisation
integral, so the numbers are those the fit used); this module adds the parameter mapping, the
ensembles, the binning and the combination.
"""

from __future__ import annotations

import math

import numpy as np

from . import _core
from ._estimates import BinnedEstimate, Ensemble, Estimate, next_source_id


def _luminosity(value):
    value = float(value)
    if not math.isfinite(value) or value <= 0.0:
        raise _core.ModelError(f"luminosity must be a positive finite number, got {value}")
    return value


def free_values(likelihood, parameters):
    """The likelihood's free-parameter values from a sequence or array (in parameter_names order)
    or a dict by name (the others at their defaults; an unknown name is a TypeError, as laddu)."""
    names = list(likelihood.parameter_names)
    if isinstance(parameters, dict):
        values = dict(zip(names, likelihood.default_parameters))
        for key in parameters:
            if not isinstance(key, str):
                raise TypeError("parameter mappings must use string keys")
            if key not in values:
                raise TypeError(f"unknown free parameter `{key}`; parameters: [{', '.join(names)}]")
        values.update({k: float(v) for k, v in parameters.items()})
        return [values[n] for n in names]
    if isinstance(parameters, (str, bytes)):
        raise TypeError("parameters must be a sequence of floats or a dict by name")
    try:
        values = [float(v) for v in np.asarray(parameters, dtype=float).ravel()]
    except (TypeError, ValueError):
        raise TypeError("parameters must be a sequence of floats or a dict by name") from None
    if len(values) != len(names):
        raise _core.ModelError(f"expected {len(names)} parameter values ([{', '.join(names)}]), "
                               f"got {len(values)}")
    return values


def _find_term(likelihood, term_name):
    if not isinstance(term_name, str):
        raise TypeError(f"term_name must be a str, not {type(term_name).__name__}")
    terms = list(likelihood.terms)
    matches = [t for t in terms if t.name == term_name]
    if not matches:
        raise _core.ModelError(f"no term named '{term_name}' in this likelihood; terms: "
                               f"{[t.name for t in terms]}")
    term = matches[0]
    if not isinstance(term, _core.UnbinnedNLL) or not hasattr(term, "model"):
        raise _core.ModelError(f"term '{term_name}' is not an intensity term: cross sections need "
                               "a term built with ld.NLL or ld.ExtendedNLL")
    return term


def _is_replica(term, original):
    """A bootstrap replica of `original`: the same model and accepted MC (its data resampled)."""
    return getattr(term, "model", None) is getattr(original, "model", 0) and \
        getattr(term, "accepted_mc", None) is getattr(original, "accepted_mc", 0)


def _generated_dataset(generated_mc):
    if not isinstance(generated_mc, _core.Dataset):
        raise TypeError(f"generated_mc must be an ld.Dataset, not {type(generated_mc).__name__}")
    return generated_mc


def _tag_key(tags):
    if tags is None:
        return None
    if isinstance(tags, str):
        tags = [tags]
    try:
        tags = list(tags)
    except TypeError:
        raise TypeError("tags must be a sequence of str") from None
    if not all(isinstance(t, str) for t in tags):
        raise TypeError("tags must be a sequence of str")
    key = tuple(sorted(set(tags)))
    if not key:
        raise _core.ModelError("tags is empty: name at least one tag, or leave tags out for the "
                               "full model")
    return key


class CrossSectionIntegrals:
    """Accepted and generated Monte Carlo intensity integrals of one term (the amplitudes of
    ``tags`` when given), evaluated at a likelihood's parameters (a sequence in
    ``parameter_names`` order or a dict by name). Returned by ``Likelihood.cross_section_integrals``;
    the integrals are the compiled ``likelihood::CrossSectionIntegrals``."""

    def __init__(self, *args, **kwargs):
        raise TypeError("CrossSectionIntegrals comes from Likelihood.cross_section_integrals")

    @classmethod
    def _make(cls, likelihood, term, core):
        self = object.__new__(cls)
        self._likelihood = likelihood
        self._term = term
        self._core = core
        return self

    @property
    def name(self):
        """The term's name."""
        return self._core.name

    @property
    def data_weight_sum(self):
        """Σ w over the term's observed data."""
        return self._core.data_weight_sum

    @property
    def tags(self):
        """The selected tags, sorted (None: the full model)."""
        return list(self._core.tags) or None

    def _p(self, parameters):
        """The term's parameter values from the likelihood's (a sequence or a dict)."""
        by_name = dict(zip(self._likelihood.parameter_names, free_values(self._likelihood, parameters)))
        return [by_name[n] for n in self._term.parameter_names]

    def accepted_intensities(self, parameters):
        """The selected model's intensity per accepted MC event."""
        return self._core.accepted_intensities(self._p(parameters))

    def generated_intensities(self, parameters):
        """The selected model's intensity per generated MC event."""
        return self._core.generated_intensities(self._p(parameters))

    def accepted_integral(self, parameters):
        """Σ_acc w I over the accepted MC (selected amplitudes)."""
        return self._core.accepted_integral(self._p(parameters))

    def generated_integral(self, parameters):
        """Σ_gen w I over the generated MC (selected amplitudes)."""
        return self._core.generated_integral(self._p(parameters))

    def full_accepted_integral(self, parameters):
        """Σ_acc w I of the full model: the term's normalisation integral."""
        return self._core.full_accepted_integral(self._p(parameters))

    def acceptance(self, parameters):
        """accepted_integral / generated_integral."""
        return self._core.acceptance(self._p(parameters))

    def acceptance_corrected_yield(self, parameters, *, accepted_yield):
        """accepted_yield · generated_integral / accepted_integral."""
        return self._core.acceptance_corrected_yield(self._p(parameters), float(accepted_yield))

    def observed_cross_section(self, parameters, *, luminosity):
        """N_obs · I_gen / I_full,acc / L."""
        return self._core.observed_cross_section(self._p(parameters), float(luminosity))

    def fitted_cross_section(self, parameters, *, luminosity):
        """I_gen / L; only an ExtendedNLL term has an absolute rate."""
        return self._core.fitted_cross_section(self._p(parameters), float(luminosity))

    def cross_section(self, parameters, *, luminosity):
        """Alias of observed_cross_section."""
        return self.observed_cross_section(parameters, luminosity=luminosity)

    def __repr__(self):
        return f"CrossSectionIntegrals(name={self.name!r}, tags={self.tags})"


class Axis:
    """A real expression and strictly increasing bin edges: one axis of a differential cross
    section (``Axis(expr, *, edges)``)."""

    __slots__ = ("_expr", "_edges")

    def __init__(self, expr, *, edges):
        if not isinstance(expr, _core.Expr):
            raise TypeError(f"Axis needs an ld.Expr, not {type(expr).__name__}")
        try:
            values = np.array(edges, dtype=float)
        except (TypeError, ValueError):
            raise TypeError("edges must be a sequence of numbers") from None
        if (values.ndim != 1 or len(values) < 2 or not np.all(np.isfinite(values))
                or np.any(values[1:] <= values[:-1])):
            raise _core.ModelError("axis edges must contain at least two finite increasing values")
        self._expr = expr
        self._edges = [float(v) for v in values]

    @property
    def expression(self):
        """The binned expression."""
        return self._expr

    @property
    def edges(self):
        """The bin edges."""
        return list(self._edges)

    @property
    def bins(self):
        """The number of bins."""
        return len(self._edges) - 1

    def __repr__(self):
        return f"Axis(bins={self.bins}, range=({self._edges[0]}, {self._edges[-1]}))"


class DifferentialCrossSection:
    """Data, model and component differential cross sections (values divided by bin volume,
    row-major over the axes)."""

    def __init__(self, *args, **kwargs):
        raise TypeError("DifferentialCrossSection is returned by CrossSection.differential")

    @classmethod
    def _make(cls, axes, data, model, components):
        self = object.__new__(cls)
        self._axes = [a.edges for a in axes]
        self._shape = [a.bins for a in axes]
        self._data, self._model, self._components = data, model, components
        return self

    @property
    def edges(self):
        """The bin edges of a one-dimensional result."""
        if len(self._axes) != 1:
            raise _core.ModelError("edges is only defined for one-dimensional results; use axes")
        return list(self._axes[0])

    @property
    def axes(self):
        """The edges of every axis."""
        return [list(a) for a in self._axes]

    @property
    def shape(self):
        """Bins per axis."""
        return list(self._shape)

    @property
    def data(self):
        """The acceptance-corrected data: N_k · I_gen,k / I_acc,k / L / volume."""
        return self._data

    @property
    def model(self):
        """The fitted model normalised to the observed yield: N · I_gen,k / I_acc / L / volume."""
        return self._model

    @property
    def components(self):
        """Per component name: the tagged model, on the full model's normalisation."""
        return dict(self._components)

    def __repr__(self):
        return f"DifferentialCrossSection(shape={self._shape}, components={list(self._components)})"


class _Sample:
    """One likelihood's events binned on the axes (its data and accepted MC, and the generated
    MC), with the integrals of the full model and of each component (computed once per
    differential call and likelihood)."""

    def __init__(self, section, likelihood, axes, components, reuse=None):
        """`reuse`: the sample of the likelihood this one is a bootstrap replica of, whose
        generated and (the same dataset) accepted MC bins serve unchanged."""
        term = section._term_of(likelihood)
        edges = [a._edges for a in axes]

        def bins_of(dataset):
            coordinates = [np.asarray(dataset.evaluate(a._expr, execution=term.execution, real=True),
                                      dtype=float) for a in axes]
            return _core._flat_bin_indices(coordinates, edges)

        self.full = section._integrals_for(likelihood, None)
        self.components = {name: section._integrals_for(likelihood, _tag_key(tags))
                           for name, tags in components.items()}
        self.accepted_mc = term.accepted_mc
        if reuse is not None and reuse.accepted_mc is term.accepted_mc:
            self.accepted_bins, self.generated_bins = reuse.accepted_bins, reuse.generated_bins
        else:
            self.accepted_bins, self.generated_bins = bins_of(term.accepted_mc), bins_of(section._generated)
        self.bins = _core._DifferentialBins(bins_of(term.data), self.accepted_bins, self.generated_bins,
                                            _core._bin_volumes(edges))

    def differential(self, parameters, luminosity):
        """(data, model, {component: values}) of one measurement, divided by the volumes."""
        data, model, parts = _core._differential_cross_section(
            self.full._core, [c._core for c in self.components.values()], self.bins,
            self.full._p(parameters), luminosity)
        return data, model, dict(zip(self.components, parts))

    def measurement(self, parameters, luminosity):
        """Per bin (yields, exposures) of the data, the model and each component: what
        CrossSection.combine pools."""
        p = self.full._p(parameters)
        core = self.full._core
        data, accepted, generated = core.binned(p, self.bins)
        total, full_accepted = core.data_weight_sum, core.full_accepted_integral(p)
        exposures = _exposures(luminosity, accepted, generated)
        result = {"data": (data, exposures), "model": (total * accepted / full_accepted, exposures)}
        for name, selected in self.components.items():
            _, part_accepted, part_generated = selected._core.binned(p, self.bins)
            result[name] = (total * part_accepted / full_accepted,
                            _exposures(luminosity, part_accepted, part_generated))
        return result


def _exposures(luminosity, accepted, generated):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(generated > 0.0, luminosity * accepted / generated, 0.0)


def _pool(measurements, volumes):
    yields = sum(m[0] for m in measurements)
    exposures = sum(m[1] for m in measurements)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(exposures > 0.0, yields / exposures / volumes, math.nan)


def _paired_index(index, position, count, source, reference):
    if source == reference:
        return index % count
    return (index * (2 * position + 1) + position) % count


class CrossSection:
    """A prepared cross-section analysis of one likelihood term (``Likelihood.cross_section``) or
    the exposure-weighted combination of several (``CrossSection.combine``)."""

    def __init__(self, *args, **kwargs):
        raise TypeError("CrossSection comes from Likelihood.cross_section or CrossSection.combine")

    @classmethod
    def _make(cls, likelihood, term_name, generated_mc, luminosity, parameters, ensemble):
        self = object.__new__(cls)
        self._likelihood = likelihood
        self._term_name = term_name
        self._luminosity = _luminosity(luminosity)
        self._parameters = free_values(likelihood, parameters)
        if ensemble is not None:
            if not isinstance(ensemble, Ensemble):
                raise TypeError(f"ensemble must be an ld.Ensemble, not {type(ensemble).__name__}")
            if ensemble.parameter_names != list(likelihood.parameter_names):
                raise _core.ModelError("ensemble parameter names do not match the likelihood: "
                                       f"{ensemble.parameter_names} against {list(likelihood.parameter_names)}")
        self._ensemble = ensemble
        self._members = None
        self._cache = {}
        self._counts = [0, 0]  # hits, misses
        self._generated = _generated_dataset(generated_mc)
        self._integrals_for(likelihood, None)
        return self

    def _term_of(self, likelihood):
        return _find_term(likelihood, self._term_name)

    def _integrals_for(self, likelihood, tags):
        key = (id(likelihood), tags)
        if key in self._cache:
            self._counts[0] += 1
            return self._cache[key][1]
        self._counts[1] += 1
        term = self._term_of(likelihood)
        central = self._cache.get((id(self._likelihood), tags))
        if central is not None and likelihood is not self._likelihood and _is_replica(term, central[1]._term):
            # a bootstrap replica: share the generated MC preparation of the original term
            core = central[1]._core.for_replica(term)
        else:
            core = _core._TermCrossSection(term, self._generated, list(tags or ()))
        integrals = CrossSectionIntegrals._make(likelihood, term, core)
        self._cache[key] = (likelihood, integrals)  # the likelihood kept alive so its id stays its own
        return integrals

    def diagnostics(self):
        """Integral-cache statistics: cache_hits, cache_misses, cached_integrals and
        prepared_bytes (what the cached integrals' preparations hold)."""
        return {
            "cache_hits": self._counts[0],
            "cache_misses": self._counts[1],
            "cached_integrals": len(self._cache),
            "prepared_bytes": sum(i._core.held_bytes for _, i in self._cache.values()),
        }

    # ---- totals ----

    def _estimate(self, tags, function):
        if self._members is not None:
            raise _core.ModelError("this operation is not defined for a combined CrossSection; "
                                   "use observed_total or differential")
        key = _tag_key(tags)
        integrals = self._integrals_for(self._likelihood, key)
        central = function(integrals, self._parameters, key)
        draws = []
        if self._ensemble is not None:
            replicas = self._ensemble._replicas
            for index, draw in enumerate(self._ensemble._draws.tolist()):
                own = self._integrals_for(replicas[index], key) if index < len(replicas) else integrals
                draws.append(function(own, draw, key))
        source = None if self._ensemble is None else self._ensemble.source_id
        return Estimate._make(central, np.array(draws, dtype=float), source)

    def observed_total(self, *, tags=None):
        """N_obs · I_gen / (L · I_acc): the acceptance-corrected observed cross section (tags: of
        the tagged amplitudes, on the full model's accepted normalisation)."""
        if self._members is not None:
            return self._combined_total(_tag_key(tags))
        lum = self._luminosity
        return self._estimate(tags, lambda i, p, _: i.observed_cross_section(p, luminosity=lum))

    def total(self, *, tags=None):
        """Alias of observed_total."""
        return self.observed_total(tags=tags)

    def fitted_total(self, *, tags=None):
        """I_gen / L of an ExtendedNLL term (ModelError for a shape-only NLL)."""
        lum = self._luminosity
        return self._estimate(tags, lambda i, p, _: i.fitted_cross_section(p, luminosity=lum))

    def acceptance(self, *, tags=None):
        """I_acc / I_gen of the (tagged) model."""
        return self._estimate(tags, lambda i, p, _: i.acceptance(p))

    def corrected_yield(self, *, tags=None):
        """The acceptance-corrected yield: N_obs · I_gen / I_acc (tags: N_obs · I_S,gen /
        I_full,acc)."""
        return self._estimate(tags, lambda i, p, _: i._core.corrected_yield(i._p(p)))

    # ---- differential ----

    def differential(self, axes, *, components=None):
        """The differential cross section on one Axis or a sequence of them (row-major bins):
        ``data``, ``model`` and each of ``components`` (name → tags)."""
        axes = _axes(axes)
        components = _components(components)
        if self._members is not None:
            return self._combined_differential(axes, components)
        central_sample = _Sample(self, self._likelihood, axes, components)
        lum = self._luminosity
        data, model, comps = central_sample.differential(self._parameters, lum)
        data_draws, model_draws = [], []
        comp_draws = {name: [] for name in components}
        if self._ensemble is not None:
            replicas = self._ensemble._replicas
            for index, draw in enumerate(self._ensemble._draws.tolist()):
                sample = (_Sample(self, replicas[index], axes, components, reuse=central_sample)
                          if index < len(replicas)
                          else central_sample)
                d, m, c = sample.differential(draw, lum)
                data_draws.append(d)
                model_draws.append(m)
                for name in components:
                    comp_draws[name].append(c[name])
        return DifferentialCrossSection._make(
            axes, BinnedEstimate._make(data, data_draws), BinnedEstimate._make(model, model_draws),
            {name: BinnedEstimate._make(comps[name], comp_draws[name]) for name in components})

    # ---- combination ----

    @staticmethod
    def combine(members, *, factors=None):
        """Pool independent measurements of one cross section by exposure (yields and
        L · acceptance summed per bin); ``factors`` (floats or Estimates, one per member, all
        positive) scale each member's exposure, e.g. branching fractions."""
        members = list(members)
        if not members:
            raise _core.ModelError("at least one CrossSection is required")
        for m in members:
            if not isinstance(m, CrossSection):
                raise TypeError(f"members must be CrossSection objects, not {type(m).__name__}")
            if m._members is not None:
                raise _core.ModelError("a combined CrossSection cannot be combined again; combine "
                                       "its members")
        if factors is None:
            factors = [Estimate._make(1.0, np.empty(0), None) for _ in members]
        else:
            converted = []
            for f in list(factors):
                if isinstance(f, Estimate):
                    converted.append(f)
                elif isinstance(f, (int, float, np.floating, np.integer)) and not isinstance(f, bool):
                    converted.append(Estimate(float(f)))
                else:
                    raise TypeError("factors must be floats or Estimate objects")
            factors = converted
        if len(factors) != len(members) or any(
                f.central <= 0.0 or np.any(f._draws <= 0.0) for f in factors):
            raise _core.ModelError("factors must contain one positive estimate per member")
        template = members[0]
        self = object.__new__(CrossSection)
        self.__dict__.update(template.__dict__)
        self._ensemble = None
        self._members = list(zip(members, factors))
        return self

    def _draw_count(self):
        counts = []
        for member, factor in self._members:
            if member._ensemble is not None:
                counts.append(len(member._ensemble))
            if len(factor._draws):
                counts.append(len(factor._draws))
        return min(counts) if counts else 0

    def _reference_source(self):
        for member, factor in self._members:
            if member._ensemble is not None:
                return member._ensemble.source_id
            if factor._source_id is not None:
                return factor._source_id
        return None

    def _member_draw(self, index, position, member, factor, reference):
        """(parameters, likelihood, factor value) of draw `index` for member `position`."""
        parameters, likelihood = member._parameters, member._likelihood
        ensemble = member._ensemble
        if ensemble is not None:
            k = _paired_index(index, position, len(ensemble), ensemble.source_id, reference)
            parameters = ensemble._draws[k].tolist()
            if k < len(ensemble._replicas):
                likelihood = ensemble._replicas[k]
        value = factor._central
        if len(factor._draws):
            value = float(factor._draws[_paired_index(index, position, len(factor._draws),
                                                      factor._source_id, reference)])
        return parameters, likelihood, value

    def _combined_total(self, key):
        def measurement(member, likelihood, parameters, factor):
            full = member._integrals_for(likelihood, None)
            selected = member._integrals_for(likelihood, key)
            full_accepted = full.full_accepted_integral(parameters)
            accepted = selected.accepted_integral(parameters)
            generated = selected.generated_integral(parameters)
            if full_accepted <= 0.0 or accepted <= 0.0 or generated <= 0.0:
                raise _core.EvaluationError("cross-section combination requires positive integrals")
            return (selected.data_weight_sum * accepted / full_accepted,
                    member._luminosity * factor * accepted / generated)

        def pooled(rows):
            yields = exposures = 0.0
            for y, e in rows:
                yields += y
                exposures += e
            return yields / exposures

        central = pooled(measurement(m, m._likelihood, m._parameters, f._central) for m, f in self._members)
        reference = self._reference_source()
        draws = []
        for index in range(self._draw_count()):
            rows = []
            for position, (member, factor) in enumerate(self._members):
                parameters, likelihood, value = self._member_draw(index, position, member, factor, reference)
                rows.append(measurement(member, likelihood, parameters, value))
            draws.append(pooled(rows))
        return Estimate._make(central, np.array(draws, dtype=float), next_source_id())

    def _combined_differential(self, axes, components):
        volumes = np.array(_core._bin_volumes([a._edges for a in axes]))
        samples = [_Sample(m, m._likelihood, axes, components) for m, _ in self._members]

        def measurement(sample, member, parameters, factor):
            return sample.measurement(parameters, member._luminosity * factor)

        def pooled(rows):
            out = {key: _pool([r[key] for r in rows], volumes) for key in ("data", "model")}
            out.update({name: _pool([r[name] for r in rows], volumes) for name in components})
            return out

        central = pooled([measurement(s, m, m._parameters, f._central)
                          for s, (m, f) in zip(samples, self._members)])
        reference = self._reference_source()
        draws = []
        for index in range(self._draw_count()):
            rows = []
            for position, (sample, (member, factor)) in enumerate(zip(samples, self._members)):
                parameters, likelihood, value = self._member_draw(index, position, member, factor, reference)
                if likelihood is not member._likelihood:
                    sample = _Sample(member, likelihood, axes, components, reuse=sample)
                rows.append(measurement(sample, member, parameters, value))
            draws.append(pooled(rows))
        return DifferentialCrossSection._make(
            axes,
            BinnedEstimate._make(central["data"], [d["data"] for d in draws]),
            BinnedEstimate._make(central["model"], [d["model"] for d in draws]),
            {name: BinnedEstimate._make(central[name], [d[name] for d in draws]) for name in components})

    def __repr__(self):
        if self._members is not None:
            return f"CrossSection(combined={len(self._members)})"
        return (f"CrossSection(term={self._term_name!r}, luminosity={self._luminosity}, "
                f"draws={0 if self._ensemble is None else len(self._ensemble)})")


def _axes(axes):
    if isinstance(axes, Axis):
        return [axes]
    try:
        axes = list(axes)
    except TypeError:
        raise TypeError("axes must be an Axis or a sequence of Axis objects") from None
    if not axes:
        raise _core.ModelError("at least one differential axis is required")
    if not all(isinstance(a, Axis) for a in axes):
        raise TypeError("axes must be an Axis or a sequence of Axis objects")
    return axes


def _components(components):
    if components is None:
        return {}
    if not isinstance(components, dict):
        raise TypeError("components must be a dict of name -> sequence of tags")
    out = {}
    for name, tags in components.items():
        if not isinstance(name, str):
            raise TypeError("component names must be str")
        key = _tag_key(tags)
        out[name] = list(key)
    return out


def cross_section(self, term_name, *, generated_mc, luminosity, parameters, ensemble=None):
    """laddu's Likelihood.cross_section: a CrossSection of the term named ``term_name`` at
    ``parameters`` (sequence or dict), with uncertainties from ``ensemble``."""
    _find_term(self, term_name)
    return CrossSection._make(self, term_name, generated_mc, luminosity, parameters, ensemble)


def cross_section_integrals(self, term_name, *, generated_mc, tags=None):
    """laddu's Likelihood.cross_section_integrals: the term's accepted and generated integrals
    (of the amplitudes of ``tags`` when given)."""
    term = _find_term(self, term_name)
    _generated_dataset(generated_mc)
    key = _tag_key(tags)
    return CrossSectionIntegrals._make(self, term, _core._TermCrossSection(term, generated_mc, list(key or ())))


_core.Likelihood.cross_section = cross_section
_core.Likelihood.cross_section_integrals = cross_section_integrals
