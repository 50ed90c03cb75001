#include <gtest/gtest.h>

#include <laddu/expr/expr.hpp>
#include <laddu/expr/node_map.hpp>

namespace laddu::expr {
namespace {

TEST(NodeMap, FindsEveryInsertedNodeThroughGrowthAndKeepsTheFirstValue) {
    std::vector<Expr> nodes;
    for (int k = 0; k < 5000; ++k) {
        nodes.push_back(scalar("x") + constant(static_cast<double>(k)));
    }
    NodeMap<int> map;  // grows from 16 slots
    for (std::size_t k = 0; k < nodes.size(); ++k) {
        const auto [value, inserted] = map.try_emplace(nodes[k].id(), static_cast<int>(k));
        EXPECT_TRUE(inserted);
        EXPECT_EQ(*value, static_cast<int>(k));
    }
    EXPECT_EQ(map.size(), 5000U);
    for (std::size_t k = 0; k < nodes.size(); ++k) {
        ASSERT_TRUE(map.contains(nodes[k].id()));
        EXPECT_EQ(map.at(nodes[k].id()), static_cast<int>(k));
        const auto [value, inserted] = map.try_emplace(nodes[k].id(), -1);
        EXPECT_FALSE(inserted);
        EXPECT_EQ(*value, static_cast<int>(k));
    }
    const Expr other = scalar("y");
    EXPECT_EQ(map.find(other.id()), nullptr);
    EXPECT_FALSE(map.contains(other.id()));
    map[other.id()] += 7;  // default-inserts 0
    EXPECT_EQ(map.at(other.id()), 7);
    EXPECT_EQ(map.size(), 5001U);
}

TEST(NodeMap, HoldsValuesWithoutADefaultConstructor) {
    const Expr x = scalar("x");
    const Expr y = scalar("y");
    NodeMap<Expr> map(2);
    map.try_emplace(x.id(), y);
    map.try_emplace(y.id(), x);
    EXPECT_EQ(map.at(x.id()), y);
    EXPECT_EQ(map.at(y.id()), x);
}

}  // namespace
}  // namespace laddu::expr
