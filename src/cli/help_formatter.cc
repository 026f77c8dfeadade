#include "src/cli/help_formatter.h"

#include <sstream>

namespace ntpb::cli {
namespace {

constexpr size_t kColumn = 30;  // where option descriptions start

// The first sentence: the command list shows only that, `ntpbench CMD --help` the rest.
std::string FirstSentence(const std::string& text) {
  const size_t end = text.find(". ");
  return end == std::string::npos ? text : text.substr(0, end + 1);
}

}  // namespace

std::string WrapText(const std::string& text, size_t width) {
  std::string out, line;
  std::istringstream lines(text);
  bool first_line = true;
  while (std::getline(lines, line)) {
    if (!first_line) out += '\n';
    first_line = false;
    // Continuation lines keep the line's own indent (a footer's list items).
    const size_t indent =
        line.find_first_not_of(' ') == std::string::npos ? 0 : line.find_first_not_of(' ');
    size_t column = 0;
    std::istringstream words(line.substr(indent));
    std::string word;
    out += std::string(indent, ' ');
    column = indent;
    bool first_word = true;
    while (words >> word) {
      if (!first_word && column + 1 + word.size() > width) {
        out += "\n" + std::string(indent, ' ');
        column = indent;
      } else if (!first_word) {
        out += ' ';
        ++column;
      }
      out += word;
      column += word.size();
      first_word = false;
    }
  }
  return out;
}

HelpFormatter::HelpFormatter() { column_width(kColumn); }

std::string HelpFormatter::make_option_desc(const CLI::Option* option) const {
  return WrapText(option->get_description(), kWidth - kColumn);
}

std::string HelpFormatter::make_subcommand(const CLI::App* command) const {
  std::stringstream out;
  CLI::detail::format_help(out, command->get_display_name(true),
                           WrapText(FirstSentence(command->get_description()), kWidth - kColumn),
                           kColumn);
  return out.str();
}

std::string HelpFormatter::make_description(const CLI::App* app) const {
  const std::string description = app->get_description();
  return description.empty() ? "" : WrapText(description, kWidth) + "\n\n";
}

std::string HelpFormatter::make_footer(const CLI::App* app) const {
  const std::string footer = app->get_footer();
  return footer.empty() ? "" : WrapText(footer, kWidth) + "\n";
}

}  // namespace ntpb::cli
