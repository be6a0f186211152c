/*
 * Private to mm/vma_index/btree.c (and to the tests and tools that look at
 * its nodes): the node layout of the `btree` VMA index. See the design note
 * at the top of mm/vma_index/btree.c.
 */
#ifndef MM_VMA_BTREE_H
#define MM_VMA_BTREE_H

#include "vma.h"

#define BT_SLOTS      12     /* slots per node, leaf and internal alike */
#define BT_MIN        3      /* fewest slots in a node other than the root */
#define BT_EDGE_KEEP  10     /* slots kept in the full half when a node splits at its edge */
#define BT_MAX_HEIGHT 24     /* a tree of height h holds >= 2 * 3^(h-1) VMAs: 24 levels is > 2^37 */
#define BT_PATH_LEVELS 15    /* levels the last find's path records: trees of < 28.7M VMAs */
#define BT_SPARE_KEEP 64     /* spare nodes kept beyond what reserve asked for */
#define BT_AUX_SAT    UINT32_MAX  /* aux saturates here: 2^32 - 1 pages (16 TiB) or more */
#define BT_LOCKLESS_TRIES 64 /* find_lockless starts over at most this often, then gives up */

/*
 * One 256-byte node (four cache lines). Slot i of a leaf is the VMA ptr[i]
 * = [key[i] - aux[i] pages, key[i]); slot i of an internal node is the
 * child ptr[i], key[i] being the largest VMA end below it and aux[i] the
 * largest free gap it owns, in pages (see the design note). Slots past nr
 * have key UINTPTR_MAX and aux 0, so searches scan all BT_SLOTS keys and
 * maxima all BT_SLOTS auxes without looking at nr.
 *
 * Laid out for a lookup, which reads keys and one pointer: line 0 holds
 * key[0..7] (both keys of bt_slot's first round), line 1 key[8..11] and
 * ptr[0..3], line 2 ptr[4..11], line 3 what lookups do not read (aux, the
 * counts, the spare link). A step of a find thus touches two lines, three
 * when the answer is in slots 8..11.
 */
struct btree_node {
	uintptr_t key[BT_SLOTS];      /* leaf: VMA end; internal: largest end below the child */
	union {
		struct vma *vma[BT_SLOTS];            /* leaf */
		struct btree_node *child[BT_SLOTS];   /* internal */
		void *ptr[BT_SLOTS];                  /* either, for moving slots */
	};
	uint32_t aux[BT_SLOTS];       /* leaf: VMA length; internal: child's largest gap; pages, saturating */
	uint8_t nr;                   /* slots in use */
	uint8_t leaf;                 /* 1: slots are VMAs, 0: slots are children */
	uint8_t pad[6];
	struct btree_node *next_spare; /* link in the spare pool (nodes outside the tree) */
} __attribute__((aligned(64)));

_Static_assert(sizeof(struct btree_node) == 256, "btree node must be 256 bytes");

/* The per-index state (struct vma_index.state, BT(idx)). The B-tree keeps no link in the VMAs. */
struct __attribute__((may_alias)) bt_state {
	struct btree_node *root;
	unsigned height;
	struct btree_node *spare;     /* reserved nodes (reserve), linked through next_spare */
	unsigned nspare;
	size_t nodes;                 /* nodes in the tree */
	struct btree_node *cache;     /* leaf of the last lookup (next/prev shortcut); NULL after any change */
	uint64_t last_path;           /* slots on the last lookup's path, 0 after any change (btree.c) */
	uint32_t seq;                 /* with idx->lockless: odd while insert, erase or update
	                               *   changes the tree (bt_find_lockless reads it, btree.c) */
};
VMA_INDEX_STATE_FITS(struct bt_state);

#define BT(idx) VMA_INDEX_STATE(idx, struct bt_state)

#endif
