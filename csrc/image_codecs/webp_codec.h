/* WebP decoding through the system's libwebp (and libwebpdemux for animations), as TensorFlow's webp_io uses them.
 * Plain C11. Built with MTIC_HAVE_WEBP where the libwebp headers are installed; without it every call reports that
 * WebP support was not built (mtic_webp_available() == 0). */
#ifndef MODTENSOR_IMAGE_CODECS_WEBP_CODEC_H_
#define MODTENSOR_IMAGE_CODECS_WEBP_CODEC_H_

#include <stddef.h>
#include <stdint.h>

int mtic_webp_available(void);

/* The header's canvas size, channels (4 with alpha, else 3) and whether it is an animation; 0 when libwebp cannot
 * read the header. */
int mtic_webp_info(const uint8_t* data, size_t size, int* width, int* height, int* channels, int* animated);

/* A still image into `out` (height x width x channels bytes, channels 3 or 4); 0 on failure. */
int mtic_webp_decode(const uint8_t* data, size_t size, uint8_t* out, int width, int height, int channels);

/* An animation's canvases (all frames, or only the first), each height x width x `channels` bytes (4: RGBA as
 * libwebp composes them; 3: their colour, for an animation without alpha), malloc'ed; NULL with TF's message in
 * `error` on failure. */
uint8_t* mtic_webp_decode_animation(const uint8_t* data, size_t size, int all_frames, int channels, int* frames,
                                    int* width, int* height, char* error, size_t error_size);

#endif
