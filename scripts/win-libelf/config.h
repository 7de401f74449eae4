/* config.h - in place of what elfutils' configure writes (scripts/win-libelf/README). */
#define HAVE_ERROR_H 1
#define HAVE_DECL_MMAP 0
#define HAVE_VISIBILITY 0

#define PACKAGE_NAME "elfutils"
#define PACKAGE_VERSION "0.188"
#define LOCALEDIR ""
#define HAVE_DECL_MEMRCHR 0
#define HAVE_DECL_RAWMEMCHR 0
#define HAVE_DECL_POWEROF2 0
#define HAVE_DECL_MEMPCPY 0
#define HAVE_DECL_REALLOCARRAY 0
#include <eu-config.h>
