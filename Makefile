# alcove — one non-recursive GNU Makefile (STYLE.md §12).
#
#   make                 library (static + shared, and the CUDA backend libalcove_cuda.so that the
#                        shared one opens at run time), build/alcove, the examples build/hello
#                        and build/grasp
#   make test            build and run the CPU suite, the GPU tests in the SIMT emulation and the
#                        emulation's self-tests under ASan and TSan (no GPU needed)
#   make gpu-test        build and run the GPU tests on a device ("waived" without one)
#   make emu             build/emu/alcove and build/emu/alcove_gpu_tests: cuda/*.cu on the CPU
#   make emu-test | emu-bench   the emulated GPU tests alone; the emulation's speed
#   make bench           run the benchmark table (tools/bench.c) on this machine; with
#                        IPC_DIR=<checkout of ipc-sim/IPC> also the IPC paper's small examples
#   make asan | ubsan | tsan    sanitizer builds (CUDA=0 host, emulated kernels), then the tests
#   make fuzz            the readers' libFuzzer targets (clang), FUZZ_TIME seconds each (make test
#                        runs 20,000 inputs each from a fixed seed after their seed corpora)
#   make stress          STRESS_COUNT random scenes from seeds, each state checked (make test: 24)
#   make install         headers, libraries, build/alcove and alcove.pc under PREFIX (default
#                        /usr/local; DESTDIR for staging): cc app.c $(pkg-config --cflags --libs alcove)
#   make format | format-check | echo | clean
#
# Variables: CUDA=0 builds the host library and reference backend only (no toolkit needed);
# CUDA_ARCHS lists the SASS targets, CUDA_PTX the PTX target; WERROR=1 turns warnings into
# errors; SANITIZER=address|undefined|thread; OPENMP=0 disables OpenMP in the reference backend;
# CHOLMOD=0 builds without the reference backend's sparse direct solver (found automatically when
# Debian's libsuitesparse-dev is installed; without it `linear_solver: direct|auto` is refused).
# FMAD=1 lets nvcc fuse multiplies and adds in device code (its default): kernels then round
# differently from the reference backend, whose C is built with -ffp-contract=off. The default,
# FMAD=0 (-fmad=false), rounds every operation once as the reference does, so that the device
# and the reference agree bit for bit wherever their sums run in the same order
# (docs/architecture.md "Rounding: the device as the reference"; cost in
# bench/results/h100-80gb-hbm3/fmad.md).

CUDA       ?= 1
CUDA_HOME  ?= /usr/local/cuda
CUDA_ARCHS ?= 80 86 89 90
CUDA_PTX   ?= 90
SANITIZER  ?=
WERROR     ?= 0
FMAD       ?= 0
OPENMP     ?= 1
NVTX       ?= 1
OPT        ?= -O2
BUILD      ?= build

CC    ?= gcc
CXX   ?= g++
NVCC  ?= $(CUDA_HOME)/bin/nvcc
HASH       := \#
ifeq ($(origin CHOLMOD),undefined)
CHOLMOD    := $(shell echo '$(HASH)include <suitesparse/cholmod.h>' | $(CC) -E -x c - >/dev/null 2>&1 && echo 1 || echo 0)
endif

CSTD     = -std=c11
CWARN    = -Wall -Wextra -Wpedantic -Wshadow -Wundef -Wwrite-strings -Wcast-qual -Wformat=2 \
           -Wmissing-prototypes -Wstrict-prototypes -Wold-style-definition -Wdouble-promotion -Wvla
DEPFLAGS = -MMD -MP
INCLUDES = -Iinclude -Ihost
DEFS     = -D_GNU_SOURCE -DALC_WITH_CUDA=$(CUDA) -DALC_NVTX=$(if $(filter 1,$(CUDA)),$(NVTX),0) \
           -DALC_HAVE_CHOLMOD=$(CHOLMOD)
