// Model inputs as users type them: "1x3x224x224", one per forward argument. The one parser behind
// `nimble-prof model.pt --input`, `nimble-accelerate --input` and `nimble-run --input`. Pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "nimble/core/status.h"

namespace nimble::workflow {

using Shape = std::vector<int64_t>;

// "1x3x224x224" -> {1, 3, 224, 224}; every dimension a positive integer. InvalidArgument naming the
// text otherwise.
StatusOr<Shape> ParseShape(const std::string& text);
StatusOr<std::vector<Shape>> ParseShapes(const std::vector<std::string>& texts);

// {1, 3, 224, 224} -> "1x3x224x224"; shapes joined by ",".
std::string ShapeText(const Shape& shape);
std::string ShapesText(const std::vector<Shape>& shapes);

}  // namespace nimble::workflow
