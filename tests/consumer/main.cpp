// Uses the installed headers and libraries the way a user would.
#include <cstdio>
#include <vector>

#include <laddu/laddu.hpp>

int main() {
    const std::vector<double> values{1.0, 1e-16, -1.0};
    const double total = laddu::accurate_sum(values);
    try {
        laddu::throw_error(laddu::ErrorKind::kData, "missing column 'beam_px'");
    } catch (const laddu::DataError& error) {
        std::printf("consumer: caught %s: %s; sum = %.3g\n",
                    std::string(laddu::error_kind_name(error.kind())).c_str(), error.what(), total);
        return total == 1e-16 ? 0 : 1;
    }
    return 1;
}
