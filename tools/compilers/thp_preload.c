/* Preloaded into the compilers CI runs (wrap.sh): every anonymous mapping of
 * 1 MiB or more is advised to the kernel as MADV_HUGEPAGE, so that where
 * transparent huge pages are enabled only on request ("madvise", Debian's
 * default) the compiler's heap is still backed by 2 MiB pages.
 *
 * Why: GCC takes its heap in large mmap()ed chunks, touched 4 KiB at a time.
 * On the 2-core VMs CI runs on, one of the suite's compiles takes about 30k
 * page faults, a quarter of its CPU time; with huge pages it takes a third as
 * many, and a cold build of the variants ran about a fifth faster
 * (CONTRIBUTING.md, "CI").
 *
 * The advice changes nothing else: the mapping, its contents and the
 * compiler's output are the same. Where the kernel has no transparent huge
 * pages, madvise fails and the mapping is used as it is. */
#define _GNU_SOURCE
#include <stddef.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

enum { kMinAdvised = 1 << 20 };

void* mmap(void* addr, size_t len, int prot, int flags, int fd, off_t off) {
  /* The system call itself: this library replaces the C library's mmap. */
  void* p = (void*)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
  if (p != MAP_FAILED && (flags & MAP_ANONYMOUS) && len >= kMinAdvised) {
    (void)madvise(p, len, MADV_HUGEPAGE);
  }
  return p;
}

/* The same symbol under its large-file name (off_t is 64 bits on x86-64). */
void* mmap64(void* addr, size_t len, int prot, int flags, int fd, off_t off)
    __attribute__((alias("mmap")));
