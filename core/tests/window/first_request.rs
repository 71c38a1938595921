//! The config's own estimate of its first request is the one the session states when it starts,
//! with and without the project's instructions and the per-turn hint.

use mend_core::{Action, Config, ContextConfig, Event, Session, Window};

use crate::support::config;

fn stated(config: Config) -> Option<u64> {
    let mut session = Session::new(config).ok()?;
    let estimate = session.drain_actions().find_map(|action| match action {
        Action::Emit(Event::PromptEstimate { tokens, .. }) => Some(tokens),
        _ => None,
    });
    estimate
}

#[test]
fn the_config_estimates_its_first_request_as_the_session_states_it() {
    let plain = Config {
        window: Some(Window::new(8192)),
        ..config(3)
    };
    let instructed = Config {
        instructions: Some("Run `make test` before you finish.\n".repeat(40)),
        ..plain.clone()
    };
    let with_hint = Config {
        context: Some(ContextConfig {
            workdir: "sample-repo".to_owned(),
            os: "linux".to_owned(),
        }),
        ..instructed.clone()
    };
    let pairs: Vec<(Option<u64>, Option<u64>)> = [plain, instructed, with_hint]
        .into_iter()
        .map(|config| (Some(config.first_request_tokens()), stated(config)))
        .collect();
    let estimates: Vec<u64> = pairs.iter().filter_map(|(own, _)| *own).collect();
    assert_eq!(
        pairs,
        estimates
            .iter()
            .map(|e| (Some(*e), Some(*e)))
            .collect::<Vec<_>>()
    );
    // Each addition is counted: the estimates grow.
    assert!(
        estimates.windows(2).all(|pair| pair[0] < pair[1]),
        "{estimates:?}"
    );
}
