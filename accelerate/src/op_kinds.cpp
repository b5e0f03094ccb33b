#include "op_kinds.h"

#include <algorithm>
#include <array>

namespace nimble::accelerate {
namespace {

// Kinds not listed here are decided from the schema (graph_extractor.cpp): an op when it writes a
// tensor or returns one; folded otherwise. That folds host-side scalar work such as aten::Int,
// aten::add.int or aten::floordiv without listing it, and keeps every kernel-launching operator of
// any namespace (aten, torchvision, quantized, custom) without listing those either.
//
// Sorted tables, searched with binary search. Overloads share a kind ("aten::squeeze" covers
// squeeze.dim and squeeze.dims), so one entry covers them all.

// Reads sizes, strides, dtype or device: no kernel, and the value does not wait for the tensor's
// data, so an op that uses it does not depend on the tensor's producer (shapes are static once
// captured).
constexpr std::array<std::string_view, 16> kMetadataKinds = {
    "aten::dim",          "aten::is_contiguous", "aten::is_floating_point", "aten::numel",
    "aten::size",         "aten::stride",        "aten::sym_numel",         "aten::sym_size",
    "aten::sym_stride",   "prim::dtype",         "prim::device",            "prim::is_cuda",
    "prim::is_mkldnn",    "prim::layout",        "prim::requires_grad",     "prim::shape",
};

// Always return a view (or the input itself): ATen computes new sizes and strides on the host and
// launches nothing.
constexpr std::array<std::string_view, 43> kViewKinds = {
    "aten::_reshape_alias", "aten::_unsafe_view", "aten::adjoint",        "aten::alias",
    "aten::as_strided",     "aten::chunk",        "aten::detach",         "aten::diagonal",
    "aten::expand",         "aten::expand_as",    "aten::hsplit",         "aten::indices",
    "aten::mH",             "aten::mT",           "aten::movedim",        "aten::moveaxis",
    "aten::narrow",         "aten::numpy_T",      "aten::permute",        "aten::real",
    "aten::select",         "aten::slice",        "aten::split",          "aten::split_with_sizes",
    "aten::squeeze",        "aten::swapaxes",     "aten::swapdims",       "aten::t",
    "aten::tensor_split",   "aten::transpose",    "aten::unbind",         "aten::unflatten",
    "aten::unfold",         "aten::unsafe_chunk", "aten::unsafe_split",   "aten::unsqueeze",
    "aten::values",         "aten::view",         "aten::view_as",        "aten::view_as_complex",
    "aten::view_as_real",   "aten::vsplit",       "aten::dsplit",
};

// Return the input (or a view of it) when they can and copy otherwise: reshape and flatten of a
// contiguous tensor, contiguous() of a contiguous one, to() of the same dtype and device, dropout in
// eval mode. Which case applies is known only from running it.
constexpr std::array<std::string_view, 12> kMaybeViewKinds = {
    "aten::alpha_dropout", "aten::contiguous",  "aten::dropout",    "aten::feature_alpha_dropout",
    "aten::feature_dropout", "aten::flatten",   "aten::reshape",    "aten::reshape_as",
    "aten::to",            "aten::type_as",     "aten::cpu",        "aten::cuda",
};

// The aten:: side of interpreter plumbing: list, dict and string handling on the host. Indexing a
// list of tensors returns a tensor but launches nothing, which the schema rule cannot tell.
constexpr std::array<std::string_view, 19> kPlumbingKinds = {
    "aten::__contains__", "aten::__derive_index", "aten::__getitem__", "aten::__is__",
    "aten::__isnot__",    "aten::__range_length", "aten::_set_item",  "aten::append",
    "aten::dict",         "aten::extend",         "aten::format",     "aten::insert",
    "aten::items",        "aten::keys",           "aten::len",        "aten::list",
    "aten::pop",          "aten::reverse",        "aten::warn",
};

// prim:: nodes that run fused kernels. Every other prim:: node is interpreter plumbing.
constexpr std::array<std::string_view, 5> kKernelPrimKinds = {
    "prim::CudaFusionGroup", "prim::FusionGroup", "prim::StaticSubgraph", "prim::TensorExprDynamicGroup",
    "prim::TensorExprGroup",
};

template <size_t N>
constexpr std::array<std::string_view, N> Sorted(std::array<std::string_view, N> a) {
  std::sort(a.begin(), a.end());
  return a;
}

template <size_t N>
bool Contains(const std::array<std::string_view, N>& sorted, std::string_view kind) {
  return std::binary_search(sorted.begin(), sorted.end(), kind);
}

}  // namespace

KindRule RuleForKind(std::string_view kind) {
  static constexpr auto kMetadata = Sorted(kMetadataKinds);
  static constexpr auto kView = Sorted(kViewKinds);
  static constexpr auto kMaybeView = Sorted(kMaybeViewKinds);
  static constexpr auto kKernelPrim = Sorted(kKernelPrimKinds);
  static constexpr auto kPlumbing = Sorted(kPlumbingKinds);
  if (Contains(kMetadata, kind)) return KindRule::kFoldMetadata;
  if (Contains(kView, kind)) return KindRule::kFoldView;
  if (Contains(kMaybeView, kind)) return KindRule::kFoldIfAliased;
  if (Contains(kKernelPrim, kind)) return KindRule::kKeep;
  if (Contains(kPlumbing, kind)) return KindRule::kFoldPlumbing;
  // prim::Constant, ListConstruct/Unpack, TupleConstruct/Unpack, GetAttr, NumToTensor, Print, ...:
  // the interpreter's own instructions; none launches device work.
  if (kind.starts_with("prim::")) return KindRule::kFoldPlumbing;
  return KindRule::kDecideBySchema;
}

std::string_view KindRuleName(KindRule rule) {
  switch (rule) {
    case KindRule::kDecideBySchema: return "decide by schema";
    case KindRule::kFoldPlumbing: return "plumbing";
    case KindRule::kFoldMetadata: return "metadata";
    case KindRule::kFoldView: return "view";
    case KindRule::kFoldIfAliased: return "view when aliased";
    case KindRule::kKeep: return "kernel";
  }
  return "?";
}

}  // namespace nimble::accelerate
