/* JPEG through libjpeg(-turbo), set up the way TensorFlow's image kernels set it up: the same source manager
 * semantics (a truncated stream fails, or with try_recover_truncated ends in a fake EOI), the same output colour
 * spaces (CMYK converted to RGB by hand), crop windows through jpeg_crop_scanline / jpeg_skip_scanlines, and on the
 * encoding side the same defaults, density, quality and optional XMP packet. libjpeg's fatal errors longjmp back
 * here; its messages are not printed. */
#include "jpeg_codec.h"

#include <setjmp.h>
#include <stdio.h> /* jpeglib.h needs FILE */
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
/* after jpeglib.h: ERREXIT, WARNMS and the message codes */
#include <jerror.h>

typedef struct {
  struct jpeg_error_mgr pub;
  jmp_buf jump;
} ErrorManager;

static void error_exit(j_common_ptr cinfo) {
  ErrorManager* err = (ErrorManager*)cinfo->err;
  longjmp(err->jump, 1);
}

static void output_message(j_common_ptr cinfo) { (void)cinfo; }

static void init_errors(ErrorManager* err) {
  jpeg_std_error(&err->pub);
  err->pub.error_exit = error_exit;
  err->pub.output_message = output_message;
}

/* ---------------------------------------------------------------- memory source */

typedef struct {
  struct jpeg_source_mgr pub;
  const JOCTET* data;
  size_t size;
  int try_recover_truncated;
  const JOCTET* stalled_at; /* where libjpeg last asked for more with bytes left, and how often */
  int stalls;
} MemorySource;

static const JOCTET kFakeEoi[2] = {0xFF, JPEG_EOI};

static void init_source(j_decompress_ptr cinfo) {
  MemorySource* src = (MemorySource*)cinfo->src;
  src->pub.next_input_byte = src->data;
  src->pub.bytes_in_buffer = src->size;
}

static boolean fill_input_buffer(j_decompress_ptr cinfo) {
  MemorySource* src = (MemorySource*)cinfo->src;
  if (src->pub.bytes_in_buffer == 0 && src->pub.next_input_byte == src->data) {
    ERREXIT(cinfo, JERR_INPUT_EMPTY); /* nothing at all */
    return FALSE;
  }
  /* Asked for more while bytes remain: damaged data. When recovering truncated files TF answers TRUE, handing libjpeg
   * nothing new: inside the entropy-coded data it then carries on, but on some damaged headers it asks again at the
   * same byte forever (TF 2.21 hangs there). Here it may ask 1000 times at one byte, then the decode fails. */
  if (src->pub.bytes_in_buffer != 0) {
    if (!src->try_recover_truncated) return FALSE;
    if (src->pub.next_input_byte != src->stalled_at) {
      src->stalled_at = src->pub.next_input_byte;
      src->stalls = 0;
    }
    return ++src->stalls <= 1000 ? TRUE : FALSE;
  }
  if (src->pub.next_input_byte != kFakeEoi && src->try_recover_truncated) {
    WARNMS(cinfo, JWRN_JPEG_EOF); /* end the truncated stream with an EOI */
    src->pub.next_input_byte = kFakeEoi;
    src->pub.bytes_in_buffer = 2;
    return TRUE;
  }
  ERREXIT(cinfo, JERR_FILE_READ);
  return FALSE;
}

static void skip_input_data(j_decompress_ptr cinfo, long count) {
  MemorySource* src = (MemorySource*)cinfo->src;
  if (count < 0) return;
  if ((size_t)count > src->pub.bytes_in_buffer) {
    src->pub.bytes_in_buffer = 0;
    (void)fill_input_buffer(cinfo);
  } else {
    src->pub.bytes_in_buffer -= (size_t)count;
    src->pub.next_input_byte += count;
  }
}

static void term_source(j_decompress_ptr cinfo) { (void)cinfo; }

static void set_source(j_decompress_ptr cinfo, MemorySource* src, const uint8_t* data, size_t size, int recover) {
  memset(src, 0, sizeof *src);
  src->pub.init_source = init_source;
  src->pub.fill_input_buffer = fill_input_buffer;
  src->pub.skip_input_data = skip_input_data;
  src->pub.resync_to_restart = jpeg_resync_to_restart;
  src->pub.term_source = term_source;
  src->data = data;
  src->size = size;
  src->try_recover_truncated = recover;
  cinfo->src = &src->pub;
}

