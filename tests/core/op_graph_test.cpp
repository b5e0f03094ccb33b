#include "nimble/core/op_graph.h"

#include <gtest/gtest.h>

namespace nimble {
namespace {

OpGraph Diamond() {
  OpGraph g;
  for (int i = 0; i < 4; ++i) g.ops.push_back({OpId(i), "op" + std::to_string(i), "aten::relu", "", 0});
  g.edges = {{OpId(0), OpId(1)}, {OpId(0), OpId(2)}, {OpId(1), OpId(3)}, {OpId(2), OpId(3)}};
  return g;
}

TEST(OpGraphTest, ValidGraphPasses) { EXPECT_TRUE(Diamond().Validate().ok()); }

TEST(OpGraphTest, DanglingEdgeNamesTheEdge) {
  OpGraph g = Diamond();
  g.edges.push_back({OpId(2), OpId(9)});
  Status s = g.Validate();
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("2 -> 9"), std::string::npos) << s.message();
}

TEST(OpGraphTest, SelfLoopNamesTheOp) {
  OpGraph g = Diamond();
  g.edges.push_back({OpId(1), OpId(1)});
  EXPECT_NE(g.Validate().message().find("op1"), std::string::npos);
}

TEST(OpGraphTest, NonDenseIdsRejected) {
  OpGraph g = Diamond();
  g.ops[2].id = OpId(7);
  EXPECT_FALSE(g.Validate().ok());
}

}  // namespace
}  // namespace nimble
