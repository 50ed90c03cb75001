// laddu/data/read_events.hpp: events from Parquet or ROOT files, the reader chosen by the files'
// extension (what the command-line tool's --data, --accepted and --generated take).
#pragma once

#include <span>
#include <string>

#include <laddu/data/dataset.hpp>

namespace laddu::data {

/// True when every one of `paths` (paths or patterns) ends in ".root", false when none does;
/// DataError for a mix of the two (they are read by different readers: give them apart).
[[nodiscard]] bool are_root_files(std::span<const std::string> paths);

/// The events of the files matching `patterns` in memory: read_root when every pattern ends in
/// ".root", read_parquet when none does. DataError for a mix of the two (read them apart) and
/// what those readers throw.
[[nodiscard]] Dataset read_events(std::span<const std::string> patterns);

}  // namespace laddu::data
