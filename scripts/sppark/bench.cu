// bench.cu: supranational/sppark's MSM and NTT, timed on the inputs that
// prooflane's `cudabench -dump DIR` wrote and checked against the results
// it printed. This is our code; it includes sppark's and blst's headers
// and is built outside the repository, from their sources, by
// scripts/sppark-build.sh (nothing of theirs is in the repository), once
// a curve: -DFEATURE_BLS12_381 or -DFEATURE_BN254 (sppark's own switch)
// picks the curve's field types, and cudabench's `curve` line must name
// the same curve.
//
//   sppark-bench DUMP RESULTS [REPS]
//   sppark-bench --selftest DUMP RESULTS   (host only, no GPU: see main)
//
// DUMP holds cudabench's files, each read only if present:
//
//   gN-L.points   2^L affine points (BLS12-381 G1: 96 bytes, G2: 192;
//                 BN254 64 and 128), gnark-crypto's
//                 memory layout: X then Y (G2: c0 then c1 each), Montgomery
//                 form, 64-bit little-endian limbs; infinity is all zero.
//                 That is sppark's Affine_t over blst's fp_t / fp2_t byte
//                 for byte, infinity included (Affine_t takes (0, 0) for
//                 it; no flag, so not Affine_inf_t).
//   gN-L.scalars  2^L scalars, 32 bytes each, canonical little-endian.
//   ntt-L.in      2^L Fr elements, Montgomery form (sppark's fr_t too).
//   ntt-L.out     prooflane's forward DIF NTT of ntt-L.in: natural order in,
//                 bit-reversed order out.
//
// RESULTS is cudabench's standard output; its `curve NAME` line the
// dump's curve (bls12-381 or bn254; none: bls12-381), its `result gN N X
// Y` lines give the MSMs' affine points (canonical big-endian hex, G2's x
// and y as c0 then c1) and its `omega N W` lines the NTT domains'
// generators.
//
// Each input is timed as cudabench times prooflane: inputs resident on
// the device (MSM: the points loaded once by msm_t's constructor, the
// scalars in device memory, Montgomery form as prooflane's are; NTT: the
// vector in device memory), a warm-up, then the median of REPS (default
// 5) runs, wall clock around the call until the point is on the host
// (MSM) or the stream is synchronized (NTT). Then one markdown row to
// standard output:
//
//   | op | size | sppark | check | note |
//
// check is MATCH or MISMATCH: the MSM's point against cudabench's result
// line; the forward DIF NTT's output against ntt-L.out element by element,
// against a direct evaluation sum_j x_j w^(jk) with sppark's own w at a
// handful of indices (on the host, blst's fr_t), and sppark's w against
// cudabench's; the other NTT orders (forward DIT, inverse DIF and DIT)
// against ntt-L.in / ntt-L.out permuted. The exit status is 0 when
// every row matched, 1 otherwise.
//
// --selftest checks, for sizes up to 2^12 and on the host alone, what the
// timed checks rely on: that sppark's host types read the dump as
// cudabench meant it. Every point is on the curve and sum s_i P_i, by
// double-and-add with sppark's host point operations, is the result line;
// each NTT order's expected output is the direct transform of its input
// with sppark's roots of unity (and 1/n for the inverse).

#include <cuda.h>

#if defined(FEATURE_BN254)
# include <ff/alt_bn128-fp2.hpp>
# define CURVE_NAME "bn254"
#elif defined(FEATURE_BLS12_381)
# include <ff/bls12-381-fp2.hpp>
# define CURVE_NAME "bls12-381"
#else
# error "build with -DFEATURE_BLS12_381 or -DFEATURE_BN254"
#endif

#include <ec/jacobian_t.hpp>
#include <ec/xyzz_t.hpp>

typedef jacobian_t<fp_t> g1_point_t;
typedef xyzz_t<fp_t> g1_bucket_t;
typedef g1_bucket_t::affine_t g1_affine_t;

typedef jacobian_t<fp2_t> g2_point_t;
typedef xyzz_t<fp2_t> g2_bucket_t;
typedef g2_bucket_t::affine_t g2_affine_t;

typedef fr_t scalar_t;

