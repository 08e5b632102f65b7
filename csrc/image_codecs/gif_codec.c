/* GIF decoding: the records read as giflib's DGifSlurp reads them (extensions before an image belong to it, the
 * first graphics control block gives its transparent index, interlaced rows put back in order, LZW with codes of
 * up to 12 bits), then the frames composed as TensorFlow's gif_io does: a canvas as large as the largest frame, each
 * frame drawn over a copy of the previous one (the first over black), transparent pixels left as they were, no
 * disposal methods. Errors carry giflib's and TF's texts. */
#include "gif_codec.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CODES 4096

/* giflib's error texts for the failures met here */
static const char kReadFailed[] = "Failed to read from given file";
static const char kNotGif[] = "Data is not in GIF format";
static const char kNoScreen[] = "No screen descriptor detected";
static const char kWrongRecord[] = "Wrong record type detected";
static const char kImageDefect[] = "Image is defective, decoding aborted";
static const char kEofTooSoon[] = "Image EOF detected before image complete";
static const char kNoMemory[] = "Failed to allocate required memory";

typedef struct {
  int count; /* 0: none */
  uint8_t rgb[256 * 3];
} ColorMap;

typedef struct {
  int left, top, width, height;
  ColorMap map;
  int transparent; /* -1: none */
  uint8_t* raster; /* width x height colour indices */
} Frame;

typedef struct {
  const uint8_t* data;
  size_t size, pos;
  const char* error; /* giflib's text of the first failure */
  Frame* frames;
  int count, capacity;
  int complete; /* frames whose pixels were all decoded */
} Reader;

static int take(Reader* r, void* out, size_t n) {
  if (r->size - r->pos < n) {
    r->error = kReadFailed;
    return -1;
  }
  memcpy(out, r->data + r->pos, n);
  r->pos += n;
  return 0;
}

static int read_u16(Reader* r, int* value) {
  uint8_t b[2];
  if (take(r, b, 2) < 0) return -1;
  *value = b[0] | (b[1] << 8);
  return 0;
}

static int read_map(Reader* r, int flags, ColorMap* map) {
  map->count = 1 << ((flags & 7) + 1);
  return take(r, map->rgb, (size_t)map->count * 3);
}

/* ---------------------------------------------------------------- LZW */

typedef struct {
  Reader* r;
  size_t block_left; /* bytes left in the current data sub-block */
  int ended;         /* the zero-length block was read */
  uint32_t bits;
  int bit_count;
} CodeStream;

/* The next code of `size` bits, -1 at the end of the data (EOF too soon) or on a read failure. */
static int next_code(CodeStream* s, int size) {
  while (s->bit_count < size) {
    if (s->block_left == 0) {
      uint8_t length;
      if (s->ended || take(s->r, &length, 1) < 0) return -1;
      if (length == 0) {
        s->ended = 1;
        s->r->error = kEofTooSoon;
        return -1;
      }
      s->block_left = length;
    }
    uint8_t byte;
    if (take(s->r, &byte, 1) < 0) return -1;
    s->block_left--;
    s->bits |= (uint32_t)byte << s->bit_count;
    s->bit_count += 8;
  }
  int code = (int)(s->bits & ((1u << size) - 1));
  s->bits >>= size;
  s->bit_count -= size;
  return code;
}

/* Skips the rest of the image's data sub-blocks, up to and including the zero-length one. */
static int skip_blocks(CodeStream* s) {
  if (s->ended) return 0;
  if (s->r->size - s->r->pos < s->block_left) {
    s->r->error = kReadFailed;
    return -1;
  }
  s->r->pos += s->block_left;
  for (;;) {
    uint8_t length;
    if (take(s->r, &length, 1) < 0) return -1;
    if (length == 0) return 0;
    if (s->r->size - s->r->pos < length) {
      s->r->error = kReadFailed;
      return -1;
    }
    s->r->pos += length;
  }
}

