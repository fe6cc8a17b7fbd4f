# What tests/stage11_payment_provider.rs says, in English. Each message is named
# after what it says; the facts (figures, answers, keys, charge ids, recovery
# points, identifiers) are arguments.

# An answer as the messages show it: `201 {"amount":100,...}`, and whether it
# was a replay.
an-answer = { $replayed ->
    [true] { $reply } (replayed)
   *[other] { $reply }
}
the-request-panicked = the request's task did not end normally: { $error }
a-request-failed = { $what } failed: { $error }
create-payment-failed = create_payment returned an error instead of an answer: { $error }
the-payments-can-be-read = the harness could not read the payments: { $error }
the-keys-can-be-read = the harness could not read the keys: { $error }
the-reaper = the reaper
the-reaper-failed = the reaper (`reap`) failed: { $error }
charged-twice = the card was charged { $charges ->
    [1] once
   *[other] { $charges } times
}; the provider received the keys { $keys }. A retry of our request must be a retry at the provider: send it the key derived from the client, its key and the step (`derived_key`), never a fresh one. Run `cargo workbook hint 11`.

## a_derived_key_is_the_same_for_a_retry_and_never_shared
a-retry-sends-the-same-key = a retry must send the provider the same key: `derived_key` gave { $first }, then { $again }
the-clients-own-key-is-not-sent = the provider must not see the client's own key: `derived_key` gave { $key }. Hash the client, its key, the body's hash and the step. Run `cargo workbook hint 11`.
two-clients-two-keys = two clients' order-1 are two payments: the provider must see two keys, and both got { $key }. The client's id is one of the parts. Run `cargo workbook hint 11`.
another-body-another-key = the key used again with another body (once its row was reaped) is another payment: the provider must see another key, or it replays (or refuses) the first one's; both bodies got { $key }. The body's hash is one of the parts. Run `cargo workbook hint 11`.
two-steps-two-keys = two steps of one request must never collide at the provider: the charge and the refund both got { $key }. The step is one of the parts.
the-parts-do-not-run-into-each-other = the parts must not run into each other: (order-1, charge) is not (order-1c, harge), yet both got { $key }. Prefix each part with its length before its bytes. Run `cargo workbook hint 11`.

## a_new_payment_charges_the_card_once_and_records_the_charge
a-new-key-is-charged-and-answered-201 = a request with a new key must charge the card and be answered 201, not as a replay: it got { $got }
the-provider-got-the-clients-own-key = the provider got the client's own key: send it a key derived from the client, its key and the step (`derived_key`). Run `cargo workbook hint 11`.
the-provider-charges-the-bodys-amount = the provider must charge the body's amount, 100: it charged { $charged }
one-payment-row-for-the-charge = one payment row, recording the provider's charge id { $charge }: the payments' charge ids are { $ids }
the-key-ends-finished = the key must end at its last recovery point, 'finished': { $finished ->
    [1] 1 key did
   *[other] { $finished } keys did
}
a-retry-replays-the-answer = a retry must replay the answer, marked as replayed: the first request got { $first }, the retry { $retry }
a-finished-key-does-not-ask-the-provider = a finished key replays its stored answer without asking the provider again: the provider was asked { $calls ->
    [1] once
   *[other] { $calls } times
}

## a_crash_after_each_phase_is_retried_into_one_charge
the-first-request = the first request
closing-the-dead-requests-connections = closing the dead request's connections
the-retry-of-a-dead-request-finishes-the-payment = the retry, after the dead request's lease expired, must finish the payment; it got { $got }. A key left unfinished ('started' or 'charged') whose `locked_until` has passed belongs to a request that died: take it over (renew its lease) and resume from its recovery point. Run `cargo workbook hint 11`.
the-retry-replays-the-lost-answer = the retry must replay the answer the client lost ({ $lost }): it got { $retry }
every-later-retry-gets-the-same-body = every later retry must get the same body, marked as replayed: the retry before it got { $before }, this one { $again }
a-retry-resumes-from-the-recovery-point = a retry resumes from the key's recovery point: once the charge is recorded ('charged'), the provider is not asked again. The provider was asked { $calls ->
    [1] once
   *[other] { $calls } times
}, not { $expected ->
    [1] once
   *[other] { $expected } times
}. Run `cargo workbook hint 11`.

