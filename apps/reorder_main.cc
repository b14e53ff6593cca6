// `nettwin reorder` (and `nettwin cwloop`) as their own small program (nettwin_reorder): the same commands,
// linked with the two ConWeave blocks only, for quick builds while the reorder block is developed. The
// regression can use it as --nettwin for its reorder and cwloop runs.
#include <string>

#include "apps/commands.h"

int main(int argc, char** argv) {
  SetProgramPath(argv[0]);
  const std::string first = argc > 1 ? argv[1] : "";
  if (first == "cwloop" || first == "cw-loop") return nettwin::reroute::CwloopCommand(argc - 1, argv + 1);
  if (first == "reorder") return nettwin::reorder::ReorderCommand(argc - 1, argv + 1);
  return nettwin::reorder::ReorderCommand(argc, argv);
}
