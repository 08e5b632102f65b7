/* modtensor.kernels.cpu._image_codecs: the JPEG, PNG, GIF and WebP codecs (jpeg_codec.c, png_codec.c, gif_codec.c,
 * webp_codec.c) for the image kernels, the GIL released while they work. Decoders return (bytearray, height, width,
 * channels); failures return None (PNG: (error code, width, height), GIF: (kind, message), a WebP animation: its
 * message), and the kernels raise TF's errors. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdlib.h>

#include "gif_codec.h"
#include "jpeg_codec.h"
#include "png_codec.h"
#include "webp_codec.h"

static PyObject* image_tuple(void* pixels, size_t bytes, int height, int width, int channels) {
  PyObject* array = PyByteArray_FromStringAndSize((const char*)pixels, (Py_ssize_t)bytes);
  free(pixels);
  if (array == NULL) return NULL;
  return Py_BuildValue("Niii", array, height, width, channels);
}

/* decode_jpeg(data, channels, ratio, fancy_upscaling, try_recover_truncated, acceptable_fraction, accurate_dct,
 *             crop_window or None) */
static PyObject* decode_jpeg(PyObject* self, PyObject* args) {
  (void)self;
  Py_buffer data;
  mtic_jpeg_decode_flags flags = {0};
  PyObject* window;
  if (!PyArg_ParseTuple(args, "y*iippfpO:decode_jpeg", &data, &flags.components, &flags.ratio,
                        &flags.fancy_upscaling, &flags.try_recover_truncated, &flags.acceptable_fraction,
                        &flags.accurate_dct, &window)) {
    return NULL;
  }
  if (window != Py_None) {
    flags.crop = 1;
    if (!PyArg_ParseTuple(window, "iiii", &flags.crop_y, &flags.crop_x, &flags.crop_height, &flags.crop_width)) {
      PyBuffer_Release(&data);
      return NULL;
    }
  }
  int height = 0, width = 0, channels = 0;
  uint8_t* pixels;
  Py_BEGIN_ALLOW_THREADS
  pixels = mtic_jpeg_decode((const uint8_t*)data.buf, (size_t)data.len, &flags, &height, &width, &channels);
  Py_END_ALLOW_THREADS
  PyBuffer_Release(&data);
  if (pixels == NULL) Py_RETURN_NONE;
  return image_tuple(pixels, (size_t)height * (size_t)width * (size_t)channels, height, width, channels);
}

/* jpeg_shape(data) -> (height, width, channels) or None */
static PyObject* jpeg_shape(PyObject* self, PyObject* args) {
  (void)self;
  Py_buffer data;
  if (!PyArg_ParseTuple(args, "y*:jpeg_shape", &data)) return NULL;
  int height = 0, width = 0, channels = 0, status;
  Py_BEGIN_ALLOW_THREADS
  status = mtic_jpeg_shape((const uint8_t*)data.buf, (size_t)data.len, &height, &width, &channels);
  Py_END_ALLOW_THREADS
  PyBuffer_Release(&data);
  if (status != 0) Py_RETURN_NONE;
  return Py_BuildValue("iii", height, width, channels);
}

/* encode_jpeg(pixels, height, width, channels, quality, progressive, optimize_size, chroma_downsampling,
 *             density_unit, x_density, y_density, xmp) -> bytes or None */
static PyObject* encode_jpeg(PyObject* self, PyObject* args) {
  (void)self;
  Py_buffer pixels, xmp;
  int height, width, channels;
  mtic_jpeg_encode_flags flags = {0};
  if (!PyArg_ParseTuple(args, "y*iiiipppiiiy*:encode_jpeg", &pixels, &height, &width, &channels, &flags.quality,
                        &flags.progressive, &flags.optimize_size, &flags.chroma_downsampling, &flags.density_unit,
                        &flags.x_density, &flags.y_density, &xmp)) {
    return NULL;
  }
  if (pixels.len < (Py_ssize_t)height * width * channels) {
    PyBuffer_Release(&pixels);
    PyBuffer_Release(&xmp);
    PyErr_SetString(PyExc_ValueError, "encode_jpeg: the pixel buffer is smaller than height * width * channels");
    return NULL;
  }
  flags.xmp = (const uint8_t*)xmp.buf;
  flags.xmp_size = (size_t)xmp.len;
  size_t size = 0;
  uint8_t* stream;
  Py_BEGIN_ALLOW_THREADS
  stream = mtic_jpeg_encode((const uint8_t*)pixels.buf, height, width, channels, &flags, &size);
  Py_END_ALLOW_THREADS
  PyBuffer_Release(&pixels);
  PyBuffer_Release(&xmp);
  if (stream == NULL) Py_RETURN_NONE;
  PyObject* out = PyBytes_FromStringAndSize((const char*)stream, (Py_ssize_t)size);
  free(stream);
  return out;
}

