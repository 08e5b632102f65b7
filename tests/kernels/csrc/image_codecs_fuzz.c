/* Drives csrc/image_codecs (jpeg_codec.c, png_codec.c, gif_codec.c, webp_codec.c) over the files named on the
 * command line, for the AddressSanitizer / LeakSanitizer test: every file is decoded as JPEG with each flag set
 * (channels, ratios, DCTs, upsampling, truncation recovery, crop windows), as PNG at each channel count and depth, as
 * GIF in each frame mode and as WebP (still into 3 and 4 channels, animation's first or every frame), and whatever
 * decodes is encoded again (JPEG at several settings, PNG 8- and 16-bit). Prints "files N decoded M". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gif_codec.h"
#include "jpeg_codec.h"
#include "png_codec.h"
#include "webp_codec.h"

static unsigned char* read_all(const char* path, size_t* size) {
  FILE* f = fopen(path, "rb");
  if (f == NULL) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char* data = (unsigned char*)malloc(n > 0 ? (size_t)n : 1);
  *size = fread(data, 1, (size_t)n, f);
  fclose(f);
  return data;
}

static void encode_back(const uint8_t* pixels, int h, int w, int c) {
  if (c == 1 || c == 3) {
    const mtic_jpeg_encode_flags variants[3] = {
        {95, 0, 0, 1, 1, 300, 300, NULL, 0},
        {10, 1, 1, 0, 2, 72, 72, (const uint8_t*)"<x/>", 4},
        {100, 0, 1, 1, 1, 1, 1, NULL, 0},
    };
    for (int v = 0; v < 3; ++v) {
      size_t size = 0;
      free(mtic_jpeg_encode(pixels, h, w, c, &variants[v], &size));
    }
  }
  for (int level = -1; level <= 9; level += 5) {
    size_t size = 0;
    free(mtic_png_encode(pixels, h, w, c, 8, level, &size));
  }
  uint16_t* wide = (uint16_t*)malloc(sizeof(uint16_t) * (size_t)h * (size_t)w * (size_t)c);
  for (size_t i = 0; i < (size_t)h * (size_t)w * (size_t)c; ++i) wide[i] = (uint16_t)(pixels[i] * 257u);
  size_t size = 0;
  free(mtic_png_encode(wide, h, w, c, 16, 6, &size));
  free(wide);
}

int main(int argc, char** argv) {
  int decoded = 0;
  for (int i = 1; i < argc; ++i) {
    size_t size = 0;
    unsigned char* data = read_all(argv[i], &size);
    if (data == NULL) return 2;
    int h, w, c;
    (void)mtic_jpeg_shape(data, size, &h, &w, &c);
    static const int windows[4][4] = {{0, 0, 8, 8}, {3, 5, 7, 9}, {1, 17, 20, 11}, {-1, 2, 3, 4}};
    for (int v = 0; v < 12; ++v) {
      mtic_jpeg_decode_flags flags = {0};
      flags.components = (int[]){0, 1, 3}[v % 3];
      flags.ratio = (int[]){1, 2, 4, 8}[v % 4];
      flags.fancy_upscaling = v % 2;
      flags.try_recover_truncated = v % 5 == 0;
      flags.acceptable_fraction = v % 5 == 0 ? 0.25f : 1.0f;
      flags.accurate_dct = v % 3 == 1;
      if (v >= 8) {
        flags.crop = 1;
        flags.crop_y = windows[v - 8][0];
        flags.crop_x = windows[v - 8][1];
        flags.crop_height = windows[v - 8][2];
        flags.crop_width = windows[v - 8][3];
      }
      uint8_t* image = mtic_jpeg_decode(data, size, &flags, &h, &w, &c);
      if (image != NULL) {
        ++decoded;
        if (v == 0) encode_back(image, h, w, c);
        free(image);
      }
    }
    for (int channels = 0; channels <= 4; ++channels) {
      for (int bits = 8; bits <= 16; bits += 8) {
        int error = 0;
        void* image = mtic_png_decode(data, size, channels, bits, &h, &w, &c, &error);
        if (image != NULL) {
          ++decoded;
          if (bits == 8 && channels == 0) encode_back((const uint8_t*)image, h, w, c);
          free(image);
        }
      }
    }
    for (int mode = MTIC_GIF_ALL_FRAMES; mode <= MTIC_GIF_ONE_FRAME; ++mode) {
      int frames = 0, kind = 0;
      char error[256];
      uint8_t* image = mtic_gif_decode(data, size, mode, &frames, &h, &w, error, sizeof error, &kind);
      if (image != NULL) {
        ++decoded;
        if (mode == MTIC_GIF_FIRST_FRAME && h > 0 && w > 0) encode_back(image, h, w, 3);
        free(image);
      }
    }
    int animated = 0;
    if (mtic_webp_info(data, size, &w, &h, &c, &animated)) {
      for (int channels = 3; channels <= 4; ++channels) { /* the announced channel count, and the other one */
        uint8_t* image = malloc((size_t)w * h * channels + 1);
        if (image != NULL && mtic_webp_decode(data, size, image, w, h, channels)) ++decoded;
        free(image);
      }
      for (int all = 0; all <= 1; ++all) {
        for (int channels = 3; channels <= 4; ++channels) {
          int frames = 0;
          char error[128];
          uint8_t* image = mtic_webp_decode_animation(data, size, all, channels, &frames, &w, &h, error, sizeof error);
          if (image != NULL) {
            ++decoded;
            if (all == 0 && channels == 4 && h > 0 && w > 0) encode_back(image, h, w, 4);
            free(image);
          }
        }
      }
    }
    free(data);
  }
  printf("files %d decoded %d\n", argc - 1, decoded);
  return 0;
}
