//! The async episode driver for a real server. It answers the episode core's needs
//! like every other driver (`crew/src/episode/round.rs` has the order of a round), but
//! time is the wall clock in game ticks (20 a second) and an action's completion is
//! whatever the server and the bot's observation say, whenever it comes.
//!
//! Where it differs: before each advance it waits for the first of an action finishing
//! (its verified outcome is delivered at the current tick), a bridge event (a kicked
//! bot, the bridge dying: the agent fails), the next timer, or a fault drill; at the
//! end of a round it sends the actions the agents started to the bridge; before the
//! agents' last step a bot looks at every blueprint cell.

use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::future::join_all;
use gatecrew_crew::agent::AgentCore;
use gatecrew_crew::episode::consult::{ByAdjudicator, Resolver};
use gatecrew_crew::{Answer, ConsultRequest, Episode, Finished, Need, Observer, Setup};
use gatecrew_gating::{Adjudication, Deterministic};
use gatecrew_protocol::text::escape;
use gatecrew_protocol::{AgentId, Board, IssueId, Pos, Tick};
use gatecrew_world::{Action, BlockId, Failure, Inventory, Outcome, World};
use tokio::sync::mpsc;

use crate::bridge::{Bridge, Latency};
use crate::error::{BridgeError, McError};
use crate::server::LocalServer;
use crate::stage::block_named;
use crate::verify::{Done, Placements, Verdict};
use crate::wire::ErrorCode;
use crate::wire::{Command, Event};
mod talk;

use crate::partner::Talk;
use crate::{Ctx, Fault, McOptions, Origin, Server, node};

/// How long each phase took.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Timings {
    /// Checking (or running) `npm ci`.
    pub install: Duration,
    /// Starting the local server, when there is one.
    pub server_ready: Option<Duration>,
    /// All bots joined.
    pub bots_joined: Duration,
    /// The scenario set up and checked.
    pub staged: Duration,
    /// The episode itself.
    pub episode: Duration,
}

/// What a run on Minecraft reports besides its trace.
#[derive(Debug, Clone)]
pub struct McRun {
    /// Blocks in place (the last ones checked by observation) and why it ended.
    pub finished: Finished,
    /// Agents that failed, and why.
    pub failed: Vec<(AgentId, String)>,
    /// Blueprint cells a bot saw holding the right block at the end (`None`: no bot
    /// was left to look).
    pub observed_correct: Option<u32>,
    /// Each bot's inventory as it last reported it (the mirror's), by agent.
    pub inventories: Vec<Inventory>,
    /// How the server answered the placements: made, not made, another block.
    pub placements: Placements,
    /// Every bridge command's round trip and game time.
    pub latencies: Vec<Latency>,
    /// Phase durations.
    pub timings: Timings,
    /// The bridge's process id (stopped by the time this is returned).
    pub bridge_pid: u32,
    /// The local server's process id, if one was started (stopped too).
    pub server_pid: Option<u32>,
}

/// Runs one episode on Minecraft, handing every trace event to `sink` in order.
pub async fn run(setup: &Setup, opts: &McOptions, sink: &mut dyn Observer) -> Result<McRun, McError> {
    run_with(setup, opts, sink, None).await
}

/// Runs one episode on Minecraft with a person beside the bots, talking to `talk`'s
/// partner in the game's chat ([`crate::partner`]).
pub async fn run_talking(
    setup: &Setup,
    opts: &McOptions,
    sink: &mut dyn Observer,
    talk: &mut Talk,
) -> Result<McRun, McError> {
    run_with(setup, opts, sink, Some(talk)).await
}

