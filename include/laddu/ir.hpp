// laddu/ir: the scalarised kernel IR (docs/ir.md), the contract between compile, autodiff,
// interp and jit. Build programs with Builder, check them with validate, print them with
// to_string, key caches with hash.
#pragma once

#include <laddu/ir/builder.hpp>
#include <laddu/ir/hash.hpp>
#include <laddu/ir/print.hpp>
#include <laddu/ir/program.hpp>
#include <laddu/ir/stats.hpp>
#include <laddu/ir/validate.hpp>
