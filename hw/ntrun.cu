/* mmaref hardware: the accumulator-truncation experiment on the GPU, with
 * the model run on the same inputs beside it.
 *
 * "Some Matrix Multiplication Engines Are Not As Accurate As We Thought"
 * zeroes the low Ntrun bits of each block result of a depth-K FP8 GEMM (a
 * Triton tl.dot over BLOCK_K, added into an FP32 register) and reads the
 * accumulator's width off the first Ntrun that changes the result.  This
 * program runs that kernel on the tensor cores themselves (hw/kernels.cu,
 * HW_MODE_BLOCKS and HW_MODE_FEED) and computes the same thing with the
 * model (libmmaref) on the same inputs, for every Ntrun from 0 to 23.
 *
 *   ntrun QUALIFIER --k KT --count N --seed S (--nc NC | --feed) [--model-only]
 *
 * (--model-only: the model's column alone, no GPU needed.)
 * QUALIFIER is a capture-harness instruction with f32 output
 * (`capture --list`).  Inputs: N(0, 1) draws (splitmix64, Box-Muller),
 * rounded to nearest-even into the instruction's input formats.  Output: one
 * line per Ntrun with the fraction of the N results that changed against
 * Ntrun = 0, on the GPU and in the model, and how many results agree bit for
 * bit; then the first Ntrun that changes any result.  Exit status: 0 when
 * every result agrees; 1 on a disagreement or a CUDA failure; 2 for bad
 * arguments or no sm_90 GPU. */
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <string>
#include <vector>

#include "instrs.h"
#include "mmaref.h"

#define QUAL(id, q, form, K, at, bt, dt, ptx, tail) {q, K},
static const struct {
  const char *qual;
  int K;
} INSTR[] = {HW_INSTR_LIST(QUAL)};

static void die(int code, const char *msg, const char *arg = "") {
  fprintf(stderr, "ntrun: %s%s\n", msg, arg);
  exit(code);
}

