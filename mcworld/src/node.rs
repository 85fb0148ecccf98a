//! Node.js processes: finding the bridge package, installing its pinned packages with
//! `npm ci` when `node_modules` is missing, starting `node` with piped stdio, and
//! stopping a child by its PID (politely by closing its stdin, then for good).

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::OnceLock;
use std::time::Duration;

use gatecrew_protocol::limits::{self, Line};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, ChildStderr, Command};

use crate::error::McError;

/// How long `npm ci` may take (minecraft-data alone is 433 MB).
const INSTALL_TIMEOUT: Duration = Duration::from_secs(600);

/// The bridge package: `explicit`, else `$GATECREW_BRIDGE_DIR`, else the one next to
/// this crate's sources, else `bridge/` beside the executable. Never `./bridge` from the
/// current directory: running gatecrew inside an untrusted folder would run that
/// folder's `npm ci` and `node bridge.js`.
pub fn bridge_dir(explicit: Option<&Path>) -> Result<PathBuf, McError> {
    let candidates = bridge_candidates(explicit, std::env::var_os("GATECREW_BRIDGE_DIR").map(PathBuf::from));
    let ok = |d: &Path| d.join("package.json").is_file() && d.join("bridge.js").is_file();
    candidates.iter().find(|d| ok(d)).cloned().ok_or_else(|| McError::NoBridge(candidates[0].clone()))
}

/// Where [`bridge_dir`] looks, in order; only the user's own choices may be relative.
fn bridge_candidates(explicit: Option<&Path>, env: Option<PathBuf>) -> Vec<PathBuf> {
    if let Some(p) = explicit {
        return vec![p.to_path_buf()];
    }
    let mut v: Vec<PathBuf> = env.into_iter().collect();
    v.push(Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("bridge"));
    if let Some(dir) = std::env::current_exe().ok().and_then(|e| e.parent().map(Path::to_path_buf)) {
        v.push(dir.join("bridge"));
    }
    v
}

fn installed(dir: &Path) -> bool {
    ["mineflayer", "mineflayer-pathfinder", "minecraft-data", "flying-squid"]
        .iter()
        .all(|p| dir.join("node_modules").join(p).join("package.json").is_file())
}

/// Runs `npm ci` in the bridge directory unless its packages are there already. One
/// install at a time per process (tests start many runs).
pub async fn ensure_installed(dir: &Path) -> Result<(), McError> {
    static LOCK: OnceLock<tokio::sync::Mutex<()>> = OnceLock::new();
    let _guard = LOCK.get_or_init(|| tokio::sync::Mutex::new(())).lock().await;
    if installed(dir) {
        return Ok(());
    }
    tracing::info!(dir = %dir.display(), "installing the bridge's packages (npm ci)");
    let started = std::time::Instant::now();
    let run = Command::new("npm")
        .args(["ci", "--no-audit", "--no-fund", "--loglevel=error"])
        .current_dir(dir)
        .stdin(Stdio::null())
        .kill_on_drop(true)
        .output();
    let out = tokio::time::timeout(INSTALL_TIMEOUT, run)
        .await
        .map_err(|_| McError::Install {
            dir: dir.to_path_buf(),
            detail: format!("timed out after {INSTALL_TIMEOUT:?}"),
        })?
        .map_err(|source| McError::Spawn { program: "npm".into(), source })?;
    if !out.status.success() || !installed(dir) {
        let text = String::from_utf8_lossy(&out.stderr);
        let tail: Vec<&str> = text.lines().rev().take(8).collect();
        let detail = tail.into_iter().rev().collect::<Vec<_>>().join("\n");
        return Err(McError::Install { dir: dir.to_path_buf(), detail: format!("{} {detail}", out.status) });
    }
    tracing::info!(secs = started.elapsed().as_secs_f64(), "npm ci done");
    Ok(())
}

/// Starts `node SCRIPT ARGS...` in `dir` with stdin and stdout piped (the protocol) and
/// stderr piped to the log. The child is killed if its handle is dropped.
pub fn spawn_node(dir: &Path, script: &str, args: &[String]) -> Result<Child, McError> {
    let mut child = Command::new("node")
        .arg(script)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|source| McError::Spawn { program: "node".into(), source })?;
    if let Some(err) = child.stderr.take() {
        forward_stderr(err, script.trim_end_matches(".js").to_owned(), child.id().unwrap_or(0));
    }
    Ok(child)
}

/// The lines a Node process writes, each at most [`limits::max_line_bytes`]: a
/// longer line (or one that is not UTF-8) is read past and skipped with a warning,
/// never held whole (reading the bridge's stdout had no cap).
pub(crate) struct CappedLines<R> {
    input: BufReader<R>,
    max: usize,
    what: &'static str,
}

impl<R: tokio::io::AsyncRead + Unpin> CappedLines<R> {
    /// Lines of `input`, named `what` in warnings.
    pub(crate) fn new(input: R, what: &'static str) -> Self {
        CappedLines { input: BufReader::new(input), max: limits::max_line_bytes(), what }
    }

    /// The next line that fits, `None` at the end.
    pub(crate) async fn next_line(&mut self) -> std::io::Result<Option<String>> {
        loop {
            let mut lb = limits::LineBuf::new(self.max);
            let line = loop {
                let chunk = self.input.fill_buf().await?;
                if chunk.is_empty() {
                    break lb.finish();
                }
                let (used, line) = lb.feed(chunk);
                self.input.consume(used);
                if line.is_some() {
                    break line;
                }
            };
            match line {
                None => return Ok(None),
                Some(Line::Text(b) | Line::Unterminated(b)) => match String::from_utf8(b) {
                    Ok(s) => return Ok(Some(s)),
                    Err(e) => tracing::warn!("{}: skipped a line that is not UTF-8 ({e})", self.what),
                },
                Some(Line::TooLong(n)) => tracing::warn!(
                    "{}: skipped a line of {n} bytes, over the limit of {} ({})",
                    self.what,
                    self.max,
                    limits::MAX_LINE_BYTES_VAR
                ),
            }
        }
    }
}

/// Node's stderr goes to the log, line by line (its stdout is the protocol).
fn forward_stderr(err: ChildStderr, name: String, pid: u32) {
    tokio::spawn(async move {
        let mut lines = CappedLines::new(err, "node's stderr");
        while let Ok(Some(line)) = lines.next_line().await {
            tracing::debug!(target: "gatecrew_mcworld::node", process = %name, pid, "{line}");
        }
    });
}

/// Stops a child: closes its stdin (both node programs exit on that), waits up to
/// `grace`, then kills it by PID and reaps it. Returns how it ended.
pub async fn stop_child(child: &mut Child, grace: Duration) -> String {
    drop(child.stdin.take());
    match tokio::time::timeout(grace, child.wait()).await {
        Ok(Ok(status)) => format!("{status}"),
        Ok(Err(e)) => format!("wait failed: {e}"),
        Err(_) => {
            let _ = child.start_kill();
            match child.wait().await {
                Ok(status) => format!("killed after {grace:?} ({status})"),
                Err(e) => format!("kill failed: {e}"),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `./bridge` in the current directory is never a candidate: every default is an
    /// absolute path, fixed by the build or the executable's place.
    #[test]
    fn the_bridge_is_never_taken_from_the_current_directory() {
        let found = bridge_candidates(None, None);
        assert!(!found.is_empty());
        assert!(found.iter().all(|p| p.is_absolute()), "{found:?}");
        assert!(!found.contains(&PathBuf::from("bridge")));
        assert_eq!(bridge_candidates(None, Some("mine".into()))[0], PathBuf::from("mine"));
    }
}