// Two curves in one file: the kernels are instantiated by msm_t's use of
// them (msm_times below), not by pippenger.cuh's list (one bucket_t).
#define SPPARK_DONT_INSTANTIATE_TEMPLATES
#include <msm/pippenger.cuh>
#include <ntt/ntt.cuh>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <thread>
#include <vector>

// ---- sppark's calls ----
//
// nvcc reads this part in both of its passes: the device pass must see
// msm_t's methods instantiated to compile the kernels they launch. So it
// touches sppark's types only through sppark's own calls; everything that
// needs blst's host field types is below, in host code only.

double since_ms(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double, std::milli>(
        std::chrono::steady_clock::now() - t0).count();
}

// msm_times loads n points onto the device once (msm_t's constructor:
// they stay resident), copies n scalars (Montgomery form) into device
// memory, then calls msm_t::invoke on both device-resident inputs 1 +
// reps times: out[i] receives call i's point, ms[i] its wall time until
// the point is on the host (call 0 is the warm-up). It returns the error,
// empty when none.
template<class bucket_t, class point_t, class affine_t>
std::string msm_times(const void* points, const scalar_t* scalars, size_t n,
                      int reps, point_t* out, double* ms)
{
    try {
        msm_t<bucket_t, point_t, affine_t, scalar_t> msm(
            static_cast<const affine_t*>(points), n, sizeof(affine_t), 0);
        dev_ptr_t<scalar_t> d_scalars{n};
        CUDA_OK(cudaMemcpy((scalar_t*)d_scalars, scalars, n * sizeof(scalar_t),
                           cudaMemcpyHostToDevice));
        // Both copies are from pageable memory: they may still be under way
        // when the calls return, and msm_t's streams do not wait for the
        // default stream (cudaStreamNonBlocking).
        CUDA_OK(cudaDeviceSynchronize());
        for (int i = 0; i <= reps; i++) {
            // A null host pointer for the points: msm_t's own. A dev_ptr_t
            // for the scalars: invoke takes it as device memory (not copied).
            auto t0 = std::chrono::steady_clock::now();
            RustError e = msm.invoke(out[i], (const affine_t*)nullptr, n, d_scalars,
                                     true, sizeof(affine_t));
            ms[i] = since_ms(t0);
            if (e.code != 0) {
                std::string m = e.message ? e.message : "";
                free(e.message);
                return "msm_t::invoke: " + m + " (" + std::to_string(e.code) + ")";
            }
        }
    } catch (const std::exception& e) {
        return e.what();
    }
    return "";
}

template std::string msm_times<g1_bucket_t, g1_point_t, g1_affine_t>(
    const void*, const scalar_t*, size_t, int, g1_point_t*, double*);
template std::string msm_times<g2_bucket_t, g2_point_t, g2_affine_t>(
    const void*, const scalar_t*, size_t, int, g2_point_t*, double*);

// ntt_times copies the 2^lg elements of inout into device memory, runs the
// NTT there in place 1 + reps times (ms[i]: call i's wall time until the
// stream is synchronized; call 0, the warm-up, builds the twiddles), then
// copies inout in again, runs it once more and copies the result back into
// inout. It returns the error, empty when none.
std::string ntt_times(fr_t* inout, int lg, NTT::InputOutputOrder order,
                      NTT::Direction dir, int reps, double* ms)
{
    try {
        const gpu_t& gpu = select_gpu(0);
        stream_t& st = gpu[0];
        const size_t bytes = sizeof(fr_t) << lg;
        dev_ptr_t<fr_t> d{(size_t)1 << lg};
        auto run = [&]() {
            NTT::Base_dev_ptr(st, d, lg, order, dir, NTT::Type::standard);
            st.sync();
        };
        // the copy is done before st (non-blocking) reads d: see msm_times
        auto upload = [&]() {
            CUDA_OK(cudaMemcpy((fr_t*)d, inout, bytes, cudaMemcpyHostToDevice));
            CUDA_OK(cudaDeviceSynchronize());
        };
        upload();
        for (int i = 0; i <= reps; i++) {
            auto t0 = std::chrono::steady_clock::now();
            run();
            ms[i] = since_ms(t0);
        }
        upload();
        run();
        CUDA_OK(cudaMemcpy(inout, (fr_t*)d, bytes, cudaMemcpyDeviceToHost));
    } catch (const std::exception& e) {
        return e.what();
    }
    return "";
}

