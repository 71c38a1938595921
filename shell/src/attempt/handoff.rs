//! The bounded queue between a response body's reader thread and the loop.
//!
//! A channel wakes the other side for every line: when the reader is ahead and the queue is
//! full, each line the loop takes unparks the reader, which puts one line back and parks again,
//! two system calls per line. Here the loop takes everything queued at once and wakes the reader
//! only if it waits for room, so a fast server costs one wake per batch, and a line that arrives
//! alone is still handed over the moment it is pushed.

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

/// Both ends' view of the queue.
struct Shared<T> {
    state: Mutex<State<T>>,
    /// Signalled when items arrive or the writer leaves.
    arrived: Condvar,
    /// Signalled when the reader takes items or leaves.
    drained: Condvar,
    capacity: usize,
}

struct State<T> {
    items: VecDeque<T>,
    writer_gone: bool,
    reader_gone: bool,
    reader_waiting: bool,
    writer_waiting: bool,
}

impl<T> Shared<T> {
    /// A panic on the other end leaves the queue itself consistent (every critical section only
    /// moves items or flips flags), so a poisoned lock is still safe to use.
    fn lock(&self) -> MutexGuard<'_, State<T>> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The reader thread's end: pushes items one at a time, waits while the queue is full.
pub(super) struct Writer<T> {
    shared: Arc<Shared<T>>,
}

/// The loop's end: takes every queued item at once.
pub(super) struct Reader<T> {
    shared: Arc<Shared<T>>,
}

/// What a wait for items gave.
pub(super) enum Taken {
    /// At least one item was moved into the caller's buffer.
    Items,
    /// Nothing arrived within the wait.
    TimedOut,
    /// The writer is gone and nothing is left.
    Closed,
}

/// A queue that holds at most `capacity` items (at least one).
pub(super) fn handoff<T>(capacity: usize) -> (Writer<T>, Reader<T>) {
    let shared = Arc::new(Shared {
        state: Mutex::new(State {
            items: VecDeque::new(),
            writer_gone: false,
            reader_gone: false,
            reader_waiting: false,
            writer_waiting: false,
        }),
        arrived: Condvar::new(),
        drained: Condvar::new(),
        capacity: capacity.max(1),
    });
    (
        Writer {
            shared: Arc::clone(&shared),
        },
        Reader { shared },
    )
}

impl<T> Writer<T> {
    /// Queues `item`, waiting while the queue is full. `Err` gives the item back when the reader
    /// is gone: nobody wants the rest of the body.
    pub(super) fn push(&self, item: T) -> Result<(), T> {
        let mut state = self.shared.lock();
        while state.items.len() >= self.shared.capacity && !state.reader_gone {
            state.writer_waiting = true;
            state = self
                .shared
                .drained
                .wait(state)
                .unwrap_or_else(PoisonError::into_inner);
        }
        state.writer_waiting = false;
        if state.reader_gone {
            return Err(item);
        }
        state.items.push_back(item);
        if state.reader_waiting {
            self.shared.arrived.notify_one();
        }
        Ok(())
    }
}

impl<T> Drop for Writer<T> {
    fn drop(&mut self) {
        let mut state = self.shared.lock();
        state.writer_gone = true;
        self.shared.arrived.notify_one();
    }
}

impl<T> Reader<T> {
    /// Moves every queued item to the end of `into`, waiting up to `timeout` for the first.
    pub(super) fn take_all(&self, into: &mut VecDeque<T>, timeout: Duration) -> Taken {
        let mut state = self.shared.lock();
        if state.items.is_empty() && !state.writer_gone {
            state.reader_waiting = true;
            state = self
                .shared
                .arrived
                .wait_timeout_while(state, timeout, |state| {
                    state.items.is_empty() && !state.writer_gone
                })
                .unwrap_or_else(PoisonError::into_inner)
                .0;
            state.reader_waiting = false;
        }
        if state.items.is_empty() {
            return if state.writer_gone {
                Taken::Closed
            } else {
                Taken::TimedOut
            };
        }
        into.append(&mut state.items);
        if state.writer_waiting {
            self.shared.drained.notify_one();
        }
        Taken::Items
    }
}

impl<T> Drop for Reader<T> {
    fn drop(&mut self) {
        let mut state = self.shared.lock();
        state.reader_gone = true;
        state.items.clear();
        self.shared.drained.notify_one();
    }
}

#[cfg(test)]
mod tests;
