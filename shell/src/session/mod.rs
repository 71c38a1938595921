//! One attempt: the loop that feeds the core its inputs and performs its actions
//! ([`driver`]), what it records ([`recorder`]), the checks around it ([`attempt`]), and what a
//! person or a program sees of it ([`render`]).

pub mod attempt;
pub mod driver;
mod handoff;
pub mod recorder;
pub mod render;
pub mod run_record;
