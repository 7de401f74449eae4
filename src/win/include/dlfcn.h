/* dlfcn.h - dlopen and dlsym over LoadLibraryExW and GetProcAddress (src/win/posix_win.c):
 * the live-check worker (src/cudaworker.c) loads the CUDA driver, nvcuda.dll, with them.
 * A bare file name is looked up in System32 only, never beside the program or in PATH. */
#ifndef WS_WIN_DLFCN_H
#define WS_WIN_DLFCN_H
#define RTLD_LAZY 1
#define RTLD_NOW 2
#define RTLD_LOCAL 0
#define RTLD_GLOBAL 0
void *ws_win_dlopen(const char *path, int flags);
void *ws_win_dlsym(void *h, const char *name);
const char *ws_win_dlerror(void);
#define dlopen ws_win_dlopen
#define dlsym ws_win_dlsym
#define dlerror ws_win_dlerror
#endif