/* decode_png(data, channels, bits) -> (bytearray, height, width, channels), or (error code, width, height) */
static PyObject* decode_png(PyObject* self, PyObject* args) {
  (void)self;
  Py_buffer data;
  int channels, bits;
  if (!PyArg_ParseTuple(args, "y*ii:decode_png", &data, &channels, &bits)) return NULL;
  int height = 0, width = 0, out_channels = 0, error = 0;
  void* pixels;
  Py_BEGIN_ALLOW_THREADS
  pixels = mtic_png_decode((const uint8_t*)data.buf, (size_t)data.len, channels, bits, &height, &width,
                           &out_channels, &error);
  Py_END_ALLOW_THREADS
  PyBuffer_Release(&data);
  if (pixels == NULL) return Py_BuildValue("iii", error, width, height);
  return image_tuple(pixels, (size_t)height * (size_t)width * (size_t)out_channels * (size_t)(bits / 8), height,
                     width, out_channels);
}

/* encode_png(pixels, height, width, channels, bits, compression) -> bytes or None */
static PyObject* encode_png(PyObject* self, PyObject* args) {
  (void)self;
  Py_buffer pixels;
  int height, width, channels, bits, compression;
  if (!PyArg_ParseTuple(args, "y*iiiii:encode_png", &pixels, &height, &width, &channels, &bits, &compression)) {
    return NULL;
  }
  if (pixels.len < (Py_ssize_t)height * width * channels * (bits / 8)) {
    PyBuffer_Release(&pixels);
    PyErr_SetString(PyExc_ValueError, "encode_png: the pixel buffer is smaller than the image");
    return NULL;
  }
  size_t size = 0;
  uint8_t* stream;
  Py_BEGIN_ALLOW_THREADS
  stream = mtic_png_encode(pixels.buf, height, width, channels, bits, compression, &size);
  Py_END_ALLOW_THREADS
  PyBuffer_Release(&pixels);
  if (stream == NULL) Py_RETURN_NONE;
  PyObject* out = PyBytes_FromStringAndSize((const char*)stream, (Py_ssize_t)size);
  free(stream);
  return out;
}

/* decode_gif(data, mode) -> (bytearray, frames, height, width), or (error kind, message) */
static PyObject* decode_gif(PyObject* self, PyObject* args) {
  (void)self;
  Py_buffer data;
  int mode;
  if (!PyArg_ParseTuple(args, "y*i:decode_gif", &data, &mode)) return NULL;
  int frames = 0, height = 0, width = 0, kind = 0;
  char error[256] = "";
  uint8_t* pixels;
  Py_BEGIN_ALLOW_THREADS
  pixels = mtic_gif_decode((const uint8_t*)data.buf, (size_t)data.len, mode, &frames, &height, &width, error,
                           sizeof error, &kind);
  Py_END_ALLOW_THREADS
  PyBuffer_Release(&data);
  if (pixels == NULL) return Py_BuildValue("is", kind, error);
  PyObject* array = PyByteArray_FromStringAndSize((const char*)pixels, (Py_ssize_t)frames * height * width * 3);
  free(pixels);
  if (array == NULL) return NULL;
  return Py_BuildValue("Niii", array, frames, height, width);
}