CFLAGS   = $(CSTD) $(OPT) -ffp-contract=off -g -fPIC -fvisibility=hidden $(CWARN) $(DEPFLAGS) $(INCLUDES) $(DEFS)
CHOLMOD_LIBS = $(if $(filter 1,$(CHOLMOD)),-lcholmod)
LDLIBS   = -lyaml -lz -lm -lpthread $(CHOLMOD_LIBS)

ifeq ($(OPENMP),1)
CFLAGS  += -fopenmp
LDLIBS  += -fopenmp
else
CFLAGS  += -Wno-unknown-pragmas
endif
ifeq ($(WERROR),1)
CFLAGS  += -Werror
endif
ifneq ($(SANITIZER),)
SANFLAGS = -fsanitize=$(SANITIZER) -fno-sanitize-recover=all -fno-omit-frame-pointer
CFLAGS  += $(SANFLAGS)
LDLIBS  += $(SANFLAGS)
endif

NVGENCODE = $(foreach a,$(CUDA_ARCHS),-gencode arch=compute_$(a),code=sm_$(a)) \
            -gencode arch=compute_$(CUDA_PTX),code=compute_$(CUDA_PTX)
NVFLAGS   = -std=c++17 $(OPT) -lineinfo $(NVGENCODE) -Xcompiler -fPIC,-fvisibility=hidden,-Wall,-Wextra,-ffp-contract=off \
            --Wdefault-stream-launch $(INCLUDES) $(DEFS) -MMD -MP
ifneq ($(FMAD),1)
NVFLAGS  += -fmad=false
endif
ifeq ($(WERROR),1)
NVFLAGS  += -Werror all-warnings
endif

