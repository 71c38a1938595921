//! `mend_core._native`: mend-core's [`Session`] as a Python class. Inputs, actions and events
//! cross the boundary as plain dicts in their serde shapes (docs/events.md); errors are Python
//! exceptions carrying the core's message, never a panic.

mod convert;

use mend_core::{Action, Config, Input, Millis, Session as CoreSession};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString};

use crate::convert::{action_list, chunk_line, config_from, to_python};

/// One coding-agent session, without I/O: feed it inputs with `handle`, perform the actions it
/// returns in order. `Session(config)` checks the config (a bad one is a `ValueError`); its first
/// actions — `model_start` and the request of turn 1 — are `first_actions()`.
#[pyclass(module = "mend_core._native", name = "Session")]
struct Session {
    inner: CoreSession,
    first: Vec<Action>,
}

#[pymethods]
impl Session {
    #[new]
    fn new(config: &Bound<'_, PyAny>) -> PyResult<Self> {
        let config: Config = config_from(config)?;
        let (inner, first) =
            CoreSession::new(config).map_err(|err| PyValueError::new_err(err.to_string()))?;
        Ok(Session { inner, first })
    }

    /// The actions `Session(config)` (or `follow_up`) returned: perform them first, once.
    fn first_actions<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        action_list(py, &self.first)
    }

    /// Feeds one input at `now_ms` (a monotonic clock in milliseconds) and returns the actions to
    /// perform, in order. A `stream_line` input's `line` may be `bytes` or `str`.
    fn handle<'py>(
        &mut self,
        py: Python<'py>,
        now_ms: u64,
        input: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let input = input_from(input)?;
        let actions = self.inner.handle(Millis(now_ms), input);
        action_list(py, &actions)
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
        let line = chunk_line(chunk)?;
        let actions = self
            .inner
            .handle(Millis(now_ms), Input::StreamLine { line });
        action_list(py, &actions)
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

    /// The session continued with the user's next message; its `first_actions()` send it.
    /// A `RuntimeError` while the session is still running.
    fn follow_up(&self, text: &str) -> PyResult<Session> {
        let (inner, first) = self
            .inner
            .follow_up(text)
            .map_err(|err| PyRuntimeError::new_err(err.to_string()))?;
        Ok(Session { inner, first })
    }

    /// The whole session as JSON text: restore it with `Session.from_json`, here or elsewhere.
    fn to_json(&self) -> PyResult<String> {
        serde_json::to_string(&self.inner).map_err(|err| PyValueError::new_err(err.to_string()))
    }

    /// A session from `to_json`'s text; it goes on exactly where the original was.
    #[staticmethod]
    fn from_json(text: &str) -> PyResult<Session> {
        let inner: CoreSession = serde_json::from_str(text)
            .map_err(|err| PyValueError::new_err(format!("not a mend_core session: {err}")))?;
        Ok(Session {
            inner,
            first: Vec::new(),
        })
    }
}

/// An input dict; `stream_line` is read without a serde round trip, since it is the hot path.
fn input_from(input: &Bound<'_, PyAny>) -> PyResult<Input> {
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
    Ok(Input::StreamLine { line })
}

#[pymodule]
fn _native(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<Session>()
}
