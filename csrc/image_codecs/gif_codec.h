/* GIF decoding as TensorFlow's DecodeGif does it (giflib's reading, TF's frame compositing). Plain C11. */
#ifndef MODTENSOR_IMAGE_CODECS_GIF_CODEC_H_
#define MODTENSOR_IMAGE_CODECS_GIF_CODEC_H_

#include <stddef.h>
#include <stdint.h>

enum { MTIC_GIF_ALL_FRAMES = 0, MTIC_GIF_FIRST_FRAME = 1, MTIC_GIF_ONE_FRAME = 2 };

/* The frames (frames x height x width x 3 RGB bytes, malloc'ed): all of them, the first, or the only one
 * (MTIC_GIF_ONE_FRAME: an animation is an error). NULL with TF's message in `error` and *error_kind 1 for bad
 * data (TF puts "Invalid GIF data (size N), " before it) or 2 for an animation where one frame was asked for. */
uint8_t* mtic_gif_decode(const uint8_t* data, size_t size, int mode, int* frames, int* height, int* width,
                         char* error, size_t error_size, int* error_kind);

#endif
