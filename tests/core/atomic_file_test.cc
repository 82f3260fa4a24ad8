// WriteFileAtomic, WriteFilesAtomic and CheckWritable: what is written, what
// is refused, and that nothing outside the destination ever changes -- not a
// symbolic link's target, not a directory or a device, not the old content
// when a write fails half way, not the other members of a set.
#include "core/atomic_file.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/temp_dir.h"

namespace perflab::core {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

std::string Read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void Put(const fs::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary) << text;
}

std::set<std::string> Names(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) {
    names.insert(e.path().filename().string());
  }
  return names;
}

class AtomicFileTest : public ::testing::Test {
 protected:
  const perflab::testing::TempDir tmp_{"atomic"};
  const fs::path dir_ = tmp_.path();
};

TEST_F(AtomicFileTest, WritesANewFileAndReplacesARegularOne) {
  const fs::path out = dir_ / "sub" / "out.json";  // the parent is created
  ASSERT_TRUE(WriteFileAtomic(out.string(), "first\n").ok());
  EXPECT_EQ(Read(out), "first\n");
  ASSERT_TRUE(WriteFileAtomic(out.string(), "second").ok());
  EXPECT_EQ(Read(out), "second");
  // Nothing else is left beside it.
  EXPECT_EQ(Names(out.parent_path()), std::set<std::string>{"out.json"});
}

TEST_F(AtomicFileTest, NewFilesGetTheModeFopenWouldGive) {
  const mode_t old = ::umask(022);
  const fs::path out = dir_ / "mode.txt";
  ASSERT_TRUE(WriteFileAtomic(out.string(), "x").ok());
  ::umask(old);
  struct stat st;
  ASSERT_EQ(::stat(out.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);  // 0666 less the umask 022
}

TEST_F(AtomicFileTest, ASymlinkDestinationIsRefusedAndItsTargetUntouched) {
  const fs::path victim = dir_ / "victim";
  const fs::path link = dir_ / "out.json";
  Put(victim, "precious");
  fs::create_symlink(victim, link);
  absl::Status s = WriteFileAtomic(link.string(), "attack");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("symbolic link"));
  EXPECT_EQ(s.message().find('\n'), std::string_view::npos);
  EXPECT_EQ(Read(victim), "precious");
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(link)));
  EXPECT_EQ(Names(dir_), (std::set<std::string>{"out.json", "victim"}));
  // A dangling link is refused the same way, and its target not created.
  const fs::path dangling = dir_ / "dangling";
  fs::create_symlink(dir_ / "nowhere", dangling);
  EXPECT_FALSE(WriteFileAtomic(dangling.string(), "attack").ok());
  EXPECT_FALSE(fs::exists(dir_ / "nowhere"));
}

TEST_F(AtomicFileTest, SymlinksAtPredictableTemporaryNamesRedirectNothing) {
  // Links planted at every name a writer could guess: the destination with
  // the common temporary suffixes, with and without this process's pid.
  const fs::path victim = dir_ / "victim";
  Put(victim, "precious");
  const std::string out = (dir_ / "out.json").string();
  const std::string pid = absl::StrCat(::getpid());
  std::vector<std::string> planted;
  for (const std::string& suffix : std::vector<std::string>{
           ".tmp", ".tmp." + pid, ".tmp.0", "." + pid, ".new", "~", ".part",
           ".old", ".tmp." + pid + ".0"}) {
    planted.push_back(out + suffix);
    fs::create_symlink(victim, planted.back());
  }
  for (int i = 0; i < 20; ++i) {
    ASSERT_TRUE(WriteFileAtomic(out, absl::StrCat("run ", i)).ok());
  }
  EXPECT_EQ(Read(out), "run 19");
  EXPECT_EQ(Read(victim), "precious");
  for (const std::string& p : planted) {
    EXPECT_TRUE(fs::is_symlink(fs::symlink_status(p))) << p;
  }
  EXPECT_EQ(Names(dir_).size(), planted.size() + 2);  // + out.json, victim
}

