/*
 * x86-64 CPU helpers for arch/x86_64 and kernel-only tests: port I/O, MSRs,
 * control registers, CPUID, the trap frame, the exit codes given to QEMU,
 * and the test-only fault recovery path. Nothing outside arch/x86_64,
 * kernel/ and tests/kernel includes this header.
 */
#ifndef X86_H
#define X86_H

#include "types.h"
#include "arch.h"
#include "lockdep.h"

#define KERNEL_VMA      0xffffffff80000000UL
#define DIRECT_MAP_BASE 0xffff888000000000UL

/* GDT selectors (arch/x86_64/gdt.c): Linux's __KERNEL_CS, __KERNEL_DS, __USER_DS, __USER_CS. */
#define KERNEL_CS 0x10
#define KERNEL_DS 0x18
#define USER32_CS 0x23          /* an empty slot here: SYSRET's base (STAR[63:48]) */
#define USER_DS   0x2b          /* ring 3 data (RPL 3) */
#define USER_CS   0x33
#define TSS_SEL   0x40
#define GDT_ENTRIES 10          /* through the TSS's two slots */

/* Interrupt vectors. */
#define VEC_DE   0
#define VEC_DB   1
#define VEC_NMI  2
#define VEC_BP   3
#define VEC_UD   6
#define VEC_DF   8
#define VEC_GP   13
#define VEC_PF   14
#define VEC_PIC_BASE   0x20     /* legacy 8259 remapped here, all masked */
#define VEC_TIMER      0x40     /* LAPIC timer */
#define VEC_VIRTIO_BLK 0x48     /* virtio-blk completions (MSI-X), one per disk from here */
#define VEC_SPURIOUS   0xff
#define VEC_SYSCALL    0x100    /* not a vector: trap_frame.vector of a SYSCALL entry */

/* MSRs */
#define MSR_EFER         0xC0000080
#define MSR_FS_BASE      0xC0000100
#define MSR_GS_BASE      0xC0000101
#define MSR_KERNEL_GS_BASE 0xC0000102
#define MSR_APIC_BASE    0x1B

/* RFLAGS bits. */
#define RFLAGS_TF 0x100UL               /* single-step trap */
#define RFLAGS_IF 0x200UL               /* interrupts enabled */
#define RFLAGS_DF 0x400UL               /* string direction */
#define RFLAGS_RF 0x10000UL             /* resume: no debug fault on the next instruction */

/* Page-fault error code bits. */
#define PF_P    0x01            /* protection violation (else: not present) */
#define PF_W    0x02            /* write access */
#define PF_U    0x04            /* user mode */
#define PF_RSVD 0x08            /* reserved bit set in a paging entry */
#define PF_I    0x10            /* instruction fetch */

/*
 * The registers saved by the interrupt entry stubs (arch/x86_64/entry.asm),
 * lowest address first, then the CPU's own frame.
 */
struct trap_frame {
	uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
	uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
	uint64_t vector, error;
	uint64_t rip, cs, rflags, rsp, ss;
};

static inline void outb(uint16_t port, uint8_t v) { __asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port)); }
static inline void outw(uint16_t port, uint16_t v) { __asm__ volatile("outw %0, %1" : : "a"(v), "Nd"(port)); }
static inline void outl(uint16_t port, uint32_t v) { __asm__ volatile("outl %0, %1" : : "a"(v), "Nd"(port)); }
static inline uint8_t inb(uint16_t port) { uint8_t v; __asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port)); return v; }
static inline uint16_t inw(uint16_t port) { uint16_t v; __asm__ volatile("inw %1, %0" : "=a"(v) : "Nd"(port)); return v; }
static inline uint32_t inl(uint16_t port) { uint32_t v; __asm__ volatile("inl %1, %0" : "=a"(v) : "Nd"(port)); return v; }

static inline uint64_t rdmsr(uint32_t msr)
{
	uint32_t lo, hi;
	__asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return ((uint64_t)hi << 32) | lo;
}

