#include "kineto_chunk.h"

#include <limits>
#include <optional>
#include <string_view>

#include <simdjson.h>

#include "kineto_fields.h"
#include "micros_text.h"

namespace nimble::workflow {
namespace {

namespace od = simdjson::ondemand;
namespace kf = kineto_fields;
using simdjson::error_code;

// A value as nlohmann's SAX parser would hand it to the streaming read: which callback, with what.
enum class Kind : uint8_t { kInteger, kOutOfRange, kFloat, kString, kNull, kBool, kObject, kArray };

struct Token {
  Kind kind = Kind::kNull;
  int64_t integer = 0;
  double real = 0;
  std::string_view text;  // a string's value, or a float's digits as written
};

// A scalar is read whole; an object or array is only named, and left for the caller to walk.
error_code ReadToken(od::value& v, Token& t) {
  od::json_type type;
  if (error_code e = v.type().get(type)) return e;
  switch (type) {
    case od::json_type::object: t.kind = Kind::kObject; return simdjson::SUCCESS;
    case od::json_type::array: t.kind = Kind::kArray; return simdjson::SUCCESS;
    case od::json_type::string: t.kind = Kind::kString; return v.get_string().get(t.text);
    case od::json_type::boolean: {
      bool b = false;
      t.kind = Kind::kBool;
      return v.get_bool().get(b);
    }
    case od::json_type::null: {
      bool is_null = false;
      if (error_code e = v.is_null().get(is_null)) return e;
      t.kind = Kind::kNull;
      return is_null ? simdjson::SUCCESS : simdjson::INCORRECT_TYPE;
    }
    case od::json_type::number: break;
  }
  // nlohmann's lexer: a fraction or an exponent makes a float (its text kept for times); otherwise an
  // integer, negative as int64, positive as uint64. An integer that fits neither becomes a float there;
  // here it is an error, and the caller's fallback (the SAX read) takes the file.
  std::string_view raw = v.raw_json_token();
  while (!raw.empty() && (raw.back() == ' ' || raw.back() == '\n' || raw.back() == '\r' || raw.back() == '\t')) {
    raw.remove_suffix(1);
  }
  bool is_float = false;
  for (const char c : raw) is_float |= c == '.' || c == 'e' || c == 'E';
  if (is_float) {
    t.kind = Kind::kFloat;
    t.text = raw;
    return v.get_double().get(t.real);
  }
  if (!raw.empty() && raw[0] == '-') {
    t.kind = Kind::kInteger;
    return v.get_int64().get(t.integer);
  }
  uint64_t u = 0;
  if (error_code e = v.get_uint64().get(u)) return e;
  if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    t.kind = Kind::kOutOfRange;
  } else {
    t.kind = Kind::kInteger;
    t.integer = static_cast<int64_t>(u);
  }
  return simdjson::SUCCESS;
}

// A float that is a whole number reads as that integer, as the SAX read's number_float does.
void Normalize(Token& t) {
  if (t.kind == Kind::kFloat && kf::Integral(t.real)) {
    t.kind = Kind::kInteger;
    t.integer = static_cast<int64_t>(t.real);
  }
}

// What the SAX read calls a value a field cannot take (its `got`), after Normalize.
const char* Got(const Token& t) {
  switch (t.kind) {
    case Kind::kInteger: return "a number";
    case Kind::kOutOfRange: return "a number out of range";
    case Kind::kFloat: return "a fractional number";
    case Kind::kString: return "a string";
    case Kind::kNull: return "null";
    case Kind::kBool: return "true or false";
    case Kind::kObject: return "an object";
    case Kind::kArray: return "an array";
  }
  return "";
}

class ChunkReader {
 public:
  ChunkReader(const std::string& path, KinetoEventSink& sink, int64_t first_index)
      : path_(path), sink_(sink), events_(first_index) {}

  Status Read(od::document& doc);
  int64_t events() const { return events_; }

 private:
  bool Check(error_code e) {
    if (e == simdjson::SUCCESS) return true;
    if (status_.ok()) status_ = DataLoss(path_ + ": not valid JSON: " + simdjson::error_message(e));
    return false;
  }
  bool Fail(const std::string& what) {
    if (status_.ok()) status_ = DataLoss(path_ + ": " + what);
    return false;
  }
  bool Sink(const Status& s) {
    if (!s.ok() && status_.ok()) status_ = s;
    return s.ok();
  }
  // Walks a value nothing reads, so that its syntax is checked as the SAX read checks it.
  bool Skip(od::value& v);
  // Reads `v` as `t` and walks it if it is a container the field does not take; false on a syntax error.
  bool Scalar(od::value& v, Token& t) {
    if (!Check(ReadToken(v, t))) return false;
    Normalize(t);
    return (t.kind != Kind::kObject && t.kind != Kind::kArray) || Skip(v);
  }
  bool Text(od::value& v, TextField& f);
  bool Int(od::value& v, IntField& f);
  bool Time(od::value& v, IntField& f);
  bool Dims(od::value& v, DimField& d);
  bool Args(od::value& v, KinetoEvent& e);
  bool Event(od::value& v);
  bool Device(od::value& v);
  // Each (unescaped key, value) of the object `v`, in order, until `each` says false.
  template <typename Each>
  bool Fields(od::value& v, Each each);
  // The elements of traceEvents or deviceProperties, each an object.
  template <typename Each>
  bool Objects(od::value& v, const char* what, Each each);

