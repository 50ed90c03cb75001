// laddu/amplitudes/couplings.hpp: complex couplings built from real fit parameters.
//
// laddu has no coupling amplitude any more: couplings are complex(re, im) or
// polar_complex(r, φ) of parameters. These helpers name the parameters "<name> re"/"<name> im"
// or "<name> mag"/"<name> phase", the convention of laddu's benchmark ("f0(980)+ re").
#pragma once

#include <string>

#include <laddu/expr/expr.hpp>

namespace laddu::amplitudes {

/// complex(parameter(name + " re"), parameter(name + " im")), both free.
[[nodiscard]] expr::Expr cartesian_coupling(const std::string& name,
                                            const expr::ParameterOptions& re = {},
                                            const expr::ParameterOptions& im = {});

/// polar_complex(parameter(name + " mag"), parameter(name + " phase")); the phase is periodic
/// in [-π, π) unless `phase` says otherwise.
[[nodiscard]] expr::Expr polar_coupling(const std::string& name,
                                        const expr::ParameterOptions& magnitude = {},
                                        const expr::ParameterOptions& phase = {});

}  // namespace laddu::amplitudes
