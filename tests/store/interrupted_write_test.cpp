// A writer process killed (SIGKILL) in the middle of a batch: an existing database keeps exactly the
// batches committed before, and a new database never appears at its final path.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "nimble/store/run_reader.h"
#include "nimble/store/run_writer.h"
#include "store_test_util.h"

namespace nimble::store {
namespace {

using testing::TempDirTest;

constexpr int kCommittedBatches = 4;
constexpr int kBatchRecords = 1000;
// Large enough (about 200 MB of rows, past the writer's 64 MiB page cache) that its transaction
// spills to the log long before it could commit.
constexpr int kKilledBatchRecords = 2'000'000;

std::vector<KernelRecord> Kernels(StringTable& strings, int64_t first, int64_t count) {
  std::vector<KernelRecord> out;
  out.reserve(static_cast<size_t>(count));
  for (int64_t i = first; i < first + count; ++i) out.push_back(testing::MakeKernel(strings, i));
  return out;
}

int64_t FileSize(const std::string& path) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  return ec ? 0 : static_cast<int64_t>(size);
}

// The child: commits kCommittedBatches batches, says so on `ready_fd`, then starts one huge batch.
[[noreturn]] void WriteUntilKilled(const std::string& path, int ready_fd) {
  StringTable strings;
  auto writer = RunWriter::Create(path, testing::SampleRun(RunMode::kProgram), {.batch_records = kKilledBatchRecords + 1});
  if (!writer.ok()) _exit(2);
  for (int b = 0; b < kCommittedBatches; ++b) {
    if (!(*writer)->AppendKernels(Kernels(strings, int64_t{b} * kBatchRecords, kBatchRecords), strings).ok()) _exit(3);
    if (!(*writer)->Flush().ok()) _exit(4);
  }
  const auto distinct = Kernels(strings, int64_t{kCommittedBatches} * kBatchRecords, kBatchRecords);
  std::vector<KernelRecord> big;
  big.reserve(kKilledBatchRecords);
  while (big.size() < kKilledBatchRecords) big.insert(big.end(), distinct.begin(), distinct.end());
  if (!(*writer)->AppendKernels(big, strings).ok()) _exit(5);
  (void)!write(ready_fd, "x", 1);
  (void)(*writer)->Flush();
  _exit(6);  // the parent kills us before the flush ends
}

// Forks a writer into `path`, waits until its big batch has started writing to disk (`growing_path`
// grew by 1 MiB), then kills it. Returns false (with a test failure) if the child never got there.
bool RunAndKillWriter(const std::string& path, const std::string& growing_path) {
  int fds[2];
  if (pipe(fds) != 0) return false;
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    WriteUntilKilled(path, fds[1]);
  }
  close(fds[1]);
  char c = 0;
  const bool ready = read(fds[0], &c, 1) == 1;
  close(fds[0]);
  // The file grows once the uncommitted batch spills out of the page cache: the kill then lands
  // inside the transaction, with part of it on disk.
  const int64_t size_at_start = FileSize(growing_path);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (ready && FileSize(growing_path) < size_at_start + (1 << 20) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  const bool grew = FileSize(growing_path) >= size_at_start + (1 << 20);
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(ready) << "the writer child exited early with status " << status;
  EXPECT_TRUE(grew) << "the killed batch never reached " << growing_path;
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "status " << status;
  return ready && grew;
}

class StoreInterruptedWriteTest : public TempDirTest {};

TEST_F(StoreInterruptedWriteTest, ExistingDatabaseKeepsExactlyTheCommittedBatches) {
  const std::string path = PathOf("run.db");
  StringTable strings;
  const auto first_run = Kernels(strings, 0, 500);
  {
    auto writer = RunWriter::Create(path, testing::SampleRun(RunMode::kEager));
    ASSERT_TRUE(writer.ok());
    ASSERT_TRUE((*writer)->AppendKernels(first_run, strings).ok());
    ASSERT_TRUE((*writer)->Commit().ok());
  }
  ASSERT_TRUE(RunAndKillWriter(path, path + "-wal"));

  auto reader = RunReader::Open(path);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  auto runs = (*reader)->Runs();
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 2u);
  Trace expected_first;
  expected_first.strings = strings;
  expected_first.kernels = first_run;
  testing::ExpectSameTrace(expected_first, *(*reader)->LoadTrace(RunId(1)));
  Trace expected_killed;
  expected_killed.kernels = Kernels(expected_killed.strings, 0, int64_t{kCommittedBatches} * kBatchRecords);
  testing::ExpectSameTrace(expected_killed, *(*reader)->LoadTrace(RunId(2)));
  reader->reset();

  // The database is not left locked: another run can be appended.
  auto next = RunWriter::Create(path, testing::SampleRun(RunMode::kProgram));
  ASSERT_TRUE(next.ok()) << next.status().ToString();
  ASSERT_TRUE((*next)->AppendKernels(first_run, strings).ok());
  ASSERT_TRUE((*next)->Commit().ok());
  EXPECT_EQ((*next)->run_id(), RunId(3));
}

TEST_F(StoreInterruptedWriteTest, NewDatabaseNeverAppearsAtItsPath) {
  const std::string path = PathOf("run.db");
  // A new file is built in rollback-journal mode: pages appended to it go straight into the file.
  ASSERT_TRUE(RunAndKillWriter(path, path + ".partial"));
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_EQ(RunReader::Open(path).status().code(), StatusCode::kNotFound);

  // The next session at that path replaces the leftovers and commits normally.
  StringTable strings;
  auto writer = RunWriter::Create(path, testing::SampleRun(RunMode::kEager));
  ASSERT_TRUE(writer.ok()) << writer.status().ToString();
  ASSERT_TRUE((*writer)->AppendKernels(Kernels(strings, 0, 10), strings).ok());
  ASSERT_TRUE((*writer)->Commit().ok());
  writer->reset();
  EXPECT_EQ(ListDir(), std::vector<std::string>{"run.db"});
  auto reader = RunReader::Open(path);
  ASSERT_TRUE(reader.ok());
  EXPECT_EQ((*reader)->LoadTrace(RunId(1))->kernels.size(), 10u);
}

}  // namespace
}  // namespace nimble::store
