# Accounting flags decide merges too. A private writable mapping is charged
# to the commit limit (VM_ACCOUNT) unless MAP_NORESERVE (VM_NORESERVE).
# A private read-only mapping is not charged. mprotect making a private,
# unaccounted, non-NORESERVE VMA writable charges it (sets VM_ACCOUNT).
# Making an accounted anonymous VMA read-only drops VM_ACCOUNT only while it
# has no anon_vma (never written); once written the charge stays.

# 1. r-- mapping made writable gets VM_ACCOUNT: merges with a rw- neighbour.
mmap +0x10000 0x1000 rw- private,anon,fixed
mmap +0x11000 0x1000 r-- private,anon,fixed
mprotect +0x11000 0x1000 rw-
maps

# 2. NORESERVE vs reserved: same prot, different accounting: no merge.
mmap +0x20000 0x1000 rw- private,anon,fixed
mmap +0x21000 0x1000 rw- private,anon,fixed,noreserve
maps
mmap +0x22000 0x1000 rw- private,anon,fixed,noreserve     # merges with the noreserve one
maps

# 3. A NORESERVE r-- mapping made writable stays NORESERVE (not charged):
#    it merges with a NORESERVE rw- neighbour, not with a charged one.
mmap +0x30000 0x1000 rw- private,anon,fixed,noreserve
mmap +0x31000 0x1000 r-- private,anon,fixed,noreserve
mmap +0x32000 0x1000 rw- private,anon,fixed
mprotect +0x31000 0x1000 rw-
maps

# 4. rw- (charged, never written) made r--: VM_ACCOUNT dropped, so it merges
#    with a neighbour that was mapped r--.
mmap +0x40000 0x1000 r-- private,anon,fixed
mmap +0x41000 0x1000 rw- private,anon,fixed
mprotect +0x41000 0x1000 r--
maps

# 5. Same after a write: the anon_vma exists, VM_ACCOUNT stays: no merge.
mmap +0x50000 0x1000 r-- private,anon,fixed
mmap +0x51000 0x1000 rw- private,anon,fixed
write +0x51000 1
mprotect +0x51000 0x1000 r--
maps

# 6. Splitting a charged, never-written VMA with r-- (the piece loses
#    VM_ACCOUNT) and making the piece rw- again (charged again) merges all
#    three back into one VMA.
mmap +0x60000 0x3000 rw- private,anon,fixed
mprotect +0x61000 0x1000 r--
mprotect +0x61000 0x1000 rw-
maps

# 7. Shared anonymous memory is charged by shmem, not VM_ACCOUNT; a r--
#    shared mapping made writable is still its own VMA (shared never merges).
mmap +0x70000 0x1000 r-- shared,anon,fixed
mprotect +0x70000 0x1000 rw-
maps
