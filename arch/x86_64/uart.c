/*
 * 16550 UART on COM1 (0x3f8), 115200 8N1, polled: the kernel log (output)
 * and tools/run's control messages (input, fs/console_file.c).
 *
 * Output waits for the transmitter to take each byte: QEMU keeps it busy
 * while the host side does not read, which is the back-pressure that
 * makes the log lossless. Only when it stays busy for UART_DEAD_MS (a
 * device that never answers) is the byte dropped; from then on bytes are
 * dropped at once and counted, until the transmitter takes one again.
 */
#include "x86.h"

#define COM1 0x3f8
#define UART_THR 0      /* transmit holding (DLAB=0) */
#define UART_RBR 0      /* receive buffer (DLAB=0) */
#define UART_IER 1
#define UART_FCR 2
#define UART_LCR 3
#define UART_MCR 4
#define UART_LSR 5
#define LSR_DR   0x01
#define LSR_THRE 0x20
/* Before the TSC is calibrated: assume at most this many cycles per ms (a 10 GHz CPU). */
#define CYCLES_PER_MS_MAX 10000000ULL

static bool uart_present, uart_dead;
static uint64_t lost;

/* uart_init: program COM1; if no UART answers the loopback check, output is dropped. */
void uart_init(void)
{
	outb(COM1 + UART_IER, 0x00);            /* no interrupts */
	outb(COM1 + UART_LCR, 0x80);            /* DLAB */
	outb(COM1 + 0, 1);                      /* divisor 1: 115200 baud */
	outb(COM1 + 1, 0);
	outb(COM1 + UART_LCR, 0x03);            /* 8N1 */
	outb(COM1 + UART_FCR, 0xC7);            /* FIFOs on, cleared, 14-byte threshold */
	outb(COM1 + UART_MCR, 0x1E);            /* loopback test */
	outb(COM1 + UART_THR, 0xAE);
	uart_present = inb(COM1 + UART_THR) == 0xAE;
	outb(COM1 + UART_MCR, 0x03);            /* DTR, RTS; normal operation */
}

/* Wait for THRE for at most UART_DEAD_MS of TSC time; false if it never came. */
static bool wait_transmitter(void)
{
	uint64_t per_ms = tsc_khz ? tsc_khz : CYCLES_PER_MS_MAX;
	uint64_t start = rdtsc();

	while (!(inb(COM1 + UART_LSR) & LSR_THRE)) {
		if (uart_dead || rdtsc() - start > per_ms * UART_DEAD_MS)
			return false;
		__asm__ volatile("pause");
	}
	return true;
}

/* uart_putc: write one byte once the transmitter takes it (see above). */
void uart_putc(char c)
{
	if (!uart_present)
		return;
	if (!wait_transmitter()) {
		uart_dead = true;
		lost++;
		return;
	}
	uart_dead = false;
	outb(COM1 + UART_THR, (uint8_t)c);
}

int uart_getc(void)
{
	if (!uart_present || !(inb(COM1 + UART_LSR) & LSR_DR))
		return -1;
	return inb(COM1 + UART_RBR);
}

uint64_t uart_lost_bytes(void)
{
	return lost;
}