#ifndef __CUDA_ARCH__ // ---- the rest: host code only ----

namespace {

const int max_lg = 26; // largest size read (2^26 G2 points: 12.9 GB)

// ---- files ----

// read_whole reads path into out when it exists and holds exactly want
// bytes; a missing file is false, a file of another size an error.
bool read_whole(const std::string& path, size_t want, std::vector<uint8_t>& out)
{
    struct stat st;
    if (stat(path.c_str(), &st) != 0)
        return false;
    if ((size_t)st.st_size != want)
        throw std::runtime_error(path + ": " + std::to_string(st.st_size) +
                                 " bytes, want " + std::to_string(want));
    out.resize(want);
    std::ifstream f(path, std::ios::binary);
    if (!f.read(reinterpret_cast<char*>(out.data()), want))
        throw std::runtime_error(path + ": short read");
    return true;
}

bool exists(const std::string& path)
{
    struct stat st;
    return stat(path.c_str(), &st) == 0;
}

// What cudabench printed: the dump's curve, MSM results by "gN N", NTT
// generators by N.
struct expected_t {
    std::string curve = "bls12-381"; // dumps written before the line
    std::map<std::string, std::pair<std::string, std::string>> msm;
    std::map<size_t, std::string> omega;
};

expected_t read_results(const std::string& path)
{
    std::ifstream f(path);
    if (!f)
        throw std::runtime_error(path + ": cannot open");
    expected_t e;
    std::string line;
    while (std::getline(f, line)) {
        std::istringstream in(line);
        std::string word, group, x, y;
        size_t n;
        in >> word;
        if (word == "curve" && in >> x)
            e.curve = x;
        else if (word == "result" && in >> group >> n >> x >> y)
            e.msm[group + " " + std::to_string(n)] = {x, y};
        else if (word == "omega" && in >> n >> x)
            e.omega[n] = x;
    }
    return e;
}

// ---- printing ----

// fmt_ms prints as cudabench's fmtD does.
std::string fmt_ms(double ms)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, ms < 10 ? "%.3f ms" : "%.1f ms", ms);
    return buf;
}

struct row_t {
    std::string op;
    int lg;
    double ms = 0;     // 0: not timed
    bool match = false;
    std::string note;  // with match false: what failed
};

bool all_matched = true;

void print_row(const row_t& r)
{
    all_matched &= r.match;
    std::printf("| %s | 2^%d | %s | %s | %s |\n", r.op.c_str(), r.lg,
                r.ms > 0 ? fmt_ms(r.ms).c_str() : "-",
                r.match ? "MATCH" : "MISMATCH", r.note.c_str());
    std::fflush(stdout);
}

// hex_be is n little-endian 64-bit limbs as big-endian hex.
std::string hex_be(const limb_t* l, size_t n)
{
    static_assert(sizeof(limb_t) == 8, "64-bit limbs");
    std::string s;
    char buf[17];
    for (size_t i = n; i--;) {
        std::snprintf(buf, sizeof buf, "%016llx", (unsigned long long)l[i]);
        s += buf;
    }
    return s;
}

const size_t fp_limbs = sizeof(fp_t) / sizeof(limb_t); // 6 on BLS12-381, 4 on BN254

std::string canonical_hex(fp_t v)
{
    limb_t l[fp_limbs];
    v.from();
    v.store(l);
    return hex_be(l, fp_limbs);
}

std::string canonical_hex(fp2_t v) // c0 then c1, as cudabench prints G2
{
    limb_t l[2 * fp_limbs];
    v.from();
    v.store(l);
    return hex_be(l, fp_limbs) + hex_be(l + fp_limbs, fp_limbs);
}

std::string canonical_hex(fr_t v)
{
    limb_t l[4];
    v.from();
    v.store(l);
    return hex_be(l, 4);
}

// ---- timing ----

