/* Vectorizable float math shared by the kernel files: each function is branch-free enough for the compiler to turn a
 * loop over it into SIMD code (the loops are compiled per ISA through MTK_HOT). */
#ifndef MODTENSOR_CPU_KERNELS_MTK_MATH_H_
#define MODTENSOR_CPU_KERNELS_MTK_MATH_H_

#include <stdint.h>
#include <string.h>

/* exp(x) for float, vectorizable: 2^n * p(r) with r = x - n ln2, |r| <= ln2/2, within 2 ulp. 2^n is applied as two
 * halves so that results near FLT_MAX (n = 128) and subnormal results (n down to -150) come out right; beyond, +inf
 * and 0. */
static inline float fast_exp(float x) {
  float xc = x > 88.7228394f ? 88.7228394f : (x < -104.0f ? -104.0f : x);
  float n = __builtin_rintf(xc * 1.44269504088896341f);
  float r = xc - n * 0.693145751953125f;
  r = r - n * 1.42860682030941723212e-6f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  int32_t ni = (int32_t)n, n1 = ni / 2, n2 = ni - n1;
  int32_t b1 = (n1 + 127) << 23, b2 = (n2 + 127) << 23;
  float s1, s2;
  memcpy(&s1, &b1, sizeof s1);
  memcpy(&s2, &b2, sizeof s2);
  float out = p * s1 * s2;
  out = x > 88.7228394f ? __builtin_inff() : out;
  out = x < -104.0f ? 0.0f : out;
  return x != x ? x : out;
}

/* erf(x) for float, vectorizable: x * P(x^2) / Q(x^2) on [-4, 4] (within 4e-7 of erf; erf is +-1 to float
 * precision beyond). */
static inline float fast_erf(float x) {
  float xc = x > 4.0f ? 4.0f : (x < -4.0f ? -4.0f : x);
  float x2 = xc * xc;
  float p = -2.72614225801306e-10f;
  p = p * x2 + 2.77068142495902e-08f;
  p = p * x2 + -2.10102402082508e-06f;
  p = p * x2 + -5.69250639462346e-05f;
  p = p * x2 + -7.34990630326855e-04f;
  p = p * x2 + -2.95459980854025e-03f;
  p = p * x2 + -1.60960333262415e-02f;
  float q = -1.45660718464996e-05f;
  q = q * x2 + -2.13374055278905e-04f;
  q = q * x2 + -1.68282697438203e-03f;
  q = q * x2 + -7.37332916720468e-03f;
  q = q * x2 + -1.42647390514189e-02f;
  return x != x ? x : xc * p / q;
}

/* tanh(x) for float, vectorizable: x * P(x^2) / Q(x^2) on [-7.9053, 7.9053] (Eigen's float tanh, which TF's CPU
 * kernels use; +-1 to float precision beyond); tiny |x| returns x. */
static inline float fast_tanh(float x) {
  float xc = x > 7.90531110763549805f ? 7.90531110763549805f : (x < -7.90531110763549805f ? -7.90531110763549805f : x);
  float x2 = xc * xc;
  float p = -2.76076847742355e-16f;
  p = p * x2 + 2.00018790482477e-13f;
  p = p * x2 + -8.60467152213735e-11f;
  p = p * x2 + 5.12229709037114e-08f;
  p = p * x2 + 1.48572235717979e-05f;
  p = p * x2 + 6.37261928875436e-04f;
  p = p * x2 + 4.89352455891786e-03f;
  float q = 1.19825839466702e-06f;
  q = q * x2 + 1.18534705686654e-04f;
  q = q * x2 + 2.26843463243900e-03f;
  q = q * x2 + 4.89352518554385e-03f;
  float r = xc * p / q;
  return (x < 0.0004f && x > -0.0004f) ? x : (x != x ? x : r);
}

