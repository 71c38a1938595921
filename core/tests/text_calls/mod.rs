//! Calls written as text, as properties over generated sessions.

mod properties;
