/* RandomUniform, RandomStandardNormal and TruncatedNormal (float32, float64): TensorFlow's stateful Philox4x32-10
 * streams, bit for bit.
 *
 * The stream of a kernel is keyed by its (seed, seed2) attrs: key = the two 32-bit halves of seed, counter words
 * 2-3 = the halves of seed2, words 0-1 count 128-bit blocks. Like TF's kernel object, each call reserves
 * 256 blocks per output element: call k starts at block k * 256 * n of the previous calls' sizes. A block gives
 * 4 uniform floats (the low 23 bits of each word as a mantissa in [1, 2), minus 1), 2 uniform doubles (20 bits of
 * the first word and all of the second), and through Box-Muller 4 float or 2 double normals: u1 = max(uniform,
 * 1e-7), v1 = 2 pi u2 (the product in double, as TF's C++ computes it), r = sqrt(-2 log u1), (sin v1 r,
 * cos v1 r) with the C library's sincos, as TF's Linux build. TruncatedNormal fills groups of 4 outputs (2 for
 * double); group g starts reading at block g * 256 (128 for double) of the call's first block and keeps, in order,
 * the Box-Muller normals of magnitude below 2 until the group is full (TF's variable-samples-per-output tasks).
 * Seeds 0 and 0 draw fresh seeds once per kernel.
 * Other dtypes (half, bfloat16) stay with the numpy kernels (kernels/cpu/random.py). */
#define _GNU_SOURCE
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "mtk.h"

typedef struct {
  uint64_t seed, seed2;
  uint64_t next_block; /* the block this kernel's next call starts at */
  pthread_mutex_t lock;
  int kind; /* KIND_UNIFORM, KIND_NORMAL, KIND_TRUNCATED */
  TF_DataType dtype;
} RandomKernel;

enum { KIND_UNIFORM, KIND_NORMAL, KIND_TRUNCATED };

static void philox(uint64_t seed, uint64_t seed2, uint64_t counter, uint32_t out[4]) {
  uint32_t k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32);
  uint32_t c0 = (uint32_t)counter, c1 = (uint32_t)(counter >> 32), c2 = (uint32_t)seed2,
           c3 = (uint32_t)(seed2 >> 32);
  for (int round = 0; round < 10; ++round) {
    uint64_t p0 = (uint64_t)0xD2511F53u * c0, p1 = (uint64_t)0xCD9E8D57u * c2;
    uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0, n2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1;
    c1 = (uint32_t)p1;
    c3 = (uint32_t)p0;
    c0 = n0;
    c2 = n2;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  out[0] = c0;
  out[1] = c1;
  out[2] = c2;
  out[3] = c3;
}

static float uniform_float(uint32_t x) {
  uint32_t bits = (x & 0x7FFFFFu) | 0x3F800000u;
  float f;
  memcpy(&f, &bits, sizeof f);
  return f - 1.0f;
}

static double uniform_double(uint32_t hi, uint32_t lo) {
  uint64_t bits = ((uint64_t)(hi & 0xFFFFFu) << 32) | lo | 0x3FF0000000000000ull;
  double d;
  memcpy(&d, &bits, sizeof d);
  return d - 1.0;
}

/* The values of one block: 4 floats or 2 doubles. */
static void block_float(const uint32_t w[4], int normal, float v[4]) {
  if (!normal) {
    for (int i = 0; i < 4; ++i) v[i] = uniform_float(w[i]);
    return;
  }
  for (int h = 0; h < 2; ++h) {
    float u1 = uniform_float(w[2 * h]);
    if (u1 < 1.0e-7f) u1 = 1.0e-7f;
    const float v1 = (float)(2.0 * M_PI * (double)uniform_float(w[2 * h + 1]));
    const float r = sqrtf(-2.0f * logf(u1));
    float s, c;
    sincosf(v1, &s, &c);
    v[2 * h] = s * r;
    v[2 * h + 1] = c * r;
  }
}

static void block_double(const uint32_t w[4], int normal, double v[2]) {
  if (!normal) {
    v[0] = uniform_double(w[0], w[1]);
    v[1] = uniform_double(w[2], w[3]);
    return;
  }
  double u1 = uniform_double(w[0], w[1]);
  if (u1 < 1.0e-7) u1 = 1.0e-7;
  const double v1 = 2.0 * M_PI * uniform_double(w[2], w[3]);
  const double r = sqrt(-2.0 * log(u1));
  double s, c;
  sincos(v1, &s, &c);
  v[0] = s * r;
  v[1] = c * r;
}