/* webp_info(data) -> (height, width, channels, animated), or None when the header cannot be read */
static PyObject* webp_info(PyObject* self, PyObject* args) {
  (void)self;
  Py_buffer data;
  if (!PyArg_ParseTuple(args, "y*:webp_info", &data)) return NULL;
  int width = 0, height = 0, channels = 0, animated = 0, ok;
  Py_BEGIN_ALLOW_THREADS
  ok = mtic_webp_info((const uint8_t*)data.buf, (size_t)data.len, &width, &height, &channels, &animated);
  Py_END_ALLOW_THREADS
  PyBuffer_Release(&data);
  if (!ok) Py_RETURN_NONE;
  return Py_BuildValue("iiiN", height, width, channels, PyBool_FromLong(animated));
}

/* webp_decode(data, height, width, channels) -> bytearray, or None when libwebp fails */
static PyObject* webp_decode(PyObject* self, PyObject* args) {
  (void)self;
  Py_buffer data;
  int height, width, channels;
  if (!PyArg_ParseTuple(args, "y*iii:webp_decode", &data, &height, &width, &channels)) return NULL;
  PyObject* out = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)height * width * channels);
  if (out == NULL) {
    PyBuffer_Release(&data);
    return NULL;
  }
  uint8_t* pixels = (uint8_t*)PyByteArray_AS_STRING(out);
  int ok;
  Py_BEGIN_ALLOW_THREADS
  ok = mtic_webp_decode((const uint8_t*)data.buf, (size_t)data.len, pixels, width, height, channels);
  Py_END_ALLOW_THREADS
  PyBuffer_Release(&data);
  if (!ok) {
    Py_DECREF(out);
    Py_RETURN_NONE;
  }
  return out;
}

/* webp_decode_animation(data, all_frames, channels) -> (bytearray, frames, height, width), or the error message */
static PyObject* webp_decode_animation(PyObject* self, PyObject* args) {
  (void)self;
  Py_buffer data;
  int all_frames, channels;
  if (!PyArg_ParseTuple(args, "y*pi:webp_decode_animation", &data, &all_frames, &channels)) return NULL;
  int frames = 0, height = 0, width = 0;
  char error[128] = "";
  uint8_t* pixels;
  Py_BEGIN_ALLOW_THREADS
  pixels = mtic_webp_decode_animation((const uint8_t*)data.buf, (size_t)data.len, all_frames, channels, &frames,
                                      &width, &height, error, sizeof error);
  Py_END_ALLOW_THREADS
  PyBuffer_Release(&data);
  if (pixels == NULL) return PyUnicode_FromString(error);
  PyObject* array = PyByteArray_FromStringAndSize((const char*)pixels, (Py_ssize_t)frames * height * width * channels);
  free(pixels);
  if (array == NULL) return NULL;
  return Py_BuildValue("Niii", array, frames, height, width);
}

static PyObject* webp_available(PyObject* self, PyObject* args) {
  (void)self, (void)args;
  return PyBool_FromLong(mtic_webp_available());
}

static PyMethodDef kMethods[] = {
    {"decode_jpeg", decode_jpeg, METH_VARARGS, "Decode a JPEG stream as TF's DecodeJpeg does."},
    {"jpeg_shape", jpeg_shape, METH_VARARGS, "The (height, width, channels) a JPEG header announces."},
    {"encode_jpeg", encode_jpeg, METH_VARARGS, "Encode 1- or 3-channel uint8 pixels as TF's EncodeJpeg does."},
    {"decode_png", decode_png, METH_VARARGS, "Decode a PNG stream as TF's DecodePng does."},
    {"encode_png", encode_png, METH_VARARGS, "Encode pixels as TF's EncodePng does."},
    {"decode_gif", decode_gif, METH_VARARGS, "Decode a GIF's frames as TF's DecodeGif does."},
    {"webp_available", webp_available, METH_NOARGS, "Whether the module was built with libwebp."},
    {"webp_info", webp_info, METH_VARARGS, "A WebP header's (height, width, channels, animated)."},
    {"webp_decode", webp_decode, METH_VARARGS, "Decode a still WebP image into RGB or RGBA rows."},
    {"webp_decode_animation", webp_decode_animation, METH_VARARGS, "Decode a WebP animation's canvases."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef kModule = {PyModuleDef_HEAD_INIT, "_image_codecs", NULL, -1, kMethods,
                                     NULL,                  NULL,            NULL, NULL};

PyMODINIT_FUNC PyInit__image_codecs(void) { return PyModule_Create(&kModule); }