async fn run_with(
    setup: &Setup,
    opts: &McOptions,
    sink: &mut dyn Observer,
    talk: Option<&mut Talk>,
) -> Result<McRun, McError> {
    let dir = node::bridge_dir(opts.bridge_dir.as_deref())?;
    let t = Instant::now();
    node::ensure_installed(&dir).await?;
    let install = t.elapsed();
    let (server, host, port) = match &opts.server {
        Server::Local => {
            let s = LocalServer::start(&dir, &opts.version).await?;
            let port = s.port();
            (Some(s), "127.0.0.1".to_owned(), port)
        }
        Server::Remote { host, port } => (None, host.clone(), *port),
    };
    let standins = server.is_some() || opts.flying_squid;
    let origin = opts.origin.unwrap_or(match &server {
        Some(s) => Origin { x: 0, y: s.ground_y(), z: 0 },
        None if opts.flying_squid => Origin { x: 0, y: crate::server::HARNESS_GROUND_Y, z: 0 },
        None => Origin::VANILLA_SUPERFLAT,
    });
    let timings =
        Timings { install, server_ready: server.as_ref().map(LocalServer::ready_after), ..Timings::default() };
    let server_pid = server.as_ref().map(LocalServer::pid);
    let result = with_bridge(setup, opts, sink, talk, &dir, (host, port), standins, origin, timings).await;
    if let Some(s) = server {
        s.stop(Duration::from_secs(3)).await;
    }
    result.map(|r| McRun { server_pid, ..r })
}

#[allow(clippy::too_many_arguments)]
async fn with_bridge(
    setup: &Setup,
    opts: &McOptions,
    sink: &mut dyn Observer,
    talk: Option<&mut Talk>,
    dir: &std::path::Path,
    (host, port): (String, u16),
    standins: bool,
    origin: Origin,
    mut timings: Timings,
) -> Result<McRun, McError> {
    let (bridge, events) = Bridge::start(dir).await?;
    let bridge = Arc::new(bridge);
    let names = (0..setup.world.agent_count()).map(|i| AgentId(i as u32).to_string()).collect();
    let ctx =
        Ctx { bridge: bridge.clone(), names, origin, standins, timeouts: opts.timeouts, data: setup.data.clone() };
    let result = play(&ctx, setup, opts, (sink, talk), &host, port, events, &mut timings).await;
    if bridge.exited().is_none() {
        let quits = ctx.names.iter().map(|n| bridge.request(n, &Command::Quit, Duration::from_secs(2)));
        join_all(quits).await;
    }
    bridge.stop(Duration::from_secs(3)).await;
    let Played { finished, failed, observed_correct, inventories, placements } = result?;
    Ok(McRun {
        finished,
        failed,
        observed_correct,
        inventories,
        placements,
        latencies: bridge.latencies(),
        timings,
        bridge_pid: bridge.pid(),
        server_pid: None,
    })
}

/// What an episode on the server came to.
struct Played {
    finished: Finished,
    failed: Vec<(AgentId, String)>,
    observed_correct: Option<u32>,
    inventories: Vec<Inventory>,
    placements: Placements,
}

#[allow(clippy::too_many_arguments)]
async fn play(
    ctx: &Ctx,
    setup: &Setup,
    opts: &McOptions,
    (sink, talk): (&mut dyn Observer, Option<&mut Talk>),
    host: &str,
    port: u16,
    events: mpsc::UnboundedReceiver<Event>,
    timings: &mut Timings,
) -> Result<Played, McError> {
    let t = Instant::now();
    let spawn = Command::SpawnBot {
        host: host.to_owned(),
        port,
        version: opts.version.clone(),
        standins: ctx.standins,
        timeout_ms: ctx.timeouts.join.as_millis() as u64,
    };
    let wait = ctx.timeouts.join + Duration::from_secs(5);
    let joins = join_all(ctx.names.iter().map(|n| ctx.bridge.request(n, &spawn, wait))).await;
    timings.bots_joined = t.elapsed();
    let mut not_joined = Vec::new();
    let mut alive = Vec::new();
    for (i, r) in joins.into_iter().enumerate() {
        let agent = AgentId(i as u32);
        match r {
            Ok(_) => alive.push(agent),
            Err(e) => not_joined.push((agent, format!("{} cannot join the server: {e}", ctx.name(agent)))),
        }
    }
    tracing::info!(joined = alive.len(), secs = timings.bots_joined.as_secs_f64(), "bots joined");
    let t = Instant::now();
    if let Some(&first) = alive.first() {
        ctx.stage_world(&setup.world, first).await?;
        for r in join_all(alive.iter().map(|a| ctx.stage_agent(&setup.world, *a))).await {
            r?;
        }
    }
    timings.staged = t.elapsed();
    let t = Instant::now();
    let (done_tx, done_rx) = mpsc::unbounded_channel();
    let mut faults = opts.faults.clone();
    faults.sort_by_key(fault_tick);
    let mut d = Driver {
        ctx,
        episode: Episode::new_external(setup),
        board: Board::new(setup.roster(), setup.data.items().clone(), setup.board),
        agents: setup.agents(),
        sink,
        relay: talk
            .as_ref()
            .map(|t| talk::Relay::start(ctx.bridge.clone(), ctx.name(t.agent()).to_owned(), ctx.timeouts.command)),
        talk,
        tick_limit: setup.tick_limit,
        done_tx,
        done_rx,
        events,
        t0: Instant::now(),
        faults,
        slips: Vec::new(),
        failed: Vec::new(),
        placements: Placements::default(),
        blueprint: setup.blueprint.cells().iter().map(|c| (c.pos, c.block)).collect(),
        adjudicator: ByAdjudicator(Deterministic { midpoint: setup.gate.midpoint() }),
    };
    let played = d.drive(not_joined).await;
    timings.episode = t.elapsed();
    Ok(played)
}

