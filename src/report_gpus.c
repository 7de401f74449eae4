/* report_gpus.c - --list-gpus: the GPU table of gpus.c, one line per compute capability.
 * Printing lives here so that the table and the rules (gpus.c, compat.c) do no I/O. */
#include <stdio.h>
#include <string.h>

#include "ws_report.h"

void ws_gpus_print(FILE *f)
{
	size_t i = 0, count = ws_gpu_count();
	fprintf(f, "%-5s %-7s %-13s %s\n", "CC", "SASS", "ARCHITECTURE", "GPUS");
	while (i < count) {
		unsigned cc = ws_gpu_at(i)->cc;
		/* names wrap at 100 columns under the GPUS column */
		int col = fprintf(f, "%2u.%u  sm_%-4u %-13s ", cc / 10, cc % 10, cc, ws_cc_family(cc));
		const int indent = col;
		for (size_t j = i; j < count && ws_gpu_at(j)->cc == cc; j++) {
			int w = (int)strlen(ws_gpu_at(j)->name) + 2;
			if (j > i && col + w + 1 > 100) {   /* +1: the comma before a wrap */
				fprintf(f, ",\n%*s", indent, "");
				col = indent;
			} else if (j > i) {
				col += fprintf(f, ", ");
			}
			col += fprintf(f, "%s", ws_gpu_at(j)->name);
		}
		if (cc == 110)
			fputs(" (SASS sm_101 before CUDA 13.0)", f);
		fputc('\n', f);
		while (i < count && ws_gpu_at(i)->cc == cc)
			i++;
	}
	fputs("Names match without case, spaces, dashes or the prefixes NVIDIA, GeForce, Tesla, Quadro,"
	      " Jetson.\nThe table follows NVIDIA's CUDA GPUs page, https://developer.nvidia.com/cuda-gpus; a few\n"
	      "of its older and newest rows were not re-checked against that page.\n", f);
}
