// The one place that says which TorchScript node kinds launch no GPU work, and why (op_kinds.cpp).
// A rule is looked up by the node's qualified kind ("aten::view"); kinds not listed are decided from
// the operator's schema by the graph extractor. Pure functions over constant tables; thread-safe.
#pragma once

#include <string_view>

namespace nimble::accelerate {

enum class KindRule {
  kDecideBySchema,  // not listed: an op if it writes a tensor or returns one, folded otherwise
  kFoldPlumbing,    // interpreter plumbing (constants, lists, tuples): folded, dependencies pass through
  kFoldMetadata,    // reads only tensor metadata (sizes, dtype): folded, carries no data dependency
  kFoldView,        // always returns a view of an input: folded, dependencies pass through
  kFoldIfAliased,   // returns its input or a view when it can, copies otherwise: folded only when
                    // the shape run saw every output share storage with an input
  kKeep,            // a prim:: node that does launch kernels (fusion groups)
};

KindRule RuleForKind(std::string_view kind);

// Short human name of a rule, for messages and tests.
std::string_view KindRuleName(KindRule rule);

}  // namespace nimble::accelerate
