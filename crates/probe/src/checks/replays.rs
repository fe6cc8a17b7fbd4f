//! Replays: a later retry, the same key with another body, two keys with one
//! body, and the same request written differently.

use serde_json::Value;

use super::{Finding, Probe, describe, id_of, seen};
use crate::http::excerpt;
use crate::outcome::{Role, Verdict};
use crate::words::{Quoted, Said};

/// The headers of `retry` that mark it as a replay: a name that mentions a replay,
/// with a value the first answer did not carry (Stripe's `Idempotent-Replayed:
/// true`; others write `Idempotency-Replayed` or `X-Idempotent-Replayed`).
pub(crate) fn replay_marker<'a>(
    first: &[(String, String)],
    retry: &'a [(String, String)],
) -> Option<(&'a str, &'a str)> {
    retry
        .iter()
        .filter(|(name, _)| name.to_ascii_lowercase().contains("replay"))
        .find(|(name, value)| {
            !first
                .iter()
                .any(|(n, v)| n.eq_ignore_ascii_case(name) && v == value)
        })
        .map(|(name, value)| (name.as_str(), value.as_str()))
}

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
        let answers = vec![seen(Role::First, &first), seen(Role::Retry, &again)];
        let mut evidence = vec![
            Said::FirstAnswer {
                answer: describe(&first),
            },
            Said::RetryAnswer {
                answer: describe(&again),
            },
        ];
        let (Ok(first), Ok(again)) = (first, again) else {
            return Finding::new(Verdict::Fail, Said::NoAnswerToARequest, evidence).seen(answers);
        };
        evidence.push(match replay_marker(&first.headers, &again.headers) {
            Some((header, value)) => Said::ReplayMarked {
                header: header.to_owned(),
                value: value.to_owned(),
            },
            None => Said::ReplayNotMarked,
        });
        if again.status != first.status || again.json() != first.json() {
            let why = if id_of(&again.json().unwrap_or_default(), &self.options.id_pointer)
                != id_of(&first.json().unwrap_or_default(), &self.options.id_pointer)
            {
                Said::RetryGotAnotherId
            } else {
                Said::RetryGotAnother
            };
            return Finding::new(Verdict::Fail, why, evidence).seen(answers);
        }
        let status = first.status;
        let why = if again.body == first.body {
            Said::ReplayedByteForByte { status }
        } else {
            Said::ReplayedSameJson { status }
        };
        Finding::new(Verdict::Pass, why, evidence).seen(answers)
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
        let answers = vec![seen(Role::First, &first), seen(Role::OtherBody, &other)];
        let evidence = vec![
            Said::FirstAnswer {
                answer: describe(&first),
            },
            Said::OtherBodyAnswer {
                answer: describe(&other),
            },
        ];
        let Ok(other) = other else {
            return Finding::new(Verdict::Fail, Said::SecondNotAnswered, evidence).seen(answers);
        };
        let status = other.status;
        let (verdict, why) = match status {
            422 => (Verdict::Pass, Said::Refused422),
            400..=499 => (Verdict::Warn, Said::RefusedNot422 { status }),
            200..=299 => (Verdict::Fail, Said::AcceptedOtherBody { status }),
            _ => (Verdict::Fail, Said::AnsweredError { status }),
        };
        Finding::new(verdict, why, evidence).seen(answers)
    }

    pub(super) async fn distinct_keys(&self) -> Finding {
        let n = self.fresh();
        let body = self.options.body_for(n);
        let (one, two) = (self.key(n), format!("{}-other", self.key(n)));
        let first = self.send(&self.request(Some(&one), body.clone())).await;
        let second = self.send(&self.request(Some(&two), body)).await;
        let answers = vec![seen(Role::First, &first), seen(Role::SecondKey, &second)];
        let evidence = vec![
            Said::KeyAnswer {
                key: one,
                answer: describe(&first),
            },
            Said::KeyAnswer {
                key: two,
                answer: describe(&second),
            },
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
        let (verdict, why) = match (&ids[0], &ids[1]) {
            (Some(a), Some(b)) if a != b => (Verdict::Pass, Said::TwoKeysTwoIds),
            (Some(_), Some(_)) => (Verdict::Fail, Said::TwoKeysOneId),
            _ => (Verdict::Fail, Said::NewKeyNotCreated),
        };
        Finding::new(verdict, why, evidence).seen(answers)
    }

    pub(super) async fn rewritten_body(&self) -> Finding {
        let n = self.fresh();
        let key = self.key(n);
        let body = self.options.body_for(n);
        let Some(other_text) = rewritten(&body) else {
            return Finding::new(Verdict::Skipped, Said::NothingToReorder, vec![]);
        };
        let first = self.send(&self.request(Some(&key), body.clone())).await;
        let again = self
            .send(&self.request(Some(&key), other_text.clone()))
            .await;
        let answers = vec![seen(Role::First, &first), seen(Role::Rewritten, &again)];
        let evidence = vec![
            Said::FirstAnswer {
                answer: describe(&first),
            },
            Said::RewrittenAnswer {
                body: Quoted(excerpt(&other_text, 60)),
                answer: describe(&again),
            },
        ];
        let (Ok(first), Ok(again)) = (first, again) else {
            return Finding::new(Verdict::Fail, Said::NoAnswerToARequest, evidence).seen(answers);
        };
        let (verdict, why) = if again.status == first.status && again.json() == first.json() {
            (Verdict::Pass, Said::RewrittenReplayed)
        } else {
            match again.status {
                status @ 400..=499 => (Verdict::Warn, Said::RewrittenRefused { status }),
                200..=299 => (Verdict::Fail, Said::RewrittenAccepted),
                status => (Verdict::Fail, Said::AnsweredStatus { status }),
            }
        };
        Finding::new(verdict, why, evidence).seen(answers)
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
    fn a_replay_is_marked_by_a_header_the_first_answer_did_not_carry() {
        let headers = |pairs: &[(&str, &str)]| -> Vec<(String, String)> {
            pairs
                .iter()
                .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
                .collect()
        };
        let first = headers(&[("idempotent-replayed", "false")]);
        let retry = headers(&[("idempotent-replayed", "true")]);
        assert_eq!(
            replay_marker(&first, &retry),
            Some(("idempotent-replayed", "true"))
        );
        assert_eq!(
            replay_marker(&retry, &retry),
            None,
            "the same on both: no mark"
        );
        let other_name = headers(&[("x-idempotency-replay", "1")]);
        assert_eq!(
            replay_marker(&[], &other_name),
            Some(("x-idempotency-replay", "1"))
        );
        assert_eq!(replay_marker(&[], &headers(&[("retry-after", "1")])), None);
    }

    #[test]
    fn a_body_already_in_sorted_order_is_reversed() {
        let text = rewritten(r#"{"amount":1,"orderId":2}"#).expect("an object");
        assert!(text.find("orderId") < text.find("amount"), "{text}");
    }
}
