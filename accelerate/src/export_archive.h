// Reading a torch.export.save archive (.pt2): the zip, its format records, the program JSON of one
// model and the tensors of its weights and constants. Knows the archive layout, not the program's
// meaning (export_program.cpp interprets the JSON). Every libtorch and JSON exception is caught here
// and returned as a Status that names the file and the record. An archive is used by one thread.
#pragma once

#include <ATen/Tensor.h>
#include <c10/core/Device.h>
#include <nlohmann/json.hpp>

#include <map>
#include <memory>
#include <string>

#include "nimble/core/status.h"

namespace caffe2::serialize {
class PyTorchStreamReader;
}

namespace nimble::accelerate {

// Tensors by fully qualified name ("stem.0.weight", "lifted_tensor_0").
using NamedTensors = std::map<std::string, at::Tensor>;

struct ExportArchive {
  std::string path;
  std::string model_name;   // the program is models/<model_name>.json ("model" from torch.export.save)
  nlohmann::json program;   // the serialized ExportedProgram
  std::shared_ptr<caffe2::serialize::PyTorchStreamReader> reader;
};

// True when `path` is a zip whose archive_format record is "pt2" and that holds a models/*.json.
// Never throws; any failure to read means false.
bool IsExportArchive(const std::string& path);

// Opens the zip (NotFound, DataLoss when corrupt), checks the archive records (archive_format,
// archive_version, byteorder) and parses the program JSON (DataLoss when missing or malformed).
StatusOr<ExportArchive> OpenExportArchive(const std::string& path);

// Parameters and persistent buffers (data/weights/), on `device`, not requiring grad.
StatusOr<NamedTensors> ReadExportWeights(const ExportArchive& archive, c10::Device device);

// Lifted tensor constants and non-persistent buffers (data/constants/); custom objects are skipped
// (a program that uses one is refused where its input spec is read).
StatusOr<NamedTensors> ReadExportConstants(const ExportArchive& archive, c10::Device device);

}  // namespace nimble::accelerate