static inline void wrmsr(uint32_t msr, uint64_t v)
{
	__asm__ volatile("wrmsr" : : "c"(msr), "a"((uint32_t)v), "d"((uint32_t)(v >> 32)));
}

static inline void cpuid(uint32_t leaf, uint32_t sub, uint32_t *a, uint32_t *b, uint32_t *c, uint32_t *d)
{
	__asm__ volatile("cpuid" : "=a"(*a), "=b"(*b), "=c"(*c), "=d"(*d) : "a"(leaf), "c"(sub));
}

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

#define DEFINE_CR_READ(n) \
	static inline uint64_t read_cr##n(void) { uint64_t v; __asm__ volatile("mov %%cr" #n ", %0" : "=r"(v)); return v; }
DEFINE_CR_READ(0)
DEFINE_CR_READ(2)
DEFINE_CR_READ(3)
DEFINE_CR_READ(4)
#undef DEFINE_CR_READ

static inline void write_cr0(uint64_t v) { __asm__ volatile("mov %0, %%cr0" : : "r"(v) : "memory"); }
static inline void write_cr3(uint64_t v) { __asm__ volatile("mov %0, %%cr3" : : "r"(v) : "memory"); }
static inline void write_cr4(uint64_t v) { __asm__ volatile("mov %0, %%cr4" : : "r"(v) : "memory"); }

static inline uint64_t read_rflags(void)
{
	uint64_t f;
	__asm__ volatile("pushfq; popq %0" : "=r"(f) : : "memory");
	return f;
}

static inline uint64_t read_rbp(void)
{
	uint64_t v;
	__asm__ volatile("mov %%rbp, %0" : "=r"(v));
	return v;
}

static inline void cli(void) { __asm__ volatile("cli" : : : "memory"); }
static inline void sti(void) { __asm__ volatile("sti" : : : "memory"); }
static inline void hlt(void) { __asm__ volatile("hlt" : : : "memory"); }

/* CPU features found by cpu_features_init() (arch/x86_64/cpu.c). */
struct x86_features {
	bool nx;                /* EFER.NXE usable */
	bool pdpe1gb;           /* 1 GiB pages */
	bool pge;               /* global pages */
	bool invariant_tsc;
	bool pku;               /* protection keys for user pages (CPUID 7.0 ECX bit 3) */
	bool erms;              /* enhanced rep movsb/stosb (CPUID 7.0 EBX bit 9) */
	bool smep;              /* supervisor-mode execution prevention (CPUID 7.0 EBX bit 7) */
	bool smap;              /* supervisor-mode access prevention (CPUID 7.0 EBX bit 20) */
	bool hypervisor;        /* running under one (CPUID 1 ECX bit 31) */
	bool pcid;              /* process-context ids (CPUID 1 ECX bit 17); not used */
	bool invpcid;           /* INVPCID (CPUID 7.0 EBX bit 10); not used */
	bool x2apic;            /* x2APIC mode (CPUID 1 ECX bit 21): used unless x2apic=off */
	unsigned family;        /* CPUID 1 EAX: the family, extended family added */
	char vendor[13];
};
extern struct x86_features x86_cpu;
void cpu_features_init(void);
/*
 * cpu_features_report: print the CPU features the kernel looks for, as
 * found (CPUID) and as used (turned on by this kernel); call once the
 * page tables, PKU and SMEP/SMAP are set up.
 */
void cpu_features_report(void);
/*
 * Turn protection keys on when the CPU has them and allow is true (kernel
 * option pku=on): CR4.PKE, and PKRU_INIT in this CPU's PKRU. Sets
 * x86_pku_enabled. Call once per CPU after cpu_features_init.
 */
void x86_pku_init(bool allow);
/* x86_pku_init_cpu: the same on another CPU once x86_pku_init decided (CR4.PKE, PKRU). */
void x86_pku_init_cpu(void);
/*
 * x86_smap_init: turn SMEP and SMAP on (CR4 bits 20, 21) when the CPU has
 * them, once the kernel page tables are loaded; sets x86_smap_enabled,
 * which the entry path (CLAC) and the copy helpers (STAC/CLAC,
 * arch/x86_64/uaccess.asm) read: those instructions fault as undefined on
 * a CPU without SMAP. From then on the kernel reaches user pages only
 * inside the copy helpers; any other access faults (reported as an SMAP
 * or SMEP violation, trap_report.c). x86_smap_init_cpu: the same on an
 * application processor once the boot CPU decided.
 */
