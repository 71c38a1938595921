//! Span attributes as OTLP's key-values.

use opentelemetry_proto::tonic::common::v1::any_value::Value;
use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue};

fn pair(key: &str, value: Value) -> KeyValue {
    KeyValue {
        key: key.to_owned(),
        value: Some(AnyValue { value: Some(value) }),
        ..KeyValue::default()
    }
}

pub(crate) fn text(key: &str, value: &str) -> KeyValue {
    pair(key, Value::StringValue(value.to_owned()))
}

pub(crate) fn int(key: &str, value: u64) -> KeyValue {
    pair(
        key,
        Value::IntValue(i64::try_from(value).unwrap_or(i64::MAX)),
    )
}

pub(crate) fn flag(key: &str, value: bool) -> KeyValue {
    pair(key, Value::BoolValue(value))
}

pub(crate) fn texts(key: &str, values: &[String]) -> KeyValue {
    let values = values
        .iter()
        .map(|value| AnyValue {
            value: Some(Value::StringValue(value.clone())),
        })
        .collect();
    pair(
        key,
        Value::ArrayValue(opentelemetry_proto::tonic::common::v1::ArrayValue { values }),
    )
}
