// `nettwin cwloop` as its own small program (nettwin_cwloop): the same command, linked with the two ConWeave
// blocks only, for quick builds.
#include <string>

#include "apps/commands.h"

int main(int argc, char** argv) {
  SetProgramPath(argv[0]);
  // `nettwin_cwloop cwloop ...` works too (and the old name, `nettwin_cwloop cw-loop ...`), so the regression
  // can use it as --nettwin.
  const std::string first = argc > 1 ? argv[1] : "";
  // cw-loop: the old name of cwloop.
  if (first == "cwloop" || first == "cw-loop") return nettwin::reroute::CwloopCommand(argc - 1, argv + 1);
  return nettwin::reroute::CwloopCommand(argc, argv);
}
