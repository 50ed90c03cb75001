"""Hostile argument values for python_args_fuzz.py.

hostile_values(rng) draws one value a binding must reject with a typed error (or pass on): wrong
types, None, NaN and infinities, ints past every C++ type, empty, huge and deeply nested lists,
strings with lone surrogates, numpy arrays of the wrong dtype or shape, mappings with bad keys,
and objects whose __float__, __index__, __len__ or __iter__ raise Boom or lie.
"""

from __future__ import annotations

import math

import numpy as np

import laddu_cpp as ld


class Boom(Exception):
    """Raised by our own hostile objects; propagating it is correct behaviour."""


class RaisingFloat:
    def __float__(self):
        raise Boom("__float__")

    def __index__(self):
        raise Boom("__index__")


class NanFloat:
    def __float__(self):
        return math.nan


class HugeIndex:
    def __index__(self):
        return 2**64

    def __int__(self):
        return 2**64


class LyingSequence:
    """Claims ten elements, has three."""

    def __len__(self):
        return 10

    def __getitem__(self, i):
        if i >= 3:
            raise IndexError(i)
        return 1.0

    def __iter__(self):
        return iter([1.0, 2.0, 3.0])


class RaisingIterable:
    def __iter__(self):
        yield 1.0
        raise Boom("__iter__")


class NegativeLen:
    def __len__(self):
        return -1

    def __getitem__(self, i):
        raise IndexError(i)


class BadStr(str):
    def __hash__(self):
        raise Boom("__hash__")


class BadKeysMapping(dict):
    def keys(self):
        raise Boom("keys")


def deep_list(depth):
    out = []
    for _ in range(depth):
        out = [out]
    return out


def hostile_values(rng, size_param=False):
    """One hostile value."""
    if size_param:
        return rng.choice(
            [
                -1,
                -(2**63),
                -(2**64),
                2**64,
                2**65,
                10**30,
                None,
                "3",
                1.5,
                math.nan,
                math.inf,
                True,
                [3],
                HugeIndex(),
                RaisingFloat(),
                np.int64(-1),
                np.float64(2.5),
                np.int64(-(2**63)),
            ]
        )
    makers = [
        lambda: None,
        lambda: math.nan,
        lambda: math.inf,
        lambda: -math.inf,
        lambda: -0.0,
        lambda: 1e308,
        lambda: 5e-324,
        lambda: 2**64,
        lambda: 2**63,
        lambda: -(2**63) - 1,
        lambda: -1,
        lambda: -(2**31),
        lambda: 10**100,
        lambda: 10**400,  # beyond the float range
        lambda: True,
        lambda: 1 + 2j,
        lambda: complex(math.nan, math.inf),
        lambda: "",
        lambda: "\ud800",
        lambda: "a\x00b",
        lambda: "x" * 100_000,
        lambda: "\udcff\U0010ffff",
        lambda: b"bytes",
        lambda: bytearray(b"\xff\xfe"),
        lambda: memoryview(b"abc"),
        lambda: [],
        lambda: [None],
        lambda: [math.nan, math.inf],
        lambda: [1, [2, [3]]],
        lambda: deep_list(10_000),
        lambda: [0.0] * 100_000,
        lambda: ["\ud800"],
        lambda: (),
        lambda: (1.0,),
        lambda: {},
        lambda: {1: 2},
        lambda: {None: 1.0},
        lambda: {"\ud800": 1.0},
        lambda: {"a": "b"},
        lambda: {(): []},
        lambda: {"a": math.nan},
        lambda: set([1.0]),
        lambda: np.zeros(0),
        lambda: np.zeros((2, 3)),
        lambda: np.zeros((3, 4, 2)),
        lambda: np.array(5.0),
        lambda: np.array(["a", "b"]),
        lambda: np.ones(3, dtype=np.int8),
        lambda: np.ones(3, dtype=np.complex128),
        lambda: np.ones(3, dtype=np.float32),
        lambda: np.ones(3, dtype=bool),
        lambda: np.array([None, 1.0], dtype=object),
        lambda: np.ones(20)[::2],
        lambda: np.full(4, math.nan),
        lambda: np.array(["2020-01-01"], dtype="datetime64[D]"),
        lambda: np.ones((4, 4), order="F"),
        lambda: np.int64(-1),
        lambda: np.float32(math.nan),
        lambda: np.uint64(2**64 - 1),
        lambda: object(),
        lambda: (lambda *a, **k: None),
        lambda: (lambda *a, **k: (_ for _ in ()).throw(Boom("callable"))),
        lambda: iter([1.0, 2.0]),
        lambda: (x for x in [1.0]),
        lambda: RaisingFloat(),
        lambda: NanFloat(),
        lambda: HugeIndex(),
        lambda: LyingSequence(),
        lambda: RaisingIterable(),
        lambda: NegativeLen(),
        lambda: BadStr("a"),
        lambda: BadKeysMapping(a=1.0),
        lambda: slice(None, None, 0),
        lambda: slice(-(2**70), 2**70, 2**70),
        lambda: Ellipsis,
        lambda: ld,
        lambda: type,
    ]
    return rng.choice(makers)()
