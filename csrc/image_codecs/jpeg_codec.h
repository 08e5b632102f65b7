/* JPEG decoding and encoding with libjpeg(-turbo), configured as TensorFlow's DecodeJpeg / EncodeJpeg configure it,
 * so the same library gives the same pixels and bytes. Plain C11, no Python. */
#ifndef MODTENSOR_IMAGE_CODECS_JPEG_CODEC_H_
#define MODTENSOR_IMAGE_CODECS_JPEG_CODEC_H_

#include <stddef.h>
#include <stdint.h>

typedef struct {
  int components;            /* 0 (as stored, CMYK as RGB), 1 or 3 */
  int ratio;                 /* 1, 2, 4 or 8: the output is scaled down by it */
  int fancy_upscaling;       /* libjpeg's do_fancy_upsampling */
  int try_recover_truncated; /* a truncated stream ends with a fake EOI instead of failing */
  float acceptable_fraction; /* fewer lines read than this fraction fails; missing lines are black */
  int accurate_dct;          /* 1: JDCT_ISLOW ("INTEGER_ACCURATE"), 0: JDCT_IFAST (TF's default) */
  int crop;                  /* decode only the window below (DecodeAndCropJpeg) */
  int crop_y, crop_x, crop_height, crop_width;
} mtic_jpeg_decode_flags;

typedef struct {
  int quality; /* 0..100 */
  int progressive;
  int optimize_size;
  int chroma_downsampling;
  int density_unit; /* 1: dots per inch, 2: per cm */
  int x_density, y_density;
  const uint8_t* xmp; /* APP1 XMP packet body, or NULL */
  size_t xmp_size;
} mtic_jpeg_encode_flags;

/* The decoded image (height x width x *components bytes, malloc'ed) or NULL when the data is not a JPEG that
 * decodes with these flags. */
uint8_t* mtic_jpeg_decode(const uint8_t* data, size_t size, const mtic_jpeg_decode_flags* flags, int* height,
                          int* width, int* components);

/* The header's output size (height, width, components as libjpeg outputs them by default); 0 on success. */
int mtic_jpeg_shape(const uint8_t* data, size_t size, int* height, int* width, int* components);

/* The JPEG stream (malloc'ed, *size bytes) of an image of 1 (grayscale) or 3 (RGB) interleaved channels, or NULL. */
uint8_t* mtic_jpeg_encode(const uint8_t* pixels, int height, int width, int components,
                          const mtic_jpeg_encode_flags* flags, size_t* size);

#endif
