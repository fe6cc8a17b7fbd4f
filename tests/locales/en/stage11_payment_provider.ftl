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
a-retry-replays-the-answer = a retry must replay the answer, marked as replayed: the first got { $first }, the retry { $retry }
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