/* ---------------------------------------------------------------- decoding */

typedef struct {
  struct jpeg_decompress_struct cinfo;
  ErrorManager err;
  MemorySource src;
  uint8_t* out;  /* the image, height x stride */
  uint8_t* temp; /* one CMYK or MCU-aligned scanline */
  int height, width, components, stride;
  int lines_read;
} Decoder;

/* The body of TF's UncompressLow: 0 with dec->out filled (lines_read of height read), -1 on failure. Fatal libjpeg
 * errors return through the longjmp in mtic_jpeg_decode. */
static int decode_lines(Decoder* dec, const mtic_jpeg_decode_flags* flags) {
  struct jpeg_decompress_struct* cinfo = &dec->cinfo;
  int components = flags->components;
  jpeg_read_header(cinfo, TRUE);
  if (components == 0) components = cinfo->num_components < 3 ? cinfo->num_components : 3;
  if (components == 1) {
    cinfo->out_color_space = JCS_GRAYSCALE;
  } else if (components == 3) {
    int cmyk = cinfo->jpeg_color_space == JCS_CMYK || cinfo->jpeg_color_space == JCS_YCCK;
    cinfo->out_color_space = cmyk ? JCS_CMYK : JCS_RGB;
  } else {
    return -1;
  }
  cinfo->do_fancy_upsampling = flags->fancy_upscaling ? TRUE : FALSE;
  cinfo->scale_num = 1;
  cinfo->scale_denom = (unsigned int)flags->ratio;
  cinfo->dct_method = flags->accurate_dct ? JDCT_ISLOW : JDCT_IFAST;
  jpeg_calc_output_dimensions(cinfo);
  if (cinfo->output_width == 0 || cinfo->output_height == 0) return -1;
  if ((int64_t)cinfo->output_height * cinfo->output_width * cinfo->num_components >= ((int64_t)1 << 29)) return -1;

  jpeg_start_decompress(cinfo);
  JDIMENSION target_width = cinfo->output_width, target_height = cinfo->output_height, skipped = 0;
  if (flags->crop) {
    if (!(flags->crop_width > 0 && flags->crop_height > 0 && flags->crop_x >= 0 && flags->crop_y >= 0 &&
          (int64_t)flags->crop_y + flags->crop_height <= (int64_t)cinfo->output_height &&
          (int64_t)flags->crop_x + flags->crop_width <= (int64_t)cinfo->output_width)) {
      return -1;
    }
    target_height = (JDIMENSION)flags->crop_height;
    target_width = (JDIMENSION)flags->crop_width;
    /* the window's left edge moves to an iMCU boundary and its width grows to match: realigned per line below */
    JDIMENSION crop_x = (JDIMENSION)flags->crop_x, crop_width = (JDIMENSION)flags->crop_width;
    jpeg_crop_scanline(cinfo, &crop_x, &crop_width);
    skipped = jpeg_skip_scanlines(cinfo, (JDIMENSION)flags->crop_y);
    if (skipped != (JDIMENSION)flags->crop_y) return -1;
  }
  const int use_cmyk = cinfo->out_color_space == JCS_CMYK;
  const int stride = (int)target_width * components;
  dec->height = (int)target_height;
  dec->width = (int)target_width;
  dec->components = components;
  dec->stride = stride;
  dec->out = (uint8_t*)malloc((size_t)target_height * (size_t)stride);
  if (dec->out == NULL) return -1;
  const int realign = target_width != cinfo->output_width;
  if (use_cmyk || realign) {
    dec->temp = (uint8_t*)malloc((size_t)cinfo->output_width * (size_t)(use_cmyk ? 4 : components));
    if (dec->temp == NULL) return -1;
  }
  dec->lines_read = (int)target_height;
  const JDIMENSION last = skipped + target_height;
  const int align_offset = (int)(cinfo->output_width - target_width) * (use_cmyk ? 4 : components);
  uint8_t* line = dec->out;
  int ended_early = 0;
  while (cinfo->output_scanline < last) {
    JDIMENSION got;
    if (use_cmyk || realign) {
      JSAMPROW row = dec->temp;
      got = jpeg_read_scanlines(cinfo, &row, 1);
      if (got > 0 && use_cmyk) {
        for (JDIMENSION i = 0; i < target_width; ++i) {
          const uint8_t* p = dec->temp + 4 * i + (realign ? align_offset : 0);
          const int c = p[0], m = p[1], y = p[2], k = p[3];
          if (cinfo->saw_Adobe_marker) { /* Adobe stores inverted CMYK */
            line[3 * i + 0] = (uint8_t)(k * c / 255);
            line[3 * i + 1] = (uint8_t)(k * m / 255);
            line[3 * i + 2] = (uint8_t)(k * y / 255);
          } else {
            line[3 * i + 0] = (uint8_t)((255 - k) * (255 - c) / 255);
            line[3 * i + 1] = (uint8_t)((255 - k) * (255 - m) / 255);
            line[3 * i + 2] = (uint8_t)((255 - k) * (255 - y) / 255);
          }
        }
      } else if (got > 0) {
        memcpy(line, dec->temp + align_offset, (size_t)stride);
      }
    } else {
      JSAMPROW row = line;
      got = jpeg_read_scanlines(cinfo, &row, 1);
    }
    if (got == 0) { /* premature end of the data */
      if (!flags->try_recover_truncated) {
        dec->lines_read = (int)(cinfo->output_scanline - skipped);
        ended_early = 1;
      } else {
        for (JDIMENSION l = cinfo->output_scanline; l < last; ++l) {
          if (l == 0) {
            memset(line, 0, (size_t)stride);
          } else {
            memcpy(line, line - stride, (size_t)stride);
          }
          line += stride;
        }
        cinfo->output_scanline = last;
      }
      break;
    }
    line += stride;
  }
  free(dec->temp);
  dec->temp = NULL;
  if (flags->crop && cinfo->output_scanline < cinfo->output_height) {
    jpeg_skip_scanlines(cinfo, cinfo->output_height - (JDIMENSION)flags->crop_y - (JDIMENSION)flags->crop_height);
  }
  const int expected = components == 1 ? 1 : use_cmyk ? 4 : 3;
  if (!ended_early && cinfo->output_components == expected) {
    jpeg_finish_decompress(cinfo);
  } else {
    jpeg_abort((j_common_ptr)cinfo);
  }
  return 0;
}

