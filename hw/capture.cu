/* mmaref hardware capture: runs vector files through real tensor-core
 * instructions on a Hopper GPU (sm_90a) and writes the hardware's d.
 *
 *   capture IN.vec OUT.vec     capture (OUT is written atomically)
 *   capture --dry-run IN.vec   validate IN only (no GPU needed)
 *   capture --selftest         exact-result tests of every instruction
 *   capture --list             supported instructions and their SASS
 *
 * Exit status: 0 done; 1 runtime failure (CUDA error, I/O error, self-test
 * FAIL); 2 refused (bad input, unknown instruction, no sm_90 GPU).
 * See docs/capture.md.
 */
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "instrs.h"
#include "sass_table.h" /* generated at build time from cuobjdump --dump-sass */

/* ---- formats -------------------------------------------------------------- */

struct fmt_info {
  const char *name;
  int bits;  /* bits of the stored pattern */
  int hexw;  /* hex digits in a vector file */
  int ebits, fbits, bias; /* for the self-test's exact encoder */
};

static const fmt_info FMT[] = {
    /* HW_E4M3 */ {"e4m3", 8, 2, 4, 3, 7},
    /* HW_E5M2 */ {"e5m2", 8, 2, 5, 2, 15},
    /* HW_F16  */ {"f16", 16, 4, 5, 10, 15},
    /* HW_BF16 */ {"bf16", 16, 4, 8, 7, 127},
    /* HW_TF32 */ {"tf32", 32, 8, 8, 23, 127}, /* stored as a 32-bit pattern */
    /* HW_F32  */ {"f32", 32, 8, 8, 23, 127},
    /* HW_F64  */ {"f64", 64, 16, 11, 52, 1023},
};

/* ---- instruction table ---------------------------------------------------- */

struct instr_info {
  const char *qual, *kernel, *form;
  int K, at, bt, dt;
  const char *sass;
};

