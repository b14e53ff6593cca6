// Subcommands of the nettwin CLI. Each returns the process exit status: 0 ok, 1 the run failed (mismatch,
// hang, conservation), 2 bad usage or bad input.
#pragma once

#include <string>

// The value of a numeric option: a decimal number in [lo, hi], else std::invalid_argument naming the option.
double ParseNumber(const std::string& opt, const std::string& v, double lo, double hi);

int LbCommand(int argc, char** argv);
int RdmaCommand(int argc, char** argv);
int RdmaLatencyCommand(int argc, char** argv);
int ReorderCommand(int argc, char** argv);
int VnicCommand(int argc, char** argv);
