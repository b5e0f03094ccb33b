// The short name of a kernel, as traces and reports show it: the demangled name without its return
// type, namespaces, template arguments and parameters. Shared by the collector (CUPTI's names) and the
// importers (Kineto's and Nsight Systems'). Pure function.
#pragma once

#include <string>
#include <string_view>

namespace nimble {

// "void ns::foo<int, 3>(float*, int)" -> "foo"; "foo" -> "foo"; a name without those parts is returned whole.
std::string ShortKernelName(std::string_view demangled);

}  // namespace nimble
