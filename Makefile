# Thin front for meson: the README's two commands.
#   make demo   - install missing Debian build deps, build, run the demo
#   make test   - build (normal + ASan/UBSan) and run every suite in both
#   make bench  - run the benchmarks (bench/run.sh)
#   make calibrate - the verdicts' calibration table (every family, 400 seeds)
BUILD ?= build
SAN   ?= build-san

.PHONY: all deps demo test unit bench calibrate clean

all: $(BUILD)/build.ninja
	ninja -C $(BUILD)

deps:
	@./scripts/install-deps.sh

$(BUILD)/build.ninja:
	@./scripts/install-deps.sh --quiet --build-only
	meson setup $(BUILD) --buildtype=debugoptimized

$(SAN)/build.ninja:
	@./scripts/install-deps.sh --quiet --build-only
	meson setup $(SAN) --buildtype=debug -Db_sanitize=address,undefined -Db_lundef=false

demo: all
	./$(BUILD)/memtrend demo

test: all $(SAN)/build.ninja
	@./scripts/install-deps.sh --quiet
	ninja -C $(SAN)
	meson test -C $(BUILD) --print-errorlogs --num-processes 2
	meson test -C $(SAN) --print-errorlogs --num-processes 2
	@./scripts/test-summary.sh $(BUILD) $(SAN)

bench: all
	./bench/run.sh

calibrate: all
	./$(BUILD)/tests/calibrate --seeds 400

clean:
	rm -rf $(BUILD) $(SAN)
