#include "module_rules.h"

#include <array>
#include <fstream>
#include <regex>
#include <string_view>

namespace nimble::testing {
namespace {

namespace fs = std::filesystem;

// Third-party families of headers, by the prefix of the include path.
struct Family {
  std::string_view name;
  std::regex pattern;
};

const std::vector<Family>& Families() {
  static const std::vector<Family> families = {
      {"CUDA", std::regex(R"(^(cuda|cuda_runtime|cuda_runtime_api|driver_types|nvtx3/|nvToolsExt|cudnn|cublas))")},
      {"CUPTI", std::regex(R"(^(cupti|generated_cuda))")},
      {"libtorch", std::regex(R"(^(torch/|ATen/|c10/|caffe2/))")},
      {"Qt", std::regex(R"(^(Q[A-Z]|QtWidgets|QtCore|QtGui|QtTest))")},
      {"sqlite3.h", std::regex(R"(^sqlite3\.h$)")},
      {"Boost", std::regex(R"(^boost/)")},
  };
  return families;
}

struct ModuleRule {
  std::string_view folder;
  std::vector<std::string_view> nimble_deps;  // nimble modules it may include (itself implied)
  std::vector<std::string_view> families;     // third-party families it may include
};

const std::vector<ModuleRule>& Rules() {
  static const std::vector<ModuleRule> rules = {
      {"core", {}, {}},
      {"store", {"core"}, {"sqlite3.h"}},
      {"analysis", {"core"}, {"Boost"}},
      {"collector", {"core", "store"}, {"CUDA", "CUPTI"}},
      {"accelerate", {"core", "analysis", "store"}, {"CUDA", "libtorch"}},
      {"gui", {"core", "store", "analysis"}, {"Qt"}},
      {"workflow", {"core", "store", "analysis", "collector", "accelerate"}, {}},
      {"cli", {"core", "store", "analysis", "workflow"}, {}},
      {"python", {"core", "workflow", "accelerate"}, {"libtorch"}},
  };
  return rules;
}

bool Contains(const std::vector<std::string_view>& v, std::string_view x) {
  for (auto s : v) if (s == x) return true;
  return false;
}

bool IsSource(const fs::path& p) {
  static constexpr std::array<std::string_view, 6> kExt = {".h", ".hpp", ".cpp", ".cc", ".cu", ".cuh"};
  const std::string ext = p.extension().string();
  for (auto e : kExt) if (ext == e) return true;
  return false;
}

// The rule an include breaks in a file of `rule.folder`, or "" when allowed.
std::string CheckInclude(const ModuleRule& rule, const std::string& inc, bool public_header) {
  static const std::regex nimble_module(R"(^nimble/([a-z_]+)/)");
  std::smatch m;
  if (std::regex_search(inc, m, nimble_module)) {
    const std::string dep = m[1];
    if (dep != rule.folder && !Contains(rule.nimble_deps, dep)) {
      return std::string(rule.folder) + " may not depend on " + dep;
    }
    return "";
  }
  for (const Family& f : Families()) {
    if (!std::regex_search(inc, f.pattern)) continue;
    if (!Contains(rule.families, f.name)) return std::string(f.name) + " is not allowed in " + std::string(rule.folder) + "/";
    if (f.name == "sqlite3.h" && public_header) return "sqlite3.h may appear only in store's .cpp files";
    return "";
  }
  return "";
}

void ScanFile(const fs::path& root, const fs::path& file, const ModuleRule& rule, std::vector<Violation>& out) {
  static const std::regex include_line(R"(^\s*#\s*include\s*[<"]([^>"]+)[>"])");
  const std::string rel = fs::relative(file, root).string();
  const bool public_header = rel.find("/include/") != std::string::npos;
  std::ifstream in(file);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    std::smatch m;
    if (!std::regex_search(line, m, include_line)) continue;
    const std::string inc = m[1];
    std::string broken = CheckInclude(rule, inc, public_header);
    if (!broken.empty()) out.push_back({rel, n, inc, std::move(broken)});
  }
}

}  // namespace

std::vector<Violation> FindBoundaryViolations(const fs::path& root) {
  std::vector<Violation> out;
  for (const ModuleRule& rule : Rules()) {
    const fs::path dir = root / rule.folder;
    if (!fs::is_directory(dir)) continue;
    for (const auto& entry : fs::recursive_directory_iterator(dir)) {
      if (entry.is_regular_file() && IsSource(entry.path())) ScanFile(root, entry.path(), rule, out);
    }
  }
  return out;
}

}  // namespace nimble::testing
