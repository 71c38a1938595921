//! Values across the boundary: the core's serde shapes as Python dicts and lists, with a hand-made
//! path for the few values made once per streamed line.

use mend_core::{Action, Config, Event, HttpRequest};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString};
use serde::Serialize;
use serde_json::{Map, Value};

/// Any serde value as Python objects (dicts, lists, str, int, float, bool, None).
pub fn to_python<'py, T: Serialize + ?Sized>(
    py: Python<'py>,
    value: &T,
) -> PyResult<Bound<'py, PyAny>> {
    Ok(pythonize::pythonize(py, value)?)
}

/// The actions as a list of dicts, in order.
pub fn action_list<'py>(
    py: Python<'py>,
    actions: impl IntoIterator<Item = Action>,
) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for action in actions {
        list.append(action_dict(py, &action)?)?;
    }
    Ok(list)
}

/// One action in its serde shape. A text or thinking delta — one per streamed line — is built
/// directly; a `send_request` also gets `http`, the whole request ready for any HTTP client.
fn action_dict<'py>(py: Python<'py>, action: &Action) -> PyResult<Bound<'py, PyAny>> {
    let delta = match action {
        Action::Emit(Event::TextDelta { turn, text }) => {
            Some((pyo3::intern!(py, "text_delta"), turn, text))
        }
        Action::Emit(Event::ThinkingDelta { turn, text }) => {
            Some((pyo3::intern!(py, "thinking_delta"), turn, text))
        }
        _ => None,
    };
    if let Some((kind, turn, text)) = delta {
        let dict = PyDict::new(py);
        dict.set_item(pyo3::intern!(py, "action"), pyo3::intern!(py, "emit"))?;
        dict.set_item(pyo3::intern!(py, "type"), kind)?;
        dict.set_item(pyo3::intern!(py, "turn"), turn)?;
        dict.set_item(pyo3::intern!(py, "text"), text)?;
        return Ok(dict.into_any());
    }
    let object = to_python(py, action)?;
    if let Some(http) = action.http_request() {
        object.set_item("http", http_dict(py, &http)?)?;
    }
    Ok(object)
}

/// `{"method", "path", "headers": {name: value}, "api_key_header": {"name", "prefix"} | None,
/// "body": bytes}`.
fn http_dict<'py>(py: Python<'py>, http: &HttpRequest) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    dict.set_item("method", &http.method)?;
    dict.set_item("path", &http.path)?;
    let headers = PyDict::new(py);
    for (name, value) in &http.headers {
        headers.set_item(name, value)?;
    }
    dict.set_item("headers", headers)?;
    dict.set_item("api_key_header", to_python(py, &http.api_key_header)?)?;
    dict.set_item("body", PyBytes::new(py, &http.body))?;
    Ok(dict)
}

/// A parsed chunk back to one JSON line, for the core's decoder. An Ollama chunk of the usual
/// shape takes the direct path (`ollama_chunk_line`); anything else goes through serde whole.
pub fn chunk_line(chunk: &Bound<'_, PyAny>) -> PyResult<Vec<u8>> {
    if let Ok(dict) = chunk.cast::<PyDict>() {
        if let Some(line) = ollama_chunk_line(dict)? {
            return Ok(line);
        }
    }
    let value: Value = pythonize::depythonize(chunk)
        .map_err(|err| PyValueError::new_err(format!("a chunk must be JSON data: {err}")))?;
    serde_json::to_vec(&value).map_err(|err| PyValueError::new_err(err.to_string()))
}

/// The value of `key`, unless it is absent or `None` (the same to the codec).
fn present<'py>(
    dict: &Bound<'py, PyDict>,
    key: &Bound<'py, PyString>,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    Ok(dict.get_item(key)?.filter(|value| !value.is_none()))
}

/// The top-level counters of a final chunk that become the turn's metrics.
const METRIC_KEYS: [&str; 7] = [
    "total_duration",
    "load_duration",
    "prompt_eval_count",
    "prompt_eval_cached_count",
    "prompt_eval_duration",
    "eval_count",
    "eval_duration",
];

