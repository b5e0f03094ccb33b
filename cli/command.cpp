#include "command.h"

#include <iostream>

namespace nimble::cli {

int ReportError(const Status& status) {
  std::cerr << "nimble-prof: error: " << status.message() << "\n";
  return status.code() == StatusCode::kInvalidArgument ? kExitUsage : kExitFailure;
}

int PrintError(const std::string& tool, const Status& status) {
  std::cerr << tool << ": error: " << status.message() << "\n";
  return kExitFailure;
}

}  // namespace nimble::cli
