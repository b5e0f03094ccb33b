// Parser of tests/golden/cases.txt: whitespace-separated fields, ";" (a word of its own) between steps.
#include "golden_case.h"

#include <set>
#include <sstream>

namespace nimble::golden {
namespace {

const std::set<std::string> kPrograms = {"nimble-prof", "clear-results", "stored-results"};

std::vector<std::string> Words(std::string_view line) {
  std::istringstream in{std::string(line)};
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

StatusOr<Capture> ParseCapture(const std::string& word) {
  if (word == "stdout") return Capture::kStdout;
  if (word == "all") return Capture::kAll;
  if (word == "masked-json") return Capture::kMaskedJson;
  return InvalidArgument("capture '" + word + "' is none of stdout, all, masked-json");
}

StatusOr<std::vector<GoldenStep>> ParseSteps(const std::vector<std::string>& words, size_t first) {
  std::vector<GoldenStep> steps(1);
  for (size_t i = first; i < words.size(); ++i) {
    if (words[i] == ";") {
      steps.emplace_back();
    } else if (steps.back().program.empty()) {
      steps.back().program = words[i];
    } else {
      steps.back().args.push_back(words[i]);
    }
  }
  for (const GoldenStep& step : steps) {
    if (step.program.empty()) return InvalidArgument("empty step (a stray ';'?)");
    if (!kPrograms.contains(step.program)) {
      return InvalidArgument("step '" + step.program + "' is none of nimble-prof, clear-results, stored-results");
    }
    if (step.program != "nimble-prof" && step.args.size() != 1) {
      return InvalidArgument(step.program + " takes one database, got " + std::to_string(step.args.size()));
    }
  }
  return steps;
}

StatusOr<GoldenCase> ParseLine(std::string_view line) {
  const std::vector<std::string> words = Words(line);
  if (words.size() < 4) return InvalidArgument("want <expected file> <input|-> <capture> <step> [; <step>...]");
  GoldenCase c;
  c.expected = words[0];
  if (c.expected.find('/') != std::string::npos || c.expected.starts_with('.')) {
    return InvalidArgument("expected file '" + c.expected + "' must be a plain name under tests/golden/expected/");
  }
  c.input = words[1] == "-" ? "" : words[1];
  NIMBLE_ASSIGN_OR_RETURN(c.capture, ParseCapture(words[2]));
  NIMBLE_ASSIGN_OR_RETURN(c.steps, ParseSteps(words, 3));
  return c;
}

}  // namespace

std::string GoldenStep::Line() const {
  std::string out = program;
  for (const std::string& a : args) out += " " + a;
  return out;
}

std::string GoldenCase::TestName() const {
  std::string name = expected;
  for (char& ch : name) {
    const bool alnum = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9');
    if (!alnum) ch = '_';
  }
  return name;
}

StatusOr<std::vector<GoldenCase>> ParseGoldenCases(std::string_view text) {
  std::vector<GoldenCase> cases;
  std::set<std::string> names;
  std::istringstream in{std::string(text)};
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    const size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '#') continue;
    auto parsed = ParseLine(line);
    if (!parsed.ok()) return parsed.status().WithContext("cases line " + std::to_string(number));
    parsed->line = number;
    if (!names.insert(parsed->TestName()).second) {
      return InvalidArgument("cases line " + std::to_string(number) + ": expected file '" + parsed->expected +
                             "' is named by an earlier case too");
    }
    cases.push_back(std::move(parsed).value());
  }
  return cases;
}

}  // namespace nimble::golden
