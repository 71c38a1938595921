//! Seed-OSS's calls: a `<seed:tool_call>` block holding one or more
//! `<function=NAME><parameter=KEY>VALUE</parameter></function>` blocks (Qwen3-Coder's inner form).

use crate::prelude::*;

use super::family::{blocks, Family, Read};
use super::tagged::function_block;
use super::{Found, TextCallFormat};
use crate::schema::ToolSpec;

const OPEN: &str = "<seed:tool_call>";
const CLOSE: &str = "</seed:tool_call>";

pub(super) const FAMILY: Family = Family {
    name: "seed_oss",
    signs: &[OPEN, CLOSE],
    signs_mark_calls: true,
    read,
};

fn read(content: &str, tools: &[ToolSpec]) -> Read {
    blocks(content, OPEN, CLOSE, |inner, _| {
        let mut found = Vec::new();
        let mut rest = inner.trim_start();
        while !rest.is_empty() {
            let (call, used) = function_block(rest, tools)?;
            found.push(Found {
                call,
                format: TextCallFormat::SeedOss,
                text: rest[..used].to_owned(),
            });
            rest = rest[used..].trim_start();
        }
        Some(found)
    })
}
