//! Throwaway: broadcast kernel (16 queries per zmm, objects broadcast) vs bvlanes' tiled one-query batch,
//! 100 down-tet queries x N up-tets, counts only, one thread.
use bvlanes::{Backend, DownTet, UpTet, UpTets};
use std::arch::x86_64::*;
use std::time::Instant;

#[target_feature(enable = "avx512f")]
unsafe fn broadcast_counts(cols: &[Vec<f32>; 4], qmax: &[[f32; 4]], tile: usize) -> Vec<u32> {
    let n = cols[0].len();
    let groups = qmax.len().div_ceil(16);
    let mut counts = vec![0u32; groups * 16];
    // queries transposed: per group, 4 zmm of max[k] (padding queries -inf: never hit)
    let mut qv = vec![[_mm512_set1_ps(f32::NEG_INFINITY); 4]; groups];
    for g in 0..groups {
        for k in 0..4 {
            let mut a = [f32::NEG_INFINITY; 16];
            for l in 0..16 { if let Some(q) = qmax.get(g * 16 + l) { a[l] = q[k]; } }
            qv[g][k] = unsafe { _mm512_loadu_ps(a.as_ptr()) };
        }
    }
    let (c0, c1, c2, c3) = (cols[0].as_ptr(), cols[1].as_ptr(), cols[2].as_ptr(), cols[3].as_ptr());
    let mut start = 0;
    while start < n {
        let end = (start + tile).min(n);
        for g in 0..groups {
            let q = qv[g];
            let mut acc0 = _mm512_setzero_si512();
            let mut acc1 = _mm512_setzero_si512();
            let mut i = start;
            while i + 2 <= end {
                unsafe {
                    let m0 = _mm512_cmp_ps_mask::<_CMP_LE_OQ>(_mm512_set1_ps(*c0.add(i)), q[0])
                        & _mm512_cmp_ps_mask::<_CMP_LE_OQ>(_mm512_set1_ps(*c1.add(i)), q[1])
                        & _mm512_cmp_ps_mask::<_CMP_LE_OQ>(_mm512_set1_ps(*c2.add(i)), q[2])
                        & _mm512_cmp_ps_mask::<_CMP_LE_OQ>(_mm512_set1_ps(*c3.add(i)), q[3]);
                    let m1 = _mm512_cmp_ps_mask::<_CMP_LE_OQ>(_mm512_set1_ps(*c0.add(i + 1)), q[0])
                        & _mm512_cmp_ps_mask::<_CMP_LE_OQ>(_mm512_set1_ps(*c1.add(i + 1)), q[1])
                        & _mm512_cmp_ps_mask::<_CMP_LE_OQ>(_mm512_set1_ps(*c2.add(i + 1)), q[2])
                        & _mm512_cmp_ps_mask::<_CMP_LE_OQ>(_mm512_set1_ps(*c3.add(i + 1)), q[3]);
                    acc0 = _mm512_mask_sub_epi32(acc0, m0, acc0, _mm512_set1_epi32(-1));
                    acc1 = _mm512_mask_sub_epi32(acc1, m1, acc1, _mm512_set1_epi32(-1));
                }
                i += 2;
            }
            while i < end {
                unsafe {
                    let m0 = _mm512_cmp_ps_mask::<_CMP_LE_OQ>(_mm512_set1_ps(*c0.add(i)), q[0])
                        & _mm512_cmp_ps_mask::<_CMP_LE_OQ>(_mm512_set1_ps(*c1.add(i)), q[1])
                        & _mm512_cmp_ps_mask::<_CMP_LE_OQ>(_mm512_set1_ps(*c2.add(i)), q[2])
                        & _mm512_cmp_ps_mask::<_CMP_LE_OQ>(_mm512_set1_ps(*c3.add(i)), q[3]);
                    acc0 = _mm512_mask_sub_epi32(acc0, m0, acc0, _mm512_set1_epi32(-1));
                }
                i += 1;
            }
            let mut out = [0u32; 16];
            unsafe { _mm512_storeu_si512(out.as_mut_ptr().cast(), _mm512_add_epi32(acc0, acc1)) };
            for l in 0..16 { counts[g * 16 + l] += out[l]; }
        }
        start = end;
    }
    counts.truncate(qmax.len());
    counts
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args.get(1).map(|s| s.parse().unwrap()).unwrap_or(10_000_000);
    let mut s = 0x9E3779B97F4A7C15u64;
    let mut rnd = || { s ^= s << 13; s ^= s >> 7; s ^= s << 17; (s >> 40) as f32 / (1u64 << 24) as f32 };
    let proj = |c: [f32; 3]| [c[0] + c[1] + c[2], c[0] - c[1] - c[2], -c[0] + c[1] - c[2], -c[0] - c[1] + c[2]];
    let ups: Vec<UpTet> = (0..n).map(|_| { let c = [rnd() * 100.0 - 50.0, rnd() * 100.0 - 50.0, rnd() * 100.0 - 50.0]; let p = proj(c); UpTet { min: p.map(|x| x - 1.7) } }).collect();
    let downs: Vec<DownTet> = ups[..100].iter().map(|u| DownTet { max: u.min.map(|x| x + 3.4) }).collect();
    let cols: [Vec<f32>; 4] = std::array::from_fn(|k| ups.iter().map(|u| u.min[k]).collect());
    let c = UpTets::from_slice(&ups).unwrap();
    let p = c.with_backend(Backend::Avx512).unwrap().with_threads(1);
    let qmax: Vec<[f32; 4]> = downs.iter().map(|d| d.max).collect();
    let want = p.count_hits_many(&downs);
    for tile in [1024usize, 4096, 16384, 1 << 30] {
        let got = unsafe { broadcast_counts(&cols, &qmax, tile) };
        assert_eq!(got, want, "tile {tile}");
    }
    println!("hits total {}", want.iter().sum::<u32>());
    for round in 0..5 {
        let t = Instant::now(); let a = p.count_hits_many(&downs); let tt = t.elapsed().as_secs_f64();
        let mut line = format!("round {round}: tiled one-query (crate) {tt:.4} s");
        for tile in [1024usize, 4096, 16384] {
            let t = Instant::now(); let b = unsafe { broadcast_counts(&cols, &qmax, tile) }; let tb = t.elapsed().as_secs_f64();
            assert_eq!(a, b);
            line += &format!(" | broadcast tile {tile}: {tb:.4} s");
        }
        println!("{line}");
    }
}
