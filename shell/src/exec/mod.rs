//! How a command of the repository runs.

pub mod image;
