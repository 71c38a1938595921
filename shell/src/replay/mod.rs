//! Playing a record again without a model server: its streams served back ([`source`]), its
//! conversation driven through the core message by message ([`conversation`]), and every
//! outcome compared with the record ([`divergence`]). Used by `mend replay` and `mend resume`.

pub(crate) mod conversation;
pub(crate) mod divergence;
pub(crate) mod source;
