/*
 * Swap areas and their slots (include/swap.h): Linux's mm/swapfile.c in
 * small. Each area is a block device seen as slots of one page; its
 * swap_map holds each slot's reference count (0: free, SWAP_MAP_BAD: slot
 * 0, never handed out). Allocation is next fit from where the last one
 * ended, wrapping once, as Linux's scan_swap_map before clusters.
 * Arch-independent: the device is reached only through include/blockdev.h.
 *
 * Lock: swap_lock (class swap, spinning, include/lock_order.h) protects
 * every field of every area; I/O runs without it, on slots the caller
 * holds a reference to (so the area cannot go: swap_off refuses an area
 * with slots in use).
 */
#include "swap.h"
#include "blockdev.h"
#include "kerrno.h"
#include "kstring.h"
#include "pmm.h"
#include "printk.h"
#include "slab.h"
#include "spinlock.h"

#define SWAP_MAP_BAD   0xffff
/* The map comes from kmalloc: at most one buddy block of PMM_MAX_ORDER. */
#define SWAP_MAX_SLOTS ((PAGE_SIZE << PMM_MAX_ORDER) / sizeof(uint16_t))

struct swap_area {
	struct blockdev *dev;           /* [swap_lock] NULL: this type is not on */
	unsigned long nslots;           /* [swap_lock] slots, slot 0 included */
	unsigned long inuse;            /* [swap_lock] slots with references */
	unsigned long next;             /* [swap_lock] where the next search starts */
	uint16_t *map;                  /* [swap_lock] references of each slot */
};

static struct swap_area areas[MAX_SWAPFILES];
static struct spinlock swap_lock = SPINLOCK_INIT_CLASS("swap", LOCK_CLASS_SWAP);

/* The area of type, if on. swap_lock held. */
static struct swap_area *area_locked(unsigned type)
{
	return type < MAX_SWAPFILES && areas[type].dev ? &areas[type] : NULL;
}

/* The map entry of an allocated-or-free slot of entry (never slot 0), or NULL. swap_lock held. */
static uint16_t *slot_locked(swp_entry_t entry, struct swap_area **out)
{
	struct swap_area *a = area_locked(swp_type(entry));
	unsigned long off = swp_offset(entry);

	if (!a || off == 0 || off >= a->nslots)
		return NULL;
	if (out)
		*out = a;
	return &a->map[off];
}

/* A free slot of a, taken with one reference; 0 when a is full. swap_lock held. */
static unsigned long scan_locked(struct swap_area *a)
{
	unsigned long n = a->nslots - 1;

	if (a->inuse == n)
		return 0;
	for (unsigned long i = 0; i < n; i++) {
		unsigned long off = 1 + (a->next - 1 + i) % n;

		if (a->map[off] == 0) {
			a->map[off] = 1;
			a->inuse++;
			a->next = off + 1 < a->nslots ? off + 1 : 1;
			return off;
		}
	}
	return 0;
}

/* How far a run of free slots is looked for past the allocation point: a bounded scan, under swap_lock. */
#define RUN_SEARCH 8192

/*
 * n free slots of a in a row (n >= 2), from the allocation point on (no
 * run wraps past the end), taken with one reference each into off[]; 0
 * when none is found within RUN_SEARCH slots. swap_lock held.
 */
static unsigned long take_run_locked(struct swap_area *a, unsigned n, unsigned long *off)
{
	unsigned long slots = a->nslots - 1, run = 0, start = 0;

	for (unsigned long i = 0; i < MIN(slots, (unsigned long)RUN_SEARCH) && run < n; i++) {
		unsigned long o = 1 + (a->next - 1 + i) % slots;

		if (o == 1 || a->map[o])
			run = 0;
		if (a->map[o])
			continue;
		if (!run)
			start = o;
		run++;
	}
	if (run < n)
		return 0;
	for (unsigned k = 0; k < n; k++) {
		a->map[start + k] = 1;
		off[k] = start + k;
	}
	a->inuse += n;
	a->next = start + n < a->nslots ? start + n : 1;
	return n;
}

