/* Intrusive circular doubly linked list (a struct list_head inside each element). */
#ifndef LIST_H
#define LIST_H

#include "kernel.h"

struct list_head {
	struct list_head *next, *prev;
};

#define LIST_HEAD_INIT(name) { &(name), &(name) }

static inline void list_init(struct list_head *h) { h->next = h->prev = h; }
static inline bool list_empty(const struct list_head *h) { return h->next == h; }
/* Does h hold exactly one entry? */
static inline bool list_is_singular(const struct list_head *h) { return h->next != h && h->next == h->prev; }

static inline void __list_link(struct list_head *n, struct list_head *prev, struct list_head *next)
{
	next->prev = n;
	n->next = next;
	n->prev = prev;
	prev->next = n;
}

/* Insert n right after h (at the front when h is the head). */
static inline void list_add(struct list_head *n, struct list_head *h) { __list_link(n, h, h->next); }
/* Insert n right before h (at the tail when h is the head). */
static inline void list_add_tail(struct list_head *n, struct list_head *h) { __list_link(n, h->prev, h); }

static inline void list_del(struct list_head *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
	n->next = n->prev = n;
}

#define list_entry(ptr, type, member) container_of(ptr, type, member)
#define list_first_entry(h, type, member) list_entry((h)->next, type, member)
#define list_for_each(pos, h) for (pos = (h)->next; pos != (h); pos = pos->next)
#define list_for_each_safe(pos, tmp, h) \
	for (pos = (h)->next, tmp = pos->next; pos != (h); pos = tmp, tmp = pos->next)

#endif
