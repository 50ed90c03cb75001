// RootSource: one TTree per file, several files as one stream of EventBatch chunks; each
// projected column is read basket by basket, holding one decoded basket at a time.
#include <algorithm>
#include <iterator>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <laddu/base/error.hpp>
#include <laddu/data/parquet.hpp>
#include <laddu/data/root.hpp>

#include "../../range_cursor.hpp"
#include "basket.hpp"
#include "root_file.hpp"
#include "tree.hpp"

namespace laddu::data {

namespace {

using root::Branch;
using root::LeafType;

ColumnType column_type(LeafType type) {
    switch (type) {
    case LeafType::kFloat32:
        return ColumnType::kFloat32;
    case LeafType::kFloat64:
        return ColumnType::kFloat64;
    case LeafType::kInt8:
    case LeafType::kUInt8:
    case LeafType::kInt16:
    case LeafType::kUInt16:
    case LeafType::kInt32:
        return ColumnType::kInt32;
    case LeafType::kUInt32:
    case LeafType::kInt64:
    case LeafType::kUInt64:
        return ColumnType::kInt64;
    case LeafType::kBool:
    case LeafType::kUnsupported:
        break;
    }
    return ColumnType::kOther;
}

/// One file's tree and, for each physical column of the full schema, its branch there.
struct OpenTree {
    std::shared_ptr<const root::RootFile> file;
    root::Tree tree;
    std::map<std::string, std::size_t, std::less<>> index;
    std::vector<std::int64_t> boundaries;  ///< fragment starts and the end entry
};

std::vector<ColumnInfo> column_infos(const root::Tree& tree) {
    std::vector<ColumnInfo> out;
    out.reserve(tree.branches.size());
    for (const Branch& branch : tree.branches) {
        out.push_back({branch.name, column_type(branch.type)});
    }
    return out;
}

// A branch laddu cannot read (or an integer when integers are not scalars) is normally
// skipped; it is an error when, read as a float, it would be the weight or complete a
// four-momentum, since skipping it would silently drop a p4 or set every weight to 1.
void check_skipped_branches(const OpenTree& open, const SchemaInferenceOptions& options) {
    const std::vector<ColumnInfo> infos = column_infos(open.tree);
    for (std::size_t c = 0; c < infos.size(); ++c) {
        const ColumnType type = infos[c].type;
        if (is_float(type) || (options.integer_columns_are_scalars && is_numeric(type))) {
            continue;
        }
        std::vector<ColumnInfo> as_float = infos;
        as_float[c].type = ColumnType::kFloat64;
        std::optional<Schema> would_be;
        try {
            would_be = Schema::infer(as_float, options);
        } catch (const DataError&) {
            continue;
        }
        const std::string& name = infos[c].name;
        std::string role;
        if (would_be->has_weight() && would_be->weight_column() == name) {
            role = "the weight column";
        }
        for (std::size_t p = 0; p < would_be->n_p4s(); ++p) {
            const auto& components = would_be->p4_columns(p);
            if (std::find(components.begin(), components.end(), name) != components.end()) {
                role = fmt::format("a component of four-momentum '{}'", would_be->p4_names()[p]);
            }
        }
        if (role.empty()) {
            continue;
        }
        const Branch& branch = open.tree.branches[c];
        const std::string reason = branch.type == LeafType::kUnsupported
                                       ? branch.unsupported
                                       : std::string("it is an integer or bool branch");
        throw DataError(fmt::format("ROOT file '{}', branch '{}': by its name it is {}, but {}; "
                                    "write it as a float or double branch or rename it",
                                    open.file->path(), name, role, reason));
    }
}

// The entries where every schema column's baskets start (always 0 and the end).
std::vector<std::int64_t> common_boundaries(const OpenTree& open) {
    std::vector<std::int64_t> common{0, open.tree.entries};
    bool first = true;
    for (const auto& [name, b] : open.index) {
        const std::vector<std::int64_t>& starts = open.tree.branches[b].basket_entry;
        if (first) {
            common = starts;
            first = false;
            continue;
        }
        std::vector<std::int64_t> both;
        std::set_intersection(common.begin(), common.end(), starts.begin(), starts.end(),
                              std::back_inserter(both));
        common = std::move(both);
    }
    common.erase(std::unique(common.begin(), common.end()), common.end());
    return common;
}

struct SourceState {
    std::vector<std::string> paths;
    RootReadOptions options;
    std::string tree_name;
    std::shared_ptr<Schema> schema;
    std::vector<OpenTree> trees;
    std::uint64_t num_events = 0;
};

/// One projected column of the open file: its branch and the decoded basket it is in.
struct ColumnState {
    const Branch* branch = nullptr;
    std::size_t basket = 0;
    std::int64_t first = 0;  ///< the decoded basket's entries [first, end)
    std::int64_t end = 0;
    AlignedVector<double> values;
};

class RootStream final : public BatchStream {
public:
    RootStream(std::shared_ptr<const SourceState> state, std::shared_ptr<const Schema> projected,
               std::size_t chunk, detail::RangeCursor cursor)
        : state_(std::move(state)), projected_(std::move(projected)), chunk_(chunk),
          cursor_(std::move(cursor)), names_(projected_->physical_columns()) {}

