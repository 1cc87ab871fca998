// animload: a load generator for animd (connections x characters, a command mix, streams).
#include <fstream>
#include <iostream>

#include "options.h"
#include "runner.h"
#include "summary.h"

int main(int argc, char** argv) {
  animload::Options options;
  if (int code = animload::parse_options(argc, argv, options); code >= 0) return code;

  animload::Summary summary;
  const int code = animload::run(options, summary, std::cerr, std::cerr);
  if (code == animload::kExitUsage ||
      (code == animload::kExitConnect && summary.characters_spawned == 0 &&
       summary.commands_sent == 0 && summary.errors == 0))
    return code;
  animload::print_summary(summary, std::cout);
  if (!options.json_out.empty()) {
    std::ofstream file(options.json_out);
    file << animload::to_json(summary).dump(2) << "\n";
    if (!file) {
      std::cerr << "animload: cannot write " << options.json_out << "\n";
      return code == animload::kExitOk ? animload::kExitErrors : code;
    }
  }
  return code;
}
