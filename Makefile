# Front door: `make demo` and `make test` each do their own set-up.
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
BUILD ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 60
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG"

# `make demo` builds only the two programs the demo runs (not the test binary), in one
# make run (CMakeLists.txt's demo_programs).
DEMO_TARGETS ?= demo_programs

.PHONY: all bootstrap bootstrap-demo build build-demo build-asan build-fuzz demo test package test-asan conform bench fuzz clean python

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

$(ASAN_BUILD)/CMakeCache.txt: | bootstrap
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O0 -g1" -DINFERLINT_SANITIZE=ON

build-asan: bootstrap $(ASAN_BUILD)/CMakeCache.txt
	cmake --build $(ASAN_BUILD) -j $(JOBS) --target inferlint_tests

# libFuzzer targets (tests/fuzz): clang, with the core instrumented (cmake/fuzz.cmake).
$(FUZZ_BUILD)/CMakeCache.txt: | bootstrap
	CXX=clang++ CC=clang cmake -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" \
	  -DINFERLINT_FUZZ=ON -DINFERLINT_TESTS=OFF -DINFERLINT_WERROR=OFF

build-fuzz: bootstrap $(FUZZ_BUILD)/CMakeCache.txt
	cmake --build $(FUZZ_BUILD) -j $(JOBS) --target fuzz_all

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

test: build
	./scripts/test $(BUILD) $(ASAN_BUILD) $(JOBS)

# A .deb of the binary, its man page, completions and docs (CPack; dependencies by dpkg-shlibdeps).
package: build
	cd $(BUILD) && cpack -G DEB

conform: build
	INFERLINT_TRIPWIRES=T1-T15 python3 ../shared/reference/tools/conform.py $(BUILD)/inferlint ../shared/reference/fixtures ../shared/reference/golden --verbose

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
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)