void x86_smap_init(void);
void x86_smap_init_cpu(void);
extern uint8_t x86_smap_enabled, x86_smep_enabled;
/*
 * x86_fault_violation: "SMAP violation" when the kernel-mode page fault in
 * tf touched a user page outside the copy helpers with SMAP on, "SMEP
 * violation" when it fetched an instruction from one with SMEP on, else NULL.
 */
struct trap_frame;
const char *x86_fault_violation(const struct trap_frame *tf, uint64_t cr2);

/* Linux's init_pkru_value: key 0 open, keys 1..15 access-disabled. */
#define PKRU_INIT 0x55555554u

static inline uint32_t rdpkru(void)
{
	uint32_t eax, edx;
	__asm__ volatile("rdpkru" : "=a"(eax), "=d"(edx) : "c"(0));
	return eax;
}

static inline void wrpkru(uint32_t v)
{
	__asm__ volatile("wrpkru" : : "a"(v), "c"(0), "d"(0) : "memory");
}

/* GDT + TSS (IST1: double fault, IST2: NMI) of the boot CPU; gdt_init_cpu: of any CPU (gdt.c). */
#define IST_STACK_SIZE 8192
void gdt_init(void);
void gdt_init_cpu(unsigned cpu, uint64_t df_top, uint64_t nmi_top);
/* Set this CPU's TSS ring-0 stack (where interrupts from user mode land). */
void tss_set_rsp0(uint64_t rsp0);
/* SYSCALL/SYSRET MSRs (STAR, LSTAR, FMASK, EFER.SCE) and SSE (CR0/CR4) for user mode. */
void syscall_init(void);
void syscall_init_cpu(void);
/* Leave the kernel into user mode with the frame at rsp (entry.asm: the trap return path). */
extern const char trap_return[];

/* IDT with every vector wired to the common trap entry; idt_load: load it on another CPU. */
void idt_init(void);
void idt_load(void);

/* An interrupt handler for a non-exception vector; runs with interrupts off. */
typedef void (*irq_handler_t)(struct trap_frame *tf);
void irq_register(unsigned vector, irq_handler_t fn);

/* A human name for exception vector v (< 32), else "interrupt". */
const char *x86_exception_name(unsigned v);

/* Print the exception report (vector, error code, CR2, registers, backtrace). */
void trap_report(const struct trap_frame *tf);

/* Backtrace from a given frame pointer, after printing rip (if non-zero) first. */
void x86_backtrace_from(uint64_t rip, uint64_t rbp);
/*
 * x86_print_interrupted: where tf interrupted: its kernel call trace (as
 * x86_backtrace_from), or the user address; each line begun with prefix
 * (a CPU's report among others').
 */
void x86_print_interrupted(const char *prefix, const struct trap_frame *tf);

/*
 * 16550 UART on COM1: the kernel log. uart_putc waits for the transmitter
 * (QEMU holds it busy while its reader is slow, so nothing is lost); only
 * a transmitter that stays busy for UART_DEAD_MS is given up on, and the
 * bytes dropped from then on are counted (uart_lost_bytes). uart_getc: a
 * received byte, or -1 when none is waiting.
 */
#define UART_DEAD_MS 2000
void uart_init(void);
void uart_putc(char c);
int uart_getc(void);
uint64_t uart_lost_bytes(void);

/* PCI configuration space (mechanism 1, bus 0): arch/x86_64/pci.c. */
uint32_t pci_read32(unsigned dev, unsigned off);
void pci_write32(unsigned dev, unsigned off, uint32_t v);
/*
 * pci_msix_route: enable MSI-X on dev (its table in a memory BAR the
 * firmware assigned) with table entry `entry` sending `vector` to the
 * local APIC apic_id (fixed, edge; xAPIC-format address, so apic_id <=
 * 255). 0, or -1 when dev has no usable MSI-X (the caller polls).
 */
