// Bounded file reads and atomic file writes, shared by readers and writers.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace ntpb {

// Throws ntpb::Error naming `path` when it cannot be read or is larger than `max_bytes`.
std::string ReadTextFile(const std::string& path, std::size_t max_bytes);

// Why `path` cannot be read as a file ("is a directory", "a FIFO, not a regular file"), or ""
// where it is a regular file or does not exist (the reader then says which).
std::string NotAFileToRead(const std::string& path);
// Standard input, up to `max_bytes` (more is an ntpb::Error naming "<stdin>").
std::string ReadStandardInputText(std::size_t max_bytes);
// The bound for a text judged by its first bytes (what format it is); it throws ntpb::Error for
// a text that is none of the formats wanted.
using HeadLimit = std::function<std::size_t(const std::string& head)>;
// Standard input whose first `head_bytes` (fewer at its end) `limit` judges before more is read:
// `yes` or /dev/zero on standard input is refused at once, not after 2 GiB.
std::string ReadStandardInputText(std::size_t max_bytes, std::size_t head_bytes,
                                  const HeadLimit& limit);
// Writes to a temporary file in the same folder, fsyncs it, renames it over `path` and fsyncs
// the folder, so a reader sees either the old or the new content, never a truncated mix, and a
// crash after it returns loses nothing. A write error (a full disk) throws ntpb::Error naming
// `path`. Temporaries of `path` that a killed writer left (older than ten minutes) are removed.
// An existing `path` that is no regular file (/dev/null, /dev/stdout, a FIFO) is written in
// place instead: renaming over it would replace the device with a regular file.
void WriteFileAtomically(const std::string& path, const std::string& content);

// Makes the folder `path` goes in where it is missing, as `mkdir -p` would (an output written
// to results/run.json in a fresh checkout); an ntpb::Error naming `path` when it cannot.
// WriteFileAtomically does it first.
void MakeParentFolder(const std::string& path);
// The last step of WriteFileAtomically for a temporary file written by someone else (Google
// Benchmark's --benchmark_out): fsync `tmp`, rename it over `path`, fsync the folder (a device or
// FIFO at `path`: its content written into it, and `tmp` removed).
void CommitFile(const std::string& tmp, const std::string& path);

// Where ntpbench keeps what it can measure or build again (machine ceilings, OpenCL program
// binaries): $NTPB_CACHE_DIR, else $XDG_CACHE_HOME/ntpbench, else ~/.cache/ntpbench.
std::string CacheDirectory();

// An exclusive lock (flock) on `path`.lock, held while the object lives: writers that read,
// merge and write one file (a baseline update, the machine cache) take it around the whole
// sequence, so two of them at once serialise instead of one losing the other's update.
class FileLock {
 public:
  explicit FileLock(const std::string& path);
  ~FileLock();
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  std::string lock_;  // `path`.lock, removed when released: no lock file stays behind
  int fd_ = -1;
};

// Whether `path` exists and is no regular file or folder (a device, a FIFO, a socket).
bool IsSpecialFile(const std::string& path);

// Whether `a` and `b` name the same existing file (device and inode: links and ./ included).
bool SameFile(const std::string& a, const std::string& b);
// Throws ntpb::Error naming `option` when the output `output` is one of `inputs`: a command
// must not overwrite what it reads.
void RefuseOutputOverInput(const std::string& output, const std::vector<std::string>& inputs,
                           const std::string& option);

}  // namespace ntpb
