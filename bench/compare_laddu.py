#!/usr/bin/env python3
"""laddu 0.21.4 and laddu-cpp side by side, in one process, on the same events.

Two likelihoods, each built by each library with its own Python API:

* laddu's K-matrix benchmark NLL (crates/laddu/benches/kmatrix_benchmark.rs at v0.21.4: the f0, a0,
  f2 and a2 Kopf K-matrices projected on K Kbar, Z_lm waves with the beam polarisation, the
  gamma p -> K_S K_S p channel; data = accepted MC). laddu 0.21.4's Python API has no kopf_f0/f2/a0/a2,
  so its model is assembled here from laddu's k_matrix / p_vector / f_vector /
  blatt_weisskopf_barriers / chew_mandelstam with the Kopf constants of laddu's kopf.rs; laddu-cpp
  takes ld.kmatrix_benchmark_model(). Both read the same Parquet file (build/bench-data/) with their
  own read_parquet. Before timing, both f64 interpreters are evaluated at the same parameters (by
  name, all 0.25): a value that differs by more than 1e-10 relative stops the run.
* the README's Breit-Wigner, 1 / (mass^2 - s - i mass width), squared: its NLL and an L-BFGS-B fit
  from the model's initial values (both libraries' default L-BFGS-B), on the same numpy arrays,
  and 200 steps of the affine-invariant ensemble sampler (16 walkers) around the fitted point.

Timing: every likelihood is called (value and value+gradient) twice before timing, then laddu and
laddu-cpp calls alternate (which goes first alternates too) and the medians of N repeats are
reported, wall clock and process CPU time. laddu's `cpu` backend is paired with laddu-cpp's
interpreter (`cpu`) and laddu's `jit` with laddu-cpp's JIT. Threads: `Execution(threads=N)` in both.
Gradients use reverse-mode autodiff in both (`--autodiff`). Optionally the stand-alone hand-written
kernel (/work/shared/bench/kmatrix-handwritten, f64 only) runs on the same events right after each
K-matrix f64 JIT pair.

Generation (`--only generation`): laddu's generating-mc channel (gamma p -> X p, X -> K_S K_S, beam
8-9 GeV, X uniform on [1, 2] GeV, t slope 4 with 20% uniform), Generator.weighted and
Generator.unweighted (pilot envelope, defaults) without a model, same seed in both, events/s. laddu
generates on rayon's global pool, so each thread count runs in a child process with
RAYON_NUM_THREADS=N (laddu-cpp gets Execution(threads=N)); the children also check that both
libraries made the same number of proposals.

Run with the bench venv and a Release build of the module:

    bash scripts/make-venv.sh bench
    PYTHONPATH=build/release/python build/venv-bench/bin/python bench/compare_laddu.py --help
"""

import argparse
import datetime
import importlib.metadata
import json
import os
import platform
import statistics
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DATA_DIR = os.path.join(ROOT, "build", "bench-data")
HANDWRITTEN_DIR = "/work/shared/bench"
KSKS_SEED = 7
VALUE_RTOL = 1e-10
KMATRIX_PARAMETER = 0.25

PROGRESS = sys.stdout.isatty()
_checkpoint = None  # main() sets it when --json names a file: rewrites the file after every cell


MCMC_WALKERS = 16
MCMC_STEPS = 200


def checkpoint():
    if _checkpoint:
        _checkpoint()


def progress(message):
    if PROGRESS:
        print(f"  .. {message}", file=sys.stderr, flush=True)


def load_average():
    return round(os.getloadavg()[0], 2)


# ------------------------------------------------------------------------------------------------
# laddu's K-matrix benchmark model with laddu's Python API (constants from laddu's kopf.rs).

QR_DEFAULT = 0.1973  # laddu_physics::math::QR_DEFAULT
PI0, KPLUS, K0, ETA, ETAP = 0.1349768, 0.493677, 0.497611, 0.547862, 0.95778

# name: couplings (channel x pole), background (channel x channel), channel masses, pole masses,
# l, Adler zero (s_0, s_norm) or None, index of the K Kbar channel.
KOPF = {
    "f0": dict(
        g=[[0.74987, 0.06401, -0.23417, 0.01270, -0.14242],
           [-0.01257, 0.00204, -0.01032, 0.26700, 0.22780],
           [0.27536, 0.77413, 0.72283, 0.09214, 0.15981],
           [-0.15102, 0.50999, 0.11934, 0.02742, 0.16272],
           [0.36103, 0.13112, 0.36792, -0.04025, -0.17397]],
        c=[[0.03728, 0.00000, -0.01398, -0.02203, 0.01397],
           [0.00000, 0.00000, 0.00000, 0.00000, 0.00000],
           [-0.01398, 0.00000, 0.02349, 0.03101, -0.04003],
           [-0.02203, 0.00000, 0.03101, -0.13769, -0.06722],
           [0.01397, 0.00000, -0.04003, -0.06722, -0.28401]],
        m1=[PI0, 2.0 * PI0, KPLUS, ETA, ETA],
        m2=[PI0, 2.0 * PI0, K0, ETA, ETAP],
        poles=[0.51461, 0.90630, 1.23089, 1.46104, 1.69611],
        l=0, adler=(0.0091125, 1.0), kkbar=2),
    "f2": dict(
        g=[[0.40033, 0.01820, -0.06709, -0.49924],
           [0.15479, 0.17300, 0.22941, 0.19295],
           [-0.08900, 0.32393, -0.43133, 0.27975],
           [-0.00113, 0.15256, 0.23721, -0.03987]],
        c=[[-0.04319, 0.00000, 0.00984, 0.01028],
           [0.00000, 0.00000, 0.00000, 0.00000],
           [0.00984, 0.00000, -0.07344, 0.05533],
           [0.01028, 0.00000, 0.05533, -0.05183]],
        m1=[PI0, 2.0 * PI0, KPLUS, ETA],
        m2=[PI0, 2.0 * PI0, K0, ETA],
        poles=[1.15299, 1.48359, 1.72923, 1.96700],
        l=2, adler=None, kkbar=2),
    "a0": dict(
        g=[[0.43215, 0.19000], [-0.28825, 0.43372]],
        c=[[0.0, 0.0], [0.0, 0.0]],
        m1=[PI0, KPLUS], m2=[ETA, K0],
        poles=[0.95395, 1.26767],
        l=0, adler=None, kkbar=1),
    "a2": dict(
        g=[[0.30073, 0.68567], [0.21426, 0.12543], [-0.09162, 0.00184]],
        c=[[-0.40184, 0.00033, -0.08707], [0.00033, -0.21416, -0.06193], [-0.08707, -0.06193, -0.17435]],
        m1=[PI0, KPLUS, PI0], m2=[ETA, K0, ETAP],
        poles=[1.30080, 1.75351],
        l=2, adler=None, kkbar=1),
}


