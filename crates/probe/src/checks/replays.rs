//! Replays: a later retry, the same key with another body, two keys with one
//! body, and the same request written differently.

use serde_json::Value;

use super::{Finding, Probe, describe, id_of};
use crate::Verdict;
use crate::http::excerpt;

/// The same JSON object written differently: its fields in reverse order and
/// with other spacing. `None` if the body is not an object of two fields or more.
fn rewritten(body: &str) -> Option<String> {
    let Value::Object(fields) = serde_json::from_str::<Value>(body).ok()? else {
        return None;
    };
    if fields.len() < 2 {
        return None;
    }
    // serde_json's map is sorted; of the sorted order and its reverse, use the one
    // that is not the original's order.
    let mut entries: Vec<(&String, &Value)> = fields.iter().collect();
    let original_first = body.find('"').map(|at| &body[at + 1..]);
    if original_first.is_some_and(|rest| rest.starts_with(entries[0].0.as_str())) {
        entries.reverse();
    }
    let inner: Vec<String> = entries
        .iter()
        .map(|(key, value)| format!("  {} :  {}", Value::String((*key).clone()), value))
        .collect();
    Some(format!("{{\n{}\n}}\n", inner.join(" ,\n")))
}

impl Probe<'_> {
    pub(super) async fn replay(&self) -> Finding {
        let n = self.fresh();
        let key = self.key(n);
        let request = self.request(Some(&key), self.options.body_for(n));
        let first = self.send(&request).await;
        let again = self.send(&request).await;
        let mut evidence = vec![
            format!("first: {}", describe(&first)),
            format!("retry: {}", describe(&again)),
        ];
        let (Ok(first), Ok(again)) = (first, again) else {
            return Finding::new(Verdict::Fail, "a request got no answer", evidence);
        };
        let marker = again.header("idempotent-replayed");
        evidence.push(match marker {
            Some(value) => format!("the retry carries Idempotent-Replayed: {value}"),
            None => "no Idempotent-Replayed header on the retry (optional)".to_owned(),
        });
        if again.status != first.status || again.json() != first.json() {
            let why = if id_of(&again.json().unwrap_or_default(), &self.options.id_pointer)
                != id_of(&first.json().unwrap_or_default(), &self.options.id_pointer)
            {
                "the retry got another answer, with another id"
            } else {
                "the retry got another answer"
            };
            return Finding::new(Verdict::Fail, why, evidence);
        }
        let bytes = if again.body == first.body {
            "byte for byte"
        } else {
            "the same JSON, not the same bytes"
        };
        Finding::new(
            Verdict::Pass,
            format!("the retry got the same {} and body, {bytes}", first.status),
            evidence,
        )
    }

    pub(super) async fn different_body(&self) -> Finding {
        let n = self.fresh();
        let key = self.key(n);
        let first = self
            .send(&self.request(Some(&key), self.options.body_for(n)))
            .await;
        let other = self
            .send(&self.request(Some(&key), self.options.other_body_for(n)))
            .await;
        let evidence = vec![
            format!("first: {}", describe(&first)),
            format!("other body: {}", describe(&other)),
        ];
        let Ok(other) = other else {
            return Finding::new(Verdict::Fail, "the second request got no answer", evidence);
        };
        match other.status {
            422 => Finding::new(
                Verdict::Pass,
                "refused with 422, as the IETF draft says",
                evidence,
            ),
            409 => Finding::new(
                Verdict::Warn,
                "refused with 409; the IETF draft answers a reused key with 422",
                evidence,
            ),
            400..=499 => Finding::new(
                Verdict::Warn,
                format!(
                    "refused with {}; the IETF draft answers a reused key with 422",
                    other.status
                ),
                evidence,
            ),
            200..=299 => Finding::new(
                Verdict::Fail,
                format!(
                    "accepted with {}: either a second effect, or the first answer passed off as this one",
                    other.status
                ),
                evidence,
            ),
            status => Finding::new(
                Verdict::Fail,
                format!("answered {status}: an error, not a refusal"),
                evidence,
            ),
        }
    }

    pub(super) async fn distinct_keys(&self) -> Finding {
        let n = self.fresh();
        let body = self.options.body_for(n);
        let (one, two) = (self.key(n), format!("{}-other", self.key(n)));
        let first = self.send(&self.request(Some(&one), body.clone())).await;
        let second = self.send(&self.request(Some(&two), body)).await;
        let evidence = vec![
            format!("key {one}: {}", describe(&first)),
            format!("key {two}: {}", describe(&second)),
        ];
        let ids: Vec<Option<String>> = [&first, &second]
            .iter()
            .map(|a| {
                a.as_ref()
                    .ok()
                    .filter(|a| (200..300).contains(&a.status))
                    .and_then(|a| a.json())
                    .and_then(|b| id_of(&b, &self.options.id_pointer))
            })
            .collect();
        match (&ids[0], &ids[1]) {
            (Some(a), Some(b)) if a != b => {
                Finding::new(Verdict::Pass, "two keys, two ids", evidence)
            }
            (Some(_), Some(_)) => Finding::new(
                Verdict::Fail,
                "two keys got the same id: the server keys on the body, not the key",
                evidence,
            ),
            _ => Finding::new(
                Verdict::Fail,
                "a new key was not answered with a created resource",
                evidence,
            ),
        }
    }

    pub(super) async fn rewritten_body(&self) -> Finding {
        let n = self.fresh();
        let key = self.key(n);
        let body = self.options.body_for(n);
        let Some(other_text) = rewritten(&body) else {
            return Finding::new(
                Verdict::Skipped,
                "the body is not a JSON object of two fields or more: nothing to reorder",
                vec![],
            );
        };
        let first = self.send(&self.request(Some(&key), body.clone())).await;
        let again = self
            .send(&self.request(Some(&key), other_text.clone()))
            .await;
        let evidence = vec![
            format!("first: {}", describe(&first)),
            format!("as {:?}: {}", excerpt(&other_text, 60), describe(&again)),
        ];
        let (Ok(first), Ok(again)) = (first, again) else {
            return Finding::new(Verdict::Fail, "a request got no answer", evidence);
        };
        if again.status == first.status && again.json() == first.json() {
            return Finding::new(
                Verdict::Pass,
                "replayed: the server compares requests, not bytes",
                evidence,
            );
        }
        match again.status {
            400..=499 => Finding::new(
                Verdict::Warn,
                format!(
                    "refused with {}: treats a reordered body as another request",
                    again.status
                ),
                evidence,
            ),
            200..=299 => Finding::new(
                Verdict::Fail,
                "accepted as a new request: a second effect",
                evidence,
            ),
            status => Finding::new(Verdict::Fail, format!("answered {status}"), evidence),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rewritten_body_has_its_fields_in_another_order_and_other_spacing() {
        let body = r#"{"orderId": 7, "amount": 100}"#;
        let text = rewritten(body).expect("an object of two fields");
        assert_eq!(text, "{\n  \"amount\" :  100 ,\n  \"orderId\" :  7\n}\n");
        assert_eq!(
            serde_json::from_str::<Value>(&text).ok(),
            serde_json::from_str::<Value>(body).ok()
        );
    }

    #[test]
    fn a_body_already_in_sorted_order_is_reversed() {
        let text = rewritten(r#"{"amount":1,"orderId":2}"#).expect("an object");
        assert!(text.find("orderId") < text.find("amount"), "{text}");
    }
}
