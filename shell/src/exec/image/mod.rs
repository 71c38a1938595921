//! A task's own environment, without Docker: an OCI image (from a registry, an OCI layout or a
//! `docker save` tar) pulled and checked blob by blob, unpacked once per machine into a
//! content-addressed cache, and run under bubblewrap with its root as `/`.

mod archive;
pub(crate) mod cache;
mod command;
mod error;
mod layout;
mod lock;
pub(crate) mod manifest;
mod registry;
mod repository;
pub mod root;
mod source;
pub mod unpack;
mod zstd_layer;

pub use cache::{ImageCache, Unpacked};
pub use repository::{refuse_escaping_git, repository_in};
pub use root::ImageRun;
