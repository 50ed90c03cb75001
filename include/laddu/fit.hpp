// laddu/fit: bounded minimisers (projected L-BFGS, dense variable metric, Nelder-Mead), fits
// with Hessian uncertainties, seeded restarts, bootstrap fits and fit fractions
// (docs/likelihood.md).
#pragma once

#include <laddu/fit/bootstrap.hpp>
#include <laddu/fit/fit.hpp>
#include <laddu/fit/fit_fraction.hpp>
#include <laddu/fit/hessian.hpp>
#include <laddu/fit/minimizer.hpp>
