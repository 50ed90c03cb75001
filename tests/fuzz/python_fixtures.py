"""One plausible instance of each laddu_cpp class for python_args_fuzz.py, built lazily.

Fixtures.get(name) makes the instance named after a class (or a helper such as ``m``) once per
process, with make_<name>. A fixture that cannot be made raises FixtureError, each time it is
asked for: the fuzzer then passes None in its place, and does not count it against the call
under test. Every class with instance methods or properties has a make_<Class>, or an entry in
NO_FIXTURE saying why it cannot have one; fixture_problems() is the fuzzer's start-up check of
that.
"""

from __future__ import annotations

import os
import shutil

import laddu_cpp as ld

# Classes whose instances cannot be made from Python, with why: their instance methods and
# properties are left out of the fuzzing (their constructors and static methods are not).
# Every class laddu_cpp exposes can be made at present, so it is empty.
NO_FIXTURE: dict[str, str] = {}


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

    def make_ExprNodeKind(self):
        return ld.ExprNodeKind.REAL_CONST

    # Memory budgets and plans.
    def make_MemoryBudget(self):
        return ld.MemoryBudget("1 MiB")

    def make_MemoryPlan(self):
        return ld.MemoryPlan(host="64 MiB", device="50% available")

    def make_MemoryState(self):
        # A fresh state, not MemoryState.current(): override_device_capacity then changes only
        # this one.
        return ld.MemoryState()

    def make_MemoryResource(self):
        return self.get("MemoryState").host

    def make_Device(self):
        # The OpenCL devices (a CPU runtime such as PoCL counts); without one this fixture is a
        # FixtureError and the Device methods end in the "fixture" outcome.
        devices = ld.devices()
        if not devices:
            raise LookupError("no OpenCL device")
        return devices[0]

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

    def make_input_parquet(self):
        # The file given as a `path` argument: a copy, since the call may write there
        # (Model.svg(path) does), and fixture.parquet must stay intact for the children to come.
        path = os.path.join(self.workdir, "input.parquet")
        shutil.copyfile(self.get("parquet"), path)
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

    def make_ParquetSource(self):
        return ld.ParquetSource(self.get("parquet"))

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

    def make_InitialMomentum(self):
        return ld.InitialMomentum.p4([ld.particles.D_ZERO.mass, 0.0, 0.0, 0.0])

    def make_MassProposal(self):
        return ld.MassProposal(0.3, high=1.3)

    def make_VertexProposal(self):
        return ld.VertexProposal.t_exchange(incoming="gamma", outgoing="X", slope=4.0,
                                            uniform_fraction=0.2)

    def make_ScalarSource(self):
        return ld.ScalarSource.uniform(0.2, 0.3)

    def make_Generator(self):
        # D0 -> K_S K_S at rest: two decay angles and a scalar, so phase_space_envelope() takes
        # a millisecond (the photoproduction channel of the tutorial takes 0.2 s), and its
        # kshort1/kshort2 columns are those the Model fixture reads.
        channel = ld.Channel(
            "D0 -> K_S K_S",
            edges=[
                ld.Edge("D", particle=ld.particles.D_ZERO,
                        initial_momentum=self.get("InitialMomentum")),
                ld.Edge("kshort1", p4="kshort1", particle=ld.particles.K_SHORT),
                ld.Edge("kshort2", p4="kshort2", particle=ld.particles.K_SHORT),
            ],
            vertices=[ld.Vertex("decay", incoming=["D"], outgoing=["kshort1", "kshort2"])],
        )
        return ld.Generator(channel, scalars={"pol": self.get("ScalarSource")})

    def make_GenerationReport(self):
        return self.get("Generator").weighted(16, seed=1)[1]

    def make_ProvenEnvelopeReport(self):
        return self.get("Generator").phase_space_envelope()

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

    def make_MandelstamChannel(self):
        return ld.MandelstamChannel.T

    # Quantum numbers and selection rules.

    def make_J(self):
        return ld.J(1)

    def make_S(self):
        return ld.S(1)

    def make_L(self):
        return ld.L(2)

    def make_M(self):
        return ld.J(1.5).projections()[0]

    def make_Isospin(self):
        return ld.Isospin(1, projection=0)

    def make_PartialWave(self):
        return ld.PartialWave(ld.J(2), ld.L(1), ld.S(1))

    def make_Statistics(self):
        return ld.particles.K_SHORT.statistics

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

    def make_RuleSet(self):
        return ld.RuleSet.strong()

    def make_RuleReport(self):
        # rho0 -> pi+ pi- in a P wave.
        return self.get("RuleSet").evaluate(ld.particles.RHO_ZERO, daughter_a=ld.particles.PI_PLUS,
                                            daughter_b=ld.particles.PI_MINUS, l=ld.L(1), s=ld.S(0))

    def make_RuleCheck(self):
        return self.get("RuleReport").checks[0]

    def make_SelectionRules(self):
        return ld.SelectionRules.strong(max_l=ld.L(2))

    def make_AllowedPartialWave(self):
        p = ld.particles
        waves = self.get("SelectionRules").allowed_partial_waves(
            p.RHO_ZERO, daughter_a=p.PI_PLUS, daughter_b=p.PI_MINUS)
        return waves[0]  # rho0 -> pi+ pi-: 1P1

    # Rendering styles.
    def make_DisplayColor(self):
        return ld.DisplayColor(1, 2, 3)

    def make_NodeStyle(self):
        return ld.NodeStyle(fill=self.get("DisplayColor"), border=ld.DisplayColor(0, 0, 0))

    def make_NodeSelector(self):
        return ld.NodeSelector.tag("S")

    def make_NodeStyleRule(self):
        return ld.NodeStyleRule(self.get("NodeSelector"), self.get("NodeStyle"))

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

    def make_LikelihoodDiagnostics(self):
        return self.get("Likelihood").diagnostics()

    def make_DatasetDiagnostics(self):
        return self.get("LikelihoodDiagnostics").datasets[0]

    def make_MCMCSummary(self):
        return self.get("Likelihood").sample(self.get("AIESInit"), seed=1,
                                             terminators=[ld.ganesh.MaxSteps(3)])

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

    def make_StatusMessage(self):
        return self.get("FitResult").message

    def make_EvalCounts(self):
        return self.get("FitResult").evals

    def make_StatusSnapshot(self):
        # What a terminator or an observer receives: caught from a one-step fit.
        seen = []
        ld.Likelihood([self.get("NLL")]).fit(
            terminators=[lambda step, status: seen.append(status) or True])
        return seen[0]

    def make_ProgressObserver(self):
        return ld.ganesh.ProgressObserver(interval=2)

    def make_DebugObserver(self):
        return ld.ganesh.DebugObserver()

    def make_ChainStorage(self):
        return ld.ganesh.ChainStorage.rolling(5)

    def make_AdamConfig(self):
        return ld.ganesh.AdamConfig(alpha=0.01)

    def make_AdamEMATerminator(self):
        return ld.ganesh.AdamEMATerminator(patience=2)

    def make_MoreThuenteLineSearch(self):
        return ld.ganesh.MoreThuenteLineSearch()

    def make_HagerZhangLineSearch(self):
        return ld.ganesh.HagerZhangLineSearch()

    def make_LBFGSBFTerminator(self):
        return ld.ganesh.LBFGSBFTerminator()

    def make_LBFGSBGTerminator(self):
        return ld.ganesh.LBFGSBGTerminator()

    def make_LBFGSBInfNormGTerminator(self):
        return ld.ganesh.LBFGSBInfNormGTerminator()

    def make_NelderMeadFTerminator(self):
        return ld.ganesh.NelderMeadFTerminator(kind="amoeba")

    def make_NelderMeadXTerminator(self):
        return ld.ganesh.NelderMeadXTerminator()


class FixtureError(Exception):
    def __init__(self, name, error):
        super().__init__(f"fixture {name}: {type(error).__name__}: {error}")


def fixture_problems(owners):
    """The start-up check: one line per class of `owners` (class name -> the names of its
    instance callables) with neither a make_<Class> nor a NO_FIXTURE entry, or with both, and
    per NO_FIXTURE entry naming no such class. Empty when all is well."""
    problems = []
    for name, callables in sorted(owners.items()):
        maker = hasattr(Fixtures, "make_" + name)
        if maker and name in NO_FIXTURE:
            problems.append(f"{name} has both Fixtures.make_{name} and a NO_FIXTURE entry: "
                            "drop one")
        elif not maker and name not in NO_FIXTURE:
            problems.append(
                f"no fixture for class {name} ({len(callables)} callables, e.g. {callables[0]}): "
                f"add Fixtures.make_{name} to tests/fuzz/python_fixtures.py, or a NO_FIXTURE "
                "entry saying why it cannot be made"
            )
    for name in sorted(set(NO_FIXTURE) - set(owners)):
        problems.append(f"NO_FIXTURE lists {name}, which is no class with instance callables: "
                        "drop it")
    return problems
