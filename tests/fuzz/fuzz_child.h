// What both mutation fuzzers share: whole-file reads and writes, and waiting for the child process that
// runs one mutant, so that a crash or a hang there is counted rather than suffered. POSIX only.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

namespace nimble::fuzz {

std::string ReadAll(const std::string& path);
void WriteAll(const std::string& path, const std::string& bytes);

// How a forked child ended: exit code 0 or 1 (the two a workflow child uses), killed after
// `timeout_ms`, or anything else (a signal, another code).
enum class ChildEnd { kExit0, kExit1, kHang, kCrash };
ChildEnd WaitForChild(pid_t pid, int64_t timeout_ms);

}  // namespace nimble::fuzz
