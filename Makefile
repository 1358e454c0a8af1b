# tracer - one Makefile for the whole tree.
#
#   make              build the binaries, unit tests, test helpers and the
#                     BPF test into $(BUILD) (default build/); needs no root
#   make check        build and run the unit tests (tests/run-unit.sh),
#                     the dry-run check of scripts/install-deps.sh
#                     (tests/deps/run.sh) and make cppcheck; installs
#                     nothing, needs no root except test_cgroup's memory
#                     cgroup case (it creates a cgroup); `make unit` is
#                     the same
#   make test         install what is missing (make test-deps), build (on
#                     every CPU unless -j says otherwise), run every test
#                     suite (tests/run-all.sh; as root, on the real
#                     kernel), which builds the ASan and TSan builds
#                     beside the first suites
#   make bpf-test     the BPF programs and loader on the running kernel (root)
#   make integration  tracerd on the real kernel (root)
#   make slurm-test   the SPANK plugin in a one-node Slurm cluster (root)
#   make wrapper-test tracer-wrap as PID 1 (root)
#   make asan         the same binaries with ASan+UBSan, into $(ASAN_BUILD)
#                     (default build-asan/); make asan-test runs its unit tests
#   make tsan         the binaries, the daemon's kernel tests and the test
#                     helpers with ThreadSanitizer, into $(TSAN_BUILD)
#                     (default build-tsan/): make test runs those tests
#                     and the delivery and configuration suites on it
#   make demo         install what the demo needs (make demo-deps: the build
#                     packages, python3, bwa, samtools), build tracerd and
#                     tracer (on every CPU unless -j says), run the demo
#                     pipeline, print its report and write
#                     $(BUILD)/demo-report.html
#   make bench        overhead and accuracy benchmarks (docs/benchmarks.md)
#   make bench-peers  tracer against the collectors sites run today (Slurm
#                     accounting, Snakemake benchmark:, /proc sampling,
#                     process-exporter, pidstat, process accounting) on the
#                     same pipeline: fidelity and cost (bench/peers.sh;
#                     installs their Debian packages: install-deps.sh bench)
#   make install      install the five binaries, the configuration, the
#                     man pages and the datalake's schema migrations
#                     under DESTDIR/PREFIX; builds only what it
#                     installs (used by rpm/tracer.spec); an edited
#                     /etc/tracer file is kept, the new default put
#                     beside it as FILE.new
#   make rpm          the tracer and tracer-slurm RPMs (rpm/build.sh)
#   make deps         install the missing Debian packages the build needs
#                     (scripts/install-deps.sh build); make test and bench
#                     also install what they run (... test), make demo
#                     what it runs (... demo)
#   make cppcheck     static analysis of the C sources
#   make clean        remove $(BUILD), $(ASAN_BUILD) and $(TSAN_BUILD)
#
# Sources are found by folder: lib/*.c -> libtracer, bpf/*.bpf.c -> BPF
# objects and skeletons, daemon/*.c -> tracerd, daemon/cli/*.c -> tracer,
# wrapper/*.c -> tracer-wrap, spank/*.c -> spank_tracer.so, mail/*.c ->
# tracer-mail (Slurm's MailProg),
# tests/unit/test_*.c -> one CUnit binary each (`make check`: no root),
# linked with libtracer; tests/unit/test_wrapper_*.c also with the
# wrapper's objects (all but wrapper/main.o).  tests/kernel/test_*.c ->
# tests on the real kernel that need root (run by `make test`);
# tests/kernel/test_daemon_*.c also with the daemon's objects (all but
# daemon/tracerd.o, which holds main).  tests/helpers/nvml_double.c ->
# libnvml_double.so, the NVML test double tracerd opens in tests/gpu.
# bench/switch_floor.bpf.c + bench/switch_floor.c -> bench/switch_floor,
# bench/switch.sh's timer (static: bench/device_run.sh runs it where only
# the built tree is).
#
# Variables: CFLAGS (default -O2 -g), CPPFLAGS, LDFLAGS and LDLIBS are the
# user's and are added to the flags the build needs, so `make CFLAGS=-O0`
# still builds with every warning an error.  SAN=1 adds ASan+UBSan,
# SAN=thread ThreadSanitizer.
# ARCH (default: uname -m) selects bpf/vmlinux/<arch>/vmlinux.h.
# Header dependencies come from the compiler (-MMD -MP: one .d per object).