static uint64_t splitmix(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* value of a finite (or zero) encoding, exactly, as a double */
static double value_of(mma_fmt f, uint64_t bits) {
  mma_value v = mma_decode(f, bits);
  double x = v.cls == MMA_FINITE ? ldexp((double)v.sig, v.exp) : 0.0;
  return v.neg ? -x : x;
}

/* Nearest encoding of x in f, ties to the even encoding: the format's
 * non-negative finite codes sorted by value (formats of 16 bits or fewer);
 * tf32 is rounded to 10 fraction bits in double arithmetic (exact: N(0,1)
 * draws stay far from its subnormals and overflow). */
struct quantizer {
  mma_fmt f;
  uint64_t sign;
  std::vector<std::pair<double, uint64_t>> pos;
  explicit quantizer(mma_fmt fmt) : f(fmt) {
    const mma_format_info *fi = mma_format(fmt);
    sign = (uint64_t)1 << (fi->width - 1);
    if (fi->width > 16) return;
    for (uint64_t c = 0; c < sign; c++) {
      mma_value v = mma_decode(fmt, c);
      if (v.cls == MMA_FINITE || v.cls == MMA_ZERO) pos.push_back({value_of(fmt, c), c});
    }
    std::sort(pos.begin(), pos.end());
  }
  uint64_t operator()(double x) const {
    if (pos.empty()) { /* tf32: 10 fraction bits, round to nearest even */
      int e;
      double m = frexp(x, &e);
      float r = (float)ldexp(nearbyint(ldexp(m, 11)), e - 11);
      uint32_t w;
      memcpy(&w, &r, 4);
      return w;
    }
    double a = fabs(x);
    auto it = std::lower_bound(pos.begin(), pos.end(), std::make_pair(a, (uint64_t)0));
    uint64_t code;
    if (it == pos.end()) code = pos.back().second; /* saturate (never reached by N(0,1) here) */
    else if (it == pos.begin() || it->first == a) code = it->second;
    else {
      auto lo = it - 1;
      double dl = a - lo->first, dh = it->first - a;
      code = dl < dh ? lo->second : dh < dl ? it->second : ((lo->second & 1) ? it->second : lo->second);
    }
    return x < 0 && code ? code | sign : code;
  }
};

static float f32_of(uint64_t b) {
  uint32_t w = (uint32_t)b;
  float f;
  memcpy(&f, &w, 4);
  return f;
}

static uint64_t bits_of(float f) {
  uint32_t w;
  memcpy(&w, &f, 4);
  return w;
}

/* The model: the same chain of calls as the kernel (hw_job's modes). */
static uint64_t model_one(const mma_unit *u, const uint64_t *a, const uint64_t *b, int kt, int nc,
                          int feed, int ntrun) {
  const uint64_t mask = ~(((uint64_t)1 << ntrun) - 1) & 0xffffffffull;
  uint64_t c = 0;
  float r = 0.0f;
  for (int w = 0; w < kt; w += u->k) {
    c = mma_dot(u, c, a + w, b + w, NULL, NULL);
    if (feed) c &= mask;
    else if ((w + u->k) % nc == 0) {
      r += f32_of(c & mask); /* IEEE binary32 add, round to nearest even */
      c = 0;
    }
  }
  return feed ? c : bits_of(r);
}

int main(int argc, char **argv) {
  const char *qual = NULL;
  int kt = 1024, nc = 0, feed = 0, tmax = 23, model_only = 0;
  long count = 2000;
  unsigned long long seed = 1;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--k") && i + 1 < argc) kt = atoi(argv[++i]);
    else if (!strcmp(a, "--nc") && i + 1 < argc) nc = atoi(argv[++i]);
    else if (!strcmp(a, "--count") && i + 1 < argc) count = atol(argv[++i]);
    else if (!strcmp(a, "--seed") && i + 1 < argc) seed = strtoull(argv[++i], NULL, 0);
    else if (!strcmp(a, "--feed")) feed = 1;
    else if (!strcmp(a, "--model-only")) model_only = 1;
    else if (a[0] == '-') die(2, "unknown option ", a);
    else if (!qual) qual = a;
    else die(2, "unexpected argument ", a);
  }
  if (!qual || (nc == 0) == (feed == 0))
    die(2, "usage: ntrun QUALIFIER --k KT --count N --seed S (--nc NC | --feed)");
  if (!strncmp(qual, "hopper:", 7)) qual += 7;
  int ii = -1;
  for (int i = 0; i < (int)(sizeof INSTR / sizeof INSTR[0]); i++)
    if (!strcmp(INSTR[i].qual, qual)) ii = i;
  if (ii < 0 || !hw_can_chain(ii)) die(2, "not an f32-output mma.sync or wgmma of the harness: ", qual);
  const int K = INSTR[ii].K;
  if (kt <= 0 || kt % K || (nc && (nc % K || kt % nc)) || count <= 0 || count > 1000000)
    die(2, "--k must be a multiple of --nc, --nc of the instruction's K, --count 1..1000000");
  char name[160], err[512];
  snprintf(name, sizeof name, "hopper:%s", qual);
  mma_unit u;
  if (mma_unit_parse(name, &u, err, sizeof err)) die(2, err);

  /* inputs */
  quantizer qa(u.a), qb(u.b);
  std::vector<uint64_t> A((size_t)count * kt), B((size_t)count * kt);
  for (long i = 0; i < count; i++) {
    uint64_t s = seed * 0x100000001b3ull ^ (uint64_t)i * 0x9e3779b97f4a7c15ull;
    for (int k = 0; k < kt; k++) {
      double u1 = ((splitmix(&s) >> 11) + 1) * 0x1p-53, u2 = (splitmix(&s) >> 11) * 0x1p-53;
      double rad = sqrt(-2.0 * log(u1));
      A[(size_t)i * kt + k] = qa(rad * cos(2 * M_PI * u2));
      B[(size_t)i * kt + k] = qb(rad * sin(2 * M_PI * u2));
    }
  }

  /* the GPU */
  cudaDeviceProp p;
  uint64_t *dA = NULL, *dB = NULL, *dC = NULL, *dD = NULL;
  if (model_only) {
    snprintf(p.name, sizeof p.name, "no GPU (model only)");
  } else {
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) die(2, "refused: no CUDA device");
    if (cudaGetDeviceProperties(&p, 0) != cudaSuccess || p.major != 9 || p.minor != 0)
      die(2, "refused: device 0 is not an sm_90 GPU");
    if (cudaMalloc(&dA, A.size() * 8) || cudaMalloc(&dB, B.size() * 8) || cudaMalloc(&dC, count * 8) ||
        cudaMalloc(&dD, count * 8))
      die(1, "cudaMalloc failed");
    cudaMemcpy(dA, A.data(), A.size() * 8, cudaMemcpyHostToDevice);
    cudaMemcpy(dB, B.data(), B.size() * 8, cudaMemcpyHostToDevice);
    cudaMemset(dC, 0, count * 8);
  }

  printf("# ntrun %s on %s: K=%d, %ld outputs of N(0,1) draws (seed %llu), low Ntrun bits zeroed\n", name,
         p.name, kt, count, seed);
  if (feed) printf("# every call's output truncated and fed back as the next call's c\n");
  if (!feed)
    printf("# every %d products (%d chained calls from c = +0) truncated and added into an FP32 register\n", nc,
           nc / K);
  printf("ntrun\thw_changed\tmodel_changed\tagree\n");
  std::vector<uint64_t> hw0(count), m0(count), hw(count), m(count);
  int first_hw = -1, first_m = -1;
  long bad = 0;
  for (int t = 0; t <= tmax; t++) {
    if (!model_only) {
      hw_job jb = {dA, dB, dC, dD, (int)count, K, feed ? HW_MODE_FEED : HW_MODE_BLOCKS, kt, nc ? nc : kt, t};
      cudaMemset(dD, 0xff, count * 8);
      if (hw_run(ii, &jb, err, sizeof err)) die(1, err);
      cudaMemcpy(hw.data(), dD, count * 8, cudaMemcpyDeviceToHost);
    }
    for (long i = 0; i < count; i++)
      m[i] = model_one(&u, &A[(size_t)i * kt], &B[(size_t)i * kt], kt, nc, feed, t);
    if (t == 0) hw0 = hw, m0 = m;
    long ch = 0, cm = 0, agree = 0;
    for (long i = 0; i < count; i++) {
      ch += hw[i] != hw0[i];
      cm += m[i] != m0[i];
      agree += hw[i] == m[i];
    }
    if (ch && first_hw < 0) first_hw = t;
    if (cm && first_m < 0) first_m = t;
    if (!model_only) bad += count - agree;
    printf("%d\t%.6g\t%.6g\t%ld/%ld\n", t, (double)ch / count, (double)cm / count, agree, count);
  }
  printf("# first Ntrun that changes a result: hardware %d, model %d; results differing between the two: %ld\n",
         first_hw, first_m, bad);
  return bad ? 1 : 0;
}
