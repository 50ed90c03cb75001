// laddu/data/read_events.hpp: events from Parquet or ROOT files, the reader chosen by the files'
// extension (what the command-line tool's --data, --accepted and --generated take).
#pragma once

#include <span>
#include <string>

#include <laddu/data/dataset.hpp>

namespace laddu::data {

/// The events of the files matching `patterns` in memory: read_root when every pattern ends in
/// ".root", read_parquet when none does. DataError for a mix of the two (read them apart) and
/// what those readers throw.
[[nodiscard]] Dataset read_events(std::span<const std::string> patterns);

}  // namespace laddu::data