// median of ms[1..reps] (ms[0] is the warm-up)
double median(const double* ms, int reps)
{
    std::vector<double> ts(ms + 1, ms + 1 + reps);
    std::sort(ts.begin(), ts.end());
    return ts[ts.size() / 2];
}

// ---- MSM ----

// Affine_t keeps X and Y private; this is its layout, to read them.
template<class field_t> struct xy_t {
    field_t X, Y;
};

template<class affine_t, class field_t> xy_t<field_t> coordinates(const affine_t& a)
{
    static_assert(sizeof(a) == sizeof(xy_t<field_t>), "Affine_t is X then Y");
    xy_t<field_t> xy;
    std::memcpy(&xy, &a, sizeof xy);
    return xy;
}

// affine_hex is p's affine coordinates, canonical big-endian hex, (0, 0)
// at infinity as gnark-crypto's FromJacobian gives.
template<class point_t, class field_t>
void affine_hex(const point_t& p, std::string& x, std::string& y)
{
    xy_t<field_t> xy;
    if (p.is_inf()) {
        xy.X.zero();
        xy.Y.zero();
    } else {
        typename point_t::affine_t a = p; // X/Z^2, Y/Z^3
        xy = coordinates<typename point_t::affine_t, field_t>(a);
    }
    x = canonical_hex(xy.X);
    y = canonical_hex(xy.Y);
}

// window is the window msm_t's constructor picks for n points (a copy
// of its rule, for the note only).
int window(size_t n)
{
    auto lg2 = [](size_t v) { int r = 0; while (v >>= 1) r++; return r; };
    n = (n + WARP_SZ - 1) & ~(size_t)(WARP_SZ - 1);
    if (n <= 192)
        return 10;
    return std::max(10, std::min(lg2(n + n / 2) - 8, 18));
}

// curve_b is b of y^2 = x^3 + b: on BLS12-381 4 on G1, 4(1 + i) on G2;
// on BN254 3 on G1, 3/(9 + i) on G2 (the D-twist).
#if defined(FEATURE_BN254)
fp_t curve_b(fp_t) { return fp_t(3); }
fp2_t curve_b(fp2_t) { return fp2_t(3) * fp2_t(9, 1).reciprocal(); }
#else
fp_t curve_b(fp_t) { return fp_t(4); }
fp2_t curve_b(fp2_t) { return fp2_t(4, 4); }
#endif

// host_msm is sum s_i P_i by double-and-add over the scalars' bits
// (Montgomery form in, converted back; r < 2^255 on both curves), with
// sppark's host point operations; for --selftest.
template<class point_t, class affine_t>
point_t host_msm(const affine_t* points, const std::vector<scalar_t>& mont)
{
    const size_t n = mont.size();
    std::vector<limb_t> bits(4 * n);
    for (size_t i = 0; i < n; i++) {
        scalar_t s = mont[i];
        s.from();
        s.store(&bits[4 * i]);
    }
    point_t acc;
    acc.inf();
    for (int bit = 254; bit >= 0; bit--) {
        acc.dbl();
        for (size_t i = 0; i < n; i++)
            if ((bits[4 * i + bit / 64] >> (bit % 64)) & 1)
                acc.add(points[i]);
    }
    return acc;
}

const int selftest_max_lg = 12;

