# shellcheck shell=bash
# The libFuzzer targets of tb/fuzz and the options each runs with; sourced by scripts/fuzz.sh and
# bench/fuzz_rate.sh so the campaign and the benchmark run every target the same way.
FUZZ_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck disable=SC2034  # used by the scripts that source this file
TARGETS=(pcap lb_script lb_plan rdma_config reorder_config vnic_config re naa_config lb_frame rdma_frame
  reorder_frame vnic_frame re_frame naa_frame)

# FuzzArgs TARGET: libFuzzer options, one a line (dictionary, input size bound, per-input timeout, memory).
# Text inputs (scripts, configurations) stay under 4 KB: longer ones reach no new grammar, and copying and
# tokenizing 20 KB made lb_script 4x slower per execution (docs/PERF.md, "Fuzzing").
FuzzArgs() {
  local t=$1
  [ -f "$FUZZ_ROOT/tb/fuzz/$t.dict" ] && echo "-dict=$FUZZ_ROOT/tb/fuzz/$t.dict"
  case "$t" in *_config|lb_script|lb_plan) echo "-max_len=4096" ;; *) echo "-max_len=20000" ;; esac
  echo "-timeout=60"
  echo "-rss_limit_mb=2048"
}
