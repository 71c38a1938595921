//! `mend_core._native`: mend-core's [`Session`] as a Python class. Inputs, actions and events
//! cross the boundary as plain dicts in their serde shapes (docs/events.md); errors are Python
//! exceptions carrying the core's message, never a panic.

mod convert;

use mend_core::{Config, Input, Millis, Session as CoreSession, StreamLine};
use pyo3::exceptions::{PyDeprecationWarning, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString};

use crate::convert::{action_list, chunk_line, config_from, to_python};

/// One coding-agent session, without I/O. The session queues what it decides; every call that
/// returns actions empties that queue, oldest first. `Session(config)` checks the config (a bad
/// one is a `ValueError`) and queues its first actions — `model_start` and the request of
/// turn 1 — which `drain_actions()` takes; `handle` feeds an input and returns what is queued.
#[pyclass(module = "mend_core._native", name = "Session")]
struct Session {
    inner: CoreSession,
}

#[pymethods]
impl Session {
    #[new]
    fn new(config: &Bound<'_, PyAny>) -> PyResult<Self> {
        let config: Config = config_from(config)?;
        let inner =
            CoreSession::new(config).map_err(|err| PyValueError::new_err(err.to_string()))?;
        Ok(Session { inner })
    }

    /// Every queued action, oldest first, emptying the queue: after `Session(config)` or
    /// `follow_up`, the first actions. Perform them in order.
    fn drain_actions<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        action_list(py, self.inner.drain_actions())
    }

    /// Deprecated name of `drain_actions()`, kept for code written against it: a
    /// `DeprecationWarning`, then the same list.
    fn first_actions<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyErr::warn(
            py,
            &py.get_type::<PyDeprecationWarning>(),
            c"Session.first_actions() is deprecated: use Session.drain_actions(), which takes the first actions like every later one",
            1,
        )?;
        self.drain_actions(py)
    }

    /// Feeds one input at `now_ms` (a monotonic clock in milliseconds) and returns every queued
    /// action, in order. A `stream_line` input's `line` may be `bytes` or `str`; its `at_ms`,
    /// when the line arrived, is `now_ms` unless given.
    fn handle<'py>(
        &mut self,
        py: Python<'py>,
        now_ms: u64,
        input: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let input = input_from(input, now_ms)?;
        self.inner.handle(Millis(now_ms), input);
        self.drain_actions(py)
    }

    /// Feeds one chunk that a client library has already parsed (an Ollama chunk dict, as
    /// `ollama.Client.chat(..., stream=True)` yields after `.model_dump()`): the same as
    /// `handle` with the chunk as a `stream_line`.
    fn handle_chunk<'py>(
        &mut self,
        py: Python<'py>,
        now_ms: u64,
        chunk: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let line = StreamLine::new(chunk_line(chunk)?, Millis(now_ms));
        self.inner.handle(Millis(now_ms), Input::StreamLine(line));
        self.drain_actions(py)
    }

    /// When to send `deadline_passed`, in milliseconds on the caller's clock; `None` if never.
    fn next_deadline(&self) -> Option<u64> {
        self.inner.next_deadline().map(|at| at.0)
    }

    /// The turn in progress (from 1), or the last one once stopped.
    fn turn(&self) -> u32 {
        self.inner.turn()
    }

    /// Whether the current response body is still wanted.
    fn is_streaming(&self) -> bool {
        self.inner.is_streaming()
    }

    /// The stop (`{"reason": ..., "detail": ...}`) once the session has ended, else `None`.
    fn stopped<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.inner
            .stopped()
            .map(|stop| to_python(py, stop))
            .transpose()
    }

    /// The conversation so far, as message dicts in Ollama's shape.
    fn conversation<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_python(py, self.inner.conversation())
    }

    /// The session continued with the user's next message; its `drain_actions()` send it.
    /// A `RuntimeError` while the session is still running.
    fn follow_up(&self, text: &str) -> PyResult<Session> {
        let inner = self
            .inner
            .follow_up(text)
            .map_err(|err| PyRuntimeError::new_err(err.to_string()))?;
        Ok(Session { inner })
    }

    /// The whole session as JSON text, its queued actions with it: restore it with
    /// `Session.from_json`, here or elsewhere.
    fn to_json(&self) -> PyResult<String> {
        serde_json::to_string(&self.inner).map_err(|err| PyValueError::new_err(err.to_string()))
    }

    /// A session from `to_json`'s text; it goes on exactly where the original was.
    #[staticmethod]
    fn from_json(text: &str) -> PyResult<Session> {
        let inner: CoreSession = serde_json::from_str(text)
            .map_err(|err| PyValueError::new_err(format!("not a mend_core session: {err}")))?;
        Ok(Session { inner })
    }
}

/// An input dict; `stream_line` is read without a serde round trip, since it is the hot path,
/// and arrived at `now_ms` unless it says `at_ms`.
fn input_from(input: &Bound<'_, PyAny>, now_ms: u64) -> PyResult<Input> {
    let dict = input
        .cast::<PyDict>()
        .map_err(|_| PyValueError::new_err("an input is a dict with a \"type\""))?;
    let stream_line = pyo3::intern!(input.py(), "stream_line");
    let is_line = match dict.get_item(pyo3::intern!(input.py(), "type"))? {
        // Python interns identifier-like literals, so the first test is usually enough.
        Some(kind) => kind.is(stream_line) || kind.eq(stream_line)?,
        None => false,
    };
    if !is_line {
        return pythonize::depythonize::<Input>(input)
            .map_err(|err| PyValueError::new_err(format!("invalid input: {err}")));
    }
    let line = dict
        .get_item(pyo3::intern!(input.py(), "line"))?
        .ok_or_else(|| PyValueError::new_err("a stream_line input needs a \"line\""))?;
    let line = if let Ok(bytes) = line.cast::<PyBytes>() {
        bytes.as_bytes().to_vec()
    } else if let Ok(text) = line.cast::<PyString>() {
        text.to_cow()?.as_bytes().to_vec()
    } else {
        return Err(PyValueError::new_err(
            "a stream_line's \"line\" is bytes or str",
        ));
    };
    let arrived = match dict.get_item(pyo3::intern!(input.py(), "at_ms"))? {
        Some(at) => at.extract::<u64>()?,
        None => now_ms,
    };
    Ok(Input::StreamLine(StreamLine::new(line, Millis(arrived))))
}

#[pymodule]
fn _native(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<Session>()
}
