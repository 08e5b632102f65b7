/* Single-precision GEMM for the native CPU kernels, BLIS-style: B packed once per
 * product into NR-wide panels per KC-deep block (shared read-only by every task),
 * A packed per task into MR-high panels, a register-blocked micro-kernel per MR x NR
 * block of C (gemm_kernels.c: AVX-512, AVX2+FMA or portable, chosen for the CPU).
 *
 * The BLAS numpy loaded (OpenBLAS in numpy's wheels) is not used for float32: its
 * run-time CPU detection may pick older kernels than the machine has (AVX2 kernels
 * on AVX-512 Zen 5, half the peak). It is set to one thread when found, so the
 * numpy fallback kernels never add threads beside this library's pool: one knob,
 * the intra-op setting, bounds the threads of every kernel. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtk.h"

static int g_force_generic;
static char g_blas_name[256] = "";
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

typedef void (*set_threads64_fn)(int64_t);
typedef void (*set_threads32_fn)(int);

static int find_blas(struct dl_phdr_info* info, size_t size, void* data) {
  (void)size;
  void** found = (void**)data;
  const char* name = info->dlpi_name;
  if (name == NULL || name[0] == '\0' || *found != NULL) return 0;
  const char* base = strrchr(name, '/');
  base = base ? base + 1 : name;
  if (strstr(base, "openblas") == NULL) return 0;
  void* h = dlopen(name, RTLD_NOW | RTLD_NOLOAD | RTLD_LOCAL);
  if (h == NULL) return 0;
  *found = h;
  snprintf(g_blas_name, sizeof g_blas_name, "%.200s", base);
  return 0;
}

/* numpy's OpenBLAS to one thread (see above). */
static void init_blas(void) {
  void* h = NULL;
  dl_iterate_phdr(find_blas, &h);
  if (h == NULL) return;
  static const char* t64[] = {"scipy_openblas_set_num_threads64_", "openblas_set_num_threads64_",
                              "openblas_set_num_threads_64"};
  static const char* t32[] = {"scipy_openblas_set_num_threads", "openblas_set_num_threads"};
  for (size_t j = 0; j < sizeof t64 / sizeof *t64; ++j) {
    set_threads64_fn set = (set_threads64_fn)dlsym(h, t64[j]);
    if (set != NULL) {
      set(1);
      return;
    }
  }
  for (size_t j = 0; j < sizeof t32 / sizeof *t32; ++j) {
    set_threads32_fn set = (set_threads32_fn)dlsym(h, t32[j]);
    if (set != NULL) {
      set(1);
      return;
    }
  }
}

void mtk_blas_init(void) { pthread_once(&g_once, init_blas); }

static const mtk_gemm_arch* arch(void) {
  if (__atomic_load_n(&g_force_generic, __ATOMIC_ACQUIRE)) return mtk_gemm_arch_generic();
  return mtk_gemm_arch_get();
}

const char* modtensor_cpu_kernels_gemm(void) { return arch()->name; }

int mtk_generic_forced(void) { return __atomic_load_n(&g_force_generic, __ATOMIC_ACQUIRE); }

void modtensor_cpu_kernels_force_generic_gemm(int on) { __atomic_store_n(&g_force_generic, on, __ATOMIC_RELEASE); }

/* ---------------------------------------------------------------- packing */

int mtk_pack_b(mtk_packed_b* pb, int trans_b, int64_t k, int64_t n, const float* b, int64_t ldb) {
  return mtk_pack_b_depth(pb, trans_b, k, n, b, ldb, 0);
}

