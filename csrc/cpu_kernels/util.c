#define _POSIX_C_SOURCE 200809L
/* Small helpers of the native CPU kernels: failures, attrs, scratch memory, window geometry. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtk.h"

void mtk_fail(TF_OpKernelContext* ctx, TF_Code code, const char* fmt, ...) {
  char message[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(message, sizeof message, fmt, ap);
  va_end(ap);
  TF_Status* s = TF_NewStatus();
  TF_SetStatus(s, code, message);
  TF_OpKernelContext_Failure(ctx, s);
  TF_DeleteStatus(s);
}

void mtk_fail_construction(TF_OpKernelConstruction* ctx, TF_Code code, const char* fmt, ...) {
  char message[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(message, sizeof message, fmt, ap);
  va_end(ap);
  TF_Status* s = TF_NewStatus();
  TF_SetStatus(s, code, message);
  TF_OpKernelConstruction_Failure(ctx, s);
  TF_DeleteStatus(s);
}

int mtk_attr_ints(TF_OpKernelConstruction* ctx, const char* name, int64_t* out, int max) {
  TF_Status* s = TF_NewStatus();
  int32_t list_size = 0, total = 0;
  TF_OpKernelConstruction_GetAttrSize(ctx, name, &list_size, &total, s);
  if (TF_GetCode(s) != TF_OK) {
    TF_OpKernelConstruction_Failure(ctx, s);
    TF_DeleteStatus(s);
    return -1;
  }
  if (list_size > max) {
    TF_DeleteStatus(s);
    mtk_fail_construction(ctx, TF_INVALID_ARGUMENT, "attr '%s' has %d entries, at most %d are supported", name,
                          (int)list_size, max);
    return -1;
  }
  if (list_size > 0) TF_OpKernelConstruction_GetAttrInt64List(ctx, name, out, max, s);
  if (TF_GetCode(s) != TF_OK) {
    TF_OpKernelConstruction_Failure(ctx, s);
    TF_DeleteStatus(s);
    return -1;
  }
  TF_DeleteStatus(s);
  return (int)list_size;
}

int mtk_attr_string(TF_OpKernelConstruction* ctx, const char* name, char* buf, size_t len) {
  TF_Status* s = TF_NewStatus();
  int32_t list_size = 0, total = 0;
  TF_OpKernelConstruction_GetAttrSize(ctx, name, &list_size, &total, s);
  if (TF_GetCode(s) == TF_OK && (total < 0 || (size_t)total >= len)) {
    TF_SetStatus(s, TF_INVALID_ARGUMENT, "string attr too long");
  }
  if (TF_GetCode(s) == TF_OK) TF_OpKernelConstruction_GetAttrString(ctx, name, buf, len, s);
  if (TF_GetCode(s) != TF_OK) {
    TF_OpKernelConstruction_Failure(ctx, s);
    TF_DeleteStatus(s);
    return -1;
  }
  buf[total] = '\0';
  TF_DeleteStatus(s);
  return 0;
}

void* mtk_aligned_alloc(size_t bytes) {
  void* p = NULL;
  if (bytes == 0) bytes = 64;
  if (posix_memalign(&p, 64, (bytes + 63) / 64 * 64) != 0) return NULL;
  return p;
}

#define SCRATCH_SLOTS 4
typedef struct {
  float* data[SCRATCH_SLOTS];
  size_t size[SCRATCH_SLOTS];
} Scratch;

static _Thread_local Scratch t_scratch;

float* mtk_scratch(int slot, size_t count) {
  Scratch* s = &t_scratch;
  if (slot < 0 || slot >= SCRATCH_SLOTS) return NULL;
  if (s->size[slot] < count) {
    free(s->data[slot]);
    size_t grown = count + count / 4;
    s->data[slot] = (float*)mtk_aligned_alloc(grown * sizeof(float));
    s->size[slot] = s->data[slot] != NULL ? grown : 0;
  }
  return s->data[slot];
}

int mtk_parse_padding(const char* s) {
  if (strcmp(s, "SAME") == 0) return MTK_PAD_SAME;
  if (strcmp(s, "EXPLICIT") == 0) return MTK_PAD_EXPLICIT;
  return MTK_PAD_VALID;
}

static int64_t floordiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

int mtk_axis_init(mtk_axis* a, int64_t in, int64_t k, int64_t stride, int64_t dilation, int padding,
                  int64_t explicit_before, int64_t explicit_after, char* error, size_t error_len) {
  if (stride <= 0) {
    snprintf(error, error_len, "Stride must be > 0, but got %lld", (long long)stride);
    return -1;
  }
  if (dilation <= 0) {
    snprintf(error, error_len, "Dilation rate must be >= 1, but got %lld", (long long)dilation);
    return -1;
  }
  a->in = in;
  a->k = k;
  a->stride = stride;
  a->dilation = dilation;
  int64_t eff = (k - 1) * dilation + 1;
  if (padding == MTK_PAD_SAME) {
    a->out = floordiv(in + stride - 1, stride);
    int64_t total = (a->out - 1) * stride + eff - in;
    if (total < 0) total = 0;
    a->pad_before = total / 2;
  } else if (padding == MTK_PAD_EXPLICIT) {
    if (explicit_before < 0 || explicit_after < 0) {
      snprintf(error, error_len, "Explicit padding must be non-negative, got %lld and %lld",
               (long long)explicit_before, (long long)explicit_after);
      return -1;
    }
    a->pad_before = explicit_before;
    a->out = floordiv(in + explicit_before + explicit_after - eff + stride, stride);
  } else {
    a->pad_before = 0;
    a->out = floordiv(in - eff + stride, stride);
  }
  if (a->out < 0) {
    snprintf(error, error_len,
             "Computed output size would be negative: %lld [input_size: %lld, effective_filter_size: %lld, stride: "
             "%lld]",
             (long long)a->out, (long long)in, (long long)eff, (long long)stride);
    return -1;
  }
  return 0;
}

/* A CPU kernel for `op` registered as `kernel_name`, attrs[i] constrained to types[i]. */
static void register_kernel(const char* kernel_name, const char* op, void* (*create)(TF_OpKernelConstruction*),
                            void (*compute)(void*, TF_OpKernelContext*), void (*destroy)(void*),
                            const char* const* attrs, const TF_DataType* types, int n, TF_Status* s) {
  TF_KernelBuilder* b = TF_NewKernelBuilder(op, "CPU", create, compute, destroy);
  for (int i = 0; i < n && TF_GetCode(s) == TF_OK; ++i) TF_KernelBuilder_TypeConstraint(b, attrs[i], types[i], s);
  if (TF_GetCode(s) != TF_OK) {
    TF_DeleteKernelBuilder(b);
    return;
  }
  /* TF's default priority 0: above the numpy fallback kernels (-1), and like any other device's kernels, so a
   * pluggable device still wins placement by device-type priority. */
  TF_KernelBuilder_Priority(b, 0);
  TF_RegisterKernelBuilder(kernel_name, b, s);
}