int pci_msix_route(unsigned dev, unsigned entry, unsigned vector, uint32_t apic_id);

/*
 * LAPIC timer: calibrated against the HPET, the ACPI PM timer or the PIT
 * (clockref.c), then periodic at TIMER_HZ.
 * timer_ticks counts ticks since timer_init on CPU 0 (written only by CPU 0's
 * timer interrupt: read it with READ_ONCE).
 */
#define TIMER_HZ 1000
struct boot_info;
/*
 * timer_init: enable the LAPIC (x2APIC mode when the CPU has it and
 * want_x2apic, or the firmware left it so), calibrate (ACPI tables from
 * bi's RSDP unless use_acpi is false) and start the tick.
 */
void timer_init(const struct boot_info *bi, bool use_acpi, bool want_x2apic);
/* The reference the boot calibrated against: "HPET", "ACPI PM timer" or "PIT". */
extern const char *timer_reference;
extern uint64_t timer_ticks;
extern uint64_t tsc_khz;                /* calibrated TSC frequency, kHz */
extern uint32_t lapic_timer_khz;        /* LAPIC timer input clock after divide, kHz */
void lapic_eoi(void);
/* Local APIC register offsets (lapic.c) and the running CPU's APIC id. */
#define LAPIC_ID       0x020
#define LAPIC_ICR_LOW  0x300
#define LAPIC_ICR_HIGH 0x310
uint32_t lapic_id(void);
/* The LAPICs are in x2APIC mode (MSR access, 32-bit APIC ids): set by timer_init. */
extern bool x2apic_enabled;
/*
 * nmi_stop_handler: an NMI sent by arch_stop_other_cpus (panic_stop.c):
 * report this CPU's task and call trace and halt; false for any other NMI.
 */
bool nmi_stop_handler(const struct trap_frame *tf);
/* lapic_send_icr: send an IPI (ICR low word low) to apic_id, in either mode. */
void lapic_send_icr(uint32_t apic_id, uint32_t low);
/* lapic_timer_count: the running CPU's LAPIC timer current count (it counts down). */
uint32_t lapic_timer_count(void);
/* lapic_init_cpu: enable an application processor's LAPIC and start its timer (after timer_init). */
void lapic_init_cpu(void);

/* ---- Firmware tables (arch/x86_64/acpi.c) ---- */

/* An ACPI system description table's header. */
struct sdt_header {
	char sig[4];
	uint32_t length;
	uint8_t revision, checksum;
	char oem[6], oem_table[8];
	uint32_t oem_rev, creator, creator_rev;
} __attribute__((packed));

/* fw_map: len bytes of firmware memory at pa, readable (uncached outside RAM), or NULL. */
const void *fw_map(phys_addr_t pa, size_t len);
/* fw_sum_ok: the len bytes at p add up to 0 (mod 256). */
bool fw_sum_ok(const void *p, size_t len);
/* fw_scan_bios: sig (siglen bytes, checksum over sumlen) in the EBDA's first KiB or 0xE0000-0xFFFFF. */
const void *fw_scan_bios(const char *sig, size_t siglen, size_t sumlen);
/*
 * acpi_find_table: the ACPI table with signature sig (4 bytes, e.g.
 * "APIC", "HPET", "FACP") with a valid checksum, through the XSDT (ACPI
 * 2+) or the RSDT; rsdp: the loader's copy of the RSDP (rsdp_len bytes),
 * or rsdp_len 0 to scan the BIOS areas for it. NULL when there is none.
 */
const struct sdt_header *acpi_find_table(const char *sig, const void *rsdp, size_t rsdp_len);

/* ---- Reference clocks for calibration (arch/x86_64/clockref.c) ---- */

