//! `max`, `min` and `clamp` for f64 known not to be NaN.

/// `max`, `min` and `clamp` for values known not to be NaN: one compare-and-select each (the
/// NaN-aware `f64::max` takes several instructions on x86).
pub(super) trait Ordered: Copy + PartialOrd {
    /// The larger of the two.
    #[inline(always)]
    fn at_least(self, o: Self) -> Self {
        if self > o { self } else { o }
    }
    /// The smaller of the two.
    #[inline(always)]
    fn at_most(self, o: Self) -> Self {
        if self < o { self } else { o }
    }
    /// Into `[lo, hi]` (`lo <= hi`).
    #[inline(always)]
    fn clamp_to(self, lo: Self, hi: Self) -> Self {
        self.at_least(lo).at_most(hi)
    }
}

impl Ordered for f64 {}
