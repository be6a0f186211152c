/*
 * Virtual memory areas and the interchangeable VMA indexes.
 *
 * A VMA describes [start, end) of one address space with its flags. Every
 * address space keeps its VMAs in one index backend, chosen when the address
 * space is created (kernel command line vma=list|avl|hash|rbtree|btree; tests
 * and benchmarks choose directly). Merge/split logic lives above the index,
 * in mm/vma.c, written once for all backends.
 *
 * Locking: the VMA set of an mm (the index and every VMA's start, end,
 * flags, pgoff, anon fields and the backend's link) is protected by mm->mmap_lock: read
 * for lookups, write for any change. The index itself takes no lock.
 */
#ifndef VMA_H
#define VMA_H

#include "kernel.h"
#include "list.h"

/* VMA flags: the values of Linux's VM_* so that merge rules read the same. */
#define VM_NONE        0x00000000UL
#define VM_READ        0x00000001UL
#define VM_WRITE       0x00000002UL
#define VM_EXEC        0x00000004UL
#define VM_SHARED      0x00000008UL
#define VM_MAYREAD     0x00000010UL
#define VM_MAYWRITE    0x00000020UL
#define VM_MAYEXEC     0x00000040UL
#define VM_MAYSHARE    0x00000080UL
#define VM_GROWSDOWN   0x00000100UL
#define VM_PFNMAP      0x00000400UL   /* (Linux: page frames without struct page; never set here) */
#define VM_LOCKED      0x00002000UL
#define VM_IO          0x00004000UL   /* (Linux: device memory; never set here) */
#define VM_SEQ_READ    0x00008000UL   /* MADV_SEQUENTIAL */
#define VM_RAND_READ   0x00010000UL   /* MADV_RANDOM */
#define VM_DONTCOPY    0x00020000UL   /* MADV_DONTFORK */
#define VM_DONTEXPAND  0x00040000UL
#define VM_ACCOUNT     0x00100000UL   /* committed memory is accounted */
#define VM_NORESERVE   0x00200000UL   /* MAP_NORESERVE */
#define VM_WIPEONFORK  0x02000000UL   /* MADV_WIPEONFORK */
#define VM_DONTDUMP    0x04000000UL   /* MADV_DONTDUMP */
#define VM_SOFTDIRTY   0x08000000UL   /* ignored by merging, as in Linux */
#define VM_MIXEDMAP    0x10000000UL   /* (Linux: mixed page frames; never set here) */
#define VM_HUGEPAGE    0x20000000UL
#define VM_NOHUGEPAGE  0x40000000UL
#define VM_MERGEABLE   0x80000000UL   /* MADV_MERGEABLE (KSM candidate) */

#define VM_ACCESS_FLAGS (VM_READ | VM_WRITE | VM_EXEC)
/* Linux's VM_SPECIAL: mappings that never merge, never grow by mremap, refuse MADV_DODUMP. */
#define VM_SPECIAL      (VM_IO | VM_DONTEXPAND | VM_PFNMAP | VM_MIXEDMAP)

struct mm;
struct vma;
struct vm_file;

/*
 * Anon identity (Linux's anon_vma): created when a private VMA is first
 * written to or populated, shared by the pieces of a split, and compared by
 * merging. Refcounted by the VMAs pointing at it.
 */
struct anon_vma {
	unsigned refcount;            /* [atomic] VMAs and anonymous pages referring to it */
	unsigned long id;             /* unique, for debugging and test output */
};

/*
 * A VMA. The index backend may keep a link of its own in every VMA of its
 * address spaces (list pointers, tree node fields): ops->link_size bytes
 * right after struct vma in the same object (vma_link), so a VMA object is
 * vma_alloc_size(ops) bytes and each backend pays only for what it uses
 * (the B-tree nothing: its nodes are its own).
 */
struct vma {
	uintptr_t start;              /* first address, page aligned */
	uintptr_t end;                /* one past the last address, page aligned, > start */
	unsigned long flags;          /* VM_* */
	unsigned long pgoff;          /* page offset of start in its object (anon private: start >> PAGE_SHIFT when created) */
	struct anon_vma *anon;        /* anon identity, NULL until first write fault or populate */
	bool anon_forked;             /* with anon: Linux's anon_vma_chain has more than one entry, i.e. the
	                               * VMA was copied at fork from a VMA that had an identity (or split
	                               * from / dup'ed from such a VMA): vma_is_fork_child() */
	/*
	 * The per-VMA lock of fault_lock=vma (mm/vma_lock.c), all zero in a new
	 * VMA, packed beside anon_forked in what was padding: struct vma stays
	 * 64 bytes with it.
	 */
	bool detached;                /* removed from the index: lock-free faults must not use it */
	uint16_t vm_lock_seq;         /* marked for writing while equal to the low 16 bits of
	                               *   mm->mm_lock_seq (after a wrap, a fault falls back and
	                               *   vma_start_write still waits for the faults inside) */
	int vm_readers;               /* [atomic] faults holding it for reading */
	union {
		struct vm_file *file; /* the file mapped (include/vm_object.h; Linux's vm_file; shared
		                       *   anonymous memory has one too), or NULL: anonymous private */
		struct vma *retired_next;       /* once freed with fault_lock=vma (file put, index left):
		                               *   next on mm->vma_retired (mm/vma_lock.c); no fault
		                               *   reads file then: a detached VMA is never locked */
	};
	struct mm *mm;                /* owning address space */
};

