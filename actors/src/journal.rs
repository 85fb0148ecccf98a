//! An agent's way back after a crash, without a copy of its state every step.
//!
//! The supervisor must restart a failed agent from its state after its last verified
//! step. Copying the whole [`AgentCore`] to the supervisor after every step would do
//! that at the price of one core clone, one drop and one supervisor round trip per
//! agent per tick, a large share of a big crew's run (docs/benchmarks.md). The core is
//! deterministic: the same state and the same inputs give the same state. So the
//! journal keeps a checkpoint (a copy of the core) and the inputs stepped since; the
//! state after the last verified step is the checkpoint with those inputs replayed.
//! Until the first checkpoint the starting state stands for it, built again by the
//! crew's [`AgentFactory`] when needed rather than copied for every agent at the start
//! (at 1,000 bots most agents wake twice and never take a checkpoint).
//! A new checkpoint is taken when the journal grows past [`CHECKPOINT_EVERY`] inputs or
//! [`JOURNAL_ENTRIES`] observed entries, whichever comes first, and the inputs are
//! dropped. The input being stepped is kept too (without its fault flag), so that the
//! restarted agent can step it again: the world no longer keeps its own copy.
//!
//! The journal is shared between the agent actor and the supervisor (a mutex taken
//! once a step, never contended but at a restart), so it outlives the actor that
//! panicked. A replay runs with metrics and tracing silenced: those steps were already
//! counted and logged once.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use gatecrew_crew::agent::{AgentCore, AgentFactory, StepInput, StepOutput};
use gatecrew_protocol::AgentId;

/// Inputs kept before a new checkpoint is taken. A replay after a crash steps at most
/// this many; a checkpoint costs one core clone, so the clones fall 16-fold against one a
/// step. The figure is a trade-off, not a tuned result: 16 steps of the default house
/// replay in well under a millisecond.
pub const CHECKPOINT_EVERY: usize = 16;

/// Observed entries (teammates, blocks, resources, containers, dropped stacks) the kept
/// inputs may hold before a checkpoint is taken anyway: on a crowded site one
/// observation lists thousands of teammates, and 16 of them would break the memory
/// bound a bot has on actors (docs/benchmarks.md). 2,048 entries of 16-20 bytes are
/// about 40 KB; on such a site a checkpoint follows nearly every step.
pub const JOURNAL_ENTRIES: usize = 2048;

/// See the module docs.
#[derive(Debug)]
struct Journal {
    /// `None` until the first checkpoint: the starting state, which `genesis` builds.
    checkpoint: Option<AgentCore>,
    genesis: (AgentFactory, AgentId),
    since: Vec<StepInput>,
    entries: usize,
    pending: Option<StepInput>,
}

/// A journal, shared by an agent actor and its supervisor.
#[derive(Debug, Clone)]
pub struct JournalSlot(Arc<Mutex<Journal>>);

fn entries(input: &StepInput) -> usize {
    let v = &input.view;
    v.teammates.len() + v.blocks.len() + v.resources.len() + v.containers.len() + v.dropped.len()
}

impl JournalSlot {
    /// Agent `id` of `factory`'s crew at its starting state, and its journal; `None` if
    /// the crew has no such agent.
    pub fn start(factory: &AgentFactory, id: AgentId) -> Option<(Self, AgentCore)> {
        let core = factory.build(id)?;
        let journal =
            Journal { checkpoint: None, genesis: (factory.clone(), id), since: Vec::new(), entries: 0, pending: None };
        Some((JournalSlot(Arc::new(Mutex::new(journal))), core))
    }

    fn lock(&self) -> MutexGuard<'_, Journal> {
        // The core steps under the lock and may panic there (an injected crash, a bug);
        // the journal is whole even then: the input is kept before the step and nothing
        // else changes until it returns. So a poisoned lock still holds a whole journal.
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Steps `core` with `input`, journalled: the input is kept (moved, not copied)
    /// while the core steps it by reference, so that a restart can step it again, and
    /// joins the journal once the step returned, or a checkpoint of `core` replaces the
    /// journal. The lock is held through the step; only a restart, after this actor
    /// is gone, takes it from elsewhere.
    pub fn step(&self, core: &mut AgentCore, input: StepInput) -> StepOutput {
        let mut j = self.lock();
        let out = core.step_ref(j.pending.insert(input));
        let Some(input) = j.pending.take() else { unreachable!("the input was put there above") };
        let n = entries(&input);
        if j.since.len() + 1 >= CHECKPOINT_EVERY || j.entries + n > JOURNAL_ENTRIES {
            j.checkpoint = Some(core.clone());
            j.since.clear();
            j.entries = 0;
        } else {
            j.entries += n;
            j.since.push(input);
        }
        out
    }

    /// The agent's state after its last verified step (the checkpoint, the journal
    /// replayed), which becomes the new checkpoint.
    pub fn recover(&self) -> AgentCore {
        let mut j = self.lock();
        let mut core = match &j.checkpoint {
            Some(c) => c.clone(),
            None => j.genesis.0.build(j.genesis.1).expect("start() built this agent from the same factory"),
        };
        let inputs = std::mem::take(&mut j.since);
        metrics::with_local_recorder(&metrics::NoopRecorder, || {
            tracing::subscriber::with_default(tracing::subscriber::NoSubscriber::default(), || {
                for input in inputs {
                    let _ = core.step(input);
                }
            })
        });
        j.checkpoint = Some(core.clone());
        j.entries = 0;
        core
    }

    /// The input the agent was stepping when it failed, if it failed mid-step, without
    /// the injected fault that made it fail.
    pub fn take_pending(&self) -> Option<StepInput> {
        self.lock().pending.take().map(|input| StepInput { crash: false, ..input })
    }
}
