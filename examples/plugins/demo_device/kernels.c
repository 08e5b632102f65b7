/* float32 kernels of the demo device, registered by TF_InitKernel for DEMO_DEVICE_TYPE:
 * AddV2, Mul, Relu, BiasAdd, MatMul, Conv2D, MaxPool and Softmax (NHWC layouts); the variable
 * updates of variable_kernels.c are registered here too.
 *
 * Each compute function works like a GPU kernel launch: it takes the stream with
 * TF_GetStream, checks the shapes, allocates its output with TF_AllocateOutput (device
 * memory), checks that every data pointer is device memory of the stream's device, and
 * enqueues the arithmetic on the stream's worker thread, capturing the data pointers.
 * It returns before the numbers exist. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demo_device.h"
#include "tensorflow/c/kernels.h"
#include "tensorflow/c/tf_tensor.h"

#define MAX_RANK 8

enum OpKind { OP_ADD, OP_MUL, OP_RELU, OP_BIAS_ADD, OP_MATMUL, OP_CONV2D, OP_MAXPOOL, OP_SOFTMAX };

static const char* const kOpNames[] = {"AddV2", "Mul", "Relu", "BiasAdd", "MatMul", "Conv2D", "MaxPool", "Softmax"};

/* What create() read from the node's attrs. */
typedef struct KernelState {
  enum OpKind op;
  int transpose_a, transpose_b;
  int64_t strides[4], ksize[4];
  int same_padding;
} KernelState;

/* ---- attrs ---- */

static int read_string_attr(TF_OpKernelConstruction* ctx, const char* name, char* out, size_t cap, TF_Status* st) {
  int32_t list_size = 0, total_size = 0;
  TF_OpKernelConstruction_GetAttrSize(ctx, name, &list_size, &total_size, st);
  if (TF_GetCode(st) != TF_OK) return 0;
  if (total_size < 0 || (size_t)total_size >= cap) {
    TF_SetStatus(st, TF_INVALID_ARGUMENT, "demo_device: string attr too long");
    return 0;
  }
  TF_OpKernelConstruction_GetAttrString(ctx, name, out, (size_t)total_size, st);
  out[total_size] = '\0';
  return TF_GetCode(st) == TF_OK;
}

static int read_int4_attr(TF_OpKernelConstruction* ctx, const char* name, int64_t out[4], TF_Status* st) {
  int32_t list_size = 0, total_size = 0;
  TF_OpKernelConstruction_GetAttrSize(ctx, name, &list_size, &total_size, st);
  if (TF_GetCode(st) != TF_OK) return 0;
  if (list_size != 4) {
    char msg[128];
    snprintf(msg, sizeof(msg), "Sliding window %s field must specify 4 dimensions", name);
    TF_SetStatus(st, TF_INVALID_ARGUMENT, msg);
    return 0;
  }
  TF_OpKernelConstruction_GetAttrInt64List(ctx, name, out, 4, st);
  return TF_GetCode(st) == TF_OK;
}

/* data_format must be NHWC (the attr's default); the demo has no NCHW kernels. */
static int check_nhwc(TF_OpKernelConstruction* ctx, const char* op, TF_Status* st) {
  char fmt[16];
  if (!TF_OpKernelConstruction_HasAttr(ctx, "data_format", st)) return 1;
  if (!read_string_attr(ctx, "data_format", fmt, sizeof(fmt), st)) return 0;
  if (strcmp(fmt, "NHWC") != 0) {
    char msg[160];
    snprintf(msg, sizeof(msg), "demo_device: %s supports only data_format NHWC on " DEMO_DEVICE_TYPE_NAME ", got %s",
             op, fmt);
    TF_SetStatus(st, TF_UNIMPLEMENTED, msg);
    return 0;
  }
  return 1;
}

