// runtime.cu: devices, streams, memory and copies.
#include <string.h>
#include <stdint.h>
#include <mutex>
#include <vector>
#include "common.cuh"
#include "curves.cuh"

extern "C" const char* pl_error_string(int code) {
  switch (code) {
    case PL_ERR_ARG: return "invalid argument";
    case PL_ERR_TOO_BIG: return "size too large for the kernels";
  }
  return cudaGetErrorString((cudaError_t)code);
}

extern "C" int pl_device_count(int* n) {
  *n = 0;
  cudaError_t e = cudaGetDeviceCount(n);
  if (e != cudaSuccess) {
    *n = 0;
    return (int)e;
  }
  return 0;
}

extern "C" int pl_device_info(int dev, char* name, int name_len, uint64_t* mem_total,
                              uint64_t* mem_free, int* sms) {
  cudaDeviceProp p;
  PL_CHECK(cudaGetDeviceProperties(&p, dev));
  strncpy(name, p.name, name_len - 1);
  name[name_len - 1] = 0;
  *sms = p.multiProcessorCount;
  PL_CHECK(cudaSetDevice(dev));
  size_t fr = 0, tot = 0;
  PL_CHECK(cudaMemGetInfo(&fr, &tot));
  *mem_total = tot;
  *mem_free = fr;
  return 0;
}

// Keeps freed stream-ordered memory in the pool (no release at
// synchronization points, so freeing never trims or synchronizes).
extern "C" int pl_device_init(int dev) {
  PL_CHECK(cudaSetDevice(dev));
  cudaMemPool_t pool;
  PL_CHECK(cudaDeviceGetDefaultMemPool(&pool, dev));
  uint64_t threshold = UINT64_MAX;
  PL_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));
  return 0;
}

extern "C" int pl_pool_usage(int dev, uint64_t* used, uint64_t* high, int reset) {
  cudaMemPool_t pool;
  PL_CHECK(cudaDeviceGetDefaultMemPool(&pool, dev));
  PL_CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, used));
  PL_CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemHigh, high));
  if (reset) {
    uint64_t zero = 0;  // the high mark's only settable value: back to now
    PL_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &zero));
  }
  return 0;
}

// The staging buffers of pl_h2d_staged, kept for the life of the process
// and shared by every stream of every device (portable pinned memory).
// Pinning and unpinning host memory synchronize the whole device (the CUDA
// guide's implicit synchronization: a page-locked allocation issued between
// two streams' commands keeps them from running at once), so a stream takes
// its pair from here on its first staged upload and gives it back when it
// is destroyed, instead of pinning 16 MB per stream. The pool holds at most
// as many buffers as were ever in use at once (two a stream with staged
// uploads); pl_stage_stats reports it.
namespace {
std::mutex stage_mu;
std::vector<void*> stage_free;
int stage_pinned = 0;

cudaError_t stage_get(void** p) {
  {
    std::lock_guard<std::mutex> g(stage_mu);
    if (!stage_free.empty()) {
      *p = stage_free.back();
      stage_free.pop_back();
      return cudaSuccess;
    }
  }
  cudaError_t e = cudaHostAlloc(p, PL_STAGE_BYTES, cudaHostAllocPortable);
  if (e != cudaSuccess) {
    *p = nullptr;
    return e;
  }
  std::lock_guard<std::mutex> g(stage_mu);
  stage_pinned++;
  return cudaSuccess;
}

void stage_put(void* p) {
  std::lock_guard<std::mutex> g(stage_mu);
  stage_free.push_back(p);
}
}  // namespace

extern "C" void pl_stage_stats(int* pinned, int* idle) {
  std::lock_guard<std::mutex> g(stage_mu);
  *pinned = stage_pinned;
  *idle = (int)stage_free.size();
}

extern "C" int pl_stream_create(int dev, const pl_options* opts, pl_stream** out) {
  PL_CHECK(cudaSetDevice(dev));
  pl_stream* s = new pl_stream();
  s->dev = dev;
  s->next = 0;
  s->opts = opts ? *opts : pl_options{};
  s->stage[0] = s->stage[1] = nullptr;
  cudaError_t e = cudaStreamCreateWithFlags(&s->s, cudaStreamNonBlocking);
  if (e != cudaSuccess) {
    delete s;
    return (int)e;
  }
  for (int i = 0; i < 2; i++) {
    e = cudaEventCreateWithFlags(&s->stage_ev[i], cudaEventDisableTiming);
    if (e != cudaSuccess) return (int)e;
  }
  *out = s;
  return 0;
}

