//! Bytes live on the heap, counted by a wrapper around the system allocator.
//!
//! The page's WASM linear memory only ever grows: it is the high-water mark of what was
//! live at once, so it cannot tell a leak from one heavy moment. The soak test reads this
//! counter instead (exported to JavaScript by the page binary as `live_heap_bytes`).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The system allocator, counting live bytes: Σ size of allocations − Σ size of frees.
pub struct CountingAllocator {
    live: AtomicUsize,
}

impl CountingAllocator {
    /// A counter at zero around the system allocator.
    pub const fn new() -> Self {
        Self {
            live: AtomicUsize::new(0),
        }
    }

    /// Bytes allocated through this allocator and not yet freed.
    pub fn live_bytes(&self) -> usize {
        self.live.load(Ordering::Relaxed)
    }
}

impl Default for CountingAllocator {
    fn default() -> Self {
        Self::new()
    }
}

// SAFETY: every call is forwarded unchanged to `System`; the counter only observes sizes.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller upholds `GlobalAlloc::alloc`'s contract, which `System` shares.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            self.live.fetch_add(layout.size(), Ordering::Relaxed);
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as for `alloc`.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            self.live.fetch_add(layout.size(), Ordering::Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was returned by this allocator (hence by `System`) with `layout`.
        unsafe { System.dealloc(ptr, layout) };
        self.live.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller upholds `GlobalAlloc::realloc`'s contract, which `System` shares.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            self.live.fetch_sub(layout.size(), Ordering::Relaxed);
            self.live.fetch_add(new_size, Ordering::Relaxed);
        }
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(size: usize) -> Layout {
        // Test only: align 8 is a power of two and the sizes are small, so this cannot fail.
        Layout::from_size_align(size, 8).expect("a valid layout")
    }

    #[test]
    fn an_allocation_is_counted_until_it_is_freed() {
        let counter = CountingAllocator::new();
        // SAFETY: a non-zero layout, freed once with the same layout.
        unsafe {
            let p = counter.alloc(layout(1000));
            assert!(!p.is_null());
            assert_eq!(counter.live_bytes(), 1000);
            counter.dealloc(p, layout(1000));
        }
        assert_eq!(counter.live_bytes(), 0);
    }

    #[test]
    fn a_reallocation_counts_only_the_new_size() {
        let counter = CountingAllocator::new();
        // SAFETY: as above; realloc's result is freed with the new size.
        unsafe {
            let p = counter.alloc_zeroed(layout(64));
            let q = counter.realloc(p, layout(64), 4096);
            assert!(!q.is_null());
            assert_eq!(counter.live_bytes(), 4096);
            counter.dealloc(q, layout(4096));
        }
        assert_eq!(counter.live_bytes(), 0);
    }
}
