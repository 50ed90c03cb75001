// Where in a Parquet file a problem was found, for DataError messages.
#pragma once

#include <cstdint>
#include <string>

namespace laddu::data::parquet {

/// The file and (when known) column being decoded; every malformed-input error names both
/// together with the absolute byte offset of the problem.
struct ErrorSite {
    std::string file;
    std::string column;
};

/// Throws DataError "Parquet file 'F', column 'C', byte offset N: what".
[[noreturn]] void fail_at(const ErrorSite& site, std::uint64_t offset, const std::string& what);

}  // namespace laddu::data::parquet
