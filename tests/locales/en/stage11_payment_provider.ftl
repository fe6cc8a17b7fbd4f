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
duplicates-of-a-live-lease-are-told-409 = the key's lease has not expired: its request is alive, and each of the 19 duplicates must be told 409 without taking it over; { $count } were. They got: { $got }
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
