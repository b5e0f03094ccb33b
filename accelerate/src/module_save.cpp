#include "module_save.h"

#include <filesystem>
#include <system_error>

#include "torch_errors.h"

namespace nimble::accelerate {

Status SaveModuleWhole(const torch::jit::Module& module, const std::string& path, const std::string& what,
                       const torch::jit::ExtraFilesMap& extra_files) {
  const std::string partial = path + ".partial";
  std::error_code ignored;
  try {
    module.save(partial, extra_files);
  } catch (const std::exception& e) {
    std::filesystem::remove(partial, ignored);
    return Internal(path + ": " + what + ": " + TorchMessage(e));
  }
  std::error_code error;
  std::filesystem::rename(partial, path, error);
  if (error) {
    std::filesystem::remove(partial, ignored);
    return Internal(path + ": " + what + ": " + error.message());
  }
  return OkStatus();
}

}  // namespace nimble::accelerate