# ---- sources -------------------------------------------------------------------------------
LIB_CSRC  = $(sort $(wildcard host/*.c) $(wildcard host/ref/*.c))
LIB_CUSRC = $(sort $(wildcard cuda/*.cu))
TOOL_SRC  = $(sort $(wildcard tools/*.c))
TEST_SRC  = $(sort $(wildcard tests/*.c))
GPUT_SRC  = $(sort $(wildcard tests/gpu/*.c))

LIB_OBJS  = $(LIB_CSRC:%.c=$(BUILD)/obj/%.o)
HOST_LDLIBS := $(LDLIBS)
ifeq ($(CUDA),1)
CUDA_OBJS = $(LIB_CUSRC:%.cu=$(BUILD)/obj/%.o)
LIB_OBJS += $(CUDA_OBJS)
CUDA_LDLIBS = -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 -lcublas -lcusparse -lcudart -lstdc++ \
              $(if $(filter 1,$(NVTX)),-ldl)
LDLIBS   += $(CUDA_LDLIBS)
LINK      = $(CXX)
# libalcove.so needs no CUDA runtime: it opens the CUDA backend, libalcove_cuda.so, at run time
# (host/plugin/cuda_loader.c); the static library and the programs link cuda/*.cu directly
CUDA_PLUGIN = $(BUILD)/libalcove_cuda.so
SHARED_OBJS = $(LIB_CSRC:%.c=$(BUILD)/obj/%.o) $(BUILD)/obj/host/plugin/cuda_loader.o
PLUGIN_OBJS = $(CUDA_OBJS) $(BUILD)/obj/host/error_format.o $(BUILD)/obj/host/contact_report.o \
              $(BUILD)/obj/host/vertex_rows.o \
              $(BUILD)/obj/cuda/plugin/plugin_entry.o
else
LINK      = $(CC)
SHARED_OBJS = $(LIB_OBJS)
endif
TOOL_OBJS = $(TOOL_SRC:%.c=$(BUILD)/obj/%.o)
TEST_OBJS = $(TEST_SRC:%.c=$(BUILD)/obj/%.o)
GPUT_OBJS = $(GPUT_SRC:%.c=$(BUILD)/obj/%.o) $(BUILD)/obj/tests/main_gpu.o $(BUILD)/obj/tests/scene_run.o

STATIC_LIB = $(BUILD)/libalcove.a
SHARED_LIB = $(BUILD)/libalcove.so
ALCOVE     = $(BUILD)/alcove
EXAMPLES   = $(BUILD)/hello $(BUILD)/grasp
TESTS      = $(BUILD)/alcove_tests
GPU_TESTS  = $(BUILD)/alcove_gpu_tests

# ---- the SIMT emulation (emu/): cuda/*.cu compiled by the host C++ compiler --------------------
# The same CUDA sources run on the CPU against emu/cuda_emu.h (force-included), linked with host
# objects built for a CUDA build (ALC_WITH_CUDA=1) but without the toolkit's libraries. Under
# SANITIZER=thread the emulation's scheduler is left uninstrumented (only kernels are checked).
EMU        = $(BUILD)/emu
EMU_SRC    = $(sort $(wildcard emu/*.cpp))
EMUT_CUSRC = $(sort $(wildcard tests/emu/*.cu))
EMU_DEFS   = -D_GNU_SOURCE -DALC_WITH_CUDA=1 -DALC_NVTX=0 -DALC_EMU=1 -DALC_HAVE_CHOLMOD=$(CHOLMOD)
EMU_CFLAGS = $(CSTD) $(OPT) -ffp-contract=off -g -fPIC -fvisibility=hidden $(CWARN) $(DEPFLAGS) $(INCLUDES) $(EMU_DEFS) \
             $(if $(filter 1,$(OPENMP)),-fopenmp,-Wno-unknown-pragmas) $(if $(filter 1,$(WERROR)),-Werror) $(SANFLAGS)
EMU_CXXFLAGS = -std=c++17 $(OPT) -ffp-contract=off -g -fPIC -Wall -Wextra $(DEPFLAGS) -Iemu/include $(INCLUDES) -Icuda \
             $(EMU_DEFS) $(if $(filter 1,$(WERROR)),-Werror)
EMU_KFLAGS = -x c++ -include emu/cuda_emu.h $(SANFLAGS)
EMU_THRUST = -I$(CUDA_HOME)/targets/x86_64-linux/include/cccl -DTHRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_CPP
EMU_RTFLAGS = $(if $(findstring thread,$(SANITIZER)),-DALC_EMU_TSAN=1,$(SANFLAGS))
EMU_LDLIBS = -lyaml -lz -lm -lpthread $(CHOLMOD_LIBS) $(if $(filter 1,$(OPENMP)),-fopenmp) $(SANFLAGS) -Wl,--sort-section=name

EMU_LIB_OBJS = $(LIB_CSRC:%.c=$(EMU)/obj/%.o) $(LIB_CUSRC:%.cu=$(EMU)/obj/%.o) $(EMU_SRC:%.cpp=$(EMU)/obj/%.o)
EMU_TOOL_OBJS = $(TOOL_SRC:%.c=$(EMU)/obj/%.o)
EMU_GPUT_OBJS = $(GPUT_SRC:%.c=$(EMU)/obj/%.o) $(EMUT_CUSRC:%.cu=$(EMU)/obj/%.o) \
                $(EMU)/obj/tests/main_gpu.o $(EMU)/obj/tests/scene_run.o
EMU_SELF_OBJS = $(EMU_SRC:%.cpp=$(EMU)/obj/%.o) $(EMU)/obj/cuda/alcg_stream.o $(EMU)/obj/cuda/arena.o \
                $(EMUT_CUSRC:%.cu=$(EMU)/obj/%.o) $(EMU)/obj/tests/main.o
EMU_SELF   = $(EMU)/alcove_emu_selftest
EMU_LIB    = $(EMU)/libalcove_emu.a
EMU_ALCOVE = $(EMU)/alcove
EMU_TESTS  = $(EMU)/alcove_gpu_tests

DEPS = $(LIB_OBJS:.o=.d) $(SHARED_OBJS:.o=.d) $(PLUGIN_OBJS:.o=.d) $(TOOL_OBJS:.o=.d) $(TEST_OBJS:.o=.d) $(GPUT_OBJS:.o=.d) \
       $(BUILD)/obj/examples/hello.d $(BUILD)/obj/examples/grasp.d $(EMU_LIB_OBJS:.o=.d) $(EMU_TOOL_OBJS:.o=.d) $(EMU_GPUT_OBJS:.o=.d)

.PHONY: all deps test gpu-test emu emu-test emu-selftest emu-bench bench asan ubsan tsan memcheck format format-check echo clean install
all: deps $(STATIC_LIB) $(SHARED_LIB) $(CUDA_PLUGIN) $(ALCOVE) $(EXAMPLES)

# the Debian packages the build needs; tools/bootstrap.sh installs them
deps:
	@for h in yaml.h zlib.h; do \
	  echo "#include <$$h>" | $(CC) -E -x c - >/dev/null 2>&1 || \
	  { echo "missing $$h: run tools/bootstrap.sh (installs libyaml-dev zlib1g-dev)"; exit 1; }; \
	done
	@if [ "$(CHOLMOD)" != "1" ]; then \
	  echo "note: no CHOLMOD (libsuitesparse-dev): linear_solver direct/auto will be refused"; fi
	@if [ "$(CUDA)" = "1" ] && [ ! -x "$(NVCC)" ]; then \
	  echo "nvcc not found at $(NVCC): set CUDA_HOME, or build without CUDA: make CUDA=0"; exit 1; fi

# ---- rules ---------------------------------------------------------------------------------
$(BUILD)/obj/%.o: %.c Makefile
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/obj/%.o: %.cu Makefile
	@mkdir -p $(dir $@)
	$(NVCC) $(NVFLAGS) -c $< -o $@

$(STATIC_LIB): $(LIB_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

$(SHARED_LIB): $(SHARED_OBJS)
	$(CC) -shared -o $@ $^ $(HOST_LDLIBS) -ldl

$(CUDA_PLUGIN): $(PLUGIN_OBJS)
	$(CXX) -shared -Wl,-Bsymbolic -o $@ $^ $(CUDA_LDLIBS) -lm

$(ALCOVE): $(TOOL_OBJS) $(STATIC_LIB)
	$(LINK) -o $@ $(TOOL_OBJS) $(STATIC_LIB) $(LDLIBS)

# the examples use only the public header and link the shared library
$(BUILD)/obj/examples/%.o: examples/%.c Makefile
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(OPT) $(CWARN) $(DEPFLAGS) $(SANFLAGS) -Iinclude -c $< -o $@
$(EXAMPLES): $(BUILD)/%: $(BUILD)/obj/examples/%.o $(SHARED_LIB) $(CUDA_PLUGIN)
	$(CC) -o $@ $< -L$(BUILD) -Wl,-rpath,'$$ORIGIN' -lalcove -lm $(SANFLAGS)

$(TESTS): $(TEST_OBJS) $(STATIC_LIB)
	$(LINK) -o $@ $(TEST_OBJS) $(STATIC_LIB) $(LDLIBS)

# the GPU runner: the same harness, waiving everything without a device
$(BUILD)/obj/tests/main_gpu.o: tests/main.c Makefile
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -DALC_GPU_TESTS -Itests -c $< -o $@

$(GPU_TESTS): $(GPUT_OBJS) $(STATIC_LIB)
	$(LINK) -o $@ $(GPUT_OBJS) $(STATIC_LIB) $(LDLIBS)

# emulated build: host C as for a CUDA build, kernels and the emulation as C++
$(EMU)/obj/%.o: %.c Makefile
	@mkdir -p $(dir $@)
	$(CC) $(EMU_CFLAGS) -c $< -o $@

# the shim needs no emulation: Thrust's sequential (CPP) system on host memory; the toolkit's
# own headers that CCCL pulls in would clash with the emulation's types, so it is not included.
# UBSan: Thrust binds references through null system pointers on purpose (reference.h)
$(EMU)/obj/cuda/thrust_shim.o: cuda/thrust_shim.cu Makefile
	@mkdir -p $(dir $@)
	$(CXX) -std=c++17 $(OPT) -g -fPIC -Wall -Wextra $(DEPFLAGS) $(INCLUDES) -Icuda $(EMU_DEFS) \
	  $(if $(filter 1,$(WERROR)),-Werror) -x c++ $(EMU_THRUST) $(SANFLAGS) \
	  $(if $(findstring undefined,$(SANITIZER)),-fno-sanitize=null) -c $< -o $@

$(EMU)/obj/%.o: %.cu Makefile
	@mkdir -p $(dir $@)
	$(CXX) $(EMU_CXXFLAGS) $(EMU_KFLAGS) -c $< -o $@

$(EMU)/obj/emu/%.o: emu/%.cpp Makefile
	@mkdir -p $(dir $@)
	$(CXX) $(EMU_CXXFLAGS) $(EMU_RTFLAGS) -c $< -o $@

$(EMU)/obj/tests/main_gpu.o: tests/main.c Makefile
	@mkdir -p $(dir $@)
	$(CC) $(EMU_CFLAGS) -DALC_GPU_TESTS -Itests -c $< -o $@

$(EMU_LIB): $(EMU_LIB_OBJS)
	rm -f $@
	ar rcs $@ $^

$(EMU_ALCOVE): $(EMU_TOOL_OBJS) $(EMU_LIB)
	$(CXX) -o $@ $(EMU_TOOL_OBJS) $(EMU_LIB) $(EMU_LDLIBS)

$(EMU_TESTS): $(EMU_GPUT_OBJS) $(EMU_LIB)
	$(CXX) -o $@ $(EMU_GPUT_OBJS) $(EMU_LIB) $(EMU_LDLIBS)

# the emulation's self-tests alone (planted bugs), small enough to build under each sanitizer
$(EMU_SELF): $(EMU_SELF_OBJS)
	$(CXX) -o $@ $(EMU_SELF_OBJS) $(EMU_LDLIBS)
emu-selftest: $(EMU_SELF)

# the emulation's own speed on this machine (tools/emu_bench.cu)
$(EMU)/emu_bench: $(EMU)/obj/tools/emu_bench.o $(EMU_SRC:%.cpp=$(EMU)/obj/%.o) $(EMU)/obj/cuda/alcg_stream.o $(EMU)/obj/cuda/arena.o
	$(CXX) -o $@ $^ $(EMU_LDLIBS)
emu-bench: $(EMU)/emu_bench
	$(abspath $<)

# build/emu/alcove (its cuda backend in the emulation) and the emulated GPU tests; no nvcc needed
emu: deps $(EMU_ALCOVE) $(EMU_TESTS)

# the GPU tests against the emulated kernels
emu-test: emu
	ALC_BUILD=$(BUILD) $(abspath $(EMU_TESTS)) $(FILTER)

# ---- fuzzing (tests/fuzz/): libFuzzer targets for every reader of untrusted input -----------
# The library is rebuilt with clang, instrumented for coverage (fuzzer-no-link), ASan and UBSan,
# without CUDA or OpenMP; one target per reader. `make test` runs each over its seed corpus and
# 20,000 inputs from a fixed seed (when clang with libFuzzer is there); `make fuzz` for
# FUZZ_TIME seconds each from a random seed.
FUZZ_CC      ?= clang
FUZZ_TIME    ?= 15
FUZZ         = $(BUILD)/fuzz
FUZZ_READERS = scene msh tetgen obj state topology
FUZZ_BINS    = $(foreach r,$(FUZZ_READERS),$(FUZZ)/fuzz_$(r))
HAVE_FUZZ    = $(shell printf 'int LLVMFuzzerTestOneInput(const char*d,unsigned long n){return 0;}' | \
                 $(FUZZ_CC) -fsanitize=fuzzer -x c - -o /dev/null 2>/dev/null && echo 1)

.PHONY: fuzz fuzz-build fuzz-lib
fuzz-lib:
	$(MAKE) --no-print-directory BUILD=$(FUZZ)/lib CC=$(FUZZ_CC) CUDA=0 OPENMP=0 NVTX=0 CHOLMOD=0 \
	  SANITIZER=address,undefined,fuzzer-no-link $(FUZZ)/lib/libalcove.a

$(FUZZ)/fuzz_%: tests/fuzz/fuzz_readers.c fuzz-lib
	$(FUZZ_CC) -std=c11 -O1 -g -Iinclude -Ihost -D_GNU_SOURCE \
	  -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	  -DALC_FUZZ_READER=$(words $(shell echo " $(FUZZ_READERS) " | sed 's/ $* .*//') x) \
	  $< $(FUZZ)/lib/libalcove.a -lyaml -lz -lm -o $@

fuzz-build: $(FUZZ_BINS)

# the random-scene stress test at scale (tests/test_stress.c; make test runs 24 scenes):
# make stress STRESS_COUNT=2000 [STRESS_FIRST=1]
STRESS_COUNT ?= 2000
STRESS_FIRST ?= 1
.PHONY: stress
stress: $(TESTS)
	ALC_STRESS_COUNT=$(STRESS_COUNT) ALC_STRESS_FIRST=$(STRESS_FIRST) $(abspath $(TESTS)) \
	  stress_randomScenes

# longer runs: make fuzz FUZZ_TIME=600
fuzz: fuzz-build all
	FUZZ_DIR=$(FUZZ) ALCOVE=$(abspath $(ALCOVE)) tests/fuzz/run_fuzz.sh $(FUZZ_TIME)

# ---- targets -------------------------------------------------------------------------------
# the CPU suite, then the GPU tests in the emulation; one closing line for both
# (and the emulation's self-tests under AddressSanitizer and ThreadSanitizer, where the planted
# out-of-bounds write and shared-memory race must be reported)
SAN_SELF = $(BUILD)/san-address/emu/alcove_emu_selftest $(BUILD)/san-thread/emu/alcove_emu_selftest
# the emulated build needs the toolkit's Thrust headers (CCCL); without them only the CPU suite runs
HAVE_CCCL = $(wildcard $(CUDA_HOME)/targets/x86_64-linux/include/cccl/thrust/sort.h)
# `make test` as CI and the README call it (no -j) builds with one job per core: a plain make
# would compile the CUDA, emulated and sanitizer builds one file at a time
NPROC := $(shell nproc 2>/dev/null || echo 1)
.PHONY: test-run
test:
	@case " $(MAKEFLAGS)" in \
	  *" -j"*) $(MAKE) --no-print-directory test-run ;; \
	  *) $(MAKE) --no-print-directory -j$(NPROC) test-run ;; \
	esac