/* A free type for dev: -EBUSY if dev is an area already, -ENOSPC if every type is taken. swap_lock held. */
static int free_type_locked(struct blockdev *dev)
{
	int type = -ENOSPC;

	for (unsigned i = 0; i < MAX_SWAPFILES; i++) {
		if (areas[i].dev == dev)
			return -EBUSY;
		if (!areas[i].dev && type < 0)
			type = (int)i;
	}
	return type;
}

int swap_on(struct blockdev *dev)
{
	unsigned long nslots;
	uint16_t *map;
	int type;

	if (!dev || dev->capacity / SWAP_SECTORS_PER_SLOT < 2)
		return -EINVAL;
	swap_io_init();
	nslots = (unsigned long)MIN(dev->capacity / SWAP_SECTORS_PER_SLOT, (uint64_t)SWAP_MAX_SLOTS);
	map = kzalloc(nslots * sizeof(*map));
	if (!map)
		return -ENOMEM;
	map[0] = SWAP_MAP_BAD;
	spin_lock(&swap_lock);
	type = free_type_locked(dev);
	if (type >= 0) {
		struct swap_area *a = &areas[type];

		a->nslots = nslots;
		a->inuse = 0;
		a->next = 1;
		a->map = map;
		a->dev = dev;
	}
	spin_unlock(&swap_lock);
	if (type < 0)
		kfree(map);
	return type;
}

int swap_off(unsigned type)
{
	struct swap_area *a;
	uint16_t *map = NULL;
	int r = 0;

	swap_cache_shrink();
	spin_lock(&swap_lock);
	a = area_locked(type);
	if (!a)
		r = -EINVAL;
	else if (a->inuse)
		r = -EBUSY;
	else {
		map = a->map;
		a->map = NULL;
		a->dev = NULL;
	}
	spin_unlock(&swap_lock);
	kfree(map);
	return r;
}

int swap_type_of(struct blockdev *dev)
{
	int type = -ENODEV;

	spin_lock(&swap_lock);
	for (unsigned i = 0; i < MAX_SWAPFILES; i++)
		if (dev && areas[i].dev == dev)
			type = (int)i;
	spin_unlock(&swap_lock);
	return type;
}

int swap_boot_enable(const char *name)
{
	struct blockdev *dev = blockdev_find(name);
	int type;

	if (!dev) {
		printk("swap: swap=%s: no such block device; no swap\n", name);
		return -ENODEV;
	}
	type = swap_on(dev);
	if (type < 0) {
		printk("swap: %s: cannot swap on it (%s); no swap\n", name, errno_name(type));
		return type;
	}
	printk("swap: %s, %llu KiB, %lu slots\n", name, (unsigned long long)(dev->capacity / 2),
	       swap_area_pages((unsigned)type));
	return 0;
}

int swap_slot_alloc_type(unsigned type, swp_entry_t *entry)
{
	struct swap_area *a;
	unsigned long off = 0;
	int r = -EINVAL;

	spin_lock(&swap_lock);
	a = area_locked(type);
	if (a) {
		off = scan_locked(a);
		r = off ? 0 : -ENOSPC;
	}
	spin_unlock(&swap_lock);
	if (r == 0)
		*entry = swp_entry(type, off);
	return r;
}

int swap_slot_alloc(swp_entry_t *entry)
{
	for (unsigned type = 0; type < MAX_SWAPFILES; type++)
		if (swap_slot_alloc_type(type, entry) == 0)
			return 0;
	return -ENOSPC;
}

unsigned swap_slots_alloc_type(unsigned type, swp_entry_t *entries, unsigned n)
{
	unsigned long off[SWAP_RUN];
	struct swap_area *a;
	unsigned got = 0;

	n = MIN(n, (unsigned)SWAP_RUN);
	spin_lock(&swap_lock);
	a = area_locked(type);
	if (a && n > 1 && n <= a->nslots - 1 - a->inuse)
		got = (unsigned)take_run_locked(a, n, off);
	while (a && got < n && (off[got] = scan_locked(a)) != 0)
		got++;
	spin_unlock(&swap_lock);
	for (unsigned k = 0; k < got; k++)
		entries[k] = swp_entry(type, off[k]);
	return got;
}

