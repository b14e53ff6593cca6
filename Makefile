# nettwin: the two commands of the README are `make regress` and `make test`.
BUILD ?= build
JOBS ?= $(shell nproc)

.PHONY: all setup build regress test lint bench clean

all: build

setup:
	bash scripts/setup.sh

$(BUILD)/Makefile: CMakeLists.txt
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release

build: setup $(BUILD)/Makefile
	cmake --build $(BUILD) -j $(JOBS)

# The main job: every vector through RTL and model in lockstep, independently checked, with a summary.
regress: build
	/usr/bin/python3 scripts/regress.py --build $(BUILD)

# The test suite (what CI runs).
test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

lint:
	bash scripts/lint_rtl.sh

bench: build
	$(BUILD)/lb_bench
	$(BUILD)/golden_bench
	/usr/bin/python3 bench/lockstep_bench.py --build $(BUILD)

clean:
	rm -rf $(BUILD)
