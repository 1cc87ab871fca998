// animctl's held-pose commands (docs/animation.md, "Held poses"): `hold ID FILE` holds the
// pose in FILE (whitespace-separated floats, 10 per joint in skeleton order: translation xyz,
// rotation xyzw, scale xyz), `release ID [--over SECONDS]` blends it out.
#include <fstream>
#include <string>

#include "args.h"
#include "cli_commands.h"

namespace animctl {

void add_held_pose(CLI::App& app, Plan& plan) {
  auto id = store<std::string>();
  auto file = store<std::string>();
  CLI::App* hold =
      id_command(app, "hold", "Hold the pose in a file over the animation from the next tick", *id);
  hold->add_option("file", *file,
                   "floats, 10 per joint in skeleton order (translation xyz, rotation xyzw, "
                   "scale xyz), separated by white space")
      ->required();
  hold->callback([id, file, &plan] {
    plan.command = "hold";
    auto* req = plan.request.mutable_set_pose();
    req->set_character_id(parse_id("character id", *id));
    std::ifstream in(*file);
    if (!in) throw UsageError("hold: cannot read '" + *file + "'");
    std::string word;
    while (in >> word) req->add_locals(parse_float("hold: " + *file, word));
    if (req->locals_size() == 0 || req->locals_size() % 10 != 0)
      throw UsageError("hold: " + *file + " has " + std::to_string(req->locals_size()) +
                       " numbers, not 10 per joint");
    plan.print_human = [](const Reply& r, std::ostream& out) {
      out << "holding (" << tick_of(r) << ")\n";
    };
  });

  auto released = store<std::string>();
  auto over = store<std::string>();
  CLI::App* release = id_command(app, "release", "Blend the held pose out", *released);
  release->add_option("--over", *over, "seconds to the animation (default 0: at once)");
  release->callback([released, over, &plan] {
    plan.command = "release";
    auto* req = plan.request.mutable_blend_out_pose();
    req->set_character_id(parse_id("character id", *released));
    if (!over->empty()) req->set_duration(parse_float("--over", *over));
    plan.print_human = [](const Reply& r, std::ostream& out) {
      out << "releasing (" << tick_of(r) << ")\n";
    };
  });
}

}  // namespace animctl
