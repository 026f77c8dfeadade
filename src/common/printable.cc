#include "src/common/printable.h"

namespace ntpb {
namespace {

void AppendEscaped(const std::string& bytes, std::string* out) {
  static const char kHex[] = "0123456789abcdef";
  for (const char c : bytes) {
    const unsigned char u = static_cast<unsigned char>(c);
    *out += "\\x";
    *out += kHex[u >> 4];
    *out += kHex[u & 15];
  }
}

}  // namespace

size_t Utf8SequenceLength(const std::string& text, size_t i, unsigned int* code) {
  const unsigned char lead = static_cast<unsigned char>(text[i]);
  size_t n = 0;
  if (lead >= 0xc2 && lead <= 0xdf) {
    n = 2, *code = lead & 0x1f;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    n = 3, *code = lead & 0x0f;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    n = 4, *code = lead & 0x07;
  } else {
    return 0;
  }
  if (i + n > text.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    const unsigned char b = static_cast<unsigned char>(text[i + k]);
    if ((b & 0xc0) != 0x80) return 0;
    *code = (*code << 6) | (b & 0x3f);
  }
  if ((n == 3 && *code < 0x800) || (n == 4 && (*code < 0x10000 || *code > 0x10ffff)) ||
      (*code >= 0xd800 && *code <= 0xdfff)) {
    return 0;  // overlong, a surrogate, past U+10FFFF
  }
  return n;
}

std::string Printable(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char u = static_cast<unsigned char>(text[i]);
    if (u < 0x20 || u == 0x7f) {
      AppendEscaped(text.substr(i, 1), &out);
    } else if (u < 0x80) {
      out += text[i];
    } else if (unsigned int code = 0; const size_t n = Utf8SequenceLength(text, i, &code)) {
      // C1 controls (U+0080 to U+009F; U+009B is a CSI) drive terminals as ESC sequences do.
      if (code >= 0x80 && code <= 0x9f) {
        AppendEscaped(text.substr(i, n), &out);
      } else {
        out.append(text, i, n);
      }
      i += n - 1;
    } else {
      AppendEscaped(text.substr(i, 1), &out);  // not UTF-8
    }
  }
  return out;
}

}  // namespace ntpb