unsigned swap_slots_alloc(swp_entry_t *entries, unsigned n)
{
	unsigned got = 0;

	for (unsigned type = 0; type < MAX_SWAPFILES && !got; type++)
		got = swap_slots_alloc_type(type, entries, n);
	return got;
}

int swap_slot_dup(swp_entry_t entry)
{
	uint16_t *m;
	int r = 0;

	spin_lock(&swap_lock);
	m = slot_locked(entry, NULL);
	if (!m || *m == 0)
		r = -EINVAL;
	else if (*m >= SWAP_MAP_MAX)
		r = -ENOMEM;
	else
		(*m)++;
	spin_unlock(&swap_lock);
	return r;
}

int swap_slot_free(swp_entry_t entry)
{
	struct swap_area *a;
	uint16_t *m;
	int r;

	spin_lock(&swap_lock);
	m = slot_locked(entry, &a);
	if (!m || *m == 0) {
		r = -EINVAL;
	} else {
		r = --(*m);
		if (r == 0)
			a->inuse--;
	}
	spin_unlock(&swap_lock);
	return r;
}

int swap_slot_count(swp_entry_t entry)
{
	uint16_t *m;
	int r;

	spin_lock(&swap_lock);
	m = slot_locked(entry, NULL);
	r = m ? *m : -EINVAL;
	spin_unlock(&swap_lock);
	return r;
}

/* The device of an allocated slot, or NULL. */
static struct blockdev *slot_device(swp_entry_t entry)
{
	struct swap_area *a;
	struct blockdev *dev = NULL;
	uint16_t *m;

	spin_lock(&swap_lock);
	m = slot_locked(entry, &a);
	if (m && *m)
		dev = a->dev;
	spin_unlock(&swap_lock);
	return dev;
}

int swap_rw_run(swp_entry_t first, void *buf, unsigned n, bool write)
{
	struct blockdev *dev = slot_device(first);
	swp_entry_t last = swp_entry(swp_type(first), swp_offset(first) + n - 1);
	uint64_t sector = (uint64_t)swp_offset(first) * SWAP_SECTORS_PER_SLOT;

	if (!dev || !buf || !n || (n > 1 && slot_device(last) != dev))
		return -EINVAL;
	return write ? blockdev_write_behind(dev, sector, buf, n * SWAP_SECTORS_PER_SLOT) :
		       blockdev_read(dev, sector, buf, n * SWAP_SECTORS_PER_SLOT);
}

int swap_write_page(swp_entry_t entry, struct page *page)
{
	return page ? swap_rw_run(entry, page_address(page), 1, true) : -EINVAL;
}

int swap_read_page(swp_entry_t entry, struct page *page)
{
	return page ? swap_rw_run(entry, page_address(page), 1, false) : -EINVAL;
}

/* Sum over the areas on of their slots (free_only: of their free slots). */
static unsigned long count_slots(bool free_only)
{
	unsigned long n = 0;

	spin_lock(&swap_lock);
	for (unsigned i = 0; i < MAX_SWAPFILES; i++)
		if (areas[i].dev)
			n += areas[i].nslots - 1 - (free_only ? areas[i].inuse : 0);
	spin_unlock(&swap_lock);
	return n;
}

unsigned long swap_total_pages(void)
{
	return count_slots(false);
}

unsigned long swap_free_pages(void)
{
	return count_slots(true);
}

unsigned long swap_area_pages(unsigned type)
{
	struct swap_area *a;
	unsigned long n;

	spin_lock(&swap_lock);
	a = area_locked(type);
	n = a ? a->nslots - 1 : 0;
	spin_unlock(&swap_lock);
	return n;
}

unsigned long swap_area_free(unsigned type)
{
	struct swap_area *a;
	unsigned long n;

	spin_lock(&swap_lock);
	a = area_locked(type);
	n = a ? a->nslots - 1 - a->inuse : 0;
	spin_unlock(&swap_lock);
	return n;
}