/*
 * A task's last VMA found by a lock-free fault (mm/vma_lock.c,
 * vma_lock_lookup; Linux's vmacache of 3.15 to 6.0): the next fault in the
 * same address space takes it without searching the index while no write
 * section that freed a VMA has ended since (mm->vma_free_seq unchanged)
 * and it still covers the address. Keyed on mm->id, which no other address
 * space ever has, not on the mm's address, which a new one may reuse.
 */
struct vma_cache {
	uint64_t mm_id;               /* 0: empty */
	unsigned long seq;            /* mm->vma_free_seq when vma was found */
	struct vma *vma;
};
_Static_assert(sizeof(struct vma) == 64, "struct vma is one cache line (the per-VMA lock fits in padding)");

/*
 * The reverse-map links of a VMA (mm/rmap.c): its entry on the list of
 * VMAs of its anon identity's fork family (kept by the family's root
 * identity: mm/anon_vma.c; Linux's anon_vma_chain entries, one per VMA
 * here), and its entry on its file object's list of mapping VMAs
 * (Linux's i_mmap tree; a private file mapping is on both).
 * They live right after struct vma in the VMA object, so that struct vma
 * stays one cache line, and the index backend's link follows them.
 * anon_node: [the identity's lock], meaningful while v->anon is set.
 */
struct vma_rmap_link {
	struct list_head anon_node;
	struct list_head file_node;   /* [v->file->obj->i_mmap_lock] on its object's i_mmap list, while
	                               *   v->file (with an object) is set: mm/filemap.c's vma_file_link */
};

static inline struct vma_rmap_link *vma_rmap(const struct vma *v)
{
	return (struct vma_rmap_link *)(uintptr_t)(v + 1);
}

/* The VMA whose rmap link l is. */
static inline struct vma *vma_of_rmap(const struct vma_rmap_link *l)
{
	return (struct vma *)(uintptr_t)l - 1;
}

/* The index backend's link in v (ops->link_size bytes, after the rmap link; owned by the backend). */
static inline void *vma_link(const struct vma *v)
{
	return (void *)(vma_rmap(v) + 1);
}

static inline uintptr_t vma_pages(const struct vma *v) { return (v->end - v->start) >> PAGE_SHIFT; }

/*
 * vma_is_fork_child: Linux's vma_had_uncowed_parents (renamed
 * vma_is_fork_child later): v has an anon identity and its anon_vma_chain
 * is not singular. Such a VMA neither lends its identity to a merge partner
 * nor takes an unfaulted one in (is_mergeable_anon_vma), and its identity
 * is not reused by a neighbour (reusable_anon_vma).
 */
static inline bool vma_is_fork_child(const struct vma *v)
{
	return v && v->anon && v->anon_forked;
}

/*
 * The index of one address space: its backend, the VMA count, and
 * `accesses`, which counts every node (list element, tree node, B-tree
 * node) any operation touched, so costs can be compared per operation the
 * way the 1998 measurements did. `state` is the backend's own: each backend
 * defines its per-index struct in its own file and keeps it there
 * (VMA_INDEX_STATE), so that a new backend is one file plus one line in
 * mm/vma_index/registry.c.
 */
#define VMA_INDEX_STATE_BYTES 288

struct vma_index {
	const struct vma_index_ops *ops;
	size_t count;                 /* VMAs in the index */
	uint64_t accesses;            /* nodes touched, monotonic */
	bool lockless;                /* [mmap_lock write] find_lockless callers may be reading:
	                               *   writers keep what they stop using until release_deferred
	                               *   (false after init; set by mm/vma_lock.c's vma_lockless_set) */
	union {
		unsigned char bytes[VMA_INDEX_STATE_BYTES];
		uint64_t align;
	} state;                      /* the backend's: see VMA_INDEX_STATE */
};

/*
 * VMA_INDEX_STATE(idx, type): idx's backend state as a type *. The backend
 * declares type with __attribute__((may_alias)) (it is read and written
 * only through that type) and checks VMA_INDEX_STATE_FITS(type) once.
 */