ifneq ($(HAVE_CCCL),)
test-run: all $(TESTS) emu $(if $(HAVE_FUZZ),fuzz-build)
	$(MAKE) --no-print-directory BUILD=$(BUILD)/san-address SANITIZER=address emu-selftest
	$(MAKE) --no-print-directory BUILD=$(BUILD)/san-thread SANITIZER=thread emu-selftest
	@ALC_BUILD=$(BUILD) FUZZ_DIR=$(FUZZ) FUZZ_TIME=$(FUZZ_TIME) ALCOVE=$(abspath $(ALCOVE)) \
	  tests/run_suites.sh $(abspath $(TESTS)) $(abspath $(EMU_TESTS)) \
	  $(abspath $(SAN_SELF)) $(abspath tests/fuzz/run_fuzz.sh) -- $(FILTER)
else
test-run: all $(TESTS) $(if $(HAVE_FUZZ),fuzz-build)
	@echo "note: no Thrust headers under $(CUDA_HOME) (CUDA toolkit): the emulated GPU tests are not built"
	@ALC_BUILD=$(BUILD) FUZZ_DIR=$(FUZZ) FUZZ_TIME=$(FUZZ_TIME) ALCOVE=$(abspath $(ALCOVE)) \
	  tests/run_suites.sh $(abspath $(TESTS)) $(abspath tests/fuzz/run_fuzz.sh) -- $(FILTER)
