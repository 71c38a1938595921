//! Tool calls a model wrote into its text instead of `tool_calls`.
//!
//! A small model whose chat template the server does not parse for calls writes them as text, in
//! its family's form: Hermes-style `<tool_call>{"name": …, "arguments": …}</tool_call>`,
//! Qwen3-Coder's `<function=NAME><parameter=KEY>…</parameter></function>`, a fenced
//! ```` ```json ```` block or the bare call object, Mistral's `[TOOL_CALLS]`, Llama 3.x's
//! `<|python_tag|>`, gpt-oss's harmony `to=functions.NAME`, Gemma's ```` ```tool_code ````,
//! DeepSeek's `<｜tool▁calls▁begin｜>`, Phi-4's and Granite's `<|tool_call|>[…]`, Gemma 4's
//! `<|tool_call>call:NAME{…}<tool_call|>`, GLM's `<arg_key>`/`<arg_value>` pairs, MiniMax-M2's
//! `<invoke>`, Nemotron's `<TOOLCALL>`, Hunyuan's `<tool_calls>`, Phi-4-mini's `functools[…]`,
//! Seed-OSS's `<seed:tool_call>`, the pythonic `[NAME(key=value)]` of Llama 4, LFM2 and OLMo 3,
//! Kimi K2's sections. Each family has one small reader behind the table in `scan`; the model's
//! own family, when its template names one (`template`), reads first. Read as a final answer, such a turn would end the run with nothing done. When a
//! completed turn has no native call, its text is read here; the calls found go through the same
//! validation, repetition guard and ordering as native ones.
//!
//! Only an unambiguous text becomes calls: every call well formed and naming an offered tool,
//! one family of formats, nothing call-like left over. Anything else stays text, as before.

use crate::prelude::*;

#[cfg(test)]
mod attempt_tests;
mod deepseek;
mod family;
#[cfg(test)]
mod family_tests;
mod fenced;
mod gemma;
mod gemma4;
mod glm;
mod harmony;
mod json;
mod kimi;
mod listed;
mod llama;
#[cfg(test)]
mod local_family_tests;
mod minimax;
mod mistral;
mod named;
mod phi;
mod python;
mod pythonic;
pub(crate) mod repair;
mod scan;
#[cfg(test)]
mod scan_tests;
mod seed;
mod tagged;
mod template;
#[cfg(test)]
mod template_tests;
#[cfg(test)]
mod test_support;
#[cfg(test)]
mod tests;
mod typed;

use serde::{Deserialize, Serialize};

use crate::assemble::TurnAssembly;
use crate::protocol::ModelCall;
use crate::schema::ToolSpec;

pub(crate) use scan::Signs;
pub use template::{family_of_parser, family_of_template};

/// How a recovered call was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TextCallFormat {
    /// `<tool_call>{"name": …, "arguments": …}</tool_call>` (Hermes, Qwen 2.5, many fine-tunes).
    Hermes,
    /// `<function=NAME><parameter=KEY>VALUE</parameter></function>`, inside `<tool_call>` or not.
    Qwen3Coder,
    /// A fenced code block (```` ```json ````, or no language) holding the call object.
    FencedJson,
    /// The call object as the whole text.
    BareJson,
    /// Mistral's `[TOOL_CALLS]NAME[ARGS]{…}` (an optional `[CALL_ID]ID` before `[ARGS]`).
    Mistral,
    /// Mistral's `[TOOL_CALLS][{"name": …, "arguments": …}, …]`.
    MistralJson,
    /// Llama 3.x's `<|python_tag|>{"name": …, "parameters": …}`, several separated by `;`.
    Llama,
    /// gpt-oss's harmony: `… to=functions.NAME … <|message|>{…}<|call|>`.
    Harmony,
    /// Gemma's ```` ```tool_code ```` block of Python calls with keyword arguments.
    GemmaToolCode,
    /// DeepSeek's `<｜tool▁calls▁begin｜>…<｜tool▁calls▁end｜>` (V3, R1 and V3.1 shapes).
    Deepseek,
    /// Phi-4-mini's and Granite's `<|tool_call|>[{"name": …, "arguments": …}]`.
    ToolCallList,
    /// Gemma 4's `<|tool_call>call:NAME{key:<|"|>text<|"|>}<tool_call|>`.
    Gemma4,
    /// GLM-4.5 and later: `<tool_call>NAME<arg_key>KEY</arg_key><arg_value>…</arg_value>`.
    Glm,
    /// MiniMax-M2's `<minimax:tool_call><invoke name="NAME"><parameter name="KEY">…`.
    MiniMax,
    /// Nemotron's `<TOOLCALL>[{"name": …, "arguments": …}]</TOOLCALL>`.
    ToolCallTags,
    /// Hunyuan's `<tool_calls>[{"name": …, "arguments": …}]</tool_calls>`.
    Hunyuan,
    /// Phi-4-mini's `functools[{"name": …, "arguments": …}]`.
    Functools,
    /// Seed-OSS's `<seed:tool_call><function=NAME><parameter=KEY>…`.
    SeedOss,
    /// Python calls `[NAME(key=value)]` (Llama 4, LFM2) or OLMo 3's `<function_calls>` lines.
    Pythonic,
    /// Kimi K2's `<|tool_call_begin|>functions.NAME:0<|tool_call_argument_begin|>{…}`.
    Kimi,
    /// Written in no form a reader accepts, then asked for again under a grammar (the call
    /// comes from that answer; `text` is the broken turn's).
    RepairedByGrammar,
}