/* A free-running counter of known frequency: the HPET's or the ACPI PM timer. */
struct clockref {
	const char *name;               /* "HPET", "ACPI PM timer" */
	uint64_t hz;
	uint64_t mask;                  /* the counter's width: it wraps at mask + 1 */
	void *hpet;                     /* HPET: its registers (MMIO, clockref.c reads); NULL for the others */
	uint16_t port;                  /* PM timer: its I/O port */
};
/* The reference, the TSC and the LAPIC timer's current count, read together. */
struct clock_sample {
	uint64_t ref, tsc;
	uint32_t lapic;
	uint64_t width;                 /* reference ticks between the reads around them */
};
/* Rates measured against a reference, and the span measured, in reference ticks. */
struct clock_calib {
	uint64_t tsc_khz;
	uint64_t lapic_khz;             /* LAPIC timer count rate (after its divider) */
	uint64_t ref_ticks;
	uint64_t bracket;               /* the wider end's bracket, reference ticks */
};
/* clockref_init: find the HPET and the ACPI PM timer (ACPI tables; none when use_acpi is false). */
void clockref_init(bool use_acpi, const void *rsdp, size_t rsdp_len);
/* The HPET and the PM timer clockref_init found, or NULL; the PIT (always: it may not count). */
const struct clockref *clockref_hpet(void);
const struct clockref *clockref_pm_timer(void);
const struct clockref *clockref_pit(void);
/* clockref_read: the reference's counter now (masked to its width). */
uint64_t clockref_read(const struct clockref *r);
/*
 * clockref_calibrate: the TSC's and the LAPIC timer's rates over at least
 * ms milliseconds (at most 50) of r; each end of the span is read within
 * c->bracket / 2 of r's time (at most 100 us but on slow hypervisors).
 * False when r does not count (then c is unset).
 */
bool clockref_calibrate(const struct clockref *r, unsigned ms, struct clock_calib *c);

/* ---- SMP (arch/x86_64/cpu_enum.c, smp.c, ipi.c) ---- */

/* The CPUs the firmware describes: APIC ids, the boot CPU's first. */
struct cpu_enum {
	unsigned n;                     /* CPUs found (at most NR_CPUS) */
	unsigned ignored;               /* enabled CPUs beyond NR_CPUS */
	uint32_t apic_id[NR_CPUS];
	const char *source;             /* "ACPI MADT", "MP tables", ... */
};
void cpu_enumerate(struct cpu_enum *e, uint32_t boot_apic_id, bool use_acpi,
		   const void *rsdp, size_t rsdp_len);

/* The APIC id of each CPU index (valid for online CPUs). */
extern uint32_t cpu_apic_id[NR_CPUS];

/*
 * smp_init: find the CPUs and start up to max_cpus of them (the boot CPU
 * included) through the trampoline (boot/ap_trampoline.asm); each runs
 * ap_main and then its idle loop. After timer_init and sched_init, with
 * interrupts on. Prints how many CPUs came up.
 */
struct boot_info;
void smp_init(const struct boot_info *bi, bool use_acpi, unsigned max_cpus);

/* IPI vectors. */
#define VEC_RESCHED    0xf0     /* wake an idle CPU: work was queued for it */
#define VEC_TLB        0xf1     /* TLB shootdown request (x86_tlb.c) */
#define VEC_KSTACK_FLUSH 0xf3   /* drop freed kernel-stack mappings from the TLB (kstack.c) */
#define VEC_BACKTRACE  0xf4     /* print where this CPU is (a hang report: ipi.c) */

/*
 * kstack_area_init: the kernel-stack area's page tables (one slot per
 * KSTACK_SIZE of RAM) and its flush IPI; after the pmm is up, before the
 * first address space. kstack_guard_hit: addr lies in the guard below a
 * kernel stack (an area slot's, or the boot stack's): a kernel stack
 * overflow.
 */