// msm_row times sppark's MSM on gN-L (or, with selftest, checks it on the
// host with host_msm) and prints its row; nothing when gN-L.points is absent.
template<class bucket_t, class point_t, class affine_t, class field_t>
void msm_row(const std::string& dump, const expected_t& want, const char* group,
             const char* op, int lg, int reps, bool selftest)
{
    const size_t n = (size_t)1 << lg;
    const std::string base = dump + "/" + group + "-" + std::to_string(lg);
    if (!exists(base + ".points") || (selftest && lg > selftest_max_lg))
        return;
    row_t r{op, lg};
    try {
        std::vector<uint8_t> points, raw;
        if (!read_whole(base + ".points", n * sizeof(affine_t), points))
            throw std::runtime_error(base + ".points vanished");
        if (!read_whole(base + ".scalars", n * 32, raw))
            throw std::runtime_error(base + ".scalars is missing");
        const affine_t* pts = reinterpret_cast<const affine_t*>(points.data());
        std::vector<scalar_t> sc(n);
        for (size_t i = 0; i < n; i++) {
            std::memcpy(&sc[i], &raw[32 * i], 32); // 64-bit limbs, little-endian
            sc[i].to();                            // Montgomery form, as prooflane's device scalars
        }
        raw = {};

        std::vector<point_t> out(reps + 1);
        if (selftest) {
            const field_t b = curve_b(field_t{});
            size_t off = 0;
            for (size_t i = 0; i < n; i++) {
                auto p = coordinates<affine_t, field_t>(pts[i]);
                if (!pts[i].is_inf() && !(p.Y * p.Y == p.X * p.X * p.X + b))
                    off++;
            }
            if (off)
                throw std::runtime_error(std::to_string(off) + " of " + std::to_string(n) +
                                         " points are off the curve");
            out.assign(reps + 1, host_msm<point_t>(pts, sc));
            r.note = "host: points on the curve, double-and-add; ";
        } else {
            std::vector<double> ms(reps + 1);
            std::string err = msm_times<bucket_t, point_t, affine_t>(
                points.data(), sc.data(), n, reps, out.data(), ms.data());
            if (!err.empty())
                throw std::runtime_error(err);
            r.ms = median(ms.data(), reps);
        }

        std::string x, y;
        affine_hex<point_t, field_t>(out[0], x, y);
        bool same = true;
        for (int i = 1; i <= reps; i++) {
            std::string xi, yi;
            affine_hex<point_t, field_t>(out[i], xi, yi);
            same &= xi == x && yi == y;
        }
        auto it = want.msm.find(std::string(group) + " " + std::to_string(n));
        r.note += "c=" + std::to_string(window(n));
        if (it == want.msm.end()) {
            r.note += "; no `result " + std::string(group) + " " +
                      std::to_string(n) + "` line from cudabench";
        } else if (!same) {
            r.note += "; the runs' points differ";
        } else if (x != it->second.first || y != it->second.second) {
            r.note += "; got x " + x + " y " + y;
        } else {
            r.match = true;
        }
    } catch (const std::exception& e) {
        r.note = std::string("error: ") + e.what();
    }
    print_row(r);
}

// ---- NTT ----

uint32_t bit_reverse(uint32_t i, int lg)
{
    uint32_t r = 0;
    for (int b = 0; b < lg; b++, i >>= 1)
        r = (r << 1) | (i & 1);
    return r;
}

std::vector<fr_t> bit_reversed(const std::vector<fr_t>& v, int lg)
{
    std::vector<fr_t> out(v.size());
    for (size_t i = 0; i < v.size(); i++)
        out[bit_reverse(i, lg)] = v[i];
    return out;
}

bool same_value(fr_t a, fr_t b)
{
    return a.from() == b.from(); // canonical: equal even if one is not fully reduced
}

fr_t power(fr_t b, uint64_t e)
{
    fr_t r = fr_t::one();
    for (; e; e >>= 1) {
        if (e & 1)
            r = r * b;
        b = b * b;
    }
    return r;
}

// horner is sum_j a_j z^j.
fr_t horner(const std::vector<fr_t>& a, fr_t z)
{
    fr_t acc;
    acc.zero();
    for (size_t j = a.size(); j--;)
        acc = acc * z + a[j];
    return acc;
}

// compare says where got differs from want (empty: nowhere).
std::string compare(const std::vector<fr_t>& got, const std::vector<fr_t>& want)
{
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < got.size(); i++)
        if (std::memcmp(&got[i], &want[i], sizeof(fr_t)) != 0 &&
            !same_value(got[i], want[i]) && bad++ == 0)
            first = i;
    if (bad == 0)
        return "";
    return std::to_string(bad) + " of " + std::to_string(got.size()) +
           " elements differ, the first at " + std::to_string(first);
}

std::string join(const std::vector<std::string>& v, const char* sep)
{
    std::string s;
    for (auto& e : v)
        s += (s.empty() ? "" : sep) + e;
    return s;
}