/* log(x) for float, vectorizable, as TF's CPU kernels compute it (Eigen's plog_float, without FMA as TF's x86 build
 * runs it): x = 2^e * m with m in [sqrt(1/2), sqrt(2)), log(m) = t * P(t) / Q(t) with t = m - 1, a (2, 3) rational
 * approximation, plus e * ln2; equal to TF's result bit for bit on normal numbers (within 1 ulp of log). Zero -> -inf,
 * negative -> NaN, +inf and NaN unchanged; subnormal inputs are scaled by 2^23 first (TF, flushing them, gives -inf). */
static inline float fast_log(float x) {
  float xs = x < 1.17549435e-38f ? x * 8388608.0f : x; /* subnormals: scale up, subtract 23 below */
  float e_adj = x < 1.17549435e-38f ? -23.0f : 0.0f;
  int32_t bits;
  memcpy(&bits, &xs, sizeof bits);
  int32_t e = ((bits >> 23) & 0xFF) - 126;
  int32_t mbits = (bits & 0x007FFFFF) | 0x3F000000; /* m in [0.5, 1) */
  float m;
  memcpy(&m, &mbits, sizeof m);
  float fe = (float)e + e_adj;
  float t = m - 1.0f;
  if (m < 0.707106781186547524f) { /* m -> 2m, e -> e - 1: t = 2m - 1, exact */
    fe -= 1.0f;
    t = t + m;
  }
  float p = 0.18256296349849254f;
  p = p * t + 1.0000000190281063f;
  p = p * t + 1.0000000190281136f;
  p = t * p;
  float q = 0.049616247954120038f;
  q = q * t + 0.59923249590823520f;
  q = q * t + 1.4999999999999927f;
  q = q * t + 1.0f;
  float r = fe * 0.693147180559945309f + p / q;
  r = x == 0.0f ? -__builtin_inff() : r;
  r = x < 0.0f ? __builtin_nanf("") : r;
  r = x == __builtin_inff() ? x : r;
  return x != x ? x : r;
}

/* erfc(x) for float, vectorizable (Cephes erfcf): 1 - erf(x) for |x| < 1, else exp(-x^2) / |x| times a polynomial in
 * 1 / x^2 (two ranges), reflected for x < 0; relative error a few 1e-7 down to the smallest normal float. */
static inline float fast_erfc(float x) {
  float a = x < 0.0f ? -x : x;
  float near = 1.0f - fast_erf(x);
  float ac = a < 1.0f ? 1.0f : (a > 9.5f ? 9.5f : a);
  float q = 1.0f / ac, t = q * q;
  /* exp(-x^2) without the rounding of x^2 (which would cost x^2 * 6e-8 relative): x = m + f with m on a 1/64 grid,
   * so m^2 is exact, and exp(-m^2) * exp(-(2m + f) f) (Cephes expx2f) */
  float m = __builtin_floorf(ac * 64.0f + 0.5f) * 0.015625f, f = ac - m;
  float z = fast_exp(-m * m) * fast_exp(-(m + m + f) * f);
  float p, r;
  p = 2.326819970068386e-2f;
  p = p * t - 1.387039388740657e-1f;
  p = p * t + 3.687424674597105e-1f;
  p = p * t - 5.824733027278666e-1f;
  p = p * t + 6.210004621745983e-1f;
  p = p * t - 4.944515323274145e-1f;
  p = p * t + 3.404879937665872e-1f;
  p = p * t - 2.741127028184656e-1f;
  p = p * t + 5.638259427386472e-1f;
  r = -1.047766399936249e+1f;
  r = r * t + 1.297719955372516e+1f;
  r = r * t - 7.495518717768503e+0f;
  r = r * t + 2.921019019210786e+0f;
  r = r * t - 1.015265279202700e+0f;
  r = r * t + 4.218463358204948e-1f;
  r = r * t - 2.820767439740514e-1f;
  r = r * t + 5.641895067754075e-1f;
  float far = z * q * (ac < 2.0f ? p : r);
  far = a > 9.3f ? 0.0f : far; /* below the smallest normal float */
  far = x < 0.0f ? 2.0f - far : far;
  float out = a < 1.0f ? near : far;
  return x != x ? x : out;
}

#endif /* MODTENSOR_CPU_KERNELS_MTK_MATH_H_ */
