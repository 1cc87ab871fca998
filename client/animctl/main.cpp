// animctl: every animd protocol command from the shell, one per invocation.
//
// Exit codes: 0 ok, 1 the daemon answered with an error status, 2 bad command line,
// 3 could not reach the daemon (connect, timeout, connection lost).
#include <iostream>

#include "args.h"
#include "cli.h"
#include "run.h"

int main(int argc, char** argv) {
  CLI::App app{
      "animctl: drive animd from the shell, one command per invocation.\n"
      "Exit codes: 0 ok, 1 daemon error status, 2 bad command line, 3 daemon unreachable.",
      "animctl"};
  app.require_subcommand(1);
  app.fallthrough();  // global options may also follow the subcommand
  animctl::GlobalOptions options;
  animctl::Plan plan;
  animctl::add_global_options(app, options);
  animctl::add_commands(app, plan);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // No subcommand recognised but words left over: a command name that does not exist.
    if (app.get_subcommands().empty() && !app.remaining().empty()) {
      std::cerr << "animctl: unknown command '" << app.remaining().front()
                << "'; see animctl --help\n";
      return animctl::kExitUsage;
    }
    std::cerr << "animctl: " << e.what() << "\n";
    if (!app.get_subcommands().empty())
      std::cerr << "see animctl " << app.get_subcommands().front()->get_name() << " --help\n";
    return animctl::kExitUsage;
  } catch (const animctl::UsageError& e) {
    std::cerr << "animctl: " << e.what() << "\n";
    return animctl::kExitUsage;
  }
  return animctl::execute(plan, options, std::cout, std::cerr);
}