#define VMA_INDEX_STATE(idx, type) ((type *)(void *)(idx)->state.bytes)
#define VMA_INDEX_STATE_FITS(type) \
	_Static_assert(sizeof(type) <= VMA_INDEX_STATE_BYTES, #type " does not fit in struct vma_index")

/*
 * The operations every backend implements. "find" means: the first VMA with
 * end > addr (it contains addr, or is the next one above it), as Linux's
 * find_vma(). No operation allocates except reserve: insert and update
 * cannot fail once reserve(idx, n) has returned 0 for at least as many of
 * them, and erase never fails (it needs no reserve), which is what lets
 * mm/vma.c allocate first and then commit. What reserve sets aside is
 * linear in n and bounded by what n inserts can need, so removing any
 * number of VMAs costs no memory up front.
 */
struct vma_index_ops {
	const char *name;
	/* Bytes of link the backend keeps in each VMA, after struct vma (vma_link); 0 for none. */
	size_t link_size;
	/* Empty index. */
	void (*init)(struct vma_index *idx);
	/* Free the backend's own memory. The index must be empty. */
	void (*destroy)(struct vma_index *idx);
	/* First VMA with end > addr, or NULL. */
	struct vma *(*find)(struct vma_index *idx, uintptr_t addr);
	/* As find; also *prev = the last VMA with end <= addr (NULL if none). */
	struct vma *(*find_prev)(struct vma_index *idx, uintptr_t addr, struct vma **prev);
	/* Make the next nr insert/update calls infallible (erase always is). 0 or -ENOMEM. */
	int (*reserve)(struct vma_index *idx, unsigned nr);
	/* Insert v; [v->start, v->end) overlaps no VMA in the index. */
	void (*insert)(struct vma_index *idx, struct vma *v);
	/* Remove v, which is in the index. */
	void (*erase)(struct vma_index *idx, struct vma *v);
	/* Change v's bounds to [start, end); the new range overlaps no other VMA. */
	void (*update)(struct vma_index *idx, struct vma *v, uintptr_t start, uintptr_t end);
	/* Neighbours in address order, NULL past the ends. */
	struct vma *(*next)(struct vma_index *idx, struct vma *v);
	struct vma *(*prev)(struct vma_index *idx, struct vma *v);
	struct vma *(*first)(struct vma_index *idx);
	struct vma *(*last)(struct vma_index *idx);
	/*
	 * Free-gap search: the highest (gap_top) or lowest (gap_bottom) address a
	 * with a % align == 0, low <= a, a + len <= high, and [a, a + len)
	 * intersecting no VMA. align is a power of two >= PAGE_SIZE. Returns 0
	 * and *out, or -ENOMEM when there is none.
	 */
	int (*gap_top)(struct vma_index *idx, uintptr_t len, uintptr_t align,
		       uintptr_t low, uintptr_t high, uintptr_t *out);
	int (*gap_bottom)(struct vma_index *idx, uintptr_t len, uintptr_t align,
			  uintptr_t low, uintptr_t high, uintptr_t *out);
	/* Verify the backend's invariants and the count. 0, or -EINVAL after printing what broke. */
	int (*check)(struct vma_index *idx);
	/* Bytes of memory the backend uses outside struct vma (external nodes, spares excluded). */
	size_t (*bytes)(struct vma_index *idx);
	/*
	 * Optional: lock-free faults (fault_lock=vma) use these where present,
	 * else mm/vma_lock.c's snapshot of the VMAs. find_lockless: the VMA
	 * whose end is the first above addr, found without the mmap_lock while
	 * writers may be changing the index, from inside a lock-free section
	 * (mm/vma_lock.c); the VMA returned was in the index at one instant
	 * during the call. NULL: none, or writers kept it from finishing (the
	 * caller takes the mmap_lock). Only while idx->lockless is set, and
	 * then writers free no memory a reader may be looking at: they keep it
	 * (deferred: how many objects, 0 when none) until release_deferred,
	 * which the caller runs under the write lock once every read section
	 * that was running at the last change has ended (include/rcu.h).
	 */
	struct vma *(*find_lockless)(struct vma_index *idx, uintptr_t addr);
	size_t (*deferred)(struct vma_index *idx);
	void (*release_deferred)(struct vma_index *idx);
};

extern const struct vma_index_ops vma_list_ops, vma_avl_ops, vma_hash_ops, vma_rbtree_ops, vma_btree_ops;
/* The sorted list with its one-entry last-lookup cache switched on ("list+cache"). */
extern const struct vma_index_ops vma_list_cache_ops;
/* The fuzzy hash with the address-sorted list kept beside its 16 lists ("hash+list"). */
extern const struct vma_index_ops vma_hash_list_ops;

/* Bytes of one VMA object in an address space whose index is ops: struct vma, its rmap link, the backend's link. */
static inline size_t vma_alloc_size(const struct vma_index_ops *ops)
{
	return sizeof(struct vma) + sizeof(struct vma_rmap_link) + ops->link_size;
}

/* All backends in a fixed order (list, avl, hash, rbtree, btree, list+cache, hash+list), NULL-terminated. */
extern const struct vma_index_ops *const vma_backends[];
/* The backend named name, or NULL. */
const struct vma_index_ops *vma_backend_by_name(const char *name);
/* How many backends vma_backends[] holds (tests run once per backend). */
unsigned vma_backend_count(void);
/* The name of vma_backends[i], or NULL when i >= vma_backend_count(). */
const char *vma_backend_name(unsigned i);

#endif