void mtk_register(const char* kernel_name, const char* op, void* (*create)(TF_OpKernelConstruction*),
                  void (*compute)(void*, TF_OpKernelContext*), void (*destroy)(void*), TF_Status* s) {
  static const char* const attrs[] = {"T"};
  static const TF_DataType types[] = {TF_FLOAT};
  register_kernel(kernel_name, op, create, compute, destroy, attrs, types, 1, s);
}

void mtk_register_types(const char* op, void* (*create)(TF_OpKernelConstruction*),
                        void (*compute)(void*, TF_OpKernelContext*), void (*destroy)(void*), const char* const* attrs,
                        const TF_DataType* types, int n, TF_Status* s) {
  char name[128];
  size_t used = (size_t)snprintf(name, sizeof name, "Mtk%s", op);
  for (int i = 0; i < n && used < sizeof name; ++i)
    used += (size_t)snprintf(name + used, sizeof name - used, "_%d", (int)types[i]);
  register_kernel(name, op, create, compute, destroy, attrs, types, n, s);
}

void mtk_nchw_to_nhwc(const float* src, float* dst, int64_t n, int64_t c, int64_t hw) {
  for (int64_t b = 0; b < n; ++b) {
    const float* s = src + b * c * hw;
    float* d = dst + b * c * hw;
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t p = 0; p < hw; ++p) d[p * c + ch] = s[ch * hw + p];
  }
}

void mtk_nhwc_to_nchw(const float* src, float* dst, int64_t n, int64_t c, int64_t hw) {
  for (int64_t b = 0; b < n; ++b) {
    const float* s = src + b * c * hw;
    float* d = dst + b * c * hw;
    for (int64_t p = 0; p < hw; ++p)
      for (int64_t ch = 0; ch < c; ++ch) d[ch * hw + p] = s[p * c + ch];
  }
}

void mtk_shape_str(const TF_Tensor* t, char* buf, size_t len) {
  size_t used = 0;
  buf[0] = '\0';
  used += (size_t)snprintf(buf + used, len - used, "[");
  for (int i = 0; i < TF_NumDims(t) && used < len; ++i) {
    used += (size_t)snprintf(buf + used, len - used, i ? ",%lld" : "%lld", (long long)TF_Dim(t, i));
  }
  if (used < len) snprintf(buf + used, len - used, "]");
}

int mtk_attr_flag(TF_OpKernelConstruction* ctx, const char* name) {
  if (!mtk_has_attr(ctx, name)) return 0;
  TF_Status* s = TF_NewStatus();
  TF_Bool value = 0;
  TF_OpKernelConstruction_GetAttrBool(ctx, name, &value, s);
  int ok = TF_GetCode(s) == TF_OK;
  TF_DeleteStatus(s);
  return ok && value;
}

int mtk_has_attr(TF_OpKernelConstruction* ctx, const char* name) {
  TF_Status* s = TF_NewStatus();
  int found = TF_OpKernelConstruction_HasAttr(ctx, name, s);
  TF_DeleteStatus(s);
  return found;
}

