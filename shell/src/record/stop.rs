//! A recorded stop in words for the user: what failed, and the fix where there is one. Said at
//! the end of a run, after a chat message, and on a run's page.

use mend_core::decode::server_message;
use mend_core::{Stop, StopCause, TransportError};

/// A model stop in words, with the fix for the failures a user can do something about (a model not
/// pulled, a model without tool support). The hint rests on the stop's typed cause; only the
/// server's own message is read as text.
pub(crate) fn explain_stop(stop: &Stop, model: &str) -> String {
    let detail = stop
        .detail
        .as_deref()
        .unwrap_or("the model's turn did not complete");
    let server_said = match &stop.cause {
        Some(StopCause::Transport(TransportError::Http { status, body })) => {
            Some((*status, server_message(body)))
        }
        _ => None,
    };
    let hint = match (&stop.cause, &server_said) {
        (Some(StopCause::TokenLimit), _) => {
            return format!(
                "the model ran out of tokens: {detail} — the answer exceeded num_predict"
            )
        }
        (_, Some((404, message))) if message.contains("not found") => {
            format!(" — run `ollama pull {model}`")
        }
        (_, Some((_, message))) if message.contains("does not support tools") => {
            " — choose a model with tool support (see `ollama show MODEL`)".to_owned()
        }
        (_, Some((_, message))) if message.contains("does not support thinking") => {
            " — pass --no-think".to_owned()
        }
        _ => String::new(),
    };
    format!("the model server failed: {detail}{hint}")
}

#[cfg(test)]
mod tests {
    use mend_core::{Stop, StopCause, StopReason, TransportError};

    use super::explain_stop;

    fn stop(reason: StopReason, detail: &str, cause: Option<StopCause>) -> Stop {
        Stop {
            reason,
            detail: Some(detail.to_owned()),
            cause,
        }
    }

    #[test]
    fn the_hint_rests_on_the_typed_cause_not_on_the_words() {
        let http = |status: u16, body: &str| {
            Some(StopCause::Transport(TransportError::Http {
                status,
                body: body.to_owned(),
            }))
        };
        let stops = [
            stop(
                StopReason::ModelError,
                "HTTP 404: model 'm' not found",
                http(404, r#"{"error":"model 'm' not found"}"#),
            ),
            stop(
                StopReason::ModelError,
                "HTTP 400: m does not support tools",
                http(400, r#"{"error":"m does not support tools"}"#),
            ),
            // The words alone, without the typed cause (an error line mid-stream), give no hint.
            stop(
                StopReason::ModelError,
                "the server reported an error mid-stream: HTTP 404 model not found",
                None,
            ),
            stop(
                StopReason::IncompleteModelTurn,
                "the model's output was cut off by the token limit (done_reason: length)",
                Some(StopCause::TokenLimit),
            ),
        ];
        assert_eq!(
            stops.map(|stop| explain_stop(&stop, "m")),
            [
                "the model server failed: HTTP 404: model 'm' not found — run `ollama pull m`",
                "the model server failed: HTTP 400: m does not support tools — choose a model with tool support (see `ollama show MODEL`)",
                "the model server failed: the server reported an error mid-stream: HTTP 404 model not found",
                "the model ran out of tokens: the model's output was cut off by the token limit (done_reason: length) — the answer exceeded num_predict",
            ]
            .map(str::to_owned)
        );
    }
}
