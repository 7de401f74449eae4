/* version.c - --version, and with -v the build a bug report needs: the libraries linked
 * (as each reports itself at run time, the header's version beside where they differ),
 * ISA-L on or off, the sandbox's parts on this kernel, and the commit built from. */
#include <archive.h>
#include <elfutils/version.h>
#include <libelf.h>
#include <lz4.h>
#include <openssl/crypto.h>
#include <seccomp.h>
#include <sqlite3.h>
#include <stdio.h>
#include <zip.h>
#include <zlib.h>
#include <zstd.h>
#ifdef WS_HAVE_ISAL
#include <isa-l.h>
#endif

#include "ws_cli.h"
#include "ws_sandbox.h"

/* WS_COMMIT, written by the Makefile from git; a build of its own (src/fuzz/run-fuzz) has none */
#if defined(__has_include)
#if __has_include("commit.h")
#endif
#endif
#ifndef WS_COMMIT
#define WS_COMMIT ""
#endif

void ws_version_print(FILE *f, bool verbose)
{
	fprintf(f, "wheelscan %s\n", WS_VERSION);
	if (!verbose)
		return;
	fprintf(f, "commit: %s\n", WS_COMMIT[0] ? WS_COMMIT : "unknown (not built from a git checkout)");
	const struct scmp_version *sv = seccomp_version();
	fprintf(f, "libraries:\n");
	fprintf(f, "  libzip %s\n", zip_libzip_version());
	fprintf(f, "  libelf (elfutils) %d.%03d\n", _ELFUTILS_VERSION / 1000, _ELFUTILS_VERSION % 1000);
	fprintf(f, "  zlib %s\n", zlibVersion());
	fprintf(f, "  lz4 %s\n", LZ4_versionString());
	fprintf(f, "  zstd %s\n", ZSTD_versionString());
	fprintf(f, "  %s\n", OpenSSL_version(OPENSSL_VERSION));
	fprintf(f, "  libseccomp %u.%u.%u\n", sv ? sv->major : 0, sv ? sv->minor : 0, sv ? sv->micro : 0);
	fprintf(f, "  %s\n", archive_version_string());
	fprintf(f, "  sqlite %s\n", sqlite3_libversion());
#ifdef WS_HAVE_ISAL
	fprintf(f, "ISA-L: on (inflate through ISA-L %d.%d.%d)\n", ISAL_MAJOR_VERSION, ISAL_MINOR_VERSION,
		ISAL_PATCH_VERSION);
#else
	fprintf(f, "ISA-L: off (inflate through zlib)\n");
#endif
	struct ws_sandbox_status sb;
	char line[512];
	ws_sandbox_probe(&sb);
	ws_sandbox_describe(&sb, line, sizeof line, "\n  ");
	fprintf(f, "sandbox on this kernel:\n  %s\n", line);
}
