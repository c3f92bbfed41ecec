//! The fuzz targets' byte reader: turns libFuzzer's bytes into integers and `f32` values. Reading
//! past the end gives zeros, so every input is usable.
//!
//! A value is one tag byte, then:
//! * tag `< 64`: an entry of [`SPECIAL`] (signed zeros, subnormals, `f32::MAX`, NaNs,
//!   infinities, values whose squares overflow, ...);
//! * tag `64..192`: `(tag - 128) / 8`, a coarse grid from -8 to 7.875, so that primitives touch
//!   and share faces often;
//! * tag `>= 192`: the next four bytes as raw `f32` bits (any pattern: NaN payloads, subnormals,
//!   inverted boxes).
//!
//! Primitives can also be read whole as a `bytemuck` cast of raw bytes ([`Input::pod`]).

#![allow(dead_code)] // each target uses part of it

/// Values the fuzzer can pick with one byte.
pub const SPECIAL: [f32; 64] = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    -0.5,
    2.0,
    -2.0,
    0.1,
    -0.1,
    1e-20,
    -1e-20,
    1e-30,
    -1e-30,
    f32::MIN_POSITIVE,
    -f32::MIN_POSITIVE,
    f32::from_bits(1), // the smallest subnormal
    -f32::from_bits(1),
    f32::from_bits(3),
    1e20,
    -1e20,
    1e30,
    -1e30,
    3e38,
    -3e38,
    f32::MAX,
    f32::MIN,
    16_777_216.0,
    16_777_218.0,
    1.0 + f32::EPSILON,
    1.0 - f32::EPSILON / 2.0,
    1.844_674_4e19, // about sqrt(f32::MAX): squares overflow just above it
    2e19,
    4_611_686_018_427_387_904.0, // Sphere::MAX_RADIUS, 2^62
    4_611_686_018_427_387_904.0 * (1.0 + f32::EPSILON),
    9.223_372e18, // 2^63
    f32::NAN,
    -f32::NAN,
    f32::from_bits(0x7f80_0001), // signalling NaN
    f32::from_bits(0xffc0_1234), // negative NaN with a payload
    f32::INFINITY,
    f32::NEG_INFINITY,
    core::f32::consts::PI,
    core::f32::consts::FRAC_PI_2,
    3.141_592_4, // just below pi
    1e-3,
    1e-6,
    5.0, // the froxel grids' first slice depth
    4.999_999_5,
    5.000_000_5,
    100.0,
    1000.0,
    1e6,
    1e10,
    0.3,
    -0.3,
    0.7,
    core::f32::consts::FRAC_1_SQRT_2,
    -core::f32::consts::FRAC_1_SQRT_2,
    1.5,
    -1.5,
    3.0,
    -3.0,
    1e-40, // subnormal
];

/// The unread rest of the fuzzer's input.
pub struct Input<'a> {
    data: &'a [u8],
}

impl<'a> Input<'a> {
    pub fn new(data: &'a [u8]) -> Input<'a> {
        Input { data }
    }

    /// Whether everything has been read.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// The next `n` bytes, zero-padded past the end.
    pub fn bytes<const N: usize>(&mut self) -> [u8; N] {
        let mut out = [0u8; N];
        let n = N.min(self.data.len());
        out[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        out
    }

    pub fn u8(&mut self) -> u8 {
        self.bytes::<1>()[0]
    }

    pub fn u32(&mut self) -> u32 {
        u32::from_le_bytes(self.bytes())
    }

    /// A value (see the module docs).
    pub fn value(&mut self) -> f32 {
        match self.u8() {
            t @ 0..64 => SPECIAL[usize::from(t)],
            t @ 64..192 => f32::from(i16::from(t) - 128) / 8.0,
            _ => f32::from_bits(self.u32()),
        }
    }

    /// `N` values.
    pub fn values<const N: usize>(&mut self) -> [f32; N] {
        core::array::from_fn(|_| self.value())
    }

    /// A `T` cast from the next `size_of::<T>()` raw bytes (zero-padded past the end).
    pub fn pod<T: bytemuck::Pod>(&mut self) -> T {
        let size = core::mem::size_of::<T>();
        let mut buf = vec![0u8; size];
        let n = size.min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        bytemuck::pod_read_unaligned(&buf)
    }
}
