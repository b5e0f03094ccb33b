// The .pt2 layout (torch/csrc/export/pt2_archive_constants.h, archive version 0): under one top
// folder, archive_format ("pt2"), archive_version ("0"), byteorder, models/<model>.json, and per
// model data/weights/<model>_weights_config.json and data/constants/<model>_constants_config.json.
// Each config maps a name to a payload record: the raw bytes of a whole storage plus the tensor's
// dtype, sizes, strides and storage offset into it (tensors sharing a storage share one record),
// or, for tensor subclasses, a torch.save pickle. PyTorchStreamReader strips the top folder.
#include "export_archive.h"

#include <ATen/ATen.h>
#include <caffe2/serialize/inline_container.h>
#include <torch/csrc/jit/serialization/pickle.h>

#include <cctype>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <vector>

#include "export_schema.h"
#include "torch_errors.h"

namespace nimble::accelerate {
namespace {

using nlohmann::json;
using caffe2::serialize::PyTorchStreamReader;

constexpr const char* kModelsDir = "models/";
constexpr const char* kDefaultModel = "model";  // the name torch.export.save gives its one program
constexpr const char* kArchiveVersion = "0";

std::string ReadRecordText(PyTorchStreamReader& reader, const std::string& record) {
  auto [data, size] = reader.getRecord(record);
  return std::string(static_cast<const char*>(data.get()), size);
}

// Trailing whitespace tolerated: the records are plain text.
std::string Trimmed(std::string text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  return text;
}

std::vector<std::string> ModelNames(PyTorchStreamReader& reader) {
  std::vector<std::string> names;
  const std::string prefix = kModelsDir;
  for (const std::string& record : reader.getAllRecords()) {
    if (record.size() <= prefix.size() + 5 || record.rfind(prefix, 0) != 0 || !record.ends_with(".json")) continue;
    const std::string name = record.substr(prefix.size(), record.size() - prefix.size() - 5);
    if (name.find('/') == std::string::npos) names.push_back(name);
  }
  return names;
}

Status CheckArchiveRecords(PyTorchStreamReader& reader, const std::string& path) {
  if (!reader.hasRecord("archive_format") || Trimmed(ReadRecordText(reader, "archive_format")) != "pt2") {
    return FailedPrecondition(path + ": a zip archive but not a torch.export program (no archive_format record "
                              "saying pt2; save the program with torch.export.save)");
  }
  if (reader.hasRecord("archive_version")) {
    const std::string version = Trimmed(ReadRecordText(reader, "archive_version"));
    if (version != kArchiveVersion) {
      return FailedPrecondition(path + ": pt2 archive version " + version + " is not supported (supported: " +
                                kArchiveVersion + ")");
    }
  }
  if (reader.hasRecord("byteorder")) {
    const std::string order = Trimmed(ReadRecordText(reader, "byteorder"));
    if (order != "little") return Unimplemented(path + ": weights stored in byte order '" + order + "'; only little");
  }
  return OkStatus();
}

StatusOr<std::string> ChooseModel(PyTorchStreamReader& reader, const std::string& path) {
  const std::vector<std::string> names = ModelNames(reader);
  if (names.empty()) {
    return DataLoss(path + ": the pt2 archive holds no serialized program (no models/<name>.json; an "
                    "AOTInductor package or a damaged archive)");
  }
  for (const std::string& name : names) {
    if (name == kDefaultModel) return name;
  }
  if (names.size() == 1) return names.front();
  std::string listed;
  for (const std::string& name : names) listed += (listed.empty() ? "" : ", ") + name;
  return InvalidArgument(path + ": the archive holds several programs (" + listed + ") and none named 'model'");
}

std::optional<int64_t> StaticInt(const json& sym_int) {
  if (!sym_int.is_object() || !sym_int.contains("as_int")) return std::nullopt;
  return sym_int.at("as_int").get<int64_t>();
}

// One tensor of a raw payload: the record holds the bytes of the whole storage.
StatusOr<at::Tensor> TensorFromStorage(const at::DataPtr& data, size_t bytes, const json& meta,
                                       const std::string& where) {
  const int64_t dtype_number = meta.at("dtype").get<int64_t>();
  const std::optional<c10::ScalarType> dtype = ExportScalarType(dtype_number);
  if (!dtype) return DataLoss(where + ": unknown dtype number " + std::to_string(dtype_number));
  if (ExportLayout(meta.value("layout", int64_t{7})) != c10::Layout::Strided) {
    return Unimplemented(where + ": only strided (dense) tensors are supported");
  }
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;
  for (const json& size : meta.at("sizes")) sizes.push_back(StaticInt(size).value_or(-1));
  for (const json& stride : meta.at("strides")) strides.push_back(StaticInt(stride).value_or(-1));
  const int64_t offset = StaticInt(meta.at("storage_offset")).value_or(-1);
  bool invalid = offset < 0 || sizes.size() != strides.size();
  for (size_t i = 0; i < sizes.size() && !invalid; ++i) invalid = sizes[i] < 0 || strides[i] < 0;
  if (invalid) return DataLoss(where + ": sizes, strides and offset must be static non-negative integers");
  const auto options = at::TensorOptions().dtype(*dtype);
  // The storage element furthest from the start that the tensor reads, with overflow checked: the
  // sizes come from the file, and a wrapped product would let the view reach past the payload.
  int64_t last = offset;
  bool overflow = false;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == 0) return at::empty_strided(sizes, strides, options);
    int64_t reach = 0;
    overflow |= __builtin_mul_overflow(sizes[i] - 1, strides[i], &reach);
    overflow |= __builtin_add_overflow(last, reach, &last);
  }
  const auto item_bytes = static_cast<int64_t>(c10::elementSize(*dtype));
  int64_t elements = 0;
  int64_t needed = 0;
  overflow |= __builtin_add_overflow(last, 1, &elements);
  overflow |= __builtin_mul_overflow(elements, item_bytes, &needed);
  if (overflow || static_cast<uint64_t>(needed) > bytes) {
    return DataLoss(where + ": the payload holds " + std::to_string(bytes) + " bytes, fewer than the tensor's " +
                    "sizes, strides and offset need");
  }
  const auto storage_elements = static_cast<int64_t>(bytes / item_bytes);
  const at::Tensor storage = at::from_blob(data.get(), {storage_elements}, options);
  // The clone owns its memory and keeps a dense layout (channels-last weights stay channels-last).
  return storage.as_strided(sizes, strides, offset).clone();
}

