# mremap resizing in place: shrinking unmaps the tail; growing extends the
# VMA when the pages after it are free; otherwise, without maymove, -ENOMEM.
# With maymove Linux moves the mapping to a new place found top-down from the
# mmap base, which is outside the window.

mmap +0x10000 0x4000 rw- private,anon,fixed
fill +0x10000 0x4000 0x31
mremap +0x10000 0x4000 0x2000 0       # shrink
maps
read +0x11000
read +0x12000                          # the tail is gone
mremap +0x10000 0x2000 0x5000 0       # grow in place
maps
read +0x11000                          # old data kept
read +0x14000                          # new pages are zero

# Growth blocked by the next VMA.
mmap +0x20000 0x2000 rw- private,anon,fixed
mmap +0x23000 0x1000 r-- private,anon,fixed
mremap +0x20000 0x2000 0x3000 0       # exactly up to the next VMA: fits
mremap +0x20000 0x3000 0x4000 0       # blocked
mremap +0x20000 0x3000 0x4000 maymove # moves out of the window
maps

# Same length: nothing happens, the address comes back.
mmap +0x30000 0x2000 rw- private,anon,fixed
mremap +0x30000 0x2000 0x2000 0
mremap +0x30000 0x2000 0x2000 maymove
# A new length that rounds up to the old one changes nothing.
mremap +0x30000 0x1000 0x800 0
# The old range need not be a whole VMA: shrinking [+0x50000, +0x52000) to
# one page unmaps +0x51000 and splits the three-page VMA.
mmap +0x50000 0x3000 rw- private,anon,fixed
mremap +0x50000 0x2000 0x1000 0
maps
# Growing in place right up to a compatible VMA merges with it.
mmap +0x40000 0x1000 rw- private,anon,fixed
mmap +0x42000 0x1000 rw- private,anon,fixed
mremap +0x40000 0x1000 0x2000 0
maps
