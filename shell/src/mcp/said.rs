//! What the server says of itself in both eras of the protocol: the handshake's versions and
//! its instructions (the 2026-07-28 revision's `server/discover` lists the same).

/// The handshake's protocol versions mend speaks, newest first: a client asking for one of them gets it,
/// any other client gets the newest, and decides whether it can go on.
pub(crate) const PROTOCOL_VERSIONS: [&str; 4] =
    ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// What mend's server is for, said to the client (and perhaps its model) once.
pub(crate) const INSTRUCTIONS: &str = "verify runs a repository's own tests (its mend.toml) on a throwaway copy, with a patch applied or the repository as it is, and returns mend's verdict: counts, the failing tests and the end of the output (`detail: \"tests\"` adds each test's outcome by id). task says what the repository's task allows.";
