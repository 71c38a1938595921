//! The context window as the session keeps it (`budget`), the first request estimated without a
//! session (`first_request`), and each server's prompt count read
//! against it (`prompt_counts`).

mod budget;
mod first_request;
mod prompt_counts;