def laddu_kopf_kkbar(L, s, name, production):
    """The K Kbar component of laddu's Kopf K-matrix amplitude `name` (KopfData::expression)."""
    d = KOPF[name]
    channels, poles = len(d["m1"]), len(d["poles"])
    pole_masses = L.vector(d["poles"])
    couplings = L.matrix(d["g"])
    barriers = L.amplitudes.blatt_weisskopf_barriers(
        s, channel_mass_1=L.vector(d["m1"]), channel_mass_2=L.vector(d["m2"]),
        pole_masses=pole_masses, l=d["l"], q_r=QR_DEFAULT)

    def background(i, j):
        total = L.Expr(0.0)
        for pole in range(poles):
            total = total + barriers.at(i, pole) * d["c"][i][j] * barriers.at(j, pole)
        return total

    bkg = L.matrix([[background(i, j) for j in range(channels)] for i in range(channels)])
    k = L.amplitudes.k_matrix(s, pole_masses=pole_masses, couplings=couplings, barriers=barriers,
                              background=bkg)
    if d["adler"] is not None:
        s_0, s_norm = d["adler"]
        adler = (s - s_0) / s_norm
        k = L.matrix([[adler * k.at(i, j) for j in range(channels)] for i in range(channels)])
    p = L.amplitudes.p_vector(s, pole_masses=pole_masses, production=L.vector(production),
                              couplings=couplings, barriers=barriers)
    phase_space = L.matrix([
        [L.chew_mandelstam(s, mass1=d["m1"][i], mass2=d["m2"][i]) if i == j else L.Expr(0.0)
         for j in range(channels)] for i in range(channels)])
    f = L.amplitudes.f_vector(s, pole_masses=pole_masses, k=k, p=p, phase_space=phase_space)
    return f[d["kkbar"]]


def laddu_kmatrix_model(L):
    """laddu's kmatrix_term (kmatrix_benchmark.rs) with laddu's Python API."""
    channel = L.Channel(
        "gamma p -> Ks Ks p",
        edges=[L.Edge("beam", p4="beam"), L.Edge("target"), L.Edge("kk"),
               L.Edge("proton", p4="proton"), L.Edge("kshort1", p4="kshort1"),
               L.Edge("kshort2", p4="kshort2")],
        vertices=[L.Vertex("production", incoming=["beam", "target"], outgoing=["kk", "proton"]),
                  L.Vertex("kk_decay", incoming=["kk"], outgoing=["kshort1", "kshort2"])])
    production = channel.vertex("production")
    y_hint = -production.vec3("beam").cross(production.vec3("proton"))
    decay = channel.vertex("kk_decay")
    z_axis = -decay.vec3("proton")
    costheta = decay.costheta("kshort1", z_axis=z_axis, y_hint=y_hint)
    phi = decay.phi("kshort1", z_axis=z_axis, y_hint=y_hint)
    s = channel.s("kk")

    lab_angle = L.scalar("pol_angle")
    lab_polarization = L.Vec3(lab_angle.cos(), lab_angle.sin(), 0.0)
    reference = L.Vec4.event("beam").vec3()
    spectator = L.Vec4.event("proton").vec3()
    normal = reference.cross(-spectator).unit()
    pol_angle = L.atan2(normal.dot(lab_polarization),
                        reference.unit().dot(lab_polarization.cross(normal)))
    pol = L.scalar("pol_magnitude")

    def zlm(l, m, positive):
        rotated = L.spherical_harmonic(l, m, costheta=costheta, phi=phi) * L.cis(-pol_angle)
        a, b = ((1.0 + pol).sqrt(), (1.0 - pol).sqrt())
        if not positive:
            a, b = b, a
        return L.complex(a * rotated.real(), b * rotated.imag())

    z00p, z00n, z22p = zlm(0, 0, True), zlm(0, 0, False), zlm(2, 2, True)

    def c(re, im):
        return L.complex(re, im)

    def free(name):
        return L.parameter(name)

    def fixed(name):
        return L.parameter(name, fixed=0.0)

    def f0(sign):
        return laddu_kopf_kkbar(L, s, "f0", [
            c(fixed(f"f0{sign} c00 re"), fixed(f"f0{sign} c00 im")),
            c(free(f"f0(980){sign} re"), fixed(f"f0(980){sign} im_fix")),
            c(free(f"f0(1370){sign} re"), free(f"f0(1370){sign} im")),
            c(free(f"f0(1500){sign} re"), free(f"f0(1500){sign} im")),
            c(free(f"f0(1710){sign} re"), free(f"f0(1710){sign} im"))])

    def a0(sign):
        return laddu_kopf_kkbar(L, s, "a0", [
            c(free(f"a0(980){sign} re"), free(f"a0(980){sign} im")),
            c(free(f"a0(1450){sign} re"), free(f"a0(1450){sign} im"))])

    f2 = laddu_kopf_kkbar(L, s, "f2", [c(free(f"f2({n}) re"), free(f"f2({n}) im"))
                                       for n in (1270, 1525, 1850, 1910)])
    a2 = laddu_kopf_kkbar(L, s, "a2", [c(free(f"a2({n}) re"), free(f"a2({n}) im"))
                                       for n in (1320, 1700)])
    s0p = f0("+") + a0("+")
    s0n = f0("-") + a0("-")
    d2p = f2 + a2
    pos_re = (s0p * z00p.real() + d2p * z22p.real()).norm_sqr()
    pos_im = (s0p * z00p.imag() + d2p * z22p.imag()).norm_sqr()
    neg_re = (s0n * z00n.real()).norm_sqr()
    neg_im = (s0n * z00n.imag()).norm_sqr()
    return L.Model(pos_re + pos_im + neg_re + neg_im)


