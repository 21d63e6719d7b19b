//! The reference model's image of host memory (two_level in_memory): only what the model
//! reads, the little-endian 64-bit directory entries, kept sparse as bytes by address.

use std::collections::HashMap;

/// A sparse byte-addressed memory; bytes never written read 0. Addresses wrap at 2^64.
#[derive(Clone, Debug, Default)]
pub struct MemImage {
    /// Aligned 8-byte words by `address / 8`, little-endian.
    words: HashMap<u64, u64>,
}

impl MemImage {
    /// An empty memory (every byte 0).
    pub fn new() -> MemImage {
        MemImage::default()
    }

    fn byte(&self, addr: u64) -> u8 {
        let w = self.words.get(&(addr >> 3)).copied().unwrap_or(0);
        (w >> ((addr & 7) * 8)) as u8
    }

    fn set_byte(&mut self, addr: u64, b: u8) {
        let shift = (addr & 7) * 8;
        let w = self.words.entry(addr >> 3).or_insert(0);
        *w = (*w & !(0xFF << shift)) | (u64::from(b) << shift);
    }

    /// The little-endian 64-bit word at `addr` (any alignment).
    pub fn read_u64(&self, addr: u64) -> u64 {
        if addr & 7 == 0 {
            return self.words.get(&(addr >> 3)).copied().unwrap_or(0);
        }
        (0..8).rev().fold(0, |v, i| {
            v << 8 | u64::from(self.byte(addr.wrapping_add(i)))
        })
    }

    /// Writes `v` little-endian at `addr` (any alignment).
    pub fn write_u64(&mut self, addr: u64, v: u64) {
        if addr & 7 == 0 {
            self.words.insert(addr >> 3, v);
            return;
        }
        for (i, b) in v.to_le_bytes().into_iter().enumerate() {
            self.set_byte(addr.wrapping_add(i as u64), b);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::MemImage;

    #[test]
    fn aligned_unaligned_and_wrapping_words() {
        let mut m = MemImage::new();
        assert_eq!(m.read_u64(0x1000), 0);
        m.write_u64(0x1000, 0x8877_6655_4433_2211);
        assert_eq!(m.read_u64(0x1000), 0x8877_6655_4433_2211);
        // Bytes 0x1003..0x100B: 0x44 0x55 0x66 0x77 0x88, then three never-written zeros.
        assert_eq!(m.read_u64(0x1003), 0x0000_0088_7766_5544);
        m.write_u64(0x1005, 0xAABB_CCDD_EEFF_0102);
        // Bytes 0x1005..0x100D: 0x02 0x01 0xFF 0xEE 0xDD 0xCC 0xBB 0xAA.
        assert_eq!(m.read_u64(0x1000), 0xFF01_0255_4433_2211);
        assert_eq!(m.read_u64(0x1008), 0x0000_00AA_BBCC_DDEE);
        // The last byte of the address space is followed by byte 0.
        m.write_u64(u64::MAX - 3, 0x0807_0605_0403_0201);
        assert_eq!(m.read_u64(0), 0x0000_0000_0807_0605);
    }
}
