// The published covariance matrices of the Kopf K-matrix parameters (kopf_covariance.cpp), for
// kopf_*_resampled. Internal to the amplitudes stage.
#pragma once

#include <array>
#include <cstddef>

namespace laddu::amplitudes::detail {

extern const std::array<double, std::size_t{56} * 56> kKopfF0Covariance;
extern const std::array<double, std::size_t{36} * 36> kKopfF2Covariance;
extern const std::array<double, std::size_t{10} * 10> kKopfA0Covariance;
extern const std::array<double, std::size_t{17} * 17> kKopfA2Covariance;

}  // namespace laddu::amplitudes::detail
