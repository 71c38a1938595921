//! mend-core embedded in an async runtime. The driver is `tests/tokio_driver/driver.rs`: about a
//! hundred lines of tokio and reqwest that run whole sessions against the shell tests' loopback
//! server, answer tools from an in-memory table, turn `next_deadline()` into a `tokio::time`
//! sleep and stop on a cancel signal — and produce the same transcript as the blocking shell's
//! driver. This crate has no code of its own: it exists so that the driver is a test in
//! `make test` without giving mend-core any dependency beyond serde and serde_json.
