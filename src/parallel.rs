//! Work split across the machine's cores natively, and done in order on one
//! thread in WebAssembly (the page's worker has no threads). Results always
//! come back in the order of the items, so output stays deterministic.

#![warn(missing_docs)]

/// Apply `f` to every item, in parallel when there is enough work (`weight`
/// estimates an item's cost, e.g. its bytes; below `min_total` the thread
/// start-up would cost more than it saves).
pub fn map_ordered<T, R, F, W>(items: Vec<T>, min_total: usize, weight: W, f: F) -> Vec<R>
where
    T: Send,
    R: Send,
    F: Fn(T) -> R + Sync,
    W: Fn(&T) -> usize,
{
    let threads = thread_count();
    let total: usize = items.iter().map(&weight).sum();
    if threads < 2 || items.len() < 2 || total < min_total {
        return items.into_iter().map(f).collect();
    }
    // Contiguous groups of about equal weight keep the order trivially.
    let per_group = total.div_ceil(threads).max(1);
    let mut groups: Vec<Vec<T>> = Vec::with_capacity(threads);
    let mut current = Vec::new();
    let mut current_weight = 0;
    for item in items {
        current_weight += weight(&item);
        current.push(item);
        if current_weight >= per_group && groups.len() + 1 < threads {
            groups.push(std::mem::take(&mut current));
            current_weight = 0;
        }
    }
    if !current.is_empty() {
        groups.push(current);
    }
    run_groups(groups, &f)
}

/// Run `a` on this thread while `b` runs on another natively; one after
/// the other in WebAssembly. `b` gets a thread of the default stack size,
/// so it should not recurse deep (`a` keeps the caller's stack).
pub fn join<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA,
    B: FnOnce() -> RB + Send,
    RB: Send,
{
    if thread_count() < 2 {
        return (a(), b());
    }
    join_threads(a, b)
}

#[cfg(not(target_arch = "wasm32"))]
fn join_threads<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA,
    B: FnOnce() -> RB + Send,
    RB: Send,
{
    std::thread::scope(|scope| {
        let other = scope.spawn(b);
        let ra = a();
        match other.join() {
            Ok(rb) => (ra, rb),
            // A panic in `b` is a bug; surface it as the same panic.
            Err(payload) => std::panic::resume_unwind(payload),
        }
    })
}

#[cfg(target_arch = "wasm32")]
fn join_threads<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA,
    B: FnOnce() -> RB + Send,
    RB: Send,
{
    (a(), b())
}

#[cfg(not(target_arch = "wasm32"))]
fn thread_count() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get().min(8))
}

#[cfg(target_arch = "wasm32")]
fn thread_count() -> usize {
    1
}

#[cfg(not(target_arch = "wasm32"))]
fn run_groups<T: Send, R: Send, F: Fn(T) -> R + Sync>(groups: Vec<Vec<T>>, f: &F) -> Vec<R> {
    std::thread::scope(|scope| {
        let handles: Vec<_> = groups
            .into_iter()
            .map(|group| scope.spawn(move || group.into_iter().map(f).collect::<Vec<R>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| match h.join() {
                Ok(results) => results,
                // A panic in `f` is a bug; surface it as the same panic.
                Err(payload) => std::panic::resume_unwind(payload),
            })
            .collect()
    })
}

#[cfg(target_arch = "wasm32")]
fn run_groups<T, R, F: Fn(T) -> R>(groups: Vec<Vec<T>>, f: &F) -> Vec<R> {
    groups.into_iter().flatten().map(f).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn join_returns_both_results() {
        let (a, b) = join(|| (0..100).sum::<u32>(), || "other".len());
        assert_eq!((a, b), (4950, 5));
    }

    #[test]
    fn results_keep_the_order_of_the_items() {
        let items: Vec<usize> = (0..1000).collect();
        let doubled = map_ordered(items, 0, |_| 1, |i| i * 2);
        assert_eq!(doubled, (0..1000).map(|i| i * 2).collect::<Vec<_>>());
        let few = map_ordered(vec![3, 1, 2], usize::MAX, |_| 1, |i| i + 1);
        assert_eq!(few, vec![4, 2, 3]);
    }
}