endif

# GPU runner exits 2 (cuda-samples EXIT_WAIVED) when no device is present
gpu-test: all $(GPU_TESTS)
	@ALC_BUILD=$(BUILD) $(abspath $(GPU_TESTS)) $(FILTER); rc=$$?; \
	 if [ $$rc -eq 2 ]; then echo "gpu-test: waived (no CUDA device)"; exit 0; fi; exit $$rc

# the benchmark table on this machine; BENCHFLAGS="--record bench/results" commits a record
bench: all
	$(abspath $(ALCOVE)) bench --table $(BENCHFLAGS)
ifneq ($(IPC_DIR),)
	tools/ipc-examples.sh $(IPC_DIR) --small --alcove $(ALCOVE) --out $(BUILD)/ipc-examples
else
	@echo "bench: the IPC paper's small examples skipped (set IPC_DIR to a checkout of ipc-sim/IPC)"
endif

# the CPU suite and the emulated kernels (GPU tests in the emulation) under the sanitizers
asan:
	$(MAKE) CUDA=0 BUILD=build/asan SANITIZER=address,undefined test

ubsan:
	$(MAKE) CUDA=0 BUILD=build/ubsan SANITIZER=undefined test

tsan:
	$(MAKE) CUDA=0 BUILD=build/tsan SANITIZER=thread OPENMP=0 test

