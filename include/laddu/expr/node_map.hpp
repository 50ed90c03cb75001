// laddu/expr/node_map.hpp: a map from expression nodes (Expr::id()) to values, for the walks
// and passes that visit every node of a graph once.
//
// Open addressing with linear probing in one array: a lookup is a hash and, mostly, one probe,
// and an insert allocates only when the table doubles, where std::unordered_map allocates a
// node per entry (the compiler's passes insert every node of a ~10^3-node model a few times
// per pass).
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include <laddu/expr/expr.hpp>

namespace laddu::expr {

/// Node id -> V. Keys are Expr::id() values (never null); values are kept in insertion order
/// (V needs no default constructor). Pointers to values stay valid until the next insertion.
template <typename V>
class NodeMap {
    static_assert(!std::is_same_v<V, bool>,
                  "std::vector<bool> holds no bools to point at: use char");

public:
    /// A map with room for `expected` nodes before it grows.
    explicit NodeMap(std::size_t expected = 0) {
        rehash(capacity_for(expected));
        values_.reserve(expected);
    }

    /// The value of `node`, or nullptr.
    [[nodiscard]] V* find(const void* node) noexcept {
        const Slot& slot = slots_[probe(node)];
        return slot.key == nullptr ? nullptr : &values_[slot.index];
    }

    /// The value of `node`, or nullptr.
    [[nodiscard]] const V* find(const void* node) const noexcept {
        const Slot& slot = slots_[probe(node)];
        return slot.key == nullptr ? nullptr : &values_[slot.index];
    }

    /// True when `node` has a value.
    [[nodiscard]] bool contains(const void* node) const noexcept {
        return slots_[probe(node)].key != nullptr;
    }

    /// Inserts `value` for `node` unless it has one; the value and whether it was inserted.
    template <typename... Args>
    std::pair<V*, bool> try_emplace(const void* node, Args&&... args) {
        if (2 * (values_.size() + 1) > slots_.size()) {
            rehash(2 * slots_.size());
        }
        Slot& slot = slots_[probe(node)];
        if (slot.key != nullptr) {
            return {&values_[slot.index], false};
        }
        slot.key = node;
        slot.index = static_cast<std::uint32_t>(values_.size());
        values_.emplace_back(std::forward<Args>(args)...);
        return {&values_.back(), true};
    }

    /// The value of `node`, inserting V{} first if it has none.
    V& operator[](const void* node) { return *try_emplace(node).first; }

    /// The value of `node`, which must be present.
    [[nodiscard]] const V& at(const void* node) const noexcept { return *find(node); }

    /// The value of `node`, which must be present.
    [[nodiscard]] V& at(const void* node) noexcept { return *find(node); }

    /// The number of nodes with a value.
    [[nodiscard]] std::size_t size() const noexcept { return values_.size(); }

private:
    struct Slot {
        const void* key = nullptr;
        std::uint32_t index = 0;
    };

    static std::size_t capacity_for(std::size_t expected) {
        std::size_t capacity = 16;
        while (capacity < 2 * expected) {
            capacity *= 2;
        }
        return capacity;
    }

    // Nodes are heap objects of at least 16-byte alignment: the low bits carry nothing, and a
    // multiplicative hash spreads the rest over the table.
    [[nodiscard]] std::size_t slot_of(const void* node) const noexcept {
        const auto bits = reinterpret_cast<std::uintptr_t>(node);
        return static_cast<std::size_t>(((bits >> 4U) * 0x9E3779B97F4A7C15ULL) >> shift_);
    }

    // The slot holding `node`, or the empty slot where it would go.
    [[nodiscard]] std::size_t probe(const void* node) const noexcept {
        const std::size_t mask = slots_.size() - 1;
        std::size_t i = slot_of(node);
        while (slots_[i].key != nullptr && slots_[i].key != node) {
            i = (i + 1) & mask;
        }
        return i;
    }

    void rehash(std::size_t capacity) {
        std::vector<Slot> old(capacity);
        std::swap(old, slots_);
        shift_ = 64U - static_cast<unsigned>(std::countr_zero(capacity));
        for (const Slot& slot : old) {
            if (slot.key != nullptr) {
                slots_[probe(slot.key)] = slot;
            }
        }
    }

    std::vector<Slot> slots_;
    std::vector<V> values_;
    unsigned shift_ = 60;
};

}  // namespace laddu::expr
