#include <numbers>

#include <laddu/amplitudes/couplings.hpp>

namespace laddu::amplitudes {

expr::Expr cartesian_coupling(const std::string& name, const expr::ParameterOptions& re,
                              const expr::ParameterOptions& im) {
    return expr::complex(expr::parameter(name + " re", re), expr::parameter(name + " im", im));
}

expr::Expr polar_coupling(const std::string& name, const expr::ParameterOptions& magnitude,
                          const expr::ParameterOptions& phase) {
    expr::ParameterOptions phase_options = phase;
    if (!phase_options.bounds && !phase_options.fixed) {
        phase_options.bounds = expr::Bounds{-std::numbers::pi, std::numbers::pi};
        phase_options.periodic = true;
        if (!phase_options.initial) {
            phase_options.initial = 0.0;
        }
    }
    return expr::polar_complex(expr::parameter(name + " mag", magnitude),
                               expr::parameter(name + " phase", phase_options));
}

}  // namespace laddu::amplitudes
