//! The recorder actor: writes trace events, of either world's trace, as JSON Lines.

use std::io::Write;
use std::marker::PhantomData;
use std::sync::Arc;

use gatecrew_protocol::trace::{Event, TraceWriter};
use ractor::{Actor, ActorProcessingErr, ActorRef, RpcReplyPort};

/// The recorder actor, writing events of type `E`.
pub struct RecorderActor<E = Event>(PhantomData<fn() -> E>);

impl<E> RecorderActor<E> {
    /// A recorder of `E`s.
    pub fn new() -> Self {
        RecorderActor(PhantomData)
    }
}

impl<E> Default for RecorderActor<E> {
    fn default() -> Self {
        RecorderActor::new()
    }
}

/// Messages to the recorder.
pub enum RecorderMsg<E = Event> {
    /// Events to append, in order.
    Record(Vec<E>),
    /// Flush everything written so far; replies with the number of events, or the
    /// first write error.
    Flush(RpcReplyPort<Result<u64, Arc<std::io::Error>>>),
}

impl<E: Send + 'static> ractor::Message for RecorderMsg<E> {}

/// The recorder's state.
pub struct RecorderState {
    out: TraceWriter<Box<dyn Write + Send>>,
    written: u64,
    // The first write error, kept (shared) for every later flush to report.
    error: Option<Arc<std::io::Error>>,
}

impl<E: serde::Serialize + Send + 'static> Actor for RecorderActor<E> {
    type Msg = RecorderMsg<E>;
    type State = RecorderState;
    type Arguments = Box<dyn Write + Send>;

    async fn pre_start(
        &self,
        _myself: ActorRef<Self::Msg>,
        out: Self::Arguments,
    ) -> Result<Self::State, ActorProcessingErr> {
        Ok(RecorderState { out: TraceWriter::new(out), written: 0, error: None })
    }

    async fn handle(
        &self,
        _myself: ActorRef<Self::Msg>,
        msg: Self::Msg,
        state: &mut Self::State,
    ) -> Result<(), ActorProcessingErr> {
        match msg {
            RecorderMsg::Record(events) => {
                for e in &events {
                    if state.error.is_some() {
                        break;
                    }
                    match state.out.write(e) {
                        Ok(()) => state.written += 1,
                        Err(err) => state.error = Some(Arc::new(err)),
                    }
                }
            }
            RecorderMsg::Flush(reply) => {
                if state.error.is_none() {
                    if let Err(e) = state.out.flush() {
                        state.error = Some(Arc::new(e));
                    }
                }
                let _ = reply.send(match &state.error {
                    Some(e) => Err(e.clone()),
                    None => Ok(state.written),
                });
            }
        }
        Ok(())
    }
}
