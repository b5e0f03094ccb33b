#include "accelerate_inputs.h"

#include <charconv>
#include <iostream>

namespace nimble::cli {

StatusOr<std::vector<int64_t>> ParseShape(const std::string& text) {
  std::vector<int64_t> shape;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('x', start);
    if (end == std::string::npos) end = text.size();
    int64_t dim = 0;
    const char* first = text.data() + start;
    const char* last = text.data() + end;
    const auto [ptr, error] = std::from_chars(first, last, dim);
    if (first == last || error != std::errc() || ptr != last || dim <= 0) {
      return InvalidArgument("bad input shape '" + text + "': expected positive sizes joined by 'x', e.g. 1x3x224x224");
    }
    shape.push_back(dim);
    start = end + 1;
  }
  return shape;
}

StatusOr<std::vector<std::vector<int64_t>>> ParseShapes(const std::vector<std::string>& texts) {
  std::vector<std::vector<int64_t>> shapes;
  for (const std::string& text : texts) {
    NIMBLE_ASSIGN_OR_RETURN(std::vector<int64_t> shape, ParseShape(text));
    shapes.push_back(std::move(shape));
  }
  return shapes;
}

int PrintError(const std::string& tool, const Status& status) {
  std::cerr << tool << ": error: " << status.message() << "\n";
  return kAotExitFailure;
}

}  // namespace nimble::cli