/* Decodes width x height indices into `out` in stream order; 0 or -1. */
static int decode_lzw(Reader* r, uint8_t* out, size_t pixels) {
  uint8_t min_size;
  if (take(r, &min_size, 1) < 0) return -1;
  if (min_size > 8) {
    r->error = kReadFailed;
    return -1;
  }
  uint16_t* prefixes = (uint16_t*)malloc(sizeof(uint16_t) * MAX_CODES);
  uint8_t* suffixes = (uint8_t*)malloc(MAX_CODES);
  uint8_t* firsts = (uint8_t*)malloc(MAX_CODES);
  uint8_t* string = (uint8_t*)malloc(MAX_CODES + 1);
  int status = -1;
  if (prefixes == NULL || suffixes == NULL || firsts == NULL || string == NULL) {
    r->error = kNoMemory;
    goto done;
  }
  const int root = min_size < 1 ? 1 : min_size; /* the literal codes' bits */
  const int clear = 1 << root, end = clear + 1;
  for (int c = 0; c < clear; ++c) {
    prefixes[c] = 0xFFFF;
    suffixes[c] = (uint8_t)c;
    firsts[c] = (uint8_t)c;
  }
  CodeStream s = {r, 0, 0, 0, 0};
  int size = root + 1, next = clear + 2, previous = -1;
  size_t written = 0;
  while (written < pixels) {
    const int code = next_code(&s, size);
    if (code < 0) goto done;
    if (code == clear) {
      size = root + 1;
      next = clear + 2;
      previous = -1;
      continue;
    }
    if (code == end) {
      r->error = kEofTooSoon;
      goto done;
    }
    int length = 0, current = code;
    if (code > next || (code == next && previous < 0)) {
      r->error = kImageDefect;
      goto done;
    }
    if (code == next) { /* the string just being defined: previous + its own first byte */
      string[length++] = firsts[previous];
      current = previous;
    }
    while (current >= clear) {
      string[length++] = suffixes[current];
      current = prefixes[current];
    }
    string[length++] = (uint8_t)current;
    for (int i = length; i-- > 0 && written < pixels;) out[written++] = string[i];
    if (previous >= 0 && next < MAX_CODES) {
      prefixes[next] = (uint16_t)previous;
      suffixes[next] = (uint8_t)current;
      firsts[next] = firsts[previous];
      ++next;
      if (next == (1 << size) && size < 12) ++size;
    }
    previous = code;
  }
  status = skip_blocks(&s);
done:
  free(prefixes);
  free(suffixes);
  free(firsts);
  free(string);
  return status;
}

/* ---------------------------------------------------------------- records */

static int read_image(Reader* r, const ColorMap* global, int transparent) {
  int left, top, width, height;
  uint8_t flags;
  if (read_u16(r, &left) < 0 || read_u16(r, &top) < 0 || read_u16(r, &width) < 0 || read_u16(r, &height) < 0 ||
      take(r, &flags, 1) < 0) {
    return -1;
  }
  Frame frame = {left, top, width, height, {0}, transparent, NULL};
  if ((flags & 0x80) && read_map(r, flags, &frame.map) < 0) return -1;
  if (!(flags & 0x80) && global->count > 0) frame.map = *global;
  const size_t pixels = (size_t)width * (size_t)height;
  frame.raster = (uint8_t*)malloc(pixels > 0 ? pixels : 1);
  if (frame.raster == NULL) {
    r->error = kNoMemory;
    return -1;
  }
  if (r->count == r->capacity) {
    int capacity = r->capacity ? 2 * r->capacity : 8;
    Frame* grown = (Frame*)realloc(r->frames, sizeof(Frame) * (size_t)capacity);
    if (grown == NULL) {
      free(frame.raster);
      r->error = kNoMemory;
      return -1;
    }
    r->frames = grown;
    r->capacity = capacity;
  }
  r->frames[r->count++] = frame;
  Frame* f = &r->frames[r->count - 1];
  if (!(flags & 0x40)) {
    if (decode_lzw(r, f->raster, pixels) < 0) return -1;
    r->complete++;
    return 0;
  }
  /* interlaced: rows 0, 8, 16, ... then 4, 12, ... then 2, 6, ... then 1, 3, ... */
  uint8_t* ordered = (uint8_t*)malloc(pixels > 0 ? pixels : 1);
  if (ordered == NULL) {
    r->error = kNoMemory;
    return -1;
  }
  int status = decode_lzw(r, ordered, pixels);
  if (status == 0) {
    static const int kStart[4] = {0, 4, 2, 1}, kStep[4] = {8, 8, 4, 2};
    size_t row = 0;
    for (int pass = 0; pass < 4; ++pass) {
      for (int y = kStart[pass]; y < height; y += kStep[pass]) {
        memcpy(f->raster + (size_t)y * (size_t)width, ordered + row * (size_t)width, (size_t)width);
        ++row;
      }
    }
    r->complete++;
  }
  free(ordered);
  return status;
}

