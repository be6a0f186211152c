/*
 * LAB merge: the merges of a modified range (Linux's
 * vma_merge_existing_range). When mprotect or madvise gives [start, end)
 * of vma new flags and the range touches an edge of vma, it may join prev
 * (it starts vma), next (it ends vma), or both (it is all of vma). Write
 * the three shapes, each allocating nothing once the index is reserved:
 *
 *   both:  |<-prev->|<-vma->|<-next->|  ->  |<--------prev-------->|
 *   left:  |<-prev->|<-range->|rest|    ->  |<-----prev----->|rest|
 *   right: |rest|<-range->|<-next->|    ->  |rest|<-----next----->|
 *
 * with the pgoff of whatever moves kept right, and the identities (anon)
 * inherited as in docs/labs/merge.md.
 */