## a_failed_provider_call_is_answered_502_and_the_retry_charges_once
an-unconfirmed-charge-is-answered-502 = the provider did not confirm the charge: answer 502, and let the client retry with the same key; it got { $got }
never-say-nothing-was-charged = the provider may have charged: never tell the client nothing was charged. The answer must be `provider_failed()`, { $expected }; it was { $got }
the-retry-takes-a-released-key-over-at-once = the failed request released its lease (`locked_until = now()`): the retry must take the unfinished key over at once and finish the payment; it got { $got }. Run `cargo workbook hint 11`.
the-retry-sends-the-first-tries-key = the retry must send the provider the first try's key, and the provider got the keys { $keys }
payments-made-by-now = { $wanted ->
    [1] 1 payment should have been made by now
   *[other] { $wanted } payments should have been made by now
}: there { $payments ->
    [1] is 1
   *[other] are { $payments }
}

## duplicates_of_a_request_held_at_the_provider_are_told_409
the-key-is-committed-started-before-the-call = while the provider is called, the key must already be committed as 'started' (phase 1 commits before the call): a call inside the transaction holds the key's lock and a pooled connection for as long as the provider takes. The keys, as other sessions see them: { $points }
duplicates-of-a-live-lease-are-told-409 = the key's lease has not expired: its request is alive, and each of the 19 duplicates must be told 409 without taking it over; { $count } were. The answers: { $got }
the-held-request = the held request
the-held-request-pays = the held request must pay once let go: it got { $got }

## twenty_concurrent_requests_with_one_key_charge_once
one-key-one-payment = one key, one payment: { $outcome }
each-request-gets-the-201-or-409 = each request must get the payment's 201, or 409 while it is in flight: { $outcome }
a-retry-after-the-burst-replays-the-201 = a retry after the burst must replay the payment's 201: it got { $got }

## the_same_key_from_two_clients_charges_twice
two-clients-reach-the-provider-as-two-keys = at the provider, all our clients are one account: A's and B's order-1 must reach it as two keys (derive the key from the client too), or B is handed A's charge (B got { $got }); the provider got the keys { $keys }. Run `cargo workbook hint 11`.
bs-payment = B's payment
two-clients-two-payments = two clients, two payments, each answered 201: A got { $of_a }, B { $of_b }
one-charge-per-client = one charge per client, two in all: the card was charged { $charges ->
    [1] once
   *[other] { $charges } times
}

## the_same_key_with_another_body_is_refused_without_a_charge
the-first-request-pays = the first request must pay and be answered 201: it got { $got }
another-body-with-a-used-key-is-refused = another body with a used key must be refused (422): it got { $got }
the-refused-request-charges-nothing = the refused request must charge nothing: the card was charged { $charges ->
    [1] once
   *[other] { $charges } times
} in all, not once
the-refused-request-does-not-ask-the-provider = the refused request must not ask the provider: it was asked { $calls ->
    [1] once
   *[other] { $calls } times
} in all, not once

## a_slow_provider_does_not_starve_requests_for_other_keys
the-request-for-another-key = the request for another key
a-slow-request-once-released = a slow request, once released
a-slow-request-pays-once-released = each slow payment must be answered 201 once the provider answers: one got { $got }
another-key-is-starved-by-a-slow-provider = a request for another key failed while five payments waited for the provider: it got { $got }.
    While it waited: { $state }.
    Each slow payment held a pooled connection (and its key's lock) for as long as the provider took: the provider was called inside the transaction. Commit the key as 'started' first, call the provider with no connection held, then record. Run `cargo workbook hint 11`.
five-slow-payments-and-the-other-keys = five slow payments and the other key's: the card must be charged 6 times, and was charged { $charges ->
    [1] once
   *[other] { $charges } times
}

