//! One word and one name per protocol: what `Protocol` is called in JSON, by users and records,
//! and the older spellings that still read.

use mend_core::{Action, Config, Protocol, Session};
use serde_json::{json, Value};

#[test]
fn each_protocol_is_its_name_in_json_and_back() {
    let seen: Vec<(&str, Value, Option<Protocol>)> = Protocol::ALL
        .iter()
        .map(|protocol| {
            (
                protocol.name(),
                serde_json::to_value(protocol).expect("serializes"),
                Protocol::from_name(protocol.name()),
            )
        })
        .collect();
    assert_eq!(
        seen,
        vec![
            ("ollama", json!("ollama"), Some(Protocol::OllamaNdjson)),
            ("openai", json!("openai"), Some(Protocol::OpenaiSse)),
            (
                "anthropic",
                json!("anthropic"),
                Some(Protocol::AnthropicSse)
            ),
        ]
    );
    assert_eq!(Protocol::from_name("gemini"), None);
    assert_eq!(Protocol::default(), Protocol::ALL[0]);
}

#[test]
fn the_names_older_cores_wrote_still_read() {
    let older: Vec<Protocol> = ["ollama_ndjson", "openai_sse", "anthropic_sse"]
        .into_iter()
        .map(|name| serde_json::from_value(json!(name)).expect("an older name reads"))
        .collect();
    assert_eq!(older, Protocol::ALL.to_vec());
}

#[test]
fn a_config_and_a_request_written_with_the_older_key_read_as_today() {
    let mut config = Config::new("m", "system", "task", vec![]);
    config.protocol = Protocol::AnthropicSse;
    let mut session = Session::new(config.clone()).expect("a valid config");
    let actions: Vec<Action> = session.drain_actions().collect();
    let request = actions
        .into_iter()
        .find(|action| matches!(action, Action::SendRequest { .. }))
        .expect("turn 1 is sent");

    let rename = |value: Value| {
        let mut object = value.as_object().expect("an object").clone();
        let protocol = object.remove("protocol").expect("a protocol key");
        assert_eq!(protocol, json!("anthropic"));
        object.insert("codec".to_owned(), json!("anthropic_sse"));
        Value::Object(object)
    };
    let older_config = rename(serde_json::to_value(&config).expect("serializes"));
    let older_request = rename(serde_json::to_value(&request).expect("serializes"));
    assert_eq!(
        (
            serde_json::from_value::<Config>(older_config).expect("reads"),
            serde_json::from_value::<Action>(older_request).expect("reads"),
        ),
        (config, request)
    );
}
