// `nettwin cw-loop` as its own small program (nettwin_cwloop): the same command, linked with the two ConWeave
// blocks only, for quick builds.
#include <string>

#include "apps/commands.h"

int main(int argc, char** argv) {
  SetProgramPath(argv[0]);
  // `nettwin_cwloop cw-loop ...` works too, so the regression can use it as --nettwin.
  if (argc > 1 && std::string(argv[1]) == "cw-loop") return CwLoopCommand(argc - 1, argv + 1);
  return CwLoopCommand(argc, argv);
}
