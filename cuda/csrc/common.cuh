// common.cuh: error handling, streams and scratch memory shared by the .cu files.
#pragma once
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <vector>
#include "api.h"

#define PL_CHECK(x)                              \
  do {                                           \
    cudaError_t e_ = (x);                        \
    if (e_ != cudaSuccess) return (int)e_;       \
  } while (0)
#define PL_TRY(x)                                \
  do {                                           \
    int r_ = (x);                                \
    if (r_ != 0) return r_;                      \
  } while (0)
// after every kernel launch
#define PL_LAUNCHED() PL_CHECK(cudaGetLastError())

#define PL_STAGE_BYTES (8u << 20)

struct pl_stream {
  int dev;
  cudaStream_t s;
  void* stage[2];
  cudaEvent_t stage_ev[2];
  int next;
  pl_options opts;  // how its MSMs and sums run (api.h)
};

// Stream-ordered temporaries, freed (stream-ordered) when the scope ends.
struct Scratch {
  pl_stream* st;
  std::vector<void*> ptrs;
  explicit Scratch(pl_stream* s) : st(s) {}
  ~Scratch() {
    for (void* p : ptrs) cudaFreeAsync(p, st->s);
  }
  template <class T>
  int alloc(T** p, size_t count) {
    void* q = nullptr;
    cudaError_t e = cudaMallocAsync(&q, count * sizeof(T) + 16, st->s);
    if (e != cudaSuccess) {
      cudaGetLastError();
      return (int)e;
    }
    ptrs.push_back(q);
    *p = (T*)q;
    return 0;
  }
};

static inline unsigned grid_for(size_t n, unsigned threads) {
  size_t g = (n + threads - 1) / threads;
  if (g > (1u << 30)) g = 1u << 30;
  if (g == 0) g = 1;
  return (unsigned)g;
}

// Per-phase timing with events, on when the stream's options say
// (pl_options.profile); prints one line to stderr per call. Off, it
// costs nothing.
struct Profile {
  const char* what;
  size_t n;
  int c;
  bool on;
  int k = 0;
  cudaEvent_t ev[16];
  const char* names[16];
  Profile(const pl_stream* s, const char* w, size_t n_, int c_)
      : what(w), n(n_), c(c_), on(s->opts.profile != 0) {}
  void mark(pl_stream* s, const char* name) {
    if (!on || k >= 16) return;
    cudaEventCreate(&ev[k]);
    cudaEventRecord(ev[k], s->s);
    names[k++] = name;
  }
  void report() {
    if (!on || k < 2) return;
    cudaEventSynchronize(ev[k - 1]);
    float total = 0;
    cudaEventElapsedTime(&total, ev[0], ev[k - 1]);
    fprintf(stderr, "profile %s n=%zu c=%d total %.3f ms:", what, n, c, total);
    for (int i = 1; i < k; i++) {
      float ms = 0;
      cudaEventElapsedTime(&ms, ev[i - 1], ev[i]);
      fprintf(stderr, " %s %.3f", names[i], ms);
    }
    fprintf(stderr, "\n");
    for (int i = 0; i < k; i++) cudaEventDestroy(ev[i]);
  }
};