/// After a walk that failed in the game (no path, out of time) with the bot somewhere
/// else than where it started, walks it back to its start so that the agent's own idea
/// of where it stands stays true. The failure stands; its data is where the bot is now.
async fn walk_back(bridge: &Bridge, name: &str, e: BridgeError, start: [i32; 3], t: crate::Timeouts) -> BridgeError {
    let BridgeError::Command { bot, code, message, data } = e else { return e };
    let moved = data.as_ref().is_some_and(|d| d.feet.is_some_and(|f| f != start));
    // A stop leaves the bot where it stopped: that is what the person asked for.
    if code.is_fatal() || code == ErrorCode::Stopped || !moved {
        return BridgeError::Command { bot, code, message, data };
    }
    let [x, y, z] = start;
    let back = Command::MoveTo { x, y, z, range: 0.0, timeout_ms: t.walk.as_millis() as u64 };
    let now = match bridge.request(name, &back, t.walk + Duration::from_secs(5)).await {
        Ok(d) => Some(Box::new(d)),
        Err(BridgeError::Command { data: Some(d), .. }) => Some(d),
        Err(other) => {
            tracing::debug!(bot = name, "the walk back failed: {other}");
            data
        }
    };
    BridgeError::Command { bot, code, message, data: now }
}

fn fault_tick(f: &Fault) -> u64 {
    match f {
        Fault::KickAt { tick, .. } | Fault::KillBridgeAt { tick } | Fault::WrongItemAt { tick, .. } => *tick,
    }
}

struct Driver<'a> {
    ctx: &'a Ctx,
    episode: Episode,
    board: Board,
    agents: Vec<AgentCore>,
    sink: &'a mut dyn Observer,
    /// A person beside the bots, talking to one of them.
    talk: Option<&'a mut Talk>,
    relay: Option<talk::Relay>,
    tick_limit: u64,
    done_tx: mpsc::UnboundedSender<Done>,
    done_rx: mpsc::UnboundedReceiver<Done>,
    events: mpsc::UnboundedReceiver<Event>,
    t0: Instant,
    faults: Vec<Fault>,
    /// Slips armed by [`Fault::WrongItemAt`]: the next placement of each agent here
    /// puts this item instead.
    slips: Vec<(AgentId, String)>,
    failed: Vec<(AgentId, String)>,
    placements: Placements,
    blueprint: Vec<(Pos, BlockId)>,
    adjudicator: ByAdjudicator<Deterministic>,
}

