// `nettwin reroute` as its own small program (nettwin_reroute): the same command, without the other blocks,
// for quick builds while the block is developed.
#include "apps/commands.h"

int main(int argc, char** argv) {
  SetProgramPath(argv[0]);
  return RerouteCommand(argc, argv);
}
