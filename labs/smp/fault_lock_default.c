/*
 * Not part of the lab's work: in the labs' trees every fault takes the
 * mmap_lock for reading (fault_lock=mmap), as docs/labs/ describes; boot
 * with fault_lock=vma to try per-VMA locks.
 */
bool mm_fault_lock_vma = false;
