//! The buffer itself, as a Rust library author would write one: an aligned, growable byte
//! buffer over the global allocator (`std::alloc`, so in an abench worker the backend's
//! malloc serves it). The two revisions differ only in how they ask for memory:
//!
//! - revision 1 (default): padded. Asks for `capacity + align` bytes at alignment 1, rounds
//!   the data pointer up, and grows by allocate-copy-free.
//! - revision 2 (`--features exact`): exact. Asks for exactly `capacity` bytes at the
//!   alignment, zeroed through `alloc_zeroed`, and grows through `realloc`.
//!
//! Both grow to max(2 x capacity, required, 64), as examples/abuf does.

use std::alloc::{self, Layout};
use std::ptr::{self, NonNull};

pub const REVISION: &str = if cfg!(feature = "exact") { "2 (exact)\0" } else { "1 (padded)\0" };

/// Why an operation failed: every failure reaches the C caller as NULL or -1, never a panic.
#[derive(Debug)]
pub struct AllocError;

pub struct AlignedBuffer {
    /// The block the allocator gave, and the layout it was asked for (None: no block yet).
    block: Option<(NonNull<u8>, Layout)>,
    data: *mut u8,
    length: usize,
    capacity: usize,
    align: usize,
}

impl AlignedBuffer {
    /// A buffer with room for `capacity` bytes (holding `capacity` zero bytes if `zeroed`),
    /// its data aligned to the larger of the two alignments.
    pub fn new(capacity: usize, requested_align: usize, preferred_align: usize, zeroed: bool) -> Result<Self, AllocError> {
        let align = requested_align.max(preferred_align).max(1);
        if !align.is_power_of_two() {
            return Err(AllocError);
        }
        let mut buffer = AlignedBuffer { block: None, data: align as *mut u8, length: 0, capacity: 0, align };
        buffer.take_block(capacity, zeroed)?;
        if zeroed {
            buffer.length = capacity;
        }
        Ok(buffer)
    }

    pub fn data(&mut self) -> *mut u8 {
        self.data
    }
    pub fn len(&self) -> usize {
        self.length
    }
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Makes room for `additional` bytes beyond the length.
    pub fn reserve(&mut self, additional: usize) -> Result<(), AllocError> {
        let required = self.length.checked_add(additional).ok_or(AllocError)?;
        if required > self.capacity {
            self.grow_to(required)?;
        }
        Ok(())
    }

    pub fn append(&mut self, bytes: &[u8]) -> Result<(), AllocError> {
        self.reserve(bytes.len())?;
        // SAFETY: reserve left room for bytes.len() more bytes after the length.
        unsafe { ptr::copy_nonoverlapping(bytes.as_ptr(), self.data.add(self.length), bytes.len()) };
        self.length += bytes.len();
        Ok(())
    }

    fn grow_to(&mut self, required: usize) -> Result<(), AllocError> {
        let capacity = self.capacity.saturating_mul(2).max(required).max(64);
        if cfg!(feature = "exact") {
            self.regrow(capacity)
        } else {
            let old_block = self.block.take();
            let old_data = self.data;
            if let Err(e) = self.take_block(capacity, false) {
                self.block = old_block;
                return Err(e);
            }
            // SAFETY: the new block holds at least `capacity` >= length bytes; the old one is
            // released only after its bytes were copied.
            unsafe {
                ptr::copy_nonoverlapping(old_data, self.data, self.length);
                if let Some((block, layout)) = old_block {
                    alloc::dealloc(block.as_ptr(), layout);
                }
            }
            Ok(())
        }
    }

    /// Revision 2's growth: the allocator's realloc on the exact layout.
    fn regrow(&mut self, capacity: usize) -> Result<(), AllocError> {
        let (block, layout) = match self.block {
            Some(held) => held,
            None => return self.take_block(capacity, false),
        };
        let grown_layout = Layout::from_size_align(capacity, self.align).map_err(|_| AllocError)?;
        // SAFETY: block came from the global allocator with `layout`; the new size is
        // non-zero and valid at this alignment (checked just above).
        let grown = unsafe { alloc::realloc(block.as_ptr(), layout, capacity) };
        let grown = NonNull::new(grown).ok_or(AllocError)?;
        self.block = Some((grown, grown_layout));
        self.data = grown.as_ptr();
        self.capacity = capacity;
        Ok(())
    }

    /// Points the buffer at a fresh block for `capacity` bytes; the old one is the caller's.
    /// A zero capacity takes no block (as Vec does): the data pointer is aligned and dangling.
    fn take_block(&mut self, capacity: usize, zeroed: bool) -> Result<(), AllocError> {
        if capacity == 0 {
            self.block = None;
            self.data = self.align as *mut u8;
            self.capacity = 0;
            return Ok(());
        }
        let (size, align) = if cfg!(feature = "exact") {
            (capacity, self.align)
        } else {
            (capacity.checked_add(self.align).ok_or(AllocError)?, 1)
        };
        let layout = Layout::from_size_align(size, align).map_err(|_| AllocError)?;
        // SAFETY: the layout's size is non-zero.
        let block = unsafe { if zeroed { alloc::alloc_zeroed(layout) } else { alloc::alloc(layout) } };
        let block = NonNull::new(block).ok_or(AllocError)?;
        self.block = Some((block, layout));
        if cfg!(feature = "exact") {
            self.data = block.as_ptr();
            self.capacity = capacity;
        } else {
            let offset = block.as_ptr().align_offset(self.align);
            // SAFETY: offset < align <= the padding, so data stays inside the block.
            self.data = unsafe { block.as_ptr().add(offset) };
            self.capacity = size - offset;
        }
        Ok(())
    }
}

impl Drop for AlignedBuffer {
    fn drop(&mut self) {
        if let Some((block, layout)) = self.block.take() {
            // SAFETY: the block came from the global allocator with this layout.
            unsafe { alloc::dealloc(block.as_ptr(), layout) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_is_aligned_and_appends_keep_their_bytes() {
        for align in [1usize, 64, 4096] {
            let mut b = AlignedBuffer::new(16, align, 1, false).unwrap();
            assert_eq!(b.data() as usize % align, 0);
            let bytes: Vec<u8> = (0..=255u8).cycle().take(5000).collect();
            b.append(&bytes).unwrap();
            assert_eq!(b.data() as usize % align, 0);
            assert_eq!(b.len(), 5000);
            assert!(b.capacity() >= 5000);
            assert_eq!(unsafe { std::slice::from_raw_parts(b.data(), 5000) }, &bytes[..]);
        }
    }

    #[test]
    fn zeroed_buffers_hold_zeroes_and_zero_capacity_takes_no_block() {
        let mut b = AlignedBuffer::new(4096, 256, 1, true).unwrap();
        assert_eq!(b.len(), 4096);
        assert!(unsafe { std::slice::from_raw_parts(b.data(), 4096) }.iter().all(|&x| x == 0));
        let mut empty = AlignedBuffer::new(0, 64, 1, false).unwrap();
        assert_eq!(empty.capacity(), 0);
        empty.append(b"abc").unwrap();
        assert!(empty.capacity() >= 64, "grows to at least 64 bytes");
    }
}
