/* CRC-32C: the SSE4.2 crc32 instruction where the CPU has it (three interleaved streams joined with
 * the CRC's linearity), else a slicing-by-8 table. Plain C11, no Python. */
#include "crc32c.h"

#include <string.h>

#define POLY 0x82f63b78u /* Castagnoli, reflected */

static uint32_t table[8][256];
static int table_ready;

static void init_table(void) {
  for (uint32_t i = 0; i < 256; i++) {
    uint32_t c = i;
    for (int k = 0; k < 8; k++) c = (c & 1) ? (c >> 1) ^ POLY : c >> 1;
    table[0][i] = c;
  }
  for (uint32_t i = 0; i < 256; i++) {
    for (int t = 1; t < 8; t++) table[t][i] = (table[t - 1][i] >> 8) ^ table[0][table[t - 1][i] & 0xff];
  }
  table_ready = 1;
}

static uint64_t load64(const unsigned char* p) {
  uint64_t v;
  memcpy(&v, p, sizeof v);
  return v; /* little-endian hosts only use this path (see software_extend) */
}

static uint32_t software_extend(uint32_t crc, const unsigned char* p, size_t n) {
  if (!table_ready) init_table();
  const uint16_t one = 1;
  unsigned char first;
  memcpy(&first, &one, 1);
  const int little = first == 1;
  while (n && ((uintptr_t)p & 7)) {
    crc = table[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
    n--;
  }
  if (little) {
    while (n >= 8) {
      uint64_t v = load64(p) ^ crc;
      crc = table[7][v & 0xff] ^ table[6][(v >> 8) & 0xff] ^ table[5][(v >> 16) & 0xff] ^
            table[4][(v >> 24) & 0xff] ^ table[3][(v >> 32) & 0xff] ^ table[2][(v >> 40) & 0xff] ^
            table[1][(v >> 48) & 0xff] ^ table[0][v >> 56];
      p += 8;
      n -= 8;
    }
  }
  while (n--) crc = table[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
  return crc;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define MT_HAVE_X86_CRC 1

/* Multiplication of a and b modulo the CRC polynomial (reflected bit order). */
static uint32_t gf2_multiply(uint32_t a, uint32_t b) {
  uint32_t product = 0;
  for (int i = 0; i < 32; i++) {
    if (b & 0x80000000u) product ^= a;
    b <<= 1;
    a = (a & 1) ? (a >> 1) ^ POLY : a >> 1;
  }
  return product;
}

/* x^(8 n) mod P (reflected): multiplying a CRC register by it feeds n zero bytes. */
static uint32_t shift_factor(size_t nbytes) {
  uint32_t result = 0x80000000u; /* x^0 */
  uint32_t power = 0x40000000u;  /* x^1, squared per bit of the exponent */
  uint64_t bits = (uint64_t)nbytes * 8;
  while (bits) {
    if (bits & 1) result = gf2_multiply(result, power);
    power = gf2_multiply(power, power);
    bits >>= 1;
  }
  return result;
}

#define BLOCK 16384u
static uint32_t block_factor;

__attribute__((target("sse4.2"))) static uint32_t hardware_extend(uint32_t crc, const unsigned char* p, size_t n) {
  uint64_t c0 = crc;
  while (n && ((uintptr_t)p & 7)) {
    c0 = __builtin_ia32_crc32qi((uint32_t)c0, *p++);
    n--;
  }
  /* Three independent streams over consecutive blocks hide the instruction's 3-cycle latency. */
  while (n >= 3 * BLOCK) {
    uint64_t c1 = 0, c2 = 0;
    const unsigned char* p1 = p + BLOCK;
    const unsigned char* p2 = p + 2 * BLOCK;
    for (size_t i = 0; i < BLOCK; i += 8) {
      c0 = __builtin_ia32_crc32di(c0, load64(p + i));
      c1 = __builtin_ia32_crc32di(c1, load64(p1 + i));
      c2 = __builtin_ia32_crc32di(c2, load64(p2 + i));
    }
    c0 = gf2_multiply(block_factor, (uint32_t)c0) ^ c1;
    c0 = gf2_multiply(block_factor, (uint32_t)c0) ^ c2;
    p += 3 * BLOCK;
    n -= 3 * BLOCK;
  }
  while (n >= 8) {
    c0 = __builtin_ia32_crc32di(c0, load64(p));
    p += 8;
    n -= 8;
  }
  while (n--) c0 = __builtin_ia32_crc32qi((uint32_t)c0, *p++);
  return (uint32_t)c0;
}
#endif

static int hardware = -1;

int mt_crc32c_hardware(void) {
  if (hardware < 0) {
#ifdef MT_HAVE_X86_CRC
    __builtin_cpu_init();
    hardware = __builtin_cpu_supports("sse4.2") ? 1 : 0;
    if (hardware) block_factor = shift_factor(BLOCK);
#else
    hardware = 0;
#endif
  }
  return hardware;
}

uint32_t mt_crc32c_extend(uint32_t crc, const void* data, size_t n) {
  const unsigned char* p = (const unsigned char*)data;
  crc = ~crc;
#ifdef MT_HAVE_X86_CRC
  if (mt_crc32c_hardware()) return ~hardware_extend(crc, p, n);
#else
  (void)mt_crc32c_hardware();
#endif
  return ~software_extend(crc, p, n);
}
