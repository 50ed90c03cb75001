// laddu/autodiff: exact gradients as IR-to-IR rewrites.
//
// Entry points: autodiff::forward(), autodiff::reverse(), autodiff::gradient() (mode kAuto picks
// the cheaper). The result is an ordinary ir::Program: output 0 the value, outputs 1..P the
// derivatives with respect to each parameter. Rules and conventions: docs/autodiff.md.
#pragma once

#include <laddu/autodiff/gradient.hpp>