/* Reads the stream as DGifSlurp does; 0 when it read to the trailer, -1 on the first failure (r->error). */
static int read_records(Reader* r, ColorMap* global, int* screen_ok) {
  uint8_t header[6], screen[7];
  if (take(r, header, 6) < 0) return -1;
  if (memcmp(header, "GIF", 3) != 0) {
    r->error = kNotGif;
    return -1;
  }
  /* giflib reports any failure to read the screen descriptor or the global colour map so */
  if (take(r, screen, 7) < 0 || ((screen[4] & 0x80) && read_map(r, screen[4], global) < 0)) {
    r->error = kNoScreen;
    return -1;
  }
  *screen_ok = 1;
  int transparent = -1, seen_control = 0;
  for (;;) {
    uint8_t kind;
    if (take(r, &kind, 1) < 0) return -1;
    if (kind == 0x3B) return 0;
    if (kind == 0x2C) {
      if (read_image(r, global, transparent) < 0) return -1;
      transparent = -1;
      seen_control = 0;
    } else if (kind == 0x21) {
      uint8_t label, length;
      if (take(r, &label, 1) < 0) return -1;
      int first = 1;
      for (;;) {
        if (take(r, &length, 1) < 0) return -1;
        if (length == 0) break;
        uint8_t block[255];
        if (take(r, block, length) < 0) return -1;
        /* the first graphics control block before an image, if 4 bytes long, gives its transparent index */
        if (first && label == 0xF9 && !seen_control) {
          seen_control = 1;
          if (length == 4) transparent = (block[0] & 1) ? block[3] : -1;
        }
        first = 0;
      }
    } else {
      r->error = kWrongRecord;
      return -1;
    }
  }
}

static void set_error(char* error, size_t size, const char* format, ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(error, size, format, args);
  va_end(args);
}

uint8_t* mtic_gif_decode(const uint8_t* data, size_t size, int mode, int* frames, int* height, int* width,
                         char* error, size_t error_size, int* error_kind) {
  Reader r = {data, size, 0, NULL, NULL, 0, 0, 0};
  *error_kind = 1;
  ColorMap global = {0};
  int screen_ok = 0;
  uint8_t* out = NULL;
  const int failed = read_records(&r, &global, &screen_ok) < 0;
  if (failed && !screen_ok) {
    set_error(error, error_size, "failed to open gif file: %s", r.error);
    goto done;
  }
  /* On a failure giflib drops the frame it was reading; TF keeps the whole frames before it (and logs the error),
   * unless there are none or the image data ended too soon. */
  if (failed && (r.complete == 0 || r.error == kEofTooSoon)) {
    set_error(error, error_size, "failed to slurp gif file: %s", r.error);
    goto done;
  }
  if (r.complete == 0) {
    set_error(error, error_size, "gif file does not contain any image");
    goto done;
  }
  const int whole = r.complete;
  int canvas_w = 0, canvas_h = 0;
  for (int k = 0; k < whole; ++k) {
    if (r.frames[k].width > canvas_w) canvas_w = r.frames[k].width;
    if (r.frames[k].height > canvas_h) canvas_h = r.frames[k].height;
  }
  if (mode == MTIC_GIF_ONE_FRAME && whole > 1) {
    set_error(error, error_size, "Got %d frames, but animated gifs can only be decoded by tf.io.decode_gif or "
              "tf.io.decode_image", whole);
    *error_kind = 2;
    goto done;
  }
  const int count = mode == MTIC_GIF_ALL_FRAMES ? whole : 1;
  const size_t frame_bytes = (size_t)canvas_w * (size_t)canvas_h * 3;
  out = (uint8_t*)malloc(frame_bytes * (size_t)count > 0 ? frame_bytes * (size_t)count : 1);
  if (out == NULL) {
    set_error(error, error_size, "failed to slurp gif file: %s", kNoMemory);
    goto done;
  }
  for (int k = 0; k < count; ++k) {
    const Frame* f = &r.frames[k];
    uint8_t* canvas = out + (size_t)k * frame_bytes;
    if (k > 0) memcpy(canvas, canvas - frame_bytes, frame_bytes);
    int x0 = f->left, y0 = f->top, x1 = f->left + f->width, y1 = f->top + f->height;
    if (f->left != 0 || f->top != 0 || f->width != canvas_w || f->height != canvas_h) {
      if (k == 0) memset(canvas, 0, frame_bytes);
      if (x1 > canvas_w) x1 = canvas_w;
      if (y1 > canvas_h) y1 = canvas_h;
    }
    if (f->map.count == 0) {
      set_error(error, error_size, "missing color map for frame %d", k);
      free(out);
      out = NULL;
      goto done;
    }
    for (int y = y0; y < y1; ++y) {
      uint8_t* row = canvas + (size_t)y * (size_t)canvas_w * 3;
      for (int x = x0; x < x1; ++x) {
        const int index = f->raster[(size_t)(y - f->top) * (size_t)f->width + (size_t)(x - f->left)];
        if (index == f->transparent) {
          if (k == 0) memset(row + 3 * x, 0, 3);
          continue;
        }
        if (index >= f->map.count) {
          set_error(error, error_size, "found color index %d outside of color map range %d", index, f->map.count);
          free(out);
          out = NULL;
          goto done;
        }
        memcpy(row + 3 * x, f->map.rgb + 3 * index, 3);
      }
    }
  }
  *frames = count;
  *height = canvas_h;
  *width = canvas_w;
done:
  for (int k = 0; k < r.count; ++k) free(r.frames[k].raster);
  free(r.frames);
  return out;
}
