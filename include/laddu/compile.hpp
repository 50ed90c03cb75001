// laddu/compile: turns a symbolic Model into kernel programs.
//
// Stages: bake fixed parameters -> optimise (src/compile/passes/, run by pipeline.cpp) ->
// analyse (facts.hpp) -> plan caches and lower to two ir::Programs (cache_plan.hpp) ->
// normalisation analysis (normalization.hpp). Entry point: compile_model() in
// compiled_model.hpp. LADDU_DUMP=passes prints the expression after each pass.
#pragma once

#include <laddu/compile/cache_plan.hpp>
#include <laddu/compile/compiled_model.hpp>
#include <laddu/compile/facts.hpp>
#include <laddu/compile/normalization.hpp>
#include <laddu/compile/options.hpp>
