# Front door: `make demo` and `make test` each do their own set-up.
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
BUILD ?= build
# The sanitized build (ASan+UBSan). With clang it also holds the libFuzzer targets: the core
# is compiled once, instrumented for both (CMakeLists.txt), so `make test` compiles the code
# twice (plain, sanitized), not three times. Without clang it is GCC's, and holds no fuzzer.
# (ASAN_BUILD and FUZZ_BUILD name the same folder; both names are kept for scripts.)
ASAN_BUILD ?= build-san
FUZZ_BUILD ?= $(ASAN_BUILD)
FUZZ_SECONDS ?= 60
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG"

# `make demo` builds only the two programs the demo runs (not the test binary), in one
# make run (CMakeLists.txt's demo_programs).
DEMO_TARGETS ?= demo_programs

.PHONY: all bootstrap bootstrap-demo build build-demo build-asan build-fuzz demo test package conform bench fuzz clean python

all: build

bootstrap:
	@./scripts/bootstrap

$(BUILD)/CMakeCache.txt: | bootstrap
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS)

build: bootstrap $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

# The Python module `inferlint` into $(BUILD)/python (PYTHONPATH=$(BUILD)/python; docs/python.md).
python: bootstrap $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS) --target python

# Told when the recipe runs, after bootstrap has installed what it can.
$(ASAN_BUILD)/CMakeCache.txt: | bootstrap
	@if command -v clang++ >/dev/null 2>&1; then \
	  set -x; CXX=clang++ CC=clang cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" \
	    -DINFERLINT_SANITIZE=ON -DINFERLINT_FUZZ=ON -DINFERLINT_WERROR=OFF -DINFERLINT_TEST_SIM=$(abspath $(BUILD))/inferlint-sim; \
	else \
	  set -x; cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O0 -g1" -DINFERLINT_SANITIZE=ON \
	    -DINFERLINT_TEST_SIM=$(abspath $(BUILD))/inferlint-sim; \
	fi

# The sanitized tests' binary and, in a clang build, the libFuzzer targets (tests/fuzz).
build-asan: bootstrap $(ASAN_BUILD)/CMakeCache.txt
	@if grep -q '^INFERLINT_FUZZ:BOOL=ON' $(ASAN_BUILD)/CMakeCache.txt; then \
	  cmake --build $(ASAN_BUILD) -j $(JOBS) --target inferlint_tests fuzz_all; \
	else \
	  cmake --build $(ASAN_BUILD) -j $(JOBS) --target inferlint_tests; \
	fi

build-fuzz: build-asan
	@grep -q '^INFERLINT_FUZZ:BOOL=ON' $(ASAN_BUILD)/CMakeCache.txt || \
	  { echo "make: $(ASAN_BUILD) was configured without clang, so it has no fuzz targets (install clang, then make clean)" >&2; exit 2; }

# Every fuzz target for FUZZ_SECONDS each (make fuzz FUZZ_SECONDS=600).
fuzz: build-fuzz
	FUZZ_SECONDS=$(FUZZ_SECONDS) ./scripts/fuzz $(FUZZ_BUILD)

bootstrap-demo:
	@./scripts/bootstrap demo

build-demo: bootstrap-demo
	@[ -f $(BUILD)/CMakeCache.txt ] || cmake -S . -B $(BUILD) $(CMAKE_FLAGS)
	cmake --build $(BUILD) -j $(JOBS) --target $(DEMO_TARGETS)

demo: build-demo
	./scripts/demo $(BUILD)

# scripts/test makes the plain build itself, with the sanitized one beside it.
test: bootstrap
	./scripts/test $(BUILD) $(ASAN_BUILD) $(JOBS)

# A .deb of the binary, its man page, completions and docs (CPack; dependencies by dpkg-shlibdeps).
package: build
	cd $(BUILD) && cpack -G DEB

conform: build
	INFERLINT_TRIPWIRES=reference python3 ../shared/reference/tools/conform.py $(BUILD)/inferlint ../shared/reference/fixtures ../shared/reference/golden --verbose

# Every figure beside its yardstick, measured in the same run (bench/*): not part of `make test`.
bench: build
	./bench/run $(BUILD)
	./bench/startup.sh $(BUILD)
	./bench/checklog.sh $(BUILD)
	./bench/watch.sh $(BUILD) 20 0.02
	./bench/compare.sh $(BUILD)
	./bench/fleet.sh $(BUILD)
	./bench/fleet_live.py $(BUILD)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD) build-asan build-fuzz