## a_request_that_was_taken_over_writes_nothing
a-phase-failed = `{ $phase }` returned an error: { $error }
a-new-key-is-reserved = a new key must be reserved: `reserve` must return its row (Some), and returned None
a-dead-key-is-taken-over = a key whose lease expired must be taken over: `reserve` must return its row (Some), and returned None. Run `cargo workbook hint 11`.
a-takeover-gives-a-new-lease-number = a takeover must give the key a new lease number (bump `lease` in the DO UPDATE), and the key kept { $lease }: the lease number is the fencing token that tells the stalled request the key is no longer its own. Run `cargo workbook hint 11`.
a-stale-release-ends-the-new-owners-lease = the stalled request's release ended the lease of the request that took the key over: a duplicate then took it over too, while that request was alive. Every write after the reservation must name its lease (`AND lease = $n`) and change nothing when the lease is no longer its own.
a-stale-request-records-no-charge = the stalled request recorded a charge on a key it no longer holds: `record_charge` must name its lease (`AND lease = $n`)
a-stale-request-stores-no-final-answer = the stalled request stored a final answer on a key it no longer holds (`refuse` returned { $refused }, `set_aside` { $set_aside }): each must name its lease (`AND lease = $n`)
the-key-is-as-its-new-owner-left-it = the key must be as the request that took it over left it ('started', no charge id): { $points }
the-new-owner-records-its-charge = the request that took the key over must record its charge: `record_charge` under its lease returned false
a-stale-request-writes-no-payment = the stalled request wrote on a key it no longer holds: `finish` must answer from the key (409 while it is in flight) and write no payment; it answered { $got }, and there { $payments ->
    [1] is 1 payment
   *[other] are { $payments } payments
}

## a_request_taken_over_does_not_end_the_lease_of_the_request_that_took_the_key
the-request-that-took-the-key-over = the request that took the key over
a-request-taken-over-answers-from-the-key = the first request was taken over: its release changed nothing, and it must answer from the key (409 while the request that took it over works), not as if the key were still its own (`release` says whether the lease was still ours); it answered { $got }
a-stale-release-lets-a-duplicate-in = the request that took the key over is still waiting for the provider's answer, and its lease is live; yet a duplicate got { $got }. The first request's release ended the new owner's lease: `release` must name its lease (`AND lease = $n`).
the-new-owner-pays = the request that took the key over must pay once the provider answers: it got { $got }
a-stale-release-lets-no-second-payment-in = one card charge must be one row in payments: the stale request's release must not let a second payment in; there { $payments ->
    [1] is 1
   *[other] are { $payments }
}

## a_refusal_the_provider_keeps_is_the_keys_final_answer
a-kept-refusal-is-final = the provider keeps its answer for the key and replays it to every retry: a refusal it keeps is final (stored with our key, a 402); an error it keeps leaves the charge unknown for good (a 202, the key set aside for reconciliation), never a 402 that says nothing was charged, nor a 502 asking for a retry that can only get the same error. (A 409 after the first 502 means the retry did not take over the key the failed request released: see `reserve`.) The three tries must get { $expected }, and got { $got }: { $answers }
the-final-answer-is-stored-and-replayed = the final answer must be stored with the key and replayed: the try before got { $before }, the last one { $last }
a-stored-refusal-is-replayed-without-asking-the-provider = once the refusal is stored, retries replay it without asking the provider: it was asked { $calls ->
    [1] once
   *[other] { $calls } times
}, not { $expected ->
    [1] once
   *[other] { $expected } times
}
nothing-was-charged = nothing was charged, yet the card was charged { $charges ->
    [1] once
   *[other] { $charges } times
}
no-payment-was-written = no payment may be written for a refusal, and there { $payments ->
    [1] is 1
   *[other] are { $payments }
}

## a_charge_still_running_at_the_provider_is_told_409_and_a_later_retry_charges_once
the-retry-takes-the-key-over-and-asks-the-provider = the retry, once the first request's lease expired, must take the key over and ask the provider again (see `reserve`); it answered { $got } without calling it
the-providers-409-is-answered-409 = the provider answered 409 (a request with this key is executing there, nothing saved): the payment is in flight, so answer 409, not 502; it answered { $got }
a-request-taken-over-records-nothing = the first request was taken over: it records nothing, and answers from the key (409); it answered { $got }
a-later-retry-charges-once-and-pays = once the provider's charge is over, a later retry must finish the payment and be answered 201, not as a replay: it got { $got }
the-providers-409-ends-in-one-payment = the provider's 409 (its key in flight) must end in one row in payments, not a second payment under another key; there { $payments ->
    [1] is 1
   *[other] are { $payments }
}

