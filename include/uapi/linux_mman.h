/*
 * mmap(2), mprotect(2), mremap(2) and madvise(2) constants: Linux x86-64
 * values of the system-call ABI. Shared by the kernel (include/mm.h) and the
 * user libc (user/include/usys.h); definitions only. Each group is guarded
 * so that a host program may also include the C library's <sys/mman.h>.
 */
#ifndef UAPI_LINUX_MMAN_H
#define UAPI_LINUX_MMAN_H

#ifndef PROT_READ
#define PROT_NONE        0x0
#define PROT_READ        0x1
#define PROT_WRITE       0x2
#define PROT_EXEC        0x4
#define PROT_SEM         0x8
#define PROT_GROWSDOWN   0x01000000
#define PROT_GROWSUP     0x02000000
#endif
#ifndef MAP_SHARED
#define MAP_SHARED          0x01
#define MAP_PRIVATE         0x02
#define MAP_SHARED_VALIDATE 0x03
#define MAP_TYPE            0x0f
#define MAP_FIXED           0x10
#define MAP_ANONYMOUS       0x20
#define MAP_GROWSDOWN       0x0100
#define MAP_DENYWRITE       0x0800
#define MAP_EXECUTABLE      0x1000
#define MAP_LOCKED          0x2000
#define MAP_NORESERVE       0x4000
#define MAP_POPULATE        0x8000
#define MAP_NONBLOCK        0x10000
#define MAP_STACK           0x20000
#define MAP_HUGETLB         0x40000
#define MAP_SYNC            0x80000
#define MAP_FIXED_NOREPLACE 0x100000
#endif
#ifndef MADV_NORMAL
#define MADV_NORMAL          0
#define MADV_RANDOM          1
#define MADV_SEQUENTIAL      2
#define MADV_WILLNEED        3
#define MADV_DONTNEED        4
#define MADV_FREE            8
#define MADV_REMOVE          9
#define MADV_DONTFORK        10
#define MADV_DOFORK          11
#define MADV_MERGEABLE       12
#define MADV_UNMERGEABLE     13
#define MADV_HUGEPAGE        14
#define MADV_NOHUGEPAGE      15
#define MADV_DONTDUMP        16
#define MADV_DODUMP          17
#define MADV_WIPEONFORK      18
#define MADV_KEEPONFORK      19
#define MADV_COLD            20
#define MADV_PAGEOUT         21
#define MADV_POPULATE_READ   22
#define MADV_POPULATE_WRITE  23
#define MADV_DONTNEED_LOCKED 24
#define MADV_COLLAPSE        25
#define MADV_HWPOISON        100     /* refused (-EINVAL): Linux without CONFIG_MEMORY_FAILURE */
#define MADV_SOFT_OFFLINE    101     /* likewise */
#define MADV_GUARD_INSTALL   102
#define MADV_GUARD_REMOVE    103
#endif
/* msync(2) flags. */
#ifndef MS_ASYNC
#define MS_ASYNC      1
#define MS_INVALIDATE 2
#define MS_SYNC       4
#endif

#ifndef MREMAP_MAYMOVE
#define MREMAP_MAYMOVE   1
#define MREMAP_FIXED     2
#define MREMAP_DONTUNMAP 4
#endif

#endif
