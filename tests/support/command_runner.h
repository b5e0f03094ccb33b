// Runs a command line for end-to-end tests of the tools and returns its exit code and output.
// Test-only; one call per thread.
#pragma once

#include <sys/wait.h>

#include <cstdio>
#include <string>
#include <vector>

namespace nimble::testing {

struct CommandResult {
  int exit_code = -1;  // -1 when the shell could not be started; 128+N when killed by signal N
  std::string output;
};

// Single-quotes `arg` for /bin/sh.
inline std::string ShellQuote(const std::string& arg) {
  std::string out = "'";
  for (char c : arg) out += (c == '\'') ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

inline std::string JoinCommand(const std::vector<std::string>& args) {
  std::string out;
  for (const std::string& a : args) out += (out.empty() ? "" : " ") + ShellQuote(a);
  return out;
}

// Runs `line` with /bin/sh; output is stdout and stderr together unless `stdout_only`.
inline CommandResult RunCommand(const std::string& line, bool stdout_only = false) {
  CommandResult result;
  const std::string full = line + (stdout_only ? " 2>/dev/null" : " 2>&1");
  FILE* pipe = popen(full.c_str(), "r");
  if (pipe == nullptr) return result;
  char buffer[4096];
  size_t n = 0;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) result.output.append(buffer, n);
  const int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

// `env_prefix` is prepended as is (e.g. "NIMBLE_X=1 ").
inline CommandResult RunCommand(const std::vector<std::string>& args, const std::string& env_prefix = "") {
  return RunCommand(env_prefix + JoinCommand(args));
}

}  // namespace nimble::testing
