/* PNG through libpng, set up as TensorFlow's png_io sets it up: alpha added (opaque) or stripped to reach the
 * channel count asked for, tRNS turned into alpha, 16-bit samples cut to their high byte for 8-bit output and 8-bit
 * samples widened as v * 257 for 16-bit output, palettes expanded, low-depth grey widened to 8 bits, colour to grey
 * with libpng's Rec. 601 weights, grey to RGB by copying, interlaced images combined; the encoder at the given zlib
 * level with zlib's largest memory level and libpng's default row filters. libpng's errors longjmp back here. */
#include "png_codec.h"

#include <stdlib.h>
#include <string.h>

#include <png.h>
#include <zlib.h>

typedef struct {
  const uint8_t* data;
  size_t left;
} Reader;

static void read_bytes(png_structp png, png_bytep out, png_size_t length) {
  Reader* reader = (Reader*)png_get_io_ptr(png);
  if (reader->left < length) png_error(png, "more bytes requested than the PNG has");
  memcpy(out, reader->data, length);
  reader->data += length;
  reader->left -= length;
}

static void on_error(png_structp png, png_const_charp message) {
  (void)message;
  png_longjmp(png, 1);
}

static void on_warning(png_structp png, png_const_charp message) {
  (void)png;
  (void)message;
}

typedef struct {
  png_structp png;
  png_infop info;
  Reader reader;
  void* out;
  png_bytep* rows;
} Decoder;

static int is_little_endian(void) {
  const uint16_t one = 1;
  unsigned char first;
  memcpy(&first, &one, 1);
  return first == 1;
}

/* TF's CommonInitDecode transformations; returns the channel count of the output. */
static int set_transforms(png_structp png, png_infop info, int channels, int bits) {
  const int color_type = png_get_color_type(png, info), bit_depth = png_get_bit_depth(png, info);
  const int has_trns = png_get_valid(png, info, PNG_INFO_tRNS) != 0;
  if (channels == 0) {
    channels = color_type == PNG_COLOR_TYPE_PALETTE ? (has_trns ? 4 : 3) : png_get_channels(png, info);
  }
  const int has_alpha = (color_type & PNG_COLOR_MASK_ALPHA) != 0;
  if ((channels & 1) == 0) { /* alpha wanted */
    if (!has_alpha) {
      if (has_trns) {
        png_set_tRNS_to_alpha(png);
      } else {
        png_set_add_alpha(png, (png_uint_32)((1 << bit_depth) - 1), PNG_FILLER_AFTER);
      }
    }
  } else if (has_alpha || has_trns) {
    png_set_strip_alpha(png);
  }
  if (bit_depth > 8 && bits <= 8) png_set_strip_16(png);
  png_set_packing(png);
  (void)png_set_interlace_handling(png);
  if (bits > 8 && is_little_endian()) png_set_swap(png);
  if (color_type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
  const int is_gray = (color_type & PNG_COLOR_MASK_COLOR) == 0;
  if (is_gray && bit_depth < 8) png_set_expand_gray_1_2_4_to_8(png);
  if (channels < 3) {
    if (!is_gray) png_set_rgb_to_gray(png, 1, 0.299, 0.587);
  } else if (is_gray) {
    png_set_gray_to_rgb(png);
  }
  png_read_update_info(png, info);
  return channels;
}

static void decoder_free(Decoder* dec) {
  if (dec->png != NULL) png_destroy_read_struct(&dec->png, dec->info != NULL ? &dec->info : NULL, NULL);
  free(dec->rows);
}

void* mtic_png_decode(const uint8_t* data, size_t size, int channels, int bits, int* height, int* width,
                      int* out_channels, int* error) {
  *error = 1;
  if (data == NULL || size < 8 || png_sig_cmp((png_const_bytep)data, 0, 8) != 0) return NULL;
  if (!(channels >= 0 && channels <= 4) || !(bits == 8 || bits == 16)) return NULL;
  Decoder* dec = (Decoder*)calloc(1, sizeof(Decoder));
  if (dec == NULL) return NULL;
  dec->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, on_error, on_warning);
  if (dec->png == NULL) {
    free(dec);
    return NULL;
  }
  if (setjmp(png_jmpbuf(dec->png))) {
    decoder_free(dec);
    free(dec->out);
    free(dec);
    return NULL;
  }
  dec->info = png_create_info_struct(dec->png);
  if (dec->info == NULL) png_error(dec->png, "no memory for the PNG info");
  dec->reader.data = data;
  dec->reader.left = size;
  png_set_read_fn(dec->png, &dec->reader, read_bytes);
  png_read_info(dec->png, dec->info);
  const png_uint_32 w = png_get_image_width(dec->png, dec->info), h = png_get_image_height(dec->png, dec->info);
  const int bit_depth = png_get_bit_depth(dec->png, dec->info);
  if (w == 0 || h == 0) png_error(dec->png, "invalid dimensions");
  const int wanted = set_transforms(dec->png, dec->info, channels, bits);
  /* TF's limits: each side below 2^27 and the area below 2^29 */
  if (w >= (1u << 27) || h >= (1u << 27) || (uint64_t)w * h >= ((uint64_t)1 << 29)) {
    *error = 2;
    *width = (int)(w < (1u << 31) ? w : (1u << 31) - 1); /* for the message */
    *height = (int)(h < (1u << 31) ? h : (1u << 31) - 1);
    png_error(dec->png, "too large");
  }
  *error = 3;
  /* 8-bit samples read for a 16-bit output are widened afterwards, in place */
  const int synthesize_16 = bit_depth <= 8 && bits == 16;
  const size_t sample = bits / 8, row_bytes = (size_t)w * (size_t)wanted * sample;
  if (png_get_rowbytes(dec->png, dec->info) > row_bytes) png_error(dec->png, "unexpected row size");
  dec->out = malloc(row_bytes * h);
  dec->rows = (png_bytep*)malloc(sizeof(png_bytep) * h);
  if (dec->out == NULL || dec->rows == NULL) png_error(dec->png, "no memory for the image");
  for (png_uint_32 y = 0; y < h; ++y) dec->rows[y] = (png_bytep)dec->out + y * row_bytes;
  png_read_image(dec->png, dec->rows);
  png_read_end(dec->png, dec->info);
  decoder_free(dec);
  void* out = dec->out;
  free(dec);
  if (synthesize_16) {
    for (png_uint_32 y = h; y-- > 0;) {
      const uint8_t* from = (const uint8_t*)out + y * row_bytes;
      uint16_t* to = (uint16_t*)((uint8_t*)out + y * row_bytes);
      for (size_t i = (size_t)w * (size_t)wanted; i-- > 0;) to[i] = (uint16_t)(from[i] | (from[i] << 8));
    }
  }
  *height = (int)h;
  *width = (int)w;
  *out_channels = wanted;
  *error = 0;
  return out;
}

