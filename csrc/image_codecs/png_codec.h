/* PNG decoding and encoding with libpng, with TensorFlow's transformations (channel count, alpha, bit depth) and
 * encoder settings, so the same library gives the same pixels and bytes. Plain C11, no Python. */
#ifndef MODTENSOR_IMAGE_CODECS_PNG_CODEC_H_
#define MODTENSOR_IMAGE_CODECS_PNG_CODEC_H_

#include <stddef.h>
#include <stdint.h>

/* The decoded image (height x width x *channels samples of bits / 8 bytes each, native byte order, malloc'ed) or
 * NULL with *error set: 1 not a PNG / bad header, 2 too large (*width and *height then hold the header's), 3 bad
 * data. channels: 0 (as stored; palette as RGB
 * or RGBA), 1, 2, 3 or 4; bits: 8 or 16. */
void* mtic_png_decode(const uint8_t* data, size_t size, int channels, int bits, int* height, int* width,
                      int* out_channels, int* error);

/* The PNG stream (malloc'ed, *size bytes) of height x width x channels samples (1-4 channels, 8 or 16 bits, native
 * byte order) at zlib compression level `compression` (-1: zlib's default), or NULL. */
uint8_t* mtic_png_encode(const void* pixels, int height, int width, int channels, int bits, int compression,
                         size_t* size);

#endif