    std::optional<EventBatch> next() override {
        while (true) {
            if (open_) {
                const auto piece = cursor_.next_piece(start_ + row_, start_ + rows_, chunk_);
                if (piece) {
                    const auto first = static_cast<std::size_t>(piece->first - start_);
                    const auto count = static_cast<std::size_t>(piece->second);
                    row_ = first + count;
                    return read_rows(fragment_first_ + static_cast<std::int64_t>(first), count);
                }
                start_ += rows_;
                open_ = false;
            }
            if (!load_next_fragment()) {
                return std::nullopt;
            }
        }
    }

private:
    bool load_next_fragment() {
        while (file_ < state_->trees.size() && !cursor_.done(start_)) {
            const OpenTree& open = state_->trees[file_];
            if (fragment_ + 1 >= open.boundaries.size()) {
                ++file_;
                fragment_ = 0;
                columns_.clear();
                continue;
            }
            if (columns_.empty()) {
                for (const std::string& name : names_) {
                    columns_.push_back(
                        ColumnState{&open.tree.branches[open.index.at(name)], 0, 0, 0, {}});
                }
            }
            const std::int64_t begin = open.boundaries[fragment_];
            const std::int64_t end = open.boundaries[fragment_ + 1];
            ++fragment_;
            const auto rows = static_cast<std::size_t>(end - begin);
            if (!cursor_.overlaps(start_, start_ + rows)) {
                start_ += rows;
                continue;
            }
            open_ = true;
            rows_ = rows;
            row_ = 0;
            fragment_first_ = begin;
            return true;
        }
        return false;
    }

    // Copies entries [entry, entry + count) of a column, decoding its baskets as needed.
    void fill(ColumnState& column, std::int64_t entry, std::size_t count, double* out) {
        const root::RootFile& file = *state_->trees[file_].file;
        while (count > 0) {
            if (entry < column.first || entry >= column.end) {
                const std::vector<std::int64_t>& starts = column.branch->basket_entry;
                const auto at = std::upper_bound(starts.begin(), starts.end(), entry);
                const auto basket = static_cast<std::size_t>(at - starts.begin() - 1);
                root::read_basket(file, *column.branch, basket, scratch_, column.values);
                column.basket = basket;
                column.first = starts[basket];
                column.end = starts[basket + 1];
                continue;
            }
            const auto offset = static_cast<std::size_t>(entry - column.first);
            const std::size_t take = std::min(count, static_cast<std::size_t>(column.end - entry));
            std::copy_n(column.values.begin() + static_cast<std::ptrdiff_t>(offset), take, out);
            out += take;
            entry += static_cast<std::int64_t>(take);
            count -= take;
        }
    }

    EventBatch read_rows(std::int64_t entry, std::size_t count) {
        std::vector<AlignedVector<double>> columns;
        columns.reserve(projected_->n_batch_columns());
        for (ColumnState& column : columns_) {
            fill(column, entry, count, columns.emplace_back(count).data());
        }
        if (!projected_->has_weight()) {
            columns.emplace_back(count, 1.0);
        }
        return EventBatch(projected_, std::move(columns));
    }

