/* filemap.c - guarded file mappings (see ws_filemap.h).
 *
 * The registry is a fixed array of slots that threads claim with a compare-and-swap and
 * the signal handler reads without locks: a slot's range is published (lo, then hi) before
 * the mapping is first touched and withdrawn (hi, then lo) before it is unmapped, so the
 * handler never matches a range that is not mapped. The handler uses only mmap and atomic
 * stores, both safe in a signal handler; the sandbox allows a private, non-executable mmap.
 */
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ws_filemap.h"

#define SLOTS 1024                    /* mappings alive at once: one per thread, and more */

static struct slot {
	atomic_uintptr_t lo, hi;          /* [lo, hi): the mapping; lo == 0: free */
	atomic_int cut;                   /* a fault past the file's end was answered */
} slots[SLOTS];

static atomic_int guarded;

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	uintptr_t a = (uintptr_t)si->si_addr;
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	for (int i = 0; i < SLOTS; i++) {
		uintptr_t lo = atomic_load(&slots[i].lo), hi = atomic_load(&slots[i].hi);
		if (!lo || a < lo || a >= hi)
			continue;
		/* Zero pages from the faulting one to the end: the file has nothing there now. */
		uintptr_t from = a & ~(page - 1);
		void *r = mmap((void *)from, hi - from, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		if (r != MAP_FAILED) {
			atomic_store(&slots[i].cut, 1);
			return;                   /* the access runs again, on zeros */
		}
		break;
	}
	/* Not a guarded mapping (or no memory): the default action, on the same access. */
	struct sigaction dfl;
	memset(&dfl, 0, sizeof dfl);
	dfl.sa_handler = SIG_DFL;
	sigaction(sig, &dfl, NULL);
}

int ws_filemap_guard(void)
{
	if (atomic_exchange(&guarded, 1))
		return 0;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_sigbus;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGBUS, &sa, NULL) != 0) {
		atomic_store(&guarded, 0);
		return -1;
	}
	return 0;
}

int ws_filemap_open(struct ws_filemap *m, int fd, size_t len)
{
	m->slot = -1;
	m->len = len;
	m->p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	if (m->p == MAP_FAILED) {
		m->p = NULL;
		return -1;
	}
	for (int i = 0; i < SLOTS; i++) {
		uintptr_t none = 0;
		if (atomic_compare_exchange_strong(&slots[i].lo, &none, (uintptr_t)m->p)) {
			atomic_store(&slots[i].cut, 0);
			atomic_store(&slots[i].hi, (uintptr_t)m->p + len);
			m->slot = i;
			break;
		}
	}
	return 0;
}

bool ws_filemap_cut(const struct ws_filemap *m)
{
	return m->slot >= 0 && atomic_load(&slots[m->slot].cut);
}

bool ws_filemap_close(struct ws_filemap *m)
{
	bool cut = ws_filemap_cut(m);
	if (m->slot >= 0) {
		atomic_store(&slots[m->slot].hi, 0);
		atomic_store(&slots[m->slot].lo, 0);
	}
	if (m->p)
		munmap(m->p, m->len);
	m->p = NULL;
	m->slot = -1;
	return cut;
}