TEST_F(AtomicFileTest, ADirectoryOrADeviceIsRefusedAndUnchanged) {
  const fs::path sub = dir_ / "a_dir";
  fs::create_directory(sub);
  Put(sub / "inside", "kept");
  absl::Status s = WriteFileAtomic(sub.string(), "x");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("a directory"));
  EXPECT_TRUE(fs::is_directory(sub));
  EXPECT_EQ(Names(sub), std::set<std::string>{"inside"});

  s = WriteFileAtomic("/dev/null", "x");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("a device"));
  EXPECT_TRUE(fs::is_character_file(fs::symlink_status("/dev/null")));

  const fs::path fifo = dir_ / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_FALSE(WriteFileAtomic(fifo.string(), "x").ok());
  EXPECT_TRUE(fs::is_fifo(fs::symlink_status(fifo)));
  EXPECT_EQ(Names(dir_), (std::set<std::string>{"a_dir", "fifo"}));
}

TEST_F(AtomicFileTest, EmptyPathAndDashAreNotFiles) {
  EXPECT_THAT(WriteFileAtomic("", "x").message(), HasSubstr("empty"));
  const fs::path cwd = fs::current_path();
  fs::current_path(dir_);
  absl::Status s = WriteFileAtomic("-", "x");
  fs::current_path(cwd);
  EXPECT_THAT(s.message(), HasSubstr("'-'"));
  EXPECT_TRUE(fs::is_empty(dir_));
}

// Any name the file system takes (up to NAME_MAX, 255 bytes) is written,
// new or replaced, alone or in a set: the temporary and backup names
// beside it are shortened to fit, and none stays.
TEST_F(AtomicFileTest, NamesUpToNameMaxAreWritten) {
  for (size_t length : {234, 235, 250, 255}) {
    const std::string name(length, 'n');
    const std::string path = (dir_ / name).string();
    ASSERT_TRUE(WriteFileAtomic(path, "one").ok()) << length;
    ASSERT_TRUE(WriteFilesAtomic({{path, "two"}}).ok()) << length;
    EXPECT_EQ(Read(path), "two") << length;
    EXPECT_EQ(Names(dir_), std::set<std::string>{name}) << length;
    absl::StatusOr<std::string> tmp = CreateTempFileBeside(path);
    ASSERT_TRUE(tmp.ok()) << tmp.status();
    const std::string tmp_name = fs::path(*tmp).filename().string();
    EXPECT_LE(tmp_name.size(), 255u);
    EXPECT_THAT(tmp_name, HasSubstr(".tmp."));
    fs::remove(*tmp);
    fs::remove(path);
  }
}

// A path that cannot be examined for a reason other than "it does not
// exist" is refused with that reason, not taken for a new file: under a
// regular file, lstat says ENOTDIR.
TEST_F(AtomicFileTest, APathThatCannotBeExaminedIsRefusedWithItsReason) {
  const std::string file = (dir_ / "file").string();
  ASSERT_TRUE(WriteFileAtomic(file, "x").ok());
  const std::string under = file + "/out.txt";
  const std::string reason = std::strerror(ENOTDIR);
  EXPECT_THAT(WriteFileAtomic(under, "y").message(),
              HasSubstr("cannot write: " + reason));
  EXPECT_THAT(CheckWritable(under).message(),
              HasSubstr("cannot write: " + reason));
  // A temporary file in a directory that does not exist: the OS reason, not
  // "File exists" after a hundred retries.
  EXPECT_THAT(CreateTempFileBeside((dir_ / "missing" / "x").string())
                  .status()
                  .message(),
              HasSubstr(std::strerror(ENOENT)));
  EXPECT_EQ(Read(file), "x");
}

// The write itself fails half way (the file size limit is below the new
// content): the old content must stay whole, and no temporary file stays.
// A writer that wrote straight to the final path would have truncated it.
TEST_F(AtomicFileTest, AFailedWriteLeavesTheOldContentWhole) {
  const fs::path out = dir_ / "out.csv";
  Put(out, "old content\n");
  struct rlimit old_limit;
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old_limit), 0);
  struct sigaction ignore = {}, old_action;
  ignore.sa_handler = SIG_IGN;
  ASSERT_EQ(::sigaction(SIGXFSZ, &ignore, &old_action), 0);
  struct rlimit small = old_limit;
  small.rlim_cur = 1024;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  absl::Status s = WriteFileAtomic(out.string(), std::string(4096, 'n'));
  ::setrlimit(RLIMIT_FSIZE, &old_limit);
  ::sigaction(SIGXFSZ, &old_action, nullptr);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(Read(out), "old content\n");
  EXPECT_EQ(Names(dir_), std::set<std::string>{"out.csv"});
}