BUILD      ?= build
ASAN_BUILD ?= build-asan
TSAN_BUILD ?= build-tsan
CLANG      ?= clang
BPFTOOL    ?= bpftool
LLVM_STRIP ?= llvm-strip
PREFIX     ?= /usr
SYSCONFDIR ?= /etc
MANDIR     ?= $(PREFIX)/share/man
DATADIR    ?= $(PREFIX)/share
# Slurm's PluginDir: from slurm.pc where Slurm ships one (RHEL-like:
# /usr/lib64/slurm), else Debian's and Ubuntu's
SLURM_PLUGIN_DIR ?= $(shell pkg-config --exists slurm 2>/dev/null && \
	echo $$(pkg-config --variable=libdir slurm)/slurm || echo /usr/lib/x86_64-linux-gnu/slurm-wlm)
UNITDIR    ?= $(PREFIX)/lib/systemd/system
# make's built-in default is cc
ifeq ($(origin CC),default)
CC := gcc
endif

# ---- target architecture ----
# x86_64 only: the BPF programs rely on x86's total store order (see
# "Atomics" in bpf/compat.h), and bpf/vmlinux/ holds x86 types only.  A
# port to a weakly ordered architecture needs fetch atomics first, then its
# own bpf/vmlinux/<arch>/vmlinux.h.
ifndef ARCH
ARCH := $(shell uname -m)
endif
BPF_ARCH_x86_64 := x86
BPF_ARCH_x86    := x86
BPF_ARCH := $(BPF_ARCH_$(ARCH))
BUILDING := $(filter-out clean deps test-deps demo-deps,$(or $(MAKECMDGOALS),all))
ifeq ($(BPF_ARCH),)
ifneq ($(BUILDING),)
$(error ARCH=$(ARCH) is not supported: tracer builds for x86_64 only (ARCH=x86_64 or x86), because its BPF programs rely on x86 memory ordering (bpf/compat.h) and bpf/vmlinux/ has x86 types only)
endif
endif
VMLINUX_DIR := bpf/vmlinux/$(BPF_ARCH)

# ---- flags: what the build needs, then the user's ----
CFLAGS   ?= -O2 -g
WARN     := -Wall -Wextra -Werror -Wno-unused-parameter -Wno-format-truncation
DEPFLAGS  = -MMD -MP
TR_CPPFLAGS = -D_GNU_SOURCE -Ilib -I$(BUILD) -Ibpf
TR_CFLAGS   = -std=gnu11 -fPIC $(WARN)
# libcurl is not linked: lib/lazycurl.c opens it on first use (start-up cost)
LIBS     := -lcjson -lhwloc -lm -ldl -lz  # zlib: gzip of the HTTP sink, CRC of spool records
BPF_LIBS := -lbpf -lelf -lz
# tracerd's /metrics endpoint (daemon/metrics_http.c)
DAEMON_LIBS := -lmicrohttpd -lpthread
ifeq ($(SAN),1)
SAN_CFLAGS  := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
SAN_LDFLAGS := -fsanitize=address,undefined
endif
ifeq ($(SAN),thread)
SAN_CFLAGS  := -fsanitize=thread -fno-omit-frame-pointer
SAN_LDFLAGS := -fsanitize=thread
endif
COMPILE = $(CC) $(EXTRA_INC) $(TR_CPPFLAGS) $(CPPFLAGS) $(TR_CFLAGS) $(SAN_CFLAGS) $(CFLAGS) $(DEPFLAGS)
LINK    = $(CC) $(SAN_LDFLAGS) $(LDFLAGS)

