//! How a session ends: the one stop, and the deadline that can cause it.

use crate::prelude::*;

use crate::action::Action;
use crate::event::Event;
use crate::input::Millis;
use crate::rejection::Rejection;
use crate::stop::{Stop, StopCause, StopReason};
use crate::window::WindowError;

use super::{Phase, Queue, Session};

impl Session {
    pub(super) fn on_deadline(
        &mut self,
        now: Millis,
        actions: &mut Queue,
    ) -> Result<(), Rejection> {
        match self.config.deadline {
            Some(deadline) if now >= deadline => {
                let detail = format!("the run passed its deadline at {} ms", deadline.0);
                self.stop(StopReason::DeadlineExceeded, Some(detail), actions);
                Ok(())
            }
            Some(deadline) => Err(Rejection::DeadlineNotReached { deadline, now }),
            None => Err(Rejection::NoDeadline),
        }
    }

    /// The turn's `done` arrived: it is complete unless the output was cut off.
    pub(super) fn stop(&mut self, reason: StopReason, detail: Option<String>, actions: &mut Queue) {
        self.stop_because(reason, detail, None, actions);
    }

    pub(super) fn stop_because(
        &mut self,
        reason: StopReason,
        detail: Option<String>,
        cause: Option<StopCause>,
        actions: &mut Queue,
    ) {
        let turn = self.turn();
        let stop = Stop {
            reason,
            detail,
            cause,
        };
        actions.push_back(Action::Emit(Event::Stopped(stop.clone())));
        actions.push_back(Action::Stop(stop.clone()));
        self.phase = Phase::Stopped { turn, stop };
    }

    /// The conversation no longer fits the window: `context_exceeded`, its error the cause and
    /// its words the detail.
    pub(super) fn stop_on_window(&mut self, error: WindowError, actions: &mut Queue) {
        let detail = error.to_string();
        let cause = Some(StopCause::Window(error));
        self.stop_because(StopReason::ContextExceeded, Some(detail), cause, actions);
    }
}
