#include "ntpbench/error.h"

#include "src/common/printable.h"

namespace ntpb {
namespace {

std::string Compose(const std::string& file, const std::string& layer, const std::string& field,
                    const std::string& message) {
  std::string where = file.empty() ? "" : file + ": ";
  if (!layer.empty()) where += "layer '" + layer + "'" + (field.empty() ? ": " : ", ");
  // Without a file or layer the error is about the command line: an option, not a field.
  const bool option = file.empty() && layer.empty();
  if (!field.empty()) where += (option ? "option '" : "field '") + field + "': ";
  return where + message;
}

}  // namespace

Error::Error(std::string file, std::string layer, std::string field, const std::string& message)
    : std::runtime_error(Printable(Compose(file, layer, field, message))),
      file_(std::move(file)),
      layer_(std::move(layer)),
      field_(std::move(field)),
      message_(message) {}

}  // namespace ntpb
