#include "src/common/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "ntpbench/error.h"

namespace ntpb {

std::string ReadTextFile(const std::string& path, std::size_t max_bytes) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0)
    throw Error(path, "", "", std::string("cannot read: ") + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) throw Error(path, "", "", "cannot read: is a directory");
  if (static_cast<std::size_t>(st.st_size) > max_bytes) {
    throw Error(path, "", "",
                "file is " + std::to_string(st.st_size) + " bytes, over the limit of " +
                    std::to_string(max_bytes));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path, "", "", std::string("cannot open: ") + std::strerror(errno));
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
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
