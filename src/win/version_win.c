/* version_win.c - --version, and with -v the build (src/version.c's report, Windows' parts):
 * the libraries linked as each reports itself, the hashes (CNG), no ISA-L, no sandbox. */
#include <archive.h>
#include <elfutils/version.h>
#include <lz4.h>
#include <sqlite3.h>
#include <stdio.h>
#include <zip.h>
#include <zlib.h>
#include <zstd.h>

#include "ws_cli.h"
#include "ws_sandbox.h"

#if defined(__has_include)
#if __has_include("commit.h")
#include "commit.h"
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
	fprintf(f, "platform: Windows (x86_64, MinGW-w64)\n");
	fprintf(f, "libraries:\n");
	fprintf(f, "  libzip %s\n", zip_libzip_version());
	fprintf(f, "  libelf (elfutils) %d.%03d\n", _ELFUTILS_VERSION / 1000, _ELFUTILS_VERSION % 1000);
	fprintf(f, "  zlib %s\n", zlibVersion());
	fprintf(f, "  lz4 %s\n", LZ4_versionString());
	fprintf(f, "  zstd %s\n", ZSTD_versionString());
	fprintf(f, "  digests: Windows CNG (bcrypt.dll)\n");
	fprintf(f, "  %s\n", archive_version_string());
	fprintf(f, "  sqlite %s\n", sqlite3_libversion());
	fprintf(f, "ISA-L: off (inflate through zlib)\n");
	struct ws_sandbox_status sb;
	char line[512];
	ws_sandbox_probe(&sb);
	ws_sandbox_describe(&sb, line, sizeof line, "\n  ");
	fprintf(f, "sandbox on this system:\n  %s\n", line);
}