static int read_padding(TF_OpKernelConstruction* ctx, const char* op, KernelState* k, TF_Status* st) {
  char pad[16];
  if (!read_string_attr(ctx, "padding", pad, sizeof(pad), st)) return 0;
  if (strcmp(pad, "SAME") == 0 || strcmp(pad, "VALID") == 0) {
    k->same_padding = pad[0] == 'S';
    return 1;
  }
  char msg[160];
  snprintf(msg, sizeof(msg), "demo_device: %s supports padding SAME and VALID, got %s", op, pad);
  TF_SetStatus(st, TF_UNIMPLEMENTED, msg);
  return 0;
}

static void* create_kernel(TF_OpKernelConstruction* ctx, enum OpKind op) {
  KernelState* k = calloc(1, sizeof(*k));
  TF_Status* st = TF_NewStatus();
  if (k == NULL) {
    TF_SetStatus(st, TF_RESOURCE_EXHAUSTED, "demo_device: out of host memory creating a kernel");
    goto fail;
  }
  k->op = op;
  const char* name = kOpNames[op];
  if (op == OP_MATMUL) {
    TF_Bool ta = 0, tb = 0;
    TF_OpKernelConstruction_GetAttrBool(ctx, "transpose_a", &ta, st);
    if (TF_GetCode(st) != TF_OK) goto fail;
    TF_OpKernelConstruction_GetAttrBool(ctx, "transpose_b", &tb, st);
    if (TF_GetCode(st) != TF_OK) goto fail;
    k->transpose_a = ta != 0;
    k->transpose_b = tb != 0;
  } else if (op == OP_BIAS_ADD) {
    if (!check_nhwc(ctx, name, st)) goto fail;
  } else if (op == OP_CONV2D || op == OP_MAXPOOL) {
    if (!check_nhwc(ctx, name, st) || !read_padding(ctx, name, k, st)) goto fail;
    if (!read_int4_attr(ctx, "strides", k->strides, st)) goto fail;
    if (k->strides[0] != 1 || k->strides[3] != 1) {
      TF_SetStatus(st, TF_UNIMPLEMENTED,
                   "Current implementation does not yet support strides in the batch and depth dimensions.");
      goto fail;
    }
    if (k->strides[1] < 1 || k->strides[2] < 1) {
      TF_SetStatus(st, TF_INVALID_ARGUMENT, "strides must be positive");
      goto fail;
    }
    if (op == OP_CONV2D) {
      int64_t dil[4] = {1, 1, 1, 1};
      if (TF_OpKernelConstruction_HasAttr(ctx, "dilations", st) && !read_int4_attr(ctx, "dilations", dil, st))
        goto fail;
      if (dil[0] != 1 || dil[1] != 1 || dil[2] != 1 || dil[3] != 1) {
        TF_SetStatus(st, TF_UNIMPLEMENTED, "demo_device: Conv2D supports only dilations of 1");
        goto fail;
      }
    } else {
      if (!read_int4_attr(ctx, "ksize", k->ksize, st)) goto fail;
      if (k->ksize[0] != 1 || k->ksize[3] != 1) {
        TF_SetStatus(st, TF_UNIMPLEMENTED, "Pooling is not yet supported on the batch nor depth dimensions.");
        goto fail;
      }
      if (k->ksize[1] < 1 || k->ksize[2] < 1) {
        TF_SetStatus(st, TF_INVALID_ARGUMENT, "Sliding window ksize must be positive");
        goto fail;
      }
    }
  }
  TF_DeleteStatus(st);
  return k;
fail:
  TF_OpKernelConstruction_Failure(ctx, st);
  TF_DeleteStatus(st);
  free(k);
  return NULL;
}

#define DEFINE_CREATE(fn, kind) \
  static void* fn(TF_OpKernelConstruction* ctx) { return create_kernel(ctx, kind); }
DEFINE_CREATE(create_add, OP_ADD)
DEFINE_CREATE(create_mul, OP_MUL)
DEFINE_CREATE(create_relu, OP_RELU)
DEFINE_CREATE(create_bias_add, OP_BIAS_ADD)
DEFINE_CREATE(create_matmul, OP_MATMUL)
DEFINE_CREATE(create_conv2d, OP_CONV2D)
DEFINE_CREATE(create_maxpool, OP_MAXPOOL)
DEFINE_CREATE(create_softmax, OP_SOFTMAX)

