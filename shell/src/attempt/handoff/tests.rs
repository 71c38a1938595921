use std::collections::VecDeque;
use std::thread;
use std::time::Duration;

use super::{handoff, Taken};

const LONG: Duration = Duration::from_secs(10);

/// Takes until the writer is gone; every `take_all` must give items or the close.
fn drain(reader: &super::Reader<u32>) -> Vec<u32> {
    let mut taken = VecDeque::new();
    loop {
        match reader.take_all(&mut taken, LONG) {
            Taken::Items => {}
            Taken::Closed => return taken.into(),
            Taken::TimedOut => panic!("the writer stalled for {LONG:?}"),
        }
    }
}

#[test]
fn every_item_arrives_once_in_order_through_a_small_queue() {
    let (writer, reader) = handoff(8);
    let pushing = thread::spawn(move || {
        for item in 0..10_000 {
            writer.push(item).unwrap();
        }
    });
    let taken = drain(&reader);
    pushing.join().unwrap();
    assert_eq!(taken, (0..10_000).collect::<Vec<u32>>());
}

#[test]
fn a_lone_item_wakes_a_waiting_reader_before_its_timeout() {
    let (writer, reader) = handoff(8);
    let pushing = thread::spawn(move || {
        thread::sleep(Duration::from_millis(20));
        writer.push(7).unwrap();
        // Keep the writer alive: the item, not the close, must end the wait.
        thread::sleep(Duration::from_millis(200));
    });
    let mut taken = VecDeque::new();
    assert!(matches!(reader.take_all(&mut taken, LONG), Taken::Items));
    assert_eq!(taken, VecDeque::from([7]));
    pushing.join().unwrap();
}

#[test]
fn an_empty_queue_times_out_while_the_writer_lives() {
    let (writer, reader) = handoff::<u32>(8);
    let mut taken = VecDeque::new();
    assert!(matches!(
        reader.take_all(&mut taken, Duration::from_millis(10)),
        Taken::TimedOut
    ));
    drop(writer);
    assert!(matches!(reader.take_all(&mut taken, LONG), Taken::Closed));
    assert!(taken.is_empty());
}

#[test]
fn items_queued_before_the_writer_left_are_still_taken() {
    let (writer, reader) = handoff(8);
    writer.push(1).unwrap();
    writer.push(2).unwrap();
    drop(writer);
    assert_eq!(drain(&reader), vec![1, 2]);
}

#[test]
fn a_writer_waiting_for_room_gets_its_item_back_when_the_reader_leaves() {
    let (writer, reader) = handoff(1);
    writer.push(1).unwrap();
    let pushing = thread::spawn(move || writer.push(2));
    thread::sleep(Duration::from_millis(20));
    drop(reader);
    assert_eq!(pushing.join().unwrap(), Err(2));
}
