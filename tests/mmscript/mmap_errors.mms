# mmap error paths (mm/mmap.c do_mmap, mm/util.c vm_mmap_pgoff).
#
# Without MAP_ANONYMOUS the mapping is a file mapping of fd -1, and the file
# descriptor is looked up first (ksys_mmap_pgoff): EBADF, whatever the other
# flags say. For anonymous mappings (do_mmap): no length -> EINVAL; the
# page-aligned length overflowing to 0, or the end wrapping -> ENOMEM; an
# unaligned MAP_FIXED/MAP_FIXED_NOREPLACE address -> EINVAL; a mapping type
# other than MAP_PRIVATE or MAP_SHARED -> EINVAL (private+shared is
# MAP_SHARED_VALIDATE, which only file mappings accept); a fixed range past
# TASK_SIZE (0x7ffffffff000) -> ENOMEM.

mmap +0x10000 0 rw- private,anon,fixed                    # zero length
mmap +0x10000 0 rw- private,anon                          # zero length, no fixed
mmap +0x10000 0xfffffffffffff001 rw- private,anon,fixed   # PAGE_ALIGN(len) wraps to 0
mmap +0x10000 0xfffffffffffff000 rw- private,anon,fixed   # end wraps
mmap +0x10000 0x1000 rw- anon,fixed                       # neither private nor shared
mmap +0x10000 0x1000 rw- anon                             # same without fixed
mmap +0x10000 0x1000 rw- 0                                # no flags at all
mmap +0x10000 0x1000 rw- private,fixed                    # not anonymous: fd -1
mmap +0x10000 0x1000 rw- shared                           # not anonymous: fd -1
mmap +0x10800 0x1000 rw- private,anon,fixed               # unaligned fixed address
mmap +0x10001 0x1000 rw- private,anon,fixed_noreplace     # unaligned noreplace address
mmap +0x10000 0x1000 rw- private,shared,anon,fixed        # MAP_SHARED_VALIDATE, anonymous
maps

# Past the top of user space. TASK_SIZE is 0x7ffffffff000 with 4-level paging.
mmap 0x7ffffffff000 0x1000 rw- private,anon,fixed
mmap 0x7fffffffe000 0x2000 rw- private,anon,fixed         # ends above TASK_SIZE
mmap 0x800000000000 0x1000 rw- private,anon,fixed         # non-canonical
mmap 0xffff800000000000 0x1000 rw- private,anon,fixed     # kernel half
mmap 0xfffffffffffff000 0x1000 rw- private,anon,fixed     # the last page
mmap 0x7ffffffff000 0x1000 rw- private,anon               # a bad hint is ignored
mmap 0xffff800000000000 0x1000 rw- private,anon
mmap 0 0x800000000000 rw- private,anon,noreserve          # larger than user space

# Nothing above changed the window.
maps