extern "C" int pl_stream_destroy(pl_stream* s) {
  PL_CHECK(cudaSetDevice(s->dev));
  PL_CHECK(cudaStreamSynchronize(s->s));
  for (int i = 0; i < 2; i++) {
    if (s->stage[i]) stage_put(s->stage[i]);
    cudaEventDestroy(s->stage_ev[i]);
  }
  cudaError_t e = cudaStreamDestroy(s->s);
  delete s;
  return (int)e;
}

extern "C" int pl_stream_sync(pl_stream* s) {
  PL_CHECK(cudaSetDevice(s->dev));
  PL_CHECK(cudaStreamSynchronize(s->s));
  return 0;
}

extern "C" int pl_malloc(int dev, void** p, size_t bytes) {
  PL_CHECK(cudaSetDevice(dev));
  cudaError_t e = cudaMalloc(p, bytes);
  if (e != cudaSuccess) cudaGetLastError();
  return (int)e;
}

extern "C" int pl_free(int dev, void* p) {
  PL_CHECK(cudaSetDevice(dev));
  PL_CHECK(cudaFree(p));
  return 0;
}

extern "C" int pl_malloc_async(pl_stream* s, void** p, size_t bytes) {
  PL_CHECK(cudaSetDevice(s->dev));
  cudaError_t e = cudaMallocAsync(p, bytes, s->s);
  if (e != cudaSuccess) cudaGetLastError();
  return (int)e;
}

extern "C" int pl_free_async(pl_stream* s, void* p) {
  PL_CHECK(cudaSetDevice(s->dev));
  PL_CHECK(cudaFreeAsync(p, s->s));
  return 0;
}

extern "C" int pl_host_alloc(void** p, size_t bytes) {
  PL_CHECK(cudaHostAlloc(p, bytes, cudaHostAllocPortable));
  return 0;
}

extern "C" int pl_host_free(void* p) {
  PL_CHECK(cudaFreeHost(p));
  return 0;
}

extern "C" int pl_memset_async(pl_stream* s, void* p, int value, size_t bytes) {
  PL_CHECK(cudaSetDevice(s->dev));
  PL_CHECK(cudaMemsetAsync(p, value, bytes, s->s));
  return 0;
}

extern "C" int pl_h2d_pinned(pl_stream* s, void* dst, const void* src, size_t bytes) {
  PL_CHECK(cudaSetDevice(s->dev));
  PL_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, s->s));
  return 0;
}

extern "C" int pl_h2d_staged(pl_stream* s, void* dst, const void* src, size_t bytes) {
  PL_CHECK(cudaSetDevice(s->dev));
  for (int i = 0; i < 2; i++) {
    if (!s->stage[i]) PL_CHECK(stage_get(&s->stage[i]));
  }
  size_t off = 0;
  while (off < bytes) {
    size_t len = bytes - off;
    if (len > PL_STAGE_BYTES) len = PL_STAGE_BYTES;
    int k = s->next;
    s->next ^= 1;
    // waits only for this stream's earlier copy out of the same buffer
    PL_CHECK(cudaEventSynchronize(s->stage_ev[k]));
    memcpy(s->stage[k], (const char*)src + off, len);
    PL_CHECK(cudaMemcpyAsync((char*)dst + off, s->stage[k], len, cudaMemcpyHostToDevice, s->s));
    PL_CHECK(cudaEventRecord(s->stage_ev[k], s->s));
    off += len;
  }
  return 0;
}

extern "C" int pl_d2h(pl_stream* s, void* dst, const void* src, size_t bytes) {
  PL_CHECK(cudaSetDevice(s->dev));
  PL_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, s->s));
  PL_CHECK(cudaStreamSynchronize(s->s));
  return 0;
}

extern "C" int pl_event_create(int dev, void** ev) {
  PL_CHECK(cudaSetDevice(dev));
  cudaEvent_t e;
  PL_CHECK(cudaEventCreate(&e));
  *ev = (void*)e;
  return 0;
}

extern "C" int pl_event_destroy(void* ev) {
  PL_CHECK(cudaEventDestroy((cudaEvent_t)ev));
  return 0;
}

extern "C" int pl_event_record(pl_stream* s, void* ev) {
  PL_CHECK(cudaSetDevice(s->dev));
  PL_CHECK(cudaEventRecord((cudaEvent_t)ev, s->s));
  return 0;
}

extern "C" int pl_event_sync(void* ev) {
  PL_CHECK(cudaEventSynchronize((cudaEvent_t)ev));
  return 0;
}

extern "C" int pl_event_elapsed(float* ms, void* from, void* to) {
  PL_CHECK(cudaEventElapsedTime(ms, (cudaEvent_t)from, (cudaEvent_t)to));
  return 0;
}

