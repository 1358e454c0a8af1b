# tracer - one Makefile for the whole tree.
#
#   make            build everything into build/
#   make test       install what is missing, build, run every test (as root)
#   make demo       install, build, run the demo pipeline under tracer
#   make bench      overhead and accuracy benchmarks (docs/benchmarks.md)
#   make asan       the same binaries with ASan+UBSan, into build-asan/
#   make install    DESTDIR/PREFIX install (used by rpm/tracer.spec)
#
# Sources are found by folder: lib/*.c -> libtracer, bpf/*.bpf.c -> BPF
# objects and skeletons, daemon/*.c -> tracerd, daemon/cli/*.c -> tracer,
# wrapper/*.c -> tracer-wrap, spank/*.c -> spank_tracer.so,
# tests/unit/test_*.c -> one CUnit binary each.

BUILD   ?= build
CC      ?= gcc
CLANG   ?= clang
BPFTOOL ?= bpftool
PREFIX  ?= /usr
SYSCONFDIR ?= /etc
SLURM_PLUGIN_DIR ?= $(shell pkg-config --variable=libdir slurm 2>/dev/null || echo /usr/lib/x86_64-linux-gnu)/slurm

ARCH := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/' -e 's/ppc64le/powerpc/')

WARN    := -Wall -Wextra -Werror -Wno-unused-parameter -Wno-format-truncation
CFLAGS  ?= -O2 -g
CFLAGS  += -std=gnu11 $(WARN) -fPIC -D_GNU_SOURCE -Ilib -I$(BUILD) -Ibpf
LDLIBS  := -lcjson -lhwloc -lm -ldl
ifeq ($(SAN),1)
CFLAGS  += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDFLAGS += -fsanitize=address,undefined
endif