TEST_F(AtomicFileTest, ASetIsWrittenWhole) {
  Put(dir_ / "a.md", "old a");
  ASSERT_TRUE(WriteFilesAtomic({{(dir_ / "a.md").string(), "new a"},
                                {(dir_ / "b.csv").string(), "new b"},
                                {(dir_ / "c.json").string(), "new c"}})
                  .ok());
  EXPECT_EQ(Read(dir_ / "a.md"), "new a");
  EXPECT_EQ(Read(dir_ / "b.csv"), "new b");
  EXPECT_EQ(Read(dir_ / "c.json"), "new c");
  EXPECT_EQ(Names(dir_), (std::set<std::string>{"a.md", "b.csv", "c.json"}));
}

TEST_F(AtomicFileTest, ASetWithOneUnwritableMemberChangesNone) {
  for (const char* name : {"a.md", "c.json"}) Put(dir_ / name, "old");
  fs::create_directory(dir_ / "b.csv");  // the member that cannot be written
  absl::Status s = WriteFilesAtomic({{(dir_ / "a.md").string(), "new"},
                                     {(dir_ / "b.csv").string(), "new"},
                                     {(dir_ / "c.json").string(), "new"}});
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("b.csv"));
  EXPECT_EQ(Read(dir_ / "a.md"), "old");
  EXPECT_EQ(Read(dir_ / "c.json"), "old");
  EXPECT_TRUE(fs::is_directory(dir_ / "b.csv"));
  EXPECT_EQ(Names(dir_), (std::set<std::string>{"a.md", "b.csv", "c.json"}));

  // The last member's directory cannot be created (a file is in the way):
  // the temporary files already written are removed again.
  Put(dir_ / "blocker", "file");
  s = WriteFilesAtomic({{(dir_ / "a.md").string(), "new"},
                        {(dir_ / "new.txt").string(), "new"},
                        {(dir_ / "blocker" / "x.json").string(), "new"}});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(Read(dir_ / "a.md"), "old");
  EXPECT_EQ(Names(dir_),
            (std::set<std::string>{"a.md", "b.csv", "c.json", "blocker"}));
}

TEST_F(AtomicFileTest, ASetRefusesTheSamePathTwice) {
  const std::string p = (dir_ / "x").string();
  EXPECT_FALSE(WriteFilesAtomic({{p, "1"}, {p, "2"}}).ok());
  EXPECT_TRUE(fs::is_empty(dir_));
}

TEST_F(AtomicFileTest, CheckWritableCreatesNothingAndRefusesWhatWriteRefuses) {
  EXPECT_TRUE(CheckWritable((dir_ / "new.json").string()).ok());
  EXPECT_TRUE(CheckWritable((dir_ / "a" / "b" / "new.json").string()).ok());
  EXPECT_TRUE(fs::is_empty(dir_));  // no probe and no directory stays
  Put(dir_ / "file", "x");
  EXPECT_TRUE(CheckWritable((dir_ / "file").string()).ok());
  EXPECT_THAT(CheckWritable((dir_ / "file" / "x.json").string()).message(),
              HasSubstr("ot a directory"));
  fs::create_directory(dir_ / "d");
  EXPECT_FALSE(CheckWritable((dir_ / "d").string()).ok());
  fs::create_symlink(dir_ / "file", dir_ / "link");
  EXPECT_FALSE(CheckWritable((dir_ / "link").string()).ok());
  EXPECT_FALSE(CheckWritable("").ok());
  EXPECT_FALSE(CheckWritable("/dev/null").ok());
  // procfs takes no new files, not even from root.
  EXPECT_FALSE(CheckWritable("/proc/self/perflab-check.json").ok());
  EXPECT_EQ(Names(dir_), (std::set<std::string>{"file", "d", "link"}));
}

}  // namespace
}  // namespace perflab::core