// direct_check evaluates the forward NTT of x directly at a few output
// positions of the bit-reversed result y, y[i] = sum_j x_j w^(j k) with
// k = bitrev(i), one thread a position. It returns the positions where y
// differs; checked says how many it tried.
std::vector<std::string> direct_check(const std::vector<fr_t>& x,
                                      const std::vector<fr_t>& y,
                                      fr_t w, int lg, size_t& checked)
{
    const size_t n = x.size();
    std::vector<size_t> at = {0, 1, n / 2, n - 1};
    for (uint64_t s = 0x9e3779b97f4a7c15ull, k = 0; k < 4; k++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        at.push_back((s >> 33) % n);
    }
    std::vector<char> ok(at.size());
    std::vector<std::thread> th;
    for (size_t t = 0; t < at.size(); t++)
        th.emplace_back([&, t]() {
            ok[t] = same_value(horner(x, power(w, bit_reverse(at[t], lg))), y[at[t]]);
        });
    for (auto& t : th)
        t.join();
    checked = at.size();
    std::vector<std::string> bad;
    for (size_t t = 0; t < at.size(); t++)
        if (!ok[t])
            bad.push_back(std::to_string(at[t]));
    return bad;
}

// naive_ntt is the transform of a (natural order) in natural order,
// A_k = sum_j a_j w^(jk), with sppark's w for 2^lg and, for the inverse,
// its inverse root and 1/n; for --selftest.
std::vector<fr_t> naive_ntt(const std::vector<fr_t>& a, int lg, bool inverse)
{
    const fr_t w = inverse ? inverse_roots_of_unity[lg] : forward_roots_of_unity[lg];
    std::vector<fr_t> out(a.size());
    for (size_t k = 0; k < a.size(); k++) {
        out[k] = horner(a, power(w, k));
        if (inverse)
            out[k] = out[k] * domain_size_inverse[lg];
    }
    return out;
}

using order_t = NTT::InputOutputOrder;
using dir_t = NTT::Direction;

// An NTT to time, named as cudabench names prooflane's (gnark's DIF:
// natural order in, bit-reversed out; DIT: the reverse), with its input
// and the output it must give, both from ntt-L.in and ntt-L.out.
struct variant_t {
    const char* op;
    order_t order;
    dir_t dir;
    std::vector<fr_t> input, expect;
};

std::vector<variant_t> ntt_variants(const std::vector<fr_t>& in,
                                    const std::vector<fr_t>& out, int lg)
{
    // out is X (the transform, natural order) bit-reversed
    std::vector<fr_t> x_rev = bit_reversed(in, lg), X = bit_reversed(out, lg);
    return {
        {"ntt fwd DIF", order_t::NR, dir_t::forward, in, out},
        {"ntt fwd DIT", order_t::RN, dir_t::forward, x_rev, X},
        {"ntt inv DIF", order_t::NR, dir_t::inverse, X, x_rev},
        {"ntt inv DIT", order_t::RN, dir_t::inverse, out, in},
    };
}