  // simdjson 3.0's On-Demand API does not limit nesting (only its development checks do), and Skip
  // recurses per level: past this depth the chunk is refused, and the SAX read (iterative) takes the file.
  static constexpr int kMaxDepth = 256;
  struct DepthScope {
    explicit DepthScope(int& depth) : depth_(++depth) {}
    ~DepthScope() { --depth_; }
    int& depth_;
  };
  int depth_ = 0;

  const std::string& path_;
  KinetoEventSink& sink_;
  KinetoEvent event_;
  KinetoDevice device_;
  int64_t events_ = 0;
  int64_t devices_ = 0;
  Status status_;
};

bool ChunkReader::Skip(od::value& v) {
  Token t;
  if (!Check(ReadToken(v, t))) return false;
  if ((t.kind == Kind::kObject || t.kind == Kind::kArray) && depth_ >= kMaxDepth) {
    return Fail("values nested deeper than " + std::to_string(kMaxDepth) + " levels");
  }
  DepthScope scope(depth_);
  if (t.kind == Kind::kObject) {
    return Fields(v, [this](std::string_view, od::value& value) { return Skip(value); });
  } else if (t.kind == Kind::kArray) {
    od::array array;
    if (!Check(v.get_array().get(array))) return false;
    for (auto element : array) {
      od::value value;
      if (!Check(element.get(value)) || !Skip(value)) return false;
    }
  }
  return true;
}

// A field set to a value, or marked as holding what the SAX read names `got`.
template <typename Field, typename Value>
void Set(Field& f, const Value& value) {
  f.value = value;
  f.state = FieldState::kSet;
}
template <typename Field>
void SetWrong(Field& f, const char* got) {
  f.state = FieldState::kWrongType;
  f.got = got;
}

bool ChunkReader::Text(od::value& v, TextField& f) {
  Token t;
  if (!Scalar(v, t)) return false;
  if (t.kind == Kind::kString) Set(f, t.text);
  else SetWrong(f, Got(t));
  return true;
}

bool ChunkReader::Int(od::value& v, IntField& f) {
  Token t;
  if (!Scalar(v, t)) return false;
  int64_t parsed = 0;
  if (t.kind == Kind::kInteger) Set(f, t.integer);
  else if (t.kind == Kind::kString && kf::ParseIntegerText(t.text, parsed)) Set(f, parsed);
  else SetWrong(f, Got(t));
  return true;
}

bool ChunkReader::Time(od::value& v, IntField& f) {
  Token t;
  if (!Check(ReadToken(v, t))) return false;
  if ((t.kind == Kind::kObject || t.kind == Kind::kArray) && !Skip(v)) return false;
  // Whole or not, a float's time is read from its digits (a double would round the nanoseconds).
  std::optional<int64_t> ns;
  if (t.kind == Kind::kInteger) ns = MicrosToNs(t.integer);
  if (t.kind == Kind::kFloat) ns = MicrosTextToNs(t.text);
  if (ns) Set(f, *ns);
  else SetWrong(f, t.kind == Kind::kInteger || t.kind == Kind::kFloat ? "a time out of range" : Got(t));
  return true;
}

bool ChunkReader::Dims(od::value& v, DimField& d) {
  Token t;
  if (!Check(ReadToken(v, t))) return false;
  if (t.kind != Kind::kArray) {
    Normalize(t);
    if (t.kind == Kind::kObject && !Skip(v)) return false;
    SetWrong(d, Got(t));
    return true;
  }
  od::array array;
  if (!Check(v.get_array().get(array))) return false;
  for (auto element : array) {
    od::value value;
    Token e;
    if (!Check(element.get(value)) || !Scalar(value, e)) return false;
    const int32_t c = static_cast<int32_t>(e.integer);
    if (e.kind == Kind::kInteger && d.count < 3 && e.integer >= 0 && e.integer == c) {
      (d.count == 0 ? d.value.x : d.count == 1 ? d.value.y : d.value.z) = c;
    } else {
      SetWrong(d, "an array with a bad element");
    }
    ++d.count;
  }
  if (d.state != FieldState::kWrongType) {
    if (d.count >= 1 && d.count <= 3) d.state = FieldState::kSet;
    else SetWrong(d, "an array without 1 to 3 elements");
  }
  return true;
}

bool ChunkReader::Args(od::value& v, KinetoEvent& e) {
  Token t;
  if (!Check(ReadToken(v, t))) return false;
  if (t.kind != Kind::kObject) return t.kind != Kind::kArray || Skip(v);  // args that are not an object: none
  return Fields(v, [&](std::string_view key, od::value& value) {
    const int at = kf::Find(kf::kArgKeys, key);
    if (at == kf::kArgGrid || at == kf::kArgBlock) return Dims(value, at == kf::kArgGrid ? e.grid : e.block);
    if (at == kf::kArgSyncKind) return Text(value, e.sync_kind);
    return at >= 0 ? Int(value, *kf::ArgInt(e, at)) : Skip(value);
  });
}

bool ChunkReader::Event(od::value& v) {
  KinetoEvent& e = event_;
  e.Clear();
  e.index = events_;
  e.offset = -1;  // as the SAX read of a chunk in memory
  const bool ok = Fields(v, [&](std::string_view key, od::value& value) {
    switch (kf::Find(kf::kEventKeys, key)) {
      case 0: return Text(value, e.ph);
      case 1: return Text(value, e.cat);
      case 2: return Text(value, e.name);
      case 3: return Int(value, e.pid);
      case 4: return Int(value, e.tid);
      case 5: return Time(value, e.ts_ns);
      case 6: return Time(value, e.dur_ns);
      case 7: return Int(value, e.id);
      case 8: return Text(value, e.bp);
      case 9: return Args(value, e);
      default: return Skip(value);
    }
  });
  if (!ok) return false;
  ++events_;
  return Sink(sink_.OnEvent(e));
}

bool ChunkReader::Device(od::value& v) {
  KinetoDevice& d = device_;
  d = KinetoDevice{};
  d.index = devices_;
  d.offset = -1;
  const bool ok = Fields(v, [&](std::string_view key, od::value& value) {
    const int at = kf::Find(kf::kDeviceKeys, key);
    return at == kf::kDeviceName ? Text(value, d.name) : at >= 0 ? Int(value, *kf::DeviceInt(d, at)) : Skip(value);
  });
  if (!ok) return false;
  ++devices_;
  return Sink(sink_.OnDevice(d));
}

template <typename Each>
bool ChunkReader::Fields(od::value& v, Each each) {
  od::object object;
  if (!Check(v.get_object().get(object))) return false;
  for (auto field : object) {
    std::string_view key;
    od::value value;
    if (!Check(field.unescaped_key().get(key)) || !Check(field.value().get(value)) || !each(key, value)) return false;
  }
  return true;
}

template <typename Each>
bool ChunkReader::Objects(od::value& v, const char* what, Each each) {
  od::array array;
  if (!Check(v.get_array().get(array))) return false;
  for (auto element : array) {
    od::value value;
    Token t;
    if (!Check(element.get(value)) || !Check(ReadToken(value, t))) return false;
    if (t.kind != Kind::kObject) return Fail(std::string(what) + " holds " + Got(t) + ", not an object");
    if (!each(value)) return false;
  }
  return true;
}

Status ChunkReader::Read(od::document& doc) {
  od::value root;
  Token t;
  if (!Check(doc.get_value().get(root)) || !Check(ReadToken(root, t))) return status_;
  auto event = [this](od::value& v) { return Event(v); };
  if (t.kind == Kind::kArray) {
    Objects(root, "traceEvents", event);
  } else if (t.kind == Kind::kObject) {
    Fields(root, [&](std::string_view key, od::value& value) {
      Token v;
      if (key == "traceEvents") {
        return Check(ReadToken(value, v)) && (v.kind == Kind::kArray || Fail("traceEvents is not an array")) &&
               Objects(value, "traceEvents", event);
      }
      if (key == "deviceProperties") {
        return Check(ReadToken(value, v)) && (v.kind == Kind::kArray || Fail("deviceProperties is not an array")) &&
               Objects(value, "deviceProperties", [this](od::value& d) { return Device(d); });
      }
      if (key == "baseTimeNanoseconds") {
        if (!Check(ReadToken(value, v))) return false;
        Normalize(v);
        if (v.kind != Kind::kInteger) return Fail("baseTimeNanoseconds is not an integer");
        sink_.OnBaseTime(v.integer);
        return true;
      }
      return Skip(value);
    });
  } else {
    Fail("the text holds a scalar, not a trace");
  }
  // Anything after the value is not JSON (the SAX read refuses it too).
  if (status_.ok() && doc.current_location().error() == simdjson::SUCCESS) Fail("text after the trace");
  return status_;
}

}  // namespace

StatusOr<int64_t> ReadKinetoEventChunk(std::string& text, const std::string& path, int64_t first_index,
                                       KinetoEventSink& sink) {
  const size_t padded = text.size() + simdjson::SIMDJSON_PADDING;
  if (text.capacity() < padded) text.reserve(padded);
  od::parser parser;
  od::document doc;
  if (error_code e = parser.iterate(simdjson::padded_string_view(text.data(), text.size(), text.capacity())).get(doc)) {
    return DataLoss(path + ": not valid JSON: " + simdjson::error_message(e));
  }
  ChunkReader reader(path, sink, first_index);
  NIMBLE_RETURN_IF_ERROR(reader.Read(doc));
  return reader.events() - first_index;
}

}  // namespace nimble::workflow
