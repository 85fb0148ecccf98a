//! Measures the bridge's own overhead per command: the round trip this client sees
//! minus the time the command spent in the game (measured inside the bridge). Starts
//! the local flying-squid harness on a free loopback port and one bot, then runs
//! `ping`, `observe`, `place_block`, `dig` and `move_to` round after round.
//!
//! ```sh
//! cargo run --release -p gatecrew-mcworld --example bridge_overhead -- 100
//! ```
//!
//! The argument is the number of rounds (default 100). Prints p50 and p95 per command.

use std::io::Write;
use std::time::Duration;

use gatecrew_mcworld::wire::Command;
use gatecrew_mcworld::{Bridge, Latency, LocalServer};

fn percentile(v: &mut [f64], q: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    if v.is_empty() {
        return f64::NAN;
    }
    v[(((v.len() - 1) as f64) * q).round() as usize]
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let rounds: u32 = std::env::args().nth(1).map(|a| a.parse()).transpose()?.unwrap_or(100);
    let dir = gatecrew_mcworld::bridge_dir(None)?;
    gatecrew_mcworld::ensure_installed(&dir).await?;
    let server = LocalServer::start(&dir, "1.20.4").await?;
    let (bridge, _events) = Bridge::start(&dir).await?;
    let wait = Duration::from_secs(30);
    let spawn = Command::SpawnBot {
        host: "127.0.0.1".into(),
        port: server.port(),
        version: "1.20.4".into(),
        standins: true,
        timeout_ms: 30_000,
    };
    let y = server.ground_y();
    let admin = |line: String| Command::Admin { line };
    let result = async {
        bridge.request("bot0", &spawn, wait).await?;
        // flying-squid's dug blocks drop nothing that can be picked up: one dirt a round.
        let stock = format!("/gc-stock {{nonce}} bot0 dirt {}", rounds.max(1));
        bridge.request("bot0", &admin(stock), wait).await?;
        bridge.request("bot0", &admin(format!("/tp bot0 0.5 {y} 0.5")), wait).await?;
        tokio::time::sleep(Duration::from_millis(500)).await;
        let first = bridge.latencies().len();
        for i in 0..rounds {
            bridge.request("bot0", &Command::Ping, wait).await?;
            bridge.request("bot0", &Command::Observe { radius: 2 }, wait).await?;
            bridge.request("bot0", &Command::PlaceBlock { x: 2, y, z: 0, item: "dirt".into() }, wait).await?;
            bridge.request("bot0", &Command::Dig { x: 2, y, z: 0 }, wait).await?;
            let x = if i % 2 == 0 { 0 } else { -2 };
            let walk = Command::MoveTo { x, y, z: 1, range: 0.0, timeout_ms: 10_000 };
            bridge.request("bot0", &walk, wait).await?;
        }
        Ok::<Vec<Latency>, gatecrew_mcworld::BridgeError>(bridge.latencies().split_off(first))
    }
    .await;
    bridge.stop(Duration::from_secs(3)).await;
    server.stop(Duration::from_secs(3)).await;
    let samples = result?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "bridge overhead (round trip minus game time), {rounds} rounds, flying-squid 1.20.4 on 127.0.0.1")?;
    writeln!(
        out,
        "{:<12} {:>5} {:>12} {:>12} {:>12} {:>12}",
        "command", "n", "rtt p50", "game p50", "over p50", "over p95"
    )?;
    let mut all = Vec::new();
    for cmd in ["ping", "observe", "place_block", "dig", "move_to"] {
        let mine: Vec<&Latency> = samples.iter().filter(|l| l.cmd == cmd).collect();
        let mut rtt: Vec<f64> = mine.iter().map(|l| l.round_trip_ms).collect();
        let mut game: Vec<f64> = mine.iter().map(|l| l.game_ms).collect();
        let mut over: Vec<f64> = mine.iter().map(|l| l.overhead_ms()).collect();
        all.extend(over.iter().copied());
        writeln!(
            out,
            "{cmd:<12} {:>5} {:>9.3} ms {:>9.3} ms {:>9.3} ms {:>9.3} ms",
            mine.len(),
            percentile(&mut rtt, 0.5),
            percentile(&mut game, 0.5),
            percentile(&mut over, 0.5),
            percentile(&mut over, 0.95)
        )?;
    }
    let n = all.len();
    let (p50, p95) = (percentile(&mut all, 0.5), percentile(&mut all, 0.95));
    writeln!(out, "{:<12} {n:>5} {:>12} {:>12} {p50:>9.3} ms {p95:>9.3} ms", "all", "", "")?;
    Ok(())
}
