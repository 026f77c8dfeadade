// Errors that name where a problem is: the file, the layer and the field.
#pragma once

#include <stdexcept>
#include <string>

namespace ntpb {

// Thrown by readers, validation, shape inference and backends. what() reads
// "<file>: layer '<layer>', field '<field>': <message>" with the empty parts left out; with
// neither file nor layer the field is a command-line option: "option '<field>': <message>".
class Error : public std::runtime_error {
 public:
  Error(std::string file, std::string layer, std::string field, const std::string& message);

  const std::string& file() const { return file_; }
  const std::string& layer() const { return layer_; }
  const std::string& field() const { return field_; }
  const std::string& message() const { return message_; }

 private:
  std::string file_, layer_, field_, message_;
};

}  // namespace ntpb
