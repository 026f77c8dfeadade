// CLI11's help, wrapped to fit a terminal: descriptions break between words at 100 columns and
// continue under their column, so `ntpbench run --help` reads at 120 columns and on a laptop.
#pragma once

#include <CLI/CLI.hpp>
#include <cstddef>
#include <string>

namespace ntpb::cli {

class HelpFormatter : public CLI::Formatter {
 public:
  static constexpr size_t kWidth = 100;
  HelpFormatter();

  std::string make_option_desc(const CLI::Option* option) const override;
  std::string make_subcommand(const CLI::App* command) const override;
  std::string make_description(const CLI::App* app) const override;
  std::string make_footer(const CLI::App* app) const override;
};

// `text` with each line longer than `width` broken between words.
std::string WrapText(const std::string& text, size_t width);

}  // namespace ntpb::cli
