// Text from a file made safe to print: control characters (C0, DEL, C1) and bytes that are not
// UTF-8 written as \xNN, so a name cannot drive the terminal (escape sequences), break a
// one-line message (newlines) or make a JSON writer throw.
#pragma once

#include <cstddef>
#include <string>

namespace ntpb {

std::string Printable(const std::string& text);

// The length of the well-formed UTF-8 sequence at text[i] (a byte >= 0x80), or 0 where it is
// none (a stray byte, overlong, a surrogate, past U+10FFFF); `code` gets its code point.
size_t Utf8SequenceLength(const std::string& text, size_t i, unsigned int* code);

}  // namespace ntpb
