// Serialized enum numbers of schema 8.x (ScalarType, Layout, MemoryFormat in schema.py) to c10.
#include "export_schema.h"

namespace nimble::accelerate {

std::optional<c10::ScalarType> ExportScalarType(int64_t serialized) {
  switch (serialized) {
    case 1: return c10::ScalarType::Byte;
    case 2: return c10::ScalarType::Char;
    case 3: return c10::ScalarType::Short;
    case 4: return c10::ScalarType::Int;
    case 5: return c10::ScalarType::Long;
    case 6: return c10::ScalarType::Half;
    case 7: return c10::ScalarType::Float;
    case 8: return c10::ScalarType::Double;
    case 9: return c10::ScalarType::ComplexHalf;
    case 10: return c10::ScalarType::ComplexFloat;
    case 11: return c10::ScalarType::ComplexDouble;
    case 12: return c10::ScalarType::Bool;
    case 13: return c10::ScalarType::BFloat16;
    case 28: return c10::ScalarType::UInt16;
    case 29: return c10::ScalarType::Float8_e4m3fn;
    case 30: return c10::ScalarType::Float8_e5m2;
    case 31: return c10::ScalarType::Float8_e4m3fnuz;
    case 32: return c10::ScalarType::Float8_e5m2fnuz;
    default: return std::nullopt;
  }
}

std::optional<c10::Layout> ExportLayout(int64_t serialized) {
  switch (serialized) {
    case 1: return c10::Layout::Sparse;
    case 2: return c10::Layout::SparseCsr;
    case 3: return c10::Layout::SparseCsc;
    case 4: return c10::Layout::SparseBsr;
    case 5: return c10::Layout::SparseBsc;
    case 6: return c10::Layout::Mkldnn;
    case 7: return c10::Layout::Strided;
    default: return std::nullopt;
  }
}

std::optional<c10::MemoryFormat> ExportMemoryFormat(int64_t serialized) {
  switch (serialized) {
    case 1: return c10::MemoryFormat::Contiguous;
    case 2: return c10::MemoryFormat::ChannelsLast;
    case 3: return c10::MemoryFormat::ChannelsLast3d;
    case 4: return c10::MemoryFormat::Preserve;
    default: return std::nullopt;
  }
}

}  // namespace nimble::accelerate
