#include "export_chrome_json.h"

#include <array>
#include <cstdio>

namespace nimble::workflow {
namespace {

// Bytes buffered before they go to the file: large enough that the file sees few writes.
constexpr size_t kFlushBytes = size_t{1} << 20;

// Length of the well-formed UTF-8 sequence at the start of `s`, or 0 when it is not one
// (overlong forms, surrogates and code points past U+10FFFF are not).
size_t Utf8SequenceLength(std::string_view s) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(s[i]); };
  const unsigned char b0 = byte(0);
  size_t n = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    n = 2;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    n = 3;
    if (b0 == 0xE0) lo = 0xA0;
    if (b0 == 0xED) hi = 0x9F;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    n = 4;
    if (b0 == 0xF0) lo = 0x90;
    if (b0 == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (s.size() < n || byte(1) < lo || byte(1) > hi) return 0;
  for (size_t i = 2; i < n; ++i) {
    if (byte(i) < 0x80 || byte(i) > 0xBF) return 0;
  }
  return n;
}

}  // namespace

void AppendJsonString(std::string& out, std::string_view s) {
  out.push_back('"');
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      const size_t n = Utf8SequenceLength(s.substr(i));
      if (n == 0) {
        out.append("\xEF\xBF\xBD");  // U+FFFD for a byte that starts no valid sequence
        ++i;
      } else {
        out.append(s.substr(i, n));
        i += n;
      }
      continue;
    }
    switch (c) {
      case '"': out.append("\\\""); break;
      case '\\': out.append("\\\\"); break;
      case '\n': out.append("\\n"); break;
      case '\r': out.append("\\r"); break;
      case '\t': out.append("\\t"); break;
      case '\b': out.append("\\b"); break;
      case '\f': out.append("\\f"); break;
      default:
        if (c < 0x20) {
          std::array<char, 8> escaped;
          std::snprintf(escaped.data(), escaped.size(), "\\u%04x", static_cast<unsigned>(c));
          out.append(escaped.data());
        } else {
          out.push_back(static_cast<char>(c));
        }
    }
    ++i;
  }
  out.push_back('"');
}

void AppendMicros(std::string& out, int64_t ns) {
  // Unsigned magnitude: -INT64_MIN does not fit an int64_t.
  const bool negative = ns < 0;
  const uint64_t magnitude = negative ? 0 - static_cast<uint64_t>(ns) : static_cast<uint64_t>(ns);
  std::array<char, 32> text;
  std::snprintf(text.data(), text.size(), "%s%llu.%03llu", negative ? "-" : "",
                static_cast<unsigned long long>(magnitude / 1000), static_cast<unsigned long long>(magnitude % 1000));
  out.append(text.data());
}

Status ChromeJsonWriter::Begin(const nlohmann::json& header) {
  buffer_ = header.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (buffer_.size() < 2 || buffer_.front() != '{') return Internal("the trace header is not a JSON object");
  buffer_.pop_back();  // reopen the object
  if (buffer_.size() > 1) buffer_.push_back(',');
  buffer_.append("\"traceEvents\":[");
  return FlushIfLarge();
}

void ChromeJsonWriter::BeginEvent(char phase) {
  buffer_.append(events_ == 0 ? "\n{" : ",\n{");
  first_field_ = true;
  Key("ph");
  buffer_.push_back('"');
  buffer_.push_back(phase);
  buffer_.push_back('"');
}

void ChromeJsonWriter::Key(std::string_view key) {
  if (!first_field_) buffer_.push_back(',');
  first_field_ = false;
  AppendJsonString(buffer_, key);
  buffer_.push_back(':');
}

void ChromeJsonWriter::Str(std::string_view key, std::string_view value) {
  Key(key);
  AppendJsonString(buffer_, value);
}

void ChromeJsonWriter::Int(std::string_view key, int64_t value) {
  Key(key);
  buffer_.append(std::to_string(value));
}

void ChromeJsonWriter::Bool(std::string_view key, bool value) {
  Key(key);
  buffer_.append(value ? "true" : "false");
}

void ChromeJsonWriter::Dims(std::string_view key, const Dim3& dims) {
  Key(key);
  buffer_.append("[" + std::to_string(dims.x) + "," + std::to_string(dims.y) + "," + std::to_string(dims.z) + "]");
}

void ChromeJsonWriter::Timestamp(int64_t ns) {
  Key("ts");
  AppendMicros(buffer_, ns - base_time_ns_);
}

void ChromeJsonWriter::Duration(int64_t dur_ns) {
  Key("dur");
  AppendMicros(buffer_, dur_ns);
}

void ChromeJsonWriter::BeginArgs() {
  Key("args");
  buffer_.push_back('{');
  first_field_ = true;
}

void ChromeJsonWriter::EndArgs() {
  buffer_.push_back('}');
  first_field_ = false;
}

Status ChromeJsonWriter::EndEvent() {
  buffer_.push_back('}');
  ++events_;
  return FlushIfLarge();
}

Status ChromeJsonWriter::FlushIfLarge() {
  if (buffer_.size() < kFlushBytes) return OkStatus();
  NIMBLE_RETURN_IF_ERROR(out_.Write(buffer_));
  buffer_.clear();
  return OkStatus();
}

Status ChromeJsonWriter::Finish() {
  buffer_.append("\n]}\n");
  NIMBLE_RETURN_IF_ERROR(out_.Write(buffer_));
  buffer_.clear();
  return OkStatus();
}

}  // namespace nimble::workflow