# ------------------------------------------------------------------------------------------------
# The README's Breit-Wigner, written the same way in both libraries.

BW_TRUE = (1.02, 0.12)  # generated mass and width; the fit starts at the model's (1.0, 0.1)
BW_SEED = 11


def bw_model(L):
    s = L.scalar("s")
    mass = L.parameter("mass", initial=1.0, bounds=(0.5, 1.5))
    width = L.parameter("width", initial=0.1, bounds=(0.01, 0.5))
    amplitude = 1.0 / (mass**2 - s - 1j * mass * width)
    return L.Model(amplitude.norm_sqr())


def bw_arrays(n, seed=BW_SEED):
    """n data events of |BW(s)|^2 (BW_TRUE) for s flat in [0.5, 1.5], and n flat MC events."""
    rng = np.random.default_rng(seed)
    m, w = BW_TRUE

    def intensity(s):
        return 1.0 / ((m * m - s) ** 2 + (m * w) ** 2)

    peak = intensity(m * m)
    data = []
    count = 0
    while count < n:
        s = rng.uniform(0.5, 1.5, 4 * n)
        kept = s[rng.uniform(0.0, peak, s.size) < intensity(s)]
        data.append(kept)
        count += kept.size
    data = np.concatenate(data)[:n]
    mc = rng.uniform(0.5, 1.5, n)
    return data, mc


# ------------------------------------------------------------------------------------------------
# Data files.

def ksks_file(ours, n):
    """build/bench-data/ksks_<n>_seed7.parquet, generated once with ld.generate_ksks."""
    os.makedirs(DATA_DIR, exist_ok=True)
    path = os.path.join(DATA_DIR, f"ksks_{n}_seed{KSKS_SEED}.parquet")
    if not os.path.exists(path):
        progress(f"generating {path}")
        tmp = f"{path}.tmp{os.getpid()}.parquet"
        ours.generate_ksks(n, seed=KSKS_SEED).write_to(ours.ParquetSink(tmp))
        os.replace(tmp, path)
    return path


def f64_file(parquet):
    """The hand-written kernel's input, converted once with parquet_to_f64.py (pyarrow)."""
    path = parquet[: -len(".parquet")] + ".f64"
    if not os.path.exists(path):
        progress(f"converting {parquet} for the hand-written kernel")
        tmp = f"{path}.tmp{os.getpid()}"
        subprocess.run([sys.executable, os.path.join(HANDWRITTEN_DIR, "parquet_to_f64.py"), parquet, tmp],
                       check=True, stdout=subprocess.DEVNULL)
        os.replace(tmp, path)
    return path


# ------------------------------------------------------------------------------------------------
# Timing.

def timed(call):
    w0, c0 = time.perf_counter(), time.process_time()
    call()
    return time.perf_counter() - w0, time.process_time() - c0


def race(calls, repeat):
    """calls: {name: zero-argument callable}. Alternates them (rotating who goes first) and returns
    {name: (median wall s, median CPU s)}."""
    names = list(calls)
    walls = {n: [] for n in names}
    cpus = {n: [] for n in names}
    for r in range(repeat):
        order = names[r % len(names):] + names[: r % len(names)]
        for n in order:
            w, c = timed(calls[n])
            walls[n].append(w)
            cpus[n].append(c)
    return {n: (statistics.median(walls[n]), statistics.median(cpus[n])) for n in names}


def default_repeat(n):
    return max(5, min(41, int(1.5e6 / n)))


def prop(obj, name):
    """laddu's ganesh summaries expose some values as properties, some as methods."""
    value = getattr(obj, name)
    return value() if callable(value) else value


