//! Marsaglia's xorshift generators (G. Marsaglia, "Xorshift RNGs", Journal of Statistical
//! Software 8(14), 2003) for the unit tests: 64 bits with shifts 13, 7, 17 and 32 bits with
//! shifts 13, 17, 5.
//!
//! The integration tests (`tests/`) and the benches' scenes (`benches/common`) draw from
//! `rand_xoshiro`; the unit tests written against these sequences keep them, so each test keeps
//! its data, and these few lines need no generator crate.

/// The 64-bit xorshift generator; the field is the state (any seed but zero).
pub(crate) struct XorShift64(pub(crate) u64);

impl XorShift64 {
    /// The next state, which is the output.
    #[must_use]
    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// The next output modulo `m`.
    #[must_use]
    pub(crate) fn below(&mut self, m: u64) -> u64 {
        self.next_u64() % m
    }

    /// The next output's top 24 bits as a fraction in `0..1`.
    #[must_use]
    pub(crate) fn unit_f32(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }
}

/// The 32-bit xorshift generator; the field is the state (any seed but zero).
pub(crate) struct XorShift32(pub(crate) u32);

impl XorShift32 {
    /// The next state, which is the output.
    #[must_use]
    pub(crate) fn next_u32(&mut self) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 17;
        self.0 ^= self.0 << 5;
        self.0
    }

    /// The next output modulo `m`.
    #[must_use]
    pub(crate) fn below(&mut self, m: u32) -> u32 {
        self.next_u32() % m
    }
}

#[cfg(test)]
mod tests {
    use super::{XorShift32, XorShift64};

    /// The first outputs from one seed each, as the hand-written copies these replaced gave
    /// them: a change to the shifts changes every test's data.
    #[test]
    fn the_sequences_are_pinned() {
        let mut rng = XorShift64(0x2545_f491_4f6c_dd1d);
        let got: [u64; 4] = core::array::from_fn(|_| rng.next_u64());
        let want = [
            0x7f6c_280b_eaa8_e3e7,
            0xe471_1987_1cf9_abe0,
            0x3517_4a41_58b8_a0b7,
            0x62ce_1ffa_d85b_1c36,
        ];
        assert_eq!(got, want);
        let mut rng = XorShift32(0x9e37_79b9);
        let got: [u32; 4] = core::array::from_fn(|_| rng.next_u32());
        assert_eq!(got, [0x510c_4619, 0xe02e_553e, 0x7bb9_8f3a, 0x0183_a8b5]);
        // The helpers map the next output.
        let mut rng = XorShift64(0x2545_f491_4f6c_dd1d);
        assert_eq!(rng.below(1000), 0x7f6c_280b_eaa8_e3e7 % 1000);
        assert_eq!(rng.unit_f32(), 0x00e4_7119 as f32 / 16_777_216.0);
        let mut rng = XorShift32(0x9e37_79b9);
        assert_eq!(rng.below(1000), 0x510c_4619 % 1000);
    }
}
