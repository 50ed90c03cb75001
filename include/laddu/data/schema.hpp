// laddu/data/schema.hpp: the logical layout of event data (four-momenta, scalars, weight).
//
// A Schema names the four-momenta and scalars of an event and says whether events carry a weight.
// It also remembers the physical (file) column behind each logical one, so that a file whose
// columns are `beam_E, beam_Px, ...` and one with `beam_e, beam_px, ...` give the same schema.
#pragma once

#include <array>
#include <cstddef>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace laddu::data {

/// The storage type of a physical column, as laddu-cpp reads it. Every numeric type is
/// converted to double when read.
enum class ColumnType : unsigned char {
    kFloat64,  ///< IEEE double (Parquet DOUBLE)
    kFloat32,  ///< IEEE single (Parquet FLOAT)
    kInt64,    ///< 64-bit integer (Parquet INT64); values beyond 2^53 round to the nearest double
    kInt32,    ///< 32-bit integer (Parquet INT32)
    kOther,    ///< anything else (strings, booleans, nested columns): never read
};

/// "float64", "float32", "int64", "int32" or "other".
[[nodiscard]] std::string_view column_type_name(ColumnType type) noexcept;

/// True for the float types laddu infers as event columns (kFloat64, kFloat32).
[[nodiscard]] bool is_float(ColumnType type) noexcept;

/// True for every type laddu-cpp can read into doubles.
[[nodiscard]] bool is_numeric(ColumnType type) noexcept;

/// One physical column: its name in the file and its storage type.
struct ColumnInfo {
    std::string name;
    ColumnType type = ColumnType::kFloat64;

    friend bool operator==(const ColumnInfo&, const ColumnInfo&) = default;
};

/// Index of a four-momentum component inside a p4 column group: (E, px, py, pz).
enum P4Component : unsigned char { kE = 0, kPx = 1, kPy = 2, kPz = 3 };

/// How logical names map to physical columns when a schema is inferred from a file.
///
/// Following laddu: a four-momentum `NAME` is the four columns `NAME_e`, `NAME_px`, `NAME_py`,
/// `NAME_pz` (any order in the file). laddu-cpp also accepts these suffixes in any letter case
/// (`NAME_E`, `NAME_Px`, `NAME_PX`, as older laddu files use); two columns that differ only in the
/// case of the suffix are ambiguous and rejected. The column `weight` is the event weight.
struct SchemaInferenceOptions {
    /// The physical weight column (matched exactly, then case-insensitively if unique).
    std::string weight_column = "weight";
    /// Fail when the weight column is absent (otherwise every weight is 1).
    bool require_weight = false;
    /// A prefix with only some of the four components becomes separate scalars (laddu's
    /// default); when false such columns are ignored.
    bool incomplete_p4_components_are_scalars = true;
    /// Integer columns become scalars too (laddu ignores them; off by default).
    bool integer_columns_are_scalars = false;
};

/// The logical schema of a dataset: four-momenta (4 columns each), scalars, and the weight.
///
/// The physical column order of an EventBatch is: the four components of every p4 in p4 order,
/// then the scalars, then the weight (always present in a batch; 1 when has_weight() is false).
class Schema {
public:
    /// An empty schema (no columns, no weight).
    Schema() = default;

    /// A schema with laddu's default physical names (`name_e`, ..., `weight`). Duplicate or
    /// empty names are a DataError.
    Schema(std::vector<std::string> p4s, std::vector<std::string> scalars, bool has_weight);

    /// Infers a schema from a file's columns with laddu's naming conventions (see
    /// SchemaInferenceOptions): complete p4 groups in sorted name order, other float columns
    /// as scalars in file order, then incomplete-group components. Non-float columns are
    /// ignored unless `integer_columns_are_scalars`.
    [[nodiscard]] static Schema infer(std::span<const ColumnInfo> columns,
                                      const SchemaInferenceOptions& options = {});

    /// Four-momentum names, in column order.
    [[nodiscard]] const std::vector<std::string>& p4_names() const noexcept { return p4s_; }