def relative(a, b):
    return abs(a - b) / max(abs(b), 1.0)


def reorder(values_by_name, names):
    return [values_by_name[n] for n in names]


# ------------------------------------------------------------------------------------------------

class Engines:
    def __init__(self, laddu, ours, autodiff):
        self.laddu, self.ours, self.autodiff = laddu, ours, autodiff

    def laddu_likelihood(self, model, data, mc, backend, threads, precision):
        L = self.laddu
        execution = L.Execution(backend, threads=threads, precision=precision, autodiff=self.autodiff)
        return L.Likelihood([L.NLL(model, data=data, accepted_mc=mc)], execution=execution)

    def ours_nll(self, model, data, mc, backend, threads, precision):
        O = self.ours
        execution = O.Execution(backend, threads=threads, precision=precision, autodiff=self.autodiff)
        return O.NLL(model, data=data, accepted_mc=mc, execution=execution)


def kmatrix_section(eng, args, rows, checks):
    L, O = eng.laddu, eng.ours
    laddu_model = laddu_kmatrix_model(L)
    our_model = O.kmatrix_benchmark_model()
    for n in args.sizes:
        path = ksks_file(O, n)
        progress(f"K-matrix: reading {path}")
        ld_data = L.read_parquet(path)
        our_data = O.read_parquet(path)
        assert len(ld_data) == len(our_data) == n

        # Parity before timing: f64 interpreters, every free parameter 0.25 by name.
        ref_l = eng.laddu_likelihood(laddu_model, ld_data, ld_data, "cpu", 1, "f64")
        ref_o = eng.ours_nll(our_model, our_data, our_data, "cpu", 1, "f64")
        lnames, onames = list(ref_l.parameter_names), list(ref_o.parameter_names)
        if sorted(lnames) != sorted(onames):
            raise SystemExit(f"free parameters differ:\n laddu {lnames}\n ours {onames}")
        pl = [KMATRIX_PARAMETER] * len(lnames)
        po = [KMATRIX_PARAMETER] * len(onames)
        vl, gl = ref_l.value_and_gradient(pl)
        vo, go = ref_o.value_and_gradient(po)
        gl = dict(zip(lnames, gl))
        go = dict(zip(onames, go))
        value_diff = relative(vo, vl)
        grad_diff = max(abs(go[k] - gl[k]) / max(abs(gl[k]), 1e-300) for k in lnames)
        check = {"model": "kmatrix", "events": n, "laddu_nll": vl, "laddu_cpp_nll": vo,
                 "value_rel_diff": value_diff, "gradient_max_rel_diff": grad_diff}
        checks.append(check)
        print(f"K-matrix {n} events: laddu NLL {vl!r}, laddu-cpp {vo!r}, relative difference "
              f"{value_diff:.2e} (gradient: largest relative difference {grad_diff:.2e})", flush=True)
        if value_diff > VALUE_RTOL:
            raise SystemExit(f"the two NLLs disagree by {value_diff:.2e} > {VALUE_RTOL:g}: not timing")
        del ref_l, ref_o

        hand = None
        if args.handwritten and n >= 100000:
            hand = f64_file(path)
        repeat = args.repeat or default_repeat(n)
        for threads in args.threads:
            for precision in args.precisions:
                for backend in args.backends:
                    label = f"K-matrix {n} {threads}t {precision} {backend}"
                    progress(label)
                    load0 = load_average()
                    lik_l = eng.laddu_likelihood(laddu_model, ld_data, ld_data, backend, threads, precision)
                    nll_o = eng.ours_nll(our_model, our_data, our_data, backend, threads, precision)
                    # warm-up: JIT compilation, caches, first-touch
                    for _ in range(2):
                        lik_l.value(pl), lik_l.value_and_gradient(pl)
                        nll_o.value(po), nll_o.value_and_gradient(po)
                    v_l, v_o = lik_l.value(pl), nll_o.value(po)
                    diff = relative(v_o, v_l)
                    if precision == "f64" and diff > VALUE_RTOL:
                        raise SystemExit(f"{label}: NLLs disagree by {diff:.2e}: not timing")
                    for op in ("value", "value+gradient"):
                        if op == "value":
                            calls = {"laddu": lambda: lik_l.value(pl), "laddu-cpp": lambda: nll_o.value(po)}
                        else:
                            calls = {"laddu": lambda: lik_l.value_and_gradient(pl),
                                     "laddu-cpp": lambda: nll_o.value_and_gradient(po)}
                        t = race(calls, repeat)
                        rows.append({
                            "model": "kmatrix", "events": n, "threads": threads, "precision": precision,
                            "backend": backend, "call": op, "repeat": repeat,
                            "laddu_s": t["laddu"][0], "laddu_cpu_s": t["laddu"][1],
                            "laddu_cpp_s": t["laddu-cpp"][0], "laddu_cpp_cpu_s": t["laddu-cpp"][1],
                            "laddu_nll": v_l, "laddu_cpp_nll": v_o, "value_rel_diff": diff,
                            "load_before": load0, "load_after": load_average()})
                    del lik_l, nll_o
                    checkpoint()
                    if hand and backend == "jit" and precision == "f64":
                        handwritten(args, hand, n, threads, vo, rows)


