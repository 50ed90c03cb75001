// laddu/base: errors, Expected, assertions, compensated sums, aligned storage, logging.
// Every other stage depends on this one; it depends on nothing but the standard library and fmt.
#pragma once

#include <laddu/base/accurate_sum.hpp>
#include <laddu/base/aligned.hpp>
#include <laddu/base/assert.hpp>
#include <laddu/base/error.hpp>
#include <laddu/base/expected.hpp>
#include <laddu/base/log.hpp>
