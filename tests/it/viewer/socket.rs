//! The websocket: every upgrade checks the Origin, and fifty browsers, some never
//! reading, leave the trace as it is.

use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use gatecrew_protocol::trace::{Event, TraceWriter};
use gatecrew_viewer::crew::ViewProbe;
use gatecrew_viewer::hub;
use gatecrew_viewer::replay::Recording;
use gatecrew_viewer::server::{Source, bind};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

use crate::common::default_setup;

use super::episode;

async fn connect(url: &str, origin: Option<&str>, host: Option<&str>) -> Result<String, String> {
    let mut req = url.into_client_request().unwrap();
    if let Some(o) = origin {
        req.headers_mut().insert("origin", o.parse().unwrap());
    }
    if let Some(h) = host {
        req.headers_mut().insert("host", h.parse().unwrap());
    }
    match tokio_tungstenite::connect_async(req).await {
        Ok((mut ws, _)) => {
            let msg = tokio::time::timeout(Duration::from_secs(10), ws.next()).await.unwrap().unwrap().unwrap();
            let _ = ws.close(None).await;
            Ok(msg.into_text().unwrap().to_string())
        }
        Err(e) => Err(e.to_string()),
    }
}

#[tokio::test]
async fn every_websocket_upgrade_checks_the_origin() {
    let (scene, events) = episode();
    let rec = Arc::new(Recording::new(scene, events));
    let bound = bind("127.0.0.1:0".parse().unwrap(), Source::Replay(rec)).await.unwrap();
    let addr = bound.addr();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(bound.serve(async move {
        let _ = stopped.await;
    }));
    let url = format!("ws://{addr}/ws");
    let own = format!("http://{addr}");
    let first = connect(&url, Some(&own), None).await.expect("the page's own origin is let in");
    let v: serde_json::Value = serde_json::from_str(&first).unwrap();
    assert_eq!(v["type"], "state");
    assert_eq!(v["state"]["mode"], "replay");
    let port = addr.port();
    let refused = [
        (None, None),
        (Some("http://evil.example".to_owned()), None),
        (Some(format!("https://{addr}")), None),
        // A DNS-rebound name: Origin and Host agree, but the Host is not this loopback server.
        (Some(format!("http://evil.example:{port}")), Some(format!("evil.example:{port}"))),
    ];
    for (origin, host) in refused {
        let e = connect(&url, origin.as_deref(), host.as_deref()).await.expect_err("refused");
        assert!(e.contains("403"), "{origin:?} {host:?}: {e}");
    }
    let page = reqwest::get(format!("{own}/")).await.unwrap();
    assert!(page.headers()["content-security-policy"].to_str().unwrap().contains("default-src 'self'"));
    let text = page.text().await.unwrap();
    assert!(text.contains("/app.js") && !text.contains("http://") && !text.contains("https://"), "no CDN");
    let _ = stop.send(());
    server.await.unwrap().unwrap();
}

/// Folds a websocket message into the state a page holds: a live update carries only
/// the sections that changed since the one before (the page's own rule, app.js).
pub(super) fn merge(page: &mut serde_json::Value, msg: &str) {
    let m: serde_json::Value = serde_json::from_str(msg).unwrap();
    assert_eq!(m["type"], "state", "{msg}");
    let serde_json::Value::Object(parts) = &m["state"] else { panic!("no state: {msg}") };
    if !page.is_object() {
        *page = serde_json::json!({});
    }
    for (k, v) in parts.iter().filter(|(k, _)| *k != "log_add") {
        page[k] = v.clone();
    }
    // Of the log, only the entries added since the last update.
    if let Some(add) = parts.get("log_add") {
        let max = page["log"]["max"].as_u64().expect("max") as usize;
        let entries = page["log"]["entries"].as_array_mut().expect("a log to add to");
        entries.extend(add["entries"].as_array().expect("entries").iter().cloned());
        let over = entries.len().saturating_sub(max);
        entries.drain(..over);
        page["log"]["total"] = add["total"].clone();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fifty_browsers_some_never_reading_leave_the_trace_unchanged() {
    let setup = default_setup();
    let mut plain = TraceWriter::new(Vec::new());
    gatecrew_crew::run(&setup, &mut |e: &Event| plain.write(e).unwrap());
    let plain = plain.into_inner();

    let (feed, live) = hub::start(gatecrew_cli::viewer_scene(&setup), None);
    let bound = bind("127.0.0.1:0".parse().unwrap(), Source::Live(live.clone())).await.unwrap();
    let addr = bound.addr();
    let server = tokio::spawn(bound.serve(std::future::pending()));
    let mut clients = Vec::new();
    for i in 0..50 {
        let mut req = format!("ws://{addr}/ws").into_client_request().unwrap();
        req.headers_mut().insert("origin", format!("http://{addr}").parse().unwrap());
        let (ws, _) = tokio_tungstenite::connect_async(req).await.unwrap();
        clients.push((i, ws));
    }
    assert_eq!(live.clients(), 50);
    let traced = tokio::task::spawn_blocking(move || {
        // As `run --serve` does: the trace, written as ever, feeds the hub its lines and
        // the setup's probe the inventories.
        let mut watched = setup.clone();
        watched.probe = Some(ViewProbe::feeding(setup.data.clone(), feed.clone()));
        let mut w = TraceWriter::new(feed.trace(Vec::new()));
        gatecrew_crew::run(&watched, &mut |e: &Event| w.write(e).unwrap());
        feed.finish();
        w.into_inner().into_inner()
    })
    .await
    .unwrap();
    assert_eq!(traced, plain, "the trace is byte for byte the same with 50 browsers watching");
    // The readers get to the final state: the newest one, whatever they missed.
    for (i, ws) in clients.iter_mut().filter(|(i, _)| i % 2 == 0) {
        let mut page = serde_json::Value::Null;
        let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
        while page["ended"].is_null() && tokio::time::Instant::now() < deadline {
            let msg = tokio::time::timeout(Duration::from_secs(5), ws.next()).await.unwrap().unwrap().unwrap();
            merge(&mut page, &msg.into_text().unwrap());
        }
        assert_eq!(page["ended"], "complete", "client {i}");
        assert_eq!(page["blocks"]["remaining"], 0, "client {i}");
        // The log, sent as additions, holds every event of the episode, in order.
        let ticks: Vec<u64> =
            page["log"]["entries"].as_array().unwrap().iter().map(|e| e["t"].as_u64().unwrap()).collect();
        let want: Vec<u64> = crate::common::run_events(&default_setup()).iter().map(|e| e.t).collect();
        assert_eq!(ticks, want, "client {i}: the log");
        assert_eq!(page["log"]["total"], want.len(), "client {i}");
    }
    server.abort();
}
