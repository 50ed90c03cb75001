// The intern table behind hash-consing, and the Expr member functions.
#include <algorithm>
#include <bit>
#include <mutex>
#include <new>
#include <unordered_map>
#include <vector>

#include <laddu/base/assert.hpp>
#include <laddu/base/error.hpp>
#include <laddu/expr/expr.hpp>

namespace laddu::expr {
namespace detail {
namespace {

std::size_t mix(std::size_t seed, std::size_t value) {
    // boost::hash_combine's mixing step, widened to 64 bits.
    return seed ^ (value + 0x9e3779b97f4a7c15ULL + (seed << 12U) + (seed >> 4U));
}

std::size_t hash_string(const std::string& s) {
    return std::hash<std::string>{}(s);
}

std::size_t hash_double(double x) {
    return std::hash<std::uint64_t>{}(std::bit_cast<std::uint64_t>(x));
}

std::size_t structural_hash_of(const Node& node) {
    std::size_t h = mix(static_cast<std::size_t>(node.kind), node.op);
    h = mix(h, static_cast<std::size_t>(node.index));
    h = mix(h, static_cast<std::size_t>(node.index2));
    h = mix(h, hash_double(node.re));
    h = mix(h, hash_double(node.im));
    h = mix(h, hash_string(node.name));
    if (node.parameter) {
        h = mix(h, hash_string(node.parameter->name));
    }
    for (const Expr& child : node.children) {
        h = mix(h, child.structural_hash());
    }
    for (const std::string& tag : node.tags) {
        h = mix(h, hash_string(tag));
    }
    return h;
}

bool same_node(const Node& a, const Node& b) {
    if (a.hash != b.hash || a.kind != b.kind || a.op != b.op || a.index != b.index ||
        a.index2 != b.index2 ||
        std::bit_cast<std::uint64_t>(a.re) != std::bit_cast<std::uint64_t>(b.re) ||
        std::bit_cast<std::uint64_t>(a.im) != std::bit_cast<std::uint64_t>(b.im) ||
        a.name != b.name || a.children != b.children || a.tags != b.tags) {
        return false;
    }
    if (static_cast<bool>(a.parameter) != static_cast<bool>(b.parameter)) {
        return false;
    }
    return !a.parameter || *a.parameter == *b.parameter;
}

class InternTable;
InternTable& table();

// An interned node. It lives in one allocation with its reference counts (make_shared), and
// its destructor erases its table entry: the node and its count share cache lines, which the
// graph walks touch for every node they visit, and interning a new node allocates once.
struct InternedNode : Node {
    explicit InternedNode(Node node) : Node(std::move(node)) {}

    InternedNode(const InternedNode&) = delete;
    InternedNode& operator=(const InternedNode&) = delete;
    InternedNode(InternedNode&&) = delete;
    InternedNode& operator=(InternedNode&&) = delete;

    ~InternedNode();
};

// Weak entries keyed by structural hash. A dying node erases the expired entries of its
// bucket without holding the lock while its children are destroyed.
class InternTable {
public:
    Expr intern(Node node) {
        node.hash = structural_hash_of(node);
        const std::size_t hash = node.hash;
        const std::lock_guard<std::mutex> lock(mutex_);
        auto [begin, end] = entries_.equal_range(hash);
        for (auto it = begin; it != end; ++it) {
            if (std::shared_ptr<const Node> existing = it->second.lock()) {
                if (same_node(*existing, node)) {
                    return Expr(std::move(existing));
                }
            }
        }
        std::shared_ptr<const Node> fresh = std::make_shared<const InternedNode>(std::move(node));
        entries_.emplace(hash, fresh);
        return Expr(std::move(fresh));
    }

    std::size_t size() {
        const std::lock_guard<std::mutex> lock(mutex_);
        std::size_t live = 0;
        for (const auto& entry : entries_) {
            live += entry.second.expired() ? 0U : 1U;
        }
        return live;
    }

