//! Sorting through one compiled sort.
//!
//! `slice::sort_by` and the B-trees' `FromIterator` (which sorts a vector
//! before building the tree) are compiled again for every element type and
//! comparator, each copy about 8 KB of the page's analysis worker. Here every
//! sort orders indices under one comparator type and then moves the elements
//! into place, and B-trees are filled by insertion, so the worker carries a
//! single sort. The results are those of the standard library's stable sort.
//! Two maps sorted alike are walked side by side ([`side_by_side`]).

use std::cmp::Ordering;

/// Sorts `items` stably by `compare`, as `slice::sort_by` does.
pub fn sort_by<T>(items: &mut [T], mut compare: impl FnMut(&T, &T) -> Ordering) {
    if items.len() < 2 {
        return;
    }
    let mut order = sorted_indices(items.len(), &mut |a, b| compare(&items[a], &items[b]));
    permute(items, &mut order);
}

/// Sorts `items` stably by the key `key` gives, as `slice::sort_by_key` does.
pub fn sort_by_key<T, K: Ord>(items: &mut [T], mut key: impl FnMut(&T) -> K) {
    sort_by(items, |a, b| key(a).cmp(&key(b)));
}

/// Sorts `items` stably in their own order, as `slice::sort` does.
pub fn sort<T: Ord>(items: &mut [T]) {
    sort_by(items, Ord::cmp);
}

/// `collect` for B-tree maps and sets without their sort: the collection is
/// filled by inserting the items one by one (for equal keys the last value
/// wins, as with `collect`).
pub trait CollectByInsertion: Iterator + Sized {
    /// Collects into `C` (a `BTreeMap`, a `BTreeSet`, any `Default + Extend`).
    fn collect_by_insertion<C: Default + Extend<Self::Item>>(self) -> C {
        let mut collection = C::default();
        collection.extend(self);
        collection
    }
}

impl<I: Iterator> CollectByInsertion for I {}

/// Every key of two maps sorted alike (B-trees, `serde_json`'s maps), in
/// order, with what each map holds for it: one walk through both, not a
/// lookup per key. Each map holds a key once.
pub fn side_by_side<'m, K: Ord + ?Sized + 'm, A: 'm, B: 'm>(
    a: impl Iterator<Item = (&'m K, &'m A)>,
    b: impl Iterator<Item = (&'m K, &'m B)>,
) -> impl Iterator<Item = (&'m K, Option<&'m A>, Option<&'m B>)> {
    let (mut a, mut b) = (a.peekable(), b.peekable());
    std::iter::from_fn(move || {
        let order = match (a.peek(), b.peek()) {
            (Some((ka, _)), Some((kb, _))) => ka.cmp(kb),
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (None, None) => return None,
        };
        Some(match order {
            Ordering::Less => a.next().map(|(k, v)| (k, Some(v), None))?,
            Ordering::Greater => b.next().map(|(k, v)| (k, None, Some(v)))?,
            Ordering::Equal => {
                let ((k, va), (_, vb)) = (a.next()?, b.next()?);
                (k, Some(va), Some(vb))
            }
        })
    })
}

/// The indices `0..len` in the stable order `compare` gives them: the one
/// instantiation of the standard library's sort that every sort here uses.
fn sorted_indices(len: usize, compare: &mut dyn FnMut(usize, usize) -> Ordering) -> Vec<usize> {
    let mut order: Vec<usize> = (0..len).collect();
    #[allow(clippy::disallowed_methods)] // the one sort everything else goes through
    order.sort_by(|&a, &b| compare(a, b));
    order
}

/// Moves `items` so that position `i` holds what was at `order[i]`, by
/// following each cycle of the permutation with swaps; `order` is used up.
fn permute<T>(items: &mut [T], order: &mut [usize]) {
    const DONE: usize = usize::MAX;
    for start in 0..order.len() {
        let mut at = start;
        loop {
            let from = std::mem::replace(&mut order[at], DONE);
            if from == DONE || from == start {
                break;
            }
            items.swap(at, from);
            at = from;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::{BTreeMap, BTreeSet};

    #[test]
    fn two_maps_are_walked_side_by_side_in_key_order() {
        let git: BTreeMap<&str, u8> = [("b", 1), ("e", 2), ("d", 3)].into();
        let live: BTreeMap<&str, u8> = [("a", 4), ("d", 5), ("f", 6)].into();
        let walked: Vec<(&str, Option<u8>, Option<u8>)> = side_by_side(git.iter(), live.iter())
            .map(|(k, g, l)| (*k, g.copied(), l.copied()))
            .collect();
        assert_eq!(
            walked,
            [
                ("a", None, Some(4)),
                ("b", Some(1), None),
                ("d", Some(3), Some(5)),
                ("e", Some(2), None),
                ("f", None, Some(6)),
            ]
        );
        let empty: BTreeMap<&str, u8> = BTreeMap::new();
        assert_eq!(side_by_side(git.iter(), empty.iter()).count(), 3);
        assert_eq!(side_by_side(empty.iter(), live.iter()).count(), 3);
    }

    proptest! {
        /// The same order as the standard library's stable sort, ties
        /// included (the key is coarse so that many elements tie).
        #[test]
        fn sorts_as_the_standard_library_does(items in proptest::collection::vec((0u8..6, any::<u16>()), 0..60)) {
            let mut ours = items.clone();
            sort_by_key(&mut ours, |item| item.0);
            let mut theirs = items.clone();
            #[allow(clippy::disallowed_methods)]
            theirs.sort_by_key(|item| item.0);
            prop_assert_eq!(ours, theirs);

            let mut ours = items.clone();
            sort(&mut ours);
            let mut theirs = items;
            #[allow(clippy::disallowed_methods)]
            theirs.sort();
            prop_assert_eq!(ours, theirs);
        }

        /// A sub-slice is sorted in place and the rest left alone.
        #[test]
        fn sorts_a_part_in_place(items in proptest::collection::vec(any::<u8>(), 1..40), split in 0usize..40) {
            let split = split.min(items.len());
            let mut ours = items.clone();
            sort(&mut ours[split..]);
            let mut theirs = items;
            #[allow(clippy::disallowed_methods)]
            theirs[split..].sort();
            prop_assert_eq!(ours, theirs);
        }

        /// Collecting by insertion builds what `collect` builds, the last
        /// value winning among equal keys.
        #[test]
        fn collects_as_collect_does(pairs in proptest::collection::vec((0u8..8, any::<u8>()), 0..40)) {
            let ours: BTreeMap<u8, u8> = pairs.iter().copied().collect_by_insertion();
            let theirs: BTreeMap<u8, u8> = pairs.iter().copied().collect();
            prop_assert_eq!(ours, theirs);
            let ours: BTreeSet<u8> = pairs.iter().map(|p| p.0).collect_by_insertion();
            let theirs: BTreeSet<u8> = pairs.iter().map(|p| p.0).collect();
            prop_assert_eq!(ours, theirs);
        }
    }
}