/* ---------------------------------------------------------------- encoding */

typedef struct {
  uint8_t* data;
  size_t size, capacity;
  int failed;
} Writer;

static void write_bytes(png_structp png, png_bytep bytes, png_size_t length) {
  Writer* writer = (Writer*)png_get_io_ptr(png);
  if (writer->size + length > writer->capacity) {
    size_t capacity = writer->capacity ? writer->capacity : 4096;
    while (capacity < writer->size + length) capacity *= 2;
    uint8_t* grown = (uint8_t*)realloc(writer->data, capacity);
    if (grown == NULL) png_error(png, "no memory for the PNG stream");
    writer->data = grown;
    writer->capacity = capacity;
  }
  memcpy(writer->data + writer->size, bytes, length);
  writer->size += length;
}

static void flush_bytes(png_structp png) { (void)png; }

typedef struct {
  png_structp png;
  png_infop info;
  Writer writer;
} Encoder;

uint8_t* mtic_png_encode(const void* pixels, int height, int width, int channels, int bits, int compression,
                         size_t* size) {
  static const int kColorTypes[5] = {-1, PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA, PNG_COLOR_TYPE_RGB,
                                     PNG_COLOR_TYPE_RGB_ALPHA};
  if (width <= 0 || height <= 0 || channels < 1 || channels > 4 || !(bits == 8 || bits == 16)) return NULL;
  Encoder* enc = (Encoder*)calloc(1, sizeof(Encoder));
  if (enc == NULL) return NULL;
  enc->png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, on_error, on_warning);
  if (enc->png == NULL) {
    free(enc);
    return NULL;
  }
  if (setjmp(png_jmpbuf(enc->png))) {
    png_destroy_write_struct(&enc->png, enc->info != NULL ? &enc->info : NULL);
    free(enc->writer.data);
    free(enc);
    return NULL;
  }
  enc->info = png_create_info_struct(enc->png);
  if (enc->info == NULL) png_error(enc->png, "no memory for the PNG info");
  png_set_write_fn(enc->png, &enc->writer, write_bytes, flush_bytes);
  png_set_compression_level(enc->png, compression < 0 ? Z_DEFAULT_COMPRESSION : compression);
  png_set_compression_mem_level(enc->png, MAX_MEM_LEVEL);
  png_set_IHDR(enc->png, enc->info, (png_uint_32)width, (png_uint_32)height, bits, kColorTypes[channels],
               PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(enc->png, enc->info);
  if (bits > 8 && is_little_endian()) png_set_swap(enc->png);
  const size_t row_bytes = (size_t)width * (size_t)channels * (size_t)(bits / 8);
  for (int y = 0; y < height; ++y) png_write_row(enc->png, (png_const_bytep)pixels + (size_t)y * row_bytes);
  png_write_end(enc->png, NULL);
  png_destroy_write_struct(&enc->png, &enc->info);
  uint8_t* out = enc->writer.data;
  *size = enc->writer.size;
  free(enc);
  return out;
}