    // Called by a dying node: its count is zero, so its entry is expired. Its memory stays
    // until the destructor returns (the count block holds a weak reference of its own while the
    // node is destroyed), so erasing the entry here frees nothing under the node's feet.
    void release(Node& dead) {
        {
            const std::lock_guard<std::mutex> lock(mutex_);
            auto [begin, end] = entries_.equal_range(dead.hash);
            for (auto it = begin; it != end;) {
                it = it->second.expired() ? entries_.erase(it) : std::next(it);
            }
        }
        // Destroy iteratively: releasing the children inside this call would recurse once per
        // level, and a sum built with += over 10^5 terms would overflow the stack. The
        // outermost release() on a thread drains a list of its own; nested ones (a child dying
        // in that loop) add to it through a thread_local pointer, which has no destructor: an
        // Expr in static storage, or in a thread_local destroyed late, can die after a thread's
        // thread_local destructors have run (a vector here crashed at exit).
        thread_local std::vector<Expr>* draining = nullptr;
        if (draining != nullptr) {
            for (Expr& child : dead.children) {
                draining->push_back(std::move(child));
            }
            return;
        }
        std::vector<Expr> pending;
        pending.reserve(dead.children.size());
        for (Expr& child : dead.children) {
            pending.push_back(std::move(child));
        }

        struct Drain {
            explicit Drain(std::vector<Expr>* list) noexcept { draining = list; }

            Drain(const Drain&) = delete;
            Drain& operator=(const Drain&) = delete;
            Drain(Drain&&) = delete;
            Drain& operator=(Drain&&) = delete;

            ~Drain() { draining = nullptr; }
        } const drain(&pending);

        while (!pending.empty()) {
            const Expr last = std::move(pending.back());
            pending.pop_back();
        }  // `last` dies here and may push its own children
    }

private:
    std::mutex mutex_;
    std::unordered_multimap<std::size_t, std::weak_ptr<const Node>> entries_;
};

InternedNode::~InternedNode() {
    table().release(*this);
}

// Never destroyed: expressions in static storage may outlive any destruction order.
InternTable& table() {
    alignas(InternTable) static unsigned char storage[sizeof(InternTable)];
    static InternTable* const instance = ::new (static_cast<void*>(storage)) InternTable();
    return *instance;
}

}  // namespace

Expr intern(Node node) {
    return table().intern(std::move(node));
}

std::size_t intern_table_size() {
    return table().size();
}

}  // namespace detail

Expr::Expr(double value) : Expr(constant(value)) {}

Expr::Expr(std::complex<double> value) : Expr(constant(value)) {}

Expr Expr::tagged(const std::string& tag) const {
    if (tag.empty()) {
        throw ModelError("tagged() needs a non-empty tag name");
    }
    detail::Node copy = *node_;
    auto pos = std::lower_bound(copy.tags.begin(), copy.tags.end(), tag);
    if (pos != copy.tags.end() && *pos == tag) {
        return *this;
    }
    copy.tags.insert(pos, tag);
    return detail::intern(std::move(copy));
}

Expr Expr::without_tags() const {
    if (node_->tags.empty()) {
        return *this;
    }
    detail::Node copy = *node_;
    copy.tags.clear();
    return detail::intern(std::move(copy));
}

Expr Expr::operator[](std::uint32_t index) const {
    return component(*this, index);
}

Expr Expr::at(std::uint32_t row, std::uint32_t col) const {
    return matrix_element(*this, row, col);
}

Expr Expr::with_children(std::vector<Expr> children) const {
    LADDU_ASSERT(children.size() == node_->children.size())
        << "with_children: " << children.size() << " children for a node with "
        << node_->children.size();
    if (children == node_->children) {
        return *this;
    }
    for (std::size_t i = 0; i < children.size(); ++i) {
        LADDU_ASSERT(children[i].value_kind() == node_->children[i].value_kind())
            << "with_children changed the kind of child " << i << " of a " << to_string(node_->kind)
            << " node from " << to_string(node_->children[i].value_kind()) << " to "
            << to_string(children[i].value_kind());
    }
    detail::Node copy = *node_;
    copy.children = std::move(children);
    return detail::intern(std::move(copy));
}

}  // namespace laddu::expr