int mtk_pack_b_depth(mtk_packed_b* pb, int trans_b, int64_t k, int64_t n, const float* b, int64_t ldb, int64_t depth) {
  const mtk_gemm_arch* ar = arch();
  const int nr = ar->nr;
  /* a depth up to 1.5 kc stays one block: a 728-deep product in blocks of 512 + 216 ran ~10 % slower */
  const int64_t block = depth > 0 ? depth : k <= ar->kc * 3 / 2 ? k : ar->kc;
  pb->kc = block;
  pb->k = k;
  pb->n = n;
  pb->n_panels = (n + nr - 1) / nr;
  pb->arch = ar;
  pb->data = (float*)mtk_aligned_alloc((size_t)(pb->n_panels * nr * (k > 0 ? k : 1)) * sizeof(float));
  if (pb->data == NULL) return -1;
  /* Layout: for each KC block (offset p0), for each panel j: kc x NR floats. */
  float* out = pb->data;
  for (int64_t p0 = 0; p0 < k; p0 += block) {
    int64_t kc = k - p0 < block ? k - p0 : block;
    for (int64_t j = 0; j < pb->n_panels; ++j) {
      int64_t c0 = j * nr, cols = n - c0 < nr ? n - c0 : nr;
      for (int64_t p = 0; p < kc; ++p) {
        if (!trans_b) {
          const float* src = b + (p0 + p) * ldb + c0;
          memcpy(out, src, (size_t)cols * sizeof(float));
        } else {
          for (int64_t q = 0; q < cols; ++q) out[q] = b[(c0 + q) * ldb + p0 + p];
        }
        for (int64_t q = cols; q < nr; ++q) out[q] = 0.0f;
        out += nr;
      }
    }
  }
  return 0;
}

void mtk_packed_b_free(mtk_packed_b* pb) {
  free(pb->data);
  pb->data = NULL;
}

/* rows [i0, i0+mc) x depth [p0, p0+kc) of A into MR-high panels (zero-padded). */
static void pack_a(const mtk_gemm_arch* ar, int trans_a, const float* a, int64_t lda, int64_t i0, int64_t mc,
                   int64_t p0, int64_t kc, float* out) {
  const int mr = ar->mr;
  for (int64_t i = 0; i < mc; i += mr) {
    int64_t rows = mc - i < mr ? mc - i : mr;
    if (!trans_a) {
      const float* src[32];
      for (int64_t r = 0; r < rows; ++r) src[r] = a + (i0 + i + r) * lda + p0;
      for (int64_t p = 0; p < kc; ++p) {
        for (int64_t r = 0; r < rows; ++r) out[r] = src[r][p];
        for (int64_t r = rows; r < mr; ++r) out[r] = 0.0f;
        out += mr;
      }
    } else {
      for (int64_t p = 0; p < kc; ++p) {
        const float* src = a + (p0 + p) * lda + i0 + i;
        for (int64_t r = 0; r < rows; ++r) out[r] = src[r];
        for (int64_t r = rows; r < mr; ++r) out[r] = 0.0f;
        out += mr;
      }
    }
  }
}

void mtk_gemm_packed(int trans_a, int64_t m, const float* a, int64_t lda, const mtk_packed_b* pb, int64_t c0,
                     int64_t c1, float* c, int64_t ldc, int accumulate) {
  mtk_gemm_packed_ep(trans_a, m, a, lda, pb, c0, c1, c, ldc, accumulate, NULL, 0);
}

