/* replay.c - runs fuzz inputs through a target's LLVMFuzzerTestOneInput without
 * libFuzzer, so corpora and crash reproducers are ordinary tests (built with gcc).
 * Usage: replay FILE|DIR...; prints one line per input, exits 1 if any was unreadable. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "replay: cannot open '%s'\n", path);
		return -1;
	}
	size_t cap = 1 << 16, n = 0;
	uint8_t *buf = malloc(cap);
	size_t r;
	while (buf && (r = fread(buf + n, 1, cap - n, f)) > 0) {
		n += r;
		if (n == cap) {
			uint8_t *nb = cap <= ((size_t)256 << 20) ? realloc(buf, cap * 2) : NULL;
			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			cap *= 2;
		}
	}
	int bad = ferror(f) || !buf;
	fclose(f);
	if (bad) {
		free(buf);
		fprintf(stderr, "replay: cannot read '%s'\n", path);
		return -1;
	}
	/* An exact-size copy, so ASan sees reads past the input's end. */
	uint8_t *exact = malloc(n ? n : 1);
	if (!exact)
		abort();
	memcpy(exact, buf, n);
	free(buf);
	LLVMFuzzerTestOneInput(exact, n);
	free(exact);
	printf("ok %s\n", path);
	return 0;
}

int main(int argc, char **argv)
{
	int rc = 0;
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
			DIR *d = opendir(argv[i]);
			struct dirent *de;
			while (d && (de = readdir(d)) != NULL) {
				if (de->d_name[0] == '.')
					continue;
				char p[4096];
				snprintf(p, sizeof p, "%s/%s", argv[i], de->d_name);
				if (stat(p, &st) == 0 && S_ISREG(st.st_mode) && run_file(p) < 0)
					rc = 1;
			}
			if (d)
				closedir(d);
		} else if (run_file(argv[i]) < 0) {
			rc = 1;
		}
	}
	return rc;
}
