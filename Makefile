# The README's commands. `make test` is what CI runs (.ci/run): set-up, build, every suite.
PRESET ?= relassert
BUILD_DIR := build/$(PRESET)
JOBS ?= $(shell nproc)

.PHONY: test deps configure build ctest wheel-check demo sanitize format format-check tidy clean

test: deps build ctest wheel-check

deps:
	bash scripts/install-deps.sh

configure:
	cmake --preset $(PRESET)

build: configure
	cmake --build --preset $(PRESET) -j $(JOBS)

# The suites keep their JIT objects in the build tree (every build changes every key), not in
# the user's cache (LADDU_JIT_CACHE, docs/jit.md).
ctest:
	LADDU_JIT_CACHE=$(CURDIR)/$(BUILD_DIR)/jit-cache ctest --preset $(PRESET) -j $(JOBS)

# The Python user's path: build the wheel (Release, pyproject.toml), install it into a new venv
# and run python/tests against the installed package (scripts/check-wheel.sh).
wheel-check:
	LADDU_JIT_CACHE=$(CURDIR)/build/wheel-jit-cache JOBS=$(JOBS) bash scripts/check-wheel.sh

# The main job: generate, fit and plot laddu's K-matrix model (apps/laddu-cpp/demo.cpp), with
# its output (fit table, projections, projections.png) in demo-output/. DEMO_ARGS passes options,
# e.g. make demo DEMO_ARGS="--events 30000".
DEMO_DIR := demo-output
DEMO_ARGS ?=

demo: deps build
	rm -rf $(DEMO_DIR)
	$(BUILD_DIR)/apps/laddu-cpp/laddu-cpp demo --output $(DEMO_DIR) $(DEMO_ARGS)
	/usr/bin/python3 examples/python/plot_demo.py $(DEMO_DIR)

# ASan + UBSan build and tests (preset dev; the wheel check is preset-independent, make test has it).
sanitize:
	$(MAKE) deps build ctest PRESET=dev

format:
	bash tools/format.sh

format-check:
	bash tools/format.sh --check

tidy:
	bash tools/run_clang_tidy.sh $(BUILD_DIR)

clean:
	rm -rf build
