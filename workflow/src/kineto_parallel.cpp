#include "kineto_parallel.h"

#include <cstddef>
#include <cstdint>
#include <deque>
#include <future>
#include <memory>
#include <system_error>
#include <utility>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "kineto_chunk.h"
#include "trace_file_buf.h"

namespace nimble::workflow {
namespace {

// Measured on a 600 MiB trace: large enough that starting a worker per chunk costs nothing, small
// enough that a few chunks in flight stay a few tens of MiB.
constexpr size_t kChunkBytes = size_t{4} << 20;
// Room past a chunk's usual end for its last event and the parser's padding, so that it is not copied.
constexpr size_t kChunkSlack = size_t{64} << 10;

// Reads the text in blocks and copies JSON values by their brackets and strings only: what it accepts
// may still be invalid JSON, which the parser that reads the copy then finds.
class Splitter {
 public:
  explicit Splitter(TraceFileBuf& buf) : buf_(buf), block_(size_t{1} << 20) {}

  int Peek() {
    if (pos_ == len_ && !Fill()) return -1;
    return static_cast<unsigned char>(block_[pos_]);
  }
  int Next() {
    const int c = Peek();
    if (c >= 0) ++pos_;
    return c;
  }
  void SkipSpace() {
    for (int c = Peek(); c == ' ' || c == '\n' || c == '\r' || c == '\t'; c = Peek()) ++pos_;
  }
  bool SkipByteOrderMark() {
    if (Peek() != 0xEF) return true;
    return Next() == 0xEF && Next() == 0xBB && Next() == 0xBF;
  }
  // One value (object, array, string or scalar) appended to `out`; false at the end of the text.
  bool CopyValue(std::string& out) {
    const int c = Peek();
    if (c == '{' || c == '[' || c == '"') return CopyNested(out);
    for (int d = Peek(); d >= 0 && d != ',' && d != '}' && d != ']' && d != ' ' && d != '\n' && d != '\r' && d != '\t';
         d = Peek()) {
      out.push_back(static_cast<char>(Next()));
    }
    return true;
  }

 private:
  bool Fill() {
    pos_ = 0;
    len_ = static_cast<size_t>(buf_.sgetn(block_.data(), static_cast<std::streamsize>(block_.size())));
    return len_ > 0;
  }
  // One byte of a value being copied; true where it closes the value.
  bool Step(char ch) {
    if (in_string_) {
      if (escaped_) {
        escaped_ = false;
      } else if (ch == '\\') {
        escaped_ = true;
      } else if (ch == '"') {
        in_string_ = false;
        return depth_ == 0;
      }
    } else if (ch == '"') {
      in_string_ = true;
    } else if (ch == '{' || ch == '[') {
      ++depth_;
    } else if (ch == '}' || ch == ']') {
      return --depth_ == 0;
    }
    return false;
  }
  // From an opening bracket or quote to its match.
  bool CopyNested(std::string& out) {
    depth_ = 0;
    in_string_ = escaped_ = false;
    while (pos_ < len_ || Fill()) {
      const char* begin = block_.data() + pos_;
      const char* end = block_.data() + len_;
      for (const char* p = begin; p < end;) {
        const char* closed = nullptr;
        if (depth_ > 0 && !escaped_ && end - p >= kWide) {
          closed = Wide(p);
          p += kWide;
        } else {
          closed = Step(*p) ? p : nullptr;
          ++p;
        }
        if (closed != nullptr) {
          out.append(begin, closed + 1);
          pos_ = static_cast<size_t>(closed + 1 - block_.data());
          return true;
        }
      }
      out.append(begin, end);
      pos_ = len_;
    }
    return false;
  }

  // 64 bytes inside a bracketed value at once: masks of its quotes and brackets, the bytes inside strings
  // from the quotes' running parity, then only the brackets outside strings one by one. A block with a
  // backslash goes byte by byte. Returns the byte that closes the value, or null.
  static constexpr std::ptrdiff_t kWide = 64;
  const char* Wide(const char* p) {
    const uint64_t backslash = Mask(p, '\\');
    if (backslash != 0) {
      for (int i = 0; i < kWide; ++i) {
        if (Step(p[i])) return p + i;
      }
      return nullptr;
    }
    const uint64_t quotes = Mask(p, '"');
    uint64_t inside = quotes;  // bit i: byte i is in a string or is its opening quote
    for (int shift = 1; shift < 64; shift <<= 1) inside ^= inside << shift;
    if (in_string_) inside = ~inside;
    const uint64_t open = (Mask(p, '{') | Mask(p, '[')) & ~inside;
    const uint64_t close = (Mask(p, '}') | Mask(p, ']')) & ~inside;
    in_string_ = (inside >> 63) & 1;
    if (__builtin_popcountll(close) < depth_) {
      depth_ += __builtin_popcountll(open) - __builtin_popcountll(close);
      return nullptr;
    }
    for (uint64_t brackets = open | close; brackets != 0; brackets &= brackets - 1) {
      const int at = __builtin_ctzll(brackets);
      if ((open >> at) & 1) {
        ++depth_;
      } else if (--depth_ == 0) {
        in_string_ = false;
        return p + at;
      }
    }
    return nullptr;
  }
  // Bit i set where p[i] == c, for 64 bytes.
  static uint64_t Mask(const char* p, char c) {
#if defined(__SSE2__)
    const __m128i v = _mm_set1_epi8(c);
    uint64_t m = 0;
    for (int i = 0; i < 4; ++i) {
      const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * i));
      m |= static_cast<uint64_t>(static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(x, v)))) << (16 * i);
    }
    return m;
#else
    uint64_t m = 0;
    for (int i = 0; i < 64; ++i) m |= static_cast<uint64_t>(p[i] == c) << i;
    return m;
