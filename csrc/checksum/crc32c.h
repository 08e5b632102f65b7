/* CRC-32C (Castagnoli), the checksum of TensorFlow's checkpoint and table formats. */
#ifndef MODTENSOR_CRC32C_H_
#define MODTENSOR_CRC32C_H_

#include <stddef.h>
#include <stdint.h>

/* The CRC-32C of `data[0..n)` continuing from `crc` (the CRC of the bytes before; 0 to start). */
uint32_t mt_crc32c_extend(uint32_t crc, const void* data, size_t n);

/* 1 when the hardware instruction (SSE4.2 crc32) is used, 0 for the table version. */
int mt_crc32c_hardware(void);

#endif /* MODTENSOR_CRC32C_H_ */