## the_reaper_deletes_old_finished_keys_and_never_a_charged_one
the-reaper-keeps-a-charged-key = the reaper deleted a `charged` key: its charge exists, and the key is the only record of it. Delete finished keys by age; an unfinished key is for reconciliation
the-old-finished-key-is-deleted = the old finished key must be deleted, one key: the reaper deleted { $deleted }
the-charged-key-is-listed-for-reconciliation = the charged key past its lease must be listed for reconciliation, ["order-1"]: the reaper listed { $keys }
the-kept-charged-key-is-taken-over-and-finished = the kept `charged` key, its lease long expired, must be taken over by the retry and finished: it got { $got }
the-old-payments-charge-and-this-ones = two charges, the old finished payment's and this one's: the card was charged { $charges ->
    [1] once
   *[other] { $charges } times
}
the-retry-resumed-from-charged = the retry resumes from `charged`: it must not ask the provider again, two calls in all, and there were { $calls }
the-old-payment-and-the-retrys = two rows in payments, the old finished payment's and the retry's, finished from `charged` without a second charge: there { $payments ->
    [1] is 1
   *[other] are { $payments }
}

## a_key_finished_today_replays_for_the_whole_retention_however_old_it_is
retention-counts-from-finished-at = the reaper deleted a key finished a moment ago, because it was first used two days ago: retention is how long a finished key replays its answer, so it counts from when the key finished (`finished_at`), not from `created_at`

## a_key_used_again_after_the_reaper_deleted_it_is_answered
the-key-is-past-its-retention = the key is past its retention: the reaper must delete it, one key, and deleted { $deleted ->
    [1] 1
   *[other] { $deleted }
}
create-payment-with-the-reused-key = create_payment with the reused key
the-reused-key-failed = the key used again after the reaper deleted it failed: { $error }. The provider was sent the key it already knows (keys { $keys }): it replayed the first payment's charge, which already has its payment row, or refused the other amount
a-reused-key-is-paid-once = { $reuse ->
    [same-body] the key used again with the same body, while the provider remembers its key,
    [another-amount] the key used again with another amount,
   *[other] the key used again with the same body, once the provider forgot its key,
} must be answered 201 with { $reuse ->
    [same-body] the first payment's charge and row
   *[other] a charge and a payment of its own
}: it got { $got }, the card was charged { $charges ->
    [1] once
   *[other] { $charges } times
} and there { $payments ->
    [1] is 1 payment
   *[other] are { $payments } payments
} in all; the provider received the keys { $keys }. Derive the provider key from the body's hash too (another body is another payment), and let `finish` answer a charge that already has its payment row with that payment
a-reused-key-gets-its-answer = { $reuse ->
    [same-body] the key used again with the same body, while the provider remembers its key, is the first payment played again: it must get the first answer ({ $first }), marked as replayed
    [another-amount] the key used again with another amount is another payment: it must get an answer of its own, not marked as replayed
   *[other] the key used again with the same body, once the provider forgot its key, is another payment: it must get an answer of its own, not marked as replayed
}; it got { $got }

## a_dead_requests_key_is_not_taken_over_with_another_body
a-dead-key-is-not-taken-over-with-another-body = the dead request charged 100 with this key; a retry with amount 999 must be refused (422) and charge nothing. It got { $got }, and the card was charged { $charges ->
    [1] once
   *[other] { $charges } times
}. A takeover is for a retry of the same request: `AND k.body_hash = EXCLUDED.body_hash`
the-retry-with-the-first-body-finishes-the-payment = the retry with the first body must finish the payment, 201 with amount 100: it got { $got }
one-charge-one-payment = one charge, one payment: the card was charged { $charges ->
    [1] once
   *[other] { $charges } times
}, and there { $payments ->
    [1] is 1 payment
   *[other] are { $payments } payments
}

