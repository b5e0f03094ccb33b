#include "nimble/workflow/input_spec.h"

#include <charconv>

namespace nimble::workflow {

StatusOr<Shape> ParseShape(const std::string& text) {
  Shape shape;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('x', start);
    if (end == std::string::npos) end = text.size();
    int64_t dim = 0;
    const char* first = text.data() + start;
    const char* last = text.data() + end;
    const auto [ptr, error] = std::from_chars(first, last, dim);
    if (first == last || error != std::errc() || ptr != last || dim <= 0) {
      return InvalidArgument("--input " + text + ": expected positive dimensions joined by 'x', e.g. 1x3x224x224");
    }
    shape.push_back(dim);
    start = end + 1;
  }
  return shape;
}

StatusOr<std::vector<Shape>> ParseShapes(const std::vector<std::string>& texts) {
  std::vector<Shape> shapes;
  for (const std::string& text : texts) {
    NIMBLE_ASSIGN_OR_RETURN(Shape shape, ParseShape(text));
    shapes.push_back(std::move(shape));
  }
  return shapes;
}

std::string ShapeText(const Shape& shape) {
  std::string text;
  for (int64_t dim : shape) text += (text.empty() ? "" : "x") + std::to_string(dim);
  return text;
}

std::string ShapesText(const std::vector<Shape>& shapes) {
  std::string text;
  for (const Shape& shape : shapes) text += (text.empty() ? "" : ",") + ShapeText(shape);
  return text;
}

}  // namespace nimble::workflow
