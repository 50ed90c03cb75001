// Parity, statistics, isospin and Mandelstam-channel parsing and validation.
#include <algorithm>
#include <cctype>

#include <laddu/base/error.hpp>
#include <laddu/physics/quantum_numbers.hpp>

namespace laddu::physics {

namespace {

std::string lowercase(std::string_view text) {
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

}  // namespace

std::string parse_error_message(std::string_view text, std::string_view object) {
    return "Failed to parse string: \"" + std::string(text) +
           "\" does not correspond to a valid \"" + std::string(object) + "\"!";
}

std::string_view parity_name(Parity p) {
    return p == Parity::kPositive ? "Positive" : "Negative";
}

Parity parse_parity(std::string_view text) {
    const std::string word = lowercase(text);
    if (word == "+" || word == "plus" || word == "pos" || word == "positive") {
        return Parity::kPositive;
    }
    if (word == "-" || word == "minus" || word == "neg" || word == "negative") {
        return Parity::kNegative;
    }
    throw ModelError(parse_error_message(text, "Parity"));
}

Statistics parse_statistics(std::string_view text) {
    const std::string word = lowercase(text);
    if (word == "boson") {
        return Statistics::kBoson;
    }
    if (word == "fermion") {
        return Statistics::kFermion;
    }
    throw ModelError(parse_error_message(text, "Statistics"));
}

Isospin Isospin::make(J isospin, std::optional<M> projection) {
    if (projection) {
        validate_projection(isospin, *projection);
    }
    return Isospin{isospin, projection};
}

MandelstamChannel parse_mandelstam_channel(std::string_view text) {
    const std::string word = lowercase(text);
    if (word == "s") {
        return MandelstamChannel::kS;
    }
    if (word == "t") {
        return MandelstamChannel::kT;
    }
    if (word == "u") {
        return MandelstamChannel::kU;
    }
    throw ModelError(parse_error_message(text, "MandelstamChannel"));
}

}  // namespace laddu::physics
