//! The page's and the workers' allocator: rlsf's TLSF with a free list per
//! small size in front of it.
//!
//! The analysis allocates and frees a block for nearly every key, scalar and
//! map node, and most are a few hundred bytes or less. A freed small block
//! goes onto the list of its size and is the next one handed out for that
//! size: a push and a pop instead of TLSF's search, split and coalescing.
//! Small blocks are never given back to TLSF; an analysis frees and makes
//! again blocks of the same few sizes, so the lists are what it reuses.

use std::alloc::{GlobalAlloc, Layout};
use std::cell::UnsafeCell;
use std::ptr;

/// Small sizes are rounded up to a multiple of this, and blocks aligned to it.
const GRANULE: usize = 8;
/// The largest size kept on a free list (the B-tree nodes of a JSON map
/// are a few hundred bytes on wasm32).
const LARGEST_SMALL: usize = 512;
const CLASSES: usize = LARGEST_SMALL / GRANULE;

/// An allocator that keeps freed small blocks on a list per size class and
/// asks `inner` for everything else.
pub struct SmallBlocks<A: GlobalAlloc> {
    inner: A,
    /// The first free block of each size class; each free block holds the
    /// address of the next.
    free: UnsafeCell<[*mut u8; CLASSES]>,
}

// wasm32 built without the atomics feature has no threads: the page and
// each worker run on one.
#[cfg(target_arch = "wasm32")]
unsafe impl<A: GlobalAlloc + Sync> Sync for SmallBlocks<A> {}

impl<A: GlobalAlloc> SmallBlocks<A> {
    /// An allocator that has handed out nothing yet.
    pub const fn new(inner: A) -> Self {
        SmallBlocks {
            inner,
            free: UnsafeCell::new([ptr::null_mut(); CLASSES]),
        }
    }
}

/// The size class of a layout kept on a free list, if it is one.
fn class_of(layout: Layout) -> Option<usize> {
    (layout.size() > 0 && layout.size() <= LARGEST_SMALL && layout.align() <= GRANULE)
        .then(|| (layout.size() - 1) / GRANULE)
}

/// The layout every block of a size class is allocated with.
fn class_layout(class: usize) -> Layout {
    // SAFETY: the size is a multiple of the granule, a power of two, and
    // far below isize::MAX.
    unsafe { Layout::from_size_align_unchecked((class + 1) * GRANULE, GRANULE) }
}

// `inline(never)`: inlined, the fast path was copied into every place that
// allocates, 40 KB (gzip) more worker for no more speed.
unsafe impl<A: GlobalAlloc> GlobalAlloc for SmallBlocks<A> {
    #[inline(never)]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let Some(class) = class_of(layout) else {
            return self.inner.alloc(layout);
        };
        let free = &mut *self.free.get();
        let head = free[class];
        if head.is_null() {
            self.inner.alloc(class_layout(class))
        } else {
            free[class] = head.cast::<*mut u8>().read();
            head
        }
    }

    #[inline(never)]
    unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
        match class_of(layout) {
            Some(class) => {
                let free = &mut *self.free.get();
                block.cast::<*mut u8>().write(free[class]);
                free[class] = block;
            }
            None => self.inner.dealloc(block, layout),
        }
    }

    #[inline(never)]
    unsafe fn realloc(&self, block: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller guarantees `new_size` is valid with this alignment.
        let new_layout = Layout::from_size_align_unchecked(new_size, layout.align());
        match (class_of(layout), class_of(new_layout)) {
            (None, None) => self.inner.realloc(block, layout, new_size),
            (Some(old), Some(new)) if old == new => block,
            _ => {
                let moved = self.alloc(new_layout);
                if !moved.is_null() {
                    ptr::copy_nonoverlapping(block, moved, layout.size().min(new_size));
                    self.dealloc(block, layout);
                }
                moved
            }
        }
    }
}

