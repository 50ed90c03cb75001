// laddu/likelihood: NLL and ExtendedNLL over data and accepted MC (with the precomputed
// normalisation matrix when the model decomposes), ridge and lasso penalties, and Likelihood,
// a sum of terms sharing parameters by name (docs/likelihood.md).
#pragma once

#include <laddu/likelihood/likelihood.hpp>
#include <laddu/likelihood/nll.hpp>
#include <laddu/likelihood/penalty.hpp>
#include <laddu/likelihood/term.hpp>