    std::shared_ptr<const SourceState> state_;
    std::shared_ptr<const Schema> projected_;
    std::size_t chunk_;
    detail::RangeCursor cursor_;
    std::vector<std::string> names_;
    root::BasketScratch scratch_;       // shared by the columns: one basket is decoded at a time
    std::vector<ColumnState> columns_;  ///< of file file_, in batch order
    std::size_t file_ = 0;
    std::size_t fragment_ = 0;  ///< the next fragment of file_
    bool open_ = false;
    std::size_t rows_ = 0;
    std::size_t row_ = 0;
    std::int64_t fragment_first_ = 0;  ///< the open fragment's first entry in its file
    std::uint64_t start_ = 0;
};

OpenTree open_tree(const std::string& path, const std::string& tree_path) {
    OpenTree open;
    open.file = root::RootFile::open(path);
    const root::Key key = open.file->find_tree(tree_path);
    const std::vector<std::uint8_t> data = open.file->object_data(key);
    open.tree = root::parse_tree(
        data, static_cast<std::size_t>(key.keylen), key.class_name,
        root::ErrorSite{path, fmt::format("{} '{}'", key.class_name, key.name), false, 0});
    // A damaged branch is an error even when it is not read: its metadata cannot be trusted,
    // and as a skipped branch it would silently drop a column from the schema.
    for (const Branch& branch : open.tree.branches) {
        if (branch.damaged) {
            throw DataError(fmt::format("ROOT file '{}', {} '{}', branch '{}': {}; the file is "
                                        "damaged (check it with uproot or ROOT, or write it "
                                        "again)",
                                        path, key.class_name, key.name, branch.name,
                                        branch.unsupported));
        }
    }
    return open;
}

}  // namespace

struct RootSource::Impl : SourceState {};

RootSource::RootSource(std::vector<std::string> patterns, RootReadOptions options)
    : impl_(std::make_shared<Impl>()) {
    if (patterns.empty()) {
        throw DataError("no ROOT files given");
    }
    impl_->paths = expand_paths(patterns);
    impl_->options = std::move(options);
    impl_->tree_name = impl_->options.tree;
    for (std::size_t f = 0; f < impl_->paths.size(); ++f) {
        const std::string& path = impl_->paths[f];
        if (impl_->tree_name.empty()) {
            // laddu's rule: the first file's first TTree names the tree in every file.
            impl_->tree_name = root::RootFile::open(path)->find_tree("").name;
        }
        OpenTree open = open_tree(path, impl_->tree_name);
        check_skipped_branches(open, impl_->options.schema);
        Schema schema = [&] {
            try {
                return Schema::infer(column_infos(open.tree), impl_->options.schema);
            } catch (const DataError& error) {
                // Branch names come from the file (an empty or repeated one is a damaged file).
                throw DataError(fmt::format("ROOT file '{}' (tree '{}'): {}", path,
                                            impl_->tree_name, error.what()));
            }
        }();
        if (f == 0) {
            impl_->schema = std::make_shared<Schema>(std::move(schema));
        } else if (!same_event_columns(schema, *impl_->schema)) {
            throw DataError(fmt::format("ROOT file '{}' (tree '{}') has schema {}, but the first "
                                        "file '{}' has {}; all files of a dataset must have the "
                                        "same four-momenta, scalars and weight column",
                                        path, impl_->tree_name, schema.describe(),
                                        impl_->paths.front(), impl_->schema->describe()));
        }
        for (const std::string& name : impl_->schema->physical_columns()) {
            const auto found =
                std::find_if(open.tree.branches.begin(), open.tree.branches.end(),
                             [&](const Branch& branch) { return branch.name == name; });
            if (found == open.tree.branches.end() || found->type == LeafType::kUnsupported) {
                throw DataError(fmt::format("ROOT file '{}', tree '{}': no readable branch '{}', "
                                            "which the first file '{}' has",
                                            path, impl_->tree_name, name, impl_->paths.front()));
            }
            if (found->entries != open.tree.entries) {
                throw DataError(fmt::format("ROOT file '{}', tree '{}': branch '{}' has {} "
                                            "entries, the tree {}; the file is damaged",
                                            path, impl_->tree_name, name, found->entries,
                                            open.tree.entries));
            }
            open.index.emplace(name, static_cast<std::size_t>(found - open.tree.branches.begin()));
        }
        // With no event column to read, nothing else vouches for fEntries: one branch must
        // agree with it (its basket tables bound its entries by the file's size).
        const bool vouched = open.tree.entries == 0 || !impl_->schema->physical_columns().empty() ||
                             std::any_of(open.tree.branches.begin(), open.tree.branches.end(),
                                         [&](const Branch& branch) {
                                             return branch.type != LeafType::kUnsupported &&
                                                    branch.entries == open.tree.entries;
                                         });
        if (!vouched) {
            throw DataError(fmt::format("ROOT file '{}', tree '{}': the tree has {} entries but "
                                        "none of its {} branches has as many; the file is damaged",
                                        path, impl_->tree_name, open.tree.entries,
                                        open.tree.branches.size()));
        }
        open.boundaries = common_boundaries(open);
        impl_->num_events += static_cast<std::uint64_t>(open.tree.entries);
        impl_->trees.push_back(std::move(open));
    }
}

std::vector<ColumnInfo> RootSource::branch_columns() const {
    return column_infos(impl_->trees.front().tree);
}

const Schema& RootSource::schema() const {
    return *impl_->schema;
}

std::uint64_t RootSource::num_events() const {
    return impl_->num_events;
}

const std::vector<std::string>& RootSource::paths() const {
    return impl_->paths;
}

const std::string& RootSource::tree_name() const {
    return impl_->tree_name;
}

void RootSource::add_alias(const std::string& alias, const std::string& target) {
    impl_->schema->add_alias(alias, target);
}

std::unique_ptr<BatchStream> RootSource::read(const ReadPlan& plan) const {
    check_read_plan(plan, impl_->num_events);
    auto projected = std::make_shared<const Schema>(impl_->schema->project(plan.columns));
    return std::make_unique<RootStream>(impl_, std::move(projected), plan.chunk_size,
                                        detail::RangeCursor(plan.ranges, impl_->num_events));
}

std::vector<std::size_t> RootSource::fragment_sizes() const {
    std::vector<std::size_t> sizes;
    for (const OpenTree& open : impl_->trees) {
        for (std::size_t i = 0; i + 1 < open.boundaries.size(); ++i) {
            sizes.push_back(static_cast<std::size_t>(open.boundaries[i + 1] - open.boundaries[i]));
        }
    }
    return sizes;
}

std::size_t RootSource::stream_buffer_bytes(const ReadPlan& plan) const {
    check_read_plan(plan, impl_->num_events);
    const std::vector<std::string> names = impl_->schema->project(plan.columns).physical_columns();
    // Per column its largest decoded basket (doubles); once, the largest stored basket and the
    // largest decompressed one (the stream's scratch buffers, reused from basket to basket).
    std::size_t bytes = 0;
    std::size_t largest_stored = 0;
    std::size_t largest_data = 0;
    for (const std::string& name : names) {
        std::size_t column = 0;
        for (const OpenTree& open : impl_->trees) {
            const Branch& branch = open.tree.branches[open.index.at(name)];
            for (std::size_t b = 0; b + 1 < branch.basket_entry.size(); ++b) {
                const auto entries =
                    static_cast<std::size_t>(branch.basket_entry[b + 1] - branch.basket_entry[b]);
                column = std::max(column, entries * sizeof(double));
                largest_stored =
                    std::max(largest_stored, static_cast<std::size_t>(branch.basket_bytes[b]));
                largest_data = std::max(largest_data, entries * root::leaf_size(branch.type));
            }
        }
        bytes += column;
    }
    return bytes + largest_stored + largest_data;
}

Dataset read_root(const std::string& pattern, const RootReadOptions& options) {
    const std::string patterns[] = {pattern};
    return read_root(patterns, options);
}

Dataset read_root(std::span<const std::string> patterns, const RootReadOptions& options) {
    const RootSource source(std::vector<std::string>(patterns.begin(), patterns.end()), options);
    return Dataset::from_source(source);
}

}  // namespace laddu::data
