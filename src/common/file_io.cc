#include "src/common/file_io.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>

#include "ntpbench/error.h"

namespace ntpb {

namespace {

const char* KindOf(mode_t mode) {
  if (S_ISDIR(mode)) return "is a directory";
  if (S_ISFIFO(mode)) return "a FIFO, not a regular file";
  if (S_ISCHR(mode)) return "a character device, not a regular file";
  if (S_ISBLK(mode)) return "a block device, not a regular file";
  if (S_ISSOCK(mode)) return "a socket, not a regular file";
  return "not a regular file";
}

std::string FolderOf(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

// `path`.tmp.* older than ten minutes: what a killed writer left (a live one is younger).
void RemoveStaleTemporaries(const std::string& path) {
  const std::string folder = FolderOf(path);
  const std::string prefix = path.substr(path.find_last_of('/') + 1) + ".tmp.";
  DIR* d = opendir(folder.c_str());
  if (!d) return;
  const time_t now = time(nullptr);
  while (const dirent* e = readdir(d)) {
    if (std::strncmp(e->d_name, prefix.c_str(), prefix.size()) != 0) continue;
    const std::string stale = folder + "/" + e->d_name;
    struct stat st;
    if (lstat(stale.c_str(), &st) == 0 && S_ISREG(st.st_mode) && now - st.st_mtime > 600) {
      unlink(stale.c_str());
    }
  }
  closedir(d);
}

// Renames `tmp` over `path` and makes the rename durable (fsync of the folder).
void Rename(const std::string& tmp, const std::string& path) {
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    unlink(tmp.c_str());
    throw Error(path, "", "", std::string("rename failed: ") + std::strerror(err));
  }
  const int dir = open(FolderOf(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    fsync(dir);
    close(dir);
  }
  RemoveStaleTemporaries(path);
}

// Everything `fd` holds, up to `max_bytes`; more is an error naming `name`.
// Reads straight into the string, sized from `expected` (what fstat saw): a large model is not
// copied chunk by chunk as the string grows.
std::string ReadBounded(int fd, std::size_t max_bytes, const std::string& name,
                        std::size_t expected = 0, const HeadLimit* head_limit = nullptr,
                        std::size_t head_bytes = 0) {
  std::string text(std::min(expected, max_bytes) + 1, '\0');  // +1: a file that grew shows
  std::size_t used = 0;
  bool head_judged = head_limit == nullptr;
  for (;;) {
    if (used == text.size()) text.resize(std::min(max_bytes + 1, 2 * text.size() + (1 << 16)));
    const ssize_t n = read(fd, text.data() + used, text.size() - used);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw Error(name, "", "", std::string("cannot read: ") + std::strerror(errno));
    used += static_cast<std::size_t>(n);
    if (!head_judged && (used >= head_bytes || n == 0)) {
      // The first bytes tell what the text is, and so how large it may be.
      max_bytes = std::min(max_bytes, (*head_limit)(text.substr(0, std::min(used, head_bytes))));
      head_judged = true;
    }
    if (used > max_bytes) {
      throw Error(name, "", "", "over the limit of " + std::to_string(max_bytes) + " bytes");
    }
    if (n == 0) {
      text.resize(used);
      return text;
    }
  }
}

}  // namespace

std::string NotAFileToRead(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode)) return "";
  return KindOf(st.st_mode);
}

std::string ReadTextFile(const std::string& path, std::size_t max_bytes) {
  // O_NONBLOCK: opening a FIFO with no writer must not wait; the descriptor is checked to be a
  // regular file before a byte is read (a FIFO would hang, /dev/zero would never end).
  const int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw Error(path, "", "", std::string("cannot read: ") + std::strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0) {
    const int err = errno;
    close(fd);
    throw Error(path, "", "", std::string("cannot read: ") + std::strerror(err));
  }
  if (!S_ISREG(st.st_mode)) {
    close(fd);
    throw Error(path, "", "", std::string("cannot read: ") + KindOf(st.st_mode));
  }
  if (static_cast<std::size_t>(st.st_size) > max_bytes) {
    close(fd);
    throw Error(path, "", "",
                "file is " + std::to_string(st.st_size) + " bytes, over the limit of " +
                    std::to_string(max_bytes));
  }
  // Read with the bound, not the size stat saw: a file that grows meanwhile is still cut off.
  try {
    std::string text = ReadBounded(fd, max_bytes, path, static_cast<std::size_t>(st.st_size));
    close(fd);
    return text;
  } catch (...) {
    close(fd);
    throw;
  }
}

std::string ReadStandardInputText(std::size_t max_bytes) {
  return ReadBounded(STDIN_FILENO, max_bytes, "<stdin>");
}

std::string ReadStandardInputText(std::size_t max_bytes, std::size_t head_bytes,
                                  const HeadLimit& limit) {
  return ReadBounded(STDIN_FILENO, max_bytes, "<stdin>", 0, &limit, head_bytes);
}