void mtk_gemm_packed_ep(int trans_a, int64_t m, const float* a, int64_t lda, const mtk_packed_b* pb, int64_t c0,
                        int64_t c1, float* c, int64_t ldc, int accumulate, const mtk_epilogue_args* ep, int64_t r0) {
  const mtk_gemm_arch* ar = pb->arch;
  const int mr = ar->mr, nr = ar->nr;
  const int64_t k = pb->k;
  if (m <= 0 || c1 <= c0) return;
  if (k <= 0) {
    if (!accumulate)
      for (int64_t i = 0; i < m; ++i) memset(c + i * ldc + c0, 0, (size_t)(c1 - c0) * sizeof(float));
    if (ep != NULL) mtk_epilogue_block(ep, c - r0 * ldc, ldc, r0, r0 + m, c0, c1);
    return;
  }
  int64_t mc_max = ar->mc;
  const int64_t block = pb->kc;
  /* A read in place saves packing it. Rows a multiple of 4 KiB apart (1024 or 2048 channels) share one set of the
   * 8-way L1 and evict each other when 12 are read side by side: those are read 8 rows at a time, which still keeps
   * the FMA units busy, rather than packed (packing copies all of A once per depth block: InceptionV3's [512, 2048] x
   * [2048, 192] 98 -> 114 GF/s, [512, 2048] x [2048, 448] 107 -> 114, [800, 1024] x [1024, 1536] 111 -> 113 on one
   * Zen 4 thread; 12 aliased rows in place: 103-104). Without AVX-512 (6-row tiles, unmeasured) aliased A is packed. */
  const int aliased = (lda * (int64_t)sizeof(float)) % 4096 == 0;
  const int in_place = !trans_a && ar->kernel_rows != NULL && (!aliased || mr > 8);
  const int step = in_place && aliased ? 8 : mr; /* rows per micro-kernel call */
  float* ap = in_place ? NULL : mtk_scratch(1, (size_t)((mc_max + mr) * block));
  if (!in_place && ap == NULL) return;
  int64_t j0 = c0 / nr, j1 = (c1 + nr - 1) / nr;
  for (int64_t p0 = 0; p0 < k; p0 += block) {
    int64_t kc = k - p0 < block ? k - p0 : block;
    const float* bblock = pb->data + p0 * pb->n_panels * nr;
    int acc = accumulate || p0 > 0;
    int last = p0 + kc >= k;
    for (int64_t i0 = 0; i0 < m; i0 += mc_max) {
      int64_t mc = m - i0 < mc_max ? m - i0 : mc_max;
      if (!in_place) pack_a(ar, trans_a, a, lda, i0, mc, p0, kc, ap);
      for (int64_t j = j0; j < j1; ++j) {
        int64_t col = j * nr;
        int n = (int)((c1 - col) < nr ? (c1 - col) : nr);
        const float* bp = bblock + j * kc * nr;
        for (int64_t i = 0; i < mc; i += step) {
          int rows = (int)(mc - i < step ? mc - i : step);
          float* cblock = c + (i0 + i) * ldc + col;
          mtk_post post;
          const mtk_post* pp = last && ep != NULL && mtk_post_of(ep, r0 + i0 + i, col, &post) ? &post : NULL;
          if (in_place) {
            ar->kernel_rows(kc, a + (i0 + i) * lda + p0, lda, bp, cblock, ldc, acc, rows, n, pp);
          } else {
            ar->kernel(kc, ap + i * kc, bp, cblock, ldc, acc, rows, n, pp);
          }
        }
      }
    }
  }
}

void mtk_sgemm(int trans_a, int trans_b, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b,
               int64_t ldb, float* c, int64_t ldc, int accumulate) {
  if (m <= 0 || n <= 0) return;
  mtk_packed_b pb;
  if (mtk_pack_b(&pb, trans_b, k, n, b, ldb) < 0) return;
  mtk_gemm_packed(trans_a, m, a, lda, &pb, 0, n, c, ldc, accumulate);
  mtk_packed_b_free(&pb);
}

/* ---------------------------------------------------------------- parallel products */

/* C[0:m, c0:c1] = A[0:m, :] * B[:, c0:c1] for a handful of rows, straight from the unpacked B (a matrix-vector
 * product streams B once; packing it would read and write it first). */
MTK_HOT static void axpy_row(float* restrict c, const float* restrict b, float a, int64_t n) {
  for (int64_t j = 0; j < n; ++j) c[j] += a * b[j];
}

MTK_HOT static float dot(const float* restrict x, const float* restrict y, int64_t n) {
  float acc[16] = {0};
  int64_t i = 0;
  for (; i + 16 <= n; i += 16)
    for (int l = 0; l < 16; ++l) acc[l] += x[i + l] * y[i + l];
  float s = 0.0f;
  for (int l = 0; l < 16; ++l) s += acc[l];
  for (; i < n; ++i) s += x[i] * y[i];
  return s;
}

