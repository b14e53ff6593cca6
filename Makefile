# nettwin: the two commands of the README are `make regress` and `make test`.
BUILD ?= build
JOBS ?= $(shell nproc)

.PHONY: all setup build regress test test-asan fuzz coverage soak lint bench synth clean sva-mutants

all: build

setup:
	bash scripts/setup.sh

$(BUILD)/Makefile: CMakeLists.txt
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release

build: setup $(BUILD)/Makefile
	cmake --build $(BUILD) -j $(JOBS)

# The main job: every vector through RTL and model in lockstep, independently checked, with a summary.
# ARGS passes options, e.g. make regress ARGS="--only lb -j 2 --report build/report".
regress: build
	PYTHONPATH=scripts /usr/bin/python3 -m nettwin.regress.cli --build $(BUILD) $(ARGS)

# The test suite (what CI runs).
test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# The whole test suite again, with the models, the harness, the CLI and the tests built with
# AddressSanitizer + UndefinedBehaviorSanitizer (gcc) in a second build directory (the generated Verilated
# RTL is compiled without them; with ccache installed its objects come from the plain build's cache).
ASAN_BUILD ?= build-asan
CCACHE_LAUNCHER := $(if $(shell command -v ccache),-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
test-asan: setup
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Release -DNT_SANITIZE=ON $(CCACHE_LAUNCHER)
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --output-on-failure -j $(JOBS)

# Every libFuzzer target (tb/fuzz, clang + ASan + UBSan) for FUZZ_SECONDS each, corpora in build-fuzz/corpus.
FUZZ_SECONDS ?= 60
fuzz: setup
	bash scripts/fuzz.sh --seconds $(FUZZ_SECONDS) --jobs $(JOBS)

# RTL line + toggle coverage from every test that drives the RTL, incl. the quick regression (the whole
# regression with COVERAGE_REGRESS=1): HTML report in build-cov/coverage/html, per-block summary printed;
# every uncovered line is reviewed in docs/coverage-review.md.
coverage: setup
	bash scripts/coverage.sh --jobs $(JOBS) $(if $(COVERAGE_REGRESS),--regress)

# Random configurations and traffic per block (lb, rdma, reorder, vnic, re) in lockstep, every run checked by the
# independent checkers, until every block has seen SOAK_PACKETS packets (progress per vector; a failing run
# prints its replay; the summary gives the CPU seconds of generation, lockstep and checks).
SOAK_PACKETS ?= 200000
soak: build
	PYTHONPATH=scripts /usr/bin/python3 -m nettwin.regress.soak --build $(BUILD) --packets $(SOAK_PACKETS)

lint:
	bash scripts/lint_rtl.sh

# Every block built with its planted RTL protocol bug (build-mutants/), each caught by an assertion no later
# than lockstep alone would see it; prints the table of docs/assertions.md.
sva-mutants: setup
	bash scripts/sva_mutants.sh --build build-mutants

# Every block's top through Yosys (YoWASP 0.55 from npm, installed by setup into .tools/) for the U280's
# UltraScale+ family: LUTs, FFs, BRAM/URAM, DSPs, logic levels per block, in build/synth (docs/synthesis.md).
# SYNTH_ARGS passes options, e.g. SYNTH_ARGS="--only rdma -j 1".
synth:
	NT_REQUIRE_YOSYS=1 bash scripts/setup.sh
	/usr/bin/python3 scripts/synth/synth.py --out $(BUILD)/synth $(SYNTH_ARGS)

bench: build
	$(BUILD)/lb_bench
	$(BUILD)/udplb_bench
	$(BUILD)/golden_bench
	/usr/bin/python3 bench/lockstep_bench.py --build $(BUILD)

clean:
	rm -rf $(BUILD)