## a_started_key_the_provider_may_have_forgotten_is_set_aside_not_charged_again
a-forgotten-key-is-not-asked-again = the retry must not ask the provider again about a key it may have forgotten (it answered { $got }): the provider was asked { $calls ->
    [1] once
   *[other] { $calls } times
}, and the card charged { $charges ->
    [1] once
   *[other] { $charges } times
}. Take a `started` key over only while the provider still remembers its key: `k.created_at > now() - $5::interval` (`app.config.resume_window_interval()`)
a-forgotten-key-is-set-aside = the key must be set aside for reconciliation, and the client told so ({ $expected }): it got { $got }
the-reaper-lists-the-set-aside-key = the reaper must list the set-aside key for reconciliation, [("order-1", "unknown")]: it listed { $listed }

## a_request_that_outlived_its_key_writes_nothing_into_the_keys_next_use
the-stalled-request = the stalled request
the-keys-next-use = the key's next use
a-request-that-outlived-its-key-writes-nothing = the key's next use must be paid with its own charge, 201 with amount 999: it got { $got }. The request that outlived the key's first use (it answered { $stalled }) wrote into it. A lease number must never be given twice, not even to a key reaped and used again: `lease = nextval('idempotency_key_leases')`. Run `cargo workbook hint 11`.
one-payment-per-charge = one payment per charge, ["ch_1", "ch_2"]: the payments' charge ids are { $ids }

## a_key_reaped_between_its_reservation_and_its_read_is_reserved_anew
the-retry-reading-the-key = the retry, reading the key
the-retry = the retry
a-key-reaped-under-a-read-is-reserved-anew = the key was reaped between the retry's reservation and its read of the key's answer, and the retry failed: { $error }. A key the reaper deleted is no key: reserve it anew
reserved-anew-the-key-replays-the-first-charge = reserved anew, the key sends the provider the same derived key, which replays the first charge: the retry must get the first payment's answer ({ $first }), with one charge and one payment. It got { $got }; the card was charged { $charges ->
    [1] once
   *[other] { $charges } times
}, and there { $payments ->
    [1] is 1 payment
   *[other] are { $payments } payments
}

## each_provider_answer_is_read_for_what_it_says_about_the_card
a-provider-answer-read-for-what-it-says = the provider's { $fault } means { $meaning ->
    [charged] the card was charged: a payment, 201
    [not-charged-retry] nothing was charged and nothing kept: a 502, and the retry with the same key charges
    [unknown] the charge is unknown for good: the key is set aside for reconciliation (202), and never sent to the provider again
   *[other] the provider's final refusal: nothing was charged (402)
}. The client must get { $expected } (statuses), the provider { $calls ->
    [1] 1 call
   *[other] { $calls } calls
}, the card { $charges ->
    [1] 1 charge
   *[other] { $charges } charges
}, with { $payments ->
    [1] 1 payment
   *[other] { $payments } payments
}; it got { $got }, { $got_calls ->
    [1] 1 call
   *[other] { $got_calls } calls
}, { $got_charges ->
    [1] 1 charge
   *[other] { $got_charges } charges
} and { $got_payments ->
    [1] 1 payment
   *[other] { $got_payments } payments
}. The answers were: { $answers }
nothing-was-charged-say-so = nothing was charged: say so, and ask for a retry with the same key (`provider_not_charged()`, { $expected }); it answered { $got }
an-unknown-charge-is-set-aside = the charge is unknown for good: the key must be set aside (`unknown`) and its pending answer ({ $expected }) replayed, never a 402 that tells the client nothing was charged; it got { $got }, and the keys are { $points }

## the_provider_client_returns_the_charge_id_or_why_there_is_none
the-charges-id-from-the-providers-answer = the provider client must return the charge's id from the provider's answer, ch_1: it returned { $got }
a-declined-card-is-a-final-refusal = a declined card is the provider's final refusal (`ProviderError::Declined` with status 402): it returned { $got }

## an_answer_marked_idempotent_replayed_false_is_not_a_replay
replayed-false-is-not-a-replay = the provider's 503 said `Idempotent-Replayed: false`: it is no saved answer, so the first try gets 502 and the retry must charge, one charge in all. It got { $first }, then { $retry }, and the card was charged { $charges ->
    [1] once
   *[other] { $charges } times
}
