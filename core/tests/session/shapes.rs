//! Inputs and sessions as JSON: a streamed line with its arrival, the queue a saved session still
//! owes, and what older writers wrote (a line without its arrival, a session without a queue).

use mend_core::{Action, Input, Millis, Session, StreamLine};
use serde_json::{json, Value};

use crate::support::{config, Handled};

#[test]
fn a_line_is_its_bytes_and_its_arrival_and_an_older_line_arrived_at_zero() {
    let line = Input::StreamLine(StreamLine::new(b"{}".to_vec(), Millis(12)));
    let written = serde_json::to_value(&line).unwrap();
    let older: Input =
        serde_json::from_value(json!({"type": "stream_line", "line": [123, 125]})).unwrap();
    assert_eq!(
        (written, older),
        (
            json!({"type": "stream_line", "line": [123, 125], "at_ms": 12}),
            Input::StreamLine(StreamLine::new(b"{}".to_vec(), Millis(0)))
        )
    );
}

#[test]
fn a_saved_session_still_owes_its_queued_actions_and_an_older_one_owes_none() {
    let mut session = Session::new(config(3)).unwrap();
    let saved = serde_json::to_string(&session).unwrap();
    let mut restored: Session = serde_json::from_str(&saved).unwrap();
    let owed: Vec<Action> = restored.drain_actions().collect();
    let first: Vec<Action> = session.drain_actions().collect();
    assert_eq!((owed.len(), &owed), (2, &first));

    // A session written before the queue existed has no `queued` key: it reads, owing nothing.
    let mut older: Value = serde_json::from_str(&saved).unwrap();
    older.as_object_mut().unwrap().remove("queued");
    let mut older: Session = serde_json::from_value(older).unwrap();
    assert_eq!(older.poll_action(), None);
    assert_eq!(older, session);
    let cancel = older.handled(Millis(1), Input::Cancel);
    assert_eq!(cancel, session.handled(Millis(1), Input::Cancel));
}
