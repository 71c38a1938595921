//! A Python call with keyword arguments of literal values, read into JSON: strings (either
//! quote, the usual escapes), integers, floats, `True`/`False`/`None`, lists, tuples and dicts
//! of the same. Anything else (a positional argument, an expression, a name) is no call.

use crate::prelude::*;

use serde_json::{Map, Number, Value};

/// `NAME(key=value, …)` as the whole of `text`: the name and the arguments.
pub(super) fn call(text: &str) -> Option<(String, Map<String, Value>)> {
    let mut parser = Parser {
        text: text.as_bytes(),
        at: 0,
    };
    let call = parser.call()?;
    parser.blank();
    (parser.at == parser.text.len()).then_some(call)
}

/// One call of a list: its name, its arguments and its exact text.
pub(super) type Listed<'a> = (String, Map<String, Value>, &'a str);

/// `[NAME(key=value, …), …]` as the whole of `text` (the pythonic list of Llama 4, LFM2 and
/// the vLLM `pythonic` parser): each call with its exact text. An empty list is no call.
pub(super) fn list(text: &str) -> Option<Vec<Listed<'_>>> {
    let mut parser = Parser {
        text: text.as_bytes(),
        at: 0,
    };
    parser.blank();
    if !parser.eat(b'[') {
        return None;
    }
    let mut calls = Vec::new();
    loop {
        parser.blank();
        let start = parser.at;
        let (name, arguments) = parser.call()?;
        calls.push((name, arguments, text.get(start..parser.at)?));
        parser.blank();
        if parser.eat(b',') {
            continue;
        }
        if !parser.eat(b']') {
            return None;
        }
        parser.blank();
        return (parser.at == parser.text.len()).then_some(calls);
    }
}

/// How deep lists may nest: a bound on recursion, far above what a tool's arguments need.
const MAX_DEPTH: usize = 32;

struct Parser<'a> {
    text: &'a [u8],
    at: usize,
}

impl Parser<'_> {
    /// `NAME(key=value, …)` from here: a Python identifier and keyword arguments.
    fn call(&mut self) -> Option<(String, Map<String, Value>)> {
        self.blank();
        let name = self.identifier()?;
        self.blank();
        if !self.eat(b'(') {
            return None;
        }
        let mut arguments = Map::new();
        loop {
            self.blank();
            if self.eat(b')') {
                return Some((name, arguments));
            }
            let key = self.identifier()?;
            self.blank();
            if !self.eat(b'=') {
                return None;
            }
            let value = self.value(0)?;
            if arguments.insert(key, value).is_some() {
                return None;
            }
            self.blank();
            if !self.eat(b',') {
                self.blank();
                return self.eat(b')').then_some((name, arguments));
            }
        }
    }

    fn peek(&self) -> Option<u8> {
        self.text.get(self.at).copied()
    }

    fn eat(&mut self, byte: u8) -> bool {
        let matched = self.peek() == Some(byte);
        if matched {
            self.at += 1;
        }
        matched
    }

    fn blank(&mut self) {
        while self.peek().is_some_and(|byte| byte.is_ascii_whitespace()) {
            self.at += 1;
        }
    }

    fn identifier(&mut self) -> Option<String> {
        let start = self.at;
        while self
            .peek()
            .is_some_and(|byte| byte.is_ascii_alphanumeric() || byte == b'_')
        {
            self.at += 1;
        }
        let word = core::str::from_utf8(&self.text[start..self.at]).ok()?;
        (!word.is_empty() && !word.as_bytes()[0].is_ascii_digit()).then(|| word.to_owned())
    }

    fn value(&mut self, depth: usize) -> Option<Value> {
        self.blank();
        if depth > MAX_DEPTH {
            return None;
        }
        match self.peek()? {
            quote @ (b'"' | b'\'') => self.string(quote).map(Value::String),
            b'[' => self.sequence(b']', depth),
            b'(' => self.sequence(b')', depth),
            b'{' => self.dict(depth),
            b'-' | b'+' | b'.' | b'0'..=b'9' => self.number(),
            _ => match self.identifier()?.as_str() {
                "True" | "true" => Some(Value::Bool(true)),
                "False" | "false" => Some(Value::Bool(false)),
                "None" | "null" => Some(Value::Null),
                _ => None,
            },
        }
    }

    fn sequence(&mut self, close: u8, depth: usize) -> Option<Value> {
        self.at += 1;
        let mut items = Vec::new();
        loop {
            self.blank();
            if self.eat(close) {
                return Some(Value::Array(items));
            }
            items.push(self.value(depth + 1)?);
            self.blank();
            if !self.eat(b',') {
                self.blank();
                return self.eat(close).then_some(Value::Array(items));
            }
        }
    }

    fn dict(&mut self, depth: usize) -> Option<Value> {
        self.at += 1;
        let mut map = Map::new();
        loop {
            self.blank();
            if self.eat(b'}') {
                return Some(Value::Object(map));
            }
            let quote = self.peek().filter(|byte| matches!(byte, b'"' | b'\''))?;
            let key = self.string(quote)?;
            self.blank();
            if !self.eat(b':') {
                return None;
            }
            map.insert(key, self.value(depth + 1)?);
            self.blank();
            if !self.eat(b',') {
                self.blank();
                return self.eat(b'}').then_some(Value::Object(map));
            }
        }
    }

    fn number(&mut self) -> Option<Value> {
        let start = self.at;
        while self.peek().is_some_and(|byte| {
            byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'+' | b'.' | b'_')
        }) {
            self.at += 1;
        }
        let text: String = core::str::from_utf8(&self.text[start..self.at])
            .ok()?
            .chars()
            .filter(|c| *c != '_')
            .collect();
        let text = text.strip_prefix('+').unwrap_or(&text);
        if let Ok(integer) = text.parse::<i64>() {
            return Some(Value::Number(integer.into()));
        }
        let float = text.parse::<f64>().ok()?;
        Number::from_f64(float).map(Value::Number)
    }

    /// A string in `quote`s, its escapes read; `None` at a line end or the text's end before the
    /// closing quote.
    fn string(&mut self, quote: u8) -> Option<String> {
        self.at += 1;
        let mut bytes = Vec::new();
        loop {
            let byte = self.peek()?;
            self.at += 1;
            match byte {
                b'\n' => return None,
                b'\\' => {
                    let escaped = self.peek()?;
                    self.at += 1;
                    match escaped {
                        b'n' => bytes.push(b'\n'),
                        b't' => bytes.push(b'\t'),
                        b'r' => bytes.push(b'\r'),
                        b'0' => bytes.push(0),
                        b'u' => {
                            let hex = self.text.get(self.at..self.at + 4)?;
                            let code =
                                u32::from_str_radix(core::str::from_utf8(hex).ok()?, 16).ok()?;
                            let mut buffer = [0; 4];
                            bytes.extend_from_slice(
                                char::from_u32(code)?.encode_utf8(&mut buffer).as_bytes(),
                            );
                            self.at += 4;
                        }
                        other => bytes.push(other),
                    }
                }
                _ if byte == quote => return String::from_utf8(bytes).ok(),
                _ => bytes.push(byte),
            }
        }
    }
}
