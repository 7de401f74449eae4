/* sys/mman.h - no mappings: every mmap fails, so libelf reads (only elf_memory is used). */
#include <stddef.h>
#define PROT_READ 1
#define PROT_WRITE 2
#define MAP_PRIVATE 2
#define MAP_SHARED 1
#define MAP_FAILED ((void *)-1)
#define MS_SYNC 4
#define MS_ASYNC 1
static inline void *mmap(void *a, size_t l, int p, int f, int fd, long long o) { (void)a;(void)l;(void)p;(void)f;(void)fd;(void)o; return MAP_FAILED; }
static inline int munmap(void *a, size_t l) { (void)a;(void)l; return -1; }
static inline int msync(void *a, size_t l, int f) { (void)a;(void)l;(void)f; return -1; }
static inline void *mremap(void *a, size_t o, size_t n, int f) { (void)a;(void)o;(void)n;(void)f; return MAP_FAILED; }
#define MREMAP_MAYMOVE 1