#define ITAB(id, q, form, K, at, bt, dt, ptx, tail) \
  {q, "cap_" #id, #form, K, HW_##at, HW_##bt, HW_##dt, NULL},
static instr_info INSTR[] = {HW_INSTR_LIST(ITAB)};
static const int NINSTR = (int)(sizeof INSTR / sizeof INSTR[0]);

static void attach_sass(void) {
  for (int i = 0; i < NINSTR; i++) {
    INSTR[i].sass = "unknown";
    for (size_t j = 0; j < sizeof HW_SASS / sizeof HW_SASS[0]; j++)
      if (strcmp(HW_SASS[j].kernel, INSTR[i].kernel) == 0) INSTR[i].sass = HW_SASS[j].sass;
  }
}

static int find_instr(const char *q) {
  for (int i = 0; i < NINSTR; i++)
    if (strcmp(INSTR[i].qual, q) == 0) return i;
  return -1;
}

/* ---- messages ------------------------------------------------------------- */

static void die(int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("capture: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  exit(code);
}

/* ---- the GPU -------------------------------------------------------------- */

struct gpu_info {
  std::string name, slug, driver, cuda;
};

static std::string nvml_driver_version(void) {
  void *h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (h) {
    typedef int (*init_t)(void);
    typedef int (*ver_t)(char *, unsigned);
    init_t init = (init_t)dlsym(h, "nvmlInit_v2");
    ver_t ver = (ver_t)dlsym(h, "nvmlSystemGetDriverVersion");
    init_t shut = (init_t)dlsym(h, "nvmlShutdown");
    char buf[96] = {0};
    if (init && ver && init() == 0) {
      int rc = ver(buf, sizeof buf);
      if (shut) shut();
      if (rc == 0 && buf[0]) return buf;
    }
  }
  FILE *f = fopen("/proc/driver/nvidia/version", "r");
  if (f) {
    char line[512];
    std::string out;
    if (fgets(line, sizeof line, f)) {
      /* "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.03  ..." */
      const char *p = strstr(line, "Kernel Module");
      if (p) {
        p += strlen("Kernel Module");
        while (*p == ' ') p++;
        while (*p && *p != ' ' && *p != '\n') out += *p++;
      }
    }
    fclose(f);
    if (!out.empty()) return out;
  }
  return "";
}

static std::string cuda_ver(int v) {
  char b[32];
  snprintf(b, sizeof b, "%d.%d", v / 1000, (v % 1000) / 10);
  return b;
}

/* Refuses (exit 2) unless device 0 is an sm_90 GPU. */
static gpu_info open_gpu(void) {
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess || n == 0)
    die(2, "refused: no CUDA device (%s); the capture needs an sm_90 GPU (H100/H200)",
        e != cudaSuccess ? cudaGetErrorString(e) : "device count 0");
  cudaDeviceProp p;
  e = cudaGetDeviceProperties(&p, 0);
  if (e != cudaSuccess) die(1, "cudaGetDeviceProperties: %s", cudaGetErrorString(e));
  if (p.major != 9 || p.minor != 0)
    die(2, "refused: device 0 is %s (sm_%d%d); these kernels are built for sm_90a (H100/H200)",
        p.name, p.major, p.minor);
  gpu_info g;
  g.name = p.name;
  std::string low;
  for (const char *c = p.name; *c; c++) low += (char)tolower((unsigned char)*c);
  if (low.find("h100") != std::string::npos)
    g.slug = "nvidia-h100";
  else if (low.find("h200") != std::string::npos)
    g.slug = "nvidia-h200";
  else if (low.find("h800") != std::string::npos)
    g.slug = "nvidia-h800";
  else if (low.find("gh200") != std::string::npos)
    g.slug = "nvidia-gh200";
  else
    g.slug = "nvidia-sm90";
  int rt = 0, dv = 0;
  cudaRuntimeGetVersion(&rt);
  cudaDriverGetVersion(&dv);
  g.driver = nvml_driver_version();
  if (g.driver.empty()) g.driver = "unknown (CUDA driver API " + cuda_ver(dv) + ")";
  g.cuda = cuda_ver(rt);
  return g;
}

/* Runs n vectors (host arrays) through instruction ii; fills d. */
static void gpu_run(int ii, const uint64_t *a, const uint64_t *b, const uint64_t *c,
                    uint64_t *d, size_t n) {
  const int K = INSTR[ii].K;
  const size_t CHUNK = (size_t)1 << 20;
  size_t cap = n < CHUNK ? n : CHUNK;
  if (cap == 0) return;
  uint64_t *da, *db, *dc, *dd;
  cudaError_t e;
#define CK(x)                                                                  \
  do {                                                                         \
    e = (x);                                                                   \
    if (e != cudaSuccess) die(1, "%s: %s", #x, cudaGetErrorString(e));         \
  } while (0)
  CK(cudaMalloc(&da, cap * K * 8));
  CK(cudaMalloc(&db, cap * K * 8));
  CK(cudaMalloc(&dc, cap * 8));
  CK(cudaMalloc(&dd, cap * 8));
  for (size_t off = 0; off < n; off += cap) {
    size_t m = n - off < cap ? n - off : cap;
    CK(cudaMemcpy(da, a + off * K, m * K * 8, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(db, b + off * K, m * K * 8, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dc, c + off, m * 8, cudaMemcpyHostToDevice));
    CK(cudaMemset(dd, 0xff, m * 8));
    hw_job jb = {da, db, dc, dd, (int)m, K};
    char err[256] = {0};
    if (hw_run(ii, &jb, err, sizeof err) != 0)
      die(1, "kernel for %s failed: %s", INSTR[ii].qual, err);
    CK(cudaMemcpy(d + off, dd, m * 8, cudaMemcpyDeviceToHost));
  }
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
  cudaFree(dd);
#undef CK
}

/* ---- vector files --------------------------------------------------------- */

struct vecfile {
  std::string path;
  std::vector<std::string> lines;
  std::vector<int> kind;      /* 0 other (comment/blank), 1 vector */
  std::vector<size_t> dpos;   /* vector lines: where the d field starts */
  int instr = -1;
  int header_end = 0;         /* index of the first vector line (or lines.size()) */
  std::vector<uint64_t> a, b, c;
  size_t n = 0;
};

static std::string trim(const std::string &s) {
  size_t i = 0, j = s.size();
  while (i < j && isspace((unsigned char)s[i])) i++;
  while (j > i && isspace((unsigned char)s[j - 1])) j--;
  return s.substr(i, j - i);
}

/* "# key: value" -> key, value; false if the line has no key. */
static bool header_kv(const std::string &line, std::string &key, std::string &val) {
  if (line.empty() || line[0] != '#') return false;
  std::string s = trim(line.substr(1));
  size_t colon = s.find(':');
  if (colon == std::string::npos) return false;
  key = trim(s.substr(0, colon));
  val = trim(s.substr(colon + 1));
  for (char ch : key)
    if (!(isalnum((unsigned char)ch) || ch == '-' || ch == '_')) return false;
  return !key.empty();
}

static std::string field_name(int idx, int K) {
  char b[32];
  if (idx == 0) return "c";
  if (idx <= K) snprintf(b, sizeof b, "a[%d]", idx - 1);
  else if (idx <= 2 * K) snprintf(b, sizeof b, "b[%d]", idx - 1 - K);
  else return "d";
  return b;
}

static int hexval(char ch) {
  if (ch >= '0' && ch <= '9') return ch - '0';
  if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
  if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
  return -1;
}

static void read_vecfile(const char *path, vecfile &vf) {
  vf.path = path;
  FILE *f = fopen(path, "rb");
  if (!f) die(2, "%s: cannot open: %s", path, strerror(errno));
  std::string all;
  char buf[1 << 16];
  size_t got;
  while ((got = fread(buf, 1, sizeof buf, f)) > 0) all.append(buf, got);
  if (ferror(f)) die(2, "%s: read error: %s", path, strerror(errno));
  fclose(f);
  size_t p = 0;
  while (p < all.size()) {
    size_t q = all.find('\n', p);
    if (q == std::string::npos) q = all.size();
    std::string line = all.substr(p, q - p);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    vf.lines.push_back(line);
    p = q + 1;
  }

  bool magic = false, seen_vec = false;
  int K = 0;
  const instr_info *in = NULL;
  vf.header_end = (int)vf.lines.size();
  for (size_t li = 0; li < vf.lines.size(); li++) {
    const std::string &line = vf.lines[li];
    const int lineno = (int)li + 1;
    std::string t = trim(line);
    if (t.empty() || t[0] == '#') {
      vf.kind.push_back(0);
      vf.dpos.push_back(0);
      std::string key, val;
      if (t == "# mmavec 1" || t == "#mmavec 1") magic = true;
      else if (header_kv(t, key, val) && !seen_vec) {
        if (key == "instr") {
          std::string q = val;
          size_t colon = q.find(':');
          if (colon != std::string::npos) {
            std::string arch = q.substr(0, colon);
            if (arch != "hopper")
              die(2, "%s:%d: refused: instruction '%s' is for arch '%s'; this harness runs hopper (sm_90a) instructions",
                  path, lineno, val.c_str(), arch.c_str());
            q = q.substr(colon + 1);
          }
          vf.instr = find_instr(q.c_str());
          if (vf.instr < 0)
            die(2, "%s:%d: refused: unknown instruction '%s' (capture --list shows the supported ones)",
                path, lineno, val.c_str());
          in = &INSTR[vf.instr];
          K = in->K;
        } else if (key == "arch") {
          if (val != "hopper")
            die(2, "%s:%d: refused: arch '%s'; this harness runs hopper (sm_90a) instructions",
                path, lineno, val.c_str());
        }
      }
      continue;
    }
    /* a vector line */
    if (!seen_vec) {
      seen_vec = true;
      vf.header_end = (int)li;
      if (!magic) die(2, "%s:%d: not an mmavec file: no '# mmavec 1' line before the first vector", path, lineno);
      if (!in) die(2, "%s:%d: no '# instr:' line before the first vector", path, lineno);
      /* check k and fields now that the instruction is known */
      for (size_t hj = 0; hj < li; hj++) {
        std::string key, val;
        if (!header_kv(trim(vf.lines[hj]), key, val)) continue;
        if (key == "k" && atoi(val.c_str()) != K)
          die(2, "%s:%d: '# k: %s' but %s has K=%d", path, (int)hj + 1, val.c_str(), in->qual, K);
        if (key == "fields") {
          char want[96];
          snprintf(want, sizeof want, "c a[0..%d] b[0..%d] d", K - 1, K - 1);
          std::string norm;
          for (size_t x = 0; x < val.size(); x++) {
            if (isspace((unsigned char)val[x])) {
              if (!norm.empty() && norm.back() != ' ') norm += ' ';
            } else norm += val[x];
          }
          if (trim(norm) != want)
            die(2, "%s:%d: field list '%s' is not '%s' (what %s takes)", path, (int)hj + 1,
                val.c_str(), want, in->qual);
        }
      }
    }
    vf.kind.push_back(1);
    /* split fields */
    std::vector<std::pair<size_t, size_t>> tok;
    size_t x = 0;
    while (x < line.size()) {
      while (x < line.size() && isspace((unsigned char)line[x])) x++;
      if (x >= line.size()) break;
      size_t s = x;
      while (x < line.size() && !isspace((unsigned char)line[x])) x++;
      tok.push_back({s, x - s});
    }
    const int want = 2 * K + 2;
    if ((int)tok.size() != want)
      die(2, "%s:%d: %d fields, expected %d (c, %d a, %d b, d for %s)", path, lineno,
          (int)tok.size(), want, K, K, in->qual);
    vf.dpos.push_back(tok[want - 1].first);
    for (int fi = 0; fi < want; fi++) {
      int fmt = fi == 0 || fi == want - 1 ? in->dt : fi <= K ? in->at : in->bt;
      const int w = FMT[fmt].hexw;
      std::string s = line.substr(tok[fi].first, tok[fi].second);
      if ((int)s.size() != w)
        die(2, "%s:%d: field %d (%s): '%s' has %d hex digits, %s needs %d", path, lineno, fi + 1,
            field_name(fi, K).c_str(), s.c_str(), (int)s.size(), FMT[fmt].name, w);
      uint64_t v = 0;
      for (char ch : s) {
        int h = hexval(ch);
        if (h < 0)
          die(2, "%s:%d: field %d (%s): '%s' is not hexadecimal", path, lineno, fi + 1,
              field_name(fi, K).c_str(), s.c_str());
        v = (v << 4) | (uint64_t)h;
      }
      if (fi == 0) vf.c.push_back(v);
      else if (fi <= K) vf.a.push_back(v);
      else if (fi <= 2 * K) vf.b.push_back(v);
      /* d: ignored, replaced */
    }
    vf.n++;
  }
  if (!magic) die(2, "%s: not an mmavec file: no '# mmavec 1' line", path);
  if (!in) die(2, "%s: no '# instr:' line", path);
}

static std::string utc_now(void) {
  time_t t = time(NULL);
  struct tm tm;
  gmtime_r(&t, &tm);
  char b[64];
  strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return b;
}

static void write_atomic(const char *path, const std::string &data) {
  std::string dir = ".";
  const char *slash = strrchr(path, '/');
  if (slash) dir = std::string(path, slash - path + (slash == path ? 1 : 0));
  std::string tmpl = std::string(path) + ".tmp.XXXXXX";
  std::vector<char> tn(tmpl.begin(), tmpl.end());
  tn.push_back(0);
  int fd = mkstemp(tn.data());
  if (fd < 0) die(1, "%s: cannot create temporary file: %s", path, strerror(errno));
  size_t off = 0;
  while (off < data.size()) {
    ssize_t w = write(fd, data.data() + off, data.size() - off);
    if (w < 0) {
      if (errno == EINTR) continue;
      int er = errno;
      close(fd);
      unlink(tn.data());
      die(1, "%s: write failed: %s", tn.data(), strerror(er));
    }
    off += (size_t)w;
  }
  fchmod(fd, 0644);
  if (fsync(fd) != 0 || close(fd) != 0) {
    int er = errno;
    unlink(tn.data());
    die(1, "%s: write failed: %s", tn.data(), strerror(er));
  }
  if (rename(tn.data(), path) != 0) {
    int er = errno;
    unlink(tn.data());
    die(1, "%s: rename failed: %s", path, strerror(er));
  }
  (void)dir;
}

static void hex(std::string &out, uint64_t v, int w) {
  static const char *H = "0123456789abcdef";
  for (int i = w - 1; i >= 0; i--) out += H[(v >> (4 * i)) & 15];
}

static int do_capture(const char *in, const char *out, bool dry) {
  attach_sass();
  vecfile vf;
  read_vecfile(in, vf);
  const instr_info &I = INSTR[vf.instr];
  if (dry) {
    printf("capture: %s: %zu vectors, hopper:%s, valid\n", in, vf.n, I.qual);
    return 0;
  }
  gpu_info g = open_gpu();
  std::vector<uint64_t> d(vf.n, 0);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  gpu_run(vf.instr, vf.a.data(), vf.b.data(), vf.c.data(), d.data(), vf.n);
  clock_gettime(CLOCK_MONOTONIC, &t1);

  /* Header lines named sass/source/captured in the input are kept as
   * input-sass/input-source/input-captured; ours go after the header. */
  std::vector<std::string> ol;
  ol.reserve(vf.lines.size() + 3);
  int last_hdr = 0;
  for (int li = 0; li < vf.header_end; li++)
    if (!trim(vf.lines[li]).empty()) last_hdr = li;
  size_t vi = 0;
  const int w = FMT[I.dt].hexw;
  for (size_t li = 0; li < vf.lines.size(); li++) {
    const std::string &line = vf.lines[li];
    std::string key, val;
    if (vf.kind[li] == 1) {
      std::string x = line.substr(0, vf.dpos[li]);
      hex(x, d[vi++], w);
      ol.push_back(x);
    } else if ((int)li < vf.header_end && header_kv(trim(line), key, val) &&
               (key == "sass" || key == "source" || key == "captured")) {
      ol.push_back("# input-" + key + ": " + val);
    } else {
      ol.push_back(line);
    }
    if ((int)li == last_hdr) {
      ol.push_back(std::string("# sass: ") + I.sass);
      ol.push_back("# source: hw " + g.slug + " (" + g.name + ", driver " + g.driver + ", CUDA " + g.cuda + ")");
      ol.push_back("# captured: " + utc_now());
    }
  }
  std::string o;
  o.reserve(vf.lines.size() * 64 + 1024);
  for (const std::string &x : ol) {
    o += x;
    o += '\n';
  }
  write_atomic(out, o);
  double s = (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec);
  printf("capture: %s -> %s: %zu vectors, hopper:%s, sass %s, %.3f s on %s\n", in, out, vf.n,
         I.qual, I.sass, s, g.name.c_str());
  return 0;
}

/* ---- self-test ------------------------------------------------------------ */

/* Exact encoding of a value known to be representable (self-test only). */
static uint64_t enc(int fmt, double x) {
  const fmt_info &F = FMT[fmt];
  if (x == 0) return 0;
  uint64_t sign = x < 0 ? 1 : 0;
  x = fabs(x);
  int e;
  double m = frexp(x, &e); /* x = m 2^e, m in [0.5,1) */
  int E = e - 1;
  uint64_t biased, frac;
  const int emin = 1 - F.bias;
  if (E >= emin) {
    biased = (uint64_t)(E + F.bias);
    double fr = ldexp(2 * m - 1, F.fbits);
    frac = (uint64_t)fr;
    if ((double)frac != fr) goto inexact;
  } else {
    biased = 0;
    double fr = ldexp(x, F.fbits - emin);
    frac = (uint64_t)fr;
    if ((double)frac != fr) goto inexact;
  }
  if (fmt == HW_E4M3 ? (biased > 15 || (biased == 15 && frac == 7))
                    : biased >= (1u << F.ebits) - 1)
    goto inexact;
  {
    int total = F.ebits + F.fbits + 1;
    uint64_t v = (sign << (total - 1)) | (biased << F.fbits) | frac;
    return v;
  }
inexact:
  fprintf(stderr, "capture: self-test bug: %g not exact in %s\n", x, F.name);
  exit(1);
}

static double dec(int fmt, uint64_t v) {
  const fmt_info &F = FMT[fmt];
  int total = F.ebits + F.fbits + 1;
  int s = (int)((v >> (total - 1)) & 1);
  uint64_t E = (v >> F.fbits) & ((1ull << F.ebits) - 1);
  uint64_t fr = v & ((1ull << F.fbits) - 1);
  double r;
  if (E == (1ull << F.ebits) - 1 && fmt != HW_E4M3) r = fr ? NAN : INFINITY;
  else if (fmt == HW_E4M3 && E == 15 && fr == 7) r = NAN;
  else if (E == 0) r = ldexp((double)fr, 1 - F.bias - F.fbits);
  else r = ldexp((double)(fr | (1ull << F.fbits)), (int)E - F.bias - F.fbits);
  return s ? -r : r;
}

static uint32_t lcg_state = 12345;
static int rnd(int lo, int hi) { /* inclusive */
  lcg_state = lcg_state * 1664525u + 1013904223u;
  return lo + (int)((lcg_state >> 8) % (uint32_t)(hi - lo + 1));
}

/* distinct values for k-slot tests: (1 + (m%4)/4) * 2^(m/4), m = 0..31 */
static double slotval(int m) { return (1.0 + (m & 3) / 4.0) * ldexp(1.0, m >> 2); }

static const char *KINDNAME[] = {"random small integers", "one-hot b (k-slots of a)",
                                 "one-hot a (k-slots of b)", "sparse small integers"};

static int selftest_one(int ii, bool verbose) {
  const instr_info &I = INSTR[ii];
  const int K = I.K;
  const int n = 8 * 24 + 5; /* a partial last group too */
  std::vector<uint64_t> a((size_t)n * K), b((size_t)n * K), c(n), d(n);
  std::vector<double> expect(n);
  std::vector<int> kind(n), hot(n);
  lcg_state = 12345u + 7919u * (uint32_t)ii;
  for (int v = 0; v < n; v++) {
    std::vector<double> av(K, 0.0), bv(K, 0.0);
    double cv = 0;
    int kd = v % 4;
    /* vectors of one group get different kinds and slots */
    kind[v] = kd;
    hot[v] = -1;
    if (kd == 0 || kd == 3) {
      for (int k = 0; k < K; k++) {
        if (kd == 0) {
          av[k] = rnd(-4, 4);
          bv[k] = rnd(-4, 4);
        } else {
          av[k] = rnd(0, 1) ? rnd(-2, 2) : 0;
          bv[k] = rnd(0, 1) ? rnd(-2, 2) : 0;
        }
      }
      cv = rnd(-64, 64);
    } else {
      int h = (v * 7 + v / 4) % K;
      hot[v] = h;
      double hv = ldexp(1.0, v % 3) * ((v / 2) % 2 ? -1 : 1);
      for (int k = 0; k < K; k++) {
        if (kd == 1) {
          av[k] = slotval((k + 5 * v) % 32);
          bv[k] = k == h ? hv : 0;
        } else {
          bv[k] = slotval((k + 3 * v) % 32);
          av[k] = k == h ? hv : 0;
        }
      }
      cv = (v % 13) - 6;
    }
    double s = cv;
    for (int k = 0; k < K; k++) {
      a[(size_t)v * K + k] = enc(I.at, av[k]);
      b[(size_t)v * K + k] = enc(I.bt, bv[k]);
      s += av[k] * bv[k]; /* exact: small integers and few-bit values */
    }
    c[v] = enc(I.dt, cv);
    expect[v] = s;
  }
  gpu_run(ii, a.data(), b.data(), c.data(), d.data(), n);
  int bad = 0;
  for (int v = 0; v < n; v++) {
    uint64_t want = enc(I.dt, expect[v]);
    double got = dec(I.dt, d[v]);
    bool ok = d[v] == want || (expect[v] == 0 && got == 0);
    if (!ok) {
      if (bad < 4 || verbose) {
        printf("       vector %d (group %d, row %d, %s", v, v / 8, v % 8, KINDNAME[kind[v]]);
        if (hot[v] >= 0) printf(", hot k=%d", hot[v]);
        printf("): expected %.17g, got %.17g (0x%llx)", expect[v], got, (unsigned long long)d[v]);
        if (kind[v] == 1 || kind[v] == 2) {
          /* which k slot (of this vector) does the result match? */
          double hv = ldexp(1.0, v % 3) * ((v / 2) % 2 ? -1 : 1);
          double cv = (v % 13) - 6;
          for (int k = 0; k < K; k++) {
            int m = kind[v] == 1 ? (k + 5 * v) % 32 : (k + 3 * v) % 32;
            if (cv + slotval(m) * hv == got) printf(" [= slot k=%d]", k);
          }
        }
        printf("\n");
      }
      bad++;
    }
  }
  printf("%s hopper:%-34s %-40s %d vectors", bad ? "FAIL" : "OK  ", I.qual, I.sass, n);
  if (bad) printf(", %d wrong", bad);
  printf("\n");
  fflush(stdout);
  return bad ? 1 : 0;
}

static int do_selftest(bool verbose) {
  attach_sass();
  gpu_info g = open_gpu();
  printf("self-test on %s (driver %s, CUDA %s)\n", g.name.c_str(), g.driver.c_str(), g.cuda.c_str());
  int fails = 0;
  for (int i = 0; i < NINSTR; i++) fails += selftest_one(i, verbose);
  printf("self-test: %d of %d instructions OK\n", NINSTR - fails, NINSTR);
  return fails ? 1 : 0;
}

static void usage(FILE *f) {
  fprintf(f,
          "usage: capture IN.vec OUT.vec     run IN's vectors on the GPU, write OUT\n"
          "       capture --dry-run IN.vec   validate IN only\n"
          "       capture --selftest [-v]    exact-result test of every instruction\n"
          "       capture --list             supported instructions and their SASS\n");
}

int main(int argc, char **argv) {
  if (hw_instr_count() != NINSTR) die(1, "internal: kernel table size mismatch");
  if (argc >= 2 && strcmp(argv[1], "--selftest") == 0)
    return do_selftest(argc >= 3 && strcmp(argv[2], "-v") == 0);
  if (argc == 2 && strcmp(argv[1], "--list") == 0) {
    attach_sass();
    for (int i = 0; i < NINSTR; i++)
      printf("hopper:%-34s K=%-2d a=%-4s b=%-4s c/d=%-4s sass: %s\n", INSTR[i].qual, INSTR[i].K,
             FMT[INSTR[i].at].name, FMT[INSTR[i].bt].name, FMT[INSTR[i].dt].name, INSTR[i].sass);
    return 0;
  }
  if (argc == 3 && strcmp(argv[1], "--dry-run") == 0) return do_capture(argv[2], NULL, true);
  if (argc == 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
    usage(stdout);
    return 0;
  }
  if (argc != 3 || argv[1][0] == '-') {
    usage(stderr);
    return 2;
  }
  return do_capture(argv[1], argv[2], false);
}