void mtk_gemm_grid(int64_t m, int64_t n, int64_t parallel, int64_t mc, int64_t mr, int64_t align, int few_rows,
                   mtk_grid* g) {
  /* Row tiles of one packed A block, more of them when there are only a few per thread; then columns split when the
   * rows alone cannot keep every thread busy. With few_rows, up to 2 * mc rows stay one tile and the columns are
   * split instead: every task then reads only its part of B (the weights of a late layer at batch 1 are the larger
   * operand, read once instead of once per row tile). The number of tiles is a multiple of the threads and the
   * micro-tiles are dealt out evenly: 289 rows (17x17) as 84 + 84 + 84 + 37 kept one of two threads waiting an
   * eighth of the time; as 7 + 6 + 6 + 6 micro-tiles of 12 the two finish together. */
  if (mr < 1) mr = 1;
  if (align < 1) align = 1;
  if (parallel < 1) parallel = 1;
  const int64_t units = (m + mr - 1) / mr, panels = (n + align - 1) / align;
  int64_t tiles;
  if (few_rows && m <= 2 * mc) {
    tiles = 1;
  } else if (m < mc * 2 * parallel) {
    tiles = units / 2 < 2 * parallel ? units / 2 : 2 * parallel; /* at least two micro-tiles each */
  } else {
    tiles = (m + mc - 1) / mc;
    tiles = (tiles + parallel - 1) / parallel * parallel;
  }
  if (tiles > units) tiles = units;
  if (tiles < 1) tiles = 1;
  int64_t blocks = 1;
  if (parallel > 1 && tiles < 2 * parallel) blocks = (2 * parallel + tiles - 1) / tiles;
  if (blocks > panels) blocks = panels;
  if (blocks < 1) blocks = 1;
  g->m = m;
  g->n = n;
  g->mr = mr;
  g->align = align;
  g->units = units;
  g->panels = panels;
  g->tiles = tiles;
  g->col_blocks = blocks;
  g->grain = parallel > 1 ? 1 : tiles * blocks;
}

static void small_m_block(const mtk_gemm_desc* d, int64_t c0, int64_t c1) {
  for (int64_t i = 0; i < d->m; ++i) {
    float* crow = d->c + i * d->ldc;
    const float* arow = d->a + (d->trans_a ? i : i * d->lda);
    const int64_t astep = d->trans_a ? d->lda : 1;
    if (!d->trans_b) {
      memset(crow + c0, 0, (size_t)(c1 - c0) * sizeof(float));
      for (int64_t p = 0; p < d->k; ++p) axpy_row(crow + c0, d->b + p * d->ldb + c0, arow[p * astep], c1 - c0);
    } else if (!d->trans_a) {
      for (int64_t j = c0; j < c1; ++j) crow[j] = dot(arow, d->b + j * d->ldb, d->k);
    } else {
      for (int64_t j = c0; j < c1; ++j) {
        float s = 0.0f;
        for (int64_t p = 0; p < d->k; ++p) s += arow[p * astep] * d->b[j * d->ldb + p];
        crow[j] = s;
      }
    }
  }
}

typedef struct {
  const mtk_gemm_desc* d;
  const mtk_packed_b* pb;
  mtk_grid grid;
  int failed;
} GemmGrid;

