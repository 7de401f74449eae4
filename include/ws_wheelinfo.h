/* ws_wheelinfo.h - what a wheel says of itself: its file name, METADATA, WHEEL and the CUDA
 * libraries its requirements pull in (core/wheelinfo.c). */
#ifndef WS_WHEELINFO_H
#define WS_WHEELINFO_H

#include <stdbool.h>
#include <stddef.h>

#include "wheelscan.h"

/* The largest METADATA (or WHEEL) read, in a wheel or an installed distribution. */
#define WS_METADATA_MAX ((size_t)16 << 20)

/* Parses "{name}-{version}(-{build})?-{python}-{abi}-{platform}.whl" (the
 * last path component of path) into w's name, version, local, python_tag,
 * abi_tag and platform_tag. Returns 0, or -1 (w untouched) when the name
 * is not a wheel name, e.g. a pip cache body. */
int ws_wheel_parse_filename(struct ws_wheel_info *w, const char *path);
/* Reads Name, Version and Requires-Dist from METADATA headers. */
void ws_wheel_parse_metadata(struct ws_wheel_info *w, const char *p, size_t n);
/* Reads Generator from the WHEEL file, and its Tag lines into python_tag, abi_tag and
 * platform_tag (dotted sets, as a file name compresses them) when w has no tags yet: a
 * pip cache body has no file name to give them. */
void ws_wheel_parse_wheelfile(struct ws_wheel_info *w, const char *p, size_t n);
/* The CUDA major a requirement pulls in: "nvidia-cublas-cu12>=12.1" -> 12;
 * 0 when it is no NVIDIA CUDA library. *extra_only is set when the
 * requirement only applies to an extra ("; extra == 'cuda'"). */
int ws_requirement_cuda_major(const char *s, size_t n, bool *extra_only);

#endif
