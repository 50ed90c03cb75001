// laddu/runtime: execution options, the thread pool, event caches and deterministic
// reductions (docs/runtime.md).
//
// Entry points: EventCache::build(precompute, evaluate, inputs, weights) and
// reduce(interpreter, params, cache, transform, pool).
#pragma once

#include <laddu/runtime/event_cache.hpp>
#include <laddu/runtime/execution.hpp>
#include <laddu/runtime/reduce.hpp>
#include <laddu/runtime/thread_pool.hpp>