# ---- sources and products ----
LIB_OBJS     := $(patsubst %.c,$(BUILD)/%.o,$(wildcard lib/*.c))
BPF_SRCS     := $(wildcard bpf/*.bpf.c)
BPF_OBJS     := $(BPF_SRCS:bpf/%.bpf.c=$(BUILD)/%.bpf.o)
BPF_SKELS    := $(BPF_SRCS:bpf/%.bpf.c=$(BUILD)/%.skel.h)
TRACERD_OBJS := $(patsubst %.c,$(BUILD)/%.o,$(wildcard daemon/*.c))
CLI_OBJS     := $(patsubst %.c,$(BUILD)/%.o,$(wildcard daemon/cli/*.c))
WRAP_OBJS    := $(patsubst %.c,$(BUILD)/%.o,$(wildcard wrapper/*.c))
MAIL_OBJS    := $(patsubst %.c,$(BUILD)/%.o,$(wildcard mail/*.c))
SPANK_OBJS   := $(patsubst %.c,$(BUILD)/%.o,$(wildcard spank/*.c))
UNIT_SRCS    := $(wildcard tests/unit/test_*.c)
UNIT_OBJS    := $(UNIT_SRCS:%.c=$(BUILD)/%.o)
UNIT_BINS    := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
UNIT_WRAP_BINS   := $(filter $(BUILD)/tests/test_wrapper_%,$(UNIT_BINS))
UNIT_LIB_BINS    := $(filter-out $(UNIT_WRAP_BINS),$(UNIT_BINS))
# tests on the real kernel that need root (not part of `make check`)
KERNEL_SRCS  := $(wildcard tests/kernel/test_*.c)
KERNEL_OBJS  := $(KERNEL_SRCS:%.c=$(BUILD)/%.o)
KERNEL_BINS  := $(KERNEL_SRCS:%.c=$(BUILD)/%)
KERNEL_DAEMON_BINS := $(filter $(BUILD)/tests/kernel/test_daemon_%,$(KERNEL_BINS))
KERNEL_LIB_BINS    := $(filter-out $(KERNEL_DAEMON_BINS),$(KERNEL_BINS))
HELPER_BINS  := $(patsubst tests/helpers/%.c,$(BUILD)/tests/helpers/%,$(filter-out tests/helpers/nvml_double.c,$(wildcard tests/helpers/*.c)))
# the NVML test double, a shared library tracerd opens instead of the driver's
NVML_DOUBLE  := $(BUILD)/tests/helpers/libnvml_double.so
BPF_TEST_OBJS := $(patsubst %.c,$(BUILD)/%.o,$(wildcard tests/bpf/*.c))
# bench/switch.sh's timer with the empty sched_switch program embedded
BENCH_BINS   := $(BUILD)/bench/switch_floor
BPF_TEST_BIN := $(BUILD)/tests/bpf/test_bpf

# The archives (and so every product, which links libtracer.a) also depend
# on the list of sources, rewritten only when it changes: a removed source
# must not live on in an archive or binary built before its removal.
SRC_LIST := $(BUILD)/sources.list
SRCS := $(sort $(wildcard lib/*.c bpf/*.bpf.c daemon/*.c daemon/cli/*.c wrapper/*.c spank/*.c mail/*.c))
ifneq ($(BUILDING),)
$(shell mkdir -p $(BUILD) && { echo '$(SRCS)' | cmp -s - $(SRC_LIST) || echo '$(SRCS)' > $(SRC_LIST); })
endif

INSTALL_BINS := $(BUILD)/tracerd $(BUILD)/tracer $(BUILD)/tracer-wrap $(BUILD)/spank_tracer.so \
	$(BUILD)/tracer-mail
BINS := $(INSTALL_BINS)
ifneq ($(SAN),)
# slurmstepd cannot load a plugin that needs the sanitizer runtime
BINS := $(filter-out %.so,$(BINS))
endif

.PHONY: all check unit deps test-deps demo-deps test test-builds integration slurm-test wrapper-test asan asan-test tsan tsan-bins \
	bpf-test demo bench bench-deps bench-peers rpm install clean cppcheck fuzz
.DELETE_ON_ERROR:

all: $(BINS) $(UNIT_BINS) $(KERNEL_BINS) $(HELPER_BINS) $(NVML_DOUBLE) $(BPF_TEST_BIN) $(BENCH_BINS)

deps:
	./scripts/install-deps.sh build

test-deps:
	./scripts/install-deps.sh test

demo-deps:
	./scripts/install-deps.sh demo

# ---- BPF: CO-RE objects against the checked-in vmlinux.h ----
# DWARF is stripped before the skeleton embeds the object (BTF stays: CO-RE
# needs it).
$(BPF_OBJS): $(BUILD)/%.bpf.o: bpf/%.bpf.c
	@mkdir -p $(@D)
	$(CLANG) -g -O2 -target bpf -D__TARGET_ARCH_$(BPF_ARCH) -Wall -Werror \
		-I$(VMLINUX_DIR) -Ibpf $(DEPFLAGS) -c $< -o $@
	$(LLVM_STRIP) -g $@

$(BPF_SKELS): $(BUILD)/%.skel.h: $(BUILD)/%.bpf.o
	$(BPFTOOL) gen skeleton $< > $@.tmp && mv $@.tmp $@

# ---- user space ----
$(BUILD)/%.o: %.c
	@mkdir -p $(@D)
	$(COMPILE) -c $< -o $@

# Objects that may include a generated skeleton wait for it on a clean
# build; once built, their .d files name the skeleton as a real dependency.
$(TRACERD_OBJS) $(BPF_TEST_OBJS) $(filter $(BUILD)/tests/kernel/test_daemon_%,$(KERNEL_OBJS)): | $(BPF_SKELS)

# Tests see the headers of the code they test.
$(BUILD)/tests/bpf/%.o $(BUILD)/tests/kernel/test_daemon_%.o: private EXTRA_INC := -Idaemon
$(BUILD)/tests/unit/test_wrapper_%.o: private EXTRA_INC := -Iwrapper

# (after make clean in the same run)
$(SRC_LIST):
	@mkdir -p $(@D)
	echo '$(SRCS)' > $@

$(BUILD)/libtracer.a: $(LIB_OBJS) $(SRC_LIST)
	rm -f $@
	ar rcs $@ $(filter %.o,$^)

$(BUILD)/tracerd: $(TRACERD_OBJS) $(BUILD)/libtracer.a
	$(LINK) -o $@ $^ $(BPF_LIBS) $(DAEMON_LIBS) $(LIBS) $(LDLIBS)

$(BUILD)/tracer: $(CLI_OBJS) $(BUILD)/libtracer.a
	$(LINK) -o $@ $^ $(LIBS) $(LDLIBS)

$(BUILD)/tracer-wrap: $(WRAP_OBJS) $(BUILD)/libtracer.a
	$(LINK) -Wl,--as-needed -o $@ $^ $(LIBS) $(LDLIBS)

$(BUILD)/tracer-mail: $(MAIL_OBJS) $(BUILD)/libtracer.a
	$(LINK) -Wl,--as-needed -o $@ $^ $(LIBS) $(LDLIBS)

# The plugin is loaded into slurmstepd: no sanitizer runtime in it.
# --exclude-libs: only the slurm_spank_* entry points are exported, so
# libtracer's names never clash with Slurm's or another plugin's.
$(BUILD)/spank_tracer.so: $(SPANK_OBJS) $(BUILD)/libtracer.a
	$(CC) $(LDFLAGS) -shared -Wl,--exclude-libs,ALL -o $@ $^ -lcjson -lm $(LDLIBS)

# ---- unit tests ----
# The daemon's and the wrapper's objects, all but the one holding main, as
# archives: a test pulls in what it uses (and what that uses).
$(BUILD)/daemon/daemon.a: $(filter-out $(BUILD)/daemon/tracerd.o,$(TRACERD_OBJS)) $(SRC_LIST)
	rm -f $@
	ar rcs $@ $(filter %.o,$^)

$(BUILD)/wrapper/wrapper.a: $(filter-out $(BUILD)/wrapper/main.o,$(WRAP_OBJS)) $(SRC_LIST)
	rm -f $@
	ar rcs $@ $(filter %.o,$^)

$(UNIT_LIB_BINS): $(BUILD)/tests/%: $(BUILD)/tests/unit/%.o $(BUILD)/libtracer.a
	$(LINK) -o $@ $^ -lcunit $(LIBS) $(LDLIBS)

$(KERNEL_DAEMON_BINS): $(BUILD)/tests/kernel/%: $(BUILD)/tests/kernel/%.o $(BUILD)/daemon/daemon.a $(BUILD)/libtracer.a
	$(LINK) -o $@ $^ -lcunit $(BPF_LIBS) $(DAEMON_LIBS) $(LIBS) $(LDLIBS)

$(UNIT_WRAP_BINS): $(BUILD)/tests/%: $(BUILD)/tests/unit/%.o $(BUILD)/wrapper/wrapper.a $(BUILD)/libtracer.a
	$(LINK) -o $@ $^ -lcunit $(LIBS) $(LDLIBS)

$(KERNEL_LIB_BINS): $(BUILD)/tests/kernel/%: $(BUILD)/tests/kernel/%.o $(BUILD)/libtracer.a
	$(LINK) -o $@ $^ -lcunit $(LIBS) $(LDLIBS)

# Test workloads: static, unsanitized, so their counted bytes and CPU are
# their own (no loader reads, no sanitizer runtime).  System headers only.
$(BUILD)/tests/helpers/%: tests/helpers/%.c
	@mkdir -p $(@D)
	$(CC) -O2 -g -Wall -Wextra -Werror -static -o $@ $<

# ---- bench: the empty sched_switch program and its loader ----
# Static and unsanitized like the helpers, so bench/device_run.sh runs it
# on a machine that has only the built tree (libbpf, libelf, zlib inside).
$(BUILD)/bench/switch_floor.bpf.o: bench/switch_floor.bpf.c
	@mkdir -p $(@D)
	$(CLANG) -g -O2 -target bpf -D__TARGET_ARCH_$(BPF_ARCH) -Wall -Werror \
		-I$(VMLINUX_DIR) -c $< -o $@
	$(LLVM_STRIP) -g $@

$(BUILD)/bench/switch_floor.skel.h: $(BUILD)/bench/switch_floor.bpf.o
	$(BPFTOOL) gen skeleton $< > $@.tmp && mv $@.tmp $@

$(BUILD)/bench/switch_floor: bench/switch_floor.c $(BUILD)/bench/switch_floor.skel.h
	$(CC) -O2 -g -Wall -Wextra -Werror -I$(BUILD)/bench -static -o $@ $< -lbpf -lelf -lz

# Unsanitized too: it is loaded into tracerd, sanitized or not (dlopen).
$(NVML_DOUBLE): tests/helpers/nvml_double.c lib/nvml_abi.h
	@mkdir -p $(@D)
	$(CC) -O2 -g -Wall -Wextra -Werror -Ilib -shared -fPIC -o $@ $<

# BPF programs + loader on the running kernel (root): make bpf-test.
$(BPF_TEST_BIN): $(BPF_TEST_OBJS) $(BUILD)/daemon/bpf_loader.o $(BUILD)/daemon/netio_attach.o $(BUILD)/daemon/bpf_pins.o \
		$(BUILD)/daemon/bpf_setup.o $(BUILD)/libtracer.a
	$(LINK) -o $@ $^ $(BPF_LIBS) -lcjson -lcunit -lpthread $(LDLIBS)

bpf-test: $(BPF_TEST_BIN)
	$(BPF_TEST_BIN)

ALL_OBJS := $(LIB_OBJS) $(BPF_OBJS) $(TRACERD_OBJS) $(CLI_OBJS) $(WRAP_OBJS) $(MAIL_OBJS) \
	$(SPANK_OBJS) $(UNIT_OBJS) $(KERNEL_OBJS) $(BPF_TEST_OBJS)
-include $(wildcard $(ALL_OBJS:.o=.d))

# ---- tests ----
# Every suite runs; make test fails if any failed.
# make test builds build/, then runs the suites: tests/run-all.sh builds
# the ASan and TSan builds beside the first suites, which need build/
# alone.  `make test` alone (.ci/run) builds on every CPU, `make -jN test`
# with N jobs.  `make test-builds` builds all three at once.
TEST_JOBS = $(or $(filter -j%,$(MAKEFLAGS)),-j$(shell nproc))
test: test-deps
	$(MAKE) $(if $(filter -j%,$(MAKEFLAGS)),,$(TEST_JOBS)) all
	TEST_BUILD_JOBS=$(TEST_JOBS) ./tests/run-all.sh

test-builds: all asan tsan

check: $(UNIT_BINS) $(HELPER_BINS)
	./tests/run-unit.sh $(BUILD)
	./tests/deps/run.sh
	$(MAKE) cppcheck

unit: check

integration: all
	./tests/integration/run.sh $(BUILD)

asan:
	$(MAKE) BUILD=$(ASAN_BUILD) SAN=1 all

slurm-test: all
	./tests/slurm/run.sh $(BUILD)

wrapper-test: all
	./tests/wrapper/run.sh $(BUILD)

# only what make test runs on it: the daemon's kernel tests and the
# suites' binaries and helpers (a TSan build is slow)
tsan:
	$(MAKE) BUILD=$(TSAN_BUILD) SAN=thread tsan-bins

tsan-bins: $(BINS) $(KERNEL_DAEMON_BINS) $(HELPER_BINS)

asan-test: asan
	./tests/run-unit.sh $(ASAN_BUILD)

# only what the demo runs (tracerd and tracer), on every CPU unless -j
# says otherwise: a newcomer's first command should not build the tests
demo: demo-deps
	$(MAKE) $(if $(findstring jobserver,$(MAKEFLAGS)),,-j$$(nproc)) $(BUILD)/tracerd $(BUILD)/tracer
	./contrib/demo/run-demo.sh $(BUILD)

bench: test-deps
	$(MAKE) all
	./bench/run.sh $(BUILD)

bench-deps:
	./scripts/install-deps.sh bench

bench-peers: bench-deps
	$(MAKE) all
	./bench/run.sh $(BUILD) peers

rpm:
	./rpm/build.sh $(BUILD)/rpm

# libFuzzer targets of every parser of outside input (tests/fuzz/run.sh;
# FUZZ_SECONDS in all, default 60), built with clang into build-fuzz/
fuzz:
	./tests/fuzz/run.sh $(or $(FUZZ_SECONDS),60)

# a few seconds: part of make check
cppcheck:
	@command -v cppcheck >/dev/null || { echo "FAIL: cppcheck is not installed (make deps)"; exit 1; }
	cppcheck -j2 --quiet --error-exitcode=1 --enable=warning,portability \
		--suppress=missingIncludeSystem --suppress=unknownMacro -Ilib lib daemon wrapper spank mail

# Only what is installed: the test binaries need glibc-static (helpers),
# which an RPM build root does not have.
install: $(INSTALL_BINS)
	install -D -m 0755 $(BUILD)/tracerd $(DESTDIR)$(PREFIX)/sbin/tracerd
	install -D -m 0755 $(BUILD)/tracer $(DESTDIR)$(PREFIX)/bin/tracer
	install -D -m 0755 $(BUILD)/tracer-wrap $(DESTDIR)$(PREFIX)/bin/tracer-wrap
	install -D -m 0755 $(BUILD)/tracer-mail $(DESTDIR)$(PREFIX)/bin/tracer-mail
	install -D -m 0755 $(BUILD)/spank_tracer.so $(DESTDIR)$(SLURM_PLUGIN_DIR)/spank_tracer.so
	# an edited configuration is kept: the new default goes beside it (.new)
	sh scripts/install-config.sh contrib/tracer.conf $(DESTDIR)$(SYSCONFDIR)/tracer/tracer.conf
	sh scripts/install-config.sh contrib/rules/tools.rules $(DESTDIR)$(SYSCONFDIR)/tracer/tools.rules
	install -D -m 0644 contrib/systemd/tracerd.service $(DESTDIR)$(UNITDIR)/tracerd.service
	install -D -m 0644 contrib/systemd/tracerd-reader.service $(DESTDIR)$(UNITDIR)/tracerd-reader.service
	for p in man/*.[1-8]; do \
		install -D -m 0644 $$p $(DESTDIR)$(MANDIR)/man$${p##*.}/$${p##*/} || exit 1; \
	done
	# `tracer datalake migrate` reads them here (lib/defaults.h)
	for p in contrib/clickhouse/migrations/*.sql; do \
		install -D -m 0644 $$p $(DESTDIR)$(DATADIR)/tracer/clickhouse/migrations/$${p##*/} || exit 1; \
	done

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(TSAN_BUILD) build-fuzz
