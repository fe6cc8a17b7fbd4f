# What tests/stage4_changed_body.rs says, in English. Each message is named
# after what it says; the facts (figures, answers, bodies, the outcome's line)
# are arguments.

payments-made-by-now = { $wanted ->
    [one] 1 payment
   *[other] { $wanted } payments
} should have been made by now: there { $payments ->
    [one] is 1
   *[other] are { $payments }
}
the-first-request-must-pay = the first request must pay, and it failed: { $error }
the-second-request-must-be-answered = the second request must be answered, and it failed: { $error }
the-original-must-be-answered = the original body, sent again, must be answered, and it failed: { $error }
the-repeat-must-be-answered = the same body written differently must be answered, and it failed: { $error }
every-request-must-be-answered = every request of the burst must be answered, and one failed: { $error }
a-valid-body-hashes = request_hash must hash a valid body ({ $body }), and it failed: { $error }
the-same-body-written-differently-hashes-the-same = { $body } is the same request as {"{"}"orderId":1,"amount":100{"}"}: normalise the JSON (sorted keys, no spacing) before hashing it
another-amount-is-another-request = another amount is another request: the two bodies must not hash the same
the-hash-is-sha256-of-the-canonical-text = the hash is SHA-256 (in hex) of the canonical text { $canonical }: keys sorted, a comma between members, no spacing
nested-objects-are-canonical-too = nested objects have their keys sorted too, and an array keeps its order, with a comma between items: [1,2] and [12] are not the same body
another-order-is-another-request = another order is another request: every field of the body goes into the hash
the-first-request-is-answered-201 = the first request must be answered 201: it got { $got }
another-body-is-refused-with-422 = the key was used with another body: it must be refused with 422; it got { $got }
the-problems-title-says-what-went-wrong = the problem body's title must say what went wrong ("{ $title }"): it got { $got }
the-refused-request-pays-nothing = the refused request must pay nothing: there { $payments ->
    [one] is 1 payment
   *[other] are { $payments } payments
}, not 1
the-refusal-changed-nothing = the refusal changes nothing: the original body, sent again, must still replay its 201; the first got { $first }, the original sent again { $replay }
another-order-is-refused-with-422 = the key was used for order 1 and is now sent for order 2, with the same amount: that is another request, so 422; a replay would tell the client order 2 was paid (hash every field of the body, not only the amount). It got { $got }
the-same-body-written-differently-replays-the-201 = { $body } means the same as the first body, so it must replay the 201, not be refused: the first got { $first }, this one { $again }
an-invalid-body-is-refused = a body that is not a payment must be refused (PaymentError::InvalidBody) before anything is stored: it got { $got }
no-key-is-reserved-for-an-invalid-body = a body that is not a payment must reserve no key: { $keys ->
    [one] 1 key row was
   *[other] { $keys } key rows were
} stored
one-key-one-payment = one key, one payment: { $outcome }
the-winners-ten-get-its-201 = the ten requests with the winning body must all get its 201; { $count } did: { $outcome }
the-other-bodys-ten-get-422 = the ten requests with the other body must all be refused with 422; { $count } were: { $outcome }
one-201-body-one-problem-body = the replies must carry two bodies, the 201's and the problem's; they carried { $bodies }: { $outcome }
a-request-with-the-winning-body-gets-201 = request { $number } (amount { $amount }) sent the winning body, so it must get the 201: it got { $got }
a-request-with-the-other-body-gets-422 = request { $number } (amount { $amount }) sent the other body, so it must be refused with 422: it got { $got }
