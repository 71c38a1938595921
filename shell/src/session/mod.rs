//! One attempt: the loop that feeds the core its inputs and performs its actions
//! ([`driver`]), what it records ([`recorder`]), the checks around it ([`attempt`]), what a person or a program sees of it
//! ([`render`]), and the Ctrl-C and deadline watch ([`interrupt`]).

pub mod attempt;
pub mod driver;
mod handoff;
pub mod interrupt;
pub mod recorder;
pub mod render;
