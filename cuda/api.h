/* api.h: the C interface of libprooflane_cuda.a, called from Go (cgo).
 * Every function returns 0 or a cudaError_t code (see pl_error_string);
 * PL_ERR_* codes are this library's own. Device work is queued on the
 * given stream; functions that return host results wait for that stream
 * only, never for the whole device. */
#ifndef PROOFLANE_CUDA_API_H
#define PROOFLANE_CUDA_API_H
#include <stddef.h>
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif

#define PL_ERR_ARG 10001     /* invalid argument */
#define PL_ERR_TOO_BIG 10002 /* size beyond what the kernels index */

typedef struct pl_stream pl_stream;

/* The curves the kernels are built for, a pl_curve argument's values:
 * every entry point whose data are a curve's field elements or points
 * takes one (an unknown one is PL_ERR_ARG). Elements and points are
 * gnark-crypto's of that curve in memory (ecc/bls12-381, ecc/bn254): Fr
 * is 32 bytes on both, Fp 48 and 32, G1 affine points 96 and 64 bytes,
 * G2 192 and 128. */
#define PL_BLS12_381 0
#define PL_BN254 1

/* A domain of 2^logn points; every element is an fr.Element in
 * Montgomery form (4 little-endian 64-bit limbs). */
typedef struct {
  int logn;
  uint64_t omega[4], omega_inv[4], g[4], g_inv[4], n_inv[4], den[4];
} pl_domain;

const char* pl_error_string(int code);
int pl_device_count(int* n);
int pl_device_info(int dev, char* name, int name_len, uint64_t* mem_total, uint64_t* mem_free,
                   int* sms);
int pl_device_init(int dev);
/* the device's stream-ordered pool (every pl_malloc_async and kernel
 * temporary): bytes allocated from it now and the most at once since the
 * last reset; reset != 0 then sets that most to now. */
int pl_pool_usage(int dev, uint64_t* used, uint64_t* high, int reset);

/* How a stream's MSMs and sums run; every field's zero is the default.
 * The Go side fills it from cuda.Options (the library reads no
 * environment). */
typedef struct {
  /* the most scratch (bytes) an MSM's batch-affine accumulation takes;
   * above it, or above half the device's free memory, the MSM sums its
   * buckets with XYZZ additions. 0: BA_MAX_BYTES (msm_affine.cuh). */
  uint64_t affine_max;
  /* stop the batch-affine levels after this many and sum what is left
   * with XYZZ additions (measurements); 0: every level. */
  int affine_levels;
  /* how every MSM sums its buckets: PL_ACCUM_DEFAULT (G2 batch-affine,
   * G1 XYZZ), PL_ACCUM_AFFINE or PL_ACCUM_XYZZ. */
  int accum;
  /* the batch additions' thread count (measurements); 0: one wave of
   * the device, at least 8 points a thread. */
  uint64_t sum_threads;
  /* != 0: print each MSM's phases (CUDA event times) on stderr. */
  int profile;
} pl_options;
#define PL_ACCUM_DEFAULT 0
#define PL_ACCUM_AFFINE 1
#define PL_ACCUM_XYZZ 2

/* opts NULL: the defaults. The stream keeps a copy. */
int pl_stream_create(int dev, const pl_options* opts, pl_stream** out);
int pl_stream_destroy(pl_stream* s);
int pl_stream_sync(pl_stream* s);

int pl_malloc(int dev, void** p, size_t bytes);
int pl_free(int dev, void* p);
int pl_malloc_async(pl_stream* s, void** p, size_t bytes);
int pl_free_async(pl_stream* s, void* p);
int pl_host_alloc(void** p, size_t bytes);
int pl_host_free(void* p);
int pl_memset_async(pl_stream* s, void* p, int value, size_t bytes);
/* src must be pinned (pl_host_alloc); returns at once. */
int pl_h2d_pinned(pl_stream* s, void* dst, const void* src, size_t bytes);
/* src may be any host memory: copied through the stream's pinned staging
 * buffers; returns once src is no longer read. */
int pl_h2d_staged(pl_stream* s, void* dst, const void* src, size_t bytes);
/* the staging buffers' pool: how many the process pinned, how many no
 * stream holds now. */
void pl_stage_stats(int* pinned, int* idle);
/* waits for the stream, then the copy. */
int pl_d2h(pl_stream* s, void* dst, const void* src, size_t bytes);

int pl_event_create(int dev, void** ev);
int pl_event_destroy(void* ev);
int pl_event_record(pl_stream* s, void* ev);
int pl_event_sync(void* ev);
int pl_event_elapsed(float* ms, void* from, void* to);

/* in place: to_mont != 0: canonical -> Montgomery, else the reverse */
int pl_fr_convert(pl_stream* s, int curve, void* v, size_t n, int to_mont);
/* gnark's Domain.FFT / FFTInverse on v (2^logn elements) over the
 * curve's Fr, d a domain of that field (gnark-crypto's fft.Domain of the
 * curve): PL_ERR_ARG when 2^logn is past the field's 2-adicity (2^32 on
 * BLS12-381, 2^28 on BN254; 2^30 at most) or omega is not of order 2^logn
 * in it. */
int pl_ntt(pl_stream* s, int curve, const pl_domain* d, void* v, int inverse, int dif, int coset);
/* the permutation of 2^logn elements of 32 bytes (either curve's Fr) */
int pl_bitrev(pl_stream* s, void* v, int logn);
/* Groth16's H step fused (the one family-specific kernel here): gnark's
 * groth16 computeH on a, b, c (2^logn each) over the curve's Fr; result
 * in a, b and c clobbered. */
