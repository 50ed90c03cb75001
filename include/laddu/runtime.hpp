// laddu/runtime: execution options, the thread pool, event caches and deterministic
// reductions (docs/runtime.md).
//
// Entry points: PreparedModel::prepare(compiled, dataset, execution) for a model bound to data;
// underneath, EventCache::build(precompute, evaluate, inputs, weights) and
// reduce(interpreter, params, cache, transform, pool).
#pragma once

#include <laddu/runtime/event_cache.hpp>
#include <laddu/runtime/execution.hpp>
#include <laddu/runtime/prepared_model.hpp>
#include <laddu/runtime/reduce.hpp>
#include <laddu/runtime/reduce_gradient.hpp>
#include <laddu/runtime/thread_pool.hpp>