impl TextCallFormat {
    /// The name users and records know the format by.
    pub fn name(self) -> &'static str {
        match self {
            TextCallFormat::Hermes => "hermes",
            TextCallFormat::Qwen3Coder => "qwen3_coder",
            TextCallFormat::FencedJson => "fenced_json",
            TextCallFormat::BareJson => "bare_json",
            TextCallFormat::Mistral => "mistral",
            TextCallFormat::MistralJson => "mistral_json",
            TextCallFormat::Llama => "llama",
            TextCallFormat::Harmony => "harmony",
            TextCallFormat::GemmaToolCode => "gemma_tool_code",
            TextCallFormat::Deepseek => "deepseek",
            TextCallFormat::ToolCallList => "tool_call_list",
            TextCallFormat::Gemma4 => "gemma4",
            TextCallFormat::Glm => "glm",
            TextCallFormat::MiniMax => "minimax",
            TextCallFormat::ToolCallTags => "toolcall_tags",
            TextCallFormat::Hunyuan => "hunyuan",
            TextCallFormat::Functools => "functools",
            TextCallFormat::SeedOss => "seed_oss",
            TextCallFormat::Pythonic => "pythonic",
            TextCallFormat::Kimi => "kimi",
            TextCallFormat::RepairedByGrammar => "repaired_by_grammar",
        }
    }
}

/// One call recovered from a turn's text, as the `recovered_from_text` event carries it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TextCall {
    /// The call's position in the turn, from 0 (as in `tool_start` and `tool_result`).
    pub index: u32,
    /// The tool it names.
    pub name: String,
    /// How it was written.
    pub format: TextCallFormat,
    /// The raw text of the call, exactly as the model wrote it.
    pub text: String,
}

/// A call found in the text, before it is numbered.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Found {
    pub call: ModelCall,
    pub format: TextCallFormat,
    pub text: String,
}

/// Turns the calls written in a completed turn's text into the turn's calls, when the turn has
/// no native call and the text holds only unambiguous ones; returns what was read, for the
/// session's event.
/// The text itself stays in the assistant message, as the model wrote it; `signs` are its
/// [`Signs`]; `family`, the model's family when its template named one, is read first.
pub(crate) fn recover(
    turn: u32,
    assembly: &mut TurnAssembly,
    signs: &Signs,
    tools: &[ToolSpec],
    family: Option<&str>,
) -> Option<Vec<TextCall>> {
    // A turn with native calls, or without a sign of a written call, costs the one pass over its
    // text that found `signs` at most.
    if !assembly.calls.is_empty() || !signs.may_hold_calls() {
        return None;
    }
    let preferred = family.and_then(template::index_of);
    let found = scan::calls_in(&assembly.content, signs, tools, preferred)?;
    let mut calls = Vec::with_capacity(found.len());
    for (
        index,
        Found {
            mut call,
            format,
            text,
        },
    ) in found.into_iter().enumerate()
    {
        let index = u32::try_from(index).unwrap_or(u32::MAX);
        // Every protocol's history needs an id to pair a call with its result.
        call.id = Some(format!("text_{turn}_{index}"));
        calls.push(TextCall {
            index,
            name: call.name.clone(),
            format,
            text,
        });
        assembly.calls.push(call);
    }
    Some(calls)
}
