# wheelscan - plain Makefile. Targets: all test run install fuzz fixtures bench clean.
PREFIX  ?= /usr/local
DESTDIR ?=
CC      ?= cc
O       ?= build

# Install the -dev packages on first use, so `make run` and `make test` work on a fresh machine.
DEPS_OK := $(shell scripts/install-deps >&2 && echo ok)
ifneq ($(DEPS_OK),ok)
$(error cannot install build dependencies: run scripts/install-deps as root)
endif

PKGS      := libzip libelf zlib liblz4 libzstd libcrypto libseccomp
HAVE_ISAL := $(shell pkg-config --exists libisal && echo 1)
ifeq ($(HAVE_ISAL),1)
PKGS      += libisal
CPPFLAGS  += -DWS_HAVE_ISAL=1
endif

WARN      := -Wall -Wextra -Wshadow -Wformat=2 -Wvla -Wstrict-prototypes -Wmissing-prototypes \
             -Wno-unused-parameter
CFLAGS    ?= -O2 -g
CFLAGS    += -std=c11 $(WARN) -pthread
CPPFLAGS  += -D_GNU_SOURCE -Iinclude $(shell pkg-config --cflags $(PKGS))
LDLIBS    += $(shell pkg-config --libs $(PKGS)) -ldl -pthread
ifdef SANITIZE
CFLAGS    += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
LDFLAGS   += -fsanitize=$(SANITIZE)
endif

LIB_SRC   := $(filter-out src/main.c,$(wildcard src/*.c))
LIB_OBJ   := $(LIB_SRC:src/%.c=$(O)/%.o)
TEST_SRC  := $(wildcard src/test/test_*.c)
TEST_BIN  := $(TEST_SRC:src/test/%.c=$(O)/%) $(O)/test_decode_small_window

all: wheelscan

# The binary is built inside $(O) and copied to ./wheelscan for the default build only.
wheelscan: $(O)/wheelscan
	$(if $(filter build,$(O)),cp $< $@,@:)

$(O)/wheelscan: $(O)/main.o $(O)/libws.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(O)/libws.a: $(LIB_OBJ)
	rm -f $@ && ar rcs $@ $^

$(O)/%.o: src/%.c | $(O)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c -o $@ $<

$(O)/test_%: src/test/test_%.c $(O)/libws.a src/test/tap.h
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -Isrc/test -o $@ $< $(O)/libws.a $(LDLIBS)

# The decoder tests again with a 4 KiB read window and stream chunk, so that the fixtures
# reach the compaction, growth and chunk-boundary paths (the real sizes are 1 MiB), and a
# 4 KiB cubin prefix and stream threshold send the fixtures' compressed entries through the
# streamed PTX and cubin readers, down to the second-pass path.
SMALL_SRC := src/window.c src/payload.c src/ptx.c src/cubin_stream.c src/inspect.c
$(O)/test_decode_small_window: src/test/test_decode.c $(SMALL_SRC) $(O)/libws.a src/test/tap.h
	$(CC) $(CPPFLAGS) -DWS_WINDOW_READ=4096 -DWS_WINDOW_HISTORY=1024 -DWS_STREAM_CHUNK=4096 -DWS_CUBIN_PREFIX=4096 -DWS_STREAM_MIN=4096 \
	  $(CFLAGS) $(LDFLAGS) -Isrc/test -o $@ src/test/test_decode.c $(SMALL_SRC) $(O)/libws.a $(LDLIBS)

$(O):
	mkdir -p $@

-include $(wildcard $(O)/*.d)

# The example the README promises: scan a bundled wheel as a user would, with no flags
# (this machine's GPU when a driver finds one, else a coverage map), then for two named GPUs.
run: wheelscan
	./wheelscan testdata/fixtures/wscan_example-0.1.0+cu124-cp311-cp311-manylinux_2_28_x86_64.whl || test $$? -le 1
	./wheelscan --gpu "RTX 5090,H100" testdata/fixtures/example.whl || test $$? -le 1

# make test: the whole suite, then the whole suite again on an ASan+UBSan build.
test: check
	$(MAKE) --no-print-directory O=build-san SANITIZE=address,undefined check

check: wheelscan $(TEST_BIN)
	WS_BUILD=$(O) WS_BIN=$(CURDIR)/$(O)/wheelscan src/test/run-all

# The programs `make check` runs, built without running them (scripts/mutate builds first so
# that a mutant that does not compile is told apart from one a test catches).
tests-built: wheelscan $(TEST_BIN)

# make mutate: every mutation in scripts/mutations.txt against `make check` (slow; not in make test)
mutate:
	scripts/mutate

install: wheelscan
	install -Dm755 wheelscan $(DESTDIR)$(PREFIX)/bin/wheelscan
	install -Dm644 man/wheelscan.1 $(DESTDIR)$(PREFIX)/share/man/man1/wheelscan.1

fuzz:
	src/fuzz/run-fuzz $(FUZZ_SECONDS)

fixtures:
	scripts/gen-testdata

bench: wheelscan
	scripts/bench

clean:
	rm -rf build build-san build-fuzz wheelscan

.PHONY: all run test check tests-built mutate install fuzz fixtures bench clean
