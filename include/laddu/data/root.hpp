// laddu/data/root.hpp: reading and writing flat ROOT TTrees as events (no ROOT library needed).
//
// Reads: TTree class versions 16-20 (ROOT 5.16 and later, uproot), small and big (> 2 GB)
// files, baskets compressed with zlib, LZ4 (checksum verified), ZSTD or LZMA, or stored as is,
// and a branch's last basket kept inside the TTree (ROOT 5, interrupted jobs); top-level
// branches of one scalar leaf each (float, double, 8-64-bit signed and unsigned integers,
// bool). Branches are columns with laddu's names (`NAME_e`, `NAME_px`, `NAME_py`, `NAME_pz`,
// scalars, `weight`); float and double branches become event columns, integer and bool
// branches are skipped unless SchemaInferenceOptions::integer_columns_are_scalars.
// Not read: object, array and leaf-list branches (skipped unless a needed column), ROOT's old
// "CS" compression. Malformed input is a DataError naming the file, the object and the byte
// offset.
// Writes (EventRootWriter, write_root): a new file with one flat TTree (class version 20) in the
// top directory, one TBranch per event column with a TLeafD (`name/D`) or TLeafF (`name/F`)
// leaf, baskets aligned across branches (each a cluster) compressed with zlib (default, level
// 1), LZ4 or ZSTD or stored as is, the streamer info of the classes used, the keys list, the
// free segments record and ROOT's 64-bit layout for files past 2 GB, laid out as ROOT and
// uproot write them (read value for value by ROOT 6.40, uproot, jsroot and laddu).
// Not written: integer branches, subdirectories, appending to an existing file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <laddu/data/dataset.hpp>
#include <laddu/data/event_batch.hpp>
#include <laddu/data/event_data.hpp>
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

    /// One decoded basket per projected column plus the largest stored and the largest
    /// decompressed basket (the scratch buffers every basket is decoded through).
    [[nodiscard]] std::size_t stream_buffer_bytes(const ReadPlan& plan) const override;

    /// The expanded file list.
    [[nodiscard]] const std::vector<std::string>& paths() const;

    /// The tree read (the option, or the first file's first TTree).
    [[nodiscard]] const std::string& tree_name() const;

    /// The first file's branches as columns, in tree order: name and storage type (kFloat64,
    /// kFloat32; kInt32 for 8-32-bit signed and 8-16-bit unsigned integers, kInt64 for the
    /// wider ones; kOther for bool and every branch laddu-cpp cannot read).
    [[nodiscard]] std::vector<ColumnInfo> branch_columns() const;

    /// The schema with `alias` naming `target` (affects later reads).
    void add_alias(const std::string& alias, const std::string& target);

private:
    struct Impl;
    std::shared_ptr<Impl> impl_;
};

/// Basket compression for writing (ROOT's algorithm codes 1, 4 and 5).
enum class RootCompression : unsigned char { kNone, kZlib, kLz4, kZstd };

/// Options for writing a ROOT event file.
struct RootWriteOptions {
    /// The TTree's name (laddu's default "tree"): not empty, no '/' or ';'.
    std::string tree = "tree";
    /// Branch types: kFloat64 (`name/D`) or kFloat32 (`name/F`).
    ColumnType precision = ColumnType::kFloat64;
    /// kZlib level 1 is what uproot and ROOT write by default.
    RootCompression compression = RootCompression::kZlib;
    /// zlib 1..9, LZ4 1..12 (1: fast mode, more: high compression), ZSTD 1..22.
    int compression_level = 1;
    /// Entries in each basket of every branch (1 .. 2^24): the baskets of all branches end at
    /// the same entries, so each is a cluster (fAutoFlush).
    std::size_t entries_per_basket = std::size_t{1} << 16;
    /// Write the weight branch even when the schema has none (laddu's default: unit weights).
    bool always_write_weight = true;
    /// Threads compressing the branches' baskets (0: one per core; at most one per branch).
    std::size_t threads = 0;
};

/// Events of one schema written as a flat TTree in the top directory of a new ROOT file, batch
/// by batch: one branch per column with laddu's names (`NAME_e`, `NAME_px`, `NAME_py`,
/// `NAME_pz`, scalars, `weight`), only the pending basket of each branch held in memory. The
/// file carries the streamer info of TTree, TBranch and TLeafD/F (ROOT, uproot, jsroot and
/// laddu read it); files of more than 2 GB use ROOT's 64-bit layout. The file is a temporary beside
/// `path` until close() renames it into place; a writer destroyed before close() removes it.
class EventRootWriter {
public:
    /// Opens the temporary; DataError for bad options (naming the option and the remedy) or an
    /// unwritable directory.
    EventRootWriter(const Schema& schema, std::string path, const RootWriteOptions& options = {});
    EventRootWriter(EventRootWriter&&) noexcept;
    EventRootWriter& operator=(EventRootWriter&&) noexcept;
    EventRootWriter(const EventRootWriter&) = delete;
    EventRootWriter& operator=(const EventRootWriter&) = delete;
    ~EventRootWriter();

    /// Appends the events of `batch`; DataError unless it has the writer's column names.
    void write(const EventBatch& batch);

    /// The entries appended so far.
    [[nodiscard]] std::uint64_t entries() const noexcept;

    /// Writes the pending baskets, the TTree, streamer info, keys and header, and renames the
    /// file into place.
    void close();

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

/// Writes `events` with one EventRootWriter, batch by batch: file-backed events are read as
/// they are written, never held whole.
void write_root(const EventData& events, const std::string& path,
                const RootWriteOptions& options = {});

/// laddu's read_root: the events of the files matching `pattern` in memory.
[[nodiscard]] Dataset read_root(const std::string& pattern, const RootReadOptions& options = {});

/// read_root over several paths or patterns.
[[nodiscard]] Dataset read_root(std::span<const std::string> patterns,
                                const RootReadOptions& options = {});

}  // namespace laddu::data
