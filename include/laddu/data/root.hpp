// laddu/data/root.hpp: reading flat ROOT TTrees as events (no ROOT library needed).
//
// Reads: TTree class versions 16-20 (ROOT 5.16 and later, uproot), small and big (> 2 GB)
// files, baskets compressed with zlib, LZ4 (checksum verified), ZSTD or LZMA, or stored as is;
// top-level branches of one scalar leaf each (float, double, 8-64-bit signed and unsigned
// integers, bool). Branches are columns with laddu's names (`NAME_e`, `NAME_px`, `NAME_py`,
// `NAME_pz`, scalars, `weight`); float and double branches become event columns, integer and
// bool branches are skipped unless SchemaInferenceOptions::integer_columns_are_scalars.
// Not read: object, array and leaf-list branches (skipped unless a needed column), baskets
// embedded in the TTree of a file not closed cleanly, ROOT's old "CS" compression. Malformed
// input is a DataError naming the file, the object and the byte offset.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <laddu/data/dataset.hpp>
#include <laddu/data/event_source.hpp>
#include <laddu/data/schema.hpp>

namespace laddu::data {

/// Options for reading ROOT event files.
struct RootReadOptions {
    SchemaInferenceOptions schema;
    /// The TTree: a name, or a path "dir/sub/name" through subdirectories; empty takes the
    /// first TTree of each file's top directory (laddu's default).
    std::string tree;
};

/// An EventSource over one TTree in each of one or many ROOT files, read as one stream of
/// (file, cluster) fragments in path order. The schema is inferred from the first file's
/// branches and every file is checked to have the same columns when the source is opened.
/// A branch laddu-cpp cannot read is skipped, unless by its name it would be the weight or
/// complete a four-momentum: then it is a DataError naming the file, branch and reason.
class RootSource final : public EventSource {
public:
    /// Opens `patterns` (paths or globs, see expand_paths in parquet.hpp).
    explicit RootSource(std::vector<std::string> patterns, RootReadOptions options = {});

    [[nodiscard]] const Schema& schema() const override;

    [[nodiscard]] std::uint64_t num_events() const override;

    /// Reads the baskets of the projected branches only, one basket per branch at a time.
    [[nodiscard]] std::unique_ptr<BatchStream> read(const ReadPlan& plan) const override;

    /// Per file, the spans between entries where every column's baskets start together (the
    /// tree's clusters, for files written with aligned baskets as ROOT and uproot write them).
    [[nodiscard]] std::vector<std::size_t> fragment_sizes() const override;

    /// One decoded basket per projected column plus the largest stored basket's bytes.
    [[nodiscard]] std::size_t stream_buffer_bytes(const ReadPlan& plan) const override;

    /// The expanded file list.
    [[nodiscard]] const std::vector<std::string>& paths() const;

    /// The tree read (the option, or the first file's first TTree).
    [[nodiscard]] const std::string& tree_name() const;

    /// The schema with `alias` naming `target` (affects later reads).
    void add_alias(const std::string& alias, const std::string& target);

private:
    struct Impl;
    std::shared_ptr<Impl> impl_;
};

/// laddu's read_root: the events of the files matching `pattern` in memory.
[[nodiscard]] Dataset read_root(const std::string& pattern, const RootReadOptions& options = {});

/// read_root over several paths or patterns.
[[nodiscard]] Dataset read_root(std::span<const std::string> patterns,
                                const RootReadOptions& options = {});

}  // namespace laddu::data
