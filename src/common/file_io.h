// Bounded file reads and atomic file writes, shared by readers and writers.
#pragma once

#include <cstddef>
#include <string>

namespace ntpb {

// Throws ntpb::Error naming `path` when it cannot be read or is larger than `max_bytes`.
std::string ReadTextFile(const std::string& path, std::size_t max_bytes);
// Writes to a temporary file in the same folder, flushes it, then renames it over `path`, so a
// reader sees either the old or the new content, never a truncated mix.
void WriteFileAtomically(const std::string& path, const std::string& content);

}  // namespace ntpb
