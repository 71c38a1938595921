//! Where the time went: every model turn, tool call and test run placed on one clock, and drawn
//! to scale as an SVG of three lanes.
//!
//! Records since the turns carry `started_ms` and `duration_ms` are placed where they happened.
//! Older records (and authored fixtures) hold only each line's time since its request and each
//! call's duration: their turns and calls are laid end to end, a turn lasting until its last line.

use mend_core::ToolStatus;

use crate::task::ToolName;

use super::html::Html;
use super::view::{SessionView, Shown};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lane {
    Model,
    Tools,
    Tests,
}

impl Lane {
    pub(crate) const ALL: [Lane; 3] = [Lane::Model, Lane::Tools, Lane::Tests];

    pub(crate) fn name(self) -> &'static str {
        match self {
            Lane::Model => "model",
            Lane::Tools => "tools",
            Lane::Tests => "tests",
        }
    }
}

/// What a bar stands for; the page writes it into `data-` attributes, so that a test can find
/// each bar's duration in the record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Subject {
    TestsBefore,
    TestsAfter,
    /// `session` counts from 1 (a chat's message).
    Turn {
        session: usize,
        turn: u32,
    },
    Call {
        session: usize,
        turn: u32,
        index: u32,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Span {
    pub lane: Lane,
    pub subject: Subject,
    pub start_ms: u64,
    pub duration_ms: u64,
    /// Model turns: the first line's arrival, after the start.
    pub first_byte_ms: Option<u64>,
    /// A call that never ran.
    pub refused: bool,
    /// A `run_tests` call: a tool call of the loop (the tools lane), whose share the split names.
    pub runs_tests: bool,
    /// What the bar was, for its hover title.
    pub label: String,
    /// Model turns: the turn's name, drawn where it starts (`2`, or `2.1` in a record of several
    /// messages).
    pub mark: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Timeline {
    pub spans: Vec<Span>,
    pub total_ms: u64,
}

/// Where the time went, lane by lane.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Split {
    pub model_ms: u64,
    pub tools_ms: u64,
    /// Of `tools_ms`, the `run_tests` calls.
    pub run_tests_ms: u64,
    /// The independent checks, before and after the loop.
    pub tests_ms: u64,
}

impl Split {
    /// `model 2.8 s · tools 260 ms (run_tests 260 ms) · tests 495 ms`, as `mend show` and the
    /// page say it.
    pub(crate) fn describe(&self) -> String {
        let run_tests = if self.run_tests_ms > 0 {
            format!(" (run_tests {})", seconds(self.run_tests_ms))
        } else {
            String::new()
        };
        format!(
            "model {} · tools {}{run_tests} · tests {}",
            seconds(self.model_ms),
            seconds(self.tools_ms),
            seconds(self.tests_ms)
        )
    }
}

impl Timeline {
    pub(crate) fn of(shown: &Shown) -> Timeline {
        let mut spans = Vec::new();
        let mut cursor = 0;
        if let Some(run) = shown.tests_before {
            spans.push(test_span(Subject::TestsBefore, "tests before", 0, run));
            cursor = run.duration_ms;
        }
        for (number, session) in shown.sessions.iter().enumerate() {
            cursor = place_session(number + 1, session, cursor, &mut spans);
        }
        if let Some(ending) = &shown.ending {
            spans.push(test_span(
                Subject::TestsAfter,
                "tests after (the verdict)",
                cursor,
                &ending.after.tests_after,
            ));
            cursor += ending.after.tests_after.duration_ms;
        }
        Timeline {
            spans,
            total_ms: cursor,
        }
    }

    pub(crate) fn split(&self) -> Split {
        let mut split = Split::default();
        for span in &self.spans {
            match span.lane {
                Lane::Model => split.model_ms += span.duration_ms,
                Lane::Tools if span.runs_tests => {
                    split.tools_ms += span.duration_ms;
                    split.run_tests_ms += span.duration_ms;
                }
                Lane::Tools => split.tools_ms += span.duration_ms,
                Lane::Tests => split.tests_ms += span.duration_ms,
            }
        }
        split
    }
}

fn test_span(
    subject: Subject,
    what: &str,
    start_ms: u64,
    run: &crate::verdict::check::TestRun,
) -> Span {
    Span {
        lane: Lane::Tests,
        subject,
        start_ms,
        duration_ms: run.duration_ms,
        first_byte_ms: None,
        refused: false,
        runs_tests: false,
        label: format!("{what}: {} · {} ms", run.describe(), run.duration_ms),
        mark: None,
    }
}

/// Places one session's turns and calls from `base` on; returns when it ended.
fn place_session(number: usize, session: &SessionView, base: u64, spans: &mut Vec<Span>) -> u64 {
    let timed = !session.turns.is_empty()
        && session
            .turns
            .iter()
            .all(|turn| turn.started_ms.is_some() && turn.duration_ms.is_some());
    let mut cursor = base;
    let mut end = base;
    for turn in session.turns {
        let (first_line, last_line) = line_times(turn);
        let start = match turn.started_ms {
            Some(started) if timed => base + started,
            _ => cursor,
        };
        let duration = turn.duration_ms.or(last_line).unwrap_or(0);
        let first_byte = match first_line {
            Some(at) => format!(", first byte after {at} ms"),
            None => ", no line arrived".to_owned(),
        };
        let name = session.turn_name(turn.turn);
        // A repair request spends a turn of the budget, but the model wrote no turn of its own.
        let repair = turn.repair_of.map_or_else(String::new, |broken| {
            format!(
                " (repair of turn {}'s call under the tools' schema)",
                session.turn_name(broken)
            )
        });
        spans.push(Span {
            lane: Lane::Model,
            subject: Subject::Turn {
                session: number,
                turn: turn.turn,
            },
            start_ms: start,
            duration_ms: duration,
            first_byte_ms: first_line,
            refused: false,
            runs_tests: false,
            label: format!("turn {name}{repair}: model {duration} ms{first_byte}"),
            mark: Some(name),
        });
        cursor = start + duration;
        end = end.max(cursor);
        for call in session.calls.iter().filter(|call| call.turn == turn.turn) {
            let start = match call.started_ms {
                Some(started) if timed => base + started,
                _ => cursor,
            };
            spans.push(call_span(number, session, call, start));
            cursor = start + call.duration_ms;
            end = end.max(cursor);
        }
    }
    end
}

/// One call of session `number` on the tools' lane, from `start` on.
fn call_span(
    number: usize,
    session: &SessionView,
    call: &crate::record::RecordedCall,
    start: u64,
) -> Span {
    let status = match call.status {
        ToolStatus::Ok => "ok",
        ToolStatus::Failed => "failed",
        ToolStatus::Refused => "refused",
        // A status added to the core after this shell.
        _ => "other",
    };
    // The model's own test runs are tool calls of the loop, counted with the tools as the
    // call list and the run's metrics count them; the tests lane is the independent check.
    Span {
        lane: Lane::Tools,
        subject: Subject::Call {
            session: number,
            turn: call.turn,
            index: call.index,
        },
        start_ms: start,
        duration_ms: call.duration_ms,
        first_byte_ms: None,
        refused: call.status == ToolStatus::Refused,
        runs_tests: ToolName::named(&call.name) == Some(ToolName::RunTests),
        label: format!(
            "turn {}, call {}: {} ({status}) {} ms",
            session.turn_name(call.turn),
            call.index,
            call.name,
            call.duration_ms
        ),
        mark: None,
    }
}

/// When the turn's first and last lines arrived, in ms since its request.
fn line_times(turn: &crate::record::RecordedTurn) -> (Option<u64>, Option<u64>) {
    let mut times = turn
        .lines
        .iter()
        .filter_map(|line| line.ok().map(|line| line.at_ms));
    let first = times.next();
    let last = times.last().or(first);
    (first, last)
}

/// The chart's width in CSS pixels for the whole run; bars are `duration × WIDTH ÷ total`.
pub(crate) const CHART_WIDTH: f64 = 960.0;
const LABEL_WIDTH: f64 = 64.0;
/// About the width of a digit of a turn number (11 px system-ui), with room to spare.
const DIGIT_WIDTH: f64 = 7.0;
const LANE_HEIGHT: f64 = 22.0;
const TOP: f64 = 16.0;

/// Draws the timeline: one lane each for the model, the tools and the tests, an axis in seconds,
/// turn boundaries, first-byte ticks, and a `<title>` on every bar.
pub(crate) fn draw(timeline: &Timeline, page: &mut Html) {
    let scale = CHART_WIDTH / timeline.total_ms.max(1) as f64;
    let height = TOP + LANE_HEIGHT * 3.0 + 24.0;
    let width = LABEL_WIDTH + CHART_WIDTH + 16.0;
    page.markup(format_args!(
        "<svg class=\"timeline\" role=\"img\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" data-ms-per-px=\"{:.6}\">",
        1.0 / scale
    ));
    page.raw("<title>Timeline: model turns, tool calls and test runs, to scale</title>");
    for (row, lane) in Lane::ALL.iter().enumerate() {
        let y = TOP + LANE_HEIGHT * row as f64;
        page.markup(format_args!(
            "<text class=\"lane-name\" x=\"0\" y=\"{:.1}\">{}</text>",
            y + 15.0,
            lane.name()
        ));
    }
    draw_axis(timeline.total_ms, scale, height, page);
    let turns = timeline
        .spans
        .iter()
        .filter(|span| span.lane == Lane::Model)
        .count();
    let mut free_from = 0.0_f64;
    for span in &timeline.spans {
        let row = Lane::ALL
            .iter()
            .position(|lane| *lane == span.lane)
            .unwrap_or(0);
        let x = LABEL_WIDTH + span.start_ms as f64 * scale;
        let y = TOP + LANE_HEIGHT * row as f64 + 3.0;
        if let (Some(mark), true) = (&span.mark, turns <= 40) {
            page.markup(format_args!(
                "<line class=\"turn-start\" x1=\"{x:.3}\" x2=\"{x:.3}\" y1=\"{}\" y2=\"{:.1}\"/>",
                TOP - 2.0,
                TOP + LANE_HEIGHT * 3.0,
            ));
            // A number drawn over the one before it reads as neither: quick turns next to long
            // test runs share a pixel. The line still marks the turn; its bar's title names it.
            if x + 2.0 >= free_from {
                page.markup(format_args!(
                    "<text class=\"turn-number\" x=\"{:.3}\" y=\"11\">{mark}</text>",
                    x + 2.0
                ));
                free_from = x + 2.0 + DIGIT_WIDTH * (mark.chars().count() as f64 + 1.0);
            }
        }
        if span.refused {
            page.markup(format_args!(
                "<path class=\"refused-mark\" tabindex=\"0\" d=\"M{x:.3} {y:.1} l4 8 l-8 0 z\">"
            ));
            page.raw("<title>").text(&span.label).raw("</title></path>");
            continue;
        }
        page.markup(format_args!(
            "<rect class=\"bar {}\" tabindex=\"0\" x=\"{x:.3}\" y=\"{y:.1}\" width=\"{:.3}\" height=\"16\"",
            span.lane.name(),
            span.duration_ms as f64 * scale
        ));
        write_subject(&span.subject, page);
        page.raw("><title>")
            .text(&span.label)
            .raw("</title></rect>");
        if let Some(first_byte) = span.first_byte_ms {
            let at = x + first_byte as f64 * scale;
            page.markup(format_args!(
                "<line class=\"first-byte\" tabindex=\"0\" x1=\"{at:.3}\" x2=\"{at:.3}\" y1=\"{:.1}\" y2=\"{:.1}\"><title>first byte after {first_byte} ms</title></line>",
                y - 2.0,
                y + 18.0
            ));
        }
    }
    page.raw("</svg>");
}

fn write_subject(subject: &Subject, page: &mut Html) {
    match subject {
        Subject::TestsBefore => page.raw(" data-subject=\"tests-before\""),
        Subject::TestsAfter => page.raw(" data-subject=\"tests-after\""),
        Subject::Turn { session, turn } => page.markup(format_args!(
            " data-subject=\"turn\" data-session=\"{session}\" data-turn=\"{turn}\""
        )),
        Subject::Call {
            session,
            turn,
            index,
        } => page.markup(format_args!(
            " data-subject=\"call\" data-session=\"{session}\" data-turn=\"{turn}\" data-index=\"{index}\""
        )),
    };
}

/// Ticks at 1, 2 or 5 × 10ⁿ ms, at most ten of them.
fn draw_axis(total_ms: u64, scale: f64, height: f64, page: &mut Html) {
    let step = tick_step(total_ms);
    let y = TOP + LANE_HEIGHT * 3.0;
    let mut at = 0;
    while at <= total_ms {
        let x = LABEL_WIDTH + at as f64 * scale;
        page.markup(format_args!(
            "<line class=\"tick\" x1=\"{x:.3}\" x2=\"{x:.3}\" y1=\"{TOP}\" y2=\"{:.1}\"/><text class=\"tick-label\" x=\"{x:.3}\" y=\"{:.1}\">{}</text>",
            y + 4.0,
            height - 4.0,
            seconds(at)
        ));
        at += step;
    }
}

fn tick_step(total_ms: u64) -> u64 {
    let mut unit = 1;
    loop {
        for factor in [1, 2, 5] {
            if total_ms / (unit * factor) <= 10 {
                return unit * factor;
            }
        }
        unit *= 10;
    }
}

pub(crate) fn seconds(ms: u64) -> String {
    if ms < 1000 {
        format!("{ms} ms")
    } else {
        format!("{:.1} s", ms as f64 / 1000.0)
    }
}
