//! The protocols from outside: their names in JSON, for users and records.

mod names;
