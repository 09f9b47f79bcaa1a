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
    // Many small contiguous chunks, handed out as threads free up: a weight
    // is only an estimate (and items of one kind, which often cost alike,
    // sit together), so a fixed split leaves one core idle while the other
    // works through the expensive end.
    let per_chunk = total.div_ceil(threads * CHUNKS_PER_THREAD).max(1);
    let mut chunks: Vec<Vec<T>> = Vec::new();
    let mut current = Vec::new();
    let mut current_weight = 0;
    for item in items {
        current_weight += weight(&item);
        current.push(item);
        if current_weight >= per_chunk {
            chunks.push(std::mem::take(&mut current));
            current_weight = 0;
        }
    }
    if !current.is_empty() {
        chunks.push(current);
    }
    run_chunks(chunks, threads, &f)
}

/// How many chunks per thread `map_ordered` cuts: enough that the last one
/// to finish is short, few enough that handing them out costs nothing.
const CHUNKS_PER_THREAD: usize = 16;

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

/// Drop `value`, which holds `objects` parsed objects, on a thread of its
/// own natively when there are enough to be worth one, so the caller goes
/// on (and a process that exits next never waits for it); here and now
/// otherwise, and always in WebAssembly.
pub fn drop_in_background<T: Send + 'static>(value: T, objects: usize) {
    if thread_count() < 2 || objects < BACKGROUND_DROP_OBJECTS {
        return drop(value);
    }
    // Should no thread start, the closure, and `value` with it, is dropped
    // here instead.
    let _ = std::thread::Builder::new().spawn(move || drop(value));
}

/// Below this many objects, freeing them here is quicker than starting a
/// thread to do it.
const BACKGROUND_DROP_OBJECTS: usize = 64;

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
fn run_chunks<T: Send, R: Send, F: Fn(T) -> R + Sync>(
    chunks: Vec<Vec<T>>,
    threads: usize,
    f: &F,
) -> Vec<R> {
    let count = chunks.len();
    let queue = std::sync::Mutex::new(chunks.into_iter().enumerate());
    // Each thread takes the next chunk until none is left, keeping its
    // results with the chunk's number.
    let work = || {
        let mut done: Vec<(usize, Vec<R>)> = Vec::new();
        loop {
            let next = queue.lock().unwrap_or_else(|e| e.into_inner()).next();
            let Some((i, items)) = next else { break };
            done.push((i, items.into_iter().map(f).collect()));
        }
        done
    };
    let mut done = std::thread::scope(|scope| {
        let helpers: Vec<_> = (1..threads.min(count)).map(|_| scope.spawn(work)).collect();
        let mut done = work();
        for helper in helpers {
            match helper.join() {
                Ok(theirs) => done.extend(theirs),
                // A panic in `f` is a bug; surface it as the same panic.
                Err(payload) => std::panic::resume_unwind(payload),
            }
        }
        done
    });
    crate::sorting::sort_by_key(&mut done, |(i, _)| *i);
    done.into_iter().flat_map(|(_, results)| results).collect()
}

#[cfg(target_arch = "wasm32")]
fn run_chunks<T, R, F: Fn(T) -> R>(chunks: Vec<Vec<T>>, _threads: usize, f: &F) -> Vec<R> {
    chunks.into_iter().flatten().map(f).collect()
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

    #[test]
    fn a_panic_in_an_item_surfaces_with_its_own_message() {
        let outcome = std::panic::catch_unwind(|| {
            map_ordered(
                (0..1000).collect(),
                0,
                |_| 1,
                |i: usize| {
                    assert!(i != 700, "item 700 failed");
                    i
                },
            )
        });
        let payload = outcome.expect_err("the panic reaches the caller");
        let message = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied());
        assert_eq!(message, Some("item 700 failed"));
    }
}
