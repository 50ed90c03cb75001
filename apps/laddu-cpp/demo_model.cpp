#include "demo_model.hpp"

#include <laddu/amplitudes/kmatrix_benchmark.hpp>

namespace laddu::cli {

expr::Model tagged_kmatrix_model() {
    return amplitudes::kmatrix_benchmark_model({.tag_waves = true});
}

std::vector<std::string> demo_wave_tags() {
    return amplitudes::kmatrix_benchmark_wave_tags();
}

}  // namespace laddu::cli
