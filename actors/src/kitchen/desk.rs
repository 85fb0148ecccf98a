//! The crew's desk: the board (gated) or the chat (flatcomm), the judge and the
//! counts, lent to one cook at a time for its turn.

use gatecrew_kitchen::Desk;
use ractor::{Actor, ActorProcessingErr, ActorRef};

use super::messages::DeskMsg;

/// The desk actor.
pub struct DeskActor;

/// Why the desk could not serve a message.
#[derive(Debug, thiserror::Error)]
#[error("the kitchen desk is lent out: a turn did not return it")]
pub struct DeskLent;

impl Actor for DeskActor {
    type Msg = DeskMsg;
    /// `None` while a cook holds it.
    type State = Option<Box<dyn Desk>>;
    type Arguments = Box<dyn Desk>;

    async fn pre_start(
        &self,
        _myself: ActorRef<Self::Msg>,
        desk: Self::Arguments,
    ) -> Result<Self::State, ActorProcessingErr> {
        Ok(Some(desk))
    }

    async fn handle(
        &self,
        _myself: ActorRef<Self::Msg>,
        msg: Self::Msg,
        state: &mut Self::State,
    ) -> Result<(), ActorProcessingErr> {
        match msg {
            DeskMsg::Open(now, reply) => {
                state.as_mut().ok_or(DeskLent)?.open(now);
                let _ = reply.send(());
            }
            DeskMsg::Lend(reply) => {
                let _ = reply.send(state.take().ok_or(DeskLent)?);
            }
            DeskMsg::Return(desk, reply) => {
                *state = Some(desk);
                let _ = reply.send(());
            }
            DeskMsg::Lines(reply) => {
                let _ = reply.send(state.as_mut().ok_or(DeskLent)?.lines());
            }
            DeskMsg::Counters(reply) => {
                let _ = reply.send(state.as_ref().ok_or(DeskLent)?.counters());
            }
        }
        Ok(())
    }
}