def handwritten(args, f64, n, threads, our_nll, rows):
    """Runs the hand-written kernel and attaches its medians to the f64 JIT rows just timed."""
    progress(f"hand-written {n} {threads}t")
    hand_repeat = max(21, 2 * (args.repeat or default_repeat(n)) + 1)
    load0 = load_average()
    out = subprocess.run([os.path.join(HANDWRITTEN_DIR, "kmatrix-handwritten"), f64,
                          os.path.join(HANDWRITTEN_DIR, "params_025.json"), "--threads", str(threads),
                          "--repeat", str(hand_repeat)], check=True, capture_output=True, text=True)
    result = json.loads(out.stdout)
    diff = relative(result["nll"], our_nll)
    if diff > 1e-10:
        print(f"warning: hand-written NLL {result['nll']!r} differs from laddu-cpp's by {diff:.2e}",
              file=sys.stderr)
    for row in rows:
        if (row["model"], row["events"], row["threads"], row["precision"], row["backend"]) == \
                ("kmatrix", n, threads, "f64", "jit"):
            key = "seconds_per_eval_value" if row["call"] == "value" else "seconds_per_eval_value_and_gradient"
            row["handwritten_s"] = result[key]
            row["handwritten_nll"] = result["nll"]
            row["handwritten_repeat"] = hand_repeat
            row["handwritten_load"] = load0


def bw_section(eng, args, rows, fits, checks):
    L, O = eng.laddu, eng.ours
    ld_model, our_model = bw_model(L), bw_model(O)
    params = list(BW_TRUE)  # (mass, width) in both libraries' order
    for n in args.sizes:
        data, mc = bw_arrays(n)
        ld_data = L.Dataset.from_arrays(p4s={}, scalars={"s": data})
        ld_mc = L.Dataset.from_arrays(p4s={}, scalars={"s": mc})
        our_data = O.Dataset.from_arrays(scalars={"s": data})
        our_mc = O.Dataset.from_arrays(scalars={"s": mc})
        ref_l = eng.laddu_likelihood(ld_model, ld_data, ld_mc, "cpu", 1, "f64")
        ref_o = eng.ours_nll(our_model, our_data, our_mc, "cpu", 1, "f64")
        assert list(ref_l.parameter_names) == list(ref_o.parameter_names) == ["mass", "width"]
        vl, vo = ref_l.value(params), ref_o.value(params)
        diff = relative(vo, vl)
        checks.append({"model": "breit_wigner", "events": n, "laddu_nll": vl, "laddu_cpp_nll": vo,
                       "value_rel_diff": diff})
        print(f"Breit-Wigner {n} events: laddu NLL {vl!r}, laddu-cpp {vo!r}, relative difference "
              f"{diff:.2e}", flush=True)
        if diff > VALUE_RTOL:
            raise SystemExit(f"the Breit-Wigner NLLs disagree by {diff:.2e}: not timing")
        repeat = args.repeat or default_repeat(n)
        for threads in args.threads:
            for backend in args.backends:
                progress(f"Breit-Wigner {n} {threads}t {backend}")
                load0 = load_average()
                lik_l = eng.laddu_likelihood(ld_model, ld_data, ld_mc, backend, threads, "f64")
                nll_o = eng.ours_nll(our_model, our_data, our_mc, backend, threads, "f64")
                for _ in range(2):
                    lik_l.value(params), lik_l.value_and_gradient(params)
                    nll_o.value(params), nll_o.value_and_gradient(params)
                for op in ("value", "value+gradient"):
                    if op == "value":
                        calls = {"laddu": lambda: lik_l.value(params), "laddu-cpp": lambda: nll_o.value(params)}
                    else:
                        calls = {"laddu": lambda: lik_l.value_and_gradient(params),
                                 "laddu-cpp": lambda: nll_o.value_and_gradient(params)}
                    t = race(calls, repeat)
                    rows.append({
                        "model": "breit_wigner", "events": n, "threads": threads, "precision": "f64",
                        "backend": backend, "call": op, "repeat": repeat,
                        "laddu_s": t["laddu"][0], "laddu_cpu_s": t["laddu"][1],
                        "laddu_cpp_s": t["laddu-cpp"][0], "laddu_cpp_cpu_s": t["laddu-cpp"][1],
                        "load_before": load0, "load_after": load_average()})
                # The fit: a fresh likelihood each time (so compilation and caching are inside the
                # timed fit, as a user sees it), laddu's default L-BFGS-B against laddu-cpp's.
                progress(f"Breit-Wigner fit {n} {threads}t {backend}")
                fit_repeat = max(3, min(args.repeat or 7, 7))
                results = {"laddu": [], "laddu-cpp": []}

                def fit_laddu():
                    lik = eng.laddu_likelihood(ld_model, ld_data, ld_mc, backend, threads, "f64")
                    results["laddu"].append(lik.fit([1.0, 0.1], config=L.ganesh.LBFGSBConfig()))

                def fit_ours():
                    lik = O.Likelihood([eng.ours_nll(our_model, our_data, our_mc, backend, threads, "f64")])
                    results["laddu-cpp"].append(lik.fit([1.0, 0.1], method="lbfgsb"))

                load0 = load_average()
                t = race({"laddu": fit_laddu, "laddu-cpp": fit_ours}, fit_repeat)
                rl, ro = results["laddu"][-1], results["laddu-cpp"][-1]
                evals = prop(rl, "evals")
                fits.append({
                    "events": n, "threads": threads, "backend": backend, "repeat": fit_repeat,
                    "laddu_s": t["laddu"][0], "laddu_cpp_s": t["laddu-cpp"][0],
                    "laddu_fx": prop(rl, "fx"), "laddu_cpp_fx": ro.fx,
                    "laddu_x": [float(v) for v in prop(rl, "x")], "laddu_cpp_x": list(ro.x),
                    "laddu_evaluations": [prop(evals, "f"), prop(evals, "g")],
                    "laddu_cpp_evaluations": [ro.value_evaluations, ro.gradient_evaluations],
                    "load_before": load0, "load_after": load_average()})
                # MCMC: 16 walkers around the fitted point, 200 steps of laddu's default stretch
                # move in both (the same start; the random streams differ).
                progress(f"Breit-Wigner MCMC {n} {threads}t {backend}")
                lik_ls = eng.laddu_likelihood(ld_model, ld_data, ld_mc, backend, threads, "f64")
                lik_os = O.Likelihood([eng.ours_nll(our_model, our_data, our_mc, backend, threads, "f64")])
                walkers = lik_os.walker_positions(list(ro.x), MCMC_WALKERS, scale=1e-2, seed=1)
                calls = {
                    "laddu": lambda: lik_ls.sample(L.ganesh.AIESInit(walkers), seed=2,
                                                   terminators=[L.ganesh.MaxSteps(MCMC_STEPS)]),
                    "laddu-cpp": lambda: lik_os.sample(O.ganesh.AIESInit(walkers), seed=2,
                                                       terminators=[O.ganesh.MaxSteps(MCMC_STEPS)]),
                }
                load0 = load_average()
                t = race(calls, max(3, min(args.repeat or 5, 5)))
                rows.append({"model": "mcmc", "events": n, "threads": threads, "backend": backend,
                             "walkers": MCMC_WALKERS, "steps": MCMC_STEPS,
                             "laddu_s": t["laddu"][0], "laddu_cpp_s": t["laddu-cpp"][0],
                             "load_before": load0, "load_after": load_average()})
                del lik_l, nll_o, lik_ls, lik_os
                checkpoint()


