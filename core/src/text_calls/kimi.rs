//! Kimi K2's calls: `<|tool_calls_section_begin|>`, then per call
//! `<|tool_call_begin|>functions.NAME:INDEX<|tool_call_argument_begin|>{…}<|tool_call_end|>`,
//! then `<|tool_calls_section_end|>`.

use crate::prelude::*;

use serde_json::Value;

use super::family::{blocks, is_name_char, Family, Read};
use super::{json, Found, TextCallFormat};
use crate::schema::ToolSpec;

const SECTION: (&str, &str) = ("<|tool_calls_section_begin|>", "<|tool_calls_section_end|>");
const CALL: (&str, &str) = ("<|tool_call_begin|>", "<|tool_call_end|>");
const ARGUMENTS: &str = "<|tool_call_argument_begin|>";

pub(super) const FAMILY: Family = Family {
    name: "kimi",
    // Not the call's end: LFM2 ends its calls with the same token.
    signs: &[SECTION.0, SECTION.1, CALL.0, ARGUMENTS],
    signs_mark_calls: true,
    read,
};

fn read(content: &str, tools: &[ToolSpec]) -> Read {
    blocks(content, SECTION.0, SECTION.1, |inner, _| {
        let (found, rest) = blocks(inner, CALL.0, CALL.1, |call, text| {
            let (id, arguments) = call.split_once(ARGUMENTS)?;
            let name = id.trim().strip_prefix("functions.").unwrap_or(id.trim());
            let name = name.rsplit_once(':').map_or(name, |(name, _)| name);
            if name.is_empty() || !name.chars().all(is_name_char) {
                return None;
            }
            let arguments: Value = serde_json::from_str(arguments.trim()).ok()?;
            Some(vec![Found {
                call: json::named(name.to_owned(), Some(arguments), tools)?,
                format: TextCallFormat::Kimi,
                text: text.to_owned(),
            }])
        })?;
        rest.trim().is_empty().then_some(found)
    })
}
