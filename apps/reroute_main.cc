// `nettwin reroute` as its own small program (nettwin_reroute): the same command, without the other blocks,
// for quick builds while the block is developed.
#include <string>

#include "apps/commands.h"

int main(int argc, char** argv) {
  SetProgramPath(argv[0]);
  // `nettwin_reroute reroute ...` works too, so the regression can use it as --nettwin.
  if (argc > 1 && std::string(argv[1]) == "reroute") return nettwin::reroute::RerouteCommand(argc - 1, argv + 1);
  return nettwin::reroute::RerouteCommand(argc, argv);
}