typedef struct {
  const RandomKernel* k;
  uint64_t first;
  int64_t n;
  void* out;
} FillJob;

/* Output group b of TruncatedNormal: its values from its own run of blocks, rejecting |x| >= 2. */
static void truncated_group(const FillJob* j, int64_t b, int per) {
  int64_t at = b * per, take = j->n - at < per ? j->n - at : per;
  uint64_t counter = j->first + (uint64_t)b * (uint64_t)(per * 256 / 4);
  double kept[4];
  int have = 0;
  uint32_t w[4];
  while (have < per) {
    philox(j->k->seed, j->k->seed2, counter++, w);
    double v[4];
    int count = per == 4 ? 4 : 2;
    if (per == 4) {
      float f[4];
      block_float(w, 1, f);
      for (int i = 0; i < 4; ++i) v[i] = f[i];
    } else {
      block_double(w, 1, v);
    }
    for (int i = 0; i < count && have < per; ++i) {
      if (fabs(v[i]) < 2.0) kept[have++] = v[i];
    }
  }
  for (int64_t i = 0; i < take; ++i) {
    if (per == 4) ((float*)j->out)[at + i] = (float)kept[i];
    else ((double*)j->out)[at + i] = kept[i];
  }
}

static void fill_blocks(void* p, int64_t begin, int64_t end) {
  const FillJob* j = (const FillJob*)p;
  const int per = j->k->dtype == TF_FLOAT ? 4 : 2;
  uint32_t w[4];
  for (int64_t b = begin; b < end; ++b) {
    if (j->k->kind == KIND_TRUNCATED) {
      truncated_group(j, b, per);
      continue;
    }
    philox(j->k->seed, j->k->seed2, j->first + (uint64_t)b, w);
    int64_t at = b * per, take = j->n - at < per ? j->n - at : per;
    if (per == 4) {
      float v[4];
      block_float(w, j->k->kind == KIND_NORMAL, v);
      memcpy((float*)j->out + at, v, (size_t)take * sizeof(float));
    } else {
      double v[2];
      block_double(w, j->k->kind == KIND_NORMAL, v);
      memcpy((double*)j->out + at, v, (size_t)take * sizeof(double));
    }
  }
}

static void* random_create_kind(TF_OpKernelConstruction* ctx, int kind) {
  RandomKernel* k = (RandomKernel*)calloc(1, sizeof *k);
  if (k == NULL) {
    mtk_fail_construction(ctx, TF_RESOURCE_EXHAUSTED, "out of memory creating a random kernel");
    return NULL;
  }
  TF_Status* s = TF_NewStatus();
  int64_t seed = 0, seed2 = 0;
  TF_OpKernelConstruction_GetAttrInt64(ctx, "seed", &seed, s);
  if (TF_GetCode(s) == TF_OK) TF_OpKernelConstruction_GetAttrInt64(ctx, "seed2", &seed2, s);
  if (TF_GetCode(s) == TF_OK) TF_OpKernelConstruction_GetAttrType(ctx, "dtype", &k->dtype, s);
  if (TF_GetCode(s) != TF_OK) {
    TF_OpKernelConstruction_Failure(ctx, s);
    TF_DeleteStatus(s);
    free(k);
    return NULL;
  }
  TF_DeleteStatus(s);
  if (seed == 0 && seed2 == 0) { /* fresh seeds once per kernel, as TF's kernel (the numpy kernel draws the same way) */
    uint64_t bits[2] = {0, 0};
    if (getrandom(bits, sizeof bits, 0) != (ssize_t)sizeof bits) {
      bits[0] = (uint64_t)(uintptr_t)k ^ 0x9E3779B97F4A7C15ull;
      bits[1] = (uint64_t)time(NULL);
    }
    seed = (int64_t)(bits[0] & 0x7FFFFFFFFFFFFFFFull);
    if (seed == 0) seed = 1;
    seed2 = (int64_t)(bits[1] & 0x7FFFFFFFFFFFFFFFull);
  }
  k->seed = (uint64_t)seed;
  k->seed2 = (uint64_t)seed2;
  k->kind = kind;
  pthread_mutex_init(&k->lock, NULL);
  return k;
}

static void* uniform_create(TF_OpKernelConstruction* ctx) { return random_create_kind(ctx, KIND_UNIFORM); }
static void* normal_create(TF_OpKernelConstruction* ctx) { return random_create_kind(ctx, KIND_NORMAL); }
static void* truncated_create(TF_OpKernelConstruction* ctx) { return random_create_kind(ctx, KIND_TRUNCATED); }

