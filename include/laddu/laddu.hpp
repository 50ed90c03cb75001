// laddu/laddu.hpp: every stage's umbrella header, for users. laddu itself includes the precise
// headers it needs and never this one. The optional stages (jit/, distributed/) have their own
// umbrellas, <laddu/jit/jit.hpp> and <laddu/distributed/distributed_fit.hpp>.
#pragma once

#include <laddu/amplitudes.hpp>
#include <laddu/autodiff.hpp>
#include <laddu/base.hpp>
#include <laddu/compile.hpp>
#include <laddu/data.hpp>
#include <laddu/expr.hpp>
#include <laddu/fit.hpp>
#include <laddu/interp.hpp>
#include <laddu/ir.hpp>
#include <laddu/likelihood.hpp>
#include <laddu/physics.hpp>
#include <laddu/runtime.hpp>
