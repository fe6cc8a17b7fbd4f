//! When the probe cannot run, it says why in one line, never a panic: nothing
//! listening, a server that never answers, an answer that is not JSON, a route
//! that refuses the probe's requests, a target that is not this machine.

use std::net::SocketAddr;
use std::time::Duration;

use probe::{Options, ProbeError};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// A server on 127.0.0.1 that reads each request's head and answers `answer`
/// (or, for `None`, holds the connection open and never answers).
async fn fake_server(answer: Option<&'static str>) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("a free port");
    let addr = listener.local_addr().expect("an address");
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((mut client, _)) = listener.accept().await {
            match answer {
                None => held.push(client),
                Some(answer) => {
                    tokio::spawn(async move {
                        let mut buf = [0u8; 4096];
                        let _ = client.read(&mut buf).await;
                        let _ = client.write_all(answer.as_bytes()).await;
                    });
                }
            }
        }
    });
    addr
}

async fn probe_error(options: Options) -> ProbeError {
    let bounded = tokio::time::timeout(Duration::from_secs(20), probe::run(&options));
    match bounded.await {
        Ok(Err(e)) => e,
        Ok(Ok(report)) => panic!("the probe ran: {}", probe::table(&report, 100, true)),
        Err(_) => panic!("the probe did not stop within 20 s"),
    }
}

fn one_line(e: &ProbeError) -> String {
    let line = e.to_string();
    assert!(!line.contains('\n'), "one line: {line:?}");
    line
}

#[tokio::test]
async fn nothing_listening_is_one_line_that_asks_whether_the_server_runs() {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
        listener.local_addr().expect("an address").port()
    };
    let e = probe_error(Options::new(format!("http://127.0.0.1:{port}"))).await;
    assert!(matches!(e, ProbeError::Unreachable { .. }), "{e:?}");
    assert!(
        one_line(&e).ends_with("is the server running, and on this port?"),
        "{e}"
    );
}

#[tokio::test]
async fn a_server_that_never_answers_is_reported_within_the_bound() {
    let addr = fake_server(None).await;
    let mut options = Options::new(format!("http://{addr}"));
    options.timeout = Duration::from_millis(300);
    let e = probe_error(options).await;
    assert!(matches!(e, ProbeError::NoAnswer { sent: 20, .. }), "{e:?}");
    one_line(&e);
    // Its timeline says how: 20 lanes given up at the bound, none answered.
    let trace = e
        .timeline()
        .expect("the burst's timeline comes with the error");
    let answers = trace.answers();
    assert_eq!(
        answers.get(timeline::trace::UNANSWERED),
        Some(&20),
        "every request of the burst reached the bound: {answers:?}"
    );
    let drawn = probe::timeline_lines(trace, 100).join("\n");
    assert!(
        drawn.contains("×20 (#1–#20): → no answer in time"),
        "{drawn}"
    );
}

#[tokio::test]
async fn a_created_answer_that_is_not_json_names_what_came_back() {
    let addr = fake_server(Some(
        "HTTP/1.1 201 Created\r\ncontent-type: text/html\r\ncontent-length: 11\r\nconnection: close\r\n\r\n<p>done</p>",
    ))
    .await;
    let e = probe_error(Options::new(format!("http://{addr}"))).await;
    match &e {
        ProbeError::NotJson {
            status,
            media_type,
            excerpt,
            ..
        } => assert_eq!(
            (*status, media_type.as_str(), excerpt.as_str()),
            (201, "text/html", "<p>done</p>"),
            "a 201 answered in HTML should be reported with its status, media type and body: {e:?}"
        ),
        other => panic!("{other:?}"),
    }
    one_line(&e);
}

#[tokio::test]
async fn a_route_that_refuses_every_request_says_which_flags_to_set() {
    let addr = fake_server(Some(
        "HTTP/1.1 404 Not Found\r\ncontent-length: 9\r\nconnection: close\r\n\r\nnot found",
    ))
    .await;
    let e = probe_error(Options::new(format!("http://{addr}"))).await;
    assert!(
        matches!(e, ProbeError::Refused { status: 404, .. }),
        "{e:?}"
    );
    assert!(
        one_line(&e).ends_with("set --path, --body or --header to what the route expects"),
        "a route that refuses every request should end its error with the flags to set: {}",
        one_line(&e)
    );
}

#[tokio::test]
async fn another_machine_is_refused_unless_allowed() {
    let e = probe_error(Options::new("http://192.0.2.1:8080")).await;
    assert!(matches!(e, ProbeError::Remote { .. }), "{e:?}");
    assert!(
        one_line(&e).ends_with("pass --allow-remote if that is what you want"),
        "another machine should be refused with the flag that allows it: {}",
        one_line(&e)
    );
}
