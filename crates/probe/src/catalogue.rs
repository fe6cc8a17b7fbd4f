//! The one list of the probe's checks: each one's id, the name `--skip` and the
//! reports give it, and the effects it should leave. The checks themselves are
//! `checks/`; their titles, like every word of a report, are in [`crate::words`].

use serde::Serialize;

/// How many effects a check should leave, when effects are counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Expected {
    /// Exactly this many.
    Exactly(i64),
    /// One per request the server accepted (answered 2xx), none for the refused ones.
    OnePerAccepted,
    /// Shown, not judged.
    NotJudged,
}

/// One row of [`CHECKS`].
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Check {
    pub id: CheckId,
    /// What `--skip` and the report call it.
    pub name: &'static str,
    pub expected_effects: Expected,
}

/// Declares [`CheckId`] and [`CHECKS`] from one table, so that a check cannot
/// exist without its name and expected effects, nor be left out of a run.
macro_rules! checks {
    ($( $(#[$doc:meta])* $variant:ident: $name:literal, $effects:expr; )*) => {
        /// A check, by id; its row in [`CHECKS`] has the rest.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
        pub enum CheckId {
            $( $(#[$doc])* #[serde(rename = $name)] $variant, )*
        }

        /// Every check, in the order they run.
        pub const CHECKS: &[Check] = &[
            $( Check { id: CheckId::$variant, name: $name, expected_effects: $effects }, )*
        ];

        impl CheckId {
            /// Every check, in the order they run.
            pub const ALL: &'static [CheckId] = &[ $( CheckId::$variant, )* ];
        }
    };
}

checks! {
    /// Concurrent requests with one key, released together.
    Burst: "burst", Expected::Exactly(1);
    /// A later retry with the same key and body.
    Replay: "replay", Expected::Exactly(1);
    /// The same key with another body, after the first finished.
    DifferentBody: "different-body", Expected::Exactly(1);
    /// The same key with another body while the first is in flight.
    ConcurrentBody: "concurrent-body", Expected::Exactly(1);
    /// Two keys with the same body.
    DistinctKeys: "distinct-keys", Expected::Exactly(2);
    /// The same request with its fields reordered and respaced.
    RewrittenBody: "rewritten-body", Expected::Exactly(1);
    /// A missing, an empty and a too long key.
    BadKeys: "bad-keys", Expected::Exactly(0);
    /// A body that is not JSON and one over the size limit.
    BadBodies: "bad-bodies", Expected::OnePerAccepted;
    /// Answers and requests lost by the network, and a late answer.
    LostAnswer: "lost-answer", Expected::Exactly(3);
    /// Bursts larger than a typical pool. The burst judges the effects; this
    /// check judges only whether every request is answered.
    Hang: "hang", Expected::NotJudged;
}

impl CheckId {
    /// This check's row of [`CHECKS`].
    pub fn row(self) -> &'static Check {
        // The table is declared in the enum's order.
        &CHECKS[self as usize]
    }

    pub fn as_str(self) -> &'static str {
        self.row().name
    }
}

impl std::str::FromStr for CheckId {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        CHECKS
            .iter()
            .find(|check| check.name == text)
            .map(|check| check.id)
            .ok_or_else(|| {
                let names: Vec<_> = CHECKS.iter().map(|check| check.name).collect();
                format!("no check {text:?}; the checks are {}", names.join(", "))
            })
    }
}

impl std::fmt::Display for CheckId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