# ------------------------------------------------------------------------------------------------
# Output.

# ------------------------------------------------------------------------------------------------
# Generation: weighted and unweighted K_S K_S events, each thread count in a child process.

def generation_channel(lib):
    """laddu's generating-mc tutorial channel (X from 1.0 GeV, above 2 m(K_S))."""
    beam = lib.InitialMomentum.uniform_energy(low=8.0, high=9.0, direction=[0.0, 0.0, 1.0])
    production = lib.VertexProposal.t_exchange(incoming="gamma", outgoing="X", slope=4.0, uniform_fraction=0.2)
    return lib.Channel(
        "gamma p -> K_S K_S p",
        edges=[
            lib.Edge("gamma", p4="gamma", particle=lib.particles.PHOTON, output=True, initial_momentum=beam),
            lib.Edge("target", p4="target", particle=lib.particles.PROTON, output=True,
                     initial_momentum=lib.InitialMomentum.momentum([0.0, 0.0, 0.0])),
            lib.Edge("X", mass_proposal=lib.MassProposal(1.0, high=2.0)),
            lib.Edge("recoil", p4="recoil", particle=lib.particles.PROTON, output=True),
            lib.Edge("ks1", p4="ks1", particle=lib.particles.K_SHORT, output=True),
            lib.Edge("ks2", p4="ks2", particle=lib.particles.K_SHORT, output=True),
        ],
        vertices=[
            lib.Vertex("production", incoming=["gamma", "target"], outgoing=["X", "recoil"], generation=production),
            lib.Vertex("decay", incoming=["X"], outgoing=["ks1", "ks2"], generation=lib.VertexProposal.isotropic()),
        ],
    )


GENERATION_MODES = (("weighted", 1), ("unweighted", 10))  # unweighted runs 1/10 of the events


