// The torch.export front end: a program saved with torch.export.save (.pt2) read in C++ and rebuilt
// as a torch::jit::Module whose forward graph looks like a frozen TorchScript graph: user inputs as
// Tensor arguments, parameters, buffers and tensor constants as graph constants, and one call of a
// registered ATen operator per program node, so the rest of the pipeline treats it as a loaded .pt.
// Every libtorch and JSON exception is caught and returned as a Status that names the file (and the
// node or operator at fault). Each call builds its own module; different files may load on
// different threads.
#pragma once

#include <c10/core/Device.h>
#include <c10/core/ScalarType.h>
#include <torch/csrc/jit/api/module.h>

#include <cstdint>
#include <string>
#include <vector>

#include "nimble/core/status.h"

namespace nimble::accelerate {

// One user input of the program, from its input specs and the graph's tensor metadata.
struct ExportInputInfo {
  std::string name;
  std::vector<int64_t> shape;  // -1 where the dimension is symbolic (exported with dynamic shapes)
  c10::ScalarType dtype = c10::ScalarType::Float;
};

struct ExportProgramInfo {
  int64_t schema_major = 0;  // schema_version of the serialized program
  int64_t schema_minor = 0;
  std::string torch_version;  // of the exporter, as it wrote it ("2.11.0+cu130"); may be empty
  std::vector<ExportInputInfo> inputs;  // in forward's argument order
  size_t num_outputs = 0;               // user outputs; forward returns a tuple when more than one
};

// True when `path` is a zip archive holding a serialized exported program (archive_format "pt2"
// and a models/*.json), whatever its extension. False for TorchScript files and anything unreadable.
bool LooksLikeExportArchive(const std::string& path);

// The program's signature alone (schema version, user inputs, output count), without its weights.
// Same errors as LoadExportProgram for the archive and its JSON.
StatusOr<ExportProgramInfo> ReadExportSignature(const std::string& path);

// Reads the program and its weights onto `device` and builds a module of a fresh class in its own
// CompilationUnit with forward(self, <tensor user inputs>) returning the single user output or a
// tuple of them in order. Non-tensor inputs the exporter specialized (constant_input specs) become
// constants. Device arguments inside the program (torch.arange(..., device="cpu")) become `device`.
// `info` (may be null) is filled as soon as the program's signature is read.
// Errors: NotFound (no such file, an operator missing from the registry), DataLoss (corrupt zip,
// missing or malformed JSON or weights), FailedPrecondition (an unsupported schema or archive
// version), Unimplemented (higher-order operators, buffer or input mutations, dynamic shapes,
// TorchBind objects), InvalidArgument (a zip that is not a pt2 archive, arguments that fit no schema),
// Unavailable (a CUDA device where there is none).
StatusOr<torch::jit::Module> LoadExportProgram(const std::string& path, c10::Device device,
                                               ExportProgramInfo* info);

}  // namespace nimble::accelerate
