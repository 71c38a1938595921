//! The names OCI gives things, as plain values: an image reference (what a task's
//! `[environment] image` names: a registry's image, an OCI layout or a `docker save` tar) and a
//! content digest (`sha256:…`, with the reader that checks bytes against one). The task file
//! parses them and `exec::image` pulls and checks by them, so they stand below both.

pub(crate) mod digest;
pub(crate) mod reference;

pub use reference::ImageRef;
