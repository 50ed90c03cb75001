#include <charconv>
#include <cmath>
#include <cstddef>
#include <string>
#include <system_error>

#include <laddu/base/error.hpp>
#include <laddu/base/json_numbers.hpp>

namespace laddu {

std::string laddu_json_number(double x) {
    if (x == 0.0) {
        return std::signbit(x) ? "-0.0" : "0.0";
    }
    // std::to_chars in scientific form gives the shortest round-trip digits: d.ddde±x.
    char buffer[64];
    const auto [end, error] =
        std::to_chars(buffer, buffer + sizeof(buffer), x, std::chars_format::scientific);
    if (error != std::errc()) {
        throw InternalError("laddu_json_number: to_chars failed");
    }
    const std::string_view text(buffer, static_cast<std::size_t>(end - buffer));
    const std::size_t e = text.find('e');
    std::string digits;
    std::size_t start = 0;
    const bool negative = text.front() == '-';
    if (negative) {
        start = 1;
    }
    for (std::size_t i = start; i < e; ++i) {
        if (text[i] != '.') {
            digits += text[i];
        }
    }
    int exponent = 0;
    std::from_chars(text.data() + e + 1 + (text[e + 1] == '+' ? 1 : 0), text.data() + text.size(),
                    exponent);
    const int k = exponent + 1;  // x = 0.d₁d₂… × 10ᵏ
    const int n = static_cast<int>(digits.size());
    std::string out = negative ? "-" : "";
    if (k > 0 && k <= 16) {
        if (k >= n) {
            out += digits + std::string(static_cast<std::size_t>(k - n), '0') + ".0";
        } else {
            out += digits.substr(0, static_cast<std::size_t>(k)) + "." +
                   digits.substr(static_cast<std::size_t>(k));
        }
    } else if (k > -5 && k <= 0) {
        out += "0." + std::string(static_cast<std::size_t>(-k), '0') + digits;
    } else {
        out += digits.substr(0, 1);
        if (n > 1) {
            out += "." + digits.substr(1);
        }
        out += (k - 1 < 0 ? "e-" : "e+") + std::to_string(k - 1 < 0 ? 1 - k : k - 1);
    }
    return out;
}

std::string laddu_json_numbers(std::string_view json) {
    std::string out;
    out.reserve(json.size());
    std::size_t i = 0;
    while (i < json.size()) {
        const char c = json[i];
        if (c == '"') {  // copy the string, escapes included
            const std::size_t begin = i++;
            while (i < json.size() && json[i] != '"') {
                i += json[i] == '\\' ? std::size_t{2} : std::size_t{1};
            }
            out.append(json.substr(begin, ++i - begin));
            continue;
        }
        if (c == '-' || (c >= '0' && c <= '9')) {
            const std::size_t begin = i;
            bool integer = true;
            while (i < json.size() &&
                   (json[i] == '-' || json[i] == '+' || json[i] == '.' || json[i] == 'e' ||
                    json[i] == 'E' || (json[i] >= '0' && json[i] <= '9'))) {
                integer = integer && json[i] != '.' && json[i] != 'e' && json[i] != 'E';
                ++i;
            }
            const std::string_view token = json.substr(begin, i - begin);
            double value = 0.0;
            if (integer || std::from_chars(token.data(), token.data() + token.size(), value).ec !=
                               std::errc()) {
                out.append(token);
            } else {
                out += laddu_json_number(value);
            }
            continue;
        }
        out += c;
        ++i;
    }
    return out;
}

}  // namespace laddu
