# gsql build helpers. CUDA targets need cuda.h and the libcuda link stub:
# `make cuda-headers` puts them in .cuda/ (git-ignored) when no toolkit is
# installed. Test binaries for a GPU machine land in build/cuda/ (ignored).

GO          ?= go
CUDA_DIR    ?= $(CURDIR)/.cuda
CUDA_HOME   ?= $(shell [ -f /usr/local/cuda/include/cuda.h ] && echo /usr/local/cuda)
ifneq ($(CUDA_HOME),)
CUDA_CFLAGS  = -I$(CUDA_HOME)/include
CUDA_LDFLAGS = -L$(CUDA_HOME)/lib64/stubs -L$(CUDA_HOME)/lib64
else
CUDA_CFLAGS  = -I$(CUDA_DIR)/usr/include
CUDA_LDFLAGS = -L$(CUDA_DIR)/usr/lib/x86_64-linux-gnu/stubs
endif
CUDA_ENV     = CGO_ENABLED=1 CGO_CFLAGS="-O2 -g $(CUDA_CFLAGS)" CGO_LDFLAGS="$(CUDA_LDFLAGS)"
# Packages with cuda-tagged code; others join as they gain GPU code.
CUDA_PKGS   ?= ./gpuexec
CUDA_OUT    ?= build/cuda

.PHONY: cuda-fmt cuda-headers cuda-check cuda-vet cuda-build cuda-tests cuda-bench bench-cuda sltload-cuda load-cuda gpu-verify-pack

# Format all CUDA source in the one style of gpuexec/.clang-format (Debian's
# clang-format 14; TestCUDAStyle checks the result, and runs this check
# itself where that version is installed).
cuda-fmt:
	clang-format -i gpuexec/kernels/*.cu gpuexec/kernels/*.h gpuexec/fuse/rt/*.cuh

cuda-headers:
	@scripts/cuda-headers.sh >/dev/null

cuda-check:
	@if [ -z "$(CUDA_HOME)" ] && [ ! -f $(CUDA_DIR)/usr/include/cuda.h ]; then \
		echo "no cuda.h: run 'make cuda-headers' (or install the CUDA toolkit)"; exit 1; fi

# Vet and build the cuda-tagged code (what CI runs when headers are present).
cuda-vet: cuda-check
	$(CUDA_ENV) $(GO) vet -tags cuda $(addsuffix /...,$(CUDA_PKGS))

cuda-build: cuda-check
	$(CUDA_ENV) $(GO) build -tags cuda ./...

# Test binaries to carry to a GPU machine: build/cuda/<pkg>.test. Run them
# there from the repository root, e.g. build/cuda/gpuexec.test -test.v.
cuda-tests: cuda-check
	@mkdir -p $(CUDA_OUT)
	@for p in $(CUDA_PKGS); do \
		echo "$(CUDA_OUT)/$$(basename $$p).test"; \
		$(CUDA_ENV) $(GO) test -c -tags cuda -o $(CUDA_OUT)/$$(basename $$p).test $$p || exit 1; \
	done
	@cp scripts/cuda-run.sh $(CUDA_OUT)/

# The benchmark report runs from the same binaries (GSQL_BENCH=1); this
# target builds them and prints the command for the GPU machine.
cuda-bench: cuda-tests
	@echo "on the GPU machine: GSQL_BENCH=1 GSQL_BENCH_OUT=bench.md $(CUDA_OUT)/gpuexec.test -test.run CUDABenchReport -test.v"

# The side-by-side benchmark program (bench/, its own module) for a GPU
# machine: gzipped to fit the device tool's carry limit.
bench-cuda: cuda-check
	cd bench && CGO_ENABLED=1 CGO_CFLAGS="-O2 -g $(CUDA_CFLAGS)" CGO_LDFLAGS="$(CUDA_LDFLAGS)" $(GO) build -tags cuda -ldflags='-s -w' -o out/cuda/bench . && gzip -f out/cuda/bench

# The sqllogictest load harness (tests/cmd/sltload) for a GPU machine, run
# there by scripts/slt-load.sh (docs/TESTING.md "Load runs").
sltload-cuda: cuda-check
	@mkdir -p $(CUDA_OUT)
	$(CUDA_ENV) $(GO) build -tags cuda -ldflags='-s -w' -o $(CUDA_OUT)/sltload ./tests/cmd/sltload

# Both load harnesses for a GPU machine: sltload (above), gsql and the
# MySQL load generator, run there by scripts/serve-load.sh (docs/SERVER.md).
load-cuda: sltload-cuda
	$(CUDA_ENV) $(GO) build -tags cuda -ldflags='-s -w' -o $(CUDA_OUT)/gsql ./cmd/gsql
	cd server/mysql/clienttest && $(GO) build -ldflags='-s -w' -o $(CURDIR)/$(CUDA_OUT)/mysqlload ./cmd/mysqlload

# One pack for a GPU verification run (scripts/gpu-verify.sh runs it on
# the device machine, from the repository root): stripped test binaries of
# every package with device tests (pack.tar.xz, about 35 MB), and the bench
# program apart (bench.tar.xz, about 20 MB), xz-compressed: carry
# build/verify, or one of them, within the device tool's 64 MiB.
VERIFY_PKGS ?= . ./tests ./operators ./operators/window ./gpuexec
VERIFY_OUT  ?= build/verify
gpu-verify-pack: cuda-check
	@rm -rf $(VERIFY_OUT) && mkdir -p $(VERIFY_OUT)/bin
	@for p in $(VERIFY_PKGS); do \
		n=$$(basename $$p); [ "$$p" = . ] && n=gsql; \
		echo "$(VERIFY_OUT)/bin/$$n.test"; \
		CGO_ENABLED=1 CGO_CFLAGS="-O2 $(CUDA_CFLAGS)" CGO_LDFLAGS="$(CUDA_LDFLAGS)" $(GO) test -c -tags cuda -ldflags='-s -w' -o $(VERIFY_OUT)/bin/$$n.test $$p || exit 1; \
	done
	cd $(VERIFY_OUT)/bin && tar cf - * | xz -6 -T0 > ../pack.tar.xz
	@rm -rf $(VERIFY_OUT)/bin && mkdir -p $(VERIFY_OUT)/bin
	cd bench && CGO_ENABLED=1 CGO_CFLAGS="-O2 $(CUDA_CFLAGS)" CGO_LDFLAGS="$(CUDA_LDFLAGS)" $(GO) build -tags cuda -ldflags='-s -w' -o ../$(VERIFY_OUT)/bin/bench .
	cd $(VERIFY_OUT)/bin && tar cf - bench | xz -6 -T0 > ../bench.tar.xz
	@rm -rf $(VERIFY_OUT)/bin
	@ls -l $(VERIFY_OUT)/*.tar.xz
