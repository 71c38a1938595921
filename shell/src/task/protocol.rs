//! The protocol a model server speaks, as users write it: `--protocol`, and `model.protocol` in
//! a task file or an eval suite (`model.provider`, its older name, still reads). Every name is
//! turned into a [`Protocol`] here, once, as the file or the command line is read.

use std::ops::Range;

use clap::builder::{PossibleValuesParser, TypedValueParser};
use mend_core::Protocol;
use toml::Spanned;

use crate::error::MendError;

/// A name that is no protocol's; its message lists the names there are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct UnknownProtocol(pub String);

impl std::fmt::Display for UnknownProtocol {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut names: Vec<&str> = Protocol::ALL
            .iter()
            .map(|protocol| protocol.name())
            .collect();
        let last = names.pop().unwrap_or_default();
        write!(
            f,
            "unknown protocol `{}`; use {} or {last}",
            self.0,
            names.join(", ")
        )
    }
}

impl std::error::Error for UnknownProtocol {}

/// The protocol `name` names, or why it names none.
pub(crate) fn parse(name: &str) -> Result<Protocol, UnknownProtocol> {
    Protocol::from_name(name).ok_or_else(|| UnknownProtocol(name.to_owned()))
}

/// `--protocol`: one of the names, listed in `--help` and in the error for any other.
pub(crate) fn flag() -> impl TypedValueParser<Value = Protocol> {
    PossibleValuesParser::new(Protocol::ALL.map(Protocol::name)).try_map(|name| parse(&name))
}

/// A `[model]` table's protocol: `protocol`, or `provider` from before the key had that name;
/// not both. Errors name the key the file used, at its line.
pub(crate) fn of_table(
    protocol: Option<Spanned<String>>,
    provider: Option<Spanned<String>>,
    at: &dyn Fn(Option<Range<usize>>, &str) -> MendError,
) -> Result<Option<Protocol>, MendError> {
    let (key, value) = match (protocol, provider) {
        (Some(_), Some(older)) => {
            return Err(at(
                Some(older.span()),
                "model.provider is the older name of model.protocol: keep only model.protocol",
            ))
        }
        (Some(value), None) => ("model.protocol", value),
        (None, Some(value)) => ("model.provider", value),
        (None, None) => return Ok(None),
    };
    parse(value.get_ref())
        .map(Some)
        .map_err(|message| at(Some(value.span()), &format!("{key}: {message}")))
}
