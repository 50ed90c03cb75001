# The README's commands. `make test` is what CI runs (.ci/run): set-up, build, every suite.
PRESET ?= relassert
BUILD_DIR := build/$(PRESET)
JOBS ?= $(shell nproc)

.PHONY: test deps configure build ctest sanitize format format-check tidy clean

test: deps build ctest

deps:
	bash scripts/install-deps.sh

configure:
	cmake --preset $(PRESET)

build: configure
	cmake --build --preset $(PRESET) -j $(JOBS)

ctest:
	ctest --preset $(PRESET) -j $(JOBS)

# ASan + UBSan build and tests (preset dev).
sanitize:
	$(MAKE) test PRESET=dev

format:
	bash tools/format.sh

format-check:
	bash tools/format.sh --check

tidy:
	bash tools/run_clang_tidy.sh $(BUILD_DIR)

clean:
	rm -rf build