int pl_compute_h(pl_stream* s, int curve, const pl_domain* d, void* a, void* b, void* c);
/* element-wise over n elements of Fr (Montgomery form); dst may be a or b.
 * pl_fr_vec: dst[i] = a[i] op b[i], op one of PL_VEC_MUL, _ADD, _SUB.
 * pl_fr_vec_const: dst[i] = a[i] op c, op PL_VEC_MUL (scale) or PL_VEC_ADD;
 * c (by value: no host memory to keep alive) in Montgomery form. */
typedef struct {
  uint64_t v[4]; /* little-endian limbs */
} pl_fr;
#define PL_VEC_MUL 1
#define PL_VEC_ADD 2
#define PL_VEC_SUB 3
int pl_fr_vec(pl_stream* s, int curve, int op, void* dst, const void* a, const void* b, size_t n);
int pl_fr_vec_const(pl_stream* s, int curve, int op, void* dst, const void* a, pl_fr c, size_t n);
/* How many of v[0..n) are not zero, and how many of those are 1 or -1
 * (in Montgomery form when mont); waits for the stream. */
int pl_fr_count(pl_stream* s, int curve, const void* v, size_t n, int mont, uint64_t* nonzero,
                uint64_t* units);
/* spin kernel for the overlap test: about `iters` multiplications in the
 * curve's Fr per thread over v. */
int pl_busy(pl_stream* s, int curve, void* v, size_t n, int iters);
/* cudabench -fpmul: iters squarings of each of the n BLS12-381 Fp elements at host
 * (48 bytes each, Montgomery form), in place; *ms is the kernel's time.
 * Synchronous. mode 0..8: the first `mode` warps of every 8 square on the
 * FP64 pipe (fp64.cuh), the rest with mont_mul; PL_FP_DUAL: every thread
 * squares two elements at once, one each way (n even). */
#define PL_FP_DUAL 9
int pl_fp_squarings(pl_stream* s, uint64_t* host, size_t n, int iters, unsigned mode, float* ms);

/* Pippenger MSM over the first n of bases, points of the curve's G1 or G2
 * (gnark-crypto's affine layout) and scalars of its Fr. With table_n == 0, bases are
 * the points and out receives ceil(256/c) window sums (XYZZ, host); with
 * table_n > 0, bases is a table pl_precompute_* filled for the same c with
 * rows of table_n >= n points, and out receives the one sum. nnz > 0 says
 * that exactly nnz of the n scalars are not zero and units of those are 1
 * or -1 (pl_fr_count): the MSM then gathers the units' indices and sums
 * their points apart, with their signs, gathers the other nonzero
 * scalars' indices and runs over those alone, and adds the units' sum to
 * the first window's (PL_ERR_ARG if a count differs). */
int pl_msm_g1(pl_stream* s, int curve, const void* bases, const void* scalars, size_t n, int mont,
              int c, size_t table_n, size_t nnz, size_t units, void* out);
int pl_msm_g2(pl_stream* s, int curve, const void* bases, const void* scalars, size_t n, int mont,
              int c, size_t table_n, size_t nnz, size_t units, void* out);
/* Fixed-base precomputation: table (device) holds W = ceil(256/c) rows of
 * n affine points, row 0 the bases; fills rows 1..W-1 with table[w·n + i]
 * = 2^(c·w)·table[i]. W·n < 2^31. Queued only; temporaries (240 bytes a
 * point of a 2^21-point chunk for BLS12-381's G1, 480 for G2; 160 and 320 on
 * BN254) from the stream's pool. */
int pl_precompute_g1(pl_stream* s, int curve, void* table, size_t n, int c);
int pl_precompute_g2(pl_stream* s, int curve, void* table, size_t n, int c);
/* sum of bases[idx[i]]; idx on the host; out: one XYZZ (host).
 * PL_ERR_ARG (and out untouched) if an index is not in [0, nbases). */
int pl_sum_g1(pl_stream* s, int curve, const void* bases, size_t nbases, const int32_t* idx,
              size_t count, void* out);
int pl_sum_g2(pl_stream* s, int curve, const void* bases, size_t nbases, const int32_t* idx,
              size_t count, void* out);

/* Fixed-base batch scalar multiplication (a key setup's bases), over the
 * curve's G1 or G2: out[i] = scalars[i]·G in affine form (gnark-crypto's layout, infinity as (0, 0))
 * for i < n. table (device) holds G's multiples for signed c-bit digits,
 * table[w·2^(c-1) + m - 1] = m·2^(c·w)·G for w < ceil(256/c) and
 * 1 <= m <= 2^(c-1), 2 <= c <= 20; scalars (device) are Fr in Montgomery
 * form; out (device). Queued only; temporaries (XYZZ sums and the
 * conversion's products, 240 bytes a point for BLS12-381's G1, 480 for G2;
 * 160 and 320 on BN254) come from
 * the stream's pool. */
int pl_fixed_g1(pl_stream* s, int curve, const void* table, int c, const void* scalars, size_t n,
                void* out);
int pl_fixed_g2(pl_stream* s, int curve, const void* table, int c, const void* scalars, size_t n,
                void* out);

/* compares the device's Montgomery multiplication with the plain CIOS
 * reference (mont_mul_ref) on random inputs, every curve's fields;
 * mismatches counts the differences. */
int pl_selftest(int dev, uint64_t seed, int* mismatches);

#ifdef __cplusplus
}
#endif
#endif