static void delete_kernel(void* state) { free(state); }

/* ---- the work run on the stream ---- */

typedef struct Job {
  enum OpKind op;
  const float* a;
  const float* b;
  float* out;
  int64_t count; /* output elements */
  /* broadcasting binary ops */
  int rank;
  int64_t dims[MAX_RANK], stride_a[MAX_RANK], stride_b[MAX_RANK];
  /* MatMul: out[m,n] = sum_k A[m,k] B[k,n]; element strides of A and B over (m,k) / (k,n) */
  int64_t m, n, k, a_sm, a_sk, b_sk, b_sn;
  /* BiasAdd / Softmax: length of the last axis */
  int64_t inner;
  /* Conv2D / MaxPool (NHWC) */
  int64_t batch, in_h, in_w, in_c, out_h, out_w, out_c, win_h, win_w, stride_h, stride_w, pad_top, pad_left;
} Job;

static void run_binary(const Job* j) {
  int64_t idx[MAX_RANK] = {0};
  int64_t oa = 0, ob = 0;
  for (int64_t i = 0; i < j->count; ++i) {
    float x = j->a[oa], y = j->b[ob];
    j->out[i] = j->op == OP_ADD ? x + y : x * y;
    for (int d = j->rank - 1; d >= 0; --d) { /* odometer over the output index */
      oa += j->stride_a[d];
      ob += j->stride_b[d];
      if (++idx[d] < j->dims[d]) break;
      oa -= j->stride_a[d] * j->dims[d];
      ob -= j->stride_b[d] * j->dims[d];
      idx[d] = 0;
    }
  }
}

static void run_matmul(const Job* j) {
  for (int64_t r = 0; r < j->m; ++r) {
    float* row = j->out + r * j->n;
    for (int64_t c = 0; c < j->n; ++c) row[c] = 0.0f;
    for (int64_t q = 0; q < j->k; ++q) {
      float x = j->a[r * j->a_sm + q * j->a_sk];
      const float* brow = j->b + q * j->b_sk;
      for (int64_t c = 0; c < j->n; ++c) row[c] += x * brow[c * j->b_sn];
    }
  }
}

static void run_conv2d(const Job* j) {
  for (int64_t b = 0; b < j->batch; ++b)
    for (int64_t oy = 0; oy < j->out_h; ++oy)
      for (int64_t ox = 0; ox < j->out_w; ++ox) {
        float* o = j->out + ((b * j->out_h + oy) * j->out_w + ox) * j->out_c;
        for (int64_t oc = 0; oc < j->out_c; ++oc) o[oc] = 0.0f;
        for (int64_t fy = 0; fy < j->win_h; ++fy) {
          int64_t iy = oy * j->stride_h - j->pad_top + fy;
          if (iy < 0 || iy >= j->in_h) continue;
          for (int64_t fx = 0; fx < j->win_w; ++fx) {
            int64_t ix = ox * j->stride_w - j->pad_left + fx;
            if (ix < 0 || ix >= j->in_w) continue;
            const float* in = j->a + ((b * j->in_h + iy) * j->in_w + ix) * j->in_c;
            const float* f = j->b + (fy * j->win_w + fx) * j->in_c * j->out_c;
            for (int64_t ic = 0; ic < j->in_c; ++ic)
              for (int64_t oc = 0; oc < j->out_c; ++oc) o[oc] += in[ic] * f[ic * j->out_c + oc];
          }
        }
      }
}

