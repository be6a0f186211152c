# mincore: one digit per page, 1 = resident. For private anonymous memory a
# page is resident once faulted: written pages, and also read-faulted ones
# (mapped to the shared zero page, which is present). Errors: unaligned
# start -> EINVAL; any unmapped page in the range -> ENOMEM; a range beyond
# TASK_SIZE -> ENOMEM. The length is rounded up to whole pages.

mmap +0x10000 0x4000 rw- private,anon,fixed
mincore +0x10000 0x4000
write +0x10000 1
read +0x12000
mincore +0x10000 0x4000
mincore +0x10000 0x1                  # one page
mincore +0x10000 0x1001               # two pages
mincore +0x10000 0                    # nothing asked: empty result
mincore +0x10800 0x1000               # unaligned start
mincore +0xf000 0x2000                # starts in a hole
mincore +0x13000 0x2000               # ends in a hole
mincore +0x100000 0x1000              # entirely unmapped
mincore 0x7ffffffff000 0x1000         # at TASK_SIZE
mincore 0xffff800000000000 0x1000     # kernel half
mincore +0x10000 0xfffffffffffff000   # end wraps

# Spanning several VMAs without holes works.
mmap +0x14000 0x1000 r-- private,anon,fixed
mmap +0x15000 0x1000 rw- shared,anon,fixed
write +0x15000 2
mincore +0x10000 0x6000
# PROT_NONE pages are mapped (no error), never resident.
mmap +0x16000 0x1000 --- private,anon,fixed
mincore +0x16000 0x1000