impl<A: GlobalAlloc> Drop for SmallBlocks<A> {
    /// Gives the listed blocks back (the global allocator is never dropped;
    /// one made for a test is).
    fn drop(&mut self) {
        for (class, head) in self.free.get_mut().iter_mut().enumerate() {
            let mut block = std::mem::replace(head, ptr::null_mut());
            while !block.is_null() {
                // SAFETY: every listed block came from `inner` with its
                // class's layout and holds the address of the next.
                unsafe {
                    let next = block.cast::<*mut u8>().read();
                    self.inner.dealloc(block, class_layout(class));
                    block = next;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::alloc::System;

    fn layout(size: usize, align: usize) -> Layout {
        Layout::from_size_align(size, align).unwrap()
    }

    #[test]
    fn a_freed_small_block_is_the_next_one_of_its_class() {
        let blocks = SmallBlocks::new(System);
        unsafe {
            let a = blocks.alloc(layout(20, 4));
            let b = blocks.alloc(layout(24, 8));
            blocks.dealloc(a, layout(20, 4));
            // 17 to 24 bytes are one class; 25 is the next.
            let other_class = blocks.alloc(layout(25, 8));
            assert_ne!(other_class, a);
            assert_eq!(blocks.alloc(layout(17, 1)), a);
            // The list is last in, first out, and empty again after.
            blocks.dealloc(a, layout(17, 1));
            blocks.dealloc(b, layout(24, 8));
            assert_eq!(blocks.alloc(layout(24, 8)), b);
            assert_eq!(blocks.alloc(layout(24, 8)), a);
            let fresh = blocks.alloc(layout(24, 8));
            assert!(fresh != a && fresh != b);
            for (p, l) in [(a, 24), (b, 24), (fresh, 24), (other_class, 25)] {
                blocks.dealloc(p, layout(l, 8));
            }
        }
    }

    #[test]
    fn large_or_overaligned_blocks_go_to_the_inner_allocator() {
        let blocks = SmallBlocks::new(System);
        unsafe {
            let aligned = blocks.alloc(layout(64, 64));
            assert_eq!(aligned as usize % 64, 0);
            blocks.dealloc(aligned, layout(64, 64));
            let large = blocks.alloc(layout(LARGEST_SMALL + 1, 8));
            blocks.dealloc(large, layout(LARGEST_SMALL + 1, 8));
            // Neither went onto a list.
            assert!(lists_are_empty(&blocks));
            let small = blocks.alloc(layout(LARGEST_SMALL, 8));
            blocks.dealloc(small, layout(LARGEST_SMALL, 8));
            assert!(!lists_are_empty(&blocks));
        }
    }

    #[test]
    fn realloc_keeps_the_block_within_a_class_and_the_bytes_across() {
        let blocks = SmallBlocks::new(System);
        unsafe {
            let a = blocks.alloc(layout(10, 1));
            a.copy_from_nonoverlapping(b"0123456789".as_ptr(), 10);
            assert_eq!(blocks.realloc(a, layout(10, 1), 16), a);
            let grown = blocks.realloc(a, layout(16, 1), 100);
            assert_ne!(grown, a);
            assert_eq!(std::slice::from_raw_parts(grown, 10), b"0123456789");
            let large = blocks.realloc(grown, layout(100, 1), 4096);
            assert_eq!(std::slice::from_raw_parts(large, 10), b"0123456789");
            let small = blocks.realloc(large, layout(4096, 1), 3);
            assert_eq!(std::slice::from_raw_parts(small, 3), b"012");
            blocks.dealloc(small, layout(3, 1));
        }
    }

    fn lists_are_empty(blocks: &SmallBlocks<System>) -> bool {
        // SAFETY: no allocation runs while the lists are read.
        unsafe { (*blocks.free.get()).iter().all(|p| p.is_null()) }
    }

    #[derive(Debug, Clone)]
    enum Step {
        Alloc { size: usize, align_log2: u32 },
        Free { which: usize },
        Realloc { which: usize, size: usize },
    }

    fn step() -> impl Strategy<Value = Step> {
        prop_oneof![
            (1usize..700, 0u32..5).prop_map(|(size, align_log2)| Step::Alloc { size, align_log2 }),
            any::<usize>().prop_map(|which| Step::Free { which }),
            (any::<usize>(), 1usize..700).prop_map(|(which, size)| Step::Realloc { which, size }),
        ]
    }

    proptest! {
        /// Whatever the order of allocations, frees and reallocations, live
        /// blocks never overlap and keep the bytes written into them.
        #[test]
        fn live_blocks_keep_their_bytes(steps in proptest::collection::vec(step(), 1..200)) {
            let blocks = SmallBlocks::new(System);
            // (address, layout, the byte it was filled with)
            let mut live: Vec<(*mut u8, Layout, u8)> = Vec::new();
            for (n, s) in steps.into_iter().enumerate() {
                let fill = n as u8;
                unsafe {
                    match s {
                        Step::Alloc { size, align_log2 } => {
                            let l = layout(size, 1 << align_log2);
                            let p = blocks.alloc(l);
                            prop_assert!(!p.is_null());
                            prop_assert_eq!(p as usize % l.align(), 0);
                            p.write_bytes(fill, size);
                            live.push((p, l, fill));
                        }
                        Step::Free { which } if !live.is_empty() => {
                            let (p, l, _) = live.swap_remove(which % live.len());
                            blocks.dealloc(p, l);
                        }
                        Step::Realloc { which, size } if !live.is_empty() => {
                            let i = which % live.len();
                            let (p, l, old_fill) = live[i];
                            let q = blocks.realloc(p, l, size);
                            prop_assert!(!q.is_null());
                            let kept = std::slice::from_raw_parts(q, l.size().min(size));
                            prop_assert!(kept.iter().all(|&b| b == old_fill));
                            q.write_bytes(fill, size);
                            live[i] = (q, layout(size, l.align()), fill);
                        }
                        _ => {}
                    }
                    for &(p, l, f) in &live {
                        let bytes = std::slice::from_raw_parts(p, l.size());
                        prop_assert!(bytes.iter().all(|&b| b == f), "a block lost its bytes");
                    }
                }
            }
            for (p, l, _) in live {
                unsafe { blocks.dealloc(p, l) };
            }
        }
    }
}