static void run_maxpool(const Job* j) {
  for (int64_t b = 0; b < j->batch; ++b)
    for (int64_t oy = 0; oy < j->out_h; ++oy)
      for (int64_t ox = 0; ox < j->out_w; ++ox) {
        float* o = j->out + ((b * j->out_h + oy) * j->out_w + ox) * j->in_c;
        for (int64_t c = 0; c < j->in_c; ++c) o[c] = -FLT_MAX;
        for (int64_t fy = 0; fy < j->win_h; ++fy) {
          int64_t iy = oy * j->stride_h - j->pad_top + fy;
          if (iy < 0 || iy >= j->in_h) continue; /* SAME padding: padded cells never win */
          for (int64_t fx = 0; fx < j->win_w; ++fx) {
            int64_t ix = ox * j->stride_w - j->pad_left + fx;
            if (ix < 0 || ix >= j->in_w) continue;
            const float* in = j->a + ((b * j->in_h + iy) * j->in_w + ix) * j->in_c;
            for (int64_t c = 0; c < j->in_c; ++c)
              if (in[c] > o[c] || isnan(in[c])) o[c] = in[c];
          }
        }
      }
}

static void run_softmax(const Job* j) {
  for (int64_t row = 0; row < j->count / j->inner; ++row) {
    const float* x = j->a + row * j->inner;
    float* y = j->out + row * j->inner;
    float mx = -INFINITY;
    for (int64_t i = 0; i < j->inner; ++i) mx = x[i] > mx ? x[i] : mx;
    double sum = 0.0;
    for (int64_t i = 0; i < j->inner; ++i) {
      y[i] = expf(x[i] - mx);
      sum += y[i];
    }
    for (int64_t i = 0; i < j->inner; ++i) y[i] = (float)(y[i] / sum);
  }
}

static void run_job(void* arg, TF_Status* status) {
  const Job* j = arg;
  (void)status;
  switch (j->op) {
    case OP_ADD:
    case OP_MUL:
      run_binary(j);
      break;
    case OP_RELU:
      for (int64_t i = 0; i < j->count; ++i) j->out[i] = j->a[i] > 0.0f ? j->a[i] : (isnan(j->a[i]) ? j->a[i] : 0.0f);
      break;
    case OP_BIAS_ADD:
      for (int64_t i = 0; i < j->count; ++i) j->out[i] = j->a[i] + j->b[i % j->inner];
      break;
    case OP_MATMUL:
      run_matmul(j);
      break;
    case OP_CONV2D:
      run_conv2d(j);
      break;
    case OP_MAXPOOL:
      run_maxpool(j);
      break;
    case OP_SOFTMAX:
      run_softmax(j);
      break;
  }
}

/* ---- compute: checks, allocation, enqueue ---- */

static void shape_string(const TF_Tensor* t, char* out, size_t cap) {
  size_t used = (size_t)snprintf(out, cap, "[");
  for (int d = 0; d < TF_NumDims(t) && used < cap; ++d)
    used += (size_t)snprintf(out + used, cap - used, d ? ",%lld" : "%lld", (long long)TF_Dim(t, d));
  if (used < cap) snprintf(out + used, cap - used, "]");
}

static void fail(TF_OpKernelContext* ctx, TF_Status* st, TF_Code code, const char* msg) {
  TF_SetStatus(st, code, msg);
  TF_OpKernelContext_Failure(ctx, st);
}

/* Nonzero when the tensor's buffer is device memory of `stream`'s device (or empty). */
static int on_device(TF_OpKernelContext* ctx, DemoStream* stream, const TF_Tensor* t, const char* what,
                     TF_Status* st) {
  size_t bytes = TF_TensorByteSize(t);
  if (bytes == 0 || demo_arena_contains(&stream->device->arena, TF_TensorData(t), bytes)) return 1;
  char msg[256];
  snprintf(msg, sizeof(msg),
           "demo_device: %s of the kernel is not device memory of " DEMO_DEVICE_TYPE_NAME
           ":%d (a host pointer or memory of another device was passed as a device pointer)",
           what, stream->device->ordinal);
  fail(ctx, st, TF_INVALID_ARGUMENT, msg);
  return 0;
}

static int dims_of(const TF_Tensor* t, int64_t* dims) {
  int nd = TF_NumDims(t);
  for (int d = 0; d < nd; ++d) dims[d] = TF_Dim(t, d);
  return nd;
}