uint8_t* mtic_jpeg_decode(const uint8_t* data, size_t size, const mtic_jpeg_decode_flags* flags, int* height,
                          int* width, int* components) {
  if (!(flags->ratio == 1 || flags->ratio == 2 || flags->ratio == 4 || flags->ratio == 8)) return NULL;
  if (!(flags->components == 0 || flags->components == 1 || flags->components == 3)) return NULL;
  if (size == 0 || data == NULL) return NULL;
  Decoder* dec = (Decoder*)calloc(1, sizeof(Decoder));
  if (dec == NULL) return NULL;
  init_errors(&dec->err);
  dec->cinfo.err = &dec->err.pub;
  if (setjmp(dec->err.jump)) {
    jpeg_destroy_decompress(&dec->cinfo);
    free(dec->temp);
    free(dec->out);
    free(dec);
    return NULL;
  }
  jpeg_create_decompress(&dec->cinfo);
  set_source(&dec->cinfo, &dec->src, data, size, flags->try_recover_truncated);
  int status = decode_lines(dec, flags);
  jpeg_destroy_decompress(&dec->cinfo);
  uint8_t* out = dec->out;
  free(dec->temp);
  if (status == 0) {
    /* TF: too small a fraction of the lines fails; otherwise the lines not read are black */
    const float wanted = flags->acceptable_fraction < 1.0f ? flags->acceptable_fraction : 1.0f;
    const float fraction = dec->height == 0 ? 1.0f : (float)dec->lines_read / (float)dec->height;
    if (fraction < wanted) {
      status = -1;
    } else if (dec->lines_read != dec->height) {
      memset(out + (size_t)dec->lines_read * (size_t)dec->stride, 0,
             (size_t)(dec->height - dec->lines_read) * (size_t)dec->stride);
    }
  }
  if (status != 0) {
    free(out);
    out = NULL;
  } else {
    *height = dec->height;
    *width = dec->width;
    *components = dec->components;
  }
  free(dec);
  return out;
}

