// meta.json of a model.nimble, with nlohmann-json. Decoding is strict about the fields it needs and
// tolerant of extra ones, so later writers may add figures without breaking older readers.
#include "nimble/accelerate/artifact_meta.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <optional>

namespace nimble::accelerate {
namespace {

using nlohmann::json;

json EncodeSchedule(const StreamAssignment& schedule) {
  json streams = json::array();
  for (StreamId stream : schedule.op_stream) streams.push_back(stream.value());
  json syncs = json::array();
  for (const OpEdge& sync : schedule.syncs) syncs.push_back({sync.src.value(), sync.dst.value(), static_cast<int32_t>(sync.kind)});
  return {{"num_streams", schedule.num_streams}, {"op_stream", streams}, {"syncs", syncs}};
}

StreamAssignment DecodeSchedule(const json& j) {
  StreamAssignment schedule;
  schedule.num_streams = j.at("num_streams").get<int32_t>();
  for (const json& stream : j.at("op_stream")) schedule.op_stream.emplace_back(stream.get<int64_t>());
  for (const json& sync : j.at("syncs")) {
    const auto kind = sync.size() > 2 ? static_cast<EdgeKind>(sync.at(2).get<int32_t>()) : EdgeKind::kData;
    schedule.syncs.push_back(OpEdge{OpId(sync.at(0).get<int32_t>()), OpId(sync.at(1).get<int32_t>()), kind});
  }
  return schedule;
}

// Only the two captured schedules make a model.nimble.
std::optional<RunMode> ParseArtifactMode(const std::string& name) {
  const std::optional<RunMode> mode = ParseRunMode(name);
  if (mode == RunMode::kAotSingle || mode == RunMode::kAotMulti) return mode;
  return std::nullopt;
}

json EncodeDTypes(const std::vector<TensorSpec>& inputs) {
  json dtypes = json::array();
  for (const TensorSpec& spec : inputs) dtypes.push_back(std::string(DTypeName(spec.dtype)));
  return dtypes;
}

json EncodeRanges(const std::vector<TensorSpec>& inputs) {
  json ranges = json::array();
  for (const TensorSpec& spec : inputs) ranges.push_back({spec.low, spec.high});
  return ranges;
}

// Files written before inputs had dtypes hold "input_shapes" alone (and "input_dtype": "float32").
StatusOr<std::vector<TensorSpec>> DecodeInputs(const json& j, const std::string& file) {
  std::vector<TensorSpec> inputs =
      Float32Specs(j.at("input_shapes").get<std::vector<std::vector<int64_t>>>());
  if (j.contains("input_dtypes")) {
    const auto names = j.at("input_dtypes").get<std::vector<std::string>>();
    if (names.size() != inputs.size()) {
      return DataLoss(file + ": " + kArtifactMetaFile + " has " + std::to_string(names.size()) + " input dtypes for " +
                      std::to_string(inputs.size()) + " input shapes");
    }
    for (size_t i = 0; i < names.size(); ++i) {
      const std::optional<DType> dtype = ParseDType(names[i]);
      if (!dtype) return DataLoss(file + ": " + kArtifactMetaFile + " names an unknown input dtype '" + names[i] + "'");
      inputs[i].dtype = *dtype;
    }
  }
  if (j.contains("input_ranges")) {
    const auto ranges = j.at("input_ranges").get<std::vector<std::pair<int64_t, int64_t>>>();
    for (size_t i = 0; i < ranges.size() && i < inputs.size(); ++i) {
      inputs[i].low = ranges[i].first;
      inputs[i].high = ranges[i].second;
    }
  }
  return inputs;
}

json EncodeBucket(const ArtifactBucket& bucket) {
  json j = {{"method", bucket.method},
            {"mode", RunModeName(bucket.mode)},
            {"input_shapes", SpecShapes(bucket.inputs)},
            {"input_dtypes", EncodeDTypes(bucket.inputs)},
            {"input_ranges", EncodeRanges(bucket.inputs)},
            {"schedule", EncodeSchedule(bucket.schedule)},
            {"figures", bucket.figures}};
  if (bucket.smem_carveout >= 0) j["smem_carveout"] = bucket.smem_carveout;
  return j;
}

// "smem_carveout": a whole percentage, -1 when absent.
StatusOr<int32_t> DecodeCarveout(const json& j, const std::string& file) {
  if (!j.contains("smem_carveout")) return -1;
  const json& value = j.at("smem_carveout");
  if (!value.is_number_integer() || value.get<int64_t>() < -1 || value.get<int64_t>() > 100) {
    return DataLoss(file + ": " + kArtifactMetaFile + " asks a shared-memory carveout of " + value.dump() +
                    "; a whole percentage from 0 to 100 is expected");
  }
  return value.get<int32_t>();
}

StatusOr<RunMode> DecodeMode(const json& j, const std::string& file) {
  const std::string mode = j.at("mode").get<std::string>();
  const std::optional<RunMode> parsed = ParseArtifactMode(mode);
  if (!parsed) {
    return DataLoss(file + ": " + kArtifactMetaFile + " names an unknown mode '" + mode +
                    "' (expected aot-single or aot-multi)");
  }
  return *parsed;
}

StatusOr<ArtifactBucket> DecodeBucket(const json& j, const std::string& file) {
  ArtifactBucket bucket;
  bucket.method = j.at("method").get<std::string>();
  NIMBLE_ASSIGN_OR_RETURN(bucket.mode, DecodeMode(j, file));
  NIMBLE_ASSIGN_OR_RETURN(bucket.inputs, DecodeInputs(j, file));
  bucket.schedule = DecodeSchedule(j.at("schedule"));
  bucket.figures = j.value("figures", std::map<std::string, double>{});
  NIMBLE_ASSIGN_OR_RETURN(bucket.smem_carveout, DecodeCarveout(j, file));
  return bucket;
}

bool KnownFormat(int32_t version) { return version >= kArtifactFormatVersionSingle && version <= kArtifactFormatVersion; }

std::string DeviceText(const std::string& name, const std::string& capability) {
  return capability.empty() ? name : name + " (" + capability + ")";
}

}  // namespace

std::vector<ArtifactBucket> ArtifactBuckets(const ArtifactMeta& meta) {
  if (!meta.buckets.empty()) return meta.buckets;
  return {ArtifactBucket{"forward", meta.inputs, meta.mode, meta.schedule, meta.figures, meta.smem_carveout}};
}

std::string EncodeArtifactMeta(const ArtifactMeta& meta) {
  const int32_t version =
      std::max({meta.format_version, meta.buckets.empty() ? kArtifactFormatVersionSingle : kArtifactFormatVersionBuckets,
                meta.branches ? kArtifactFormatVersionBranches : kArtifactFormatVersionSingle});
  json j = {
      {"format_version", version}, {"nimble_version", meta.nimble_version},
      {"torch_version", meta.torch_version},   {"device_name", meta.device_name},
      {"compute_capability", meta.compute_capability}, {"source_model", meta.source_model},
      {"mode", RunModeName(meta.mode)},        {"input_shapes", SpecShapes(meta.inputs)},
      {"input_dtypes", EncodeDTypes(meta.inputs)}, {"input_ranges", EncodeRanges(meta.inputs)},
      {"float32_precision", meta.float32_precision},
      {"schedule", EncodeSchedule(meta.schedule)}, {"figures", meta.figures},
  };
  if (meta.branches) j["branches"] = true;
  if (meta.smem_carveout >= 0) j["smem_carveout"] = meta.smem_carveout;
  if (!meta.buckets.empty()) {
    json buckets = json::array();
    for (const ArtifactBucket& bucket : meta.buckets) buckets.push_back(EncodeBucket(bucket));
    j["buckets"] = std::move(buckets);
  }
  return j.dump(2);
}

StatusOr<ArtifactMeta> DecodeArtifactMeta(const std::string& text, const std::string& file) {
  try {
    const json j = json::parse(text);
    ArtifactMeta meta;
    meta.format_version = j.at("format_version").get<int32_t>();
    if (!KnownFormat(meta.format_version)) return meta;  // the compatibility check reports it
    meta.nimble_version = j.at("nimble_version").get<std::string>();
    meta.torch_version = j.at("torch_version").get<std::string>();
    meta.device_name = j.at("device_name").get<std::string>();
    meta.compute_capability = j.at("compute_capability").get<std::string>();
    meta.source_model = j.value("source_model", "");
    NIMBLE_ASSIGN_OR_RETURN(meta.mode, DecodeMode(j, file));
    NIMBLE_ASSIGN_OR_RETURN(meta.inputs, DecodeInputs(j, file));
    meta.float32_precision = j.value("float32_precision", kFloat32PrecisionIeee);
    meta.schedule = DecodeSchedule(j.at("schedule"));
    meta.figures = j.value("figures", std::map<std::string, double>{});
    meta.branches = meta.format_version >= kArtifactFormatVersionBranches && j.value("branches", false);
    NIMBLE_ASSIGN_OR_RETURN(meta.smem_carveout, DecodeCarveout(j, file));
    if (meta.format_version >= 2 && j.contains("buckets")) {
      for (const json& bucket : j.at("buckets")) {
        NIMBLE_ASSIGN_OR_RETURN(ArtifactBucket decoded, DecodeBucket(bucket, file));
        meta.buckets.push_back(std::move(decoded));
      }
      if (meta.buckets.empty() || meta.buckets.front().method != "forward") {
        return DataLoss(file + ": " + kArtifactMetaFile + ": its first bucket must be the method \"forward\"");
      }
    }
    return meta;
  } catch (const std::exception& e) {
    return DataLoss(file + ": " + kArtifactMetaFile + " is not valid: " + e.what());
  }
}

Status CheckArtifactCompatible(const ArtifactMeta& meta, const ArtifactHost& host, const std::string& file) {
  if (!KnownFormat(meta.format_version)) {
    return FailedPrecondition(file + " has format version " + std::to_string(meta.format_version) +
                              ", this nimble (" + host.nimble_version + ") reads versions " +
                              std::to_string(kArtifactFormatVersionSingle) + " to " +
                              std::to_string(kArtifactFormatVersion) + ": run nimble-accelerate again");
  }
  if (meta.torch_version != host.torch_version) {
    return FailedPrecondition(file + " was built with libtorch " + meta.torch_version + ", this is libtorch " +
                              host.torch_version + ": run nimble-accelerate again");
  }
  if (meta.device_name != host.device_name || meta.compute_capability != host.compute_capability) {
    return FailedPrecondition(file + " was built for " + DeviceText(meta.device_name, meta.compute_capability) +
                              ", this is " + DeviceText(host.device_name, host.compute_capability) +
                              ": run nimble-accelerate on this device");
  }
  return OkStatus();
}

}  // namespace nimble::accelerate
