# wheelscan - plain Makefile. Targets: all deps deps-test deps-wheel fetch-corpus test check check-fast test-loads tsan run install wheel windows test-windows wheel-windows fuzz fixtures bench bench-costs clean.
PREFIX  ?= /usr/local
DESTDIR ?=
CC      ?= cc
O       ?= build

# Only the deps targets install packages: `make deps` and `make deps-test` (apt, through
# scripts/install-deps), `make deps-windows` and `make deps-wheel`; what comes from PyPI goes
# into a venv of its own per purpose (scripts/py-venv). `make run` does the first, `make test`
# the second, `make windows` and `make wheel` theirs, and then run make again, so a fresh
# machine needs nothing else; every other target just reports what is missing.
PKGS      := libzip libelf zlib liblz4 libzstd libcrypto libseccomp libarchive sqlite3
PKG_CONFIG ?= pkg-config
# WS_OS=win32: the Windows build of scripts/build-windows (`make windows`), cross-compiled with
# MinGW-w64 against the libraries that script builds. No libcrypto (src/core/sha256.c does the
# hashing), no libseccomp (Windows has no such filter: src/win/sandbox.c), no ISA-L.
ifeq ($(WS_OS),win32)
PKGS      := libzip libelf zlib liblz4 libzstd libarchive sqlite3
PKG_CONFIG := pkg-config --static
endif
DEPS_MISSING := $(shell $(PKG_CONFIG) --exists $(PKGS) 2>/dev/null || echo 1)
HAVE_ISAL := $(if $(filter win32,$(WS_OS)),,$(shell $(PKG_CONFIG) --exists libisal 2>/dev/null && echo 1))
ifeq ($(HAVE_ISAL),1)
PKGS      += libisal
CPPFLAGS  += -DWS_HAVE_ISAL=1
endif

WARN      := -Werror=implicit-function-declaration -Wall -Wextra -Wshadow -Wformat=2 -Wvla -Wstrict-prototypes -Wmissing-prototypes \
             -Wno-unused-parameter
CFLAGS    ?= -O2 -g
CFLAGS    += -std=c11 $(WARN) -pthread
CPPFLAGS  += -D_GNU_SOURCE -Iinclude $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
LDLIBS    += $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null) -ldl -pthread
ifdef SANITIZE
CFLAGS    += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
LDFLAGS   += -fsanitize=$(SANITIZE)
endif
ifeq ($(SANITIZE),thread)
CPPFLAGS  += -DWS_DECODE_INLINE_MAX=0   # every entry payload a task: ThreadSanitizer sees them all
endif