int mtic_jpeg_shape(const uint8_t* data, size_t size, int* height, int* width, int* components) {
  if (size == 0 || data == NULL) return -1;
  Decoder* dec = (Decoder*)calloc(1, sizeof(Decoder));
  if (dec == NULL) return -1;
  init_errors(&dec->err);
  dec->cinfo.err = &dec->err.pub;
  if (setjmp(dec->err.jump)) {
    jpeg_destroy_decompress(&dec->cinfo);
    free(dec);
    return -1;
  }
  jpeg_create_decompress(&dec->cinfo);
  set_source(&dec->cinfo, &dec->src, data, size, 0);
  jpeg_read_header(&dec->cinfo, TRUE);
  jpeg_start_decompress(&dec->cinfo); /* fills in the output size */
  *height = (int)dec->cinfo.output_height;
  *width = (int)dec->cinfo.output_width;
  *components = dec->cinfo.output_components;
  jpeg_destroy_decompress(&dec->cinfo);
  free(dec);
  return 0;
}

/* ---------------------------------------------------------------- encoding */

typedef struct {
  struct jpeg_compress_struct cinfo;
  ErrorManager err;
  unsigned char* buffer; /* jpeg_mem_dest's growing output */
  unsigned long size;
} Encoder;

static void encode_lines(Encoder* enc, const uint8_t* pixels, int height, int width, int components,
                         const mtic_jpeg_encode_flags* flags) {
  struct jpeg_compress_struct* cinfo = &enc->cinfo;
  jpeg_mem_dest(cinfo, &enc->buffer, &enc->size);
  cinfo->image_width = (JDIMENSION)width;
  cinfo->image_height = (JDIMENSION)height;
  cinfo->input_components = components;
  cinfo->in_color_space = components == 1 ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_set_defaults(cinfo);
  if (flags->optimize_size) cinfo->optimize_coding = TRUE;
  cinfo->density_unit = (UINT8)flags->density_unit;
  cinfo->X_density = (UINT16)flags->x_density;
  cinfo->Y_density = (UINT16)flags->y_density;
  jpeg_set_quality(cinfo, flags->quality, TRUE);
  if (flags->progressive) jpeg_simple_progression(cinfo);
  if (!flags->chroma_downsampling) {
    for (int i = 0; i < cinfo->num_components; ++i) {
      cinfo->comp_info[i].h_samp_factor = 1;
      cinfo->comp_info[i].v_samp_factor = 1;
    }
  }
  jpeg_start_compress(cinfo, TRUE);
  if (flags->xmp != NULL && flags->xmp_size > 0) {
    static const char kNamespace[] = "http://ns.adobe.com/xap/1.0/"; /* with its NUL: the APP1 XMP header */
    const size_t length = sizeof kNamespace + flags->xmp_size;
    JOCTET* packet = (JOCTET*)(*cinfo->mem->alloc_large)((j_common_ptr)cinfo, JPOOL_IMAGE, length);
    memcpy(packet, kNamespace, sizeof kNamespace);
    memcpy(packet + sizeof kNamespace, flags->xmp, flags->xmp_size);
    jpeg_write_marker(cinfo, JPEG_APP0 + 1, packet, (unsigned int)length);
  }
  const size_t stride = (size_t)width * (size_t)components;
  while (cinfo->next_scanline < cinfo->image_height) {
    JSAMPROW row = (JSAMPROW)(pixels + (size_t)cinfo->next_scanline * stride);
    jpeg_write_scanlines(cinfo, &row, 1);
  }
  jpeg_finish_compress(cinfo);
}

uint8_t* mtic_jpeg_encode(const uint8_t* pixels, int height, int width, int components,
                          const mtic_jpeg_encode_flags* flags, size_t* size) {
  if (width <= 0 || height <= 0) return NULL;
  if ((int64_t)width * height >= ((int64_t)1 << 29)) return NULL;
  if (components != 1 && components != 3) return NULL;
  Encoder* enc = (Encoder*)calloc(1, sizeof(Encoder));
  if (enc == NULL) return NULL;
  init_errors(&enc->err);
  enc->cinfo.err = &enc->err.pub;
  if (setjmp(enc->err.jump)) {
    jpeg_destroy_compress(&enc->cinfo);
    free(enc->buffer);
    free(enc);
    return NULL;
  }
  jpeg_create_compress(&enc->cinfo);
  encode_lines(enc, pixels, height, width, components, flags);
  jpeg_destroy_compress(&enc->cinfo);
  uint8_t* out = enc->buffer;
  *size = (size_t)enc->size;
  free(enc);
  return out;
}
