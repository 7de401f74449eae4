/* curesult.c - names of CUresult values and of wheelscan's own load outcomes, for
 * reports (the parent) and notes (the worker): a table both sides read, so neither
 * needs the other. */
#include <stdio.h>

#include "ws_live.h"

static const struct { int code; const char *name; } curesults[] = {
	{ 0, "CUDA_SUCCESS" }, { 1, "CUDA_ERROR_INVALID_VALUE" }, { 2, "CUDA_ERROR_OUT_OF_MEMORY" },
	{ 3, "CUDA_ERROR_NOT_INITIALIZED" }, { 4, "CUDA_ERROR_DEINITIALIZED" },
	{ 34, "CUDA_ERROR_STUB_LIBRARY" }, { 36, "CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER" },
	{ 46, "CUDA_ERROR_DEVICE_UNAVAILABLE" }, { 100, "CUDA_ERROR_NO_DEVICE" },
	{ 101, "CUDA_ERROR_INVALID_DEVICE" }, { 102, "CUDA_ERROR_DEVICE_NOT_LICENSED" },
	{ 200, "CUDA_ERROR_INVALID_IMAGE" }, { 201, "CUDA_ERROR_INVALID_CONTEXT" },
	{ 209, "CUDA_ERROR_NO_BINARY_FOR_GPU" }, { 214, "CUDA_ERROR_ECC_UNCORRECTABLE" },
	{ 218, "CUDA_ERROR_INVALID_PTX" }, { 219, "CUDA_ERROR_INVALID_GRAPHICS_CONTEXT" },
	{ 220, "CUDA_ERROR_NVLINK_UNCORRECTABLE" }, { 221, "CUDA_ERROR_JIT_COMPILER_NOT_FOUND" },
	{ 222, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION" }, { 223, "CUDA_ERROR_JIT_COMPILATION_DISABLED" },
	{ 224, "CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY" }, { 225, "CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC" },
	{ 226, "CUDA_ERROR_CONTAINED" }, { 300, "CUDA_ERROR_INVALID_SOURCE" },
	{ 301, "CUDA_ERROR_FILE_NOT_FOUND" }, { 302, "CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND" },
	{ 303, "CUDA_ERROR_SHARED_OBJECT_INIT_FAILED" }, { 304, "CUDA_ERROR_OPERATING_SYSTEM" },
	{ 400, "CUDA_ERROR_INVALID_HANDLE" }, { 401, "CUDA_ERROR_ILLEGAL_STATE" },
	{ 500, "CUDA_ERROR_NOT_FOUND" }, { 600, "CUDA_ERROR_NOT_READY" },
	{ 700, "CUDA_ERROR_ILLEGAL_ADDRESS" }, { 701, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES" },
	{ 702, "CUDA_ERROR_LAUNCH_TIMEOUT" }, { 715, "CUDA_ERROR_ILLEGAL_INSTRUCTION" },
	{ 719, "CUDA_ERROR_LAUNCH_FAILED" }, { 800, "CUDA_ERROR_NOT_PERMITTED" },
	{ 801, "CUDA_ERROR_NOT_SUPPORTED" }, { 802, "CUDA_ERROR_SYSTEM_NOT_READY" },
	{ 803, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH" }, { 804, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE" },
	{ 909, "CUDA_ERROR_TIMEOUT" }, { 999, "CUDA_ERROR_UNKNOWN" },
	{ WS_LIVE_NOT_RUN, "not-run" }, { WS_LIVE_SKIPPED, "skipped" },
	{ WS_LIVE_CRASH, "crash" }, { WS_LIVE_TIMEOUT, "timeout" }, { WS_LIVE_BUDGET, "budget" },
	{ WS_PROBE_WRONG_RESULT, "wrong-result" },
};

const char *ws_curesult_name(int r)
{
	static _Thread_local char buf[32];
	for (size_t i = 0; i < sizeof curesults / sizeof curesults[0]; i++)
		if (curesults[i].code == r)
			return curesults[i].name;
	snprintf(buf, sizeof buf, "CUDA_ERROR_%d", r);
	return buf;
}
