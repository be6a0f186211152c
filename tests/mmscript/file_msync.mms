# msync (Linux 6.18): nothing to write back from memory, so what is seen
# is its checks and its walk: holes are skipped and reported as -ENOMEM at
# the end, except that MS_ASYNC alone stops at the first one.
memfd f 0x4000
mmap +0x10000 0x4000 rw- shared,fixed f 0x0
munmap +0x11000 0x1000
msync +0x10000 0x1000 sync
msync +0x10000 0x1000 async
msync +0x10000 0x1000 invalidate
msync +0x10000 0x1000 0
msync +0x10000 0x4000 sync
msync +0x10000 0x4000 async
msync +0x10000 0x4000 invalidate
msync +0x11000 0x1000 sync
msync +0x11000 0x1000 async
msync +0x11000 0x2000 async,invalidate
msync +0x10000 0x1000 sync,async
msync +0x10000 0x1000 8
msync +0x10001 0x1000 sync
msync +0x10000 0 sync
msync +0x10000 1 sync
msync +0x10000 0xfffffffffffff000 sync
msync +0x30000 0x1000 sync
# anonymous memory: the same walk
mmap +0x20000 0x2000 rw- private,anon,fixed
msync +0x20000 0x2000 sync
msync 0x800000000000 0x1000 sync
