/* prelude.h - forced into every libelf file: the POSIX types and names MinGW lacks. */
#include <sys/types.h>
typedef int uid_t;
typedef int gid_t;
#include <fcntl.h>
#include <unistd.h>
#define F_GETFD 1
/* libelf's elf_begin checks that a descriptor is open; wheelscan only calls elf_memory */
static inline int ws_fcntl_stub(int fd, int cmd) { (void)fd; (void)cmd; return 0; }
#define fcntl ws_fcntl_stub
#define S_ISUID 04000
#define S_ISGID 02000
#define _SC_PAGESIZE 30
static inline long ws_sysconf_stub(int n) { (void)n; return 4096; }
#define sysconf ws_sysconf_stub