namespace {

// Writes all of `content` to `fd`; false with errno set on an error.
bool WriteAll(int fd, const std::string& content) {
  const char* p = content.data();
  std::size_t left = content.size();
  while (left > 0) {
    const ssize_t n = write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  return true;
}

// An existing output that is no regular file (a character device such as /dev/null or
// /dev/stdout, a FIFO, a socket) is written where it is: renaming a temporary over it would
// replace the device with a regular file. True when `path` was such a file and is written.
bool WriteSpecialFile(const std::string& path, const std::string& content) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode)) return false;
  if (S_ISDIR(st.st_mode)) throw Error(path, "", "", "is a folder, not a file to write");
  const int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) throw Error(path, "", "", std::string("cannot open: ") + std::strerror(errno));
  const bool ok = WriteAll(fd, content);
  const int err = errno;
  close(fd);
  if (!ok) throw Error(path, "", "", std::string("write failed: ") + std::strerror(err));
  return true;
}

}  // namespace

void MakeParentFolder(const std::string& path) {
  const std::filesystem::path folder = std::filesystem::path(path).parent_path();
  std::error_code error;
  if (folder.empty() || std::filesystem::is_directory(folder, error)) return;
  std::filesystem::create_directories(folder, error);
  if (error) {
    throw Error(path, "", "", "cannot make its folder " + folder.string() + ": " + error.message());
  }
}

void WriteFileAtomically(const std::string& path, const std::string& content) {
  if (WriteSpecialFile(path, content)) return;
  MakeParentFolder(path);
  std::string tmp = path + ".tmp.XXXXXX";
  int fd = mkstemp(tmp.data());
  if (fd < 0)
    throw Error(path, "", "", std::string("cannot create temporary file: ") + std::strerror(errno));
  const char* p = content.data();
  std::size_t left = content.size();
  while (left > 0) {
    ssize_t n = write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      close(fd);
      unlink(tmp.c_str());
      throw Error(path, "", "", std::string("write failed: ") + std::strerror(err));
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  fchmod(fd, 0644);
  if (fsync(fd) != 0 || close(fd) != 0) {
    unlink(tmp.c_str());
    throw Error(path, "", "", std::string("write failed: ") + std::strerror(errno));
  }
  Rename(tmp, path);
}

void CommitFile(const std::string& tmp, const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
    // A device or FIFO gets the content written into it, and the temporary goes.
    std::string content;
    try {
      content = ReadTextFile(tmp, std::size_t{1} << 32);
    } catch (...) {
      unlink(tmp.c_str());
      throw;
    }
    unlink(tmp.c_str());
    WriteSpecialFile(path, content);
    return;
  }
  const int fd = open(tmp.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0 || fsync(fd) != 0) {
    const int err = errno;
    if (fd >= 0) close(fd);
    unlink(tmp.c_str());
    throw Error(path, "", "", std::string("write failed: ") + std::strerror(err));
  }
  close(fd);
  Rename(tmp, path);
}

FileLock::FileLock(const std::string& path) : lock_(path + ".lock") {
  std::error_code ignored;  // a folder that cannot be made fails at open, with its reason
  std::filesystem::create_directories(FolderOf(path), ignored);
  // The holder removes the lock file when done, so none is left beside the file it guards. A
  // writer that opened it before the removal and then gets the lock holds a file no longer at
  // the path (another writer may have made a new one): it opens the path again.
  for (;;) {
    fd_ = open(lock_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) {
      throw Error(path, "", "",
                  std::string("cannot create the lock file: ") + std::strerror(errno));
    }
    while (flock(fd_, LOCK_EX) != 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      close(fd_);
      throw Error(path, "", "", std::string("cannot lock: ") + std::strerror(err));
    }
    struct stat held, now;
    if (fstat(fd_, &held) == 0 && stat(lock_.c_str(), &now) == 0 && held.st_dev == now.st_dev &&
        held.st_ino == now.st_ino) {
      return;  // the lock file at the path, locked
    }
    close(fd_);  // removed by the holder before us: try the path's current one
  }
}

FileLock::~FileLock() {
  if (fd_ < 0) return;
  unlink(lock_.c_str());  // while still held: a waiter sees it gone and opens the path again
  close(fd_);             // releases the lock
}

bool IsSpecialFile(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

bool SameFile(const std::string& a, const std::string& b) {
  struct stat sa, sb;
  return stat(a.c_str(), &sa) == 0 && stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

void RefuseOutputOverInput(const std::string& output, const std::vector<std::string>& inputs,
                           const std::string& option) {
  for (const std::string& input : inputs) {
    if (output == input || SameFile(output, input)) {
      throw Error("", "", option, "'" + output + "' is also an input; refusing to overwrite it");
    }
  }
}

std::string CacheDirectory() {
  if (const char* d = std::getenv("NTPB_CACHE_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/ntpbench";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/ntpbench";
  return ".ntpbench-cache";
}

}  // namespace ntpb