// ---- self test: the multiplication against the plain CIOS reference ----
// Also the kernels' default arithmetic (field.cuh): Fp's dedicated
// squaring and Fp2's lazy multiplication against products of the
// reference. Every curve's fields (curves.cuh).

__device__ __forceinline__ uint32_t xorshift(uint64_t& x) {
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  return (uint32_t)(x >> 16);
}

template <class F>
__device__ F random_elem(uint64_t& st) {
  F r;
  for (int i = 0; i < F::N; i++) r.v[i] = xorshift(st);
  r.v[F::N - 1] &= 0x0fffffffu;  // below every modulus
  return r;
}

// Karatsuba over mont_mul_ref (Fp2T::mul's formula).
template <class Fp2>
__device__ Fp2 fp2_mul_ref(const Fp2& a, const Fp2& b) {
  using Fp = decltype(a.c0);
  Fp t0 = Fp::mont_mul_ref(a.c0, b.c0);
  Fp t1 = Fp::mont_mul_ref(a.c1, b.c1);
  Fp t2 = Fp::mont_mul_ref(a.c0 + a.c1, b.c0 + b.c1);
  Fp2 r;
  r.c0 = t0 - t1;
  r.c1 = t2 - t0 - t1;
  return r;
}

template <class Fp2>
__device__ void check_variants(const Fp2& x, const Fp2& y, int* mismatches) {
  using Fp = decltype(x.c0);
  if (!(Fp::mont_sqr(x.c0) == Fp::mont_mul_ref(x.c0, x.c0))) atomicAdd(mismatches, 1);
  if (!(Fp2::mul_lazy(x, y) == fp2_mul_ref(x, y))) atomicAdd(mismatches, 1);
}

template <class C>
__device__ void selftest_curve(uint64_t& st, int it, int* mismatches) {
  using Fr = typename C::Fr;
  using Fp = typename C::Fp;
  using Fp2 = typename C::Fp2;
  Fp a = random_elem<Fp>(st), b = random_elem<Fp>(st);
  if (!(Fp::mont_mul(a, b) == Fp::mont_mul_ref(a, b))) atomicAdd(mismatches, 1);
  Fr c = random_elem<Fr>(st), d = random_elem<Fr>(st);
  if (!(Fr::mont_mul(c, d) == Fr::mont_mul_ref(c, d))) atomicAdd(mismatches, 1);
  // extremes: p-1 squared
  Fp m;
  for (int i = 0; i < Fp::N; i++) m.v[i] = Fp::Params::mod(i);
  m.v[0] -= 1 + (it & 3);
  if (!(Fp::mont_mul(m, m) == Fp::mont_mul_ref(m, m))) atomicAdd(mismatches, 1);
  // the variants: random operands, equal ones, a zero component, p-1-k,
  // Montgomery one, every limb 0xffffffff below p
  Fp2 x, y;
  x.c0 = random_elem<Fp>(st);
  x.c1 = random_elem<Fp>(st);
  y.c0 = random_elem<Fp>(st);
  y.c1 = random_elem<Fp>(st);
  check_variants(x, y, mismatches);
  check_variants(x, x, mismatches);
  Fp2 z = x;
  if (it & 1) z.c0 = Fp::zero(); else z.c1 = Fp::zero();
  check_variants(z, y, mismatches);
  Fp ones;
  for (int i = 0; i < Fp::N; i++) ones.v[i] = 0xffffffffu;
  ones.v[Fp::N - 1] = Fp::Params::mod(Fp::N - 1) - 1;
  Fp2 e, f;
  e.c0 = m;
  e.c1 = (it & 2) ? ones : Fp::one();
  f.c0 = (it & 1) ? m : ones;
  f.c1 = m;
  check_variants(e, f, mismatches);
  check_variants(f, e, mismatches);
  check_variants(e, x, mismatches);
}

__global__ void k_selftest(uint64_t seed, int* mismatches) {
  uint64_t st = seed ^ (0x9e3779b97f4a7c15ull * (blockIdx.x * blockDim.x + threadIdx.x + 1));
  for (int it = 0; it < 16; it++) {
    selftest_curve<pl::bls12_381::Curve>(st, it, mismatches);
    selftest_curve<pl::bn254::Curve>(st, it, mismatches);
  }
}

extern "C" int pl_selftest(int dev, uint64_t seed, int* mismatches) {
  PL_CHECK(cudaSetDevice(dev));
  int* d = nullptr;
  PL_CHECK(cudaMalloc(&d, sizeof(int)));
  PL_CHECK(cudaMemset(d, 0, sizeof(int)));
  k_selftest<<<256, 256>>>(seed, d);
  cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess) e = cudaMemcpy(mismatches, d, sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(d);
  return (int)e;
}
