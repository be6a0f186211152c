/* 16550 UART on COM1 (0x3f8), 115200 8N1, polled output. */
#include "x86.h"

#define COM1 0x3f8
#define UART_THR 0      /* transmit holding (DLAB=0) */
#define UART_IER 1
#define UART_FCR 2
#define UART_LCR 3
#define UART_MCR 4
#define UART_LSR 5
#define LSR_THRE 0x20

static bool uart_present;

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

/* uart_putc: write one byte, waiting for the transmitter (bounded wait). */
void uart_putc(char c)
{
	if (!uart_present)
		return;
	for (unsigned spins = 0; !(inb(COM1 + UART_LSR) & LSR_THRE) && spins < 100000; spins++)
		__asm__ volatile("pause");
	outb(COM1 + UART_THR, (uint8_t)c);
}
