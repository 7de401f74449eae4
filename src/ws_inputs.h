/* ws_inputs.h - the list of input files: operands, -r trees, --files-from, --shard. */
#ifndef WS_INPUTS_H
#define WS_INPUTS_H

#include "ws_cli.h"

enum ws_input_kind {
	WS_INPUT_FILE = 0,    /* one file: a wheel, an ELF file, a fatbin, ... */
	WS_INPUT_DIST,        /* an installed distribution: path is its *.dist-info directory */
	WS_INPUT_LOOSE,       /* files of an environment that no RECORD owns, under one directory */
	WS_INPUT_CONDA,       /* a conda package: path is its conda-meta record, site the prefix */
};

struct ws_input {
	char *path;
	uint64_t size;        /* from stat, for the progress bar; 0 if unknown */
	enum ws_input_kind kind;
	bool from_tree;       /* found by -r, not named by the user */
	char *site;           /* DIST, LOOSE: the environment directory (site-packages) */
	char **files;         /* LOOSE: the files, full paths, sorted */
	size_t nfiles;
	size_t key_off;       /* --shard hashes path + key_off: the name below the -r root, the
			       * line of --files-from, or an operand's base name */
	char *error;          /* a directory the walk could not read: an artifact with this error */
	char *abs_path;       /* --db: an operand's absolute path, resolved before the sandbox
			       * (which refuses readlink); NULL for files found by -r */
};

struct ws_inputs {
	struct ws_input *v;
	size_t n;
	uint32_t cap;
	size_t nlisted;       /* inputs before --shard kept its share */
	char **skipped;       /* "path: dangling symbolic link" / "...: symbolic link loop" */
	size_t nskipped;
	uint32_t skipped_cap;
	/* the resolved targets of links in a tree that point out of it: the sandbox lets the
	 * scan read these files too (at most WS_LINKS_OUT_MAX; links past it are skipped) */
	char **links_out;
	size_t nlinks_out;
};
#define WS_LINKS_OUT_MAX 65536

/* Collects the inputs in a deterministic order (operands as given, each tree
 * sorted by path), then keeps the --shard share. In a tree, a directory holding
 * *.dist-info/RECORD is a Python environment: each distribution becomes one DIST input
 * (its RECORD's files are not listed again), and the files no RECORD owns are grouped
 * by their directory below the environment (LOOSE). A directory of a tree that cannot be
 * read is an input with .error set. Returns 0; -1 out of memory; -2 an unreadable
 * --files-from (an input that cannot be read); both reported on stderr. */
int ws_inputs_collect(const struct ws_config *cfg, struct ws_inputs *in);
void ws_inputs_free(struct ws_inputs *in);
/* Removes input i (freed), keeping the others' order. */
void ws_inputs_drop(struct ws_inputs *in, size_t i);
/* Whether --shard keeps an input whose key (path below its root) is key. */
bool ws_inputs_in_shard(const struct ws_config *cfg, const char *key);

/* For each environment among the inputs with a Windows layout (ENV/Lib/site-packages), one
 * line on f naming its interpreter, ENV/python.exe or ENV/Scripts/python.exe, where that file
 * is there (src/interp.c): whose packages were judged. */
void ws_inputs_name_interpreters(const struct ws_inputs *in, FILE *f);

#endif