StatusOr<at::Tensor> TensorFromPickle(const at::DataPtr& data, size_t bytes, const std::string& where) {
  const char* begin = static_cast<const char*>(data.get());
  const c10::IValue value = torch::jit::pickle_load(std::vector<char>(begin, begin + bytes));
  if (!value.isTensor()) return DataLoss(where + ": the pickled payload is a " + value.tagKind() + ", not a tensor");
  return value.toTensor().detach();
}

// `config_record` maps names to payloads under `dir`; a missing config means no payloads.
StatusOr<NamedTensors> ReadPayloads(const ExportArchive& archive, const std::string& dir,
                                    const std::string& config_record, c10::Device device) {
  PyTorchStreamReader& reader = *archive.reader;
  NamedTensors tensors;
  if (!reader.hasRecord(config_record)) return tensors;
  const std::string context = archive.path + ": " + config_record;
  json config;
  try {
    config = json::parse(ReadRecordText(reader, config_record)).at("config");
  } catch (const json::exception& e) {
    return DataLoss(context + ": not a valid payload config: " + e.what());
  }
  for (const auto& [name, payload] : config.items()) {
    const std::string where = context + ": '" + name + "'";
    try {
      const json& meta = payload.at("tensor_meta");
      if (meta.is_null()) continue;  // a custom object (TorchBind), not a tensor
      const std::string record = dir + payload.at("path_name").get<std::string>();
      if (!reader.hasRecord(record)) return DataLoss(where + ": the payload record " + record + " is missing");
      auto [data, bytes] = reader.getRecord(record);
      StatusOr<at::Tensor> tensor = payload.value("use_pickle", false) ? TensorFromPickle(data, bytes, where)
                                                                       : TensorFromStorage(data, bytes, meta, where);
      if (!tensor.ok()) return tensor.status();
      tensors.emplace(name, tensor->to(device));
    } catch (const json::exception& e) {
      return DataLoss(where + ": malformed entry: " + e.what());
    } catch (const std::exception& e) {
      return DataLoss(where + ": cannot be read: " + TorchMessage(e));
    }
  }
  return tensors;
}

}  // namespace

bool IsExportArchive(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char magic[4] = {};
  if (!in.read(magic, sizeof(magic)) || std::memcmp(magic, "PK\x03\x04", 4) != 0) return false;
  try {
    PyTorchStreamReader reader(path);
    return reader.hasRecord("archive_format") && Trimmed(ReadRecordText(reader, "archive_format")) == "pt2" &&
           !ModelNames(reader).empty();
  } catch (const std::exception&) {
    return false;
  }
}

StatusOr<ExportArchive> OpenExportArchive(const std::string& path) {
  std::error_code error;
  if (!std::filesystem::exists(path, error)) return NotFound(path + ": no such file");
  if (!std::filesystem::is_regular_file(path, error)) return FailedPrecondition(path + ": not a regular file");
  ExportArchive archive;
  archive.path = path;
  std::string text;
  try {
    archive.reader = std::make_shared<PyTorchStreamReader>(path);
    NIMBLE_RETURN_IF_ERROR(CheckArchiveRecords(*archive.reader, path));
    NIMBLE_ASSIGN_OR_RETURN(archive.model_name, ChooseModel(*archive.reader, path));
    text = ReadRecordText(*archive.reader, kModelsDir + archive.model_name + ".json");
  } catch (const std::exception& e) {
    std::string reason = TorchMessage(e);
    // The reader's advice after the reason is the same for every damaged file.
    const size_t advice = reason.find(" This is an internal miniz error");
    if (advice != std::string::npos) reason.resize(advice);
    return DataLoss(path + ": corrupt or truncated pt2 archive: " + reason);
  }
  try {
    archive.program = json::parse(text);
  } catch (const json::exception& e) {
    return DataLoss(path + ": models/" + archive.model_name + ".json is not valid JSON: " + e.what());
  }
  if (!archive.program.is_object()) {
    return DataLoss(path + ": models/" + archive.model_name + ".json is not a JSON object");
  }
  return archive;
}

StatusOr<NamedTensors> ReadExportWeights(const ExportArchive& archive, c10::Device device) {
  return ReadPayloads(archive, "data/weights/", "data/weights/" + archive.model_name + "_weights_config.json",
                      device);
}

StatusOr<NamedTensors> ReadExportConstants(const ExportArchive& archive, c10::Device device) {
  return ReadPayloads(archive, "data/constants/",
                      "data/constants/" + archive.model_name + "_constants_config.json", device);
}

}  // namespace nimble::accelerate