def generation_worker(args):
    """Child: times both libraries at one thread count; prints one JSON list of rows."""
    import laddu
    import laddu_cpp
    threads = args.threads[0]
    rows = []
    for n in args.sizes:
        for mode, divisor in GENERATION_MODES:
            events = max(1, n // divisor)
            generators = {"laddu": laddu.Generator(generation_channel(laddu)),
                          "laddu_cpp": laddu_cpp.Generator(generation_channel(laddu_cpp))}
            our_execution = laddu_cpp.Execution(threads=threads)
            reports = {}

            def call(name):
                def run():
                    kwargs = {"execution": our_execution} if name == "laddu_cpp" else {}
                    _, reports[name] = getattr(generators[name], mode)(events, seed=KSKS_SEED, **kwargs)
                return run

            calls = {name: call(name) for name in generators}
            for run in calls.values():  # warm up
                run()
            timing = race(calls, args.repeat or 5)
            same = reports["laddu"].proposals == reports["laddu_cpp"].proposals
            rows.append({"model": "generation", "mode": mode, "events": events, "threads": threads,
                         "proposals": reports["laddu_cpp"].proposals, "same_proposals": same,
                         "laddu_s": timing["laddu"][0], "laddu_cpp_s": timing["laddu_cpp"][0],
                         "laddu_cpu_s": timing["laddu"][1], "laddu_cpp_cpu_s": timing["laddu_cpp"][1],
                         "load_before": load_average()})
    print(json.dumps(rows))


def generation_section(args, rows, checks):
    for threads in args.threads:
        progress(f"generation {threads}t")
        env = dict(os.environ, RAYON_NUM_THREADS=str(threads))
        command = [sys.executable, os.path.abspath(__file__), "--generation-worker", "--threads", str(threads),
                   "--sizes", ",".join(str(n) for n in args.sizes), "--repeat", str(args.repeat)]
        out = subprocess.run(command, env=env, check=True, capture_output=True, text=True).stdout
        for row in json.loads(out.strip().splitlines()[-1]):
            checks.append({"what": f"generation {row['mode']} {row['events']} {threads}t: same proposals",
                           "ok": row["same_proposals"]})
            if not row["same_proposals"]:
                raise SystemExit(f"generation {row['mode']}: laddu and laddu-cpp made different proposal counts")
            rows.append(row)
            checkpoint()



def fmt_ms(s):
    if s is None:
        return "—"
    ms = s * 1e3
    return f"{ms:.3g}" if ms < 100 else f"{ms:.0f}"


def fmt_rate(n, s):
    return f"{n / s / 1e6:.3g}"


def size_label(n):
    exponent = int(round(np.log10(n)))
    return f"1e{exponent}" if 10**exponent == n else str(n)


def markdown(rows, fits):
    out = []
    for model, title in (("kmatrix", "K-matrix benchmark NLL (data = accepted MC)"),
                         ("breit_wigner", "README Breit-Wigner NLL (data and MC of the same size)")):
        sel = [r for r in rows if r["model"] == model]
        if not sel:
            continue
        hand = any("handwritten_s" in r for r in sel)
        out.append(f"**{title}**, wall ms per call (median), million events/s, laddu-cpp ÷ laddu time:")
        out.append("")
        head = "| events | threads | precision | backend | call | laddu ms | laddu-cpp ms |"
        rule = "|---|---|---|---|---|---|---|"
        if hand:
            head += " hand-written ms |"
            rule += "---|"
        head += " laddu M ev/s | laddu-cpp M ev/s | laddu-cpp ÷ laddu | load |"
        rule += "---|---|---|---|"
        out += [head, rule]
        for r in sel:
            line = (f"| {size_label(r['events'])} | {r['threads']} | {r['precision']} | {r['backend']} | "
                    f"{r['call']} | {fmt_ms(r['laddu_s'])} | {fmt_ms(r['laddu_cpp_s'])} |")
            if hand:
                line += f" {fmt_ms(r.get('handwritten_s'))} |"
            line += (f" {fmt_rate(r['events'], r['laddu_s'])} | {fmt_rate(r['events'], r['laddu_cpp_s'])} |"
                     f" {r['laddu_cpp_s'] / r['laddu_s']:.3g} | {r['load_before']:.1f} |")
            out.append(line)
        out.append("")
    gen = [r for r in rows if r["model"] == "generation"]
    if gen:
        out.append("**Generation**, laddu's K_S K_S channel without a model, same seed, wall ms per run (median), "
                   "thousand events/s, laddu-cpp ÷ laddu time:")
        out.append("")
        out.append("| mode | events | proposals | threads | laddu ms | laddu-cpp ms | laddu k ev/s | laddu-cpp k ev/s "
                   "| laddu-cpp ÷ laddu | load |")
        out.append("|---|---|---|---|---|---|---|---|---|---|")
        for r in gen:
            out.append(f"| {r['mode']} | {size_label(r['events'])} | {r['proposals']} | {r['threads']} | "
                       f"{fmt_ms(r['laddu_s'])} | {fmt_ms(r['laddu_cpp_s'])} | {r['events'] / r['laddu_s'] / 1e3:.4g} | "
                       f"{r['events'] / r['laddu_cpp_s'] / 1e3:.4g} | {r['laddu_cpp_s'] / r['laddu_s']:.3g} | "
                       f"{r['load_before']:.1f} |")
        out.append("")
    mcmc = [r for r in rows if r["model"] == "mcmc"]
    if mcmc:
        out.append(f"**README Breit-Wigner MCMC**, {MCMC_WALKERS} walkers from the same start around the fitted point, "
                   f"{MCMC_STEPS} stretch-move steps ({MCMC_WALKERS * (MCMC_STEPS + 1)} likelihood evaluations), wall ms "
                   "(median):")
        out.append("")
        out.append("| events | threads | backend | laddu ms | laddu-cpp ms | laddu-cpp ÷ laddu | load |")
        out.append("|---|---|---|---|---|---|---|")
        for r in mcmc:
            out.append(f"| {size_label(r['events'])} | {r['threads']} | {r['backend']} | {fmt_ms(r['laddu_s'])} | "
                       f"{fmt_ms(r['laddu_cpp_s'])} | {r['laddu_cpp_s'] / r['laddu_s']:.3g} | {r['load_before']:.1f} |")
        out.append("")
    if fits:
        out.append("**README Breit-Wigner fit** from (mass, width) = (1.0, 0.1), L-BFGS-B in both, a fresh "
                   "likelihood per fit (preparation and compilation included), wall ms (median):")
        out.append("")
        out.append("| events | threads | backend | laddu ms | laddu-cpp ms | laddu-cpp ÷ laddu | laddu evals (f, g) "
                   "| laddu-cpp evals (f, g) | fitted mass, width: laddu / laddu-cpp | load |")
        out.append("|---|---|---|---|---|---|---|---|---|---|")
        for f in fits:
            out.append(
                f"| {size_label(f['events'])} | {f['threads']} | {f['backend']} | {fmt_ms(f['laddu_s'])} | "
                f"{fmt_ms(f['laddu_cpp_s'])} | {f['laddu_cpp_s'] / f['laddu_s']:.3g} | "
                f"{tuple(f['laddu_evaluations'])} | {tuple(f['laddu_cpp_evaluations'])} | "
                f"{f['laddu_x'][0]:.5f}, {f['laddu_x'][1]:.5f} / {f['laddu_cpp_x'][0]:.5f}, "
                f"{f['laddu_cpp_x'][1]:.5f} | {f['load_before']:.1f} |")
        out.append("")
    return "\n".join(out)


def parse_sizes(text):
    return [int(float(v)) for v in text.split(",") if v]


def main():
    parser = argparse.ArgumentParser(
        description="Time laddu 0.21.4 and laddu-cpp side by side: laddu's K-matrix benchmark NLL and "
                    "the README Breit-Wigner NLL and fit (see bench/README.md).",
        epilog="Run with the bench venv (scripts/make-venv.sh bench) and PYTHONPATH=build/release/python.")
    parser.add_argument("--sizes", default="1e4,1e5,1e6", help="event counts, comma-separated (default 1e4,1e5,1e6)")
    parser.add_argument("--threads", default="1,2", help="thread counts, comma-separated (default 1,2)")
    parser.add_argument("--precisions", default="f64,f32", help="K-matrix precisions (default f64,f32; the Breit-Wigner runs f64)")
    parser.add_argument("--backends", default="cpu,jit",
                        help="cpu = laddu's cpu backend vs laddu-cpp's interpreter; jit = both JITs (default cpu,jit)")
    parser.add_argument("--repeat", type=int, default=0,
                        help="timed calls per library and cell (0: 41 at 1e4, 15 at 1e5, 5 at 1e6)")
    parser.add_argument("--autodiff", default="reverse", choices=["reverse", "forward", "auto"],
                        help="both libraries' autodiff mode for value+gradient (default reverse)")
    parser.add_argument("--only", choices=["kmatrix", "breit_wigner", "generation"], help="one section only")
    parser.add_argument("--generation-worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--no-handwritten", dest="handwritten", action="store_false",
                        help=f"skip {HANDWRITTEN_DIR}/kmatrix-handwritten (run at >= 1e5 events)")
    parser.add_argument("--no-fit", dest="fit", action="store_false", help="skip the Breit-Wigner fit")
    parser.add_argument("--quick", action="store_true",
                        help="a smoke run: 1e4 events, 1 thread, 3 repeats")
    parser.add_argument("--json", metavar="FILE", help="also write every number to FILE ('-': stdout)")
    args = parser.parse_args()
    args.sizes = parse_sizes(args.sizes)
    args.threads = [int(t) for t in args.threads.split(",")]
    args.precisions = args.precisions.split(",")
    args.backends = args.backends.split(",")
    if args.quick:
        args.sizes, args.threads, args.repeat = [10000], [1], args.repeat or 3
    if args.generation_worker:
        generation_worker(args)
        return
    if args.handwritten and not os.access(os.path.join(HANDWRITTEN_DIR, "kmatrix-handwritten"), os.X_OK):
        args.handwritten = False

    import laddu
    import laddu_cpp

    eng = Engines(laddu, laddu_cpp, args.autodiff)
    meta = {
        "command": " ".join([os.path.relpath(sys.argv[0], ROOT)] + sys.argv[1:]),
        "date": datetime.datetime.now().isoformat(timespec="seconds"),
        "laddu": importlib.metadata.version("laddu"), "laddu_cpp": laddu_cpp.__version__,
        "laddu_cpp_module": laddu_cpp.__file__, "python": platform.python_version(),
        "cpu": cpu_name(), "cores": os.cpu_count(), "autodiff": args.autodiff,
        "laddu_capabilities": laddu.capabilities(), "load_start": list(os.getloadavg()),
    }
    print(f"laddu {meta['laddu']} and laddu-cpp {meta['laddu_cpp']} ({meta['laddu_cpp_module']}), "
          f"{meta['cpu']}, {meta['cores']} cores, load average {meta['load_start'][0]:.2f}", flush=True)
    rows, fits, checks = [], [], []

    def write_json(complete=False):
        meta["complete"] = complete
        payload = json.dumps({"meta": meta, "checks": checks, "rows": rows, "fits": fits}, indent=1)
        if args.json == "-":
            print(payload)
        else:
            with open(args.json + ".tmp", "w") as f:
                f.write(payload + "\n")
            os.replace(args.json + ".tmp", args.json)

    if args.json and args.json != "-":
        global _checkpoint
        _checkpoint = write_json
    if args.only in (None, "kmatrix"):
        kmatrix_section(eng, args, rows, checks)
    if args.only in (None, "breit_wigner"):
        bw_section(eng, args, rows, fits if args.fit else [], checks)
    if args.only in (None, "generation"):
        generation_section(args, rows, checks)
    meta["load_end"] = list(os.getloadavg())
    loads = [r["load_before"] for r in rows]
    print()
    print(markdown(rows, fits))
    print(f"Load average (1 min) during the run: {min(loads):.1f}-{max(loads):.1f}; "
          f"at the end {meta['load_end'][0]:.1f}.")
    if args.json:
        write_json(complete=True)


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


if __name__ == "__main__":
    main()