    /// Scalar names, in column order.
    [[nodiscard]] const std::vector<std::string>& scalar_names() const noexcept { return scalars_; }

    /// True when the events carry weights from the data (otherwise all weights are 1).
    [[nodiscard]] bool has_weight() const noexcept { return has_weight_; }

    [[nodiscard]] std::size_t n_p4s() const noexcept { return p4s_.size(); }

    [[nodiscard]] std::size_t n_scalars() const noexcept { return scalars_.size(); }

    /// Number of physical columns in an EventBatch of this schema (4 n_p4s + n_scalars + 1).
    [[nodiscard]] std::size_t n_batch_columns() const noexcept {
        return 4 * p4s_.size() + scalars_.size() + 1;
    }

    /// The p4 index of `name` (or of the alias `name`), if there is one.
    [[nodiscard]] std::optional<std::size_t> p4_index(std::string_view name) const;

    /// The scalar index of `name` (or of the alias `name`), if there is one.
    [[nodiscard]] std::optional<std::size_t> scalar_index(std::string_view name) const;

    /// Like p4_index, but a missing name is a DataError listing the available p4s.
    [[nodiscard]] std::size_t require_p4(std::string_view name) const;

    /// Like scalar_index, but a missing name is a DataError listing the available scalars.
    [[nodiscard]] std::size_t require_scalar(std::string_view name) const;

    /// Makes `alias` another name for the p4 or scalar `target`. An alias that is already a
    /// name, or a target that does not exist, is a DataError.
    void add_alias(const std::string& alias, const std::string& target);

    /// The aliases, alias -> target.
    [[nodiscard]] const std::map<std::string, std::string, std::less<>>& aliases() const noexcept {
        return aliases_;
    }

    /// The physical columns of p4 `index`, in (E, px, py, pz) order.
    [[nodiscard]] const std::array<std::string, 4>& p4_columns(std::size_t index) const {
        return p4_columns_.at(index);
    }

    /// The physical column of scalar `index`.
    [[nodiscard]] const std::string& scalar_column(std::size_t index) const {
        return scalar_columns_.at(index);
    }

    /// The physical weight column name (meaningful when has_weight()).
    [[nodiscard]] const std::string& weight_column() const noexcept { return weight_column_; }

    /// The physical columns to read from a file, in batch order (the weight only if has_weight()).
    [[nodiscard]] std::vector<std::string> physical_columns() const;

    /// The names of the batch columns in batch order: `p_e, p_px, p_py, p_pz` per p4 (logical
    /// name plus lower-case suffix), the scalars, then `weight`.
    [[nodiscard]] std::vector<std::string> batch_column_names() const;

    /// The schema restricted to `names` (p4 or scalar names or aliases, in schema order); the
    /// weight is kept. An unknown name is a DataError. An empty list keeps everything.
    [[nodiscard]] Schema project(std::span<const std::string> names) const;

    /// Replaces the physical names (used by inference); sizes must match the logical names.
    void set_physical_columns(std::vector<std::array<std::string, 4>> p4_columns,
                              std::vector<std::string> scalar_columns, std::string weight_column);

    /// Equal when the logical names and has_weight agree (physical names and aliases aside).
    friend bool operator==(const Schema& a, const Schema& b) {
        return a.p4s_ == b.p4s_ && a.scalars_ == b.scalars_ && a.has_weight_ == b.has_weight_;
    }

    /// "p4s [beam, proton], scalars [pol_angle], weight" for error messages.
    [[nodiscard]] std::string describe() const;

private:
    std::vector<std::string> p4s_;
    std::vector<std::string> scalars_;
    bool has_weight_ = false;
    std::vector<std::array<std::string, 4>> p4_columns_;
    std::vector<std::string> scalar_columns_;
    std::string weight_column_ = "weight";
    std::map<std::string, std::string, std::less<>> aliases_;
};

/// True when `a` and `b` have the same four-momenta, scalars and weight by name, in any column
/// order (files read by name can then share one schema).
[[nodiscard]] bool same_event_columns(const Schema& a, const Schema& b);

}  // namespace laddu::data
