//! The thread that posts traces to the collector, fed through a bounded queue: the run hands a
//! trace over and goes on. A collector that is down, slow or refuses costs one warning on
//! stderr, never the run; at the end mend waits for the sender at most [`FINISH_GRACE`].

use std::sync::mpsc::{self, Receiver, SyncSender, TrySendError};
use std::thread;
use std::time::Duration;

/// Traces waiting to be sent; one more is dropped (with the warning).
const QUEUE: usize = 4;
/// How long one post may take, connecting included.
const POST_TIMEOUT: Duration = Duration::from_secs(2);
/// How long the end of a run waits for what is still being sent.
pub const FINISH_GRACE: Duration = Duration::from_millis(500);

/// The handle of the sending thread: hands traces over without waiting, and waits a bounded time at the end.
pub struct Sender {
    queue: Option<SyncSender<Vec<u8>>>,
    done: Receiver<()>,
    url: String,
    warned: bool,
}

impl Sender {
    /// Starts the thread that posts to `url`.
    pub fn start(url: &str) -> Sender {
        let (queue, traces) = mpsc::sync_channel::<Vec<u8>>(QUEUE);
        let (finished, done) = mpsc::channel();
        let target = url.to_owned();
        thread::spawn(move || {
            let agent = ureq::AgentBuilder::new().timeout(POST_TIMEOUT).build();
            let mut warned = false;
            for body in traces {
                let posted = agent
                    .post(&target)
                    .set("Content-Type", "application/x-protobuf")
                    .send_bytes(&body);
                if let Err(err) = posted {
                    if !warned {
                        eprintln!("mend: warning: cannot send the run's trace to {target}: {err} — the run goes on without telemetry");
                        warned = true;
                    }
                }
            }
            let _receiver_gone = finished.send(());
        });
        Sender {
            queue: Some(queue),
            done,
            url: url.to_owned(),
            warned: false,
        }
    }

    /// Hands `body` (an encoded export request) to the thread; a full queue drops it.
    pub fn send(&mut self, body: Vec<u8>) {
        let Some(queue) = &self.queue else { return };
        match queue.try_send(body) {
            Ok(()) => {}
            Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) if !self.warned => {
                eprintln!(
                    "mend: warning: the telemetry queue for {} is full; a trace was dropped",
                    self.url
                );
                self.warned = true;
            }
            Err(_) => {}
        }
    }

    /// Closes the queue and waits at most [`FINISH_GRACE`] for the posts still under way.
    pub fn finish(mut self) {
        self.queue = None;
        let _sent_or_given_up = self.done.recv_timeout(FINISH_GRACE);
    }
}

#[cfg(test)]
mod tests {
    use std::net::TcpListener;
    use std::time::{Duration, Instant};

    use super::{Sender, FINISH_GRACE};

    #[test]
    fn a_collector_that_never_answers_holds_the_end_of_a_run_no_longer_than_the_grace() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/v1/traces", listener.local_addr().unwrap());
        let holder = std::thread::spawn(move || {
            let held = listener.accept();
            std::thread::sleep(Duration::from_secs(5));
            drop(held);
        });
        let mut sender = Sender::start(&url);
        sender.send(vec![1, 2, 3]);
        let started = Instant::now();
        sender.finish();
        let waited = started.elapsed();
        // The post itself may take two seconds; the run waits for it only this long.
        assert!(
            waited < FINISH_GRACE + Duration::from_millis(700),
            "{waited:?}"
        );
        drop(holder);
    }
}
