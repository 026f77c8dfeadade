#include "ntpbench/machine_class.h"

#include <cstdio>
#include <cstring>

#include "ntpbench/error.h"
#include "src/common/json_field.h"

namespace ntpb {
namespace {

std::string Slug(const std::string& text) {
  std::string out;
  for (char c : text) {
    const bool keep = std::isalnum(static_cast<unsigned char>(c)) || c == '.';
    if (keep) {
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!out.empty() && out.back() != '-') {
      out += '-';
    }
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out;
}

std::string Hash6(const std::string& text) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  char buf[16];
  std::snprintf(buf, sizeof buf, "%06llx", static_cast<unsigned long long>(h & 0xffffff));
  return buf;
}

}  // namespace

std::string MachineClass::id() const {
  std::string name = cpu;
  for (const char* noise : {"(R)", "(TM)", "(tm)", " CPU", " Processor", " @"}) {
    for (size_t p; (p = name.find(noise)) != std::string::npos;) name.erase(p, std::strlen(noise));
  }
  return Slug(name) + "-" + std::to_string(cores) + "c-" + (hardware_counters ? "pmu" : "nopmu") +
         "-" +
         Hash6(nlohmann::json{
             {"cpu", cpu}, {"cores", cores}, {"isa", isa}, {"hardware_counters", hardware_counters}}
                   .dump());
}

std::string MachineClass::human() const {
  return cpu + ", " + std::to_string(cores) + " cores, " + (isa.empty() ? "no AVX" : isa) + ", " +
         (hardware_counters ? "hardware counters" : "no hardware counters") + ", " + libraries +
         ", " + build;
}

nlohmann::json MachineClass::ToJson() const {
  return {{"cpu", cpu},
          {"cores", cores},
          {"isa", isa},
          {"hardware_counters", hardware_counters},
          {"libraries", libraries},
          {"build", build}};
}

MachineClass MachineClass::FromJson(const nlohmann::json& j, const std::string& file) {
  MachineClass m;
  try {
    m.cpu = j.at("cpu").get<std::string>();
    const std::optional<int> cores = JsonInteger<int>(j.at("cores"));
    if (!cores || *cores < 0) {
      throw Error(file, "", "machine_class.cores",
                  "expected a count of cores, got " + j.at("cores").dump().substr(0, 40));
    }
    m.cores = *cores;
    m.isa = j.at("isa").get<std::string>();
    m.hardware_counters = j.at("hardware_counters").get<bool>();
    m.libraries = j.at("libraries").get<std::string>();
    m.build = j.at("build").get<std::string>();
  } catch (const nlohmann::json::exception& e) {
    throw Error(file, "", "machine_class", std::string("malformed machine class: ") + e.what());
  }
  return m;
}

}  // namespace ntpb