void kstack_area_init(void);
bool kstack_guard_hit(uintptr_t addr);
/* For tests: the number of kernel-stack slots; how many times stale slots were flushed and freed. */
unsigned kstack_slot_count(void);
unsigned long kstack_flush_count(void);
/* Reschedule IPIs each CPU has taken (only that CPU writes its counter). */
extern unsigned long ipi_resched_received[NR_CPUS];
/* ipi_init: install the IPI handlers (once, on the boot CPU). */
void ipi_init(void);
/* lapic_send_ipi: a fixed IPI with vector to the CPU whose APIC id is apic_id. */
void lapic_send_ipi(uint32_t apic_id, unsigned vector);
/* INIT and STARTUP IPIs of the INIT-SIPI-SIPI sequence (smp.c). */
void lapic_send_init(uint32_t apic_id);
void lapic_send_startup(uint32_t apic_id, unsigned page);


/*
 * QEMU's isa-debug-exit device (iobase 0xf4): writing v makes QEMU exit
 * with status (v << 1) | 1. The codes and the statuses tools/qemu-run sees:
 *   QEMU_EXIT_PASS   0 -> 1   all selected tests passed
 *   QEMU_EXIT_FAIL   1 -> 3   some test failed
 *   QEMU_EXIT_PANIC  2 -> 5   panic or unexpected exception
 *   QEMU_EXIT_NOMEM  3 -> 7   not enough memory to boot
 * (status 0 is a triple fault / reset with -no-reboot; 124 is timeout(1)).
 * Without the device, the CPU halts forever with interrupts off.
 */
#define QEMU_EXIT_PASS  0
#define QEMU_EXIT_FAIL  1
#define QEMU_EXIT_PANIC 2
#define QEMU_EXIT_NOMEM 3
__attribute__((noreturn)) void qemu_exit(unsigned code);

/*
 * Test-only fault recovery. arch_fault_catch() runs fn(arg); if fn raises a
 * CPU exception (vectors 0..31 except NMI and #DF) in kernel mode, the
 * exception is reported briefly, recorded in *info, and arch_fault_catch
 * returns 1 as if fn had returned. Returns 0 when fn returned normally.
 * Only for tests: the faulting function's locks and state are abandoned.
 * Nestable (the innermost catch takes the fault). A panic inside fn ends
 * the same way, with info->vector = ARCH_FAULT_PANIC (arch_panic_recover).
 */
struct arch_fault_info {
	unsigned vector;
	uint64_t error;
	uint64_t cr2;
	uint64_t rip;
	const char *violation;  /* x86_fault_violation's verdict (backtrace printed), or NULL */
};
int arch_fault_catch(void (*fn)(void *), void *arg, struct arch_fault_info *info);
#define ARCH_FAULT_PANIC 256          /* info->vector of a panic taken by arch_fault_catch */

/* Called by the trap dispatcher: 1 when the fault was taken by arch_fault_catch. */
int fault_recover(struct trap_frame *tf);

struct arch_mmu;

/* Per-CPU area reached through GS base. */
struct percpu {
	struct percpu *self;    /* offset 0 */
	unsigned cpu_id;        /* offset 8 */
	unsigned irq_depth;     /* nesting of interrupt handlers */
	void *fault_catch;      /* the running task's armed arch_fault_catch, or NULL */
	/* Offsets 24..40 are used by the SYSCALL entry (arch/x86_64/uentry.asm). */
	uint64_t user_rsp;      /* offset 24: user rsp saved by the SYSCALL entry */
	uint64_t kstack_top;    /* offset 32: top of the running task's kernel stack */
	void *cur_task;         /* offset 40: the running struct task */
	struct lockdep_held held;       /* spinning locks this CPU holds (lib/lockdep.c) */
	struct arch_mmu *mm_loaded;     /* user address space in CR3 (NULL: the kernel's), x86_tlb.c */
	bool mm_lazy;                   /* kept only lazily: a kernel thread or idle runs */
};
extern struct percpu percpu_area[];
void percpu_init_boot(void);
/* percpu_init_cpu: point the running CPU's GS base at percpu_area[cpu]. */
void percpu_init_cpu(unsigned cpu);

static inline struct percpu *this_cpu(void)
{
	struct percpu *p;
	__asm__ volatile("mov %%gs:0, %0" : "=r"(p));
	return p;
}

#endif
