"""One plausible instance of each laddu_cpp class for python_args_fuzz.py, built lazily.

Fixtures.get(name) makes the instance named after a class (or a helper such as ``m``) once per
process, with make_<name>. A fixture that cannot be made raises FixtureError, each time it is
asked for: the fuzzer then passes None in its place, and does not count it against the call
under test.
"""

from __future__ import annotations

import os

import laddu_cpp as ld


class Fixtures:
    def __init__(self, workdir):
        self.workdir = workdir
        self._cache = {}

    def get(self, name):
        if name not in self._cache:
            try:
                self._cache[name] = getattr(self, "make_" + name)()
            except Exception as e:  # noqa: BLE001 - a fixture that cannot be made is reported
                self._cache[name] = FixtureError(name, e)
        value = self._cache[name]
        if isinstance(value, FixtureError):
            raise value
        return value

    # Expressions and models.
    def make_m(self):
        return (ld.Vec4.event("kshort1") + ld.Vec4.event("kshort2")).m()

    def make_Expr(self):
        return ld.parameter("a", initial=1.0) * self.get("m")

    def make_Model(self):
        m = self.get("m")
        s = ld.complex(ld.parameter("a", initial=1.0, bounds=(0.1, 10.0)), 0.0).tagged("S")
        d = ld.complex(ld.parameter("b", initial=0.5), 0.2).tagged("D")
        return ld.Model((s * m).norm_sqr() + (d * m * m).norm_sqr() + 0.1)

    def make_Execution(self):
        return ld.Execution(threads=1)

    # Data.
    def make_Dataset(self):
        return ld.generate_ksks(16, seed=1)

    def make_mc(self):
        return ld.generate_ksks(32, seed=2)

    def make_parquet(self):
        path = os.path.join(self.workdir, "fixture.parquet")
        if not os.path.exists(path):
            self.get("Dataset").write_to(ld.ParquetSink(path))
        return path

    def make_EventData(self):
        return ld.read_parquet(self.get("parquet"), memory="1 MiB", cache="streaming")

    def make_root(self):
        path = os.path.join(self.workdir, "fixture.root")
        if not os.path.exists(path):
            import uproot  # in the test venv; without it the ROOT fixtures are FixtureErrors

            data = self.get("Dataset")
            columns = {"weight": data.weights()}
            for name in data.p4_names():
                for i, part in enumerate(("e", "px", "py", "pz")):
                    columns[f"{name}_{part}"] = data.p4(name)[:, i]
            with uproot.recreate(path) as f:
                f.mktree("events", {key: value.dtype for key, value in columns.items()})
                f["events"].extend(columns)
        return path

    def make_RootSource(self):
        return ld.RootSource(self.get("root"))

    def make_ParquetSink(self):
        return ld.ParquetSink(os.path.join(self.workdir, "sink.parquet"))

    def make_RootSink(self):
        return ld.RootSink(os.path.join(self.workdir, "sink.root"), tree="events")

    def make_Predicate(self):
        return self.get("m") > 1.0

    def make_Bin(self):
        return ld.Bin([0.5, 1.0, 1.5, 2.0])

    def make_BinnedDataset(self):
        return self.get("Dataset").bin_by(self.get("m"), 3, range=(0.9, 2.0))

    def make_DatasetBin(self):
        return self.get("BinnedDataset")[0]

    def make_Histogram(self):
        return ld.Histogram.from_values([0.1, 0.4, 0.6, 1.2], bins=2, limits=(0.0, 1.0))

    def make_HistogramNd(self):
        return ld.HistogramNd.from_values([[0.1, 0.6], [0.2, 0.9]], bin_edges=[[0.0, 0.5, 1.0], [0.0, 1.0]])

    # Generation.
    def make_NBodyPhaseSpace(self):
        return ld.NBodyPhaseSpace(3.0, [0.5, 0.5, 0.5])

    # Physics.
    def make_Vec3(self):
        return ld.Vec3(1.0, 2.0, 3.0)

    def make_Vec4(self):
        return ld.Vec4.event("kshort1")

    def make_Edge(self):
        return ld.Edge("x", p4="kshort1")

    def make_Vertex(self):
        return ld.Vertex("decay", incoming=["x"], outgoing=["k1", "k2"])

    def make_Channel(self):
        return ld.Channel(
            "c",
            edges=[ld.Edge("x"), ld.Edge("k1", p4="kshort1"), ld.Edge("k2", p4="kshort2")],
            vertices=[ld.Vertex("decay", incoming=["x"], outgoing=["k1", "k2"])],
        )

    def make_VertexFrame(self):
        return self.get("Channel").vertex("decay")

    def make_J(self):
        return ld.J(1)

    def make_WignerD(self):
        return ld.WignerD(1, 0, 1)

    def make_Particle(self):
        return ld.particles.K_SHORT

    def make_Sheet(self):
        return ld.Sheet.Physical

    def make_BarrierKind(self):
        return ld.BarrierKind.Full

    def make_Parity(self):
        return ld.Parity.POSITIVE

    # Likelihoods and fits.
    def make_NLL(self):
        return ld.NLL(self.get("Model"), data=self.get("Dataset"), accepted_mc=self.get("mc"),
                      execution=self.get("Execution"))

    def make_UnbinnedNLL(self):
        return self.get("NLL")

    def make_LikelihoodTerm(self):
        return self.get("NLL")

    def make_ExtendedNLL(self):
        return ld.ExtendedNLL(self.get("Model"), data=self.get("Dataset"),
                              accepted_mc=self.get("mc"), execution=self.get("Execution"))

    def make_RidgePenalty(self):
        return ld.RidgePenalty(["a"], lambda_=0.1)

    def make_LassoPenalty(self):
        return ld.LassoPenalty(["b"], lambda_=0.1)

    def make_Likelihood(self):
        return ld.Likelihood([self.get("NLL"), self.get("RidgePenalty")])

    def make_LikelihoodProjection(self):
        return self.get("NLL").projection(tags=["S"])

    def make_GeneratedProjection(self):
        return self.get("Likelihood").projection(self.get("NLL"), tags=["S"],
                                                 generated_mc=self.get("mc"))

    def make_FitResult(self):
        return ld.Likelihood([self.get("NLL")]).fit(max_steps=20)

    def make_BootstrapResult(self):
        return ld.bootstrap_fit(self.get("Model"), data=self.get("Dataset"),
                                accepted_mc=self.get("mc"), samples=2)

    def make_Ensemble(self):
        return self.get("Likelihood").bootstrap_fit(2, max_steps=10)

    # Cross sections.
    def make_Estimate(self):
        return ld.Estimate(1.0, draws=[0.5, 1.5, 1.0])

    def make_Axis(self):
        return ld.Axis(self.get("m"), edges=[0.0, 1.0, 3.0])

    def make_CrossSection(self):
        likelihood = self.get("Likelihood")
        return likelihood.cross_section("nll", generated_mc=self.get("mc"), luminosity=2.0,
                                        parameters=likelihood.default_parameters,
                                        ensemble=self.get("Ensemble"))

    def make_CrossSectionIntegrals(self):
        return self.get("Likelihood").cross_section_integrals("nll", generated_mc=self.get("mc"),
                                                              tags=["S"])

    def make_DifferentialCrossSection(self):
        return self.get("CrossSection").differential(self.get("Axis"), components={"s": ["S"]})

    def make_BinnedEstimate(self):
        return self.get("DifferentialCrossSection").model

    # ld.ganesh.
    def make_MaxSteps(self):
        return ld.ganesh.MaxSteps(5)

    def make_LBFGSBConfig(self):
        return ld.ganesh.LBFGSBConfig()

    def make_NelderMeadConfig(self):
        return ld.ganesh.NelderMeadConfig()

    def make_MigradConfig(self):
        return ld.ganesh.MigradConfig()

    def make_AIESInit(self):
        return ld.ganesh.AIESInit([[1.0, 0.1], [1.01, 0.11], [0.99, 0.09]])

    def make_AIESConfig(self):
        return ld.ganesh.AIESConfig(moves=[ld.ganesh.AIESMove.walk()])

    def make_AIESMove(self):
        return ld.ganesh.AIESMove.stretch()

    def make_ESSInit(self):
        return ld.ganesh.ESSInit([[1.0, 0.1], [1.01, 0.11], [0.99, 0.09]])

    def make_ESSConfig(self):
        return ld.ganesh.ESSConfig(moves=[ld.ganesh.ESSMove.differential(), ld.ganesh.ESSMove.global_()])

    def make_ESSMove(self):
        return ld.ganesh.ESSMove.gaussian()

    def make_CMAESConfig(self):
        return ld.ganesh.CMAESConfig(population_size=6, seed=1)

    def make_PSOConfig(self):
        return ld.ganesh.PSOConfig(particles=4, topology="ring", velocity_scale=0.1)

    def make_DifferentialEvolutionConfig(self):
        return ld.ganesh.DifferentialEvolutionConfig(population_size=5)

    def make_SimulatedAnnealingConfig(self):
        return ld.ganesh.SimulatedAnnealingConfig(cooling_rate=0.9)

    def make_ConjugateGradientConfig(self):
        return ld.ganesh.ConjugateGradientConfig(update="hager_zhang")

    def make_TrustRegionConfig(self):
        return ld.ganesh.TrustRegionConfig(subproblem="cauchy_point")

    def make_SimulatedAnnealingTerminator(self):
        return ld.ganesh.SimulatedAnnealingTerminator(min_temperature=0.1)

    def make_ConjugateGradientGTerminator(self):
        return ld.ganesh.ConjugateGradientGTerminator()

    def make_TrustRegionGTerminator(self):
        return ld.ganesh.TrustRegionGTerminator()

    def make_CMAESSigmaTerminator(self):
        return ld.ganesh.CMAESSigmaTerminator()

    def make_CMAESConditionCovTerminator(self):
        return ld.ganesh.CMAESConditionCovTerminator()

    def make_CMAESTolXUpTerminator(self):
        return ld.ganesh.CMAESTolXUpTerminator()

    def make_CMAESTolFunTerminator(self):
        return ld.ganesh.CMAESTolFunTerminator()

    def make_CMAESTolXTerminator(self):
        return ld.ganesh.CMAESTolXTerminator()

    def make_CMAESNoEffectAxisTerminator(self):
        return ld.ganesh.CMAESNoEffectAxisTerminator()

    def make_CMAESNoEffectCoordTerminator(self):
        return ld.ganesh.CMAESNoEffectCoordTerminator()

    def make_CMAESEqualFunValuesTerminator(self):
        return ld.ganesh.CMAESEqualFunValuesTerminator()

    def make_CMAESStagnationTerminator(self):
        return ld.ganesh.CMAESStagnationTerminator()

    def make_Bounds(self):
        return ld.ganesh.Bounds([(0.0, 1.0), (-1.0, float("inf"))])

    def make_ScaleTransform(self):
        return ld.ganesh.ScaleTransform([1.0, 2.0])

    def make_PeriodicTransform(self):
        return ld.ganesh.PeriodicTransform([None, (0.0, 1.0)])

    def make_TransformChain(self):
        return ld.ganesh.TransformChain([self.get("Bounds"), self.get("ScaleTransform")])

    def make_VectorInit(self):
        return ld.ganesh.VectorInit([1.0, 0.1])

    def make_MultiStartSummary(self):
        return ld.ganesh.MultiStartSummary([self.get("FitResult")])

    def make_MinimizationSummary(self):
        return self.get("FitResult")


class FixtureError(Exception):
    def __init__(self, name, error):
        super().__init__(f"fixture {name}: {type(error).__name__}: {error}")
