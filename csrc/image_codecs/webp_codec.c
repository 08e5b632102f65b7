/* WebP decoding as TensorFlow's webp_io does it: WebPGetFeatures for the header, WebPDecodeRGB(A)Into for a still
 * image, WebPAnimDecoder (default options: RGBA, composed canvases) for an animation. */
#include "webp_codec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef MTIC_HAVE_WEBP
#include <webp/decode.h>
#include <webp/demux.h>

int mtic_webp_available(void) { return 1; }

int mtic_webp_info(const uint8_t* data, size_t size, int* width, int* height, int* channels, int* animated) {
  WebPBitstreamFeatures features;
  if (WebPGetFeatures(data, size, &features) != VP8_STATUS_OK) return 0;
  *width = features.width;
  *height = features.height;
  *channels = features.has_alpha ? 4 : 3;
  *animated = features.has_animation;
  return 1;
}

int mtic_webp_decode(const uint8_t* data, size_t size, uint8_t* out, int width, int height, int channels) {
  const size_t stride = (size_t)width * (size_t)channels;
  if (stride > (size_t)0x7FFFFFFF) return 0; /* libwebp takes the stride as an int */
  const size_t bytes = stride * (size_t)height;
  if (channels == 3) return WebPDecodeRGBInto(data, size, out, bytes, (int)stride) != NULL;
  if (channels == 4) return WebPDecodeRGBAInto(data, size, out, bytes, (int)stride) != NULL;
  return 0;
}

uint8_t* mtic_webp_decode_animation(const uint8_t* data, size_t size, int all_frames, int channels, int* frames,
                                    int* width, int* height, char* error, size_t error_size) {
  WebPData stream = {data, size};
  WebPAnimDecoder* decoder = WebPAnimDecoderNew(&stream, NULL);
  if (decoder == NULL) {
    snprintf(error, error_size, "failed to decode WebP Animation");
    return NULL;
  }
  WebPAnimInfo info;
  if (!WebPAnimDecoderGetInfo(decoder, &info)) {
    WebPAnimDecoderDelete(decoder);
    snprintf(error, error_size, "failed to get WebP Animation Info");
    return NULL;
  }
  const size_t pixels = (size_t)info.canvas_width * info.canvas_height;
  const int wanted = all_frames ? (int)info.frame_count : 1;
  uint8_t* out = malloc(pixels * (size_t)channels * (size_t)(wanted > 0 ? wanted : 1));
  if (out == NULL) {
    WebPAnimDecoderDelete(decoder);
    snprintf(error, error_size, "failed to allocate output for WebP Animation");
    return NULL;
  }
  int got = 0;
  while (got < wanted && WebPAnimDecoderHasMoreFrames(decoder)) {
    uint8_t* canvas; /* RGBA, owned by the decoder */
    int timestamp;
    if (!WebPAnimDecoderGetNext(decoder, &canvas, &timestamp)) {
      snprintf(error, error_size, "failed to decode frame: %d", got);
      free(out);
      WebPAnimDecoderDelete(decoder);
      return NULL;
    }
    uint8_t* dst = out + (size_t)got * pixels * (size_t)channels;
    if (channels == 4) {
      memcpy(dst, canvas, pixels * 4);
    } else { /* an animation without alpha: its colour (TF 2.21 overruns a 3-channel buffer with RGBA here) */
      for (size_t p = 0; p < pixels; ++p) memcpy(dst + p * 3, canvas + p * 4, 3);
    }
    ++got;
  }
  WebPAnimDecoderDelete(decoder);
  if (got != wanted) {
    snprintf(error, error_size, "only read %d of %d frames", got, wanted);
    free(out);
    return NULL;
  }
  *frames = wanted;
  *width = (int)info.canvas_width;
  *height = (int)info.canvas_height;
  return out;
}

#else

int mtic_webp_available(void) { return 0; }

int mtic_webp_info(const uint8_t* data, size_t size, int* width, int* height, int* channels, int* animated) {
  (void)data, (void)size, (void)width, (void)height, (void)channels, (void)animated;
  return 0;
}

int mtic_webp_decode(const uint8_t* data, size_t size, uint8_t* out, int width, int height, int channels) {
  (void)data, (void)size, (void)out, (void)width, (void)height, (void)channels;
  return 0;
}

uint8_t* mtic_webp_decode_animation(const uint8_t* data, size_t size, int all_frames, int channels, int* frames,
                                    int* width, int* height, char* error, size_t error_size) {
  (void)data, (void)size, (void)all_frames, (void)channels, (void)frames, (void)width, (void)height;
  snprintf(error, error_size, "modtensor was built without libwebp");
  return NULL;
}

#endif
