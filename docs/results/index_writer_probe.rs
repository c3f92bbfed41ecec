//! Throwaway measurement program (not built by the crate; issue 20, 2026-11-26): the sphere test
//! over six 64-byte-aligned SoA columns in raw AVX-512, with one index-writer variant per arm,
//! each timed against the plain count in the same rounds (median of 101 rounds of 2,000 calls).
//! Every variant's hit count is asserted equal to the count's first. Build it as a binary crate
//! depending on `rand_xoshiro` and run `probe-wr <boxes> <sets> [variants,comma,separated] [offset]`.
//! Variants: 0 count; 1 compress + 64-byte store at the cursor; 2 `vpcompressd` to memory;
//! 3 masked store of the hit lanes; 4 four chunks' masks first; 5 one fixed slot; 7 hits gathered
//! in a register, aligned lines stored; 8 `prefetchw` ahead; 9 index vector carried; 12-14 the
//! cursor's slot in a 1/4/16 KB ring; 15-16 a chunk-indexed slot in a 1 KB ring (aligned, not);
//! 17 a slot from the chunk number; 18-21 windows of 64/16/256/8 masks, then the stores;
//! 22-25 vectors staged in a ring, copied out 8/4/12/2 chunks later; 26-28 windows staged, copied;
//! 29-30 software-pipelined windows of 4/8 (masks and packed indices, then the window before
//! stored: what the crate does for the sphere kernel); 31 pipelined with the compress delayed too.
//! 32-33 a table writer without `vpcompressd` (two 8-bit halves of the mask, positions from a
//! 256 x 8 u32 table, the base added, two 32-byte stores; 33 with the upper half's +8 in a second
//! table; added 2026-11-27 on the Intel Xeon, their indices asserted equal to variant 1's).
//! A fifth argument `box` swaps the sphere test for a box test (six compares into mask registers),
//! `boxm` for the same box test with the ANDs folded into masked compares (`vcmpps k{k}`); a sixth
//! sets the query's half size (default 0.5; the box query's half extent is its square).
//! Results: docs/benchmarks.md, "Limit rows".
#![allow(unsafe_op_in_unsafe_fn)]
use core::arch::x86_64::*;
use rand_xoshiro::Xoshiro256PlusPlus;
use rand_xoshiro::rand_core::{Rng, SeedableRng};
use std::hint::black_box;
use std::time::Instant;

#[repr(C, align(64))]
#[derive(Clone, Copy)]
struct L([f32; 16]);

struct Set { cols: [Vec<L>; 6], n: usize }

fn unit(r: &mut Xoshiro256PlusPlus) -> f32 { (r.next_u32() >> 8) as f32 / (1u32 << 24) as f32 }

static mut BOXQ: bool = false;
static mut BOXM: bool = false;
static mut TABLE: [[u32; 8]; 256] = [[0; 8]; 256];
static mut TABLE8: [[u32; 8]; 256] = [[0; 8]; 256];
#[inline(always)]
unsafe fn mask(s: &Set, c: usize, q: &[__m512; 4]) -> u16 {
    if BOXM {
        // the same box test with the ANDs folded into masked compares (vcmpps k{k})
        let mut k: u16 = 0xffff;
        for a in 0..3 {
            let lo = _mm512_load_ps(s.cols[a].as_ptr().add(c).cast());
            let hi = _mm512_load_ps(s.cols[a + 3].as_ptr().add(c).cast());
            let qlo = _mm512_sub_ps(q[a], q[3]);
            let qhi = _mm512_add_ps(q[a], q[3]);
            k = _mm512_mask_cmp_ps_mask::<_CMP_LE_OQ>(k, lo, qhi);
            k = _mm512_mask_cmp_ps_mask::<_CMP_LE_OQ>(k, qlo, hi);
        }
        return k;
    }
    if BOXQ {
        // box query [q - h, q + h] with h = q[3] (stored squared... use sqrt-free: h from q[3])
        let mut k: u16 = 0xffff;
        for a in 0..3 {
            let lo = _mm512_load_ps(s.cols[a].as_ptr().add(c).cast());
            let hi = _mm512_load_ps(s.cols[a + 3].as_ptr().add(c).cast());
            let qlo = _mm512_sub_ps(q[a], q[3]);
            let qhi = _mm512_add_ps(q[a], q[3]);
            k &= _mm512_cmp_ps_mask::<_CMP_LE_OQ>(lo, qhi) & _mm512_cmp_ps_mask::<_CMP_LE_OQ>(qlo, hi);
        }
        return k;
    }
    let mut d = _mm512_setzero_ps();
    for a in 0..3 {
        let lo = _mm512_load_ps(s.cols[a].as_ptr().add(c).cast());
        let hi = _mm512_load_ps(s.cols[a + 3].as_ptr().add(c).cast());
        let cl = _mm512_min_ps(_mm512_max_ps(q[a], lo), hi);
        let e = _mm512_sub_ps(q[a], cl);
        d = _mm512_add_ps(d, _mm512_mul_ps(e, e));
    }
    _mm512_cmp_ps_mask::<_CMP_LE_OQ>(d, q[3])
}

