"""Writes the ROOT files in fixtures/ with ROOT itself (pip install ROOT; not in the test venv,
so the files are kept in the repository). Each holds a TTree written with
TDirectory::WriteObject, which leaves every branch's last basket inside the TTree, as ROOT 5
and interrupted jobs do:

  embedded_mixed.root  100 entries; baskets of 256 bytes, so beam_e (double) has four baskets
                       on file and one kept in the TTree, weight (float) and n (int) two and
                       one
  embedded_only.root   7 entries; every basket of beam_e, beam_px, beam_py, beam_pz and weight
                       kept in the TTree

Values: beam_e = 0.5 i, beam_px = i - 3, beam_py = 0.25 i, beam_pz = -i, weight = 1 + i % 3,
n = i (entry i).

Usage: python tests/root_interop/make_fixtures.py tests/root_interop/fixtures
"""

import array
import os
import sys

import ROOT


def write(path, entries, branches, basket_size):
    f = ROOT.TFile(path, "RECREATE")
    tree = ROOT.TTree("events", "events")
    buffers = {}
    for name, kind in branches:
        buffers[name] = array.array({"D": "d", "F": "f", "I": "i"}[kind], [0])
        tree.Branch(name, buffers[name], f"{name}/{kind}")
    if basket_size:
        tree.SetBasketSize("*", basket_size)
    values = {"beam_e": lambda i: 0.5 * i, "beam_px": lambda i: i - 3.0,
              "beam_py": lambda i: 0.25 * i, "beam_pz": lambda i: -float(i),
              "weight": lambda i: 1.0 + i % 3, "n": lambda i: i}
    for i in range(entries):
        for name, _ in branches:
            buffers[name][0] = values[name](i)
        tree.Fill()
    f.WriteObject(tree, "events")
    f.Close()


def main():
    out = sys.argv[1]
    write(os.path.join(out, "embedded_mixed.root"), 100,
          [("beam_e", "D"), ("weight", "F"), ("n", "I")], 256)
    write(os.path.join(out, "embedded_only.root"), 7,
          [("beam_e", "D"), ("beam_px", "D"), ("beam_py", "D"), ("beam_pz", "D"), ("weight", "F")],
          0)


if __name__ == "__main__":
    main()
