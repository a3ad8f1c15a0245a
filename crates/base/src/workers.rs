//! Work on the machine's second core: one task beside the caller's own ([`beside`]), or a list
//! mapped on two cores with its results in order ([`map_in_order`]). A worker that panics is an
//! error naming its task, never a second panic.

use crate::error::{Error, Result};

/// Runs `side` on a second thread while `main` runs on this one; `side`'s result, a panic there
/// being [`Error::WorkerFailed`] for `task`, and `main`'s.
pub fn beside<A: Send, B>(
    task: &'static str,
    side: impl FnOnce() -> Result<A> + Send,
    main: impl FnOnce() -> B,
) -> (Result<A>, B) {
    std::thread::scope(|scope| {
        let side = scope.spawn(side);
        let main = main();
        let side = side.join().unwrap_or(Err(Error::WorkerFailed { task }));
        (side, main)
    })
}

/// `f` of every item of `items`, in order, on two cores: the items alternate between them, so
/// that each gets a like share of small and large ones. Every item is mapped, and the error
/// returned is the first in the items' order, as mapping them one after another gives.
pub fn map_in_order<T: Sync, R: Send>(
    items: &[T],
    task: &'static str,
    f: impl Fn(&T) -> Result<R> + Sync,
) -> Result<Vec<R>> {
    let every_other =
        |start: usize| -> Vec<Result<R>> { items.iter().skip(start).step_by(2).map(&f).collect() };
    let (odd, even) = beside(task, || Ok(every_other(1)), || every_other(0));
    let mut odd = odd?.into_iter();
    let mut out = Vec::with_capacity(items.len());
    for one in even {
        out.push(one);
        out.extend(odd.next());
    }
    out.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_keep_their_order_and_the_first_error_in_order_wins() {
        for n in 0..7 {
            let items: Vec<usize> = (0..n).collect();
            let doubled = map_in_order(&items, "test", |&i| Ok(i * 2)).unwrap();
            assert_eq!(doubled, (0..n).map(|i| i * 2).collect::<Vec<_>>());
        }
        // Items 3 (on the second core) and 4 (on this one) fail: 3 comes first.
        let items: Vec<usize> = (0..8).collect();
        let err = map_in_order(&items, "test", |&i| {
            if i == 3 || i == 4 {
                Err(Error::WorkerFailed {
                    task: if i == 3 { "three" } else { "four" },
                })
            } else {
                Ok(i)
            }
        })
        .unwrap_err();
        assert!(
            matches!(err, Error::WorkerFailed { task: "three" }),
            "{err}"
        );
    }

    #[test]
    fn a_panicking_worker_is_an_error_naming_its_task() {
        let (side, main) = beside(
            "the side task",
            || -> Result<()> { panic!("deliberate") },
            || 7,
        );
        assert_eq!(main, 7);
        assert!(matches!(
            side,
            Err(Error::WorkerFailed {
                task: "the side task"
            })
        ));
    }
}
