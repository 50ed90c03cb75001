// laddu/base/json_numbers.hpp: the numbers of JSON text in the notation of laddu's writer
// (serde_json with ryu), so files laddu-cpp writes are laddu's text character for character.
//
// ryu writes the shortest digits that read back to the same double, and places them as
//   0.000ddd            when the decimal exponent k of 0.d₁d₂… × 10ᵏ is in (−5, 0]
//   ddd.ddd / ddd000.0  when k is in (0, 16]
//   d.ddde±x            otherwise (no leading zeros in the exponent, "+" when positive)
// e.g. 1e-5 → 0.00001, 2.5e-7 → 2.5e-7, 1e15 → 1000000000000000.0, 1e16 → 1e+16. Integers
// (no '.', 'e' or 'E') and everything inside strings are left as they are.
#pragma once

#include <string>
#include <string_view>

namespace laddu {

/// `x` (finite) in laddu's notation.
[[nodiscard]] std::string laddu_json_number(double x);

/// `json` (valid JSON text) with every non-integer number rewritten by laddu_json_number.
[[nodiscard]] std::string laddu_json_numbers(std::string_view json);

}  // namespace laddu