# src/core: the model, the rules and every decoder, from bytes in memory to verdicts. It
# opens no file, prints nothing and starts or locks no thread (src/test/layers.sh checks
# the objects). src/: what sits around it, the sources, the pool, the sandbox, the live
# check, the store and the writers, and main.c, the program. Objects are flat in $(O).
# include/ is the core's interface; the headers of src/ sit beside their files. The core is
# compiled with -Iinclude only, so none of its files can include a header of src/.
CORE_SRC  := $(sort $(wildcard src/core/*.c))
CORE      := $(basename $(notdir $(CORE_SRC)))
CORE_OBJ  := $(CORE:%=$(O)/%.o)
LIB_SRC   := $(filter-out src/main.c,$(wildcard src/*.c)) $(CORE_SRC)
# The platform's files: what has another implementation on Windows lives in src/win/ under
# the same header (src/win/README); everything else is the same file on both.
POSIX_ONLY := src/os_posix.c src/version.c src/sandbox.c src/landlock.c src/escape.c src/filemap.c src/live_proc_posix.c
ifeq ($(WS_OS),win32)
LIB_SRC   := $(filter-out $(POSIX_ONLY),$(LIB_SRC)) $(wildcard src/win/*.c)
CPPFLAGS  += -Isrc/win/include -include src/win/posix.h -D__USE_MINGW_ANSI_STDIO=1 -D_WIN32_WINNT=0x0601 -D_FILE_OFFSET_BITS=64
# the project's format(printf) attributes mean Microsoft's printf to MinGW, which has no %zu;
# the program prints through MinGW's own (C99) printf, which has
CFLAGS    += -Wno-format
LDFLAGS   += -static -municode
LDLIBS    := $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null) -lbcrypt -lshlwapi -pthread
endif
LIB_OBJ   := $(patsubst %.c,$(O)/%.o,$(notdir $(LIB_SRC))) $(O)/builds_table.o
TEST_SRC  := $(wildcard src/test/test_*.c)
TEST_BIN  := $(TEST_SRC:src/test/%.c=$(O)/%) $(O)/test_decode_small_window $(O)/escape_probe.so \
             $(O)/write_fault.so

all: wheelscan

# The binary is built inside $(O) and copied to ./wheelscan for the default build only.
wheelscan: $(O)/wheelscan
	$(if $(filter build,$(O)),cp $< $@,@:)

$(O)/wheelscan: $(O)/main.o $(O)/libws.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# Windows: main.c's main is called by src/win/wmain.c's wmain, with the arguments in UTF-8.
$(O)/wheelscan.exe: $(O)/main.o $(O)/libws.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
$(O)/main.o: CPPFLAGS += $(if $(filter win32,$(WS_OS)),-Dmain=ws_main_utf8)

$(O)/libws.a: $(LIB_OBJ)
	rm -f $@ && ar rcs $@ $^

# The core alone: what the fuzz targets of the decoders link (src/test/fuzz_replay.sh).
$(O)/libws-core.a: $(CORE_OBJ)
	rm -f $@ && ar rcs $@ $^

$(O)/%.o: src/%.c | $(O)
	$(if $(DEPS_MISSING),$(error build dependencies are missing ($(PKGS)): run 'make deps'))
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c -o $@ $<

$(O)/%.o: src/win/%.c | $(O)
	$(CC) $(CPPFLAGS) -Isrc $(CFLAGS) -MMD -MP -c -o $@ $<

$(O)/%.o: src/core/%.c | $(O)
	$(if $(DEPS_MISSING),$(error build dependencies are missing ($(PKGS)): run 'make deps'))
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c -o $@ $<

$(O)/test_%: src/test/test_%.c $(O)/libws.a src/test/tap.h
	$(CC) $(CPPFLAGS) -Isrc $(CFLAGS) $(LDFLAGS) -Isrc/test -o $@ $< $(O)/libws.a $(LDLIBS)

# The decoder tests again with a 4 KiB read window and stream chunk, so that the fixtures
# reach the compaction, growth and chunk-boundary paths (the real sizes are 1 MiB), and a
# 4 KiB cubin prefix and stream threshold send the fixtures' compressed entries through the
# streamed PTX and cubin readers, down to the second-pass path.
SMALL_SRC := src/core/window.c src/core/payload.c src/core/ptx.c src/core/cubin_stream.c src/core/inspect.c
$(O)/test_decode_small_window: src/test/test_decode.c $(SMALL_SRC) $(O)/libws.a src/test/tap.h
	$(CC) $(CPPFLAGS) -Isrc -DWS_WINDOW_READ=4096 -DWS_WINDOW_HISTORY=1024 -DWS_STREAM_CHUNK=4096 -DWS_CUBIN_PREFIX=4096 -DWS_STREAM_MIN=4096 \
	  $(CFLAGS) $(LDFLAGS) -Isrc/test -o $@ src/test/test_decode.c $(SMALL_SRC) $(O)/libws.a $(LDLIBS)

# The compromised decoder of src/test/sandbox_escape.sh (LD_PRELOAD), with the escapes of
# src/escape.c. Not sanitized: the sanitizer runtime is preloaded before it.
$(O)/escape_probe.so: src/test/escape_probe.c src/escape.c src/errname.c src/ws_escape.h | $(O)
	$(CC) $(CPPFLAGS) -Isrc -O2 -g -std=c11 $(WARN) -fPIC -shared -o $@ src/test/escape_probe.c src/escape.c src/errname.c -ldl

# Write errors that happen once (src/test/write_faults.sh, LD_PRELOAD). Not sanitized, as above.
$(O)/write_fault.so: src/test/write_fault.c | $(O)
	$(CC) $(CPPFLAGS) -Isrc -O2 -g -std=c11 $(WARN) -fPIC -shared -o $@ $< -ldl

# The build table the binary carries (share/builds.tsv; doc/builds.md), as a C array.
$(O)/builds_table.c: share/builds.tsv scripts/embed-table | $(O)
	scripts/embed-table share/builds.tsv > $@.tmp && mv $@.tmp $@

$(O)/builds_table.o: $(O)/builds_table.c
	$(CC) $(CFLAGS) -c -o $@ $<

$(O):
	mkdir -p $@

# The commit --version -v names: rewritten only when it changes, so version.o alone follows it.
WS_COMMIT_ID := $(shell git rev-parse --short=12 HEAD 2>/dev/null)
WS_COMMIT := $(if $(WS_COMMIT_ID),$(WS_COMMIT_ID)$(shell git diff --quiet HEAD -- 2>/dev/null || echo -dirty))
$(O)/commit.h: FORCE | $(O)
	@printf '#define WS_COMMIT "%s"\n' '$(WS_COMMIT)' > $@.tmp; cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@
$(O)/version.o $(O)/version_win.o: $(O)/commit.h
$(O)/version.o $(O)/version_win.o: CPPFLAGS += -I$(O)
FORCE:

-include $(wildcard $(O)/*.d)

# The example the README promises: scan a bundled wheel as a user would, with no flags
# (this machine's GPU when a driver finds one, else a coverage map), then for two named GPUs.
run: deps
	$(MAKE) --no-print-directory example

example: wheelscan
	./wheelscan testdata/fixtures/wscan_example-0.1.0+cu124-cp311-cp311-manylinux_2_28_x86_64.whl || test $$? -le 1
	./wheelscan --gpu "RTX 5090,H100" testdata/fixtures/example.whl || test $$? -le 1

# make test: the test tools and the pinned corpus first (deps-test, fetch-corpus), then the
# whole suite, the whole suite again on an ASan+UBSan build, the task pool under
# ThreadSanitizer, and the wheel of `make wheel` installed into a throw-away venv and run on
# the example. .ci/run is `make run` and `make test`, nothing more.
test: deps-test fetch-corpus
	$(MAKE) --no-print-directory check
	$(MAKE) --no-print-directory O=build-san SANITIZE=address,undefined check
	$(MAKE) --no-print-directory tsan

# make test-wheel: the manylinux wheel `make wheel` cross-builds, checked as users get it (its
# glibc needs, size, licences, auditwheel, man). Not part of make test: a cold build fetches and
# compiles twelve libraries from Debian's sources (about 10 minutes on two idle cores).
test-wheel: wheel
	PATH="$(WHEEL_PATH)" WS_WHEEL=$$(ls -t dist/wheelscan-$(VERSION)-py3-none-manylinux_*_x86_64.whl | head -n 1) sh src/test/wheel.sh

# make verify-table: share/builds.tsv checked against PyPI (the release, platform tag and
# Requires-Dist of every PyPI row, torch's version.py), the corpus wheels' bytes and the
# recorded citations of declared rows (scripts/verify-table; doc/builds.md). Not part of make
# test: it needs PyPI. Exit 1 names each row it would drop or correct.
verify-table: $(O)/wheelscan
	WHEELSCAN=$(O)/wheelscan scripts/build-table --verify --table share/builds.tsv --bytes corpus

# The load oracle on all 41 real environments (src/test/loadres_real.sh with every pinned
# wheel of scripts/fetch-load-wheels: about 4.9 GB more than the corpus, 20 minutes of two
# cores); make test runs the environments of the corpus and onnxruntime-gpu 1.20.2 only.
test-loads: deps-test fetch-corpus wheelscan
	WS_LOAD_ALL=1 WS_BUILD=$(O) WS_BIN=$(CURDIR)/$(O)/wheelscan sh src/test/loadres_real.sh

# The task pool and every kind of task under ThreadSanitizer (needs clang: the test tools
# of scripts/install-deps; without it this says so and fails, it does not pass quietly).
tsan:
	@command -v clang >/dev/null || { echo "tsan: clang is missing (make deps-test)"; exit 1; }
	$(MAKE) --no-print-directory O=build-tsan SANITIZE=thread CC=clang build-tsan/wheelscan build-tsan/test_pool
	WS_TSAN_BUILD=build-tsan sh src/test/tsan-scan

# make windows: build/win/wheelscan.exe, one static file for 64-bit Windows, cross-built with
# MinGW-w64 against Debian's sources of the libraries (scripts/build-windows; they are cached
# in ~/.cache/wheelscan/windows-*). make test-windows runs it under Wine (src/test/windows/windows.sh),
# the cmd.exe round trip of the command renderer (src/test/windows/cmd_roundtrip.sh) and the
# pip guard with a stand-in python.exe (src/test/windows/guard_wine.sh) and the load
# resolution against Wine's LoadLibraryExW (src/test/windows/loads_wine.sh); each script
# runs even when the one before failed.
windows: deps-windows
	scripts/build-windows

# the cross toolchain (MinGW-w64, cmake, tcl, dpkg-dev), and Wine for the tests
deps-windows:
	WS_WITH_WINDOWS_TOOLS=$(if $(filter test-windows,$(MAKECMDGOALS)),test,1) scripts/install-deps

test-windows: deps-windows wheel-windows wheelscan $(O)/test_command
	rc=0; \
	WS_WIN_WHEEL=dist/wheelscan-$(VERSION)-py3-none-win_amd64.whl sh src/test/windows/windows.sh || rc=1; \
	WS_BUILD=$(O) sh src/test/windows/cmd_roundtrip.sh || rc=1; \
	sh src/test/windows/guard_wine.sh || rc=1; \
	sh src/test/windows/loads_wine.sh || rc=1; \
	exit $$rc

# make wheel-windows: dist/wheelscan-VERSION-py3-none-win_amd64.whl, whose wheelscan.exe pip
# installs into the environment's Scripts folder (scripts/build-wheel-windows).
wheel-windows: windows
	rm -f dist/wheelscan-$(VERSION)-py3-none-win_amd64.whl && \
	scripts/build-wheel-windows --licenses $$(scripts/build-windows deps)/licenses build/win/wheelscan.exe $(VERSION) dist

# make wheel: dist/wheelscan-VERSION-py3-none-manylinux_2_28_x86_64.whl, for `pip install` /
# `pipx install` on any glibc 2.28+ system. The binary is cross-built in build-manylinux with zig cc against glibc 2.28 and
# linked statically with libraries rebuilt from Debian's source packages the same way
# (scripts/build-linux-deps, cached in ~/.cache/wheelscan-deps). It installs what it needs
# (make deps-wheel): the build tools from apt, ziglang and auditwheel into a venv.
# The binary is relinked every time: a rebuilt library is not among its make prerequisites.
VERSION := $(shell sed -n 's/^\#define WS_VERSION "\(.*\)"/\1/p' src/ws_cli.h)
WHEEL_GLIBC ?= 2.28
wheel: deps-wheel
	deps=$$(PATH="$(WHEEL_PATH)" WS_GLIBC=$(WHEEL_GLIBC) scripts/build-linux-deps) && \
	rm -f build-manylinux/wheelscan && \
	PKG_CONFIG_LIBDIR=$$deps/lib/pkgconfig $(MAKE) --no-print-directory O=build-manylinux CC=$$deps/bin/cc \
	  PKG_CONFIG="pkg-config --static" build-manylinux/wheelscan && \
	rm -f dist/wheelscan-$(VERSION)-*.whl && \
	scripts/build-wheel --licenses $$deps/licenses --glibc $(WHEEL_GLIBC) build-manylinux/wheelscan $(VERSION) dist

deps:
	scripts/install-deps

# what make wheel and make test-wheel need: the C build packages (make deps), the tools of
# scripts/build-linux-deps and build-wheel (apt), and ziglang and auditwheel (a venv)
deps-wheel: deps
	WS_WITH_WHEEL_TOOLS=1 scripts/install-deps
	scripts/py-venv venv-wheel scripts/requirements-wheel.txt >/dev/null

# what `make test` needs beyond the build: clang (tsan), valgrind, patchelf (wheel),
# python3-venv, -pip, unzip, man-db... (apt), and the venv of scripts/requirements-test.txt
# (a jsonschema with referencing, which Debian 12's lacks), which make check and check-fast
# put first on PATH when it is there, so that the tests' python3 is its; and the pinned pip
# that src/test/resolve.sh runs the printed commands through (scripts/requirements-resolve.txt)
deps-test:
	WS_WITH_TEST_TOOLS=1 scripts/install-deps
	scripts/py-venv venv-test scripts/requirements-test.txt >/dev/null
	scripts/py-venv venv-resolve scripts/requirements-resolve.txt >/dev/null

# The venvs of scripts/py-venv (PyPI's packages, pinned by sha256), under the user's cache
PY_VENVS   := $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/wheelscan-deps
TEST_PATH   = $(if $(wildcard $(PY_VENVS)/venv-test/bin/python3),$(PY_VENVS)/venv-test/bin:)$(PATH)
WHEEL_PATH  = $(PY_VENVS)/venv-wheel/bin:$(PATH)

# The real wheels of corpus.sh, sha256-pinned, torch 2.5.1 included (about 1.1 GB, fetched
# once into corpus/, checked against the pins on every run). Without network their checks
# say they were skipped (run-all lists them); under CI=true such a skip fails the run.
# (after deps-test: the fetch runs python3 and curl, which a fresh machine gets from it; under
# make -j2 the two ran side by side and every download failed with "python3: command not found")
fetch-corpus: deps-test
	scripts/fetch-corpus --big || echo "make test: could not fetch the pinned corpus (no network?): its checks will say they were skipped"

check: wheelscan $(TEST_BIN) $(O)/libws-core.a
	PATH="$(TEST_PATH)" WS_BUILD=$(O) WS_BIN=$(CURDIR)/$(O)/wheelscan WS_CORE_OBJ="$(CORE_OBJ)" src/test/run-all

# make check-fast: the unit tests, the golden CLI cases, the layer rules and the byte facts
# of doc/fatbin-format.md, in seconds (src/test/README says how to run one test alone).
FAST_TESTS := unit golden layers doc_facts
check-fast: wheelscan $(TEST_BIN) $(O)/libws-core.a
	PATH="$(TEST_PATH)" WS_BUILD=$(O) WS_BIN=$(CURDIR)/$(O)/wheelscan WS_CORE_OBJ="$(CORE_OBJ)" WS_TESTS="$(FAST_TESTS)" src/test/run-all

# The programs `make check` runs, built without running them (scripts/mutate builds first so
# that a mutant that does not compile is told apart from one a test catches).
tests-built: wheelscan $(TEST_BIN) $(O)/libws-core.a

# The core's objects by name, for scripts that build it their own way (src/fuzz/run-fuzz).
print-core:
	@echo $(CORE)

# make mutate: every mutation in src/test/mutation/mutations.txt against `make check` (slow; not in make test)
mutate:
	scripts/mutate

install: wheelscan
	install -Dm755 wheelscan $(DESTDIR)$(PREFIX)/bin/wheelscan
	install -Dm644 man/wheelscan.1 $(DESTDIR)$(PREFIX)/share/man/man1/wheelscan.1
	install -Dm644 man/wheelscan.schema.json $(DESTDIR)$(PREFIX)/share/doc/wheelscan/wheelscan.schema.json
	# the completions, written by the binary from its option table
	mkdir -p $(DESTDIR)$(PREFIX)/share/bash-completion/completions $(DESTDIR)$(PREFIX)/share/zsh/site-functions \
	  $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
	./wheelscan --completion bash > $(DESTDIR)$(PREFIX)/share/bash-completion/completions/wheelscan
	./wheelscan --completion zsh > $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_wheelscan
	./wheelscan --completion fish > $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/wheelscan.fish

fuzz:
	src/fuzz/run-fuzz $(FUZZ_SECONDS)

fixtures:
	scripts/gen-testdata

bench: wheelscan
	scripts/bench

bench-costs: wheelscan
	scripts/bench-costs

clean:
	rm -rf build build-san build-tsan build-fuzz wheelscan dist

.PHONY: test-loads deps-windows deps-wheel test-wheel verify-table all deps deps-test fetch-corpus run example test check check-fast tests-built print-core tsan mutate install wheel windows test-windows wheel-windows fuzz fixtures bench bench-costs clean
