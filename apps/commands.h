// Subcommands of the nettwin CLI. Each returns the process exit status: 0 ok, 1 the run failed (mismatch,
// hang, conservation), 2 bad usage or bad input.
#pragma once

int LbCommand(int argc, char** argv);
int RdmaCommand(int argc, char** argv);
int RdmaLatencyCommand(int argc, char** argv);
int ReorderCommand(int argc, char** argv);
