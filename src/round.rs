//! Directed rounding for the constructors: a bounding volume built from points, a box or a sphere
//! must contain its input exactly, so every sum it computes is rounded outward (down for lower
//! bounds, up for upper bounds), and the sign of a sum is decided exactly.
//!
//! These run once per primitive or per query, never per lane, so clarity beats speed here.

use core::cmp::Ordering;

/// Error-free transformation: `a + b == s + e` exactly (Knuth's TwoSum), for finite f64 whose sum
/// does not overflow. Every f32 and every sum of a few f32 is far from f64 overflow.
#[inline]
fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

/// The exact sign of `values.iter().sum()` over the reals, for finite values (at most 8).
///
/// Builds a non-overlapping floating-point expansion (Shewchuk's grow-expansion); the sign of an
/// expansion is the sign of its largest non-zero component.
pub(crate) fn sum_sign(values: &[f32]) -> Ordering {
    debug_assert!(values.len() <= 8 && values.iter().all(|v| v.is_finite()));
    let mut expansion = [0.0f64; 8];
    let mut len = 0;
    for &v in values {
        let mut q = f64::from(v);
        let mut out = 0;
        for i in 0..len {
            let (s, e) = two_sum(q, expansion[i]);
            if e != 0.0 {
                expansion[out] = e;
                out += 1;
            }
            q = s;
        }
        expansion[out] = q;
        len = out + 1;
    }
    expansion[..len]
        .iter()
        .rev()
        .find(|c| **c != 0.0)
        .map_or(Ordering::Equal, |c| {
            if *c > 0.0 {
                Ordering::Greater
            } else {
                Ordering::Less
            }
        })
}

/// The sign of the sum of four bounds that may be infinite (never NaN, never both infinities).
pub(crate) fn sum_sign_extended(values: [f32; 4]) -> Ordering {
    if values.contains(&f32::INFINITY) {
        Ordering::Greater
    } else if values.contains(&f32::NEG_INFINITY) {
        Ordering::Less
    } else {
        sum_sign(&values)
    }
}

/// `a + b` rounded toward negative infinity (finite or infinite inputs, not NaN).
#[must_use]
pub(crate) fn add_down(a: f32, b: f32) -> f32 {
    let s = a + b;
    if !a.is_finite() || !b.is_finite() {
        return s;
    }
    if s == f32::INFINITY {
        return f32::MAX;
    }
    if s.is_finite() && sum_sign(&[a, b, -s]) == Ordering::Less {
        s.next_down()
    } else {
        s
    }
}

/// `a + b` rounded toward positive infinity (finite or infinite inputs, not NaN).
#[must_use]
pub(crate) fn add_up(a: f32, b: f32) -> f32 {
    -add_down(-a, -b)
}

/// `a - b` rounded toward negative infinity.
#[must_use]
pub(crate) fn sub_down(a: f32, b: f32) -> f32 {
    add_down(a, -b)
}

/// `a * b` rounded toward positive infinity, for `a, b >= 0` (infinite allowed, not `0 * inf`).
#[must_use]
pub(crate) fn mul_up(a: f32, b: f32) -> f32 {
    let p = a * b;
    // The product of two f32 is exact in f64 (24 + 24 significant bits), with no underflow.
    if p.is_finite() && f64::from(p) < f64::from(a) * f64::from(b) {
        p.next_up()
    } else {
        p
    }
}

/// `a / 3` rounded toward negative infinity, for finite `a`.
#[must_use]
pub(crate) fn div3_down(a: f32) -> f32 {
    let q = a / 3.0;
    // q * 3 is exact in f64, so the comparison is exact.
    if f64::from(q) * 3.0 > f64::from(a) {
        q.next_down()
    } else {
        q
    }
}

/// Sum of three values (each may be negated by the caller) rounded down.
#[must_use]
pub(crate) fn sum3_down(a: f32, b: f32, c: f32) -> f32 {
    add_down(add_down(a, b), c)
}

/// Sum of three values rounded up.
#[must_use]
pub(crate) fn sum3_up(a: f32, b: f32, c: f32) -> f32 {
    add_up(add_up(a, b), c)
}

/// Sum of four finite values rounded down.
#[must_use]
pub(crate) fn sum4_down(v: [f32; 4]) -> f32 {
    add_down(add_down(add_down(v[0], v[1]), v[2]), v[3])
}

/// Sum of four finite values rounded up.
#[must_use]
pub(crate) fn sum4_up(v: [f32; 4]) -> f32 {
    add_up(add_up(add_up(v[0], v[1]), v[2]), v[3])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exact(a: f32, b: f32) -> f64 {
        f64::from(a) + f64::from(b)
    }

    #[test]
    fn add_directed_brackets_the_exact_sum() {
        let vals = [
            0.0, -0.0, 1.0, -1.0, 0.1, 1e-20, -3.7e-12, 1e30, 3.0e38, -3.0e38, 1.4e-45, 16777217.0,
        ];
        for &a in &vals {
            for &b in &vals {
                let d = add_down(a, b);
                let u = add_up(a, b);
                // f64 sums of these are exact (exponent spread below 2^53) except the 1e-20 + 1e30
                // kinds, where the bracket still holds because the rounding is directed.
                assert!(
                    f64::from(d) <= exact(a, b) || d == f32::MAX,
                    "{a} + {b} down {d}"
                );
                assert!(
                    f64::from(u) >= exact(a, b) || u == -f32::MAX,
                    "{a} + {b} up {u}"
                );
                assert!(d <= u);
                assert!(u.next_down() <= d || u == d, "at most one ulp apart");
            }
        }
        assert_eq!(add_up(1.0, 1e-20), 1.0f32.next_up());
        assert_eq!(add_down(1.0, 1e-20), 1.0);
        assert_eq!(add_down(1.0, -1e-20), 1.0f32.next_down());
        assert_eq!(add_up(3.0e38, 3.0e38), f32::INFINITY);
        assert_eq!(add_down(3.0e38, 3.0e38), f32::MAX);
    }

    #[test]
    fn sum_sign_is_exact() {
        assert_eq!(sum_sign(&[1.0, -1.0, 1e-30, -1e-30]), Ordering::Equal);
        assert_eq!(sum_sign(&[1e30, 1e-30, -1e30]), Ordering::Greater);
        assert_eq!(
            sum_sign(&[3e38, 3e38, -3e38, -3e38, -1e-45]),
            Ordering::Less
        );
        assert_eq!(sum_sign(&[]), Ordering::Equal);
        assert_eq!(sum_sign(&[-0.0]), Ordering::Equal);
    }

    #[test]
    fn mul_and_div_round_as_told() {
        let s = mul_up(3.0f32.sqrt(), 1.0);
        assert!(f64::from(s) >= f64::from(3.0f32.sqrt()));
        let x = mul_up(0.1, 0.1);
        assert!(f64::from(x) >= f64::from(0.1f32) * f64::from(0.1f32));
        for a in [1.0f32, 10.0, -7.0, 1e-40, 3e38] {
            assert!(f64::from(div3_down(a)) * 3.0 <= f64::from(a));
        }
    }
}
