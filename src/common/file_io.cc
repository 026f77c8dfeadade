#include "src/common/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

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

}  // namespace

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
  std::string text;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      close(fd);
      throw Error(path, "", "", std::string("cannot read: ") + std::strerror(err));
    }
    if (n == 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
    if (text.size() > max_bytes) {
      close(fd);
      throw Error(path, "", "",
                  "file grew over the limit of " + std::to_string(max_bytes) + " bytes");
    }
  }
  close(fd);
  return text;
}

void WriteFileAtomically(const std::string& path, const std::string& content) {
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
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    unlink(tmp.c_str());
    throw Error(path, "", "", std::string("rename failed: ") + std::strerror(err));
  }
}

}  // namespace ntpb