// ntt_rows times sppark's NTT in each order on ntt-L (or, with selftest,
// checks each order's expected output against naive_ntt on the host) and
// prints their rows; nothing when ntt-L.in is absent.
void ntt_rows(const std::string& dump, const expected_t& want, int lg, int reps,
              bool selftest)
{
    const size_t n = (size_t)1 << lg;
    const std::string base = dump + "/ntt-" + std::to_string(lg);
    if (!exists(base + ".in") || (selftest && lg > selftest_max_lg))
        return;
    std::vector<fr_t> in(n), out(n);
    try {
        std::vector<uint8_t> raw;
        if (!read_whole(base + ".in", n * sizeof(fr_t), raw))
            throw std::runtime_error(base + ".in vanished");
        std::memcpy(in.data(), raw.data(), raw.size());
        if (!read_whole(base + ".out", n * sizeof(fr_t), raw))
            throw std::runtime_error(base + ".out is missing");
        std::memcpy(out.data(), raw.data(), raw.size());
    } catch (const std::exception& e) {
        print_row({"ntt fwd DIF", lg, 0, false, std::string("error: ") + e.what()});
        return;
    }

    for (auto& v : ntt_variants(in, out, lg)) {
        row_t r{v.op, lg};
        try {
            std::string bad;
            if (selftest) {
                // the orders as NTT_internal reads them: NR natural in,
                // bit-reversed out; RN the reverse
                bool in_rev = v.order == order_t::RN;
                auto A = naive_ntt(in_rev ? bit_reversed(v.input, lg) : v.input, lg,
                                   v.dir == dir_t::inverse);
                bad = compare(in_rev ? A : bit_reversed(A, lg), v.expect);
                r.note = "host: expected = direct transform of the input";
            } else {
                std::vector<fr_t> got = v.input;
                std::vector<double> ms(reps + 1);
                std::string err = ntt_times(got.data(), lg, v.order, v.dir, reps, ms.data());
                if (!err.empty())
                    throw std::runtime_error(err);
                r.ms = median(ms.data(), reps); // in place, as cudabench times prooflane's
                bad = compare(got, v.expect);
                if (bad.empty() && v.order == order_t::NR && v.dir == dir_t::forward) {
                    // independent of prooflane: sppark's own root of unity
                    size_t checked;
                    auto wrong = direct_check(in, got, forward_roots_of_unity[lg], lg, checked);
                    if (!wrong.empty())
                        bad = "equals ntt-" + std::to_string(lg) +
                              ".out, but the direct evaluation differs at " + join(wrong, ",");
                    else
                        r.note = std::to_string(checked) + " outputs evaluated directly";
                }
            }
            if (bad.empty() && v.order == order_t::NR && v.dir == dir_t::forward) {
                std::string w = canonical_hex(forward_roots_of_unity[lg]);
                auto it = want.omega.find(n);
                if (it == want.omega.end())
                    bad = "no `omega " + std::to_string(n) + "` line from cudabench";
                else if (it->second != w)
                    bad = "sppark's w " + w + " is not prooflane's " + it->second;
                else
                    r.note += "; w = prooflane's";
            }
            r.match = bad.empty();
            if (!r.match)
                r.note = bad;
        } catch (const std::exception& e) {
            r.note = std::string("error: ") + e.what();
        }
        print_row(r);
    }
}

} // namespace

int main(int argc, char* argv[])
{
    const bool selftest = argc > 1 && std::strcmp(argv[1], "--selftest") == 0;
    const int at = selftest ? 2 : 1;
    if (argc - at < 2 || argc - at > 3) {
        std::fprintf(stderr, "usage: %s [--selftest] DUMP RESULTS [REPS]\n", argv[0]);
        return 2;
    }
    const std::string dump = argv[at];
    const int reps = argc - at > 2 ? std::max(1, std::atoi(argv[at + 2])) : 5;
    try {
        const expected_t want = read_results(argv[at + 1]);
        if (want.curve != CURVE_NAME)
            throw std::runtime_error(std::string(argv[at + 1]) + " is cudabench's of " +
                                     want.curve + "; this harness is " CURVE_NAME "'s");
        if (selftest) {
            std::fprintf(stderr, "self-test on the host (sizes up to 2^%d)\n", selftest_max_lg);
        } else {
            const gpu_t& gpu = select_gpu(0);
            std::fprintf(stderr, "sppark (%s) on %s (%d SMs), median of %d after a warm-up\n",
                         CURVE_NAME, gpu.props().name, gpu.sm_count(), reps);
        }
        std::printf("| op | size | sppark | check | note |\n|---|---|---|---|---|\n");
        for (int lg = 1; lg <= max_lg && lg <= MAX_LG_DOMAIN_SIZE; lg++)
            ntt_rows(dump, want, lg, reps, selftest);
        for (int lg = 0; lg <= max_lg; lg++)
            msm_row<g1_bucket_t, g1_point_t, g1_affine_t, fp_t>(dump, want, "g1", "msm G1",
                                                                 lg, reps, selftest);
        for (int lg = 0; lg <= max_lg; lg++)
            msm_row<g2_bucket_t, g2_point_t, g2_affine_t, fp2_t>(dump, want, "g2", "msm G2",
                                                                  lg, reps, selftest);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench: %s\n", e.what());
        return 1;
    }
    return all_matched ? 0 : 1;
}

#endif // __CUDA_ARCH__
