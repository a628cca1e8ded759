//! The hasher of the trace readers' maps (`trace`, `trace_steps`).

use std::collections::HashMap;

/// The trace readers' maps (names, correlation ids, threads, steps) hashed the way rustc's own
/// maps are (FxHash): a multiply and a rotate per 8 bytes. Their keys come from the file being
/// read, in the user's own page, so no attacker chooses them. The order of every result is set
/// by sorting, never by a map's.
#[derive(Default, Clone, Copy)]
pub(super) struct Fx(u64);

impl std::hash::Hasher for Fx {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            self.add(u64::from_le_bytes(w));
        }
        for &b in chunks.remainder() {
            self.add(u64::from(b));
        }
    }

    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }

    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }

    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

impl Fx {
    #[inline]
    fn add(&mut self, w: u64) {
        self.0 = (self.0.rotate_left(5) ^ w).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

pub(super) type FxMap<K, V> = HashMap<K, V, std::hash::BuildHasherDefault<Fx>>;