impl Driver<'_> {
    /// Game time since the episode started.
    fn now(&self) -> Tick {
        Tick((self.t0.elapsed().as_millis() / 50) as u64)
    }

    fn at(&self, t: Tick) -> tokio::time::Instant {
        tokio::time::Instant::from_std(self.t0 + Duration::from_millis(t.0.saturating_mul(50)))
    }

    async fn drive(&mut self, mut not_joined: Vec<(AgentId, String)>) -> Played {
        let mut observed = None;
        loop {
            let answer = match self.episode.poll() {
                Need::Deadline => Answer::Deadline(self.wait().await),
                Need::Adjudicate(reqs) => Answer::Adjudicated(self.adjudicate(&reqs)),
                Need::Expire(now) => Answer::Expired(self.board.expire(now)),
                Need::Post { from, msg, now } => Answer::Posted(self.board.post(from, msg, now)),
                // Bots that never joined fail before anyone is woken.
                Need::Outside(_) => {
                    for (a, why) in not_joined.drain(..) {
                        self.fail(a, why);
                    }
                    self.talk_outside();
                    Answer::Ready
                }
                Need::Step(inputs) => Answer::Stepped(self.step(inputs)),
                Need::Flush => {
                    self.talk_drain();
                    // After the end nothing more goes to the server.
                    if self.episode.ended().is_none() {
                        self.dispatch();
                    }
                    self.flush();
                    Answer::Ready
                }
                Need::Over(_) => {
                    observed = self.final_look().await;
                    self.talk_finish().await;
                    Answer::Ready
                }
                Need::Done(finished) => return self.played(finished, observed),
            };
            self.episode.answer(answer);
        }
    }

    /// Waits until the episode's next timer is due by game time, delivering outcomes
    /// and bridge events as they come; returns the board's deadline. With nothing
    /// scheduled and nothing in flight it returns at once: the advance ends the episode.
    async fn wait(&mut self) -> Option<Tick> {
        loop {
            let deadline = self.board.next_deadline();
            let deadline = match self.talk_deadline() {
                Some(t) => Some(deadline.map_or(t, |d| d.min(t))),
                None => deadline,
            };
            let due = self.episode.next_due(deadline);
            match due {
                Some(t) if t <= self.now() => return deadline,
                None if self.episode.in_flight() == 0 => return deadline,
                _ => {}
            }
            let fault = self.faults.first().map(|f| Tick(fault_tick(f)));
            let wake = match (due, fault) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            let wake_at = wake.map(|t| self.at(t));
            tokio::select! {
                Some(done) = self.done_rx.recv() => self.on_done(done),
                Some(ev) = self.events.recv() => self.on_event(ev),
                _ = async { if let Some(t) = wake_at { tokio::time::sleep_until(t).await } }, if wake_at.is_some() => {
                    self.fire_faults();
                }
            }
            self.flush();
        }
    }

    /// Gray-zone consults (a crew config with an `[llm]` section) are settled by the
    /// deterministic adjudicator here, as the stepper does without an endpoint.
    fn adjudicate(&mut self, reqs: &[ConsultRequest]) -> Vec<(IssueId, Adjudication)> {
        reqs.iter()
            .filter_map(|req| match self.adjudicator.resolve(req) {
                Ok(adj) => Some((req.issue_id, adj)),
                Err(e) => {
                    tracing::warn!("the deterministic adjudicator failed: {e}");
                    None
                }
            })
            .collect()
    }

    fn flush(&mut self) {
        for ev in self.episode.drain() {
            self.sink.event(&ev);
        }
        self.sink.progress(self.episode.progress());
    }

    fn fail(&mut self, agent: AgentId, cause: String) {
        if self.episode.is_failed(agent) {
            return;
        }
        self.episode.fail_agent(agent, &cause);
        self.failed.push((agent, cause));
    }

    /// Sends the actions the agents just started to the bridge.
    fn dispatch(&mut self) {
        for (agent, action) in self.episode.take_started() {
            // A hand-over is idempotent by window: a second give for a window the
            // server already applied never reaches the server.
            if let Action::Give { window: Some(window), .. } = action
                && self.episode.world().handed_over().contains(&window)
            {
                let at = self.now();
                let outcome = Outcome { action, ticks: 1, result: Err(Failure::AlreadyHandedOver { window }) };
                self.episode.deliver(agent, outcome, None, at);
                continue;
            }
            let world = self.episode.world();
            let before = world.body(agent).map(|b| b.inventory.clone()).unwrap_or_else(World::agent_inventory);
            let mut cmd = self.command_for(world, agent, action);
            // The slip waits for a placement while the bot holds the other item.
            let holds = |name: &str| world.data().item(name).is_ok_and(|i| before.count(i) > 0);
            if let Some(Command::PlaceBlock { item, .. }) = &mut cmd
                && let Some(i) = self.slips.iter().position(|(a, slip)| *a == agent && slip != item && holds(slip))
            {
                let (_, slip) = self.slips.remove(i);
                tracing::warn!(%agent, asked = %item, placed = %slip, "fault drill: a slip of the hand");
                *item = slip;
            }
            let tx = self.done_tx.clone();
            let bridge = self.ctx.bridge.clone();
            let name = self.ctx.name(agent).to_owned();
            let timeouts = self.ctx.timeouts;
            // Where a failed walk returns to: the agent keeps its position when a walk
            // fails (a failed outcome moves nobody), so the bot walks back to it.
            let start = world.body(agent).map(|b| self.ctx.origin.to_mc(b.pos));
            tokio::spawn(async move {
                let started = Instant::now();
                let reply = match cmd {
                    Some(cmd) => {
                        let walk = matches!(cmd, Command::MoveTo { .. });
                        let wait = if walk { timeouts.walk } else { timeouts.command };
                        let reply = bridge.request(&name, &cmd, wait + Duration::from_secs(5)).await;
                        match (reply, start) {
                            (Err(e), Some(start)) if walk => {
                                Err(Some(walk_back(&bridge, &name, e, start, timeouts).await))
                            }
                            (r, _) => r.map_err(Some),
                        }
                    }
                    None => Err(None),
                };
                let _ = tx.send(Done { agent, action, before, reply, elapsed: started.elapsed() });
            });
            self.talk_sent(agent);
        }
    }

    /// The bridge command for an action (`None`: no counterpart on a server).
    fn command_for(&self, world: &World, agent: AgentId, action: Action) -> Option<Command> {
        let o = self.ctx.origin;
        let data = world.data();
        Some(match action {
            Action::MoveTo { target, range } => {
                // Walk to the stand the mirror plans (it keeps off unbuilt blueprint
                // cells); with no plan, let the pathfinder find its own way.
                let from = world.body(agent)?.pos;
                let timeout_ms = self.ctx.timeouts.walk.as_millis() as u64;
                match world.path(from, target, range) {
                    Some(p) => {
                        let [x, y, z] = o.to_mc(p.end(from));
                        Command::MoveTo { x, y, z, range: 0.0, timeout_ms }
                    }
                    None => {
                        let [x, y, z] = o.to_mc(target);
                        Command::MoveTo { x, y, z, range: range.max(1.0), timeout_ms }
                    }
                }
            }
            Action::Place { pos, item, .. } => {
                let [x, y, z] = o.to_mc(pos);
                Command::PlaceBlock { x, y, z, item: data.item_name(item).to_owned() }
            }
            Action::Mine { pos } => {
                let [x, y, z] = o.to_mc(pos);
                Command::Dig { x, y, z }
            }
            Action::Give { to, item, count, .. } => {
                Command::Give { to: self.ctx.name(to).to_owned(), item: data.item_name(item).to_owned(), count }
            }
            Action::Deposit { chest, item, count } => {
                let [x, y, z] = o.to_mc(chest);
                Command::Deposit { x, y, z, item: data.item_name(item).to_owned(), count }
            }
            Action::Withdraw { chest, item, count } => {
                let [x, y, z] = o.to_mc(chest);
                Command::Withdraw { x, y, z, item: data.item_name(item).to_owned(), count }
            }
            Action::Craft { recipe, times } => {
                Command::Craft { item: data.item_name(data.recipe(recipe).result).to_owned(), times }
            }
            Action::Smelt { .. } | Action::Drop { .. } | Action::PickUp { .. } => return None,
        })
    }

    fn on_done(&mut self, done: Done) {
        let agent = done.agent;
        if self.episode.is_failed(agent) {
            return;
        }
        let mut done = Some(done);
        if self.stale_reply(&mut done) {
            return;
        }
        let Some(done) = done else { return };
        match self.ctx.verify(self.episode.world_mut(), done, &mut self.placements) {
            Verdict::Outcome(outcome, receipt) => {
                let at = self.now();
                self.episode.deliver(agent, outcome, receipt, at);
            }
            Verdict::Fatal(cause) => self.fail(agent, cause),
        }
    }

    fn on_event(&mut self, ev: Event) {
        match ev {
            Event::Kicked { bot, reason } => {
                if let Some(a) = self.ctx.agent(&bot) {
                    self.fail(a, format!("{bot} was kicked: {}", escape(&reason)));
                }
            }
            Event::Ended { bot, reason } => {
                if let Some(a) = self.ctx.agent(&bot) {
                    self.fail(a, format!("{bot} lost its connection: {}", escape(&reason)));
                }
            }
            Event::BridgeExited { status } => {
                for i in 0..self.ctx.names.len() {
                    self.fail(AgentId(i as u32), format!("the bridge process died ({status})"));
                }
            }
            Event::Died { bot } => tracing::warn!(bot, "a bot died"),
            Event::Chat { bot, text } => self.heard(&bot, &text),
            Event::PlayerLeft { player, .. } => {
                if let Some(t) = self.talk.as_deref_mut() {
                    t.left(&player);
                }
            }
        }
    }

    /// Runs the fault drills that are due.
    fn fire_faults(&mut self) {
        let now = self.now().0;
        while self.faults.first().is_some_and(|f| fault_tick(f) <= now) {
            let f = self.faults.remove(0);
            tracing::warn!(?f, "fault drill");
            let bridge = self.ctx.bridge.clone();
            match f {
                Fault::KillBridgeAt { .. } => {
                    tokio::spawn(async move { bridge.kill().await });
                }
                Fault::WrongItemAt { agent, item, .. } => self.slips.push((agent, item)),
                Fault::KickAt { agent, .. } => {
                    let victim = self.ctx.name(agent).to_owned();
                    let kicker = (0..self.ctx.names.len() as u32)
                        .map(AgentId)
                        .find(|a| *a != agent && !self.episode.is_failed(*a))
                        .map(|a| self.ctx.name(a).to_owned());
                    let Some(kicker) = kicker else { continue };
                    let wait = self.ctx.timeouts.command;
                    tokio::spawn(async move {
                        let line = format!("/kick {victim} gatecrew fault drill");
                        if let Err(e) = bridge.request(&kicker, &Command::Admin { line }, wait).await {
                            tracing::warn!("the kick drill failed: {e}");
                        }
                    });
                }
            }
        }
    }

    /// What the run reports once the trace is complete.
    fn played(&mut self, finished: Finished, observed_correct: Option<u32>) -> Played {
        let world = self.episode.world();
        let inventories = (0..world.agent_count())
            .map(|i| world.body(AgentId(i as u32)).map(|b| b.inventory.clone()).unwrap_or_else(World::agent_inventory))
            .collect();
        Played {
            finished,
            failed: std::mem::take(&mut self.failed),
            observed_correct,
            inventories,
            placements: self.placements,
        }
    }

    /// The episode is over: a bot looks at every blueprint cell and the mirror takes
    /// what it sees, before the agents report unfinished work and `episode_end` is
    /// written.
    async fn final_look(&mut self) -> Option<u32> {
        if self.ctx.bridge.exited().is_some() {
            return None;
        }
        let looker = (0..self.ctx.names.len() as u32).map(AgentId).find(|a| !self.episode.is_failed(*a))?;
        let blueprint = self.blueprint.clone();
        let cells: Vec<[i32; 3]> = blueprint.iter().map(|(p, _)| self.ctx.origin.to_mc(*p)).collect();
        let cmd = Command::Look { cells };
        let seen = match self.ctx.bridge.request(self.ctx.name(looker), &cmd, self.ctx.timeouts.command).await {
            Ok(d) => d,
            Err(e) => {
                tracing::warn!("the final look failed: {e}");
                return None;
            }
        };
        let mut correct = 0;
        let world = self.episode.world_mut();
        for ((pos, want), name) in blueprint.iter().zip(&seen.names) {
            let Some(block) = block_named(world, name) else { continue };
            if block == *want {
                correct += 1;
            }
            if world.block_at(*pos) != block {
                world.sync_block(*pos, block, Default::default());
            }
        }
        Some(correct)
    }
}