#endif
  }

  TraceFileBuf& buf_;
  std::vector<char> block_;
  size_t pos_ = 0, len_ = 0;
  // Where CopyNested is in the value it copies.
  int depth_ = 0;
  bool in_string_ = false, escaped_ = false;
};

struct Part {
  Status status;
  std::unique_ptr<KinetoConverter> converter;
  int64_t events = 0;
};

Part ReadPart(std::string text, const std::string& path, int64_t first_index) {
  Part part;
  part.converter = std::make_unique<KinetoConverter>(path);
  auto events = ReadKinetoEventChunk(text, path, first_index, *part.converter);
  if (events.ok()) {
    part.events = *events;
  } else {
    part.status = events.status();
  }
  return part;
}

// Starts chunks on workers and merges finished ones, in order, into `into`.
class PartPipeline {
 public:
  PartPipeline(const std::string& path, int threads, KinetoConverter& into)
      : path_(path), threads_(threads), into_(into) {}
  ~PartPipeline() {
    for (auto& f : running_) f.wait();  // a failed read still joins its workers
  }

  bool Submit(std::string chunk, int64_t first_index) {
    if (static_cast<int>(running_.size()) >= threads_ && !MergeOldest()) return false;
    try {
      running_.push_back(std::async(std::launch::async, ReadPart, std::move(chunk), std::cref(path_), first_index));
    } catch (const std::system_error&) {
      return false;  // no thread to be had: the sequential path will do
    }
    return true;
  }
  bool Drain() {
    while (!running_.empty()) {
      if (!MergeOldest()) return false;
    }
    return true;
  }
  int64_t events() const { return events_; }

 private:
  bool MergeOldest() {
    Part part = running_.front().get();
    running_.pop_front();
    if (!part.status.ok()) return false;
    into_.Absorb(std::move(*part.converter));
    events_ += part.events;
    return true;
  }

  const std::string& path_;
  const int threads_;
  KinetoConverter& into_;
  std::deque<std::future<Part>> running_;
  int64_t events_ = 0;
};

// The events of traceEvents, from after its '[' to after its ']', cut into chunks for the pipeline.
bool SplitEvents(Splitter& text, PartPipeline& pipeline, int64_t& submitted) {
  auto fresh = [] {
    std::string c;
    c.reserve(kChunkBytes + kChunkSlack);
    c.push_back('[');
    return c;
  };
  std::string chunk = fresh();
  int64_t in_chunk = 0;
  text.SkipSpace();
  if (text.Peek() == ']') {
    text.Next();
    return true;
  }
  while (true) {
    text.SkipSpace();
    if (text.Peek() != '{') return false;
    if (in_chunk > 0) chunk.push_back(',');
    if (!text.CopyValue(chunk)) return false;
    ++in_chunk;
    text.SkipSpace();
    const int c = text.Next();
    if (c != ',' && c != ']') return false;
    if (c == ']' || chunk.size() >= kChunkBytes) {
      chunk.push_back(']');
      if (!pipeline.Submit(std::move(chunk), submitted)) return false;
      submitted += in_chunk;
      chunk = fresh();
      in_chunk = 0;
    }
    if (c == ']') return true;
  }
}

}  // namespace

bool ReadKinetoInParallel(const std::string& path, int threads, KinetoConverter& into, int64_t& events) {
  auto opened = TraceFileBuf::Open(path);
  if (!opened.ok()) return false;
  Splitter text(**opened);
  PartPipeline pipeline(path, threads, into);
  int64_t submitted = 0;
  // Everything at the top level but traceEvents (deviceProperties, baseTimeNanoseconds...), read where
  // it stands relative to traceEvents, so that strings are numbered as the sequential read numbers them.
  std::string members;
  auto read_members = [&] {
    std::string doc = "{" + members + (members.empty() ? "" : ",") + "\"traceEvents\": []}";
    members.clear();
    return ReadKinetoEventChunk(doc, path, 0, into).ok();
  };
  if (!text.SkipByteOrderMark()) return false;
  text.SkipSpace();
  const int first = text.Next();
  if (first == '[') {
    if (!SplitEvents(text, pipeline, submitted)) return false;
  } else if (first == '{') {
    bool saw_events = false, saw_devices = false;
    text.SkipSpace();
    if (text.Peek() == '}') return false;  // no traceEvents: the sequential read says so
    while (true) {
      text.SkipSpace();
      std::string key;
      if (text.Peek() != '"' || !text.CopyValue(key)) return false;
      text.SkipSpace();
      if (text.Next() != ':') return false;
      text.SkipSpace();
      // A second traceEvents or deviceProperties, or a key written with escapes: the sequential read
      // numbers their events and devices across them.
      if ((key == "\"traceEvents\"" && saw_events) || (key == "\"deviceProperties\"" && saw_devices) ||
          key.find('\\') != std::string::npos) {
        return false;
      }
      saw_devices |= key == "\"deviceProperties\"";
      if (key == "\"traceEvents\"" && text.Peek() == '[') {
        saw_events = true;
        text.Next();
        if (!read_members() || !SplitEvents(text, pipeline, submitted)) return false;
      } else {
        members += (members.empty() ? "" : ",") + key + ":";
        if (!text.CopyValue(members)) return false;
      }
      text.SkipSpace();
      const int c = text.Next();
      if (c == '}') break;
      if (c != ',') return false;
    }
    if (!saw_events) return false;
  } else {
    return false;
  }
  text.SkipSpace();
  if (text.Peek() != -1 || !(*opened)->error().ok()) return false;
  if (!pipeline.Drain() || !read_members()) return false;
  events = pipeline.events();
  return events == submitted;
}

}  // namespace nimble::workflow
