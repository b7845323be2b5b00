//! Items looked at a few ahead of their turn. Finding an item in a large table is a read of
//! memory that the next item's work does not wait for: asked for early (a prefetch), the reads
//! of several items are in flight at once instead of one after another.

/// How many items ahead of the one decided its slot is asked for: enough reads in flight to
/// cover memory's latency, few enough to stay in the nearest cache.
pub(crate) const AHEAD: usize = 16;

/// Hands `step` each `look(item)` of `items`, in order, and `warm` each looked item [`AHEAD`]
/// items before its step. Ends at the first error of `look` or `step`, as a loop of
/// `step(look(item)?)?` does: an error of `look` is returned once every item before it has
/// had its step.
pub(crate) fn each<I, T: Copy + Default, E>(
    items: impl Iterator<Item = I>,
    mut look: impl FnMut(I) -> Result<T, E>,
    mut warm: impl FnMut(&T),
    mut step: impl FnMut(T) -> Result<(), E>,
) -> Result<(), E> {
    let mut items = items.fuse();
    let mut ring = [T::default(); AHEAD];
    let (mut head, mut tail) = (0usize, 0usize);
    let mut failed = None;
    loop {
        while failed.is_none() && tail - head < AHEAD {
            let Some(item) = items.next() else { break };
            match look(item) {
                Ok(looked) => {
                    warm(&looked);
                    ring[tail % AHEAD] = looked;
                    tail += 1;
                }
                Err(error) => failed = Some(error),
            }
        }
        if head == tail {
            return failed.map_or(Ok(()), Err);
        }
        step(ring[head % AHEAD])?;
        head += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// What a plain loop does: the steps taken, and the error that ends it.
    fn plain(items: &[u32], bad_look: u32, bad_step: u32) -> (Vec<u32>, Result<(), String>) {
        let mut steps = Vec::new();
        let result = (|| {
            for &item in items {
                if item == bad_look {
                    return Err(format!("look {item}"));
                }
                if item == bad_step {
                    return Err(format!("step {item}"));
                }
                steps.push(item);
            }
            Ok(())
        })();
        (steps, result)
    }

    proptest! {
        /// The same steps in the same order and the same error as the plain loop, each item
        /// warmed before its step, and as many items ahead of it as [`AHEAD`] allows.
        #[test]
        fn as_a_plain_loop(
            items in prop::collection::vec(0u32..20, 0..50),
            bad_look in 0u32..25,
            bad_step in 0u32..25,
        ) {
            let lookable = items.iter().position(|&item| item == bad_look).unwrap_or(items.len());
            let warmed = std::cell::RefCell::new(Vec::new());
            let mut steps = Vec::new();
            let result = each(
                items.iter().copied().enumerate(),
                |(at, item)| {
                    if item == bad_look {
                        return Err(format!("look {item}"));
                    }
                    Ok((at, item))
                },
                |&(at, _)| warmed.borrow_mut().push(at),
                |(at, item)| {
                    if item == bad_step {
                        return Err(format!("step {item}"));
                    }
                    let warmed = warmed.borrow();
                    assert_eq!(*warmed, (0..lookable.min(at + AHEAD)).collect::<Vec<_>>());
                    steps.push(item);
                    Ok(())
                },
            );
            let (want_steps, want_result) = plain(&items, bad_look, bad_step);
            prop_assert_eq!(steps, want_steps);
            prop_assert_eq!(result, want_result);
        }
    }
}
