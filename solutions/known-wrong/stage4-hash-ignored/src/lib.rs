//! Known wrong: stage 3's answer with stage 4's hash beside it, never compared.
//! A used key with another body replays the first payment's 201.

pub use stage3_answer::create_payment;
pub use stage4_answer::request_hash;
