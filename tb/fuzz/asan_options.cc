// The sanitizer runtime options every fuzz target starts with (the environment's ASAN_OPTIONS still win).
//
// quarantine_size_mb=16 (ASan's default is 256): freed memory waits in the quarantine so that a later use
// of it is reported. With 256 MB the allocator cycles each execution's few kilobytes through fresh pages,
// and the page faults, the 0xbe fill of each new chunk and the quarantine's recycling were 30 to 50 % of
// every text target's time (perf, docs/PERF.md "Fuzzing"). 16 MB still holds the frees of thousands of
// executions, and a use after free in these targets can only reach memory freed in the same execution
// (no target keeps heap pointers across inputs), so no use after free goes unreported.
extern "C" const char* __asan_default_options() { return "quarantine_size_mb=16"; }