LIB_SRCS     := $(wildcard lib/*.c)
LIB_OBJS     := $(LIB_SRCS:%.c=$(BUILD)/%.o)
BPF_SRCS     := $(wildcard bpf/*.bpf.c)
BPF_SKELS    := $(BPF_SRCS:bpf/%.bpf.c=$(BUILD)/%.skel.h)
TRACERD_OBJS := $(patsubst %.c,$(BUILD)/%.o,$(wildcard daemon/*.c))
CLI_OBJS     := $(patsubst %.c,$(BUILD)/%.o,$(wildcard daemon/cli/*.c))
WRAP_OBJS    := $(patsubst %.c,$(BUILD)/%.o,$(wildcard wrapper/*.c))
SPANK_OBJS   := $(patsubst %.c,$(BUILD)/%.o,$(wildcard spank/*.c))
UNIT_SRCS    := $(wildcard tests/unit/test_*.c)
UNIT_BINS    := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
HELPER_BINS  := $(patsubst tests/helpers/%.c,$(BUILD)/tests/helpers/%,$(wildcard tests/helpers/*.c))

BINS := $(BUILD)/tracerd $(BUILD)/tracer $(BUILD)/tracer-wrap $(BUILD)/spank_tracer.so
ifeq ($(SAN),1)
# slurmstepd cannot load a plugin that needs the sanitizer runtime
BINS := $(filter-out %.so,$(BINS))
endif

.PHONY: rpm all deps test unit integration slurm-test wrapper-test asan asan-test demo bench install clean check-deps cppcheck valgrind
all: $(BINS) $(UNIT_BINS) $(HELPER_BINS) $(BUILD)/tests/bpf/test_bpf

deps:
	./scripts/install-deps.sh

# ---- BPF: vmlinux.h from the running kernel's BTF, then CO-RE objects ----
$(BUILD)/vmlinux.h:
	@mkdir -p $(@D)
	$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > $@.tmp && mv $@.tmp $@

$(BUILD)/%.bpf.o: bpf/%.bpf.c bpf/*.h $(BUILD)/vmlinux.h
	@mkdir -p $(@D)
	$(CLANG) -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -Wall -Werror \
		-I$(BUILD) -Ibpf -c $< -o $@

$(BUILD)/%.skel.h: $(BUILD)/%.bpf.o
	$(BPFTOOL) gen skeleton $< > $@.tmp && mv $@.tmp $@

# ---- user space ----
$(BUILD)/%.o: %.c $(wildcard lib/*.h) $(wildcard bpf/*.h) $(wildcard daemon/*.h) $(wildcard wrapper/*.h) | $(BPF_SKELS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/libtracer.a: $(LIB_OBJS)
	ar rcs $@ $^

$(BUILD)/tracerd: $(TRACERD_OBJS) $(BUILD)/libtracer.a
	$(CC) $(LDFLAGS) -o $@ $^ -lbpf -lelf -lz $(LDLIBS)

$(BUILD)/tracer: $(CLI_OBJS) $(BUILD)/libtracer.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# --as-needed: libcurl is loaded at run time only when used (start-up cost)
$(BUILD)/tracer-wrap: $(WRAP_OBJS) $(BUILD)/libtracer.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# The plugin is loaded into slurmstepd: no sanitizer runtime in it.
# --exclude-libs: only the slurm_spank_* entry points are exported, so
# libtracer's names never clash with Slurm's or another plugin's.
$(BUILD)/spank_tracer.so: $(SPANK_OBJS) $(BUILD)/libtracer.a
	$(CC) -shared -Wl,--exclude-libs,ALL -o $@ $^ -lcjson

$(BUILD)/tests/%: tests/unit/%.c tests/unit/unit.h $(BUILD)/libtracer.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(filter-out %.h,$^) -lcunit $(LDLIBS)

# tests of wrapper/ code: every wrapper object but the one with main()
$(BUILD)/tests/test_wrapper_%: tests/unit/test_wrapper_%.c tests/unit/unit.h $(filter-out %/main.o,$(WRAP_OBJS)) $(BUILD)/libtracer.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Iwrapper $(LDFLAGS) -o $@ $(filter-out %.h,$^) -lcunit $(LDLIBS)

# Test workloads: static, unsanitized, so their counted bytes and CPU are
# their own (no loader reads, no sanitizer runtime).
$(BUILD)/tests/helpers/%: tests/helpers/%.c
	@mkdir -p $(@D)
	$(CC) -O2 -g -Wall -Wextra -Werror -static -o $@ $<

# BPF programs + loader on the running kernel (root): make bpf-test.
BPF_TEST_BIN := $(BUILD)/tests/bpf/test_bpf
$(BUILD)/daemon/bpf_loader.o: $(BPF_SKELS)
$(BPF_TEST_BIN): $(wildcard tests/bpf/*.c tests/bpf/*.h) $(BUILD)/daemon/bpf_loader.o $(BUILD)/libtracer.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Idaemon $(LDFLAGS) -o $@ $(filter-out %.h,$^) -lbpf -lelf -lz -lcjson -lcunit -lpthread
.PHONY: bpf-test
bpf-test: $(BPF_TEST_BIN)
	$(BPF_TEST_BIN)

# ---- tests ----
# Every suite runs; make test fails if any failed.
test: deps
	$(MAKE) all
	$(MAKE) asan
	./tests/run-all.sh

unit: all
	./tests/run-unit.sh $(BUILD)

integration: all
	./tests/integration/run.sh $(BUILD)

asan:
	$(MAKE) BUILD=build-asan SAN=1 all

slurm-test: all
	./tests/slurm/run.sh $(BUILD)

wrapper-test: all
	./tests/wrapper/run.sh $(BUILD)

asan-test: asan
	./tests/run-unit.sh build-asan

demo: deps
	$(MAKE) all
	./contrib/demo/run-demo.sh $(BUILD)

bench: deps
	$(MAKE) all
	./bench/run.sh $(BUILD)

rpm:
	./rpm/build.sh $(BUILD)/rpm

cppcheck:
	cppcheck --quiet --error-exitcode=1 --enable=warning,portability \
		--suppress=missingIncludeSystem --suppress=unknownMacro -Ilib lib daemon wrapper spank

install: all
	install -D -m 0755 $(BUILD)/tracerd $(DESTDIR)$(PREFIX)/sbin/tracerd
	install -D -m 0755 $(BUILD)/tracer $(DESTDIR)$(PREFIX)/bin/tracer
	install -D -m 0755 $(BUILD)/tracer-wrap $(DESTDIR)$(PREFIX)/bin/tracer-wrap
	install -D -m 0755 $(BUILD)/spank_tracer.so $(DESTDIR)$(SLURM_PLUGIN_DIR)/spank_tracer.so
	install -D -m 0644 contrib/tracer.conf $(DESTDIR)$(SYSCONFDIR)/tracer/tracer.conf
	install -D -m 0644 contrib/rules/tools.rules $(DESTDIR)$(SYSCONFDIR)/tracer/tools.rules
	install -D -m 0644 contrib/systemd/tracerd.service $(DESTDIR)$(PREFIX)/lib/systemd/system/tracerd.service

clean:
	rm -rf build build-asan