static void random_destroy(void* p) {
  RandomKernel* k = (RandomKernel*)p;
  if (k == NULL) return;
  pthread_mutex_destroy(&k->lock);
  free(k);
}

static void random_compute(void* state, TF_OpKernelContext* ctx) {
  RandomKernel* k = (RandomKernel*)state;
  TF_Status* s = TF_NewStatus();
  TF_Tensor *shape = NULL, *y = NULL;
  TF_GetInput(ctx, 0, &shape, s);
  if (TF_GetCode(s) != TF_OK) {
    TF_OpKernelContext_Failure(ctx, s);
    goto done;
  }
  if (TF_NumDims(shape) != 1) {
    char text[128];
    mtk_shape_str(shape, text, sizeof text);
    mtk_fail(ctx, TF_INVALID_ARGUMENT, "shape must be a vector of {int32,int64}, got shape %s", text);
    goto done;
  }
  int64_t rank = TF_Dim(shape, 0), dims[64], n = 1;
  if (rank > 64) {
    mtk_fail(ctx, TF_INVALID_ARGUMENT, "shape of rank %lld is more than the native random kernel's 64",
             (long long)rank);
    goto done;
  }
  for (int64_t d = 0; d < rank; ++d) {
    dims[d] = mtk_int_at(TF_TensorData(shape), TF_TensorType(shape), d);
    if (dims[d] < 0) {
      mtk_fail(ctx, TF_INVALID_ARGUMENT, "Dimension %lld must be >= 0", (long long)dims[d]);
      goto done;
    }
    n *= dims[d];
  }
  const size_t size = k->dtype == TF_FLOAT ? sizeof(float) : sizeof(double);
  y = TF_AllocateOutput(ctx, 0, k->dtype, dims, (int)rank, (size_t)n * size, s);
  if (TF_GetCode(s) != TF_OK) {
    TF_OpKernelContext_Failure(ctx, s);
    goto done;
  }
  pthread_mutex_lock(&k->lock);
  const uint64_t first = k->next_block;
  k->next_block += 256 * (uint64_t)n;
  pthread_mutex_unlock(&k->lock);
  if (n == 0) goto done;
  FillJob job = {k, first, n, TF_TensorData(y)};
  const int per = k->dtype == TF_FLOAT ? 4 : 2;
  mtk_parallel_for((n + per - 1) / per, k->kind == KIND_UNIFORM ? 8192 : 2048, fill_blocks, &job);
done:
  TF_DeleteTensor(shape);
  TF_DeleteTensor(y);
  TF_DeleteStatus(s);
}

static void register_one(const char* name, const char* op, void* (*create)(TF_OpKernelConstruction*),
                         TF_DataType dtype, TF_Status* s) {
  TF_KernelBuilder* b = TF_NewKernelBuilder(op, "CPU", create, random_compute, random_destroy);
  TF_KernelBuilder_TypeConstraint(b, "dtype", dtype, s);
  if (TF_GetCode(s) != TF_OK) {
    TF_DeleteKernelBuilder(b);
    return;
  }
  TF_KernelBuilder_HostMemory(b, "shape");
  TF_KernelBuilder_Priority(b, 0); /* above the numpy kernels (-1), as mtk_register does */
  TF_RegisterKernelBuilder(name, b, s);
}

void mtk_register_random(TF_Status* s) {
  register_one("MtkRandomUniform", "RandomUniform", uniform_create, TF_FLOAT, s);
  if (TF_GetCode(s) == TF_OK) register_one("MtkRandomUniformF64", "RandomUniform", uniform_create, TF_DOUBLE, s);
  if (TF_GetCode(s) == TF_OK) register_one("MtkRandomStandardNormal", "RandomStandardNormal", normal_create, TF_FLOAT, s);
  if (TF_GetCode(s) == TF_OK) {
    register_one("MtkRandomStandardNormalF64", "RandomStandardNormal", normal_create, TF_DOUBLE, s);
  }
  if (TF_GetCode(s) == TF_OK) register_one("MtkTruncatedNormal", "TruncatedNormal", truncated_create, TF_FLOAT, s);
  if (TF_GetCode(s) == TF_OK) register_one("MtkTruncatedNormalF64", "TruncatedNormal", truncated_create, TF_DOUBLE, s);
}
