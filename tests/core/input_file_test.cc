// The bounded reader of input files: what it reads whole, and what it
// refuses at once (a directory, a FIFO nobody writes, a device, a file over
// the cap), each in one line naming the input and the cap.
#include "core/input_file.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/temp_dir.h"

namespace perflab::core {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class InputFileTest : public ::testing::Test {
 protected:
  std::string Put(const std::string& name, const std::string& text) {
    std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }
  const perflab::testing::TempDir tmp_{"input"};
  const fs::path dir_ = tmp_.path();
};

TEST_F(InputFileTest, ReadsARegularFileWhole) {
  // Appended, not `std::string(n, 'x') + ...`: GCC 12 at -O2 warns falsely
  // (-Warray-bounds) on that temporary once <string> comes from a
  // precompiled header, which no longer hides it as a system header's.
  std::string text(200'000, 'x');
  text += "\nend";
  absl::StatusOr<std::string> got = ReadInputFile("--input", Put("a", text));
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(*got, text);
}

// The cap holds to the byte: 10 bytes pass a 10-byte cap, 11 do not, and the
// message names the input, the file's size and the cap.
TEST_F(InputFileTest, AFileOverTheCapIsRefusedNamingTheCap) {
  const InputFileOptions ten{.max_bytes = 10};
  EXPECT_TRUE(ReadInputFile("part", Put("ten", "0123456789"), ten).ok());
  const std::string eleven = Put("eleven", "0123456789a");
  absl::StatusOr<std::string> got = ReadInputFile("part", eleven, ten);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(got.status().message(),
            absl::StrCat("part '", eleven,
                         "': 11 B, larger than accepted; accepted: a regular "
                         "file of at most 10 B"));
}

TEST_F(InputFileTest, NotAFileIsRefusedAtOnce) {
  const std::string fifo = (dir_ / "fifo").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // No writer ever opens the FIFO: a blocking open would hang here.
  for (const auto& [path, kind] :
       {std::pair<std::string, std::string>{fifo, "a FIFO (pipe)"},
        {dir_.string(), "a directory"},
        {"/dev/zero", "a device"},
        {"/dev/urandom", "a device"},
        {"/dev/null", "a device"}}) {
    absl::StatusOr<std::string> got = ReadInputFile("--calibration", path);
    ASSERT_FALSE(got.ok()) << path;
    EXPECT_THAT(got.status().message(),
                HasSubstr(absl::StrCat("--calibration '", path, "': ", kind,
                                       "; accepted: a regular file of at "
                                       "most 64 MiB")));
  }
}

TEST_F(InputFileTest, AMissingFileNamesTheReason) {
  absl::StatusOr<std::string> got =
      ReadInputFile("--map", (dir_ / "none").string());
  ASSERT_FALSE(got.ok());
  EXPECT_THAT(got.status().message(),
              HasSubstr("cannot open: No such file or directory"));
}

// "-" is stdin only where a reader accepts it; elsewhere it is a file name.
TEST_F(InputFileTest, DashIsStdinOnlyWhenAllowed) {
  const std::string path = Put("numbers", "1\n2\n");
  const int saved = ::dup(STDIN_FILENO);
  const int in = ::open(path.c_str(), O_RDONLY);
  ASSERT_GE(in, 0);
  ::dup2(in, STDIN_FILENO);
  ::close(in);
  absl::StatusOr<std::string> from_stdin =
      ReadInputFile("--input", "-", {.allow_stdin = true});
  ::dup2(saved, STDIN_FILENO);
  ::close(saved);
  ASSERT_TRUE(from_stdin.ok()) << from_stdin.status();
  EXPECT_EQ(*from_stdin, "1\n2\n");
  const fs::path cwd = fs::current_path();
  fs::current_path(dir_);  // no file named "-" here
  absl::StatusOr<std::string> as_file = ReadInputFile("part", "-");
  fs::current_path(cwd);
  EXPECT_FALSE(as_file.ok());
}

TEST(ByteSizeText, PrintsBinaryUnits) {
  EXPECT_EQ(ByteSizeText(0), "0 B");
  EXPECT_EQ(ByteSizeText(1023), "1023 B");
  EXPECT_EQ(ByteSizeText(1024), "1 KiB");
  EXPECT_EQ(ByteSizeText(uint64_t{64} << 20), "64 MiB");
  EXPECT_EQ(ByteSizeText(uint64_t{3} << 29), "1.5 GiB");
}

}  // namespace
}  // namespace perflab::core