int mtk_window_attrs_read(TF_OpKernelConstruction* ctx, mtk_window_attrs* w) {
  memset(w, 0, sizeof *w);
  char text[32];
  if ((w->n_strides = mtk_attr_ints(ctx, "strides", w->strides, 4)) < 0) return -1;
  if (mtk_attr_string(ctx, "padding", text, sizeof text) < 0) return -1;
  w->padding = mtk_parse_padding(text);
  w->dilations[0] = w->dilations[1] = w->dilations[2] = w->dilations[3] = 1;
  w->n_dilations = 4;
  if (mtk_has_attr(ctx, "dilations") &&
      (w->n_dilations = mtk_attr_ints(ctx, "dilations", w->dilations, 4)) < 0) {
    return -1;
  }
  if (mtk_has_attr(ctx, "ksize") && (w->n_ksize = mtk_attr_ints(ctx, "ksize", w->ksize, 4)) < 0) {
    return -1;
  }
  if (mtk_has_attr(ctx, "explicit_paddings") &&
      (w->n_explicit = mtk_attr_ints(ctx, "explicit_paddings", w->explicit_pad, 8)) < 0) {
    return -1;
  }
  strcpy(text, "NHWC");
  if (mtk_has_attr(ctx, "data_format") &&
      mtk_attr_string(ctx, "data_format", text, sizeof text) < 0) {
    return -1;
  }
  w->nchw = text[0] == 'N' && text[1] == 'C';
  if (strcmp(text, "NHWC") != 0 && strcmp(text, "NCHW") != 0) {
    w->error_code = TF_UNIMPLEMENTED;
    snprintf(w->error, sizeof w->error, "data_format %s is not supported on CPU; use NHWC or NCHW", text);
  }
  return 0;
}

static int spatial_pair(TF_OpKernelContext* ctx, const int64_t* v, int n, int nchw, const char* what,
                        int64_t* out_h, int64_t* out_w) {
  if (n != 4) {
    mtk_fail(ctx, TF_INVALID_ARGUMENT, "Sliding window %s field must specify 4 dimensions", what);
    return -1;
  }
  int b = 0, c = nchw ? 1 : 3, h = nchw ? 2 : 1, wd = nchw ? 3 : 2;
  if (v[b] != 1 || v[c] != 1) {
    mtk_fail(ctx, strcmp(what, "strides") == 0 ? TF_UNIMPLEMENTED : TF_INVALID_ARGUMENT,
             "Current implementation does not yet support %s in the batch and depth dimensions.", what);
    return -1;
  }
  *out_h = v[h];
  *out_w = v[wd];
  return 0;
}

int mtk_window_axes(TF_OpKernelContext* ctx, const mtk_window_attrs* w, int64_t h, int64_t wd, int64_t kh,
                    int64_t kw, int use_dilations, mtk_axis* ah, mtk_axis* aw) {
  if (w->error_code != TF_OK) {
    mtk_fail(ctx, w->error_code, "%s", w->error);
    return -1;
  }
  int64_t sh, sw, dh = 1, dw = 1;
  if (spatial_pair(ctx, w->strides, w->n_strides, w->nchw, "strides", &sh, &sw) < 0) return -1;
  if (use_dilations && spatial_pair(ctx, w->dilations, w->n_dilations, w->nchw, "dilations", &dh, &dw) < 0) return -1;
  int64_t ph[2] = {0, 0}, pw[2] = {0, 0};
  if (w->padding == MTK_PAD_EXPLICIT) {
    if (w->n_explicit != 8) {
      mtk_fail(ctx, TF_INVALID_ARGUMENT, "explicit_paddings attribute must contain 8 values, but got: %d",
               w->n_explicit);
      return -1;
    }
    int hi = w->nchw ? 2 : 1, wi = w->nchw ? 3 : 2, ci = w->nchw ? 1 : 3;
    if (w->explicit_pad[0] || w->explicit_pad[1] || w->explicit_pad[2 * ci] || w->explicit_pad[2 * ci + 1]) {
      mtk_fail(ctx, TF_INVALID_ARGUMENT, "Nonzero explicit padding in the batch or depth dimensions is not supported");
      return -1;
    }
    ph[0] = w->explicit_pad[2 * hi];
    ph[1] = w->explicit_pad[2 * hi + 1];
    pw[0] = w->explicit_pad[2 * wi];
    pw[1] = w->explicit_pad[2 * wi + 1];
  }
  char error[320];
  if (mtk_axis_init(ah, h, kh, sh, dh, w->padding, ph[0], ph[1], error, sizeof error) < 0 ||
      mtk_axis_init(aw, wd, kw, sw, dw, w->padding, pw[0], pw[1], error, sizeof error) < 0) {
    mtk_fail(ctx, TF_INVALID_ARGUMENT, "%s", error);
    return -1;
  }
  return 0;
}