memcheck: all $(GPU_TESTS)
	ALC_CUDA_ARENA=0 $(CUDA_HOME)/bin/compute-sanitizer --tool memcheck $(abspath $(GPU_TESTS)) $(FILTER)

FORMAT_SRC = $(shell find include host cuda emu tools tests examples -name '*.[ch]' -o -name '*.cu' -o -name '*.cuh' -o -name '*.cpp' 2>/dev/null)
format:
	clang-format -i $(FORMAT_SRC)

format-check:
	clang-format --dry-run --Werror $(FORMAT_SRC)

echo:
	@echo "CC=$(CC) CFLAGS=$(CFLAGS)"
	@echo "NVCC=$(NVCC) NVFLAGS=$(NVFLAGS)"
	@echo "LDLIBS=$(LDLIBS)"
	@echo "CUDA=$(CUDA) CUDA_ARCHS=$(CUDA_ARCHS) CUDA_PTX=$(CUDA_PTX) CHOLMOD=$(CHOLMOD)"

# ---- install: headers, libraries, the program and a pkg-config file -------------------------
PREFIX  ?= /usr/local
VERSION := $(shell sed -n 's/^\#define ALC_VERSION_\(MAJOR\|MINOR\|PATCH\) //p' host/version.c | paste -sd.)

# the pkg-config file is written for the PREFIX of each install
install: all
	@printf '%s\n' 'prefix=$(PREFIX)' 'libdir=$${prefix}/lib' 'includedir=$${prefix}/include' '' \
	  'Name: alcove' \
	  'Description: penetration-free elastodynamics with frictional contact (barrier-free augmented Lagrangian)' \
	  'Version: $(VERSION)' 'Cflags: -I$${includedir}' \
	  'Libs: -L$${libdir} -Wl,-rpath,$${libdir} -lalcove' \
	  'Libs.private: $(LDLIBS)' > $(BUILD)/alcove.pc
	install -d $(DESTDIR)$(PREFIX)/include/alc $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/bin
	install -m 644 include/alc/*.h $(DESTDIR)$(PREFIX)/include/alc/
	install -m 644 $(STATIC_LIB) $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(SHARED_LIB) $(CUDA_PLUGIN) $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(ALCOVE) $(DESTDIR)$(PREFIX)/bin/
	install -m 644 $(BUILD)/alcove.pc $(DESTDIR)$(PREFIX)/lib/pkgconfig/

clean:
	rm -rf $(BUILD)

-include $(DEPS)
