//! The context window as the session keeps it (`budget`), and each server's prompt count read
//! against it (`prompt_counts`).

mod budget;
mod prompt_counts;