/* Fills the job's broadcast description and the output shape; 0 on incompatible shapes. */
static int broadcast(const TF_Tensor* a, const TF_Tensor* b, Job* j, int64_t* out_dims, int* out_rank) {
  int ra = TF_NumDims(a), rb = TF_NumDims(b);
  int rank = ra > rb ? ra : rb;
  if (rank > MAX_RANK) return 0;
  int64_t sa = 1, sb = 1;
  for (int d = rank - 1; d >= 0; --d) {
    int da = d - (rank - ra), db = d - (rank - rb);
    int64_t na = da >= 0 ? TF_Dim(a, da) : 1, nb = db >= 0 ? TF_Dim(b, db) : 1;
    if (na != nb && na != 1 && nb != 1) return 0;
    int64_t n = na == 1 ? nb : na;
    out_dims[d] = n;
    j->dims[d] = n;
    j->stride_a[d] = na == 1 ? 0 : sa;
    j->stride_b[d] = nb == 1 ? 0 : sb;
    sa *= na;
    sb *= nb;
  }
  *out_rank = rank;
  j->rank = rank;
  int same = ra == rb;
  for (int d = 0; same && d < rank; ++d) same = j->stride_a[d] == j->stride_b[d] && j->stride_a[d] != 0;
  if (same && rank > 1) { /* same shapes: one flat loop */
    j->rank = 1;
    j->dims[0] = sa;
    j->stride_a[0] = j->stride_b[0] = 1;
  }
  return 1;
}

static int64_t window_out(int64_t in, int64_t win, int64_t stride, int same, int64_t* pad_before) {
  if (same) {
    int64_t out = (in + stride - 1) / stride;
    int64_t total = (out - 1) * stride + win - in;
    *pad_before = total > 0 ? total / 2 : 0;
    return out;
  }
  *pad_before = 0;
  return in >= win ? (in - win) / stride + 1 : 0;
}

