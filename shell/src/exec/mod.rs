//! The running of a repository's commands: the one runner every command goes through
//! ([`runner`]), the sandbox it runs in ([`sandbox`], with the isolation every
//! bubblewrap sandbox keeps in [`bwrap`]), the user's toolchains shown inside it
//! ([`toolchain`]), the Python that runs a repository's tests ([`interpreter`]), and the bounded
//! child process under all of them ([`process`]), and the bytecode a sandboxed run may read
//! ([`bytecode`]). What runs here runs in the throwaway copy that
//! [`crate::workspace`] makes; a task's image, when it names one, is its root ([`image`]).

pub(crate) mod bwrap;
pub(crate) mod bytecode;
pub(crate) mod editable;
pub mod image;
pub(crate) mod interpreter;
pub(crate) mod process;
pub(crate) mod reaper;
pub mod runner;
pub mod sandbox;
pub mod set_up;
pub(crate) mod toolchain;
