// laddu/expr: symbolic models.
//
// Expr (expr.hpp) is a hash-consed DAG handle with checked value kinds; parameters
// (parameter.hpp) bind by name; Model (model.hpp) owns an intensity and its ParamLayout; tags and
// project() (tags.hpp) select coherent amplitudes; print.hpp dumps text and Graphviz.
// Next stage: laddu/compile turns a Model into kernel programs.
#pragma once

#include <laddu/expr/expr.hpp>
#include <laddu/expr/model.hpp>
#include <laddu/expr/parameter.hpp>
#include <laddu/expr/print.hpp>
#include <laddu/expr/tags.hpp>
#include <laddu/expr/traversal.hpp>
#include <laddu/expr/value_kind.hpp>