static void compute(void* state, TF_OpKernelContext* ctx) {
  const KernelState* k = state;
  const char* name = kOpNames[k->op];
  TF_Status* st = TF_NewStatus();
  TF_Tensor* in[2] = {NULL, NULL};
  TF_Tensor* out = NULL;
  Job* j = NULL;
  char msg[384];
  SP_Stream stream = TF_GetStream(ctx, st);
  if (TF_GetCode(st) != TF_OK || !demo_stream_valid(stream)) {
    snprintf(msg, sizeof(msg), "demo_device: the %s kernel needs a stream of the " DEMO_DEVICE_TYPE_NAME " device%s%s",
             name, TF_GetCode(st) != TF_OK ? ": " : "", TF_GetCode(st) != TF_OK ? TF_Message(st) : "");
    fail(ctx, st, TF_INTERNAL, msg);
    goto done;
  }
  int n_in = k->op == OP_RELU || k->op == OP_SOFTMAX || k->op == OP_MAXPOOL ? 1 : 2;
  for (int i = 0; i < n_in; ++i) {
    TF_GetInput(ctx, i, &in[i], st);
    if (TF_GetCode(st) != TF_OK) {
      TF_OpKernelContext_Failure(ctx, st);
      goto done;
    }
    if (TF_TensorType(in[i]) != TF_FLOAT) {
      snprintf(msg, sizeof(msg), "demo_device: %s on " DEMO_DEVICE_TYPE_NAME " supports only float32 inputs", name);
      fail(ctx, st, TF_UNIMPLEMENTED, msg);
      goto done;
    }
    if (!on_device(ctx, stream, in[i], i == 0 ? "input 0" : "input 1", st)) goto done;
  }
  j = calloc(1, sizeof(*j));
  if (j == NULL) {
    fail(ctx, st, TF_RESOURCE_EXHAUSTED, "demo_device: out of host memory launching a kernel");
    goto done;
  }
  j->op = k->op;
  int64_t od[MAX_RANK];
  int orank = 0;
  char sa[96], sb[96];
  switch (k->op) {
    case OP_ADD:
    case OP_MUL:
      if (!broadcast(in[0], in[1], j, od, &orank)) {
        shape_string(in[0], sa, sizeof(sa));
        shape_string(in[1], sb, sizeof(sb));
        snprintf(msg, sizeof(msg), "Incompatible shapes: %s vs. %s", sa, sb);
        fail(ctx, st, TF_INVALID_ARGUMENT, msg);
        goto done;
      }
      break;
    case OP_RELU:
    case OP_SOFTMAX:
      orank = dims_of(in[0], od);
      if (k->op == OP_SOFTMAX) {
        if (orank < 1) {
          fail(ctx, st, TF_INVALID_ARGUMENT, "logits must have >= 1 dimension, got []");
          goto done;
        }
        j->inner = od[orank - 1];
      }
      break;
    case OP_BIAS_ADD:
      orank = dims_of(in[0], od);
      if (orank < 2) {
        shape_string(in[0], sa, sizeof(sa));
        snprintf(msg, sizeof(msg), "Input tensor must be at least 2D: %s", sa);
        fail(ctx, st, TF_INVALID_ARGUMENT, msg);
        goto done;
      }
      if (TF_NumDims(in[1]) != 1 || TF_Dim(in[1], 0) != od[orank - 1]) {
        shape_string(in[1], sb, sizeof(sb));
        snprintf(msg, sizeof(msg), "Must provide as many biases as the last dimension of the input tensor: %s vs. %lld",
                 sb, (long long)od[orank - 1]);
        fail(ctx, st, TF_INVALID_ARGUMENT, msg);
        goto done;
      }
      j->inner = od[orank - 1];
      break;
    case OP_MATMUL: {
      if (TF_NumDims(in[0]) != 2 || TF_NumDims(in[1]) != 2) {
        fail(ctx, st, TF_INVALID_ARGUMENT, "In[0] and In[1] of MatMul must be matrices (2-D)");
        goto done;
      }
      int64_t a0 = TF_Dim(in[0], 0), a1 = TF_Dim(in[0], 1), b0 = TF_Dim(in[1], 0), b1 = TF_Dim(in[1], 1);
      int64_t ka = k->transpose_a ? a0 : a1, kb = k->transpose_b ? b1 : b0;
      if (ka != kb) {
        shape_string(in[0], sa, sizeof(sa));
        shape_string(in[1], sb, sizeof(sb));
        snprintf(msg, sizeof(msg), "Matrix size-incompatible: In[0]: %s, In[1]: %s", sa, sb);
        fail(ctx, st, TF_INVALID_ARGUMENT, msg);
        goto done;
      }
      j->m = k->transpose_a ? a1 : a0;
      j->k = ka;
      j->n = k->transpose_b ? b0 : b1;
      j->a_sm = k->transpose_a ? 1 : a1;
      j->a_sk = k->transpose_a ? a1 : 1;
      j->b_sk = k->transpose_b ? 1 : b1;
      j->b_sn = k->transpose_b ? b1 : 1;
      orank = 2;
      od[0] = j->m;
      od[1] = j->n;
      break;
    }
    case OP_CONV2D:
    case OP_MAXPOOL: {
      if (TF_NumDims(in[0]) != 4) {
        shape_string(in[0], sa, sizeof(sa));
        snprintf(msg, sizeof(msg), "input must be 4-dimensional%s", sa);
        fail(ctx, st, TF_INVALID_ARGUMENT, msg);
        goto done;
      }
      j->batch = TF_Dim(in[0], 0);
      j->in_h = TF_Dim(in[0], 1);
      j->in_w = TF_Dim(in[0], 2);
      j->in_c = TF_Dim(in[0], 3);
      if (k->op == OP_CONV2D) {
        if (TF_NumDims(in[1]) != 4) {
          shape_string(in[1], sb, sizeof(sb));
          snprintf(msg, sizeof(msg), "filter must be 4-dimensional: %s", sb);
          fail(ctx, st, TF_INVALID_ARGUMENT, msg);
          goto done;
        }
        j->win_h = TF_Dim(in[1], 0);
        j->win_w = TF_Dim(in[1], 1);
        j->out_c = TF_Dim(in[1], 3);
        if (TF_Dim(in[1], 2) != j->in_c) {
          snprintf(msg, sizeof(msg), "input depth must be evenly divisible by filter depth: %lld vs %lld",
                   (long long)j->in_c, (long long)TF_Dim(in[1], 2));
          fail(ctx, st, TF_INVALID_ARGUMENT, msg);
          goto done;
        }
      } else {
        j->win_h = k->ksize[1];
        j->win_w = k->ksize[2];
        j->out_c = j->in_c;
      }
      j->stride_h = k->strides[1];
      j->stride_w = k->strides[2];
      j->out_h = window_out(j->in_h, j->win_h, j->stride_h, k->same_padding, &j->pad_top);
      j->out_w = window_out(j->in_w, j->win_w, j->stride_w, k->same_padding, &j->pad_left);
      orank = 4;
      od[0] = j->batch;
      od[1] = j->out_h;
      od[2] = j->out_w;
      od[3] = j->out_c;
      break;
    }
  }
  int64_t count = 1;
  for (int d = 0; d < orank; ++d) count *= od[d];
  j->count = count;
  out = TF_AllocateOutput(ctx, 0, TF_FLOAT, od, orank, (size_t)count * sizeof(float), st);
  if (TF_GetCode(st) != TF_OK) {
    TF_OpKernelContext_Failure(ctx, st);
    goto done;
  }
  if (count == 0) goto done; /* nothing to compute */
  if (!on_device(ctx, stream, out, "output 0", st)) goto done;
  j->a = TF_TensorData(in[0]);
  j->b = in[1] != NULL ? TF_TensorData(in[1]) : NULL;
  j->out = TF_TensorData(out);
  if (demo_stream_enqueue(stream, run_job, free, j, st)) {
    j = NULL; /* the stream owns it now */
  } else {
    j = NULL; /* freed by enqueue */
    TF_OpKernelContext_Failure(ctx, st);
  }
done:
  free(j);
  for (int i = 0; i < 2; ++i)
    if (in[i] != NULL) TF_DeleteTensor(in[i]);
  if (out != NULL) TF_DeleteTensor(out);
  TF_DeleteStatus(st);
}