/// Only the keys the Ollama codec reads, written as JSON directly: the chunk's other keys
/// (`model`, `created_at`, `images`, ...) are ignored by the codec anyway, and `None` is the
/// same as absent. `None` when the chunk holds anything unusual (an `error`, a value of another
/// type), which the serde path then handles exactly.
fn ollama_chunk_line(chunk: &Bound<'_, PyDict>) -> PyResult<Option<Vec<u8>>> {
    let py = chunk.py();
    if present(chunk, pyo3::intern!(py, "error"))?.is_some() {
        return Ok(None);
    }
    let mut line = JsonLine::default();
    if let Some(message) = present(chunk, pyo3::intern!(py, "message"))? {
        let Ok(message) = message.cast::<PyDict>() else {
            return Ok(None);
        };
        line.open_object("message");
        for key in [pyo3::intern!(py, "content"), pyo3::intern!(py, "thinking")] {
            if let Some(text) = present(message, key)? {
                let Ok(text) = text.cast::<PyString>() else {
                    return Ok(None);
                };
                line.string(&key.to_cow()?, &text.to_cow()?);
            }
        }
        if let Some(calls) = present(message, pyo3::intern!(py, "tool_calls"))? {
            let Ok(calls) = pythonize::depythonize::<Value>(&calls) else {
                return Ok(None);
            };
            line.value("tool_calls", &calls);
        }
        line.close_object();
    }
    let mut done = false;
    if let Some(value) = present(chunk, pyo3::intern!(py, "done"))? {
        let Ok(value) = value.extract::<bool>() else {
            return Ok(None);
        };
        done = value;
        line.value("done", &Value::Bool(done));
    }
    if let Some(reason) = present(chunk, pyo3::intern!(py, "done_reason"))? {
        let Ok(reason) = reason.cast::<PyString>() else {
            return Ok(None);
        };
        line.string("done_reason", &reason.to_cow()?);
    }
    // The codec reads the counters of the final chunk only, so the others skip the look-ups
    // (a malformed counter on a chunk that is not final is dropped here, not refused).
    for key in METRIC_KEYS.into_iter().filter(|_| done) {
        if let Some(count) = present(chunk, &PyString::intern(py, key))? {
            let Ok(count) = count.extract::<u64>() else {
                return Ok(None);
            };
            line.value(key, &Value::from(count));
        }
    }
    Ok(Some(line.finish()))
}

/// A JSON object written key by key.
#[derive(Default)]
struct JsonLine {
    bytes: Vec<u8>,
    /// Whether the object being written still has no key, per nesting level.
    empty: Vec<bool>,
}

impl JsonLine {
    fn key(&mut self, key: &str) {
        if self.empty.is_empty() {
            self.bytes.push(b'{');
            self.empty.push(true);
        }
        if let Some(empty) = self.empty.last_mut() {
            if !*empty {
                self.bytes.push(b',');
            }
            *empty = false;
        }
        self.string_literal(key);
        self.bytes.push(b':');
    }

    fn string_literal(&mut self, text: &str) {
        // Writing a string into a Vec cannot fail.
        let _infallible = serde_json::to_writer(&mut self.bytes, text);
    }

    fn string(&mut self, key: &str, text: &str) {
        self.key(key);
        self.string_literal(text);
    }

    fn value(&mut self, key: &str, value: &Value) {
        self.key(key);
        let _infallible = serde_json::to_writer(&mut self.bytes, value);
    }

    fn open_object(&mut self, key: &str) {
        self.key(key);
        self.bytes.push(b'{');
        self.empty.push(true);
    }

    fn close_object(&mut self) {
        self.bytes.push(b'}');
        self.empty.pop();
    }

    fn finish(mut self) -> Vec<u8> {
        if self.empty.is_empty() {
            self.bytes.push(b'{');
        }
        self.bytes.push(b'}');
        self.bytes
    }
}

/// A config dict over `Config::new`'s defaults. Unknown keys are refused, so that a misspelt
/// setting is an error instead of a silent default.
pub fn config_from(config: &Bound<'_, PyAny>) -> PyResult<Config> {
    let mut given: Map<String, Value> = pythonize::depythonize(config)
        .map_err(|err| PyValueError::new_err(format!("the config must be a dict: {err}")))?;
    // `codec` is the older name of `protocol`: merged over the defaults, both would be present.
    if let Some(older) = given.remove("codec") {
        if given.contains_key("protocol") {
            return Err(PyValueError::new_err(
                "`codec` is the older name of `protocol`: give only `protocol`",
            ));
        }
        given.insert("protocol".to_owned(), older);
    }
    let defaults = serde_json::to_value(Config::new("", "", "", Vec::new()))
        .map_err(|err| PyValueError::new_err(err.to_string()))?;
    let Value::Object(mut merged) = defaults else {
        return Err(PyValueError::new_err("the default config is not an object"));
    };
    // Optional and absent from the defaults: the per-turn context hint.
    let known = |key: &str| merged.contains_key(key) || key == "context";
    if let Some(unknown) = given.keys().find(|key| !known(key)) {
        return Err(PyValueError::new_err(format!(
            "unknown config key {unknown:?}; the keys are: {}, context",
            merged.keys().cloned().collect::<Vec<_>>().join(", ")
        )));
    }
    merged.extend(given);
    serde_json::from_value(Value::Object(merged))
        .map_err(|err| PyValueError::new_err(format!("invalid config: {err}")))
}