static void grid_tasks(void* p, int64_t begin, int64_t end) {
  GemmGrid* g = (GemmGrid*)p;
  const mtk_gemm_desc* d = g->d;
  mtk_post probe; /* the epilogue goes into the micro-kernels' stores when they can apply it */
  const mtk_epilogue_args* fused = d->ep != NULL && mtk_post_of(d->ep, 0, 0, &probe) ? d->ep : NULL;
  for (int64_t t = begin; t < end; ++t) {
    int64_t r0, r1, c0, c1;
    mtk_grid_task(&g->grid, t, &r0, &r1, &c0, &c1);
    if (r1 <= r0 || c1 <= c0) continue;
    if (g->pb == NULL) {
      mtk_gemm_desc sub = *d;
      sub.m = r1 - r0;
      sub.a = d->trans_a ? d->a + r0 : d->a + r0 * d->lda;
      sub.c = d->c + r0 * d->ldc;
      small_m_block(&sub, c0, c1);
    } else if (d->rows != NULL) {
      float* a = mtk_scratch(0, (size_t)((r1 - r0) * d->k));
      if (a == NULL) {
        g->failed = 1;
        return;
      }
      d->rows(d->rows_ctx, r0, r1, a);
      mtk_gemm_packed_ep(0, r1 - r0, a, d->k, g->pb, c0, c1, d->c + r0 * d->ldc, d->ldc, 0, fused, r0);
    } else {
      const float* a = d->trans_a ? d->a + r0 : d->a + r0 * d->lda;
      mtk_gemm_packed_ep(d->trans_a, r1 - r0, a, d->lda, g->pb, c0, c1, d->c + r0 * d->ldc, d->ldc, 0, fused, r0);
    }
    if (d->ep != NULL && (g->pb == NULL || fused == NULL)) mtk_epilogue_block(d->ep, d->c, d->ldc, r0, r1, c0, c1);
  }
}

int mtk_gemm_parallel(const mtk_gemm_desc* d) {
  if (d->m <= 0 || d->n <= 0) return 0;
  const mtk_gemm_arch* ar = arch();
  const int64_t threads = mtk_num_threads();
  double flops = 2.0 * (double)d->m * (double)d->n * (double)d->k;
  GemmGrid g;
  memset(&g, 0, sizeof g);
  g.d = d;
  mtk_packed_b pb;
  int small = d->m <= 4 && d->rows == NULL && d->packed == NULL;
  int own = !small && d->packed == NULL;
  if (own) {
    if (mtk_pack_b(&pb, d->trans_b, d->k, d->n, d->b, d->ldb) < 0) return -1;
    g.pb = &pb;
  } else if (!small) {
    g.pb = d->packed;
    ar = d->packed->arch;
  }
  if (small) {
    mtk_gemm_grid(d->m, d->n, flops < 1e5 ? 1 : threads, d->m, 1, 16, 1, &g.grid);
  } else {
    mtk_gemm_grid(d->m, d->n, flops < 1e5 ? 1 : threads, ar->mc, ar->mr, ar->nr, 0, &g.grid);
  }
  mtk_parallel_for(g.grid.tiles * g.grid.col_blocks, g.grid.grain, grid_tasks, &g);
  if (own) mtk_packed_b_free(&pb);
  return g.failed ? -1 : 0;
}

/* ---------------------------------------------------------------- constant weights */

void mtk_weights_cache_init(mtk_weights_cache* cache) {
  memset(cache, 0, sizeof *cache);
  pthread_mutex_init(&cache->lock, NULL);
}

void mtk_weights_cache_destroy(mtk_weights_cache* cache) {
  mtk_packed_b_free(&cache->packed);
  pthread_mutex_destroy(&cache->lock);
}

const mtk_packed_b* mtk_weights_cache_get(mtk_weights_cache* cache, int trans_b, int64_t k, int64_t n, const float* b,
                                          int64_t ldb, int64_t kc) {
  const mtk_gemm_arch* ar = arch();
  pthread_mutex_lock(&cache->lock);
  if (cache->packed.data == NULL || cache->source != b || cache->packed.k != k || cache->packed.n != n ||
      cache->trans_b != trans_b || cache->ldb != ldb || cache->packed.arch != ar || cache->kc != kc) {
    mtk_packed_b_free(&cache->packed);
    cache->source = NULL;
    if (mtk_pack_b_depth(&cache->packed, trans_b, k, n, b, ldb, kc) == 0) {
      cache->source = b;
      cache->trans_b = trans_b;
      cache->ldb = ldb;
      cache->kc = kc;
    }
  }
  const mtk_packed_b* found = cache->packed.data != NULL ? &cache->packed : NULL;
  pthread_mutex_unlock(&cache->lock);
  return found;
}