const PF: usize = 64;
#[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,popcnt,bmi2")]
unsafe fn run(s: &Set, qv: [f32; 4], out: *mut u32, variant: u32) -> usize {
    let q = [_mm512_set1_ps(qv[0]), _mm512_set1_ps(qv[1]), _mm512_set1_ps(qv[2]), _mm512_set1_ps(qv[3] * qv[3])];
    let chunks = s.n / 16;
    let iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    let mut cur = 0usize;
    match variant {
        0 => { for c in 0..chunks { cur += (mask(s, c, &q) as u32).count_ones() as usize; } }
        1 => { // compress reg + storeu
            for c in 0..chunks { let k = mask(s, c, &q);
                let idx = _mm512_add_epi32(iota, _mm512_set1_epi32((c * 16) as i32));
                _mm512_storeu_si512(out.add(cur).cast(), _mm512_maskz_compress_epi32(k, idx));
                cur += (k as u32).count_ones() as usize; } }
        2 => { // compress to memory
            for c in 0..chunks { let k = mask(s, c, &q);
                let idx = _mm512_add_epi32(iota, _mm512_set1_epi32((c * 16) as i32));
                _mm512_mask_compressstoreu_epi32(out.add(cur).cast(), k, idx);
                cur += (k as u32).count_ones() as usize; } }
        3 => { // compress reg + masked store
            for c in 0..chunks { let k = mask(s, c, &q);
                let n = (k as u32).count_ones();
                let idx = _mm512_add_epi32(iota, _mm512_set1_epi32((c * 16) as i32));
                let km = _bzhi_u32(0xffff, n) as u16;
                _mm512_mask_storeu_epi32(out.add(cur).cast(), km, _mm512_maskz_compress_epi32(k, idx));
                cur += n as usize; } }
        4 => { // four ahead
            let mut c = 0;
            while c + 4 <= chunks {
                let ks = [mask(s, c, &q), mask(s, c + 1, &q), mask(s, c + 2, &q), mask(s, c + 3, &q)];
                for j in 0..4 { let idx = _mm512_add_epi32(iota, _mm512_set1_epi32(((c + j) * 16) as i32));
                    _mm512_storeu_si512(out.add(cur).cast(), _mm512_maskz_compress_epi32(ks[j], idx));
                    cur += (ks[j] as u32).count_ones() as usize; }
                c += 4;
            } }
        5 => { // fixed slot
            for c in 0..chunks { let k = mask(s, c, &q);
                let idx = _mm512_add_epi32(iota, _mm512_set1_epi32((c * 16) as i32));
                _mm512_storeu_si512(out.cast(), _mm512_maskz_compress_epi32(k, idx));
                cur += (k as u32).count_ones() as usize; } }
        6 => { // 256-bit stores: low half always, high half at cur+8 always (two ymm stores)
            for c in 0..chunks { let k = mask(s, c, &q);
                let idx = _mm512_add_epi32(iota, _mm512_set1_epi32((c * 16) as i32));
                let p = _mm512_maskz_compress_epi32(k, idx);
                _mm256_storeu_si256(out.add(cur).cast(), _mm512_castsi512_si256(p));
                _mm256_storeu_si256(out.add(cur + 8).cast(), _mm512_extracti64x4_epi64::<1>(p));
                cur += (k as u32).count_ones() as usize; } }
        7 => { // register accumulate, aligned full stores (branchless)
            // pending holds p valid lanes; out assumed 64-aligned
            let mut pend = _mm512_setzero_si512(); let mut p = 0u32; let mut line = 0usize;
            for c in 0..chunks { let k = mask(s, c, &q);
                let n = (k as u32).count_ones();
                let idx = _mm512_add_epi32(iota, _mm512_set1_epi32((c * 16) as i32));
                let v = _mm512_maskz_compress_epi32(k, idx);
                // combined[i] = i < p ? pend[i] : v[i - p]
                let sel = _mm512_sub_epi32(iota, _mm512_set1_epi32(p as i32)); // i-p, negative below p
                let keep = _bzhi_u32(0xffff, p) as u16;
                let comb = _mm512_mask_permutexvar_epi32(pend, !keep, sel, v);
                _mm512_store_si512(out.add(line * 16).cast(), comb);
                // spill: v[i + 16 - p]
                let sp = _mm512_permutexvar_epi32(_mm512_add_epi32(iota, _mm512_set1_epi32(16 - p as i32)), v);
                let t = p + n; let full = t >= 16;
                pend = if full { sp } else { comb };
                line += full as usize; p = t & 15;
            }
            _mm512_store_si512(out.add(line * 16).cast(), pend);
            cur = line * 16 + p as usize; }
        8 => { // v1 + prefetchw ahead
            for c in 0..chunks { let k = mask(s, c, &q);
                core::arch::asm!("prefetchw [{}]", in(reg) out.add(cur + PF), options(nostack, preserves_flags, readonly));
                let idx = _mm512_add_epi32(iota, _mm512_set1_epi32((c * 16) as i32));
                _mm512_storeu_si512(out.add(cur).cast(), _mm512_maskz_compress_epi32(k, idx));
                cur += (k as u32).count_ones() as usize; } }
        9 => { // idx carried in a vector
            let mut idx = iota; let sixteen = _mm512_set1_epi32(16);
            for c in 0..chunks { let k = mask(s, c, &q);
                _mm512_storeu_si512(out.add(cur).cast(), _mm512_maskz_compress_epi32(k, idx));
                idx = _mm512_add_epi32(idx, sixteen);
                cur += (k as u32).count_ones() as usize; } }
        10 => { // 9 + prefetch t0
            let mut idx = iota; let sixteen = _mm512_set1_epi32(16);
            for c in 0..chunks { let k = mask(s, c, &q);
                _mm_prefetch::<_MM_HINT_T0>(out.add(cur + PF).cast());
                _mm512_storeu_si512(out.add(cur).cast(), _mm512_maskz_compress_epi32(k, idx));
                idx = _mm512_add_epi32(idx, sixteen);
                cur += (k as u32).count_ones() as usize; } }
        11 => { // 9 + prefetchw
            let mut idx = iota; let sixteen = _mm512_set1_epi32(16);
            for c in 0..chunks { let k = mask(s, c, &q);
                core::arch::asm!("prefetchw [{}]", in(reg) out.add(cur + PF), options(nostack, preserves_flags, readonly));
                _mm512_storeu_si512(out.add(cur).cast(), _mm512_maskz_compress_epi32(k, idx));
                idx = _mm512_add_epi32(idx, sixteen);
                cur += (k as u32).count_ones() as usize; } }
        12 | 13 | 14 => { // ring of 1 KB / 4 KB / 16 KB
            let ring = [256usize, 1024, 4096][(variant - 12) as usize] - 1;
            let mut idx = iota; let sixteen = _mm512_set1_epi32(16);
            for c in 0..chunks { let k = mask(s, c, &q);
                _mm512_storeu_si512(out.add(cur & ring).cast(), _mm512_maskz_compress_epi32(k, idx));
                idx = _mm512_add_epi32(idx, sixteen);
                cur += (k as u32).count_ones() as usize; } }
        15 | 16 => { // chunk-indexed ring slot (address known early): 15 aligned, 16 misaligned by 3 lanes
            let sh = if variant == 15 { 0 } else { 3 };
            let mut idx = iota; let sixteen = _mm512_set1_epi32(16);
            for c in 0..chunks { let k = mask(s, c, &q);
                _mm512_storeu_si512(out.add(((c * 16) & 255) + sh).cast(), _mm512_maskz_compress_epi32(k, idx));
                idx = _mm512_add_epi32(idx, sixteen);
                cur += (k as u32).count_ones() as usize; } }
        17 => { // cursor ring, but the address is via the count from 2 chunks ago (delayed cursor)
            let mut idx = iota; let sixteen = _mm512_set1_epi32(16);
            for c in 0..chunks { let k = mask(s, c, &q);
                _mm512_storeu_si512(out.add((c * 8) & 255).cast(), _mm512_maskz_compress_epi32(k, idx));
                idx = _mm512_add_epi32(idx, sixteen);
                cur += (k as u32).count_ones() as usize; } }
        18 | 19 | 20 | 21 => { // masks of a window first, then the writes
            let w = [64usize, 16, 256, 8][(variant - 18) as usize];
            let mut masks = [0u16; 256];
            let mut idx = iota; let sixteen = _mm512_set1_epi32(16);
            let mut c = 0;
            while c < chunks {
                let end = chunks.min(c + w);
                for j in c..end { masks[j - c] = mask(s, j, &q); }
                for j in 0..end - c { let k = masks[j];
                    _mm512_storeu_si512(out.add(cur).cast(), _mm512_maskz_compress_epi32(k, idx));
                    idx = _mm512_add_epi32(idx, sixteen);
                    cur += (k as u32).count_ones() as usize; }
                c = end;
            } }
        22 | 23 | 24 | 25 => { // stage ring (addresses known early), copy out D chunks later
            let d = [8usize, 4, 12, 2][(variant - 22) as usize];
            let mut stage = [_mm512_setzero_si512(); 16];
            let mut cnt = [0u32; 16];
            let mut idx = iota; let sixteen = _mm512_set1_epi32(16);
            for c in 0..chunks { let k = mask(s, c, &q);
                stage[c & 15] = _mm512_maskz_compress_epi32(k, idx);
                cnt[c & 15] = (k as u32).count_ones();
                idx = _mm512_add_epi32(idx, sixteen);
                if c >= d { let o = (c - d) & 15;
                    _mm512_storeu_si512(out.add(cur).cast(), stage[o]);
                    cur += cnt[o] as usize; }
            }
            for c in chunks.saturating_sub(d)..chunks { let o = c & 15;
                _mm512_storeu_si512(out.add(cur).cast(), stage[o]);
                cur += cnt[o] as usize; }
        }
        26 | 27 | 28 => { // window: compress into a stage (known addresses), then copy out
            let w = [16usize, 8, 32][(variant - 26) as usize];
            let mut stage = [_mm512_setzero_si512(); 32];
            let mut cnt = [0u32; 32];
            let mut idx = iota; let sixteen = _mm512_set1_epi32(16);
            let mut c = 0;
            while c < chunks {
                let end = chunks.min(c + w);
                for j in c..end { let k = mask(s, j, &q);
                    stage[j - c] = _mm512_maskz_compress_epi32(k, idx);
                    cnt[j - c] = (k as u32).count_ones();
                    idx = _mm512_add_epi32(idx, sixteen); }
                for j in 0..end - c {
                    _mm512_storeu_si512(out.add(cur).cast(), stage[j]);
                    cur += cnt[j] as usize; }
                c = end;
            } }
        29 | 30 => { // software-pipelined windows of W=4/8: compute window k+1, then store window k
            let sixteen = _mm512_set1_epi32(16);
            let mut idx = iota;
            macro_rules! pipe { ($w:expr) => {{
                const W: usize = $w;
                let mut prev = [_mm512_setzero_si512(); W];
                let mut pn = [0u32; W];
                let mut have = false;
                let mut c = 0;
                while c + W <= chunks {
                    let mut v = [_mm512_setzero_si512(); W];
                    let mut n = [0u32; W];
                    for j in 0..W { let k = mask(s, c + j, &q);
                        v[j] = _mm512_maskz_compress_epi32(k, idx); n[j] = (k as u32).count_ones();
                        idx = _mm512_add_epi32(idx, sixteen); }
                    if have { for j in 0..W { _mm512_storeu_si512(out.add(cur).cast(), prev[j]); cur += pn[j] as usize; } }
                    prev = v; pn = n; have = true;
                    c += W;
                }
                if have { for j in 0..W { _mm512_storeu_si512(out.add(cur).cast(), prev[j]); cur += pn[j] as usize; } }
                for cc in c..chunks { let k = mask(s, cc, &q);
                    _mm512_storeu_si512(out.add(cur).cast(), _mm512_maskz_compress_epi32(k, idx));
                    idx = _mm512_add_epi32(idx, sixteen); cur += (k as u32).count_ones() as usize; }
            }}}
            if variant == 29 { pipe!(4) } else { pipe!(8) }
        }
        31 => { // pipelined masks only: window k+1's masks, then window k's compress + store
            let sixteen = _mm512_set1_epi32(16);
            let mut idx = iota;
            let mut c = 0;
            let mut prev = [0u16; 4]; let mut have = false;
            while c + 4 <= chunks {
                let m = [mask(s, c, &q), mask(s, c + 1, &q), mask(s, c + 2, &q), mask(s, c + 3, &q)];
                if have { for j in 0..4 { _mm512_storeu_si512(out.add(cur).cast(), _mm512_maskz_compress_epi32(prev[j], idx));
                    idx = _mm512_add_epi32(idx, sixteen); cur += (prev[j] as u32).count_ones() as usize; } }
                prev = m; have = true; c += 4;
            }
            if have { for j in 0..4 { _mm512_storeu_si512(out.add(cur).cast(), _mm512_maskz_compress_epi32(prev[j], idx));
                idx = _mm512_add_epi32(idx, sixteen); cur += (prev[j] as u32).count_ones() as usize; } }
            for cc in c..chunks { let k = mask(s, cc, &q);
                _mm512_storeu_si512(out.add(cur).cast(), _mm512_maskz_compress_epi32(k, idx));
                idx = _mm512_add_epi32(idx, sixteen); cur += (k as u32).count_ones() as usize; }
        }
        32 => { // table writer: two 8-bit halves, positions from a 256 x 8 u32 table, base added
            let tab = &*core::ptr::addr_of!(TABLE);
            for c in 0..chunks { let k = mask(s, c, &q) as u32;
                let base = _mm256_set1_epi32((c * 16) as i32);
                let lo = k & 0xff; let hi = k >> 8;
                let tl = _mm256_loadu_si256(tab[lo as usize].as_ptr().cast());
                _mm256_storeu_si256(out.add(cur).cast(), _mm256_add_epi32(tl, base));
                cur += lo.count_ones() as usize;
                let th = _mm256_loadu_si256(tab[hi as usize].as_ptr().cast());
                _mm256_storeu_si256(out.add(cur).cast(), _mm256_add_epi32(th, _mm256_add_epi32(base, _mm256_set1_epi32(8))));
                cur += hi.count_ones() as usize; } }
        33 => { // table writer with the +8 folded into a second table
            let tab = &*core::ptr::addr_of!(TABLE);
            let tab8 = &*core::ptr::addr_of!(TABLE8);
            for c in 0..chunks { let k = mask(s, c, &q) as u32;
                let base = _mm256_set1_epi32((c * 16) as i32);
                let lo = k & 0xff; let hi = k >> 8;
                let tl = _mm256_loadu_si256(tab[lo as usize].as_ptr().cast());
                _mm256_storeu_si256(out.add(cur).cast(), _mm256_add_epi32(tl, base));
                cur += lo.count_ones() as usize;
                let th = _mm256_loadu_si256(tab8[hi as usize].as_ptr().cast());
                _mm256_storeu_si256(out.add(cur).cast(), _mm256_add_epi32(th, base));
                cur += hi.count_ones() as usize; } }
        _ => unreachable!(),
    }
    cur
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let n: usize = a.get(1).map_or(4096, |s| s.parse().unwrap());
    let nsets: usize = a.get(2).map_or(8, |s| s.parse().unwrap());
    let variants: Vec<u32> = a.get(3).map_or(vec![0,1,2,3,4,5,7,8,9,12,15,19,24], |s| s.split(',').map(|x| x.parse().unwrap()).collect());
    let off: usize = a.get(4).map_or(0, |s| s.parse().unwrap());
    if a.get(5).map_or(false, |x| x == "box") { unsafe { BOXQ = true; } }
    if a.get(5).map_or(false, |x| x == "boxm") { unsafe { BOXM = true; } }
    let hq: f32 = a.get(6).map_or(0.5, |s| s.parse().unwrap());
    unsafe { for m in 0..256usize { let mut j = 0; for b in 0..8 { if m >> b & 1 == 1 { TABLE[m][j] = b as u32; TABLE8[m][j] = b as u32 + 8; j += 1; } } } }
    let mut r = Xoshiro256PlusPlus::seed_from_u64(7);
    let sets: Vec<Set> = (0..nsets).map(|_| {
        let mut cols: [Vec<L>; 6] = std::array::from_fn(|_| vec![L([0.0; 16]); n / 16]);
        for i in 0..n { for ax in 0..3 { let c = unit(&mut r); let h = 0.01 + 0.02 * unit(&mut r);
            cols[ax][i / 16].0[i % 16] = c - h; cols[ax + 3][i / 16].0[i % 16] = c + h; } }
        Set { cols, n } }).collect();
    let mut outbuf = vec![L([0.0; 16]); n / 16 + 4096/16 + 16];
    let out = unsafe { (outbuf.as_mut_ptr() as *mut u32).add(off) };
    let q = [0.5, 0.5, 0.5, hq];
    let reference: Vec<usize> = sets.iter().map(|s| unsafe { run(s, q, out, 0) }).collect();
    for &v in variants.iter().filter(|&&v| v < 12 || v >= 32) { for (s, &e) in sets.iter().zip(&reference) { let got = unsafe { run(s, q, out, v) }; assert_eq!(got, e, "variant {v}"); } }
    { let r1 = unsafe { run(&sets[0], q, out, 1) }; let want: Vec<u32> = unsafe { std::slice::from_raw_parts(out, r1).to_vec() };
      for v in [32u32, 33] { let r = unsafe { run(&sets[0], q, out, v) }; let got = unsafe { std::slice::from_raw_parts(out, r) }; assert_eq!(got, &want[..], "indices of variant {v}"); }
      eprintln!("hits per query: {} of {}", r1, n); }
    let calls = 2000;
    let mut best = vec![f64::MAX; variants.len()];
    let mut med: Vec<Vec<f64>> = vec![vec![]; variants.len()];
    for _ in 0..101 { for (vi, &v) in variants.iter().enumerate() {
        let t = Instant::now(); let mut tot = 0;
        for i in 0..calls { tot += unsafe { run(&sets[i % nsets], black_box(q), out, v) }; }
        black_box(tot);
        let e = t.elapsed().as_secs_f64() / calls as f64 * 1e9;
        best[vi] = best[vi].min(e); med[vi].push(e);
    } }
    let m0 = { let mut m = med[0].clone(); m.sort_by(f64::total_cmp); m[50] };
    for (vi, &v) in variants.iter().enumerate() { let mut m = med[vi].clone(); m.sort_by(f64::total_cmp);
        println!("v{v}: min {:7.1} ns  median {:7.1} ns  median/v0 {:.3}", best[vi], m[50], m[50] / m0); }
}