static void register_kernel(const char* op, void* (*create)(TF_OpKernelConstruction*), TF_Status* st) {
  TF_KernelBuilder* b = TF_NewKernelBuilder(op, DEMO_DEVICE_TYPE_NAME, create, compute, delete_kernel);
  TF_KernelBuilder_TypeConstraint(b, "T", TF_FLOAT, st);
  if (TF_GetCode(st) != TF_OK) {
    TF_DeleteKernelBuilder(b);
    goto report;
  }
  char kernel_name[64];
  snprintf(kernel_name, sizeof(kernel_name), "DemoDevice%s", op);
  TF_RegisterKernelBuilder(kernel_name, b, st);
report:
  if (TF_GetCode(st) != TF_OK)
    fprintf(stderr, "demo_device: registering the %s kernel for " DEMO_DEVICE_TYPE_NAME " failed: %s\n", op,
            TF_Message(st));
}

DEMO_EXPORT void TF_InitKernel(void) {
  TF_Status* st = TF_NewStatus();
  register_kernel("AddV2", create_add, st);
  register_kernel("Mul", create_mul, st);
  register_kernel("Relu", create_relu, st);
  register_kernel("BiasAdd", create_bias_add, st);
  register_kernel("MatMul", create_matmul, st);
  register_kernel("Conv2D", create_conv2d, st);
  register_kernel("MaxPool", create_maxpool, st);
  register_kernel("Softmax", create_softmax, st);
  TF_SetStatus(st, TF_OK, "");
  demo_register_variable_kernels(st); /* variable_kernels.c */
#ifdef DEMO_WITH_FUSED_OPTIMIZER
  TF_SetStatus(st, TF_OK, "");
  demo_register_fused_kernel(st); /* fused_kernel.c */
#endif
  TF_DeleteStatus(st);
}
