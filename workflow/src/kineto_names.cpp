#include "kineto_names.h"

#include <array>
#include <utility>

namespace nimble::workflow {
namespace {

// CUPTI's names for its copy and memory kinds, as Kineto prints them.
constexpr std::array<std::pair<std::string_view, CopyKind>, 10> kCopyKinds = {{
    {"HtoD", CopyKind::kHtoD}, {"DtoH", CopyKind::kDtoH}, {"HtoA", CopyKind::kHtoA}, {"AtoH", CopyKind::kAtoH},
    {"AtoA", CopyKind::kAtoA}, {"AtoD", CopyKind::kAtoD}, {"DtoA", CopyKind::kDtoA}, {"DtoD", CopyKind::kDtoD},
    {"HtoH", CopyKind::kHtoH}, {"PtoP", CopyKind::kPtoP},
}};
constexpr std::array<std::pair<std::string_view, MemoryKind>, 8> kMemoryKinds = {{
    {"Unknown", MemoryKind::kUnknown}, {"Pageable", MemoryKind::kPageable}, {"Pinned", MemoryKind::kPinned},
    {"Device", MemoryKind::kDevice}, {"Array", MemoryKind::kArray}, {"Managed", MemoryKind::kManaged},
    {"Device Static", MemoryKind::kDeviceStatic}, {"Managed Static", MemoryKind::kManagedStatic},
}};

template <typename T, size_t N>
std::optional<T> Lookup(const std::array<std::pair<std::string_view, T>, N>& table, std::string_view key) {
  for (const auto& [name, value] : table) {
    if (name == key) return value;
  }
  return std::nullopt;
}

// "(<kind>)" at the end of `s`, without the brackets.
std::optional<std::string_view> Parenthesised(std::string_view s) {
  if (s.size() < 2 || s.front() != '(' || s.back() != ')') return std::nullopt;
  return s.substr(1, s.size() - 2);
}

}  // namespace

std::optional<CopyKinds> ParseMemcpyName(std::string_view name) {
  constexpr std::string_view kPrefix = "Memcpy ";
  if (!name.starts_with(kPrefix)) return std::nullopt;
  name.remove_prefix(kPrefix.size());
  const size_t space = name.find(' ');
  if (space == std::string_view::npos) return std::nullopt;
  const auto kind = Lookup(kCopyKinds, name.substr(0, space));
  const auto inner = Parenthesised(name.substr(space + 1));
  if (!kind || !inner) return std::nullopt;
  constexpr std::string_view kArrow = " -> ";
  const size_t arrow = inner->find(kArrow);
  if (arrow == std::string_view::npos) return std::nullopt;
  const auto src = Lookup(kMemoryKinds, inner->substr(0, arrow));
  const auto dst = Lookup(kMemoryKinds, inner->substr(arrow + kArrow.size()));
  if (!src || !dst) return std::nullopt;
  return CopyKinds{*kind, *src, *dst};
}

std::optional<MemoryKind> ParseMemsetName(std::string_view name) {
  constexpr std::string_view kPrefix = "Memset ";
  if (!name.starts_with(kPrefix)) return std::nullopt;
  const auto inner = Parenthesised(name.substr(kPrefix.size()));
  if (!inner) return std::nullopt;
  return Lookup(kMemoryKinds, *inner);
}

SyncKind ParseSyncKind(std::string_view name) {
  if (name == "Event Sync") return SyncKind::kEventSynchronize;
  if (name == "Stream Wait Event") return SyncKind::kStreamWaitEvent;
  if (name == "Stream Sync") return SyncKind::kStreamSynchronize;
  if (name == "Context Sync") return SyncKind::kContextSynchronize;
  return SyncKind::kUnknown;
}

}  // namespace nimble::workflow
